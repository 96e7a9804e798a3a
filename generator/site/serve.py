"""``papersite serve`` (MkDocs engine): the site in ``site/``, rebuilt incrementally on every edit.

In: the project config and a host:port. Out: an HTTP server with live reload
(MkDocs' own ``LiveReloadServer``, which injects the reload script into every
page it sends) over ``site_dir``, and one line per rebuild on stderr.

Why not ``mkdocs serve``: it renders every page into a fresh temporary dir on
each change (14 s at 635 papers), prints nothing useful, and a broken page
stops it answering until the page is fixed. Here each change runs
``papersite build --no-import`` in a child process (``build_in_child``) --
incremental, so only the pages an edit touches are rendered (``incremental.py``),
with the command's forked workers. That process is started before the edit
(``WarmBuilds``): it has loaded papersite's code when the edit comes. A page that fails the check leaves
``site_dir`` as it was: the server keeps serving the last good site, prints the
problem as ``path:line: message`` and rebuilds when the file changes again.

Settings are read again before each rebuild, so an edit of ``papersite.yml`` (site name,
URLs, taxonomy, ...) shows in the next rebuild; the folders the server serves and watches
(``RESTART_SETTINGS``) cannot move under it: a change there is reported as needing a
restart and the old folders stay in use. ``mkdocs.yml`` is read by every engine run.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO
from pathlib import Path

import dataclasses

from generator.config import ProjectConfig, load_config
from generator.cli import INTERRUPTED, SERVED_FOLDERS, WHEN_ASKED
from generator.problems import PapersiteError, one_line

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
    paths = [config.root / MKDOCS_FILE, config.root / "papersite.yml"]
    if config.taxonomy_file.is_relative_to(config.root):  # (not the bundled one)
        paths.append(config.taxonomy_file)
    named = [(str(path), path.relative_to(config.root).as_posix()) for path in paths]
    # the docs by strings, not Paths: a rebuild waits for this walk, 0.15 -> 0.05 s over 11,672 pages
    top, docs = str(config.docs_dir), config.docs_dir.relative_to(config.root).as_posix()
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        folder = (Path(docs) / Path(dirpath).relative_to(top)).as_posix()
        prefix = "" if folder == "." else f"{folder}/"
        named.extend((os.path.join(dirpath, name), prefix + name) for name in filenames if not name.startswith("."))
    found: dict[str, tuple[int, int]] = {}
    for path, name in named:
        try:
            info = os.stat(path)
        except OSError:
            continue
        found[name] = (info.st_size, info.st_mtime_ns)
    return found


def describe_changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> str:
    changed = sorted(k for k in after.keys() & before.keys() if after[k] != before[k])
    added, removed = sorted(after.keys() - before.keys()), sorted(before.keys() - after.keys())
    parts = [f"{name} changed" for name in changed] + [f"{name} added" for name in added]
    parts += [f"{name} removed" for name in removed]
    if len(parts) > 3:
        parts = parts[:3] + [f"{len(parts) - 3} more"]
    return ", ".join(parts) or "no source changed"


def _build_command(config: ProjectConfig) -> list[str]:
    """``papersite build --no-import --quiet`` on the folders this server serves and watches."""
    folders = {key: str(getattr(config, key)) for keys in RESTART_SETTINGS.values() for key in keys}
    return [sys.executable, "-m", "generator.cli", "--project", str(config.root), "build", "--no-import", "--quiet",
            f"{SERVED_FOLDERS}={json.dumps(folders)}"]


def build_in_child(config: ProjectConfig) -> int:
    """``papersite build --no-import --quiet`` in a process of its own, on the folders this server
    serves and watches; its exit status. Its problems go to this server's stderr as they are printed.

    A fresh process, not a call: the build forks its workers (search index, related papers, map) to
    use both cores, which a process running the server's threads must not do. In this process, with
    the search index in a thread, an edit at 11,672 papers was served after 9.2-11.3 s, against the
    command's 7.0 s (BENCHMARKS.md, issue 31 part 7)."""
    return subprocess.run(_build_command(config), stdin=subprocess.DEVNULL, check=False).returncode


# A warm build process whose papersite code changed while it waited (EX_TEMPFAIL): it built nothing
STALE = 75
# What every rebuild runs, loaded by a warm build process while it waits (related papers and the map: numpy
# and scipy, which the build's workers would each load after their fork)
_BUILD_MODULES = ("generator.site.build", "generator.site.stage", "generator.site.postbuild", "generator.site.search",
                  "generator.site.exports", "generator.site.engines", "generator.pages.check", "generator.site.render.indices",
                  "generator.site.render.paper_pages", "generator.site.related", "generator.site.paper_map",
                  "generator.site.termcounts", "numpy", "scipy.sparse")


