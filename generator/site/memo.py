"""What one build keeps for the next: one store, in one format, keyed on what each piece of work reads.

In: the build dir. Out: ``build/memo/<kind>.pickle``, one file per kind of work
(``records``, ``checked``, ``related``, ``rows-authors``, ``stamps``, ``files``, ...),
each a pickle of ``(FORMAT, scope, {key: (digest, value)})``: the value a piece of
work gave for ``key`` while its inputs hashed to ``digest``.

How a key is made. A digest is never written by hand for a renderer:

* work on a file is keyed on the file's bytes (a page is parsed again only when its
  bytes change; the build's stamps hash every file they cover, ``filehashes.py``);
* work on values is keyed on its arguments: ``Fingerprints.of(function, *args)``
  hashes everything the arguments hold, field by field. A renderer is handed only
  what it shows (``render/views.py``: a page's view of the catalog, not the
  catalog), so whatever it reads is in its key; something it is not handed it
  cannot read. (Before issue 28 each renderer had an ``*_inputs`` function kept
  "in step" by hand; one that forgot a field left a stale page.)
* a step's output compared byte by byte (the staged docs dir, the site pages the
  post-build step fills) is written only when its bytes differ.

Every kind's file is dropped when papersite's code changes (``code_version``), so
a kept value is only ever what the current code computes from the same inputs.
A file that cannot be read, from another format or another version, counts as
empty; the caches of builds before this module (``build/cache/``, ``build/stamps/``,
``postbuild/filled.json``) are removed (``remove_old_formats``). ``--clean``
forgets everything (``forget_all``).
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import io
import marshal
import mmap
import os
import pickle
import shutil
import stat
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from enum import Enum
from types import FunctionType
from functools import lru_cache
from pathlib import Path, PurePath
from typing import Any, BinaryIO

from generator.config import ProjectConfig
from generator.inputs import open_regular
from generator.outputs import clear_the_way

MEMO_DIR = "memo"
FORMAT = "papersite-memo-1"
# What builds before this module kept, each in a format of its own.
OLD_FORMATS = ("cache", "stamps", "postbuild/filled.json", "memo/related-pages", "memo/map-pages", "postbuild/bodies.json",
               "postbuild/bodies-index.json")
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # generator/


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of papersite's code and small data files: any change invalidates every kept value."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE_DIR.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in {".py", ".yaml", ".yml", ".json", ".html"}:
            digest.update(path.relative_to(_PACKAGE_DIR).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()  # noqa: S324 - a change detector


def memo_dir(config: ProjectConfig) -> Path:
    return config.build_dir / MEMO_DIR


def forget_all(config: ProjectConfig) -> None:
    """Forget everything kept (``papersite build --clean``); the stamps stay (``incremental.py``)."""
    if memo_dir(config).is_symlink():
        return  # none of ours: the build refuses it (outputs.check_project_places)
    for path in memo_dir(config).glob("*"):
        if path.name.removesuffix(".pickle") in KEPT_BY_CLEAN:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.suffix == ".pickle":
            path.unlink(missing_ok=True)


def remove_old_formats(config: ProjectConfig) -> None:
    """Remove what builds before this module kept: read by nothing now, and never trusted."""
    for rel in OLD_FORMATS:
        path = config.build_dir / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists() or path.is_symlink():
            with suppress(OSError):
                path.unlink()


class Memo:
    """The values of one kind of work, kept in ``build/memo/<kind>.pickle`` between builds.

    ``scope``: anything every value of the kind depends on beside its own key and digest
    (the taxonomy for the page checks, the site dir for the filled pages): another scope
    starts empty. ``versioned=False``: the values do not depend on papersite's code (file hashes).

    ``shards``: a kind with an entry per page (11,672 pages' checks are 35 MB) is kept in that many
    files, ``build/memo/<kind>/<n>.pickle`` by a hash of the key, and a build writes only the files
    whose entries changed: an edit of one page saves one of them, not the whole kind. ``forget``
    then marks the folder ``incomplete`` until the next ``save``, rather than removing it.
    """

    def __init__(self, config: ProjectConfig, kind: str, scope: str = "", versioned: bool = True, shards: int = 1) -> None:
        self.shards = shards
        self.path = memo_dir(config) / (f"{kind}.pickle" if shards == 1 else kind)
        self.scope = f"{code_version() if versioned else ''}\0{scope}"
        self.old: dict[str, tuple[str, Any]] = {}
        self.new: dict[str, tuple[str, Any]] = {}
        self.changed = True  # until the file is read as it was saved
        self._held: dict[int, dict[str, tuple[str, Any]]] = {}  # shard -> the entries its file holds
        self._dirty: set[int] = set()  # shards whose file could not be read
        self._put: set[str] = set()  # keys put since the last save
        self._new_made = self.new  # (a caller may put another dict in its place)
        if shards == 1:
            entries = self._read(self.path)
            if entries is not None:
                self.old, self.changed = entries, False
            return
        self._dirty = set(range(shards))
        if self.path.is_symlink() or not self.path.is_dir() or (self.path / INCOMPLETE).exists():
            return
        for number in range(shards):
            entries = self._read(self._shard_path(number))
            if entries is not None:
                self.old.update(entries)
                self._held[number] = entries
                self._dirty.discard(number)
        self.changed = bool(self._dirty)

    def _read(self, path: Path) -> dict | None:
        try:
            read = READ_AHEAD.take(path)
            if read is None:
                with open_regular(path) as handle, _collector_paused():
                    read = _load_file(handle)
            form, scope, entries = read
            if form == FORMAT and scope == self.scope and isinstance(entries, dict):
                return entries
        except Exception:  # noqa: BLE001 - whatever the file holds, a cache that cannot be read is empty
            pass
        return None

    def _shard_path(self, number: int) -> Path:
        return self.path / f"{number}.pickle"

    def _shard_of(self, key: str) -> int:
        return zlib.crc32(key.encode("utf-8", "surrogatepass")) % self.shards

    def get(self, key: str, digest: str) -> Any:
        """The value kept for ``key`` if it was made from inputs hashing to ``digest``; else None."""
        entry = self.new.get(key) or self.old.get(key)
        if not isinstance(entry, tuple) or len(entry) != 2 or entry[0] != digest:
            return None
        self.new[key] = entry
        return entry[1]

    def put(self, key: str, digest: str, value: Any) -> None:
        self.new[key] = (digest, value)
        self._put.add(key)
        self.changed = True

    def value(self, key: str, digest: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, or what it gave the last time ``key``'s inputs hashed to ``digest``."""
        found = self.get(key, digest)
        if found is None:
            found = compute()
            self.put(key, digest, found)
        return found

    def page(self, path: Path, label: str, compute: Callable[[bytes | None], Any]) -> Any:
        """``compute(bytes)`` for the page at ``path``, or what it gave the last time the page held these bytes.

        The file is read once, here. The value must not be changed by the caller (it is what the next build gets)."""
        try:
            data = path.read_bytes()
        except OSError:
            return compute(None)  # it says what is wrong with the file
        return self.value(label, content_hash(data), lambda: compute(data))

    def forget(self) -> None:
        """Before rewriting what the entries describe: a step that fails half-way leaves nothing to trust."""
        if self.shards == 1:
            clear_the_way(self.path)  # a FIFO in its place is named, not removed
            self.path.unlink(missing_ok=True)
            return
        if self.path.is_symlink() or self.path.is_file():
            self.path.unlink()
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / INCOMPLETE).touch()

    def save(self) -> None:
        """Keep the entries used or made by this build (those of deleted pages drop out)."""
        if self.shards > 1:
            self._save_shards()
            return
        if not self.changed and self.new.keys() == self.old.keys():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write(self.path, self.new)
        self.old, self.changed = dict(self.new), False  # a later reader in this build finds them

    def _save_shards(self) -> None:
        """Write the shards holding an entry that is not the one read from their file, or fewer entries
        than it (an entry kept is the very object read: ``get``, or a caller that copies it)."""
        dirty = self._dirty_by_puts()
        if dirty is not None:
            parts = {number: {key: self.new[key] for key in self._held[number]} for number in dirty}
        else:
            every: list[dict[str, tuple[str, Any]]] = [{} for _ in range(self.shards)]
            dirty, old, shard_of = set(self._dirty), self.old, self._shard_of
            for key, entry in self.new.items():
                number = shard_of(key)
                every[number][key] = entry
                if old.get(key) is not entry:
                    dirty.add(number)
            dirty.update(n for n, part in enumerate(every) if n not in self._held or len(part) != len(self._held[n]))
            parts = {number: every[number] for number in dirty}
        incomplete = self.path / INCOMPLETE
        if not dirty and not incomplete.exists():
            self._put = set()
            return
        if self.path.is_symlink() or self.path.is_file():
            self.path.unlink()
        self.path.mkdir(parents=True, exist_ok=True)
        for number in sorted(dirty):
            self._write(self._shard_path(number), parts[number])
            self._held[number] = parts[number]
        incomplete.unlink(missing_ok=True)
        self.path.with_name(f"{self.path.name}.pickle").unlink(missing_ok=True)  # the kind in one file, before
        self.old, self.changed, self._dirty, self._put = dict(self.new), False, set(), set()

    def _dirty_by_puts(self) -> set[int] | None:
        """The shards to write, from the keys put since the last save alone, where this build's entries have the
        keys the files hold (every one read or kept, none gone or added: each shard's keys are its file's): those
        of a put entry that is not the one its file holds. None where the files' entries must be walked: a shard
        not read, keys dropped or added, ``new`` put in place by a caller (a key in it may not have been put)."""
        if self._dirty or self.new is not self._new_made or self.new.keys() != self.old.keys():
            return None
        old, new = self.old, self.new
        return {self._shard_of(key) for key in self._put if old.get(key) is not new.get(key)}

    def _write(self, path: Path, entries: dict) -> None:
        with replaced_whole(path) as handle:
            _dump_file((FORMAT, self.scope, entries), handle)


