"""``papersite serve``: the site in ``site/``, rebuilt incrementally on every edit, with either engine.

In: the project config and a host:port. Out: an HTTP server with live reload
(MkDocs' own ``LiveReloadServer``, which injects the reload script into every
page it sends) over ``site_dir``, and one line per rebuild on stderr.

Why not ``mkdocs serve``: it renders every page into a fresh temporary dir on
each change (14 s at 635 papers), prints nothing useful, and a broken page
stops it answering until the page is fixed. Here each change runs
``papersite build --no-import`` in a child process (``WarmBuilds``) --
incremental, so only the pages an edit touches are rendered (``incremental.py``),
with the command's forked workers. That process is started before the edit:
it has loaded papersite's code when the edit comes. The paper pages an edit changed are
written first and served at once, before the rest of the rebuild ends (``FirstPages``, ``ShownEarly``).
A page that fails the check leaves ``site_dir`` as it was: the server keeps serving the last good site, prints the
problem as ``path:line: message`` and rebuilds when the file changes again.

Settings are read again before each rebuild, so an edit of ``papersite.yml`` (site name,
URLs, taxonomy, ...) shows in the next rebuild; the folders the server serves and watches
(``RESTART_SETTINGS``) cannot move under it: a change there is reported as needing a
restart and the old folders stay in use. ``mkdocs.yml`` is read by every engine run.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import os
import posixpath
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TextIO
from pathlib import Path
from urllib.parse import urlsplit

import dataclasses
from dataclasses import dataclass

from generator.config import MKDOCS_FILE, ProjectConfig, load_config
from generator.cli import INTERRUPTED, SERVED_FOLDERS, SHOWN_TO, WHEN_ASKED
from generator.problems import PapersiteError, one_line

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


def _build_command(config: ProjectConfig, engine: str) -> list[str]:
    """``papersite build --no-import --quiet --engine ENGINE`` on the folders this server serves and watches."""
    folders = {key: str(getattr(config, key)) for keys in RESTART_SETTINGS.values() for key in keys}
    return [sys.executable, "-m", "generator.cli", "--project", str(config.root), "build", "--no-import", "--quiet",
            "--engine", engine, f"{SERVED_FOLDERS}={json.dumps(folders)}"]


# A warm build process whose papersite code changed while it waited (EX_TEMPFAIL): it built nothing
STALE = 75
# What every rebuild runs, loaded by a warm build process while it waits (related papers and the map: numpy
# and scipy, which the build's workers would each load after their fork)
_BUILD_MODULES = ("generator.site.build", "generator.site.stage", "generator.site.postbuild", "generator.site.search",
                  "generator.site.exports", "generator.site.engines", "generator.pages.check", "generator.site.render.indices",
                  "generator.site.render.paper_pages", "generator.site.related", "generator.site.paper_map",
                  "generator.site.termcounts", "numpy", "scipy.sparse")


def wait_until_asked(stream: TextIO, project: Path | str = ".", shown_to: int | None = None) -> "int | FirstPages":
    """In a build process ``WarmBuilds`` started ahead of an edit: the build's modules loaded and the memo files of
    ``project``'s last build read (``memo.ReadAhead``), wait for the word on ``stream``. ``FirstPages``: build now
    (settings and pages are read from here on), those pages first, said on the pipe ``shown_to``; else the status to
    end with, having built nothing: told to stop (no word, or Ctrl-C), or ``STALE`` where papersite's code changed
    meanwhile (the modules loaded are not the code on disk)."""
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
    go, _, edited = word.strip().partition(" ")
    if go != "go":
        return 0
    if code_version.__wrapped__() != loaded:
        return STALE
    return FirstPages(_edited_names(edited), shown_to)


def _edited_names(text: str) -> frozenset[str]:
    """The sources a server said an edit changed (a JSON list of names, as ``_sources`` gives them); none if unreadable."""
    try:
        names = json.loads(text) if text else []
    except ValueError:
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str)) if isinstance(names, list) else frozenset()


@dataclass(frozen=True)
class FirstPages:
    """What a build started by ``papersite serve`` writes before the rest: the paper pages in ``names`` (paths from the
    project's root, as ``_sources`` names them), each put whole into the site as soon as its page is rendered (the
    stage: ``postbuild.write_first``), and said on the pipe ``to`` (``shown``). ``writing`` says the engine or the
    post-build step is about to write the rest of the site in place: until then every other file there is the last
    build's, whole, and the server may send it (``ShownEarly``)."""

    names: frozenset[str]
    to: int | None = None

    def shown(self, url: str, digest: str) -> None:
        self._say(f"shown {url} {digest}")

    def writing(self) -> None:
        self._say("writing")

    def _say(self, line: str) -> None:
        if self.to is not None:
            with contextlib.suppress(OSError):  # the server stopped listening: the build goes on
                os.write(self.to, f"{line}\n".encode())


