"""Author and keyword pages for the post-build step: written row by row, kept by their inputs.

In: a section's pages before rendering (``render.indices.DetailSource``: URL, inputs,
renderer) and the last build's rows. Out: ``build/postbuild/<section>.json``, one JSON
row per line (``postbuild.page_row``), and ``build/cache/rows-<section>.json``, which
records for each row the hash of its inputs and where the row sits in that file.

Why: at 11,672 papers there are ~35k author pages (73 MB of rows) and ~1.4k keyword
pages. Rendering them all and holding them until the file was written cost seconds
on every build and a few hundred MB at the build's peak. Now a page whose inputs are
those its row was made from is not rendered: its line is copied from the last file;
the others are rendered one at a time and written at once.

The record is removed before the file is rewritten and written back once the file
is complete, and keeps a hash of each line: a line is reused only if it is intact. A
record that cannot be read, or does not match the file, counts as empty.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from generator.config import ProjectConfig
from generator.site.pagecache import CACHE_DIR, code_version, content_hash
from generator.site.postbuild import page_row, row_line
from generator.site.render.indices import DetailSource


def _record_path(config: ProjectConfig, section: str) -> Path:
    return config.build_dir / CACHE_DIR / f"rows-{section}.json"


def _read_record(path: Path, rows: Path) -> dict[str, list]:
    """url -> [inputs hash, offset, length, line hash] of the last build's rows, if they describe ``rows``."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("version") == code_version() and saved.get("size") == rows.stat().st_size:
            pages = saved.get("pages")
            return pages if isinstance(pages, dict) else {}
    except (OSError, ValueError, AttributeError):
        pass
    return {}


def write_rows(config: ProjectConfig, section: str, sources: Iterable[DetailSource], target: Path) -> int:
    """Write the rows of ``sources`` into ``target``, in their order; returns how many were rendered."""
    record_path = _record_path(config, section)
    before = _read_record(record_path, target)
    record_path.unlink(missing_ok=True)  # until the new file is complete
    pages: dict[str, list] = {}
    rendered = offset = 0
    tmp = target.with_name(target.name + ".tmp")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tmp.open("wb") as out, _mapped(target if before else None) as old:
        for source in sources:
            key = content_hash(source.inputs().encode("utf-8", "surrogatepass"))
            line = _kept_line(old, before.get(source.url), key)
            if line is None:
                line = row_line(page_row(source.render()))
                rendered += 1
            out.write(line)
            pages[source.url] = [key, offset, len(line), content_hash(line)]
            offset += len(line)
    os.replace(tmp, target)
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record_path.write_text(json.dumps({"version": code_version(), "size": offset, "pages": pages}), encoding="utf-8")
    return rendered


def _kept_line(old: mmap.mmap | None, last: list | None, key: str) -> bytes | None:
    """The last build's line for a page if it was made from inputs hashing to ``key`` and is intact."""
    if old is None or not isinstance(last, list) or len(last) != 4 or last[0] != key:
        return None
    _, start, length, digest = last
    if not (isinstance(start, int) and isinstance(length, int) and 0 <= start and start + length <= len(old)):
        return None
    line = old[start : start + length]
    return line if content_hash(line) == digest else None


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
            self.handle = self.path.open("rb")
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
