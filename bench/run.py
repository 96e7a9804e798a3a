"""Scale benchmark: build papersite sites of growing size and print the figures.

For each corpus size this script makes a listing (the first N real ICLR 2025
submissions; beyond the real 11,672, synthetic papers grown from them by
bench/corpus.py, which says what in them is real), builds a site from it in a fresh
project, and measures:

  import, enrichment, index and engine seconds; total ms per paper; peak RSS;
  site size; HTML bytes of a paper page; search index bytes; browser time to
  the first search result (header search and Explore) and browser memory once
  search is ready.

It also builds the same papers as plain Markdown pages with bare MkDocs
Material (minimal mkdocs.yml, no papersite) -- the reference row -- so every
figure has a ratio measured in the same run. Figures only: nothing here asserts.

    python bench/run.py                       # 1k, 5k, 11,672, 20k with MkDocs
    python bench/run.py --sizes 1000,11672 --engine zensical --out bench/out/z.json
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import os
import platform
import re
import shutil
import socketserver
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any


REPO = Path(__file__).resolve().parents[1]
DATASET = REPO.parent / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz"
CHROMIUM = "/usr/bin/chromium"
# Every host but this machine's unresolvable: a site's third-party request (a bare theme's web fonts) fails at
# once, as it would be refused, without routing each request through Playwright, which turns Chromium's HTTP
# cache off (a script the page and its workers share is then fetched once each) and adds the driver's round
# trip to every request: a design of many small files paid for it most (BENCHMARKS.md, part 17).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
                 "--no-default-browser-check", "--enable-precise-memory-info",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
DEFAULT_SIZES = (1000, 5000, 11672, 20000)
# A paper every corpus holds (placed first), the one the header-search query looks for.
PROBE_TITLE = "One Step Diffusion via Shortcut Models"
# `--search`: a single common word and an author's name (the probe paper's first author) beside the title.
SEARCH_QUERIES = (PROBE_TITLE, "Diffusion", "Kevin Frans")


# --------------------------------------------------------------------------- corpora


def real_records() -> list[dict[str, Any]]:
    with gzip.open(DATASET, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    records.sort(key=lambda r: r["title"] != PROBE_TITLE)  # stable: probe first, rest in file order
    return records


def make_corpus(size: int, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first ``size`` papers: real ones (probe first), then synthetic ones grown from them (bench/corpus.py)."""
    from corpus import grow  # bench/corpus.py, beside this script

    return grow(records, size)


