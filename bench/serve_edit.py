"""Serve benchmark: how long an edit takes to show under `papersite serve`.

Starts `papersite serve` on a project, waits until it answers, then edits one paper's title
a few times and, after each edit, polls the paper's URL until the new title is served, then
waits for the server's "rebuilt in" line for that edit (the page is served before its rebuild
ends: the next edit comes --pause seconds after the rebuild, not after the page). Prints the
seconds from URL to answer, from each edit to the new title and to the rebuild's end, and the
server's own "rebuilt in" lines. With --tab, the page is open in headless Chromium instead and each
figure is the time until the open tab shows the new title by itself (live reload). Figures only:
nothing here asserts.

    python bench/serve_edit.py PROJECT [--edits 3] [--port 8123] [--pause 2] [--tab] [--engine zensical]

The project is edited in place (use a copy): its first paper page's title is overwritten. The server is
`python -m generator.cli`, which puts the working folder first on the path: run this from a folder holding no
`generator` of its own (not a checkout's root), with PYTHONPATH naming the code to time.
"""

from __future__ import annotations

import argparse
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310 - our own local server
            return answer.read().decode("utf-8")
    except (urllib.error.URLError, OSError):
        return ""


def _open_tab(url: str):  # noqa: ANN202 - a Playwright page showing url
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import CHROMIUM, CHROMIUM_ARGS

    browser = sync_playwright().start().chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    tab = browser.new_page()
    tab.goto(url)
    return tab


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--pause", type=float, default=2.0, help="seconds between an edit's rebuild ended and the next edit")
    parser.add_argument("--tab", action="store_true", help="time the page open in Chromium showing the edit by itself")
    parser.add_argument("--engine", choices=("mkdocs", "zensical"), default="mkdocs")
    args = parser.parse_args()
    page = sorted((args.project / "site_src" / "papers").glob("*.md"))[0]
    server = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "--project", str(args.project), "serve", "--engine", args.engine,
         "--dev-addr", f"127.0.0.1:{args.port}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    said: list[str] = []

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            lines.put(line)

    def wait_for(word: str) -> str:
        while True:
            line = lines.get(timeout=600)
            said.append(line)
            if word in line:
                return line

    threading.Thread(target=read, daemon=True).start()
    tab = None
    try:
        start = time.perf_counter()
        line = wait_for("http://")
        print(f"URL printed after {time.perf_counter() - start:.2f} s: {line.strip()}")
        url = f"http://127.0.0.1:{args.port}/papers/{page.stem}/"
        while "ps-title" not in fetch(url):
            time.sleep(0.2)
        print(f"first page served after {time.perf_counter() - start:.2f} s")
        wait_for("first build")
        tab = _open_tab(url) if args.tab else None
        time.sleep(args.pause)
        for edit in range(args.edits):
            title = f"Edited title {edit} {time.time():.0f}"
            text = re.sub(r"^title: .*$", f"title: '{title}'", page.read_text(encoding="utf-8"), count=1, flags=re.M)
            page.write_text(text, encoding="utf-8")
            edited = time.perf_counter()
            if tab is not None:  # the tab reloads by itself: the time until its heading says the new title
                tab.wait_for_function("t => (document.querySelector('h1') || {}).textContent.includes(t)", arg=title,
                                      timeout=600_000)
            else:
                while title not in fetch(url):
                    time.sleep(0.05)
            served = time.perf_counter() - edited
            wait_for("rebuil")  # "rebuilt in" or "rebuild failed"
            print(f"edit {edit + 1}: new title served after {served:.2f} s; rebuild ended after "
                  f"{time.perf_counter() - edited:.2f} s")
            time.sleep(args.pause)
    finally:
        if tab is not None:
            tab.context.browser.close()
        server.terminate()
        server.wait(timeout=30)
    print("".join(line for line in said if "rebuilt" in line), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