def wait_until_asked(stream: TextIO, project: Path | str = ".") -> int | None:
    """In a build process ``WarmBuilds`` started ahead of an edit: the build's modules loaded and the memo files of
    ``project``'s last build read (``memo.ReadAhead``), wait for the word on ``stream``. None: build now (settings
    and pages are read from here on); else the status to end with, having built nothing: told to stop (no word, or
    Ctrl-C), or ``STALE`` where papersite's code changed meanwhile (the modules loaded are not the code on disk)."""
    import importlib

    from generator.site.memo import READ_AHEAD, code_version, memo_dir
    from generator.workers import one_thread_of_math

    one_thread_of_math()  # numpy's pools sized as each worker sizes its own, before they fork from this process
    for name in _BUILD_MODULES:
        importlib.import_module(name)
    loaded = code_version()
    try:  # (an edit that comes meanwhile is not kept waiting: its build reads the rest)
        READ_AHEAD.read(memo_dir(load_config(project)), stop=lambda: _has_word(stream))
    except Exception:  # noqa: BLE001 - settings the build will refuse, with its own words: nothing read ahead
        pass
    gc.freeze()  # what was read lives through the build: no collection walks it (as stage._kept_from_the_collector)
    try:
        word = stream.readline()
    except KeyboardInterrupt:  # the server is stopping: this process was building nothing, so it says nothing
        return INTERRUPTED
    if word.strip() != "go":
        return 0
    return STALE if code_version.__wrapped__() != loaded else None


def _has_word(stream: TextIO) -> bool:
    """Whether a word waits to be read on ``stream`` (a pipe; a stream with no file is read when asked)."""
    try:
        return bool(select.select([stream], [], [], 0)[0])
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


class WarmBuilds:
    """``build_in_child``, each time in a process started before it was needed: it loaded papersite's code
    (a third to half a second of each rebuild) while the server waited for the edit. The next one starts as a
    rebuild ends; ``close`` stops the one waiting."""

    def __init__(self) -> None:
        self.waiting: subprocess.Popen | None = None
        self.waiting_for: list[str] = []  # its command (the served folders are in it)

    def __call__(self, config: ProjectConfig) -> int:
        command = _build_command(config)
        child, self.waiting = self.waiting, None
        if child is not None and self.waiting_for != command:
            self._stop(child)
            child = None
        status = self._go(child or self._started(command))
        if status == STALE:
            status = self._go(self._started(command))
        if status != INTERRUPTED:
            self.waiting, self.waiting_for = self._started(command), command
        return status

    @staticmethod
    def _started(command: list[str]) -> subprocess.Popen:
        return subprocess.Popen([*command, WHEN_ASKED], stdin=subprocess.PIPE)

    @staticmethod
    def _go(child: subprocess.Popen) -> int:
        try:
            child.stdin.write(b"go\n")
            child.stdin.close()
        except OSError:  # it ended while it waited: its status says how
            pass
        return child.wait()

    @staticmethod
    def _stop(child: subprocess.Popen) -> None:
        with contextlib.suppress(OSError):
            child.stdin.close()  # no word: it ends having built nothing
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()

    def close(self) -> None:
        if self.waiting is not None:
            self._stop(self.waiting)
            self.waiting = None


def served_folders(config: ProjectConfig, given: str) -> ProjectConfig:
    """``config`` with the folders a server passed (``build_in_child``); PapersiteError if they are not such."""
    names = {key for keys in RESTART_SETTINGS.values() for key in keys}
    try:
        folders = json.loads(given)
    except ValueError:
        folders = None
    if not (isinstance(folders, dict) and set(folders) == names and all(isinstance(v, str) for v in folders.values())):
        raise PapersiteError(f"{SERVED_FOLDERS}: expected the JSON object papersite serve passes")
    return dataclasses.replace(config, **{key: Path(value) for key, value in folders.items()})


