"""The maintainers' edit loop, end to end, in a throw-away git repository.

A maintainer edits a paper page (title, keywords, topic), builds the site and
expects the paper page and every index to show the edit; re-importing the
listings must keep it; a broken edit must make ``papersite check`` fail and
name the file and line. Everything goes through the command line, as in CI.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from slugify import slugify

pytestmark = pytest.mark.slow

NEEDED = ("generator.ingest.importer", "generator.site.build")
if not all(importlib.util.find_spec(name) for name in NEEDED):  # pragma: no cover - only while stages are missing
    pytest.skip(f"needs {', '.join(NEEDED)}", allow_module_level=True)

# A second listing, so the indexes have more than the skeleton's example papers.
EXTRA_LISTING = [
    {
        "title": "Counting Tokens in Long Documents",
        "authors": ["Fay Fixture", "Bo Sample"],
        "abstract": "We count the tokens of long documents with three tokenizers and show that the counts differ "
        "by up to a fifth, which changes how much of a document fits into a model's context window.",
        "topic": "Deep Learning · Large Language Models",
        "keywords": ["tokenization", "long context"],
    },
    {
        "title": "Sharper Images From Fewer Steps",
        "authors": ["Gil Mock"],
        "abstract": "A sampler for diffusion models that reaches the image quality of fifty steps in eight, "
        "measured on two image benchmarks, by reusing the score estimates of earlier steps.",
        "topic": "Deep Learning · Generative Models and Autoencoders",
        "keywords": ["diffusion models", "sampling"],
    },
]

EDITED_TITLE = "Counting Tokens in Very Long Documents"
OLD_KEYWORD, NEW_KEYWORD = "long context", "context windows"
NEW_TOPIC = {"area": "Applications", "subarea": "Language, Speech and Dialog", "source": "maintainer"}


def papersite(project: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "--project", str(project), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"papersite {' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def git(project: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True, text=True).stdout


def split_page(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def write_page(path: Path, data: dict, body: str) -> None:
    front = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    path.write_text(f"---\n{front}---\n{body}", encoding="utf-8")


def page_with_title(project: Path, title: str) -> Path:
    for path in sorted((project / "site_src" / "papers").glob("*.md")):
        if split_page(path)[0].get("title") == title:
            return path
    raise AssertionError(f"no page titled {title!r}")


def html(site: Path, url: str) -> str:
    path = site / url.strip("/") / "index.html"
    assert path.is_file(), f"the built site has no page {url}"
    return path.read_text(encoding="utf-8")


def visible_text(page: str) -> str:
    """Tag-free text, so a title split by markup or escaping still matches."""
    import html as html_module

    return html_module.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("edit-loop") / "site"
    init = subprocess.run(
        [sys.executable, "-m", "generator.cli", "init", str(root), "--site-name", "Edit loop"],
        capture_output=True, text=True, timeout=60,
    )
    assert init.returncode == 0, init.stderr
    (root / "corpus" / "extra.jsonl").write_text(
        "".join(json.dumps(entry) + "\n" for entry in EXTRA_LISTING), encoding="utf-8"
    )
    git(root, "init", "-q", "-b", "main")
    papersite(root, "import", "--quiet")
    papersite(root, "check")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "import")
    return root


@pytest.fixture(scope="module")
def edited(project: Path) -> Path:
    """The maintainer's edit, committed, then a full build."""
    page = page_with_title(project, "Counting Tokens in Long Documents")
    data, body = split_page(page)
    data["title"] = EDITED_TITLE
    data["keywords"] = [k for k in data["keywords"] if k != OLD_KEYWORD] + [NEW_KEYWORD]
    data["topic"] = dict(NEW_TOPIC)
    write_page(page, data, body)
    papersite(project, "check")
    git(project, "commit", "-q", "-am", "Fix title, keywords and topic")
    papersite(project, "build", "--quiet")
    return page


def test_paper_page_shows_the_edit(project: Path, edited: Path) -> None:
    slug = split_page(edited)[0]["slug"]
    page = visible_text(html(project / "site", f"/papers/{slug}/"))
    assert EDITED_TITLE in page
    assert NEW_KEYWORD in page
    assert "Language, Speech and Dialog" in page