def _has_word(stream: TextIO) -> bool:
    """Whether a word waits to be read on ``stream`` (a pipe; a stream with no file is read when asked)."""
    try:
        return bool(select.select([stream], [], [], 0)[0])
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


class WarmBuilds:
    """Each rebuild is ``papersite build --no-import --quiet --engine ENGINE`` on the folders this server serves and
    watches (``_build_command``), run in a process of its own started before it was needed: it loaded papersite's code
    (a third to half a second of each rebuild) while the server waited for the edit. The next one starts as a
    rebuild ends; ``close`` stops the one waiting. Each is told the sources the edit changed, and says on a pipe
    of its own which pages it wrote first (``FirstPages``): each line is given to ``heard`` as it comes. Its
    problems go to this server's stderr as they are printed; ``__call__`` gives its exit status.

    A process, not a call: the build forks its workers (search index, related papers, map) to use both cores, which
    a process running the server's threads must not do. In this process, with the search index in a thread, an edit
    at 11,672 papers was served after 9.2-11.3 s, against the command's 7.0 s (BENCHMARKS.md, issue 31 part 7)."""

    def __init__(self, heard: Callable[[str], None] | None = None, engine: str = "mkdocs") -> None:
        self.heard = heard
        self.engine = engine
        self.waiting: subprocess.Popen | None = None
        self.waiting_for: list[str] = []  # its command (the served folders are in it)

    def __call__(self, config: ProjectConfig, edited: Iterable[str] = ()) -> int:
        command = _build_command(config, self.engine)
        child, self.waiting = self.waiting, None
        if child is not None and self.waiting_for != command:
            self._stop(child)
            child = None
        word = f"go {json.dumps(sorted(edited))}\n"
        status = self._go(child or self._started(command), word, self.heard)
        if status == STALE:
            status = self._go(self._started(command), word, self.heard)
        if status != INTERRUPTED:
            self.waiting, self.waiting_for = self._started(command), command
        return status

    @staticmethod
    def _started(command: list[str]) -> subprocess.Popen:
        if os.name != "posix":  # (no pipe handed down by number: the pages come with the rest)
            return subprocess.Popen([*command, WHEN_ASKED], stdin=subprocess.PIPE)
        reader, writer = os.pipe()
        try:
            child = subprocess.Popen([*command, WHEN_ASKED, f"{SHOWN_TO}={writer}"], stdin=subprocess.PIPE, pass_fds=(writer,))
        except BaseException:
            os.close(reader)
            raise
        finally:
            os.close(writer)
        child.shown_from = reader  # type: ignore[attr-defined]
        return child

    @staticmethod
    def _go(child: subprocess.Popen, word: str, heard: Callable[[str], None] | None) -> int:
        try:
            child.stdin.write(word.encode("utf-8"))
            child.stdin.close()
        except OSError:  # it ended while it waited: its status says how
            pass
        reader = getattr(child, "shown_from", None)
        if reader is not None:
            try:
                _hear(reader, child, heard or (lambda line: None))
            finally:
                os.close(reader)
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
        reader = getattr(child, "shown_from", None)
        if reader is not None:
            os.close(reader)

    def close(self) -> None:
        if self.waiting is not None:
            self._stop(self.waiting)
            self.waiting = None


def _hear(reader: int, child: subprocess.Popen, heard: Callable[[str], None]) -> None:
    """Each line the build process ``child`` writes on the pipe ``reader``, given to ``heard`` as it comes, until the
    process has ended and the pipe holds nothing more. (Not until the pipe's end alone: a worker the build forked
    holds it too, and one that outlived the build would keep the server waiting.)"""
    pending = b""
    while True:
        if select.select([reader], [], [], 0.05)[0]:
            chunk = os.read(reader, 65536)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                heard(line.decode("utf-8", "replace"))
        elif child.poll() is not None:
            break


