"""Issue 7: the bundled corpus builds to the same site with MkDocs + Material and with Zensical.

Builds the repository's paper pages once per session with each engine
(``papersite build --no-import --engine ...`` on a scratch copy of the project)
and compares what a reader gets: the same pages; for three chosen paper pages
(merged from several listing entries, a derived title, math in the abstract) the
same title, authors, topic, keywords, abstract with MathML, citation meta tags
and BibTeX/RIS; and the same prebuilt search index behind the header search and
Explore. Marked slow: two whole-site builds, about 30 s.
"""

from __future__ import annotations

import gzip
import importlib.util
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.cli import main as papersite
from generator.config import load_config
from generator.site.engines import page_urls
from generator.site.zensical_config import ZENSICAL_TESTED_VERSION
from generator.pages.record import PaperRecord
from generator.site.stage import read_records
from site_fixtures import REPO_ROOT, citation_row

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("zensical") is None,
        reason=f"zensical is not installed (pip install -e '.[zensical]' or '.[test]', pins {ZENSICAL_TESTED_VERSION}); "
        "the MkDocs/Zensical parity of issue 7 cannot be checked",
    ),
]

ENGINES = ("mkdocs", "zensical")
SEARCH_FILES = ("search/index-shards.json.gz", "search/index-0.json.gz", "search/abstracts-shards.json.gz", "search/abstracts-0.json.gz", "search-docs.json.gz", "search-abstracts.json.gz", "lunr.js",
                "search-worker.js", "papersite.js", "papersite-core.js", "papersite-engine.js", "papersite-ranking.js",
                "papersite-results.js", "papersite-header.js", "papersite-explore.js", "papersite-lists.js", "papersite.css")


