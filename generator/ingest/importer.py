"""Import stage: listings in, one committed Markdown page per paper out.

In:  listing files (default: every file in ``corpus/``), the paper pages in
     ``site_src/papers/`` (which maintainers edit by hand) and the state file
     (``.papersite/last_import.jsonl``: what the previous import proposed).
Out: created / updated pages, a new state file and an ``ImportReport``.

Order: read listings -> merge duplicates -> draft records with titles ->
match drafts to known papers (keeps id and slug) -> identity for new papers ->
enrich -> three-way merge of each field (last import / page / new proposal)
-> validate everything -> write atomically.

The three-way merge is per front-matter field: a field the page still has as
last imported takes the new listing value; a field a human changed keeps the
human value; when both changed differently the human wins and a conflict is
reported. The body is the maintainers' alone. Papers that left the listings
are reported and left in place.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from generator.config import ProjectConfig
from generator.ingest.listing import Listing, read_listing
from generator.ingest.merge import SimilarityIndex, merge_duplicates
from generator.pages.folder import read_pages
from generator.pages.record import PaperRecord, parse_page, render_page
from generator.inputs import InputError, load_json
from generator.ingest.references import ReferenceReport, complete_papers, read_references
from generator.ingest.titles import assign_identity, draft_record
from generator.problems import PapersiteError, Problem
from generator.pages.store import project_lock, recover, write_alone, write_together

# Fields whose value always comes from the page: identity is fixed at first import.
IDENTITY_FIELDS = ("id", "slug")
LONG_IMPORT = 2000  # papers: show progress even when stderr is not a terminal


@dataclass
class ImportReport:
    sources: list[dict[str, Any]] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # new pages (slugs)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    departed: list[str] = field(default_factory=list)  # pages whose paper left the listings
    deleted: list[str] = field(default_factory=list)  # pages a maintainer removed: not re-created
    merges: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    references: dict[str, Any] = field(default_factory=dict)  # reference matches and candidates, by slug
    papers: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)  # for benchmarks; not in the JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "papers": {
                "total": self.papers,
                "written": len(self.written),
                "updated": len(self.updated),
                "unchanged": len(self.unchanged),
                "written_slugs": sorted(self.written),
                "updated_slugs": sorted(self.updated),
                "departed_slugs": sorted(self.departed),
                "deleted_by_maintainer": sorted(self.deleted),
            },
            "merges": self.merges,
            "conflicts": self.conflicts,
            "references": self.references,
            "warnings": self.warnings,
        }

    def summary(self) -> str:
        lines = [
            f"{self.papers} papers from {sum(s['entries'] for s in self.sources)} entries in "
            f"{len(self.sources)} listing(s): {len(self.written)} new, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged; {len(self.merges)} merged, {len(self.conflicts)} conflict(s), "
            f"{len(self.departed)} left the listings ({self.seconds:.1f}s)"
        ]
        if self.references.get("files"):
            matched, candidates = self.references["matched"], self.references["candidates"]
            per_file = ", ".join(
                f"{sum(1 for m in matched if m['reference'] == f['file'])} in {f['file']}" for f in self.references["files"]
            )
            completed = {m["slug"] for m in matched if m["fields"]}
            lines.append(
                f"references: {len({m['slug'] for m in matched})} of {self.papers} papers matched ({per_file}), "
                f"{len(completed)} completed; {len({c['slug'] for c in candidates})} with candidates to confirm "
                "by hand (see --report)"
            )
        lines += [
            f"conflict: {c['slug']}: field '{c['field']}' changed in the listing and by hand; kept the page's value"
            for c in self.conflicts
        ]
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


@dataclass
class _KnownPaper:
    """A paper some earlier import or maintainer created."""

    id: str
    slug: str
    base: dict[str, Any] | None  # front matter last proposed (None: no state for it)
    page: PaperRecord | None
    path: Path | None


# --------------------------------------------------------------------------- entry points


def run_import(args: Any, config: ProjectConfig) -> int:
    """``papersite import``: exit 0 on success, 1 when nothing could be written."""
    quiet = bool(getattr(args, "quiet", False))
    sources = list(getattr(args, "sources", None) or [])
    try:
        with project_lock(config, "import"):
            recovered = recover(config)
            if recovered and not quiet:
                print(f"papersite: {recovered}", file=sys.stderr)
            report = import_listings(sources, config, progress=None if quiet else _progress_bar)
    except PapersiteError as failure:
        for line in failure.lines():
            print(f"papersite: {line}", file=sys.stderr)
        print("papersite: import aborted; nothing was written", file=sys.stderr)
        return 1
    except OSError as error:  # a full disk, a read-only folder, a directory named x.md: before the commit
        where = error.filename or config.papers_dir
        print(f"papersite: {where}:1: {error.strerror or error}; import aborted, nothing was written", file=sys.stderr)
        return 1
    if getattr(args, "report", None):
        try:
            _write_atomic(Path(args.report), json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
        except OSError as error:
            print(f"papersite: {args.report}:1: cannot write the report ({error.strerror}); the import itself was written", file=sys.stderr)
            return 1
    if not quiet:
        print(report.summary())
    return 0


def import_listings(
    sources: Iterable[Path | str],
    config: ProjectConfig,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Import listings into the project's pages; raises PapersiteError before writing anything."""
    started = time.perf_counter()
    report = ImportReport()
    clock = [started]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        report.stage_seconds[stage] = now - clock[0]
        clock[0] = now

    listings = _read_listings(_source_files(sources, config))
    lap("read")
    entries = [entry for listing in listings for entry in listing.entries]
    for listing in sorted(listings, key=lambda l: l.name):
        report.sources.append(
            {"file": listing.name, "format": listing.format, "entries": len(listing.entries), "announced": listing.announced}
        )
        report.warnings.extend(listing.warnings)

    papers = merge_duplicates(entries, report.warnings)
    lap("merge")
    papers, reference_report = _complete_from_references(papers, config)
    lap("references")
    drafts = [draft_record(paper) for paper in papers]
    known = _load_known(config)
    _match_known(drafts, known, report)
    assign_identity(
        drafts,
        taken_ids=set(known),
        taken_slugs={k.slug for k in known.values()} | {k.path.stem for k in known.values() if k.path},
    )
    lap("titles+identity")
    records = _enrich(drafts, config)
    lap("enrich")
    report.papers = len(records)
    if reference_report.files:
        report.references = _references_json(reference_report, papers, records)
    for paper, record in zip(papers, records):
        if paper.evidence:
            report.merges.append(
                {
                    "slug": record.slug,
                    "sources": [s.label() for s in record.sources],
                    "evidence": [e.to_json() for e in paper.evidence],
                }
            )

    writes, to_verify, state = _plan(records, known, config, report, progress)
    _check_plan(writes, to_verify)
    lap("plan")
    state_text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in state)
    if _read_text(config.state_file) != state_text:
        writes.append((config.state_file, state_text))  # last: renamed after every page
    write_together(writes, config)  # all pages and the state, or none (generator/pages/store.py)
    lap("write")
    report.seconds = time.perf_counter() - started
    return report