def test_every_index_shows_the_edit(project: Path, edited: Path) -> None:
    site = project / "site"
    area, subarea = slugify(NEW_TOPIC["area"]), slugify(NEW_TOPIC["subarea"])
    for url in (
        "/papers/",
        f"/topics/{area}/{subarea}/",
        f"/keywords/{slugify(NEW_KEYWORD)}/",
        f"/authors/{slugify('Fay Fixture')}/",
    ):
        assert EDITED_TITLE in visible_text(html(site, url)), url
    # The area page lists its sub-areas (with counts), not the papers themselves.
    assert NEW_TOPIC["subarea"] in visible_text(html(site, f"/topics/{area}/"))
    old_topic = site / "topics" / "deep-learning" / "large-language-models" / "index.html"
    if old_topic.exists():
        assert "Counting Tokens" not in visible_text(old_topic.read_text(encoding="utf-8"))
    old_keyword = site / "keywords" / slugify(OLD_KEYWORD) / "index.html"
    if old_keyword.exists():
        assert "Counting Tokens" not in visible_text(old_keyword.read_text(encoding="utf-8"))
    everything = "".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*.html"))
    assert "Counting Tokens in Long Documents" not in visible_text(everything)


def test_reimport_keeps_the_edit(project: Path, edited: Path) -> None:
    papersite(project, "import", "--quiet")
    data, _ = split_page(edited)
    assert data["title"] == EDITED_TITLE
    assert NEW_KEYWORD in data["keywords"] and OLD_KEYWORD not in data["keywords"]
    assert {k: data["topic"][k] for k in NEW_TOPIC} == NEW_TOPIC
    papersite(project, "check")


def broken_check(project: Path, page: Path, break_it) -> tuple[str, int]:
    """Apply a broken edit, run check, restore; (output, line of the break)."""
    original = page.read_text(encoding="utf-8")
    try:
        line = break_it(page)
        result = papersite(project, "check", check=False)
    finally:
        page.write_text(original, encoding="utf-8")
        for extra in git(project, "ls-files", "--others", "--exclude-standard", "site_src").split():
            (project / extra).unlink()
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stdout, line


def replace_line(page: Path, startswith: str, new: str) -> int:
    lines = page.read_text(encoding="utf-8").split("\n")
    number = next(i for i, line in enumerate(lines) if line.startswith(startswith))
    lines[number] = new
    page.write_text("\n".join(lines), encoding="utf-8")
    return number + 1


def test_bad_yaml_fails_check_at_its_line(project: Path, edited: Path) -> None:
    out, line = broken_check(project, edited, lambda p: replace_line(p, "title:", f"title: [{EDITED_TITLE}"))
    rel = edited.relative_to(project).as_posix()
    assert re.search(rf"^{re.escape(rel)}:(\d+): front matter is not valid YAML", out, re.MULTILINE), out
    reported = int(re.search(rf"^{re.escape(rel)}:(\d+):", out, re.MULTILINE).group(1))
    assert reported >= line


def test_unknown_topic_fails_check_at_its_line(project: Path, edited: Path) -> None:
    out, line = broken_check(project, edited, lambda p: replace_line(p, "  area:", "  area: Alchemy"))
    rel = edited.relative_to(project).as_posix()
    assert f"{rel}:{line}: topic area 'Alchemy' is not in the taxonomy" in out, out


def test_duplicate_slug_fails_check_naming_both_files(project: Path, edited: Path) -> None:
    other = page_with_title(project, "Sharper Images From Fewer Steps")
    slug = split_page(edited)[0]["slug"]
    out, line = broken_check(project, other, lambda p: replace_line(p, "slug:", f"slug: {slug}"))
    rel, edited_rel = other.relative_to(project).as_posix(), edited.relative_to(project).as_posix()
    assert f"{rel}:{line}: duplicate slug '{slug}': also used by {edited_rel}:" in out, out