def _project(root: Path) -> Path:
    """A scratch copy of this project's inputs; mkdocs.yml as it is, so each engine finds the templates its own way."""
    for name in ("corpus", "site_src", ".papersite"):
        if (REPO_ROOT / name).is_dir():
            shutil.copytree(REPO_ROOT / name, root / name)
    for name in ("papersite.yml", "mkdocs.yml"):
        shutil.copy(REPO_ROOT / name, root / name)
    if not any((root / "site_src" / "papers").glob("*.md")):
        assert papersite(["--project", str(root), "import", "--quiet"]) == 0
    return root


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> tuple[dict[str, Path], list[PaperRecord]]:
    """Both sites, built side by side (each build is its own process, as `papersite build` is)."""
    roots = {engine: _project(tmp_path_factory.mktemp(f"parity-{engine}")) for engine in ENGINES}
    runs = {
        engine: subprocess.Popen(
            [sys.executable, "-m", "generator.cli", "--project", str(root), "build", "--no-import", "--quiet",
             "--engine", engine],
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        for engine, root in roots.items()
    }
    for engine, run in runs.items():
        output, _ = run.communicate(timeout=600)
        assert run.returncode == 0, f"papersite build --engine {engine} failed:\n{output}"
    records, _ = read_records(load_config(roots["mkdocs"]))
    return {engine: load_config(root).site_dir for engine, root in roots.items()}, records


# -- reading a built page --------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _PaperPage(HTMLParser):
    """The parts of a paper page the issue names, read from the HTML as a browser would."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: dict[str, str] = {}
        self.keywords: list[str] = []
        self.meta: list[tuple[str, str]] = []
        self.math = 0  # <math> elements inside the abstract
        self.header_search = False
        self.scripts: list[str] = []
        self._stack: list[tuple[str, str | None]] = []  # (tag, field its text goes to)
        self._last_dt = ""

    def _field(self) -> str | None:
        return next((f for _, f in reversed(self._stack) if f), None)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        if tag == "meta":
            name = attrs.get("name") or ""
            if name.startswith("citation_") or name == "description":
                self.meta.append((name, attrs.get("content") or ""))
        if tag == "script" and attrs.get("src"):
            self.scripts.append(attrs["src"])
        if "data-ps-search" in attrs:
            self.header_search = True
        if tag in _VOID:
            return
        if tag == "li":  # as HTML does: an item still open in this list ends where the next begins (no </li>)
            for i in range(len(self._stack) - 1, -1, -1):
                if self._stack[i][0] in ("ul", "ol"):
                    break
                if self._stack[i][0] == "li":
                    del self._stack[i:]
                    break
        outer = self._field()
        field = None
        if tag == "title":
            field = "title"
        elif "ps-title" in classes:
            field = "heading"
        elif "ps-authors" in classes:
            field = "authors"
        elif "ps-abstract" in classes:
            field = "abstract"
        elif tag == "dt":
            field = "dt"
            self._last_dt = ""
        elif tag == "dd" and self._last_dt in ("Topic", "Keywords"):
            field = self._last_dt.lower()
        elif tag == "li" and outer == "keywords":
            field = f"keyword{len(self.keywords)}"
            self.keywords.append("")
        if tag == "math" and outer == "abstract":
            self.math += 1
        self._stack.append((tag, field))

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        for i in range(len(self._stack) - 1, -1, -1):  # forgive unclosed children
            if self._stack[i][0] == tag:
                if self._stack[i][1] == "dt":
                    self._last_dt = self.text.get("dt", "").strip()
                    self.text.pop("dt", None)
                del self._stack[i:]
                return

    def handle_data(self, data):
        field = self._field()
        if field is None:
            return
        if field.startswith("keyword") and field != "keywords":
            index = int(field[len("keyword"):])
            self.keywords[index] += data
        self.text[field] = self.text.get(field, "") + data

    def value(self, field: str) -> str:
        return " ".join(self.text.get(field, "").split())


def read_paper(site: Path, slug: str) -> _PaperPage:
    page = _PaperPage()
    page.feed((site / "papers" / slug / "index.html").read_text(encoding="utf-8"))
    page.keywords = [" ".join(k.split()) for k in page.keywords]
    return page


def _has_math(record: PaperRecord, site: Path) -> bool:
    return "$" in (record.abstract or "") and read_paper(site, record.slug).math > 0


@pytest.fixture(scope="session")
def chosen(built) -> dict[str, str]:
    """Three paper pages that exercise the page template: merged, derived title, math."""
    sites, records = built
    ordered = sorted(records, key=lambda r: r.slug)
    merged = max(ordered, key=lambda r: (len(r.sources) > 1, bool(r.authors), len(r.sources), len(r.keywords)))
    derived = max((r for r in ordered if r.title_derived), key=lambda r: (bool(r.authors), len(r.keywords)), default=None)
    maths = [r for r in ordered if r not in (merged, derived) and "$" in (r.abstract or "")]
    math = next((r for r in maths if _has_math(r, sites["mkdocs"])), None)
    assert len(merged.sources) > 1, "the corpus has no paper merged from several listing entries"
    assert derived is not None, "the corpus has no paper with a derived title"
    assert math is not None, "the corpus has no paper with math in its abstract"
    return {"merged": merged.slug, "derived": derived.slug, "math": math.slug}


# -- the comparison ----------------------------------------------------------------


def test_both_engines_build_the_same_set_of_pages(built):
    sites, records = built
    mkdocs, zensical = page_urls(sites["mkdocs"]), page_urls(sites["zensical"])
    assert sorted(zensical ^ mkdocs) == []
    assert {f"papers/{r.slug}/" for r in records} <= mkdocs
    assert {"", "papers/", "topics/", "keywords/", "authors/", "explore/", "stats/", "map/", "about/"} <= mkdocs


@pytest.mark.parametrize("kind", ["merged", "derived", "math"])
def test_paper_page_is_the_same_under_both_engines(built, chosen, kind):
    sites, records = built
    record = next(r for r in records if r.slug == chosen[kind])
    mk, zs = (read_paper(sites[engine], record.slug) for engine in ENGINES)

    # The same, field by field (compared one at a time so a failure names the field).
    for field in ("title", "heading", "authors", "topic", "abstract"):
        assert zs.value(field) == mk.value(field), f"{field} of papers/{record.slug}/ differs"
    # the citations the page shows (papersite.js) are the citation shards' (written beside the engine)
    cited = {engine: citation_row(sites[engine], record.slug) for engine in ENGINES}
    bibtex, ris = ({engine: row[kind] for engine, row in cited.items()} for kind in ("bibtex", "ris"))
    assert bibtex["zensical"] == bibtex["mkdocs"], f"bibtex of papers/{record.slug}/ differs"  # whitespace and all
    assert ris["zensical"] == ris["mkdocs"], f"ris of papers/{record.slug}/ differs"
    assert zs.keywords == mk.keywords
    assert zs.math == mk.math
    assert zs.meta == mk.meta

    # ... and right, so that two equally broken pages do not pass.
    assert mk.value("heading").startswith(record.title)  # a derived title has a badge after it
    for author in record.authors:
        assert author in mk.value("authors")
    if record.topic is not None:
        assert record.topic.area in mk.value("topic")
    assert mk.keywords == record.keywords
    assert mk.value("abstract")
    published = (record.decision or "").startswith("Accept")  # no decision: not cited as published
    assert bibtex["mkdocs"].startswith("@inproceedings{" if published else "@misc{")
    assert ris["mkdocs"].startswith("TY  - CONF\n" if published else "TY  - UNPB\n")
    names = [name for name, _ in mk.meta]
    if record.title_derived:  # never exported as the paper's own title
        assert not re.search(r",\s*title = \{", bibtex["mkdocs"]) and "Title unknown" in bibtex["mkdocs"]
        assert not [name for name in names if name.startswith("citation_")]
    else:
        citation_title = next(content for name, content in mk.meta if name == "citation_title")
        assert mk.value("title").startswith(citation_title) and citation_title == record.title
        assert re.search(r",\s*title = \{", bibtex["mkdocs"])
        assert names.count("citation_author") == len(record.authors)
        assert "citation_publication_date" in names
    if kind == "merged":
        assert len(record.sources) > 1
    if kind == "derived":
        assert record.title_derived
    if kind == "math":
        assert mk.math > 0


def test_search_works_the_same_under_both_engines(built, chosen):
    sites, records = built
    # The header search and Explore run on our prebuilt lunr index: byte for byte the same files.
    shards = {p.relative_to(sites["mkdocs"] / "assets" / "papersite").as_posix()
              for p in (sites["mkdocs"] / "assets" / "papersite" / "search").glob("*.json.gz")}
    assert set(SEARCH_FILES) & shards
    for name in sorted(set(SEARCH_FILES) | shards):
        mk_file, zs_file = (sites[engine] / "assets" / "papersite" / name for engine in ENGINES)
        assert mk_file.is_file() and zs_file.is_file(), name
        assert zs_file.read_bytes() == mk_file.read_bytes(), name
    docs = gzip.decompress((sites["mkdocs"] / "assets" / "papersite" / "search-docs.json.gz").read_bytes()).decode("utf-8")
    for slug in chosen.values():
        assert f'"{slug}"' in docs
    for engine in ENGINES:
        site = sites[engine]
        for slug in chosen.values():
            page = read_paper(site, slug)
            # the search box is on the page, or in the detail pages' shared chrome (site/chrome.py) it loads
            shared = site / "assets" / "papersite" / "chrome.js"
            assert page.header_search or ("../../assets/papersite/chrome.js" in page.scripts
                                          and "data-ps-search" in shared.read_text(encoding="utf-8")), \
                f"{engine}: papers/{slug}/ has no header search box"
            assert "../../assets/papersite/papersite.js" in page.scripts, engine
        explore = (site / "explore" / "index.html").read_text(encoding="utf-8")
        assert "data-ps-explore" in explore and "data-ps-search" in explore, engine
    assert len(records) > 0


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.meta: list[tuple[str, str]] = []
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and ((attrs.get("name") or "").startswith("citation_") or attrs.get("name") == "description"):
            self.meta.append((attrs["name"], attrs.get("content") or ""))

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def test_every_page_has_the_same_title_and_meta_tags(built):
    sites, _ = built
    differing = []
    for url in sorted(page_urls(sites["mkdocs"])):
        heads = []
        for engine in ENGINES:
            head = _Head()
            html = (sites[engine] / url / "index.html").read_text(encoding="utf-8")
            head.feed(html[: html.find("<body")])
            heads.append((head.title, head.meta))
        if heads[0] != heads[1]:
            differing.append(url)
    assert differing == []
