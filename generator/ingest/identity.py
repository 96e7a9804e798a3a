"""Identity of known papers: the id and slug a paper keeps from import to import.

In:  the state file (``.papersite/last_import.jsonl``: what the previous import
     proposed, per paper) and the paper pages (``pages/folder.py``); the drafts of
     this import.
Out: ``KnownPaper`` by id; each draft that is a known paper gets that paper's id
     and slug (``match_known``). New papers get theirs in ``titles.assign_identity``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.config import ProjectConfig
from generator.ingest.merge import SimilarityIndex
from generator.ingest.report import ImportReport
from generator.inputs import InputError, load_json, readable_file
from generator.pages.folder import read_pages
from generator.pages.record import PaperRecord
from generator.problems import PapersiteError, Problem


@dataclass
class KnownPaper:
    """A paper some earlier import or maintainer created."""

    id: str
    slug: str
    base: dict[str, Any] | None  # front matter last proposed (None: no state for it)
    page: PaperRecord | None
    path: Path | None


def read_text_or_none(path: Path, root: Path) -> str | None:
    """The state file's text (None: no state yet), if it is a file of the project at ``root``."""
    if not path.exists() and not path.is_symlink():
        return None
    return readable_file(path, root).read_text(encoding="utf-8")


def load_known(config: ProjectConfig) -> dict[str, KnownPaper]:
    """Papers known from the state file and from the pages on disk, by id."""
    errors: list[Problem | str] = []
    known: dict[str, KnownPaper] = {}
    state_text = read_text_or_none(config.state_file, config.root) or ""
    # split at "\n" only: the state is written with ensure_ascii=False, so a string may hold U+2028 or U+0085
    for number, line in enumerate(state_text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = load_json(line, number)
            known[row["id"]] = KnownPaper(row["id"], row["slug"], row["fields"], None, None)
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
            known[record.id] = KnownPaper(record.id, record.slug, None, record, path)
        else:
            entry.page, entry.path = record, path
    if errors:
        raise PapersiteError(*errors)
    return known


def slug_sources(known: dict[str, KnownPaper]) -> dict[str, set[tuple[str, int]]]:
    """Each known paper's listing entries (last imported, and as its page says), by slug."""
    found: dict[str, set[tuple[str, int]]] = {}
    for paper in known.values():
        entries = found.setdefault(paper.slug, set())
        for source in (paper.base or {}).get("sources") or []:
            if isinstance(source, dict):
                entries.add((str(source.get("file")), source.get("entry")))
        if paper.page is not None:
            entries.update((s.file, s.entry) for s in paper.page.sources)
    return found


def match_known(drafts: list[PaperRecord], known: dict[str, KnownPaper], report: ImportReport) -> None:
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
        # A title an authoritative reference replaced was the paper's title at some earlier import.
        titles = [None] if draft.title_derived else [draft.title, *([draft.listed["title"]] if draft.listed.get("title") else [])]
        docs = [index.make_doc(title, draft.abstract, draft.links.get("openreview")) for title in titles]
        best: tuple[float, str] | None = None
        for doc in docs:
            for number in index.candidates(doc):
                found = SimilarityIndex.evidence(doc, index.docs[number])
                if found and (best is None or (found[1], ids[number]) > best):
                    best = (found[1], ids[number])
        if best is None:
            for source in draft.sources:
                match = by_source.get((source.file, source.entry))
                if match is not None:
                    other = index.docs[position[match]]
                    if any(not (doc.title and other.title and doc.title != other.title) for doc in docs):
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