def served_folders(config: ProjectConfig, given: str) -> ProjectConfig:
    """``config`` with the folders a server passed (``_build_command``); PapersiteError if they are not such."""
    names = {key for keys in RESTART_SETTINGS.values() for key in keys}
    try:
        folders = json.loads(given)
    except ValueError:
        folders = None
    if not (isinstance(folders, dict) and set(folders) == names and all(isinstance(v, str) for v in folders.values())):
        raise PapersiteError(f"{SERVED_FOLDERS}: expected the JSON object papersite serve passes")
    return dataclasses.replace(config, **{key: Path(value) for key, value in folders.items()})


class Rebuilder:
    """Runs ``build`` (by default ``WarmBuilds``: the command in a process started ahead), one rebuild at a time,
    and says what it did."""

    def __init__(self, config: ProjectConfig, build: Callable[[ProjectConfig, Iterable[str]], int] | None = None) -> None:
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
            edited = [] if self.seen is None else [name for name, stat in now.items() if self.seen.get(name) != stat]
            started = time.perf_counter()
            try:
                if self.seen is not None:
                    self.config, self.read, notes = reload_settings(self.config, self.read)
                    for note in notes:
                        _say(note)
                status = self.build(self.config, edited)  # prints path:line: message for each problem
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


class ShownEarly:
    """What the rebuild underway has put into the site ahead of the rest (``FirstPages``), for the server to send
    before it ends. MkDocs' server holds every request while a rebuild runs, so an edit showed only once the whole
    build had ended (4.6-4.8 s at 11,672 papers; the edited page is written ~1.8 s in). With this, while a rebuild runs,
    the server sends each page written first at once, and, until the build says it is writing the rest in place,
    every other file (the last build's, whole: the page's styles and scripts among them); a tab showing a page
    written first is told to load it again at once. Files are named as from the site's root (``papers/x/index.html``)."""

    def __init__(self) -> None:
        self.epoch: int | None = None  # the rebuild's (MkDocs' wanted epoch), while one runs
        self.pages: dict[str, str] = {}  # each page written first -> the SHA-1 of its bytes
        self.writing = False  # the build began writing the rest of the site in place

    def begin(self, epoch: int) -> None:
        self.epoch, self.pages, self.writing = epoch, {}, False

    def heard(self, line: str) -> None:
        """A line of ``FirstPages``: ``shown URL DIGEST`` or ``writing``."""
        word, _, rest = line.strip().partition(" ")
        if word == "writing":
            self.writing = True
        elif word == "shown":
            url, _, digest = rest.partition(" ")
            if url and digest:
                self.pages[posixpath.normpath(f"/{url}/index.html").lstrip("/")] = digest

    def epoch_of(self, rel: str, visible: int) -> int | None:
        """The epoch to send the file ``rel`` with now, while a rebuild runs (a page written first: the rebuild's, so
        its tab does not load it again when the rebuild ends; another file: the last build's); None: hold it until
        the rebuild ends (none runs, or it is writing the site)."""
        if self.epoch is None:
            return None
        if rel in self.pages:
            return self.epoch
        return None if self.writing else visible

    def reloads(self, page: str | None, epoch: int) -> bool:
        """Whether a tab showing ``page`` as of ``epoch`` should load it again now: it was written first since."""
        return self.epoch is not None and page in self.pages and epoch < self.epoch

    def changed(self, site_dir: Path) -> bool:
        """Whether a page written first holds other bytes now the rebuild ended (the engine rendered the page's
        shell again): the tabs that loaded it early must load it again."""
        from generator.inputs import read_regular

        for rel, digest in self.pages.items():
            try:
                now = hashlib.sha1(read_regular(site_dir / rel)).hexdigest()  # noqa: S324 - a change detector
            except OSError:
                return True
            if now != digest:
                return True
        return False

    def end(self) -> None:
        self.epoch, self.pages, self.writing = None, {}, False


def site_file(path: str, mount_path: str = "/") -> str | None:
    """The site's file a request's path names (from the site's root), as MkDocs' server finds it; None outside it."""
    if not (path + "/").startswith(mount_path):
        return None
    rel = path[len(mount_path):]
    if path.endswith("/"):
        rel += "index.html"
    return posixpath.normpath("/" + rel).lstrip("/")


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