# A memo file whose entries are all of builtin types (most kinds: hashes, stats, where rows lie, rendered text,
# compressed files) is kept in ``marshal``'s form after this line, which no pickle begins with; one holding
# objects of a class (records, a catalog's state) is pickled. ``marshal`` writes and reads such values in about
# half and three quarters of pickle's time; its form may change between Python versions, so the line names
# this one's, and another's file is no memo (as one that cannot be unpickled).
_MARSHAL_HEAD = f"papersite-marshal {sys.version_info[0]}.{sys.version_info[1]}\n".encode()


def _dump_file(value: Any, handle: BinaryIO) -> None:
    try:
        data = marshal.dumps(value)
    except ValueError:  # an object marshal does not know: a class's, or a subclass of a builtin type
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        return
    handle.write(_MARSHAL_HEAD)
    handle.write(data)


def _load_file(handle: BinaryIO) -> Any:
    # mapped, not read: its bytes are not copied once more before marshal copies out each value (the search
    # worker's 48 MB of compressed files at 11,672 papers: 0.03 -> 0.02 s, and no 48 MB of fresh pages)
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        if mapped[: len(_MARSHAL_HEAD)] == _MARSHAL_HEAD:
            with memoryview(mapped)[len(_MARSHAL_HEAD) :] as body:
                return marshal.loads(body)
    handle.seek(0)
    return pickle.load(handle)


