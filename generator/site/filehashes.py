"""Cheap change detection for the build's stamps: a file's SHA-256, read again only when its stat changed.

In: the files and folders a stamp covers; what the last build hashed (``memo.py``'s
kind ``files``). Out: a digest of the names and bytes of every file under them.

Why stat first and bytes second: a file whose (size, mtime_ns, inode) are those
it had when it was last hashed holds the same bytes for every writer that goes
through the file system (an editor, git, rsync, cp: each sets the mtime, and a
replaced file has a new inode), so it is not read again. The stat only decides
when to read, never what changed: a changed stat (a ``git checkout`` or a
``touch`` resets mtimes of unchanged files) costs reading that file once, and
its hash decides, so a stamp never differs for bytes that did not change. A file
written within the clock tick in which the cache is saved could be changed again
without its stat changing ("racy git"): such entries are saved without their
stat, and are hashed again next time.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

from generator.config import ProjectConfig
from generator.inputs import lies_inside
from generator.site.memo import PAGE_SHARDS, RACY_NS, Memo

KIND = "files"
_NO_STAT = (-1, -1, -1)


class FileHashes:
    """The hash of each file by its stat, kept between builds (``memo.py``: path -> (stat, hash))."""

    def __init__(self, config: ProjectConfig) -> None:
        self.memo = Memo(config, KIND, versioned=False, shards=PAGE_SHARDS)  # a file's hash does not depend on papersite's code
        self.read = 0  # files whose bytes were read (tests count them)
        self.listed: dict[str, dict[str, os.DirEntry]] = {}  # folder -> its entries by name (``lstat_of``)

    def lstat_of(self, path: Path | str) -> os.stat_result:
        """``os.lstat(path)``, taken once a file from one listing of its folder until ``forget_stats``: the stamps
        and the check each looked at every page (five stats a page, ~0.35 s of an edit at 11,672 papers). Raises
        ``OSError`` as ``os.lstat`` does; a file that was not there when its folder was listed is asked for itself."""
        folder, name = os.path.split(path)
        entries = self.listed.get(folder)
        if entries is None:
            try:
                with os.scandir(folder or ".") as listing:
                    entries = {entry.name: entry for entry in listing}
            except OSError:
                entries = {}
            self.listed[folder] = entries
        entry = entries.get(name)
        return entry.stat(follow_symlinks=False) if entry is not None else os.lstat(path)

    def stat_of(self, path: Path | str) -> os.stat_result:
        """``os.stat(path)``: ``lstat_of``, but through a link."""
        seen = self.lstat_of(path)
        return os.stat(path) if stat.S_ISLNK(seen.st_mode) else seen

    def forget_stats(self) -> None:
        """After this process wrote files a stamp or the check reads (the import, a settled page edit)."""
        self.listed.clear()

    def file_hash(self, path: Path | str, stat: os.stat_result | None = None) -> str:
        key = str(path)
        stat = stat or os.stat(key)
        seen = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        value = self.memo.get(key, seen)
        if value is not None:
            return value
        self.read += 1
        with open(key, "rb") as handle:
            value = hashlib.sha256(handle.read()).hexdigest()
        self.memo.put(key, seen, value)
        return value

    def fold_tree(self, digest: "hashlib._Hash", path: Path, base: Path) -> None:
        """Fold every file under ``path`` (name relative to ``base`` and bytes, in sorted order) into ``digest``."""
        try:
            name = path.relative_to(base).as_posix()
        except ValueError:
            name = path.as_posix()
        if path.is_file():
            files = [(name, str(path), path.is_symlink())]
        elif path.is_dir():
            files = []
            _walk(str(path), "" if name == "." else f"{name}/", files)
            files.sort()
        else:
            digest.update(f"missing:{name}\0".encode("utf-8", "surrogateescape"))  # relative: a moved project keeps it
            return
        for name, file, link in files:
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
            if link and not lies_inside(file, base):
                # not read: the import refuses it (inputs.readable_file), so its target is nobody's input
                digest.update(f"link out:{os.path.realpath(file)}\0".encode("utf-8", "surrogateescape"))
                continue
            try:
                seen = self.stat_of(file)
                if not stat.S_ISREG(seen.st_mode):  # a FIFO, device, socket or linked folder: never opened here
                    digest.update(f"not a file:{stat.S_IFMT(seen.st_mode)}\0".encode())
                    continue
                digest.update(self.file_hash(file, seen).encode())
            except OSError as error:  # unreadable: whoever reads it says so; the stamp only has to differ
                digest.update(f"unreadable:{error.errno}\0".encode())

    def save(self, partial: bool = False) -> None:
        """Keep the hashes looked up since loading (a file gone drops out); those of files changed just now keep no
        stat. ``partial``: these looked up only some of the files a build's stamps cover (one stamp's): the others'
        hashes are kept as they were, or the next build would read and hash every page again."""
        if partial:
            for key, entry in self.memo.old.items():
                self.memo.new.setdefault(key, entry)
        now = time.time_ns()
        for key, (seen, value) in list(self.memo.new.items()):
            if seen != _NO_STAT and now - seen[1] <= RACY_NS:
                self.memo.put(key, _NO_STAT, value)
        self.memo.save()


def _walk(folder: str, prefix: str, found: list[tuple[str, str, bool]]) -> None:
    """(name, path, is a link) of every entry under ``folder`` but its folders (links to files included;
    links to folders and ``__pycache__`` not followed): a FIFO or device named like a page is an input
    too, which the check refuses. ``os.scandir``: no stat for most entries."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    _walk(entry.path, f"{prefix}{entry.name}/", found)
            else:
                found.append((f"{prefix}{entry.name}", entry.path, entry.is_symlink()))