def live_server(root: Path, rebuild: Callable[[], None], host: str, port: int):  # noqa: ANN201 (a LiveReloadServer)
    """MkDocs' live-reload server over the site in ``root``, each rebuild ``rebuild`` (its first beside the server as
    it starts listening); not yet serving (its ``serve``). OSError if it cannot listen there."""
    from mkdocs.livereload import LiveReloadServer, _timestamp

    from generator.inputs import read_regular

    class Server(LiveReloadServer):
        """MkDocs' server, whose watcher polls: it stats every watched file twice a second, which at
        11,672 papers took a quarter of a core while nothing changed (2.7 CPU s in 10 s), taken from the
        rebuilds. The docs tree is watched through the system's own notices instead (inotify, FSEvents,
        ...: nothing between edits); the few settings files are still polled (an editor that saves by
        renaming gives a file a new inode, which a notice on the file itself would lose). While a rebuild
        runs, what it wrote first is sent at once (``ShownEarly``)."""

        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            from watchdog.observers import Observer

            self.notices = Observer()
            self.shown = ShownEarly()

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
            print(f"papersite serve: serving {self.root} on {self.url}", file=sys.stderr, flush=True)
            threading.Thread(target=rebuild, name="first build", daemon=True).start()

        def hear(self, line: str) -> None:  # from the build process, as it writes (WarmBuilds)
            with self._epoch_cond:
                self.shown.heard(line)
                self._epoch_cond.notify_all()  # a tab waiting on a page written first loads it now

        def build_and_settle(self) -> None:  # the build loop's builder
            with self._epoch_cond:
                self.shown.begin(self._wanted_epoch)
            try:
                rebuild()
            finally:
                with self._epoch_cond:
                    if self.shown.changed(Path(self.root)):
                        self._wanted_epoch = _timestamp()  # the loop shows it: every tab loads again, early ones too
                    self.shown.end()

        def _serve_request(self, environ, start_response):  # noqa: ANN001, ANN202 - mkdocs.livereload's, while a rebuild runs
            path = environ["PATH_INFO"].encode("latin-1").decode("utf-8", "ignore")
            poll = re.fullmatch(r"/livereload/([0-9]+)/[0-9]+", path)
            if poll:
                return self._poll(int(poll[1]), site_file(urlsplit(environ.get("HTTP_REFERER") or "").path, self.mount_path),
                                  start_response)
            rel = site_file(path, self.mount_path)
            with self._epoch_cond:
                building = self._visible_epoch != self._wanted_epoch
                epoch = self.shown.epoch_of(rel, self._visible_epoch) if building and rel is not None else None
            if epoch is not None:
                try:
                    content = read_regular(os.path.join(self.root, rel))
                except OSError:  # a folder (MkDocs redirects), or no such file: as MkDocs answers, once the rebuild ends
                    pass
                else:
                    if rel.endswith(".html"):
                        content = self._inject_js_into_html(content, epoch)
                    start_response("200 OK", [("Content-Type", self._guess_type(rel)), ("Content-Length", str(len(content)))])
                    return [content]
            return super()._serve_request(environ, start_response)

        def _poll(self, epoch: int, page: str | None, start_response):  # noqa: ANN001, ANN202
            # MkDocs' answer to a tab's poll (the site's epoch once newer than the tab's), or the rebuild's as soon as
            # the tab's page is written first
            start_response("200 OK", [("Content-Type", "text/plain")])
            with self._epoch_cond:
                def news() -> bool:
                    return self._visible_epoch > epoch or self.shown.reloads(page, epoch)

                if not news():
                    self._epoch_cond.wait_for(news, timeout=self.poll_response_timeout)
                newer = self._visible_epoch if self._visible_epoch > epoch or self.shown.epoch is None else self.shown.epoch
                return [b"%d" % newer]

    server = Server(builder=lambda: server.build_and_settle(), host=host, port=port, root=str(root))
    return server


def serve(config: ProjectConfig, dev_addr: str, engine: str = "mkdocs") -> int:
    try:
        host, port = parse_dev_addr(dev_addr)
    except ValueError as error:
        print(f"papersite: --dev-addr: {error}", file=sys.stderr)
        return 2
    rebuild = Rebuilder(config, WarmBuilds(heard=lambda line: server.hear(line), engine=engine))
    config.site_dir.mkdir(parents=True, exist_ok=True)
    try:
        server = live_server(config.site_dir, rebuild, host, port)
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