def _file_state(path: Path) -> tuple[int, ...] | None:
    """What changes whenever a memo file is written (``replaced_whole`` puts a new file in its place)."""
    try:
        state = path.lstat()
    except OSError:
        return None
    return (state.st_dev, state.st_ino, state.st_size, state.st_mtime_ns, state.st_ctime_ns, state.st_mode)


class ReadAhead:
    """Memo files read before the build that reads them has begun: a warm ``papersite serve`` build
    process reads them while it waits for an edit (``serve.wait_until_asked``), and its build, and the
    workers it forks, then skip ~1.2 CPU s of reading them at 11,672 papers.

    Each file's value is handed out once, and only while the file is the one that was read (same inode,
    size and times): the build gets what reading the file would give it, never an object an earlier
    reader could have changed. A process that read nothing ahead finds nothing here."""

    def __init__(self) -> None:
        self._read: dict[str, tuple[tuple[int, ...], Any]] = {}

    def read(self, folder: Path, stop: Callable[[], bool] = lambda: False) -> int:
        """Read the memo files under ``folder`` (not through a link), until ``stop()`` says the build is
        asked for (it reads the rest itself); how many were read."""
        if folder.is_symlink() or not folder.is_dir():
            return 0
        for path in sorted(folder.rglob("*.pickle")):
            if stop():
                break
            state = _file_state(path)
            if state is None or not stat.S_ISREG(state[-1]):
                continue
            try:
                with path.open("rb") as handle, _collector_paused():
                    value = _load_file(handle)
            except Exception:  # noqa: BLE001 - a file that cannot be read is read again by its Memo, which says so
                continue
            if _file_state(path) == state:
                self._read[str(path)] = (state, value)
        return len(self._read)

    def take(self, path: Path) -> Any:
        """What ``path`` held when it was read ahead, if it still is that file; else None."""
        found = self._read.pop(str(path), None)
        if found is None or _file_state(path) != found[0]:
            return None
        return found[1]


# The one process-wide instance: empty but in a warm serve build, which fills it before it builds.
READ_AHEAD = ReadAhead()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while a memo file is read: unpickling makes millions of objects, none of
    them garbage, and the collector's passes over them were half of the reading (0.39 -> 0.17 s for
    the search tables' 20 MB at 11,672 papers). Nor after: what was read lives as long as the build,
    so it is frozen (``gc.freeze``) before collection resumes, which would begin with a pass over every
    object the file made (0.3 CPU s of an edit at 11,672 papers, in its processes together). The stage
    gives what is frozen back to the collector as it ends (``stage_docs``); a worker ends with its work."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_on:
            gc.enable()


@contextmanager
def replaced_whole(target: Path) -> Iterator[BinaryIO]:
    """A file to write ``target``'s new bytes into, put in its place when the block ends, removed if it
    does not: an interrupted write (Ctrl-C, a worker stopped by ``cancel``, a full disk) leaves the
    old file and no half one, nor a temporary beside it."""
    tmp = target.with_name(target.name + ".tmp")
    clear_the_way(tmp)  # a FIFO left there would hold the open below
    clear_the_way(target)  # nor is one renamed over
    try:
        with tmp.open("wb") as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


