"""Serve benchmark: how long an edit takes to show under `papersite serve`.

Starts `papersite serve` on a project, waits until it answers, then edits one paper's title
a few times and, after each edit, polls the paper's URL until the new title is served.
Prints the seconds from URL to answer, from each edit to the new title, and the server's
own "rebuilt in" lines. Figures only: nothing here asserts.

    python bench/serve_edit.py PROJECT [--edits 3] [--port 8123] [--pause 2]

The project is edited in place (use a copy): its first paper page's title is overwritten. The server is
`python -m generator.cli`, which puts the working folder first on the path: run this from a folder holding no
`generator` of its own (not a checkout's root), with PYTHONPATH naming the code to time.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--pause", type=float, default=2.0, help="seconds between an edit served and the next edit")
    args = parser.parse_args()
    page = sorted((args.project / "site_src" / "papers").glob("*.md"))[0]
    server = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "--project", str(args.project), "serve",
         "--dev-addr", f"127.0.0.1:{args.port}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        start = time.perf_counter()
        assert server.stdout is not None
        for line in server.stdout:
            if "http://" in line:
                print(f"URL printed after {time.perf_counter() - start:.2f} s: {line.strip()}")
                break
        url = f"http://127.0.0.1:{args.port}/papers/{page.stem}/"
        while "ps-title" not in fetch(url):
            time.sleep(0.2)
        print(f"first page served after {time.perf_counter() - start:.2f} s")
        time.sleep(args.pause)
        for edit in range(args.edits):
            title = f"Edited title {edit} {time.time():.0f}"
            text = re.sub(r"^title: .*$", f"title: '{title}'", page.read_text(encoding="utf-8"), count=1, flags=re.M)
            page.write_text(text, encoding="utf-8")
            edited = time.perf_counter()
            while title not in fetch(url):
                time.sleep(0.05)
            print(f"edit {edit + 1}: new title served after {time.perf_counter() - edited:.2f} s")
            time.sleep(args.pause)
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    print("\n".join(line for line in output.splitlines() if "rebuilt" in line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
