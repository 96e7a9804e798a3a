"""``papersite serve`` as a maintainer uses it (generator/site/serve.py).

A real server process on 127.0.0.1 over a small project (with either engine), a page open in
Chromium, and real edits of a paper page: the open page shows each good edit
by itself (live reload), a broken page is reported as ``path:line: message``
while the last good site is still served, and fixing the file is enough.
Every wait is on what the server prints or serves.
"""

from __future__ import annotations

import importlib.util
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.site_fixtures import write_project

PAGE = "site_src/papers/graph-transformers.md"
URL_PATH = "papers/graph-transformers/"
OLD_TITLE = "Graph Transformers at Scale"
WAIT_S = 300  # a ceiling for a loaded machine, never a pause: every wait ends as soon as its condition holds


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Served:
    """The server process and the lines it prints on stderr."""

    def __init__(self, root: Path, port: int, engine: str = "mkdocs") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "generator.cli", "--project", str(root), "serve", "--engine", engine,
             "--dev-addr", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.url = f"http://127.0.0.1:{port}/"
        self.lines: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._queue.put(line.rstrip("\n"))

    def wait_for_line(self, pattern: str) -> str:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.lines.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r} within {WAIT_S}s; printed:\n" + "\n".join(self.lines))

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=30) as response:
            assert response.status == 200
            return response.read().decode("utf-8")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def set_title(page: Path, title: str) -> None:
    text = page.read_text(encoding="utf-8")
    page.write_text(re.sub(r"^title: .*$", f"title: {title}", text, count=1, flags=re.MULTILINE), encoding="utf-8")


ENGINES = ["mkdocs", pytest.param("zensical", marks=pytest.mark.skipif(
    importlib.util.find_spec("zensical") is None, reason="zensical is not installed (pip install -e '.[zensical]')"))]


@pytest.fixture(params=ENGINES)
def served(tmp_path: Path, request):  # noqa: ANN001, ANN201
    root = write_project(tmp_path / "site")
    server = Served(root, free_port(), request.param)
    try:
        yield root, server
    finally:
        server.stop()


def test_serve_shows_edits_reports_broken_pages_and_recovers(served, browser) -> None:  # noqa: ANN001
    root, server = served
    first = server.wait_for_line(r"papersite serve: ")
    assert server.url in first, "the first thing serve prints is where it serves"
    server.wait_for_line(r"rebuilt in [0-9.]+s: first build")
    assert OLD_TITLE in server.get(URL_PATH)

    page = browser.new_page()
    try:
        page.goto(server.url + URL_PATH)
        heading = page.locator("article h1").first
        heading.wait_for()
        assert OLD_TITLE in heading.inner_text()

        set_title(root / PAGE, "Graph Transformers, Edited Live")
        server.wait_for_line(rf"rebuilt in [0-9.]+s: {re.escape(PAGE)} changed")
        page.wait_for_function(
            "t => document.querySelector('article h1')?.textContent.includes(t)", arg="Edited Live", timeout=WAIT_S * 1000
        )

        (root / PAGE).write_text((root / PAGE).read_text(encoding="utf-8").replace("title: ", "title: [unclosed ", 1),
                                 encoding="utf-8")
        problem = server.wait_for_line(rf"{re.escape(PAGE)}:\d+: ")
        assert "YAML" in problem or "yaml" in problem
        server.wait_for_line(r"rebuild failed after [0-9.]+s .*still serving the last good site")
        assert "Edited Live" in server.get(URL_PATH), "the last good site is still served"

        set_title(root / PAGE, "Graph Transformers, Fixed Again")
        server.wait_for_line(rf"rebuilt in [0-9.]+s: {re.escape(PAGE)} changed")
        assert "Fixed Again" in server.get(URL_PATH)
        page.wait_for_function(
            "t => document.querySelector('article h1')?.textContent.includes(t)", arg="Fixed Again", timeout=WAIT_S * 1000
        )
    finally:
        page.close()
    assert server.process.poll() is None, "the server is still running"
    assert not any("Traceback" in line for line in server.lines), "\n".join(server.lines)


def test_reading_a_page_is_no_edit_and_an_editors_save_by_renaming_over_it_is_one(served) -> None:  # noqa: ANN001
    """The docs tree is watched through the system's notices (serve.py): a page opened and read (as the
    rebuild itself and an editor do) and an editor's dot-file temporary rebuild nothing; its rename over
    the page rebuilds, naming the page."""
    import os

    root, server = served
    server.wait_for_line(r"rebuilt in [0-9.]+s: first build")
    page = root / PAGE
    text = page.read_text(encoding="utf-8")
    temporary = page.with_name(f".{page.name}.tmp")
    temporary.write_text(re.sub(r"^title: .*$", "title: Graph Transformers, Renamed Over", text, count=1, flags=re.M),
                         encoding="utf-8")
    time.sleep(1.5)  # (time for a wrongly counted notice to start a rebuild first: that would fail below)
    os.replace(temporary, page)
    line = server.wait_for_line(r"rebuilt in|rebuild failed")
    assert re.search(rf"rebuilt in [0-9.]+s: {re.escape(PAGE)} changed$", line), line
    assert "Renamed Over" in server.get(URL_PATH)