def write_listing(corpus: list[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for record in corpus:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------- measuring processes


@dataclass
class Measured:
    seconds: float
    peak_rss_mb: float
    cpu_seconds: float  # user + system, of it and its waited-for descendants
    # the tree's proportional set size at its sampled peak: a page that forked workers share with their
    # parent counts once, where the RSS sum counts it in each (``_tree_pss_kb``)
    peak_pss_mb: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)  # sub-stage seconds reported by the child
    output: str = ""


def _tree_pids(pid: int) -> list[int]:
    """A process and all its descendants right now."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def _tree_sum_kb(pids: list[int], file: str, field: str) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
                if line.startswith(field):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants right now (a parent and its engine
    subprocess are alive together, which the per-process maximum of wait4 does not add up). A page
    a forked worker still shares with its parent counts in both."""
    return _tree_sum_kb(_tree_pids(pid), "status", "VmRSS:")


def _tree_pss_kb(pid: int) -> int:
    """Proportional set size of a process and its descendants right now: each resident page divided
    among the processes sharing it, so their sum is the memory the tree holds. Reading it walks the
    page tables (~13 ms a GB here), so it is sampled less often than the RSS."""
    return _tree_sum_kb(_tree_pids(pid), "smaps_rollup", "Pss:")


def measured_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A measured command's environment: this one's and ``extra``, but Python's bytecode caches written and read as
    in a default setup (``PYTHONDONTWRITEBYTECODE`` dropped): where it is set (as in some sandboxes), every papersite
    and mkdocs process compiled the modules it imports afresh, ~0.1 s of each edit at 11,672 papers."""
    env = {**os.environ, **(extra or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_measured(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> Measured:
    """Run a command; wall time, CPU time and peak RSS of it and its descendants.

    Peak RSS is the larger of wait4's per-process maximum and the sampled sum
    over the live process tree (every 0.2 s). Peak PSS is the tree's sampled
    proportional set size (at least 1 s apart): what the tree holds, where the
    RSS sum counts each page a forked worker shares with its parent twice.
    """
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=measured_env(env))
    tree_peak, pss_peak = [0], [0]
    running = threading.Event()
    running.set()

    def sample() -> None:
        next_pss = 0.0
        while running.is_set():
            tree_peak[0] = max(tree_peak[0], _tree_rss_kb(process.pid))
            if time.perf_counter() >= next_pss:
                began = time.perf_counter()
                pss_peak[0] = max(pss_peak[0], _tree_pss_kb(process.pid))
                # at most a tenth of a core, however large the tree: at least 1 s apart
                next_pss = began + max(1.0, 10 * (time.perf_counter() - began))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output = process.stdout.read()
    running.clear()
    sampler.join()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        tail = "\n".join(output.strip().splitlines()[-30:])
        raise RuntimeError(f"{' '.join(command)} (in {cwd}) exited with {process.returncode}:\n{tail}")
    return Measured(seconds=seconds, peak_rss_mb=max(usage.ru_maxrss, tree_peak[0]) / 1024, cpu_seconds=usage.ru_utime + usage.ru_stime,
                    stages={}, output=output, peak_pss_mb=pss_peak[0] / 1024)


def papersite_measured(project: Path, *args: str) -> Measured:
    """One papersite command in a child process; its stage seconds come from ``--timings``
    (generator/pipeline.py: the stage names of IMPORT_STAGES and SITE_STAGES)."""
    timings = project / ".bench-timings.json"
    timings.unlink(missing_ok=True)
    command, *rest = args
    measured = run_measured([sys.executable, "-m", "generator.cli", "--project", str(project), command,
                             "--timings", str(timings), *rest], cwd=REPO)
    if timings.is_file():
        measured.stages = json.loads(timings.read_text(encoding="utf-8"))
    return measured


# --------------------------------------------------------------------------- projects


_NOT_COPIED = {".git", ".venv", "site", "build", "bench", "tests", "generator", "docs", "corpus", ".papersite",
               ".pytest_cache", ".hypothesis", "__pycache__", "papersite.egg-info", ".github", ".ci"}


def new_project(directory: Path, corpus: list[dict[str, Any]]) -> Path:
    """A copy of the repository's site project (its mkdocs.yml, papersite.yml, site_src) holding only the
    benchmark listing and no paper pages."""
    if directory.exists():
        shutil.rmtree(directory)
    shutil.copytree(REPO, directory, ignore=lambda d, names: [n for n in names if Path(d) == REPO and n in _NOT_COPIED])
    # mkdocs.yml may name package files by project-relative path (theme custom_dir)
    (directory / "generator").symlink_to(REPO / "generator", target_is_directory=True)
    shutil.rmtree(directory / "site_src" / "papers", ignore_errors=True)
    (directory / "site_src" / "papers").mkdir(parents=True)
    write_listing(corpus, directory / "corpus" / "bench.jsonl")
    # papersite.yml names reference catalogues under corpus/references/ (never read as listings)
    if (REPO / "corpus" / "references").is_dir():
        shutil.copytree(REPO / "corpus" / "references", directory / "corpus" / "references")
    return directory


def reference_project(directory: Path, corpus: list[dict[str, Any]]) -> Path:
    """The same papers as plain Markdown pages for bare MkDocs Material.

    The nav lists the home page only (as papersite's nav holds sections only):
    an automatic nav would put every paper into every page.
    """
    if directory.exists():
        shutil.rmtree(directory)
    docs = directory / "docs"
    (docs / "papers").mkdir(parents=True)
    (directory / "mkdocs.yml").write_text(
        "site_name: Reference\ntheme:\n  name: material\nplugins:\n  - search\nnav:\n  - Home: index.md\n",
        encoding="utf-8")
    (docs / "index.md").write_text("# Papers\n\nReference site: plain Markdown pages.\n", encoding="utf-8")
    used: set[str] = set()
    for number, record in enumerate(corpus):
        slug = _slug(record["title"]) or f"paper-{number}"
        while slug in used:
            slug += "-x"
        used.add(slug)
        authors = ", ".join(record["authors"] or [])
        text = f"# {record['title']}\n\n**Authors:** {authors}\n\n**Decision:** {record.get('decision') or ''}\n\n" \
               f"## Abstract\n\n{record['abstract'] or ''}\n"
        (docs / "papers" / f"{slug}.md").write_text(text, encoding="utf-8")
    return directory


def _slug(title: str) -> str:
    out = "".join(c.lower() if c.isalnum() else "-" for c in title)
    return "-".join(filter(None, out.split("-")))[:80]


# --------------------------------------------------------------------------- site figures


def kind_bytes(site: Path) -> dict[str, list[int]]:
    """[files, bytes] per page kind: the first URL segment of an HTML page (paper, author ...), else the file's kind."""
    kinds: dict[str, list[int]] = {}
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(site).parts
        if path.suffix == ".html":
            kind = f"{rel[0]}/* pages" if len(rel) > 2 else ("section index pages" if len(rel) == 2 else "root pages")
        elif rel[0] == "assets" and len(rel) > 2 and rel[1] == "papersite" and (path.name.startswith("search") or rel[2] == "search"):
            kind = "search data"
        else:
            kind = f"{rel[0]}/ other files" if len(rel) > 1 else "root files"
        entry = kinds.setdefault(kind, [0, 0])
        entry[0] += 1
        entry[1] += path.stat().st_size
    return dict(sorted(kinds.items()))


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def paper_page_bytes(site: Path) -> tuple[int, int, int]:
    """HTML bytes of the probe paper's page, and the median and max over all paper pages."""
    pages = sorted((site / "papers").glob("*/index.html"))
    pages = [p for p in pages if p.parent.name != "papers"]
    if not pages:
        return 0, 0, 0
    sizes = [p.stat().st_size for p in pages]
    probe = site / "papers" / _slug(PROBE_TITLE) / "index.html"
    return (probe.stat().st_size if probe.exists() else 0), int(statistics.median(sizes)), max(sizes)


def search_index_bytes(site: Path) -> dict[str, int]:
    """Every search index the site ships (Material's and papersite's own), by relative path; papersite's
    index shards (assets/papersite/search/index-a.json.gz, ...) summed as one entry per index."""
    found: dict[str, int] = {}
    for path in site.rglob("*"):
        relative = path.relative_to(site).as_posix().lower()
        shard = re.fullmatch(r"(assets/papersite/search/[a-z]+)-\w+\.json(?:\.gz)?", relative)
        is_index = path.suffix in (".json", ".js", ".gz") and ("search" in relative or "explore" in relative) \
            and ("index" in path.name.lower() or path.name == "search.json" or shard) and "/javascripts/" not in "/" + relative
        if path.is_file() and is_index:
            key = f"{shard.group(1)}-*{''.join(path.suffixes)}" if shard else path.relative_to(site).as_posix()
            found[key] = found.get(key, 0) + path.stat().st_size
    return dict(sorted(found.items()))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def serve(site: Path) -> tuple[_Server, str]:
    server = _Server(("127.0.0.1", 0), partial(_QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _renderer_rss_mb(browser: Any) -> float:
    """Resident memory of the largest renderer process (the page with its web workers)."""
    session = browser.new_browser_cdp_session()
    try:
        info = session.send("SystemInfo.getProcessInfo")
    finally:
        session.detach()
    largest = 0
    for process in info.get("processInfo", []):
        if process.get("type") != "renderer":
            continue
        try:
            status = Path(f"/proc/{process['id']}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                largest = max(largest, int(line.split()[1]))
    return round(largest / 1024, 1)


def _heap_mb(page: Any) -> float:
    """Used JS heap of the page plus its web workers (Material searches in a worker), after a GC."""
    session = page.context.new_cdp_session(page)
    workers: list[str] = []
    replies: dict[str, dict] = {}
    session.on("Target.attachedToTarget",
               lambda event: workers.append(event["sessionId"]) if event["targetInfo"]["type"] == "worker" else None)
    session.on("Target.receivedMessageFromTarget",
               lambda event: replies.__setitem__(event["sessionId"], json.loads(event["message"])))
    try:
        session.send("HeapProfiler.collectGarbage")
        used = session.send("Runtime.getHeapUsage")["usedSize"]
        session.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": False})
        page.wait_for_timeout(200)
        for worker in workers:
            for number, method in enumerate(("HeapProfiler.collectGarbage", "Runtime.getHeapUsage"), start=1):
                session.send("Target.sendMessageToTarget",
                             {"sessionId": worker, "message": json.dumps({"id": number, "method": method})})
        deadline = time.monotonic() + 5
        while len(replies) < len(workers) or any(r.get("id") != 2 for r in replies.values()):
            if time.monotonic() > deadline:
                break
            page.wait_for_timeout(50)
        used += sum(r.get("result", {}).get("usedSize", 0) for r in replies.values() if r.get("id") == 2)
    finally:
        session.detach()
    return round(used / 2**20, 1)


HEADER_TOGGLE = "button.md-search__button:visible, label[for=__search]:visible"  # Zensical / Material (narrow)
HEADER_INPUT = "input.md-search__input:visible, input[role=combobox][aria-label=Search]:visible"
HEADER_RESULT = ".md-search-result__item, [role=listbox][aria-label='Search results'] [role=option]"
EXPLORE_INPUT = "#ps-q, main input[type=search]"
EXPLORE_RESULT = "[data-ps-explore-results] li"


def search_figures(sites: list[Path]) -> str:
    """Header search, first result shown, for each of SEARCH_QUERIES on each site (a fresh browser each)."""
    lines = ["| site | " + " | ".join(f"{q!r} 1st result s" for q in SEARCH_QUERIES) + " |",
             "|---|" + "---|" * len(SEARCH_QUERIES)]
    for site in sites:
        cells = []
        for query in SEARCH_QUERIES:
            figures = browser_figures(site, query, kinds=("header",))
            cells.append(str(figures.get("header_first_result_s", figures.get("header_error", "-"))))
        lines.append(f"| {site} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def browser_figures(site: Path, query: str = PROBE_TITLE, kinds: tuple[str, ...] = ("header", "explore")) -> dict[str, Any]:
    """Time from typing a query (as soon as the page loaded) to the first result shown, and memory then."""
    from playwright.sync_api import sync_playwright

    figures: dict[str, Any] = {}
    server, base = serve(site)
    try:
        with sync_playwright() as playwright:
            for kind, path, field_selector, result_selector in (
                    ("header", "", HEADER_INPUT, HEADER_RESULT),
                    ("explore", "explore/", EXPLORE_INPUT, EXPLORE_RESULT)):
                if kind not in kinds or kind == "explore" and not (site / "explore" / "index.html").exists():
                    continue
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                try:
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.goto(base + path, wait_until="load")
                    if kind == "header" and not page.locator(field_selector).count():
                        page.locator(HEADER_TOGGLE).first.click()
                    field_ = page.locator(field_selector).first
                    start = time.perf_counter()
                    field_.fill(query)
                    page.locator(result_selector).first.wait_for(state="visible", timeout=120_000)
                    figures[f"{kind}_first_result_s"] = round(time.perf_counter() - start, 3)
                    first = page.locator(result_selector).first.inner_text()
                    figures[f"{kind}_first_result_is_probe"] = query.lower() in first.lower()
                    page.wait_for_timeout(500)  # let the search settle before reading memory
                    figures[f"{kind}_js_heap_mb"] = _heap_mb(page)
                    figures[f"{kind}_renderer_rss_mb"] = _renderer_rss_mb(browser)
                except Exception as error:  # a figure that cannot be taken is reported, not fatal
                    figures[f"{kind}_error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
                finally:
                    browser.close()
    finally:
        server.shutdown()
    return figures


# A reader's two searches in a row: the first from a cold cache on a freshly opened page, then another.
COST_QUERIES = (PROBE_TITLE, "Kevin Frans")
# The header search's results for a query are shown (papersite: the list names its query; others: any result).
_SHOWN = ("q => { const l = document.querySelector('[data-ps-search-results]');"
          " return l ? l.getAttribute('data-ps-query') === q && l.children.length > 0"
          " : !!document.querySelector(\"" + HEADER_RESULT.replace('"', '\\"') + "\"); }")
# ... and complete (papersite: the abstracts answered too; others: the first results are all there is).
_SETTLED = ("q => { const l = document.querySelector('[data-ps-search-results]');"
            " return l ? l.getAttribute('data-ps-query') === q && l.getAttribute('data-ps-state') === 'full' : true; }")


class _Bytes:
    """Bytes the browser received (bodies as sent, and headers), the page's and its workers', since ``mark``."""

    def __init__(self, context: Any) -> None:
        self.total = 0
        self.urls: list[tuple[str, int]] = []
        context.on("requestfinished", self._finished)

    def _finished(self, request: Any) -> None:
        try:
            sizes = request.sizes()
        except Exception:  # a request of a page being closed
            return
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        self.total += size
        self.urls.append((request.url, size))

    def mark(self) -> int:
        return self.total


def _settled_ms(page: Any, query: str, begun: float, condition: str) -> float:
    page.wait_for_function(condition, arg=query, timeout=120_000, polling="raf")
    return round(1000 * (time.perf_counter() - begun))


def search_cost(site: Path, queries: tuple[str, str] = COST_QUERIES) -> dict[str, Any]:
    """What a reader's searches cost in headless Chromium, cold cache: bytes the page fetched for search
    before anyone searched (search code and data, after load and an idle second); the first query typed
    on the just-opened home page (ms and bytes to its first results shown, and until every index has
    answered); then a second query (the same). Bytes are the page's and its workers' responses."""
    from playwright.sync_api import sync_playwright

    figures: dict[str, Any] = {}
    server, base = serve(site)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                # (not routed: routing turns Chromium's HTTP cache off, and lunr.js, fetched by the page and by
                # each worker, then counted three times; requests off the site are counted instead)
                offsite: list[str] = []
                context.on("request", lambda request: offsite.append(request.url)
                           if not request.url.startswith((base, "data:", "blob:")) else None)
                received = _Bytes(context)
                page = context.new_page()
                page.goto(base, wait_until="load")
                page.wait_for_timeout(1500)  # idle callbacks: what a page fetches before anyone searches
                figures["page_B"] = received.mark()
                figures["search_before_use_B"] = sum(size for url, size in received.urls if _is_search(url))
                if not page.locator(HEADER_INPUT).count():
                    page.locator(HEADER_TOGGLE).first.click()
                field_ = page.locator(HEADER_INPUT).first
                for name, query in zip(("first", "next"), queries):
                    before = received.mark()
                    begun = time.perf_counter()
                    field_.fill(query)
                    figures[f"{name}_ms"] = _settled_ms(page, query, begun, _SHOWN)
                    figures[f"{name}_B"] = received.mark() - before
                    figures[f"{name}_full_ms"] = _settled_ms(page, query, begun, _SETTLED)
                    page.wait_for_timeout(300)  # requests the answer started (snippets' texts)
                    figures[f"{name}_full_B"] = received.mark() - before
                figures["requests"] = [[url[len(base):], size] for url, size in received.urls]
                figures["offsite_requests"] = len(offsite)
            except Exception as error:  # a figure that cannot be taken is reported, not fatal
                figures["error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
            finally:
                browser.close()
    finally:
        server.shutdown()
    return figures


def _is_search(url: str) -> bool:
    name = url.rsplit("/", 1)[-1]
    return any(part in name for part in ("search", "lunr", "papersite-core", "papersite-engine", "papersite-ranking",
                                         "papersite-results", "worker"))


def search_cost_line(figures: dict[str, Any]) -> str:
    """search_cost's figures as one line: first and next query, ms and KB to first results (and settled)."""
    if "error" in figures:
        return figures["error"]
    kb = lambda key: f"{figures[key] / 1000:,.0f} KB"  # noqa: E731
    return (f"before use {kb('search_before_use_B')}; first {figures['first_ms']} ms {kb('first_B')} "
            f"(settled {figures['first_full_ms']} ms {kb('first_full_B')}); next {figures['next_ms']} ms {kb('next_B')} "
            f"(settled {figures['next_full_ms']} ms {kb('next_full_B')})")


# --------------------------------------------------------------------------- rows


@dataclass
class Row:
    kind: str  # papersite | reference
    engine: str
    size: int  # papers in the listing
    pages: int = 0  # paper pages written
    import_s: float = 0.0  # import without enrichment
    enrich_s: float = 0.0
    index_s: float = 0.0  # index pages, search index, staging: everything of the build but the engine
    engine_s: float = 0.0
    total_s: float = 0.0
    cpu_s: float = 0.0  # CPU seconds (user + system): less sensitive than wall time to a busy machine
    ms_per_paper: float = 0.0
    peak_rss_mb: float = 0.0
    peak_pss_mb: float = 0.0  # Measured.peak_pss_mb
    site_mb: float = 0.0
    html_pages: int = 0  # every page the engine wrote (papers, authors, keywords, topics ...)
    paper_html_bytes: int = 0
    paper_html_median_bytes: int = 0
    paper_html_max_bytes: int = 0
    search_index_bytes: dict[str, int] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)  # every timed sub-stage, seconds
    browser: dict[str, Any] = field(default_factory=dict)
    kind_bytes: dict[str, list[int]] = field(default_factory=dict)  # page kind -> [files, bytes]
    incremental_s: float = 0.0  # `build --no-import` after one paper's title was edited
    incremental_peak_rss_mb: float = 0.0
    incremental_cpu_s: float = 0.0
    error: str | None = None


def bench_papersite(size: int, corpus: list[dict[str, Any]], engine: str, work: Path, browser: bool) -> Row:
    row = Row(kind="papersite", engine=engine, size=size)
    project = new_project(work / f"papersite-{engine}-{size}", corpus)
    try:
        imported = papersite_measured(project, "import", "--quiet")
        row.enrich_s = round(imported.stages.get("enrich", 0.0), 2)
        row.import_s = round(imported.seconds - row.enrich_s, 2)
        built = papersite_measured(project, "build", "--no-import", "--quiet", "--engine", engine)
    except RuntimeError as error:
        row.error = str(error)
        return row
    row.engine_s = round(built.stages.get("engine", 0.0), 2)
    # index: staging (index pages, rendered paper pages, search index) plus start-up
    row.index_s = round(built.seconds - row.engine_s, 2)
    row.total_s = round(imported.seconds + built.seconds, 2)
    row.cpu_s = round(imported.cpu_seconds + built.cpu_seconds, 2)
    row.stages = {name: round(value, 2) for name, value in {**imported.stages, **built.stages}.items()}
    row.peak_rss_mb = round(max(imported.peak_rss_mb, built.peak_rss_mb), 1)
    row.peak_pss_mb = round(max(imported.peak_pss_mb, built.peak_pss_mb), 1)
    row.pages = len(list((project / "site_src" / "papers").glob("*.md")))
    _site_figures(row, _site_dir(project), browser)
    if engine == "mkdocs":
        try:
            edited = edit_probe_title(project)
            row.incremental_s, row.incremental_peak_rss_mb = edited.seconds, round(edited.peak_rss_mb, 1)
            row.incremental_cpu_s = round(edited.cpu_seconds, 2)
        except RuntimeError as error:
            row.error = f"incremental build: {error}"
    return row


def edit_probe_title(project: Path) -> Measured:
    """The maintainer's smallest edit: one paper's title, then `papersite build --no-import` (incremental)."""
    page = project / "site_src" / "papers" / f"{_slug(PROBE_TITLE)}.md"
    text = page.read_text(encoding="utf-8")
    if f"title: {PROBE_TITLE}\n" not in text:
        raise RuntimeError(f"{page}: no 'title: {PROBE_TITLE}' line to edit")
    page.write_text(text.replace(f"title: {PROBE_TITLE}\n", f"title: {PROBE_TITLE} (edited)\n", 1), encoding="utf-8")
    built = papersite_measured(project, "build", "--no-import", "--quiet")
    built.seconds = round(built.seconds, 2)
    return built


def _site_dir(project: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from generator.config import load_config

    return load_config(project).site_dir


def bench_reference(size: int, corpus: list[dict[str, Any]], engine: str, work: Path, browser: bool) -> Row:
    row = Row(kind="reference", engine=engine, size=size, pages=size)
    project = reference_project(work / f"reference-{engine}-{size}", corpus)
    command = [str(Path(sys.executable).parent / "mkdocs"), "build", "-q"] if engine == "mkdocs" else \
        [str(Path(sys.executable).parent / "zensical"), "build", "-f", "mkdocs.yml"]
    try:
        built = run_measured(command, cwd=project)
    except RuntimeError as error:
        row.error = str(error)
        return row
    row.engine_s = row.total_s = round(built.seconds, 2)
    row.cpu_s = round(built.cpu_seconds, 2)
    row.peak_rss_mb = round(built.peak_rss_mb, 1)
    row.peak_pss_mb = round(built.peak_pss_mb, 1)
    _site_figures(row, project / "site", browser)
    return row


def _site_figures(row: Row, site: Path, browser: bool) -> None:
    row.ms_per_paper = round(1000 * row.total_s / max(1, row.size), 2)
    row.site_mb = round(tree_bytes(site) / 2**20, 1)
    row.html_pages = sum(1 for _ in site.rglob("*.html"))
    row.paper_html_bytes, row.paper_html_median_bytes, row.paper_html_max_bytes = paper_page_bytes(site)
    row.search_index_bytes = search_index_bytes(site)
    row.kind_bytes = kind_bytes(site)
    if browser and Path(CHROMIUM).exists():
        row.browser = browser_figures(site)


# --------------------------------------------------------------------------- report


def _ratio(value: float, reference: float) -> str:
    return f"{value / reference:.2f}x" if value and reference else "-"


def markdown_table(rows: list[Row]) -> str:
    header = ("| kind | engine | papers | pages | import s | enrich s | index s | engine s | total s | CPU s | ms/paper "
              "| peak RSS MB | site MB | HTML pages | paper HTML B (median/max) | search index B | header 1st result s "
              "| explore 1st result s | heap MB (JS / renderer RSS) |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    by_size: dict[tuple[str, int], dict[str, Row]] = {}
    for row in rows:
        by_size.setdefault((row.engine, row.size), {})[row.kind] = row
    for (engine, size), kinds in sorted(by_size.items()):
        for kind in ("papersite", "reference"):
            row = kinds.get(kind)
            if row is None:
                continue
            if row.error:
                lines.append(f"| {kind} | {engine} | {size} |" + " |" * (header.count("|") - 5)
                             + f" failed: {_error_line(row.error)} |")
                continue
            lines.append("| " + " | ".join(map(str, _cells(row))) + " |")
        paper, ref = kinds.get("papersite"), kinds.get("reference")
        if paper and ref and not paper.error and not ref.error:
            lines.append("| ratio | " + engine + f" | {size} | | | | | {_ratio(paper.engine_s, ref.engine_s)} "
                         f"| {_ratio(paper.total_s, ref.total_s)} | {_ratio(paper.cpu_s, ref.cpu_s)} "
                         f"| {_ratio(paper.ms_per_paper, ref.ms_per_paper)} "
                         f"| {_ratio(paper.peak_rss_mb, ref.peak_rss_mb)} | {_ratio(paper.site_mb, ref.site_mb)} "
                         f"| {_ratio(paper.html_pages, ref.html_pages)} "
                         f"| {_ratio(paper.paper_html_median_bytes, ref.paper_html_median_bytes)} "
                         f"| {_ratio(sum(paper.search_index_bytes.values()), sum(ref.search_index_bytes.values()))} "
                         f"| {_ratio(paper.browser.get('header_first_result_s', 0), ref.browser.get('header_first_result_s', 0))} "
                         f"| | {_ratio(paper.browser.get('header_renderer_rss_mb', 0), ref.browser.get('header_renderer_rss_mb', 0))} |")
    lines += ["", "| papers | incremental build s (one title edited) | its CPU s | peak RSS MB | site B per paper "
              "| bytes per page kind (files × mean B) |", "|---|---|---|---|---|---|"]
    for row in rows:
        if row.kind != "papersite" or row.error or not row.kind_bytes:
            continue
        kinds = "; ".join(f"{k}: {n} × {b // max(1, n)}" for k, (n, b) in row.kind_bytes.items())
        per_paper = sum(b for _, b in row.kind_bytes.values()) // max(1, row.size)
        lines.append(f"| {row.size} | {row.incremental_s or '-'} | {row.incremental_cpu_s or '-'} "
                     f"| {row.incremental_peak_rss_mb or '-'} | {per_paper} | {kinds} |")
    return "\n".join(lines)


def _error_line(error: str) -> str:
    """The line of a failed command's output that says what went wrong."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    telling = [line for line in lines if "Error" in line or line.startswith("papersite:")]
    return (telling or lines or ["?"])[-1][:160].replace("|", "/")


def _cells(row: Row) -> list[Any]:
    b = row.browser

    def seconds(kind: str) -> str:
        if f"{kind}_error" in b:
            return "error"
        value = b.get(f"{kind}_first_result_s")
        if value is None:
            return "-"
        return f"{value}" + ("" if b.get(f"{kind}_first_result_is_probe", True) else " (not 1st)")

    heap = "-"
    if "header_js_heap_mb" in b or "explore_js_heap_mb" in b:
        heap = " ; ".join(f"{k[0]}: {b[k + '_js_heap_mb']} / {b[k + '_renderer_rss_mb']}"
                          for k in ("header", "explore") if k + "_js_heap_mb" in b)
    index = " + ".join(f"{v}" for v in row.search_index_bytes.values()) or "-"
    return [row.kind, row.engine, row.size, row.pages, row.import_s, row.enrich_s, row.index_s, row.engine_s,
            row.total_s, row.cpu_s, row.ms_per_paper, row.peak_rss_mb, row.site_mb, row.html_pages,
            f"{row.paper_html_bytes or '-'} ({row.paper_html_median_bytes}/{row.paper_html_max_bytes})",
            index, seconds("header"), seconds("explore"), heap]


def machine() -> dict[str, Any]:
    memory_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                     if line.startswith("MemTotal:"))
    return {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "nproc": os.cpu_count(), "ram_gb": round(memory_kb / 2**20, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "platform": platform.platform()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                        help="comma-separated corpus sizes (11672 = the real dataset)")
    parser.add_argument("--engine", choices=("mkdocs", "zensical"), default="mkdocs")
    parser.add_argument("--out", type=Path, help="also write the results as JSON to this file")
    parser.add_argument("--work", type=Path, default=REPO / "bench" / "out", help="where projects are built")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser figures")
    parser.add_argument("--no-reference", action="store_true", help="skip the bare MkDocs Material rows")
    parser.add_argument("--reference-only", action="store_true", help="only the bare MkDocs Material rows")
    parser.add_argument("--report", type=Path, nargs="+", metavar="JSON",
                        help="build nothing: print one table from the JSON files of earlier runs")
    parser.add_argument("--search", type=Path, nargs="+", metavar="SITE",
                        help="build nothing: time the header search for SEARCH_QUERIES on these built sites")
    parser.add_argument("--search-cost", type=Path, nargs="+", metavar="SITE",
                        help="build nothing: bytes and ms of a first (cold) and a next query on these built sites")
    args = parser.parse_args(argv)
    if args.search_cost:
        for site in args.search_cost:
            figures = search_cost(site)
            print(f"{site}: {search_cost_line(figures)}")
            print(json.dumps({k: v for k, v in figures.items() if k != "requests"}), file=sys.stderr)
        return 0
    if args.search:
        print(search_figures(args.search))
        return 0
    if args.report:
        # Later files win, except that a failed row never hides a measured one.
        latest: dict[tuple[str, str, int], Row] = {}
        for path in args.report:
            for data in json.loads(path.read_text(encoding="utf-8"))["rows"]:
                row = Row(**data)
                key = (row.kind, row.engine, row.size)
                if key not in latest or not row.error or latest[key].error:
                    latest[key] = row
        print(markdown_table(list(latest.values())))
        return 0

    started_on = machine()
    records = real_records()
    rows: list[Row] = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        corpus = make_corpus(size, records)
        if not args.reference_only:
            rows.append(bench_papersite(size, corpus, args.engine, args.work, not args.no_browser))
            print(f"# papersite {args.engine} {size}: {json.dumps(asdict(rows[-1]))}", file=sys.stderr, flush=True)
        if not args.no_reference:
            rows.append(bench_reference(size, corpus, args.engine, args.work, not args.no_browser))
            print(f"# reference {args.engine} {size}: {json.dumps(asdict(rows[-1]))}", file=sys.stderr, flush=True)
    result = {"machine": started_on, "load_average_at_end": machine()["load_average"], "rows": [asdict(r) for r in rows]}
    print(markdown_table(rows))
    print()
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
