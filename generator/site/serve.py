"""``papersite serve`` (MkDocs engine): the site in ``site/``, rebuilt incrementally on every edit.

In: the project config and a host:port. Out: an HTTP server with live reload
(MkDocs' own ``LiveReloadServer``, which injects the reload script into every
page it sends) over ``site_dir``, and one line per rebuild on stderr.

Why not ``mkdocs serve``: it renders every page into a fresh temporary dir on
each change (14 s at 635 papers), prints nothing useful, and a broken page
stops it answering until the page is fixed. Here each change runs the same
pipeline as ``papersite build --no-import`` -- incremental, so only the pages
an edit touches are rendered (``incremental.py``). A page that fails the check
leaves ``site_dir`` as it was: the server keeps serving the last good site,
prints the problem as ``path:line: message`` and rebuilds when the file changes
again.

Settings are read again before each rebuild, so an edit of ``papersite.yml`` (site name,
URLs, taxonomy, ...) shows in the next rebuild; the folders the server serves and watches
(``RESTART_SETTINGS``) cannot move under it: a change there is reported as needing a
restart and the old folders stay in use. ``mkdocs.yml`` is read by every engine run.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import dataclasses

from generator.config import ProjectConfig, load_config
from generator.problems import PapersiteError
from generator.problems import one_line

MKDOCS_FILE = "mkdocs.yml"
# What the running server is built around: the folder it serves, and the folder it watches (with
# the paper pages inside it). Every other setting applies from the next rebuild.
RESTART_SETTINGS = {"site_dir": ("site_dir",), "docs_dir": ("docs_dir", "papers_dir")}


def reload_settings(running: ProjectConfig, before: ProjectConfig) -> tuple[ProjectConfig, ProjectConfig, list[str]]:
    """papersite.yml read again: (the settings to build with, the settings as read, notes).

    ``running``: what the last rebuild used; ``before``: papersite.yml as last read (notes are
    given once per change). Raises ``PapersiteError`` for a bad papersite.yml."""
    read = load_config(running.root)
    kept: dict[str, object] = {}
    notes = []
    for key, keys in RESTART_SETTINGS.items():
        if getattr(read, key) != getattr(running, key):
            kept.update({k: getattr(running, k) for k in keys})
            if getattr(read, key) != getattr(before, key):
                notes.append(f"papersite.yml changed {key} to {getattr(read, key)}: restart needed "
                             f"(papersite serve goes on with {getattr(running, key)})")
    return (dataclasses.replace(read, **kept) if kept else read), read, notes


def _say(message: str) -> None:
    print(one_line(f"papersite serve: {message}"), file=sys.stderr, flush=True)


def _sources(config: ProjectConfig) -> dict[str, tuple[int, int]]:
    """Every input a rebuild reads, by path relative to the root: (size, mtime in ns)."""
    found: dict[str, tuple[int, int]] = {}
    paths = [config.root / MKDOCS_FILE, config.root / "papersite.yml"]
    if config.taxonomy_file.is_relative_to(config.root):  # (not the bundled one)
        paths.append(config.taxonomy_file)
    for dirpath, dirnames, filenames in os.walk(config.docs_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        paths.extend(Path(dirpath) / name for name in filenames if not name.startswith("."))
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            continue
        found[path.relative_to(config.root).as_posix()] = (info.st_size, info.st_mtime_ns)
    return found


def describe_changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> str:
    changed = sorted(k for k in after.keys() & before.keys() if after[k] != before[k])
    added, removed = sorted(after.keys() - before.keys()), sorted(before.keys() - after.keys())
    parts = [f"{name} changed" for name in changed] + [f"{name} added" for name in added]
    parts += [f"{name} removed" for name in removed]
    if len(parts) > 3:
        parts = parts[:3] + [f"{len(parts) - 3} more"]
    return ", ".join(parts) or "no source changed"


class Rebuilder:
    """Runs the build pipeline, one rebuild at a time, and says what it did.

    An edit is shown first with the last build's related lists and map (``stage_docs``'
    ``derived_later``): those read every paper's text, which at 11,672 papers is seconds of work
    an edited page need not wait for. They are computed after that rebuild, in a thread
    (``_Derived``), and a second rebuild (``request_rebuild``, set by ``serve``) puts them in."""

    def __init__(self, config: ProjectConfig) -> None:
        self.config = config
        self.read = config  # papersite.yml as last read (a restart setting may differ from self.config)
        self.lock = threading.Lock()
        self.seen: dict[str, tuple[int, int]] | None = None  # before the first build
        self.broken = False
        self.request_rebuild: Callable[[], None] = self
        self.derived = _Derived(lambda: self.request_rebuild())
        self.follow_up = False  # the next rebuild puts in what the derived work computed

    def __call__(self) -> None:
        from generator.site.build import run_build

        with self.lock:
            now = _sources(self.config)
            what = "first build" if self.seen is None else describe_changes(self.seen, now)
            if self.follow_up and what == "no source changed":
                what = "the related papers and the map of the last edit"
            self.follow_up = False
            started = time.perf_counter()
            args = argparse.Namespace(no_import=True, quiet=True, clean=False, engine="mkdocs", parallel=False,
                                      derived_later=self._later)
            try:
                if self.seen is not None:
                    self.config, self.read, notes = reload_settings(self.config, self.read)
                    for note in notes:
                        _say(note)
                status = run_build(args, self.config)  # prints path:line: message for each problem
            except PapersiteError as error:  # papersite.yml as now edited: the last good settings stay
                for line in error.lines():
                    print(f"papersite: {line}", file=sys.stderr)
                status = 1
            except Exception as error:  # noqa: BLE001 - a serve must outlive any failed rebuild
                print(one_line(f"papersite: {self.config.root / MKDOCS_FILE}:1: rebuild failed: {error}"), file=sys.stderr)
                status = 1
            seconds = time.perf_counter() - started
            self.seen = now
            if status:
                self.broken = True
                _say(f"rebuild failed after {seconds:.1f}s ({what}); still serving the last good site")
            else:
                self.broken = False
                _say(f"rebuilt in {seconds:.1f}s: {what}")
                if what == "first build":  # the libraries an edit may need, loaded before it comes
                    from generator.site.related import load_libraries

                    threading.Thread(target=load_libraries, name="load libraries", daemon=True).start()


    def _later(self, works: list) -> None:  # noqa: ANN001 (stage._KeptWork)
        self.follow_up = True
        self.derived.start(works)


class _Derived:
    """The related lists and map points a rebuild took from the last build, computed in a thread
    after it, one set at a time; a newer set replaces one that has not started. ``done`` asks for
    the rebuild that puts them in. A thread, not a fork: the server's threads are running."""

    def __init__(self, done: Callable[[], None]) -> None:
        self.done = done
        self.waiting: list | None = None
        self.ready = threading.Condition()
        self.thread: threading.Thread | None = None

    def start(self, works: list) -> None:  # noqa: ANN001 (stage._KeptWork)
        with self.ready:
            self.waiting = works
            self.ready.notify()
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="related papers and map", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while True:
            with self.ready:
                self.ready.wait_for(lambda: self.waiting is not None)
                works, self.waiting = self.waiting, None
            try:
                for work in works:
                    work.compute()  # kept in the memo, where the next rebuild finds it
            except Exception as error:  # noqa: BLE001 - the rebuild computes it again and says what failed
                _say(f"related papers and map: {one_line(str(error))}; the next rebuild computes them")
            with self.ready:
                newer = self.waiting is not None
            if not newer:
                self.done()


