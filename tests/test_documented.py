"""What the README documents about settings, hand-written pages and `papersite serve`, tested as a user runs it.

Each test starts from `papersite init` (three example papers), changes what the README says a
user may change, runs the command line and looks at what was written or served.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from generator.cli import main as papersite
from generator.pages.record import read_page
from site_fixtures import REPO_ROOT

pytestmark = pytest.mark.slow


def _init(root: Path) -> Path:
    assert papersite(["init", str(root), "--site-name", "Documented"]) == 0
    return root


def _cli(root: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(root), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.hrefs.append(value)


def _local_targets_missing(site: Path, page: Path) -> list[str]:
    """Relative links of a built page that point to no file of the site."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    base = "/" + page.parent.relative_to(site).as_posix() + "/"
    missing = []
    for href in parser.hrefs:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("#") or not parts.path:
            continue
        target = urljoin(base, parts.path).lstrip("/")
        path = site / target
        if not (path.is_file() or (path / "index.html").is_file()):
            missing.append(href)
    return missing


# --------------------------------------------------------------------------- settings


def test_every_path_setting_moved_builds_a_site_whose_links_work(tmp_path: Path) -> None:
    root = _init(tmp_path / "moved")
    (root / "corpus").rename(root / "listings")
    (root / "site_src").rename(root / "content")
    (root / "content" / "papers").rename(root / "content" / "entries")
    settings = {
        "site_name": "Moved", "corpus_dir": "listings", "docs_dir": "content", "papers_dir": "content/entries",
        "state_file": "state/proposed.jsonl", "site_dir": "public", "build_dir": "scratch",
    }
    (root / "papersite.yml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    run = _cli(root, "build", "--quiet")
    assert run.returncode == 0, run.stdout + run.stderr

    pages = sorted((root / "content" / "entries").glob("*.md"))
    assert len(pages) == 3, "the import writes the example papers into papers_dir"
    assert (root / "state" / "proposed.jsonl").is_file()
    assert (root / "scratch").is_dir() and (root / "public" / "index.html").is_file()
    for default in ("site", "build", "site_src", "corpus", ".papersite/last_import.jsonl"):
        assert not (root / default).exists(), f"{default} was written although the settings moved it"
    site = root / "public"
    for page in pages:
        slug = read_page(page).slug
        built = site / "papers" / slug / "index.html"
        assert built.is_file(), built
        assert _local_targets_missing(site, built) == [], f"papers/{slug}/ links to missing files"
    for index in ("index.html", "papers/index.html", "topics/index.html", "keywords/index.html", "authors/index.html"):
        assert _local_targets_missing(site, site / index) == [], index
    check = _cli(root, "check")
    assert check.returncode == 0 and "content/entries" not in check.stderr, check.stdout + check.stderr


def test_an_unknown_setting_stops_every_command_at_its_line(tmp_path: Path) -> None:
    root = _init(tmp_path / "typo")
    text = (root / "papersite.yml").read_text(encoding="utf-8")
    (root / "papersite.yml").write_text(text + "sitename: Oops\n", encoding="utf-8")
    line = len(text.splitlines()) + 1
    for command in (["build", "--quiet"], ["check"], ["import", "--quiet"]):
        run = _cli(root, *command)
        assert run.returncode != 0, command
        assert f"papersite.yml:{line}: unknown setting(s) sitename" in run.stderr, run.stderr
    assert not (root / "site").exists() and not any((root / "site_src" / "papers").glob("*.md"))


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory) -> dict[str, Path]:
    """The skeleton built without repo_url (as init writes it) and with one; the first has a hand-written About page."""
    sites = {}
    for name in ("without", "with"):
        root = _init(tmp_path_factory.mktemp(f"repo-url-{name}") / "site")
        if name == "with":
            with (root / "papersite.yml").open("a", encoding="utf-8") as handle:
                handle.write("repo_url: https://github.com/example/documented\n")
        else:
            # at the generated page's own path (about/index.md), which the nav names
            (root / "site_src" / "about").mkdir()
            (root / "site_src" / "about" / "index.md").write_text(
                "# About this collection\n\nWritten by hand by the reading group.\n", encoding="utf-8")
        run = _cli(root, "build", "--quiet")
        assert run.returncode == 0, run.stdout + run.stderr
        sites[name] = root
    return sites


def _paper_pages(root: Path) -> list[Path]:
    return sorted((root / "site" / "papers").glob("*/index.html"))


def test_without_repo_url_there_are_no_edit_or_fix_links(two_sites) -> None:
    with_pages, without_pages = _paper_pages(two_sites["with"]), _paper_pages(two_sites["without"])
    assert len(with_pages) == len(without_pages) == 3
    for page in with_pages:
        html = page.read_text(encoding="utf-8")
        assert "Edit this page" in html and "Fix this paper" in html
        assert re.search(r'href="?https://github\.com/example/documented/edit/main/site_src/papers/[^"\s>]+\.md[">\s]', html)
        assert "https://github.com/example/documented/issues/new?" in html
    for page in without_pages:
        html = page.read_text(encoding="utf-8")
        assert "Edit this page" not in html and "Fix this paper" not in html, page
        assert "/edit/" not in html and "issues/new" not in html, page