INCOMPLETE = "incomplete"  # in a sharded kind's folder: a step rewriting what it describes has not finished
PAGE_SHARDS = 32  # files of a kind with an entry per page (Memo's shards)


# the stamps decide what they are worth; filled and deferred-copied: what site/ holds
KEPT_BY_CLEAN = ("stamps", "files", "page-views", "filled", "deferred-copied")


class Fingerprints:
    """A digest of values, field by field, for keys: equal digests for equal values, whatever their history.

    Values are what pickle writes by value (str, bytes, numbers, None, tuples, lists, dicts,
    paths, enums), functions (by name: their code is in ``code_version``) and dataclasses of
    values. A dataclass is written as the digest of its fields, kept for the life of this
    object (a paper record is shown on many pages: it is hashed once), so the values must not
    change meanwhile; fields declared with ``compare=False`` are memos, never inputs
    (``Catalog.cache``). A catalog node, which links to the whole catalog, is refused: hand a
    renderer the view it shows instead (``render/views.py``). Pickle's memo is off, so equal
    values give equal bytes however they share objects. Values led by a function or a dataclass
    (a renderer and its arguments) name each dataclass and function by a persistent id
    (``_NamingPickler``): pickle looks each reduction's function up as a global, ~3 µs a dataclass,
    and a paper page's key names a dozen. (pickle writes a set in its iteration order,
    which equal sets need not share, within a process or between two: a set in a key costs a
    recomputation, never a wrong value, so renderers are handed sorted tuples.)
    """

    def __init__(self) -> None:
        self._done: dict[int, tuple[Any, tuple]] = {}  # id -> (the object, kept alive so its id is not reused; its reduction)
        self._fields: dict[type, tuple[str, ...]] = {}  # a dataclass's compared fields
        self.reducers = _Reducers(self)
        self._picklers: list[tuple[io.BytesIO, pickle.Pickler]] = []
        self._naming: list[tuple[io.BytesIO, pickle.Pickler]] = []  # _NamingPickler's, by depth
        self._dataclasses: dict[type, bool] = {}  # whether a type is a dataclass
        self._depth = 0

    def of(self, *values: Any) -> str:
        # the same values always take the same way (their first one's type); the two never give one text
        first = type(values[0]) if values else None
        return content_hash(self._bytes(values, first is FunctionType or self.is_dataclass(first)))

    def is_dataclass(self, kind: Any) -> bool:
        known = self._dataclasses.get(kind)
        if known is None:
            known = self._dataclasses[kind] = dataclasses.is_dataclass(kind) and isinstance(kind, type)
        return known

    def _bytes(self, value: Any, naming: bool = False) -> bytes:
        # One pickler per nesting depth (a dataclass's digest is made while its holder is being
        # pickled), reused: making one costs ten times what pickling a small value does.
        depth = self._depth
        picklers = self._naming if naming else self._picklers
        if depth >= len(picklers):
            picklers.extend([None] * (depth + 1 - len(picklers)))
        if picklers[depth] is None:
            out = io.BytesIO()
            pickler = _NamingPickler(out, self) if naming else pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dispatch_table = self.reducers
            pickler.fast = True  # no memo: the bytes of a value do not depend on which of its parts are one object
            picklers[depth] = (out, pickler)
        out, pickler = picklers[depth]
        out.seek(0)
        out.truncate()
        self._depth += 1
        try:
            pickler.dump(value)
        except (pickle.PicklingError, AttributeError, RecursionError) as error:
            raise TypeError(f"no value to key work on: {error}") from None
        finally:
            self._depth -= 1
        return out.getvalue()

    def known(self, obj: Any, digest: str) -> None:
        """Stand ``digest`` for the dataclass ``obj`` instead of hashing its fields: a digest only
        values equal to ``obj`` have (a paper record's page bytes: ``stage.known_records``), so 11,672
        records' fields are not hashed again on every build to find the few pages that changed."""
        self._done[id(obj)] = (obj, (_digest_of, (f"known\0{digest}",)))

    def digest_of(self, obj: Any) -> str:
        """What the dataclass ``obj`` stands for in a key: its known digest, or the one of its fields (made once)."""
        return self.reduce(obj)[1][0]

    def known_settings(self, config: ProjectConfig) -> None:
        """Stand the settings for ``config`` in keys with the taxonomy file as its bytes, not its path: the
        bundled taxonomy lies inside whichever checkout of papersite runs (a project whose ``generator`` is
        a link to it, another worktree), and a page must not be rendered again for where the code is."""
        try:
            taxonomy = content_hash(config.taxonomy_file.read_bytes())
        except OSError:
            taxonomy = "missing"
        values = [taxonomy if f.name == "taxonomy_file" else getattr(config, f.name) for f in dataclasses.fields(config) if f.compare]
        self.known(config, self.of(type(config).__qualname__, *values))

    def reduce(self, obj: Any) -> tuple:
        """What pickle writes for the dataclass ``obj``: its digest."""
        kept = self._done.get(id(obj))
        if kept is not None and kept[0] is obj:
            return kept[1]
        if getattr(obj, "is_catalog_node", False):
            raise pickle.PicklingError(f"{type(obj).__name__} is no value to key work on: hand the renderer what it shows")
        kind = type(obj)
        names = self._fields.get(kind)
        if names is None:
            names = self._fields[kind] = tuple(f.name for f in dataclasses.fields(obj) if f.compare)
        digest = content_hash(self._bytes((kind.__module__, kind.__qualname__, *(getattr(obj, name) for name in names))))
        reduction = (_digest_of, (digest,))
        self._done[id(obj)] = (obj, reduction)
        return reduction


