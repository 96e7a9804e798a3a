"""Where a query's milliseconds go: the requests and the page's performance measures of a first and a next query.

The same reader as ``bench/run.py --search-cost`` (headless Chromium, cold cache, the home page, the probe
title typed into the header search, then "Kevin Frans"), run ``--runs`` times; for each query it prints, in ms
from the moment the text was typed, when each of the page's fetches began and ended (resource timing), and each
``performance.measure`` the page made meanwhile (papersite-engine.js: the worker's shard fetch, parse and
index; papersite-header.js: the answer, the rows, the results shown). Figures only: nothing asserts.
``--type MS`` types each query key by key, MS ms apart, as a reader does (the page warms the shards of the
words being typed), and counts from its last key instead. A query's bytes are its requests' bodies as this
local server sent them, and as a host that gzips text would (``table.host_bytes``, the table's count); unlike
the table's first query, they leave out the page's own load.

    python bench/search_trace.py SITE [--runs 3] [--type 80] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import CHROMIUM, CHROMIUM_ARGS, COST_QUERIES, HEADER_INPUT, HEADER_TOGGLE, _SETTLED, _SHOWN, serve  # noqa: E402
from table import host_bytes  # noqa: E402

# the page's measures, and its own fetches (resource timing: the workers' are in their measures), made since
# the mark "bench-begin", as [name, start, end] in ms from it
_MEASURES = ("() => { const b = performance.getEntriesByName('bench-begin').pop().startTime;"
             " return performance.getEntriesByType('measure').concat(performance.getEntriesByType('resource'))"
             ".filter(m => m.startTime >= b)"
             ".map(m => [m.entryType === 'resource' ? 'fetch ' + m.name.split('/').pop() : m.name,"
             " Math.round(m.startTime - b), Math.round(m.startTime + m.duration - b)]); }")


def trace(site: Path, queries: tuple[str, ...] = COST_QUERIES, key_ms: int = 0) -> list[dict[str, Any]]:
    """One reader's queries: for each, ms to results shown and settled, its requests and measures (key_ms: typed
    key by key, that many ms apart, and counted from the last key, the requests' times from the first; else
    filled at once)."""
    from playwright.sync_api import sync_playwright

    server, base = serve(site)
    out: list[dict[str, Any]] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                clock = {"begun": time.perf_counter()}
                began: dict[Any, float] = {}
                requests: list[list[Any]] = []

                def ms() -> int:
                    return round(1000 * (time.perf_counter() - clock["begun"]))

                def finished(request: Any) -> None:
                    try:
                        size = request.sizes()["responseBodySize"]
                    except Exception:
                        size = 0
                    path = request.url[len(base):]
                    requests.append([path, began.pop(request, None), ms(), size, _host_size(site, path) if size > 0 else 0])

                context.on("request", lambda request: began.__setitem__(request, ms()))
                context.on("requestfinished", finished)
                page = context.new_page()
                page.goto(base, wait_until="load")
                page.wait_for_timeout(1500)
                if not page.locator(HEADER_INPUT).count():
                    page.locator(HEADER_TOGGLE).first.click()
                field_ = page.locator(HEADER_INPUT).first
                for query in queries:
                    requests.clear()  # typed key by key: the requests of the keys before the last count too
                    clock["begun"] = time.perf_counter()
                    if key_ms:
                        field_.fill("")
                        field_.press_sequentially(query[:-1], delay=key_ms)
                        page.wait_for_timeout(key_ms)
                    last_key = ms()
                    page.evaluate("() => performance.mark('bench-begin')")
                    if key_ms:
                        field_.press(query[-1])
                    else:
                        field_.fill(query)
                    page.wait_for_function(_SHOWN, arg=query, timeout=120_000, polling="raf")
                    shown = ms() - last_key
                    page.wait_for_function(_SETTLED, arg=query, timeout=120_000, polling="raf")
                    settled = ms() - last_key
                    page.wait_for_timeout(300)
                    out.append({"query": query, "shown_ms": shown, "settled_ms": settled,
                                "requests": sorted(requests, key=lambda r: (r[1] is None, r[1] or 0)),
                                "measures": sorted(page.evaluate(_MEASURES), key=lambda m: m[1])})
            finally:
                browser.close()
    finally:
        server.shutdown()
    return out


def _host_size(site: Path, path: str) -> int:
    """What the site's file at URL ``path`` weighs from a host that gzips text (0 if it is not a file of the site)."""
    file = site / path.split("?")[0].split("#")[0]
    if file.is_dir():
        file = file / "index.html"
    try:
        return host_bytes(path, file.read_bytes())
    except OSError:
        return 0


def printed(runs: list[list[dict[str, Any]]]) -> str:
    lines = []
    for number, queries in enumerate(runs, 1):
        for q in queries:
            lines.append(f"run {number} {q['query']!r}: shown {q['shown_ms']} ms, settled {q['settled_ms']} ms")
            got = sum(r[3] for r in q["requests"] if r[3] > 0)
            hosted = sum(r[4] for r in q["requests"])
            lines.append(f"  {len(q['requests'])} requests, {got / 1000:,.1f} KB of bodies ({hosted / 1000:,.1f} KB from a host that gzips text)")
            for name, start, end in q["measures"]:
                lines.append(f"  measure {start:>6} -> {end:>6}  {name}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--type", type=int, default=0, metavar="MS", help="type each query key by key, MS ms apart")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    runs = [trace(args.site, key_ms=args.type) for _ in range(args.runs)]
    print(printed(runs))
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
