"""The paper map's figures (BENCHMARKS.md, "Paper map"): its bytes, the time until it is drawn in
headless Chromium, and the build-time cost of its layout, with how far one edit moves the others.

    python bench/map_bench.py --project PATH [--site PATH] [--runs 3] [--no-layout]

``--project``: a built papersite project (the layout is recomputed from its pages); ``--site``: its
built site (default: the project's site_dir).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gzip
import http.server
import math
import os
import resource
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator import layout  # noqa: E402
from generator.config import load_config  # noqa: E402
from generator.site.render.map_page import MAP_DATA_FILE  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def map_bytes(site: Path) -> dict[str, int]:
    page = (site / layout.MAP.url() / "index.html").read_bytes()
    script = (site / "assets/papersite/papersite-map.js").read_bytes()
    return {
        "page html": len(page), "page html gzipped": len(gzip.compress(page, 6)),
        "map.json.gz": (site / MAP_DATA_FILE).stat().st_size,
        "map.json inflated": len(gzip.decompress((site / MAP_DATA_FILE).read_bytes())),
        "papersite-map.js": len(script), "papersite-map.js gzipped": len(gzip.compress(script, 6)),
    }


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def drawn_ms(site: Path, runs: int, width: int, height: int) -> list[int]:
    """Milliseconds from navigation start until the map is drawn (papersite-map.js's data-ps-map-drawn)."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/{layout.MAP.url()}"
    times = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
            for _ in range(runs):
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                page.goto(url)
                page.wait_for_selector("[data-ps-map][data-ps-map-drawn]", timeout=120_000)
                times.append(int(page.get_attribute("[data-ps-map]", "data-ps-map-drawn")))
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return times


def layout_figures(project: Path) -> dict[str, float]:
    from generator.site import paper_map
    from generator.site.stage import read_records

    records, _ = read_records(load_config(project), save=False)
    started, cpu = time.perf_counter(), time.process_time()
    import numpy  # noqa: F401 - loaded apart: a build that reuses the layout does not pay it
    import scipy.sparse  # noqa: F401
    loaded, loaded_cpu = time.perf_counter(), time.process_time()
    before = paper_map.paper_points(records)
    done, done_cpu = time.perf_counter(), time.process_time()
    edited = sorted(records, key=lambda r: r.slug)
    middle = len(edited) // 2
    edited[middle] = dataclasses.replace(edited[middle], abstract=(edited[middle].abstract or "") + " We also fold proteins.")
    after = paper_map.paper_points(edited)
    moved = sorted(math.dist(before[s], after[s]) for s in before if s != edited[middle].slug)
    return {
        "papers": len(records), "import s": loaded - started, "import cpu s": loaded_cpu - cpu,
        "layout s": done - loaded, "layout cpu s": done_cpu - loaded_cpu,
        "one edit: others moved, median cells of 4096": moved[len(moved) // 2],
        "one edit: 99th percentile": moved[int(len(moved) * 0.99)], "one edit: most": moved[-1],
        "one edit: papers moved over 1% of the grid": sum(1 for m in moved if m > 0.01 * paper_map.GRID),
        "one edit: papers moved over 5% of the grid": sum(1 for m in moved if m > 0.05 * paper_map.GRID),
        "peak rss MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--site", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-layout", action="store_true")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args(argv)
    site = args.site or load_config(args.project).site_dir
    print(f"load before: {load()}")
    for name, value in map_bytes(site).items():
        print(f"{name}: {value:,} bytes")
    for width, height in () if args.no_browser else ((1280, 900), (390, 844)):
        times = drawn_ms(site, args.runs, width, height)
        print(f"drawn at {width} px: median {statistics.median(times)} ms of {times} (load {load()})")
    if not args.no_layout:
        for name, value in layout_figures(args.project).items():
            print(f"{name}: {value:,.2f}")
    print(f"load after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