class _NamingPickler(pickle.Pickler):
    """Writes a dataclass as its digest and a function as its name, each a persistent id (a string no
    other value is written as); everything else as pickle does."""

    def __init__(self, out: io.BytesIO, prints: Fingerprints) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.prints = prints

    def persistent_id(self, obj: Any) -> str | None:
        kind = type(obj)
        if kind is str or kind is tuple or kind is list or kind is int:  # most of what a key holds
            return None
        if kind is FunctionType:
            if "<" in obj.__qualname__:  # a lambda or a local function: no name to find it by
                raise pickle.PicklingError(f"{obj.__qualname__} has no name")
            return f"function {obj.__module__} {obj.__qualname__}"
        if self.prints.is_dataclass(kind):
            return f"dataclass {self.prints.reduce(obj)[1][0]}"
        return None


class _Reducers(dict):
    """pickle's ``dispatch_table``: a dataclass is written as its digest (``Fingerprints.reduce``);
    functions, classes, enums and paths pickle's own way (by name, or by value); anything else is refused.
    pickle looks a type up here for every object but the plain ones (str, numbers, tuples, lists,
    dicts, ...), which stay in C."""

    def __init__(self, prints: Fingerprints) -> None:
        super().__init__()
        self.prints = prints

    def __missing__(self, kind: type) -> Callable[[Any], Any]:
        if dataclasses.is_dataclass(kind):
            self[kind] = self.prints.reduce
            return self.prints.reduce
        if issubclass(kind, (Enum, PurePath)):
            raise KeyError(kind)  # pickle's own way (it writes classes and functions by name before asking)
        return _refuse


def _refuse(obj: Any) -> Any:
    raise pickle.PicklingError(f"{type(obj).__name__} is no value")


def _digest_of(digest: str) -> str:  # what a dataclass stands for in a fingerprint (never called)
    return digest


# ---------------------------------------------------------------- pages of a section, one row a line


@dataclasses.dataclass
class RowsWritten:
    """What ``write_rows`` wrote into its file: the file's size and each page's (url, (offset, length, line hash)) in
    page order, as ``kept_rows`` reads them back from the memo; handed on within the process that wrote them
    (``postbuild.fill_shells``: reading the memos back was ~0.05 CPU s of an edit at 11,672 papers)."""

    size: int = 0
    rows: list[tuple[str, tuple[int, int, str]]] = dataclasses.field(default_factory=list)


