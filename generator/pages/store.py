"""Writing the project's files safely: one lock per project, one import written as a whole.

In:  the project config, and the files one import wants to write (every page and
     the state file).
Out: ``project_lock`` (an exclusive ``fcntl.flock`` on ``<state folder>/lock``
     held by everything that writes pages or the site: ``papersite import``, ``build``,
     ``serve``'s rebuilds, ``correct``, and the MkDocs plugin under ``mkdocs build`` /
     ``mkdocs serve``), ``write_together``
     (all the files or none) and ``recover`` (finishes or undoes an import that
     was killed).

Two imports at once used to interleave: one same-title paper overwrote the
other and the state file kept half the rows. With the lock, a second process
waits (``LOCK_WAIT_SECONDS``, or ``PAPERSITE_LOCK_WAIT``) and then fails with a
message naming the holder. The engine that ``papersite build`` runs as a subprocess loads
the MkDocs plugin, which asks for the lock too: the holder names itself in the
environment (``LOCK_HOLDER_ENV``), and its own child goes ahead under the parent's hold.

``write_together`` writes every file to a temporary name beside its target
(``.<name>.papersite-tmp``: ignored by every reader, dot-files are never
staged), then writes a journal naming each (temporary, target) pair: that
rename is the commit point. Only then are the temporaries renamed over their
targets, the state file last, and the journal removed. A crash before the
commit leaves the old pages and state (the temporaries are removed by the next
``recover``); a crash after it is rolled forward by the next ``recover``. Either
way the state file and the pages agree. Temporaries are not fsynced: this
protects against a killed process, not against power loss.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import stat
import time
from pathlib import Path
from typing import Iterator, Sequence

from generator.config import ProjectConfig
from generator.inputs import lies_inside, read_regular_text
from generator.problems import PapersiteError

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; imports there are not guarded
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "lock"
JOURNAL_NAME = "import-journal.json"
TEMP_SUFFIX = ".papersite-tmp"
LOCK_WAIT_SECONDS = 60.0
_POLL_SECONDS = 0.1


def state_folder(config: ProjectConfig) -> Path:
    return config.state_file.parent


def lock_path(config: ProjectConfig) -> Path:
    return state_folder(config) / LOCK_NAME


def journal_path(config: ProjectConfig) -> Path:
    return state_folder(config) / JOURNAL_NAME


def temporary_path(target: Path) -> Path:
    return target.with_name(f".{target.name}{TEMP_SUFFIX}")


# --------------------------------------------------------------------------- lock

# (lock path, thread) -> [open file, depth]: re-entrant within a thread (build runs import inside it);
# another thread of the process waits like another process (flock locks an open file, not a process).
_held: dict[tuple[Path, int], list] = {}
LOCK_HOLDER_ENV = "PAPERSITE_LOCK_HOLDER"  # "<pid>:<lock path>" while a process holds the lock


def _held_by_parent(path: Path) -> bool:
    # only the holder's direct child (the engine subprocess): not any process that inherits the variable
    return os.environ.get(LOCK_HOLDER_ENV) == f"{os.getppid()}:{path}"


def _wait_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("PAPERSITE_LOCK_WAIT", LOCK_WAIT_SECONDS)))
    except ValueError:
        return LOCK_WAIT_SECONDS


@contextlib.contextmanager
def project_lock(config: ProjectConfig, command: str) -> Iterator[None]:
    """Hold the project's lock for ``command``; re-entrant in one thread (build runs import inside it)."""
    path = lock_path(config)
    if fcntl is None:
        yield
        return
    key = (path, threading.get_ident())
    if key in _held:
        _held[key][1] += 1
        try:
            yield
        finally:
            _held[key][1] -= 1
        return
    if _held_by_parent(path):
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # never through a symlink, never a FIFO: the holder's name is written into this file
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags, 0o666)
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            raise PapersiteError.at(path, 1, "the project lock is not a regular file; remove it")
        handle = open(descriptor, "a+", encoding="utf-8")
    except OSError as error:
        raise PapersiteError.at(path, 1, f"cannot create the project lock ({error.strerror})") from None
    try:
        deadline = time.monotonic() + _wait_seconds()
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "another process"
                    raise PapersiteError(
                        f"{path}:1: the project is locked by {holder}; wait for it to finish, "
                        "or delete this file if no papersite is running"
                    ) from None
                time.sleep(_POLL_SECONDS)
        handle.seek(0)
        handle.truncate()
        handle.write(f"papersite {command} (pid {os.getpid()})\n")
        handle.flush()
        _held[key] = [handle, 1]
        os.environ[LOCK_HOLDER_ENV] = f"{os.getpid()}:{path}"
        try:
            yield
        finally:
            del _held[key]
            os.environ.pop(LOCK_HOLDER_ENV, None)
            with contextlib.suppress(OSError):
                handle.seek(0)
                handle.truncate()
                handle.flush()
    finally:
        handle.close()  # closing the file releases the lock


