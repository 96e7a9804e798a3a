"""What of the paper pages can change an import's result: the pages' share of the import stamp.

In:  the paper pages (``pages/folder.py``), the state file, a function giving
     a file's content hash (``site/filehashes.py``) and the last views (``site/memo.py``).
Out: one digest (``pages_view``) that changes whenever a page edit could make the
     import write something, and stays the same for every other edit, so that
     ``papersite build`` after a maintainer's edit does not import again.

Why a page edit alone leaves the import's result unchanged. Say the listings,
the reference catalogues, the settled matches, the taxonomy, the settings, the
state file and papersite's code are those of the last successful import (the
rest of the import stamp, ``site/incremental.import_inputs``), and the last
import ended with the pages it wrote (the stamp is taken after it). Then:

* Reading, merging and completing from references read no page; their results
  are unchanged. The settled matches name papers by slug and listing sources
  (``identity.slug_sources``): from the state and from each page's ``id``,
  ``slug`` and ``sources``, which are in this view.
* Identity (``identity.match_known``) compares drafts with what was last
  imported, the state row of each known paper; a page's own fields count only
  for a page with no state row (one a maintainer added by hand), whose whole
  front matter is in this view. The ids and slugs taken (``titles.assign_identity``)
  are the state's and each page's id, slug and file name: in this view.
* Enrichment reads the taxonomy and the records, not the pages. So every
  record's proposal is the one the last import proposed, which the state file
  holds: proposal == base for every paper.
* The three-way merge (``threeway.merge_fields``) with proposal == base takes
  the page's value for every field (a field equal on page and proposal is the
  page's; one the page changed is "a maintainer changed it, the listing did
  not"), so no conflict arises; what it may still change is normalisation
  (empty ``links`` dropped, ``filled_from`` entries a maintainer's value
  replaced: ``drop_overridden_fills``). Whether the merge leaves the page as it
  is is computed here, per changed page, exactly as ``plan`` computes it.
* The new state is the proposals (unchanged) plus the state rows of papers that
  left the listings (unchanged); pages are written only where the merge
  changed them. A deleted page is reported, never re-created, and changes no
  state: its disappearance is still in this view (the set of file names), so
  the import runs and says so.

A page that cannot be read or parsed is in the view by its bytes: the import
then runs and reports it, as it did before.

What the import would write is then known page by page: a page the merge changes
(a maintainer replaced a value a reference filled, so its ``filled_from`` no longer
names that field) is written with the merge's result and nothing else changes. So
``papersite build`` writes such a page itself (``settle``, through the pages' journal)
instead of importing every listing again to write it; its view is the merged page's.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.config import ProjectConfig
from generator.ingest.threeway import merge_fields
from generator.inputs import InputError, lies_inside, load_json, open_regular, read_regular, readable_file
from generator.pages.folder import Page, display_path, page_names, page_paths, read_pages
from generator.pages.record import PaperRecord, parse_page, render_page
from generator.problems import PapersiteError

if TYPE_CHECKING:
    from generator.site.memo import Memo

VIEWS_KIND = "page-views"  # site/memo.py's kind: page file name -> (its bytes' hash, its view's hash)


def page_view(page: Page | None, base: dict[str, Any] | None) -> Any:
    """What the import reads of one page, given its state row ``base`` (see the module docstring)."""
    if page is None or page.record is None:
        return None  # the caller stands in the page's bytes
    current = page.record.to_front_matter()
    if base is None:  # added by hand: identity matching reads its fields
        return {"hand": current}
    merged, _ = merge_fields(base, current, base)
    return [current.get("id"), current.get("slug"), current.get("sources"), merged == current]


def settled_text(page: Page | None, base: dict[str, Any] | None) -> str | None:
    """The text the import would write for a known page it changes (``plan``: the merge of the page
    with a proposal equal to its state row ``base``), or None: no such page, or no text to trust."""
    if page is None or page.record is None or base is None:
        return None
    current = page.record.to_front_matter()
    merged, _ = merge_fields(base, current, base)
    if merged == current or any(merged.get(key) != current.get(key) for key in ("id", "slug", "sources")):
        return None
    try:  # as the import's check_plan reads back what it would write
        text = render_page(PaperRecord.from_front_matter(merged, body=page.record.body, path=page.front.label))
        parse_page(text, page.front.label)
    except (PapersiteError, ValueError):
        return None  # the import runs and says what is wrong
    return text


FEW_IDS = 32  # looked for as text in each line of the state, below that many


def _state_rows(config: ProjectConfig, ids: Collection[str] | None = None, data: bytes | None = None) -> dict[str, Any]:
    """The state's fields by id (``ids``: of those ids only); rows that are not state records are the import's to report.

    With ``ids`` (the papers of the pages that changed: one, after an edit), only the lines that can
    hold one of them are parsed, not the 11,672 rows of the whole state: a line holding an id holds
    it as ``json.dumps`` writes it, unless it escapes a character as ``\\u`` or ``\\/``. Those lines are
    found by searching the file's bytes (``_lines_holding``), not line by line: 27 MB at 11,672 papers.
    ``data``: the state file's bytes, where the caller read them already (``_state_bytes``)."""
    rows: dict[str, Any] = {}
    data = data if data is not None else _state_bytes(config)
    if data is None:
        return rows
    # a few ids are looked for in the file; many (after an import rewrote the pages) are parsed out of every line
    if ids is None or len(ids) > FEW_IDS:
        lines = data.split(b"\n")  # as identity.load_known reads it (U+2028 stays in a row; UTF-8 holds no other 0x0A)
    else:
        wanted = [json.dumps(i, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass") for i in ids]
        lines = _lines_holding(data, [*wanted, b"\\u", b"\\/"])
    for number, line in enumerate(lines, 1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return {}  # no state the import can read: as if there were none
        try:
            row = load_json(text, number) if text.strip() else None
        except InputError:
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str) and (ids is None or row["id"] in ids):
            rows[row["id"]] = row.get("fields")
    return rows


# The page views' entry (no page file is named so) of where each id's last row lies in the state file the views are
# scoped to: id -> (offset, length) of its line (``_state_rows_at``)
STATE_LINES = "\0state lines"


def _state_rows_at(config: ProjectConfig, ids: Collection[str], where: Any) -> tuple[dict[str, Any], dict[str, tuple[int, int]] | None]:
    """``_state_rows(config, ids)``, and where each id's row lies in the state file (``_state_lines``). Given that
    (``where``, kept beside the page views, whose memo is scoped to the state file's bytes), a few ids are read from
    their own lines: searching the whole file for them was ~0.09 s of an edit at 11,672 papers. A line that is not
    the row ``where`` says it is (a damaged memo) has the file searched, as without ``where``."""
    if len(ids) <= FEW_IDS and isinstance(where, dict) and _state_bytes(config, read=False) is not None:
        rows = _rows_where(config.state_file, ids, where)
        if rows is not None:
            return rows, where
    data = _state_bytes(config)  # read once for the search and the places
    if data is None:
        return {}, None
    return _state_rows(config, ids, data), _state_lines(data)


def _state_bytes(config: ProjectConfig, read: bool = True) -> bytes | None:
    """The state file's bytes (``b""`` unread, with ``read=False``), or None where it is not a regular file inside the
    project (``inputs.readable_file``: a FIFO would hang the read; the import says what is wrong with it)."""
    try:
        readable_file(config.state_file, config.root)
        return read_regular(config.state_file) if read else b""
    except (PapersiteError, OSError):
        return None


def _state_lines(data: bytes) -> dict[str, tuple[int, int]]:
    """Each id's last row in the state's bytes as (offset, length) of its line: the lines ``_state_rows`` reads,
    parsed only for their id (a line whose row ``load_json`` refuses is found here and refused where it is read)."""
    where: dict[str, tuple[int, int]] = {}
    offset = 0
    for line in data.split(b"\n"):
        try:
            row = json.loads(line) if line.strip() else None
        except (ValueError, RecursionError):
            row = None
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            where[row["id"]] = (offset, len(line))
        offset += len(line) + 1
    return where


def _rows_where(path: Path, ids: Collection[str], where: dict) -> dict[str, Any] | None:
    """The state rows of ``ids``, each read from its own line (``_state_lines``); None where a line is not that row."""
    rows: dict[str, Any] = {}
    try:
        with open_regular(path) as handle:
            for wanted in ids:
                at = where.get(wanted)
                if at is None:  # no row holds it
                    continue
                if not (isinstance(at, tuple) and len(at) == 2 and all(isinstance(n, int) and n >= 0 for n in at)):
                    return None
                handle.seek(at[0])
                row = load_json(handle.read(at[1]).decode("utf-8"))
                if not (isinstance(row, dict) and row.get("id") == wanted):
                    return None
                rows[wanted] = row.get("fields")
    except (OSError, UnicodeDecodeError, InputError):
        return None
    return rows


def _lines_holding(data: bytes, needles: list[bytes]) -> list[bytes]:
    """The lines of ``data`` holding any of ``needles``, in file order (a later row of an id wins)."""
    starts: set[int] = set()
    for needle in needles:
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            starts.add(start)
            if end < 0:
                break
            at = data.find(needle, end)
    lines = []
    for start in sorted(starts):
        end = data.find(b"\n", start)
        lines.append(data[start : end if end >= 0 else len(data)])
    return lines


def _regular(path: Path | str, lstat: Callable[[Path | str], os.stat_result]) -> os.stat_result | None:
    """Its stat if it is a regular file, not a link: readable (``inputs.readable_file``) in a folder inside the project."""
    try:
        seen = lstat(path)
    except OSError:
        return None
    return seen if stat.S_ISREG(seen.st_mode) else None


def pages_view(
    config: ProjectConfig, file_hash: Callable[[str, os.stat_result | None], str], last: Memo, memo: Callable[[], Memo] | None = None,
    settle: list[tuple[Path, str]] | None = None, lstat: Callable[[Path | str], os.stat_result] = os.lstat,
) -> str:
    """A digest of every page's view; only pages whose bytes changed since ``last`` was saved are parsed,
    through ``memo()`` (the build's check cache): after an import, which rewrites most pages, it is kept for the build.
    ``last`` is scoped to the state file (a view depends on it): another state, no view kept.

    ``settle``: a list the caller then writes (``pages.store.write_together``) before anything else:
    each page the import would write only to record a maintainer's edit (``settled_text``), with
    the text it would write; the digest is then the one those pages give once written. ``lstat``: ``os.lstat``, or the
    build's (``FileHashes.lstat_of``)."""
    kept = last.old
    folder_inside = lies_inside(config.papers_dir, config.root)
    views: dict[str, tuple] = {}
    changed: dict[Path, str] = {}
    folder = str(config.papers_dir)
    for name in page_names(config):  # by name, a page's path a string: a Path a page was a fifth of this walk
        path = os.path.join(folder, name)
        seen = _regular(path, lstat) if folder_inside else None
        if seen is None and not page_paths(config, [Path(path)]):
            views[name] = ("", "unreadable")
            continue
        digest = file_hash(path, seen)
        entry = kept.get(name)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == digest:
            views[name] = entry
        else:
            changed[Path(path)] = digest
    if changed:
        cache = memo() if memo is not None else None
        parsed = {page.path: page for page in read_pages(config, paths=list(changed), cache=cache).pages}
        state, where = _state_rows_at(config, {page.record.id for page in parsed.values() if page.record}, kept.get(STATE_LINES))
        if cache is not None and not any(digest for digest, _ in views.values()):  # none kept: all read
            cache.save()  # every page went through it (saving a part would drop the others' entries)
        for path, digest in changed.items():
            page = parsed.get(path)
            base = state.get(page.record.id) if page and page.record else None
            text = settled_text(page, base) if settle is not None else None
            view = page_view(page, base)
            if text is not None:
                settle.append((path, text))
                view[-1] = True  # as the page will be once written (``merge_fields`` is idempotent on it)
                digest = f"to settle:{digest}"  # not kept for these bytes: if the write never happens, the import runs
            shown = json.dumps(view if view is not None else f"bytes:{digest}", sort_keys=True, ensure_ascii=False)
            views[path.name] = (digest, hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest())
        last.new, last.changed = dict(views), True
        if where is not None:
            last.new[STATE_LINES] = where
        last.save()
    digest = hashlib.sha256(display_path(config.papers_dir, config.root).encode("utf-8", "surrogateescape"))
    for name in sorted(views):
        digest.update(f"{name}\0{views[name][1]}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()