def write_rows(config: ProjectConfig, section: str, units: Iterable[Any], target: Path, line_of: Callable[[Any], bytes],
               prints: Fingerprints, keys: dict[str, str] | None = None, written: RowsWritten | None = None) -> int:
    """Write one line a page into ``target``, in the order of ``units``; returns how many were rendered.

    A unit (``render.indices.DetailSource``) is a page before it is rendered: ``unit.render(*unit.args)``
    gives it, ``line_of`` makes its line, and it is kept by the fingerprint of ``render`` and ``args``
    (``unit.key`` where it is known already: ``site/carried.py``; ``args`` are then made only if the page is
    rendered). ``keys``: filled with each unit's URL -> key; ``written``: with what was written (``RowsWritten``).

    At 11,672 papers a section holds up to 35k pages (73 MB of lines): the lines are not kept
    in the memo but in ``target`` itself, the memo keeps where each sits ([offset, length,
    line hash]), in the units' order. While the file's stat is the one recorded when it was last
    written, a page whose fingerprint is that of its line keeps it where it lies, and the lines
    rendered again are appended (``_appended``): an edit writes a few KB, not the 170 MB of the
    three files, which writing whole cost the edit ~0.4 s. The lines no page points to any more
    are dropped when they would pass ``1 / COMPACT_SHARE`` of the file: it is then written whole,
    in the units' order, kept lines copied from the last file (if intact: a file changed since it
    was written has each line checked against its hash)."""
    memo = Memo(config, f"rows-{section}")
    size = memo.old.get(SIZE)
    last = _kept_table(memo.old) if size == ("", _size(target)) else None  # the memo describes the file as it is
    trusted = last is not None and memo.old.get(STAMP) == ("", _stamp(target))
    memo.forget()  # until the new file is complete
    keyed = [(unit, unit.key or prints.of(unit.render, unit.args)) for unit in units]
    urls, unit_keys = [unit.url for unit, _ in keyed], [key for _, key in keyed]
    if keys is not None:
        keys.update(zip(urls, unit_keys))
    kept = _kept_wheres(last, urls, unit_keys)
    if trusted:
        rendered = _appended(memo, keyed, (urls, unit_keys, kept), target, line_of, size[1], written)
        if rendered is not None:
            return rendered
    rendered = offset = 0
    wheres = []
    target.parent.mkdir(parents=True, exist_ok=True)
    with replaced_whole(target) as out, _mapped(target if last is not None else None) as old:
        run = _Run(out, old)
        for (unit, _), where in zip(keyed, kept):
            if where is not None and (run.take(where) if trusted else run.copy(where)):
                wheres.append((offset, where[1], where[2]))
                offset += where[1]
                continue
            line = line_of(unit.render(*unit.args))
            rendered += 1
            run.write(line)
            wheres.append((offset, len(line), content_hash(line)))
            offset += len(line)
        run.flush()
    _keep_table(memo, urls, unit_keys, wheres, offset, target, written)
    return rendered


ROWS = "\0rows"  # a key no URL can be: the pages' URLs, their keys and where each one's line lies, in page order


def _kept_table(entries: dict) -> tuple[list, list, list] | None:
    """The memo's (URLs, keys, wheres), if it holds three lists of one length."""
    entry = entries.get(ROWS)
    table = entry[1] if isinstance(entry, tuple) and len(entry) == 2 else None
    if not (isinstance(table, tuple) and len(table) == 3 and all(isinstance(column, list) for column in table)):
        return None
    return table if len(table[0]) == len(table[1]) == len(table[2]) else None


def _kept_wheres(last: tuple[list, list, list] | None, urls: list[str], keys: list[str]) -> list[Any]:
    """For each page, where the last file holds its line if it was made from the page's key (else None). Compared
    column by column while the pages are the last ones in their order (an edit's case): a lookup and a memo entry
    a page were 0.1 CPU s of an edit's 48k rows at 11,672 papers."""
    if last is None:
        return [None] * len(urls)
    last_urls, last_keys, last_wheres = last
    if urls == last_urls:
        return [where if key == kept else None for key, kept, where in zip(keys, last_keys, last_wheres)]
    at = {url: n for n, url in enumerate(last_urls)}
    found = []
    for url, key in zip(urls, keys):
        n = at.get(url)
        found.append(last_wheres[n] if n is not None and last_keys[n] == key else None)
    return found


def _keep_table(memo: "Memo", urls: list[str], keys: list[str], wheres: list[tuple[int, int, str]], size: int, target: Path,
                written: RowsWritten | None) -> None:
    memo.put(ROWS, "", (urls, keys, wheres))
    memo.put(SIZE, "", size)
    memo.put(STAMP, "", _stamp(target))
    memo.save()
    if written is not None:
        written.size = size
        written.rows = list(zip(urls, wheres))


# An edit appends the lines it renders again: the lines they replace stay in the file, unused, until they are
# more than this share of it (``write_rows``); a handful of KB an edit, so thousands of edits go between rewrites.
COMPACT_SHARE = 4


def _appended(memo: "Memo", keyed: list[tuple[Any, str]], table: tuple[list[str], list[str], list[Any]], target: Path,
              line_of: Callable[[Any], bytes], size: int, written: RowsWritten | None = None) -> int | None:
    """``write_rows`` into the file as it was written (``size`` bytes): the lines rendered again appended to it,
    the others left where they lie; None, with nothing written, when the lines no page would point to would pass
    ``1 / COMPACT_SHARE`` of the file. ``table``: the pages' URLs, their keys and where the last file holds each
    one's line (None where it holds none made from that key)."""
    urls, keys, kept = table
    kept = [where if _within(where, size) is not None else None for where in kept]
    used = sum(where[1] for where in kept if where is not None)
    if (size - used) * COMPACT_SHARE > size:
        return None
    rendered, offset = 0, size
    with target.open("ab") as out:
        for n, ((unit, _), where) in enumerate(zip(keyed, kept)):
            if where is None:
                line = line_of(unit.render(*unit.args))
                out.write(line)
                kept[n] = (offset, len(line), content_hash(line))
                offset += len(line)
                rendered += 1
    _keep_table(memo, urls, keys, kept, offset, target, written)
    return rendered