class HeldRebuild:
    """A rebuild the test steers (``live_server``'s builder): it writes a page into the site first and says so, as
    ``papersite build`` does for a server's edit, then waits until the test lets it end."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.server = None
        self.steps: list = []  # what each rebuild does before it is held (the first build: nothing)
        self.held = threading.Event()
        self.release = threading.Event()
        self.ended = threading.Event()

    def __call__(self) -> None:
        if not self.steps:
            return  # the first build, as the server starts
        self.ended.clear()
        for step in self.steps.pop(0):
            step()
        self.held.set()
        assert self.release.wait(WAIT_S)
        self.release.clear()
        self.ended.set()

    def write_first(self, rel: str, html: str) -> Callable[[], None]:
        def step() -> None:
            import hashlib
            import os

            data = html.encode("utf-8")
            temporary = self.site / f"{rel}.tmp"
            temporary.write_bytes(data)
            os.replace(temporary, self.site / rel)  # whole, as postbuild.write_first puts it
            url = rel.removesuffix("index.html")
            self.server.hear(f"shown {url} {hashlib.sha1(data).hexdigest()}")

        return step


def _html(title: str) -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>"


def test_a_page_a_rebuild_writes_first_shows_in_its_tab_before_the_rebuild_ends(tmp_path, browser) -> None:  # noqa: ANN001
    """serve.ShownEarly in MkDocs' server: while a rebuild runs, the tab showing the page it wrote first loads it at
    once (the rebuild is held until the test has seen it), the site's other files are sent as they stand until the
    build says it is writing them, then held until it ends; the early tab loads again only if the rest of the build
    wrote its page otherwise."""
    from generator.site.serve import live_server

    site = tmp_path / "site"
    for rel, title in (("papers/a/index.html", "Old title"), ("papers/b/index.html", "Another paper")):
        (site / rel).parent.mkdir(parents=True)
        (site / rel).write_text(_html(title), encoding="utf-8")
    rebuild = HeldRebuild(site)
    port = free_port()
    server = live_server(site, rebuild, "127.0.0.1", port)
    rebuild.server = server
    settings = tmp_path / "papersite.yml"
    settings.write_text("", encoding="utf-8")
    server.watch(str(settings))  # as serve watches the settings: the server puts its reload script into each page
    threading.Thread(target=server.serve, daemon=True).start()
    base = f"http://127.0.0.1:{port}/"

    def get(path: str) -> str:
        with urllib.request.urlopen(base + path, timeout=WAIT_S) as response:
            return response.read().decode("utf-8")

    page = browser.new_page()
    try:
        page.goto(base + "papers/a/")
        assert page.locator("h1").inner_text() == "Old title"
        rebuild.steps.append([rebuild.write_first("papers/a/index.html", _html("Edited title"))])
        server.request_rebuild()
        assert rebuild.held.wait(WAIT_S)
        page.wait_for_function("() => document.querySelector('h1').textContent === 'Edited title'", timeout=WAIT_S * 1000)
        assert not rebuild.ended.is_set(), "the tab showed the page before the rebuild ended"
        page.evaluate("window.loadedEarly = true")
        assert "Another paper" in get("papers/b/")  # the last build's, whole, while the build writes nothing else

        server.hear("writing")  # the rest of the site is being written in place: held until the rebuild ends
        answers: list[str] = []
        held = threading.Thread(target=lambda: answers.append(get("papers/b/")))
        held.start()
        held.join(1.0)
        assert held.is_alive() and not answers, "a file was sent while the build wrote the site in place"
        assert "Edited title" in get("papers/a/")  # the page written first still is sent
        rebuild.release.set()
        held.join(WAIT_S)
        assert answers and "Another paper" in answers[0]
        page.wait_for_timeout(1500)  # (a reload the end of the rebuild would cause comes at once: none may)
        assert page.evaluate("window.loadedEarly === true"), "the tab loaded the page again though it had not changed"

        # the rest of the build writes the page otherwise: every tab loads again, the early one too
        rebuild.held.clear()
        rebuild.steps.append([rebuild.write_first("papers/a/index.html", _html("Edited again"))])
        server.request_rebuild()
        assert rebuild.held.wait(WAIT_S)
        page.wait_for_function("() => document.querySelector('h1').textContent === 'Edited again'", timeout=WAIT_S * 1000)
        (site / "papers/a/index.html").write_text(_html("Edited, final"), encoding="utf-8")
        rebuild.release.set()
        page.wait_for_function("() => document.querySelector('h1').textContent === 'Edited, final'", timeout=WAIT_S * 1000)
    finally:
        page.close()
        server.shutdown()
