"""Three-way merge: the import's new proposal, the page as a maintainer left it, and the last import.

In:  the enriched records of this import and the known papers (``identity.py``).
Out: every page to write and the new state, computed before anything is written
     (``plan``), then refused whole if a page would be unreadable (``check_plan``).

The merge is per front-matter field: a field the page still has as last
imported takes the new listing value; a field a human changed keeps the human
value; when both changed differently the human wins and a conflict is
reported. ``links`` merge key by key. The body is the maintainers' alone.
Papers that left the listings are reported and left in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from generator.config import ProjectConfig
from generator.pages.record import IDENTITY_FIELDS, PAPER_FIELDS, PaperRecord, parse_page, render_page
from generator.problems import PapersiteError

if TYPE_CHECKING:  # the build's import stamp merges fields (pagestamp.py) without loading the listings' readers
    from generator.ingest.identity import KnownPaper
    from generator.ingest.report import ImportReport

# Fields merged key by key: a maintainer's own link and a reference's new one both survive.
KEYED_FIELDS = tuple(spec.name for spec in PAPER_FIELDS if spec.three_way == "keyed")


def merge_fields(
    base: dict[str, Any] | None, page: dict[str, Any], proposed: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Per-field three-way merge; returns (merged front matter, conflicting field names)."""
    merged: dict[str, Any] = {}
    conflicts: list[str] = []
    for key in list(proposed) + [k for k in page if k not in proposed]:
        ours, theirs = page.get(key), proposed.get(key)
        if key in KEYED_FIELDS and base is not None and all(isinstance(v, dict) or v is None for v in (ours, theirs, base.get(key))):
            value, inner = merge_fields(base.get(key) or {}, ours or {}, theirs or {})
            conflicts += [f"{key}.{name}" for name in inner]
            value = {name: value[name] for name in sorted(value)} or None
        elif key in IDENTITY_FIELDS or ours == theirs:
            value = ours if key in page else theirs
        elif base is not None and ours == base.get(key):
            value = theirs  # nobody touched it: the listing's new value
        elif base is not None and theirs == base.get(key):
            value = ours  # a maintainer changed it, the listing did not
        else:
            value, _ = ours, conflicts.append(key)
        if value is not None:
            merged[key] = value
    drop_overridden_fills(merged, proposed)
    return merged, conflicts


def drop_overridden_fills(merged: dict[str, Any], proposed: dict[str, Any]) -> None:
    """A fill whose value a maintainer replaced no longer came from the reference: say so."""
    fills = merged.get("filled_from")
    if not isinstance(fills, list) or fills != proposed.get("filled_from"):
        return  # hand-edited provenance is the maintainer's to keep

    def kept(name: str) -> bool:
        if name.startswith("links."):
            link = name.split(".", 1)[1]
            return (merged.get("links") or {}).get(link) == (proposed.get("links") or {}).get(link)
        return merged.get(name) == proposed.get(name)

    adjusted = []
    for fill in fills:
        if not isinstance(fill, dict) or not isinstance(fill.get("fields"), list):
            return
        names = [name for name in fill["fields"] if kept(name)]
        if names:
            adjusted.append({**fill, "fields": names})
    if adjusted:
        merged["filled_from"] = adjusted
    else:
        merged.pop("filled_from", None)


def plan(
    records: list[PaperRecord],
    known: dict[str, KnownPaper],
    config: ProjectConfig,
    report: ImportReport,
    progress: Callable[[int, int], None] | None,
) -> tuple[list[tuple[Path, str]], list[dict[str, Any]]]:
    """Every page to write and the new state, computed before anything is written."""
    writes: list[tuple[Path, str]] = []
    to_verify: list[int] = []
    state: dict[str, dict[str, Any]] = {}
    total = len(records)
    for done, record in enumerate(records, 1):
        if progress is not None and (done == total or done % 256 == 0):
            progress(done, total)
        proposed = record.to_front_matter()
        paper = known.get(record.id)
        state[record.id] = {"id": record.id, "slug": record.slug, "fields": proposed}
        if paper is None or (paper.page is None and paper.base is None):
            writes.append((config.papers_dir / f"{record.slug}.md", render_page(record)))
            report.written.append(record.slug)
            continue
        if paper.page is None:
            report.deleted.append(paper.slug)
            report.warnings.append(f"{paper.slug}: page was deleted by a maintainer; not re-created")
            continue
        current = paper.page.to_front_matter()
        merged, conflicts = merge_fields(paper.base, current, proposed)
        for name in conflicts:
            report.conflicts.append(
                {
                    "slug": paper.slug,
                    "field": name,
                    "last_imported": None if paper.base is None else paper.base.get(name),
                    "page": current.get(name),
                    "listing": proposed.get(name),
                }
            )
        if merged == current:
            report.unchanged.append(paper.slug)
            continue
        updated = PaperRecord.from_front_matter(merged, body=paper.page.body, path=paper.path or "<page>")
        assert paper.path is not None
        writes.append((paper.path, render_page(updated)))
        to_verify.append(len(writes) - 1)
        report.updated.append(paper.slug)
    for paper_id, paper in sorted(known.items()):
        if paper_id in state:
            continue
        if paper.page is not None:
            report.departed.append(paper.slug)
        if paper.base is not None:  # keep it: the paper may come back, and its slug stays reserved
            state[paper_id] = {"id": paper_id, "slug": paper.slug, "fields": paper.base}
    return writes, to_verify, [state[key] for key in sorted(state)]


def check_plan(writes: list[tuple[Path, str]], to_verify: list[int]) -> None:
    """Refuse the whole import if a page would be unreadable or two papers share a file.

    Pages that merge human edits are read back with the parser the site uses;
    pages rendered straight from a record are covered by the round-trip
    property test, and reading 10k of them back would double the import time.
    """
    errors: list[str] = []
    seen: set[Path] = set()
    for path, _ in writes:
        if path in seen:
            errors.append(f"{path}:1: two papers would be written to this page")
        seen.add(path)
    for position in to_verify:
        path, text = writes[position]
        try:
            parse_page(text, path)
        except PapersiteError as error:
            errors.append(f"{error} (in the page this import would write)")
    if errors:
        raise PapersiteError(*errors)