class _Run:
    """The lines ``write_rows`` writes: kept lines that follow each other in the last file are
    copied as one run of bytes (a few writes for an edit, not one a page)."""

    def __init__(self, out: Any, old: mmap.mmap | None) -> None:
        self.out, self.old = out, old
        self.start = self.end = 0  # the run of the last file not yet copied

    def take(self, where: Any) -> bool:
        """The kept line at ``where``, unchecked (the file is as it was written); False if out of the file."""
        span = _span(self.old, where)
        if span is None:
            return False
        start, length = span
        if start != self.end or self.start == self.end:
            self.flush()
            self.start = start
        self.end = start + length
        return True

    def copy(self, where: Any) -> bool:
        """The kept line at ``where`` if it is intact (its hash)."""
        line = _kept_line(self.old, where)
        if line is not None:
            self.write(line)
        return line is not None

    def write(self, line: bytes) -> None:
        self.flush()
        self.out.write(line)

    def flush(self) -> None:
        if self.end > self.start:
            with memoryview(self.old)[self.start:self.end] as part:
                self.out.write(part)
        self.start = self.end = 0


SIZE = "\0size"  # a key no URL can be: the size of the file the memo describes
STAMP = "\0stamp"  # its stat when it was written (``write_rows``: trusted without hashing while it holds)


def kept_rows(config: ProjectConfig, section: str, target: Path) -> list[tuple[str, tuple[int, int, str]]] | None:
    """What ``write_rows`` last wrote into ``target``: (url, (offset, length, line hash)) in page order,
    or None when its memo does not describe the file as it is. The post-build step reads a line only
    where its hash changed (``postbuild.fill_shells``), not the 48k lines of 11,672 papers."""
    entries = Memo(config, f"rows-{section}").old
    table = _kept_table(entries) if entries.get(SIZE) == ("", _size(target)) else None
    if table is None:
        return None
    urls, _, wheres = table
    if not all(isinstance(url, str) for url in urls) or not all(
            isinstance(where, tuple) and len(where) == 3 and isinstance(where[2], str) for where in wheres):
        return None
    return list(zip(urls, wheres))


def mapped(path: Path) -> "_mapped":
    """``path`` mapped read-only for ``kept_line`` (None inside the block if absent or empty)."""
    return _mapped(path)


def kept_line(old: mmap.mmap | None, where: tuple[int, int, str]) -> bytes | None:
    """The line ``kept_rows`` says is at ``where`` in the ``mapped`` file, if it is intact."""
    return _kept_line(old, where)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        seen = path.stat()
    except OSError:
        return None
    return seen.st_size, seen.st_mtime_ns, seen.st_ino


def _kept_line(old: mmap.mmap | None, where: Any) -> bytes | None:
    """The last build's line at ``where`` (offset, length, hash) if it is intact."""
    span = _span(old, where)
    if span is None:
        return None
    line = old[span[0] : span[0] + span[1]]
    return line if content_hash(line) == where[2] else None


def _span(old: mmap.mmap | None, where: Any) -> tuple[int, int] | None:
    """(offset, length) of a kept line's ``where`` (offset, length, hash) if it lies inside the mapped file."""
    return None if old is None else _within(where, len(old))


def _within(where: Any, size: int) -> tuple[int, int] | None:
    """(offset, length) of a kept line's ``where`` (offset, length, hash) if it lies within ``size`` bytes."""
    if not isinstance(where, tuple) or len(where) != 3:
        return None
    start, length = where[0], where[1]
    if not (isinstance(start, int) and isinstance(length, int) and 0 <= start and start + length <= size):
        return None
    return start, length


class _mapped:
    """The file mapped read-only (None if absent or empty): lines are copied out of it, not read whole."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.handle = None
        self.map: mmap.mmap | None = None

    def __enter__(self) -> mmap.mmap | None:
        if self.path is None:
            return None
        try:
            self.handle = open_regular(self.path)
            self.map = mmap.mmap(self.handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # missing, or empty (mmap refuses a 0-byte file)
            self.__exit__()
        return self.map

    def __exit__(self, *_: object) -> None:
        if self.map is not None:
            self.map.close()
            self.map = None
        if self.handle is not None:
            with suppress(OSError):
                self.handle.close()
            self.handle = None


# ---------------------------------------------------------------- the page checks' and the catalog's memos


SITE_URLS = "\0site urls"  # a key no page label can be
STAT = "\0stat\0"  # before a page's label: the stat it had when read, and the digest of its bytes then
# A file modified this close to when it was hashed may change again without its stat changing ("racy git")
RACY_NS = 2_000_000_000


def kind_kept(config: ProjectConfig, kind: str) -> bool:
    """Whether a kind kept in shards holds what its last save wrote: not forgotten since, nor never saved."""
    path = memo_dir(config) / kind
    return path.is_dir() and not path.is_symlink() and not (path / INCOMPLETE).exists()


def stat_stamp(seen: os.stat_result) -> str:
    """What of a file's stat says its bytes are the ones read when it had this stat (``filehashes.py`` says why)."""
    return f"{seen.st_size} {seen.st_mtime_ns} {seen.st_ino}"