class Rebuilder:
    """Runs ``build`` (``build_in_child`` in a process started ahead: ``WarmBuilds``), one rebuild at a time,
    and says what it did."""

    def __init__(self, config: ProjectConfig, build: Callable[[ProjectConfig], int] | None = None) -> None:
        self.config = config
        self.read = config  # papersite.yml as last read (a restart setting may differ from self.config)
        self.build = build or WarmBuilds()
        self.lock = threading.Lock()
        self.seen: dict[str, tuple[int, int]] | None = None  # before the first build
        self.broken = False

    def __call__(self) -> None:
        with self.lock:
            now = _sources(self.config)
            what = "first build" if self.seen is None else describe_changes(self.seen, now)
            started = time.perf_counter()
            try:
                if self.seen is not None:
                    self.config, self.read, notes = reload_settings(self.config, self.read)
                    for note in notes:
                        _say(note)
                status = self.build(self.config)  # prints path:line: message for each problem
            except PapersiteError as error:  # papersite.yml as now edited: the last good settings stay
                for line in error.lines():
                    print(f"papersite: {line}", file=sys.stderr)
                status = 1
            except Exception as error:  # noqa: BLE001 - a serve must outlive any failed rebuild
                print(one_line(f"papersite: {self.config.root / MKDOCS_FILE}:1: rebuild failed: {error}"), file=sys.stderr)
                status = 1
            seconds = time.perf_counter() - started
            self.seen = now
            if status == INTERRUPTED:  # Ctrl-C reached the build too: the server is stopping
                _say(f"rebuild interrupted after {seconds:.1f}s ({what})")
            elif status:
                self.broken = True
                _say(f"rebuild failed after {seconds:.1f}s ({what}); still serving the last good site")
            else:
                self.broken = False
                _say(f"rebuilt in {seconds:.1f}s: {what}")

    def close(self) -> None:
        """The build process waiting for the next edit, stopped (``WarmBuilds``)."""
        with self.lock:
            close = getattr(self.build, "close", None)
            if close is not None:
                close()


def parse_dev_addr(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (host optional, ``[::1]`` allowed) as (host, port); ValueError saying what is wrong."""
    host, colon, port = text.rpartition(":")
    if not colon or not port.isascii() or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ValueError(f"expected HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:8000; got {text!r}")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if any(c.isspace() or c in "[]/" for c in host) or not host.isprintable():
        raise ValueError(f"expected HOST:PORT with a host name or address, e.g. 127.0.0.1:8000; got {text!r}")
    return host or "127.0.0.1", int(port)


def is_an_edit(event) -> bool:  # noqa: ANN001 (a watchdog event)
    """Whether a notice from the docs tree is an edit of a source (``_sources``): a file written, made, moved
    or removed, not a folder nor a dot file (an editor's swap or temporary file; its rename over a page is
    an edit of the page). A rebuild reads the pages it checks: their opening and closing unwritten are none."""
    if event.is_directory or event.event_type in ("opened", "closed_no_write"):
        return False
    paths = [event.src_path, getattr(event, "dest_path", "")]
    return any(path and not os.path.basename(os.fsdecode(path)).startswith(".") for path in paths)


def serve(config: ProjectConfig, dev_addr: str) -> int:
    from mkdocs.livereload import LiveReloadServer

    class Server(LiveReloadServer):
        """MkDocs' server, whose watcher polls: it stats every watched file twice a second, which at
        11,672 papers took a quarter of a core while nothing changed (2.7 CPU s in 10 s), taken from the
        rebuilds. The docs tree is watched through the system's own notices instead (inotify, FSEvents,
        ...: nothing between edits); the few settings files are still polled (an editor that saves by
        renaming gives a file a new inode, which a notice on the file itself would lose)."""

        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            from watchdog.observers import Observer

            self.notices = Observer()

        def watch_tree(self, path: Path) -> None:
            from watchdog.events import FileSystemEventHandler

            handler = FileSystemEventHandler()
            handler.on_any_event = self._changed  # type: ignore[method-assign]
            self.notices.schedule(handler, str(path), recursive=True)

        def _changed(self, event) -> None:  # noqa: ANN001 (a watchdog event)
            if is_an_edit(event):
                self.request_rebuild()

        def serve(self, **options) -> None:  # noqa: ANN003
            self.notices.start()
            try:
                super().serve(**options)
            finally:
                self.notices.stop()

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
    # (the taxonomy too: check reads it on every rebuild)
    if config.docs_dir.is_dir():
        server.watch_tree(config.docs_dir)
    for path in (config.root / MKDOCS_FILE, config.root / "papersite.yml", config.taxonomy_file):
        if path.exists():
            server.watch(str(path))
    try:
        server.serve()
    except OSError as error:
        print(f"papersite: cannot serve on {dev_addr}: {error.strerror or error}", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
        # Ctrl-C reached a rebuild's build process too (one process group): it stops as
        # `papersite build` does, leaving a whole site or none; wait for it (a second Ctrl-C does
        # not). The command line says "interrupted". The process waiting for the next edit ends too.
        rebuild.close()
    return 0