# --------------------------------------------------------------------------- reading


def _source_files(sources: Iterable[Path | str], config: ProjectConfig) -> list[Path]:
    paths = [Path(s) for s in sources]
    references = set(config.references)
    if paths:
        named = [f"{p}:1: this file is a reference catalogue (papersite.yml 'references'), not a listing" for p in paths if p.resolve() in references]
        if named:
            raise PapersiteError(*named)
        return paths
    if not config.corpus_dir.is_dir():
        raise PapersiteError.at(config.corpus_dir, 1, "no listings given and the corpus directory does not exist")
    # A reference catalogue is never a listing, even when it sits among the listings.
    found = sorted(
        p for p in config.corpus_dir.iterdir() if p.is_file() and not p.name.startswith(".") and p.resolve() not in references
    )
    if not found:
        raise PapersiteError.at(config.corpus_dir, 1, "corpus directory holds no listing files")
    # Relative to where the user stands, so messages and the report name files as the user does.
    return [Path(os.path.relpath(p)) for p in found]


def _read_listings(paths: list[Path]) -> list[Listing]:
    listings, errors = [], []
    for path in paths:
        try:
            listings.append(read_listing(path))
        except PapersiteError as error:
            errors.extend(error.problems)
    names = [listing.name for listing in listings]
    errors += [f"{name}:1: two listings share this file name; sources cite files by name" for name in sorted(set(names)) if names.count(name) > 1]
    if errors:
        raise PapersiteError(*errors)
    return listings


def _complete_from_references(papers: list, config: ProjectConfig) -> tuple[list, ReferenceReport]:
    if not config.references:
        return papers, ReferenceReport()
    try:
        references = read_references(config.references)
    except PapersiteError as error:
        raise PapersiteError(f"{error} (a reference catalogue named in papersite.yml)") from None
    return complete_papers(papers, references)