def checked_stamps(pages: Memo) -> dict[str, tuple[str, str | None, Any]]:
    """The pages a check read through ``pages`` (``CheckedPages``) that hold a record: label -> (digest of the
    page's bytes, its ``stat_stamp`` when read or None (changed too recently to trust it), its record)."""
    found = {}
    for label, (digest, value) in pages.new.items():
        page = value[0] if isinstance(value, tuple) and value else None
        if getattr(page, "record", None) is not None:
            seen = pages.new.get(f"{STAT}{label}")
            found[label] = (digest, seen[0] if isinstance(seen, tuple) and seen[1] == digest else None, page.record)
    return found


def checked_scope(config: ProjectConfig) -> str:
    """What a page's checks depend on beside its bytes: the project (a page names its path) and the taxonomy."""
    try:
        taxonomy = content_hash(config.taxonomy_file.read_bytes())
    except OSError:
        taxonomy = "missing"
    return f"{config.root}\0{taxonomy}"


class CheckedPages(Memo):
    """``check_pages``' ``cache``: a page's own checks, kept for its bytes and the taxonomy."""

    def __init__(self, config: ProjectConfig, stat: Callable[[Path], os.stat_result] = os.stat) -> None:
        """``stat``: ``os.stat``, or the build's (``FileHashes.stat_of``: one a page for its stamps and its check)."""
        from generator.pages.check import own_checks

        super().__init__(config, "checked", scope=checked_scope(config), shards=PAGE_SHARDS)
        self.checked_alone = own_checks(config)  # what is kept of a page: checked alone as it is parsed
        self.stat = stat

    def page(self, path: Path, label: str, compute: Callable[[bytes | None], Any]) -> Any:
        """``Memo.page``, but a page whose stat is the one it had when it was last read is not read again
        (11,672 files at every build): its digest is the one kept with that stat. The stamps' file hashes
        follow the same rule (``filehashes.py``); a file changed within ``RACY_NS`` of its reading keeps no stat."""
        try:
            seen = self.stat(path)
        except OSError:
            return compute(None)  # it says what is wrong with the file
        stat_key, stamp = f"{STAT}{label}", stat_stamp(seen)
        known = self.get(stat_key, stamp)
        entry = self.new.get(label) or self.old.get(label)
        if isinstance(known, str) and isinstance(entry, tuple) and len(entry) == 2 and entry[0] == known:
            self.new[label] = entry
            return entry[1]
        try:
            data = path.read_bytes()
        except OSError:
            return compute(None)
        digest = content_hash(data)
        if time.time_ns() - seen.st_mtime_ns > RACY_NS:
            self.put(stat_key, stamp, digest)
        return self.value(label, digest, lambda: self.checked_alone(compute(data)))

    def site_urls(self, inputs: str, compute: Callable[[], Any]) -> Any:
        """The site's index and detail page URLs, kept for the names the pages give (check._site_index)."""
        return self.value(SITE_URLS, content_hash(inputs.encode("utf-8", "surrogatepass")), compute)


def _slugify_versions() -> str:
    """What slug_of's answers depend on beside papersite's code: python-slugify and its transliteration backends."""
    from importlib import metadata

    versions = []
    for name in ("python-slugify", "Unidecode", "text-unidecode", "anyascii"):
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=-")
    return " ".join(versions)


class KnownSlugs(Memo):
    """``layout.slug_of``'s memo: the catalog slugs every author and keyword name on every build, and
    slugify is a second of it at 11,672 papers. Kept for papersite's code and the slugify versions;
    a name's slug never depends on anything else."""

    KEY = "names"

    def __init__(self, config: ProjectConfig) -> None:
        super().__init__(config, "slugs", scope=_slugify_versions())
        from generator.layout import known_slugs

        self.memo = known_slugs()
        kept = self.get(self.KEY, "")
        if isinstance(kept, dict):
            for name, slug in kept.items():
                if isinstance(name, str) and isinstance(slug, str):
                    self.memo.setdefault(name, slug)
        self.size = len(kept) if isinstance(kept, dict) else 0

    def save(self) -> None:
        """Keep the memo if this build slugged names the file did not hold."""
        if len(self.memo) != self.size:
            self.put(self.KEY, "", dict(self.memo))
            self.size = len(self.memo)
        super().save()