def parse_dev_addr(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (host optional, ``[::1]`` allowed) as (host, port); ValueError saying what is wrong."""
    host, colon, port = text.rpartition(":")
    if not colon or not port.isascii() or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ValueError(f"expected HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:8000; got {text!r}")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if any(c.isspace() or c in "[]/" for c in host) or not host.isprintable():
        raise ValueError(f"expected HOST:PORT with a host name or address, e.g. 127.0.0.1:8000; got {text!r}")
    return host or "127.0.0.1", int(port)


def serve(config: ProjectConfig, dev_addr: str) -> int:
    from mkdocs.livereload import LiveReloadServer

    class Server(LiveReloadServer):
        def request_rebuild(self) -> None:
            # what the server's file watcher does on a change (mkdocs.livereload's callback): the
            # build loop runs the builder, then tells browsers to reload
            with self._rebuild_cond:
                self._want_rebuild = True
                self._rebuild_cond.notify_all()

        def server_activate(self) -> None:
            super().server_activate()
            # Listening now: say where, then build beside the server (the last site
            # built is what a browser gets meanwhile).
            print(f"papersite serve: serving {config.site_dir} on {self.url}", file=sys.stderr, flush=True)
            threading.Thread(target=rebuild, name="first build", daemon=True).start()

    try:
        host, port = parse_dev_addr(dev_addr)
    except ValueError as error:
        print(f"papersite: --dev-addr: {error}", file=sys.stderr)
        return 2
    # The server logs a request it answers with 404 as a warning of the "mkdocs" logger, where
    # MkDocs' strict mode counts warnings: a reader asking for a page while MkDocs rebuilds in
    # this process failed the rebuild. Its request lines go to stderr on their own instead.
    requests = logging.getLogger("mkdocs.livereload")
    if requests.propagate:
        requests.propagate = False
        requests.addHandler(logging.StreamHandler(sys.stderr))
    rebuild = Rebuilder(config)
    config.site_dir.mkdir(parents=True, exist_ok=True)
    try:
        server = Server(builder=rebuild, host=host, port=port, root=str(config.site_dir))
    except OSError as error:  # the port is taken, the host is not this machine's
        print(f"papersite: cannot serve on {dev_addr}: {error.strerror or error}", file=sys.stderr)
        return 1

    def error_page(code: int) -> bytes | None:
        page = config.site_dir / f"{code}.html"
        return page.read_bytes() if code in (404, 500) and page.is_file() else None

    server.error_handler = error_page
    rebuild.request_rebuild = server.request_rebuild
    # (the taxonomy too: check reads it on every rebuild)
    for path in (config.docs_dir, config.root / MKDOCS_FILE, config.root / "papersite.yml", config.taxonomy_file):
        if path.exists():
            server.watch(str(path))
    try:
        server.serve()
    except OSError as error:
        print(f"papersite: cannot serve on {dev_addr}: {error.strerror or error}", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
        # Ctrl-C: a rebuild in its thread is writing the site; let it finish (a second Ctrl-C
        # does not wait) so the site left behind is a whole one. The command line says "interrupted".
        with rebuild.lock:
            pass
    return 0