def _references_json(found: ReferenceReport, papers: list, records: list[PaperRecord]) -> dict[str, Any]:
    def paper(position: int) -> dict[str, Any]:
        record = records[position]
        return {"slug": record.slug, "title": record.title, "sources": [s.label() for s in papers[position].sources]}

    return {
        "files": found.files,
        "matched": [{**paper(m.paper), **m.to_json()} for m in found.matches],
        "candidates": [{**paper(c.paper), **c.to_json()} for c in found.candidates],
    }


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _load_known(config: ProjectConfig) -> dict[str, _KnownPaper]:
    """Papers known from the state file and from the pages on disk, by id."""
    errors: list[Problem | str] = []
    known: dict[str, _KnownPaper] = {}
    state_text = _read_text(config.state_file) or ""
    for number, line in enumerate(state_text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = load_json(line, number)
            known[row["id"]] = _KnownPaper(row["id"], row["slug"], row["fields"], None, None)
        except InputError as error:
            errors.append(f"{config.state_file}:{error.line}: not a state record ({error.message})")
        except (ValueError, KeyError, TypeError):
            errors.append(f"{config.state_file}:{number}: not a state record (expected JSON with id, slug, fields)")
    pages = read_pages(config)
    errors += pages.errors()
    for page in pages.pages if not errors else []:
        record, path = page.record, page.path
        assert record is not None  # a page with field errors is an error above
        entry = known.get(record.id)
        if entry is None:
            known[record.id] = _KnownPaper(record.id, record.slug, None, record, path)
        else:
            entry.page, entry.path = record, path
    if errors:
        raise PapersiteError(*errors)
    return known


# --------------------------------------------------------------------------- identity


def _match_known(drafts: list[PaperRecord], known: dict[str, _KnownPaper], report: ImportReport) -> None:
    """Give each draft the id and slug of the known paper it is, if any.

    Evidence is what was last imported (not the page: a maintainer's title edit
    must not lose the paper), by the merge stage's own rules; a shared listing
    source counts when the content gives no contrary evidence.
    """
    if not known:
        return
    index = SimilarityIndex()
    ids: list[str] = []
    position: dict[str, int] = {}
    by_source: dict[tuple[str, int], str] = {}
    for paper in sorted(known.values(), key=lambda k: k.id):
        fields = paper.base if paper.base is not None else (paper.page.to_front_matter() if paper.page else {})
        title = None if fields.get("title_derived") else fields.get("title")
        index.add(title, fields.get("abstract"), (fields.get("links") or {}).get("openreview"))
        position[paper.id] = len(ids)
        ids.append(paper.id)
        for source in fields.get("sources") or []:
            by_source.setdefault((source.get("file"), source.get("entry")), paper.id)

    claimed: dict[str, PaperRecord] = {}
    for draft in drafts:  # canonical order: the first claimant of a known paper wins
        doc = index.make_doc(None if draft.title_derived else draft.title, draft.abstract, draft.links.get("openreview"))
        best: tuple[float, str] | None = None
        for number in index.candidates(doc):
            found = SimilarityIndex.evidence(doc, index.docs[number])
            if found and (best is None or (found[1], ids[number]) > best):
                best = (found[1], ids[number])
        if best is None:
            for source in draft.sources:
                match = by_source.get((source.file, source.entry))
                if match is not None:
                    other = index.docs[position[match]]
                    if not (doc.title and other.title and doc.title != other.title):
                        best = (0.0, match)
                        break
        if best is None:
            continue
        paper_id = best[1]
        if paper_id in claimed:
            report.warnings.append(
                f"{draft.sources[0].label()}: matches the same page as {claimed[paper_id].sources[0].label()}; "
                "imported as a new paper"
            )
            continue
        claimed[paper_id] = draft
        draft.id, draft.slug = paper_id, known[paper_id].slug


def _enrich(records: list[PaperRecord], config: ProjectConfig) -> list[PaperRecord]:
    from generator.enrich.stage import enrich_records

    enriched = enrich_records(records, config.taxonomy_file)  # a bad taxonomy: PapersiteError
    if len(enriched) != len(records) or [r.id for r in enriched] != [r.id for r in records]:
        raise PapersiteError.at(config.taxonomy_file, 1, "enrichment must return one record per paper, in order")
    return list(enriched)


# --------------------------------------------------------------------------- three-way merge


# Fields merged key by key: a maintainer's own link and a reference's new one both survive.
KEYED_FIELDS = ("links",)


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
    _drop_overridden_fills(merged, proposed)
    return merged, conflicts


def _drop_overridden_fills(merged: dict[str, Any], proposed: dict[str, Any]) -> None:
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


def _plan(
    records: list[PaperRecord],
    known: dict[str, _KnownPaper],
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


def _check_plan(writes: list[tuple[Path, str]], to_verify: list[int]) -> None:
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


# --------------------------------------------------------------------------- writing


def _write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file in the same directory, then rename over the target.

    A crash leaves either the old file or the new one, never half of one.
    """
    write_alone(path, text)


def _progress_bar(done: int, total: int) -> None:
    stream = sys.stderr
    if stream.isatty():
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\rimporting [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            stream.write("\n")
        stream.flush()
    elif total >= LONG_IMPORT and (done == total or done % 2048 == 0):
        stream.write(f"importing: {done}/{total} papers\n")
