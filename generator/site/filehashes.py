"""Cheap change detection for the build's stamps: a file's SHA-256, read again only when its stat changed.

In: the files and folders a stamp covers; ``build/stamps/files.json``, what the
last build hashed. Out: a digest of the names and bytes of every file under them.

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
import json
import os
import time
from pathlib import Path

from generator.inputs import lies_inside

CACHE_FILE = "files.json"
RACY_NS = 2_000_000_000  # a file modified this close to the save is hashed again next time


class FileHashes:
    """The hash of each file by its stat, kept in ``<stamps dir>/files.json`` between builds."""

    def __init__(self, stamps_dir: Path) -> None:
        self.path = stamps_dir / CACHE_FILE
        self.old: dict[str, list] = {}
        self.new: dict[str, list] = {}
        self.read = 0  # files whose bytes were read (tests count them)
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(saved, dict):
                self.old = saved
        except (OSError, ValueError):
            pass

    def file_hash(self, path: Path | str, stat: os.stat_result | None = None) -> str:
        key = str(path)
        stat = stat or os.stat(key)
        seen = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        entry = self.new.get(key) or self.old.get(key)
        if isinstance(entry, list) and len(entry) == 4 and tuple(entry[:3]) == seen:
            self.new[key] = entry
            return entry[3]
        self.read += 1
        with open(key, "rb") as handle:
            value = hashlib.sha256(handle.read()).hexdigest()
        self.new[key] = [*seen, value]
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
                digest.update(self.file_hash(file).encode())
            except OSError as error:  # unreadable: whoever reads it says so; the stamp only has to differ
                digest.update(f"unreadable:{error.errno}\0".encode())

    def save(self) -> None:
        """Keep the hashes looked up since loading; those of files changed just now keep no stat."""
        now = time.time_ns()
        kept = {key: (entry if now - entry[1] > RACY_NS else [-1, -1, -1, entry[3]]) for key, entry in self.new.items()}
        if kept == self.old:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(kept), encoding="utf-8")
        os.replace(tmp, self.path)
        self.old = kept


def _walk(folder: str, prefix: str, found: list[tuple[str, str, bool]]) -> None:
    """(name, path, is a link) of every file under ``folder`` (links to files included; links to
    folders and ``__pycache__`` not followed). ``os.scandir``: no stat for most entries."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    _walk(entry.path, f"{prefix}{entry.name}/", found)
            elif entry.is_file():
                found.append((f"{prefix}{entry.name}", entry.path, entry.is_symlink()))