# --------------------------------------------------------------------------- writing


def _remove_quietly(path: Path) -> None:
    # clean-up must never hide the error that made it necessary (read-only folder)
    with contextlib.suppress(OSError):
        os.unlink(path)


def _write_file(path: Path, text: str) -> None:
    # O_NOFOLLOW: a link left (or committed) at a temporary's name is an error, not a way out
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o666)
    with open(handle, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def write_together(writes: Sequence[tuple[Path, str]], config: ProjectConfig) -> None:
    """Write every (path, text), or leave every file as it was; the last pair should be the state file."""
    if not writes:
        return
    journal = journal_path(config)
    pairs: list[tuple[Path, Path]] = []
    try:
        for path, text in writes:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = temporary_path(path)
            pairs.append((temporary, path))
            _write_file(temporary, text)
        journal.parent.mkdir(parents=True, exist_ok=True)
        journal_temporary = temporary_path(journal)
        # relative to the project root, so a project moved after a crash still recovers
        rows = [[os.path.relpath(t, config.root), os.path.relpath(p, config.root)] for t, p in pairs]
        _write_file(journal_temporary, json.dumps(rows) + "\n")
        with open(journal_temporary, "rb") as handle:
            os.fsync(handle.fileno())
    except BaseException:
        _remove_temporaries(pairs, journal)
        raise
    # From the commit point to the last rename Ctrl-C waits: an import is never left half applied.
    with interrupts_deferred():
        try:
            os.replace(journal_temporary, journal)  # the commit point
        except BaseException:
            _remove_temporaries(pairs, journal)
            raise
        try:
            _roll_forward(pairs)
            os.unlink(journal)
        except OSError as error:
            raise PapersiteError(
                f"{error.filename or journal}:1: cannot write ({error.strerror}); the import is half applied: "
                "fix this and run it again, which finishes it first"
            ) from None


def _remove_temporaries(pairs: Sequence[tuple[Path, Path]], journal: Path) -> None:
    for temporary, _ in pairs:
        _remove_quietly(temporary)
    _remove_quietly(temporary_path(journal))


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Ctrl-C during the block takes effect when it ends: a commit and its renames, or the
    removal of a half-written site, are never cut in two. (Signals reach the main thread only.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)  # Python's own handler: KeyboardInterrupt, now


def write_alone(path: Path, text: str) -> None:
    """One file through a temporary beside it: the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = temporary_path(path)
    try:
        _write_file(temporary, text)
        os.replace(temporary, path)
    except BaseException:
        _remove_quietly(temporary)
        raise


def _roll_forward(pairs: Sequence[tuple[Path, Path]]) -> None:
    for temporary, target in pairs:
        if temporary.exists():
            os.replace(temporary, target)


def recover(config: ProjectConfig) -> str | None:
    """Finish the import a crash interrupted, or remove what it left; what was done, if anything."""
    journal = journal_path(config)
    done = None
    try:
        text = read_regular_text(journal)  # a link to /dev/zero or a FIFO in its place: refused, not read forever
    except FileNotFoundError:
        text = None
    except OSError as error:
        raise PapersiteError.at(journal, 1, f"cannot read the import journal ({error.strerror})") from None
    if text is not None:
        try:
            pairs = [(config.root / t, config.root / p) for t, p in json.loads(text)]
        except (ValueError, TypeError):
            raise PapersiteError.at(journal, 1, "the import journal is damaged; delete it and run the import again") from None
        # a journal is a file of the project like any other: it renames only our temporaries onto
        # files of the project, never a file from elsewhere into the site or one of ours out of it
        if not all(t == temporary_path(p) and lies_inside(t.parent, config.root) for t, p in pairs):
            raise PapersiteError.at(
                journal, 1, "the import journal names files that are not an import's; delete it and run the import again"
            )
        try:
            _roll_forward(pairs)
            os.unlink(journal)
        except OSError as error:
            raise PapersiteError.at(error.filename or journal, 1, f"cannot finish the interrupted import ({error.strerror})") from None
        done = f"finished an interrupted import ({len(pairs)} file(s))"
    removed = 0
    for folder in {config.papers_dir, state_folder(config)}:
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            # ours, and the older ".<page>.<pid>.tmp" names of earlier versions
            if path.name.startswith(".") and (path.name.endswith(TEMP_SUFFIX) or _old_temporary(path.name)):
                _remove_quietly(path)
                removed += 1
    if removed and done is None:
        done = f"removed {removed} temporary file(s) left by an interrupted import"
    return done


def _old_temporary(name: str) -> bool:
    parts = name.rsplit(".", 2)
    return len(parts) == 3 and parts[2] == "tmp" and parts[1].isdigit()