def test_a_hand_written_page_replaces_the_generated_one(two_sites) -> None:
    hand = (two_sites["without"] / "site" / "about" / "index.html").read_text(encoding="utf-8")
    generated = (two_sites["with"] / "site" / "about" / "index.html").read_text(encoding="utf-8")
    assert "Written by hand by the reading group." in hand and "About this collection" in hand
    assert "Written by hand" not in generated
    # the generated About page's own text is gone from the replaced one
    generated_text = re.sub(r"<[^>]+>", " ", generated.split("<article", 1)[1].split("</article>", 1)[0])
    first_sentence = next(s for s in (w.strip() for w in generated_text.split("\n")) if len(s) > 40)
    assert first_sentence not in hand


def test_strict_mode_fails_the_build_on_a_warning(tmp_path: Path) -> None:
    root = _init(tmp_path / "strict")
    mkdocs = (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert "  - About: about/index.md\n" in mkdocs
    (root / "mkdocs.yml").write_text(mkdocs.replace("  - About: about/index.md\n", "  - About: about/index.md\n  - Notes: reading-notes.md\n"),
                                     encoding="utf-8")
    notes = root / "site_src" / "reading-notes.md"
    notes.write_text("# Reading notes\n\nSee [the schedule](schedule.md).\n", encoding="utf-8")
    for quiet in (["--quiet"], []):  # --quiet hides the output, never the failure
        run = _cli(root, "build", *quiet)
        assert run.returncode == 1, run.stdout + run.stderr
        output = run.stdout + run.stderr
        assert "Doc file 'reading-notes.md' contains a link 'schedule.md', but the target is not found" in output, output
        assert "strict mode" in output, output
        assert "Traceback" not in output
    # the same page with its link fixed builds
    notes.write_text("# Reading notes\n\nSee [the papers](papers/index.md).\n", encoding="utf-8")
    again = _cli(root, "build", "--quiet")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "See" in (root / "site" / "reading-notes" / "index.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- serve


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_answers_on_the_dev_addr_it_was_given(tmp_path: Path) -> None:
    root = _init(tmp_path / "served")
    assert _cli(root, "import", "--quiet").returncode == 0
    slug = read_page(next((root / "site_src" / "papers").glob("*.md"))).slug
    title = read_page(next((root / "site_src" / "papers").glob("*.md"))).title
    port = _free_port()
    url = f"http://127.0.0.1:{port}/papers/{slug}/"
    server = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "--project", str(root), "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        page = None
        for _ in range(600):  # until it answers: each try waits on the server, never on a clock
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    page = response.read().decode("utf-8")
                break
            except (urllib.error.URLError, ConnectionError):
                try:
                    server.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    continue
                pytest.fail(f"papersite serve exited with {server.returncode}: {server.stderr.read()[-2000:]}")
        assert page is not None, f"{url} never answered"
        assert title in page.replace("&#39;", "'").replace("&amp;", "&"), page[:500]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            assert response.status == 200
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# --------------------------------------------------------------------------- JSON listings


def test_a_gzipped_json_array_with_a_topic_mapping_and_link_aliases_imports_as_documented(tmp_path: Path) -> None:
    root = _init(tmp_path / "json")
    (root / "corpus" / "example.jsonl").unlink()
    rows = [
        {"title": "Aliased Links for Sparse Coding", "authors": ["Una Alias"],
         "abstract": "We study sparse coding with aliased links and report what the links say.",
         "topic": {"area": "Deep Learning", "subarea": "Other Representation Learning"},
         "openreview_url": "https://openreview.net/forum?id=abc123", "pdf_url": "https://example.org/a.pdf",
         "code_url": "https://github.com/example/aliased", "url": "https://example.org/aliased"},
        {"title": "A Second Paper on Sparse Coding", "authors": ["Una Alias", "Dev Beta"],
         "abstract": "Sparse coding again, from another angle, with a topic written as text.",
         "topic": "Theory · Learning Theory"},
    ]
    (root / "corpus" / "export.json.gz").write_bytes(gzip.compress(json.dumps(rows).encode("utf-8")))
    run = _cli(root, "import", "--quiet")
    assert run.returncode == 0, run.stdout + run.stderr
    pages = {p.title: p for p in map(read_page, (root / "site_src" / "papers").glob("*.md"))}
    aliased = pages["Aliased Links for Sparse Coding"]
    assert aliased.links == {
        "openreview": "https://openreview.net/forum?id=abc123", "pdf": "https://example.org/a.pdf",
        "code": "https://github.com/example/aliased", "url": "https://example.org/aliased",
    }
    assert (aliased.topic.area, aliased.topic.subarea, aliased.topic.source) == ("Deep Learning", "Other Representation Learning", "listing")
    second = pages["A Second Paper on Sparse Coding"]
    assert (second.topic.area, second.topic.subarea) == ("Theory", "Learning Theory")
    assert [s.file for s in aliased.sources] == ["export.json.gz"] and aliased.sources[0].format == "json"
    assert _cli(root, "check").returncode == 0
