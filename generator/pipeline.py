"""The pipeline: every stage of an import and of a site build, in order, written once.

``IMPORT_STAGES`` and ``SITE_STAGES`` name each stage, the module that does it
and the records it passes on; docs/ARCHITECTURE.md's diagram is drawn from them
(``diagram()``; a test keeps the two in step). The functions here run the stages
in that order and time each one (``Timings``): ``papersite import`` and
``papersite build`` print the figures, and the benchmarks read them instead of
wrapping stage functions.

In:  the project config (and listing paths for an import).
Out: an ``ImportReport`` (``import_listings``); the built site (``site/build.py``
     runs ``SITE_STAGES``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.config import ProjectConfig
from generator.pages.record import PaperRecord
from generator.outputs import write_output
from generator.pages.store import write_together
from generator.problems import PapersiteError

if TYPE_CHECKING:
    from generator.ingest.report import ImportReport


@dataclass(frozen=True)
class Stage:
    """One stage: its name (in timings), the module that does it, what it takes and what it gives."""

    name: str
    module: str
    takes: str
    gives: str


IMPORT_STAGES = (
    Stage("read", "ingest/sources.py + ingest/listing.py", "listing files (text layouts, JSON, OpenReview notes, BibTeX, RIS, CSV)", "list[Listing]"),
    Stage("merge", "ingest/merge.py", "list[ListingEntry]", "list[MergedPaper] (+ merge evidence)"),
    Stage("references", "ingest/references.py", "list[MergedPaper] + reference catalogues", "list[MergedPaper] (+ Fill provenance)"),
    Stage("identity", "ingest/titles.py + ingest/identity.py", "list[MergedPaper] + known papers", "list[PaperRecord] with title, id, slug"),
    Stage("enrich", "enrich/stage.py", "list[PaperRecord]", "list[PaperRecord] with topic and keywords"),
    Stage("plan", "ingest/threeway.py", "list[PaperRecord] + pages + last import", "pages to write + new state"),
    Stage("write", "pages/store.py", "pages to write + new state", "site_src/papers/<slug>.md + .papersite/last_import.jsonl"),
)

SITE_STAGES = (
    Stage("import", "pipeline.py (IMPORT_STAGES)", "listings", "paper pages (skipped when no input changed)"),
    Stage("check", "pages/check.py", "paper pages (pages/folder.py)", "list[Problem]; any error stops the build"),
    Stage("stage", "site/stage.py", "list[PaperRecord] -> Catalog", "build/docs: display, index, stats, search pages"),
    Stage("engine", "site/engines.py", "build/docs + mkdocs.yml", "site/ (MkDocs + Material, or Zensical)"),
    Stage("post-build", "site/postbuild.py", "site/ + shell pages", "site/ with author and keyword pages, search index"),
)


# Tests only: "<stage>:interrupt" raises KeyboardInterrupt as the stage starts, "<stage>:signal"
# sends this process a real SIGINT there, "<stage>:pause" says so on stderr and waits (for a
# test to send a signal or start a second writer). Ctrl-C must end every stage cleanly.
STAGE_HOOK_ENV = "PAPERSITE_TEST_STAGE_HOOK"


def _stage_hook(name: str) -> None:
    stage, _, action = os.environ.get(STAGE_HOOK_ENV, "").partition(":")
    if stage != name:
        return
    if action == "interrupt":
        raise KeyboardInterrupt
    if action == "signal":
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(60)  # the handler raises KeyboardInterrupt long before
    if action == "pause":
        print(f"papersite: paused at {name}", file=sys.stderr, flush=True)
        time.sleep(600)


@dataclass
class Timings:
    """Seconds per stage, measured in the order the stage table gives (a stage may be skipped)."""

    stages: tuple[Stage, ...]
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        names = [s.name for s in self.stages]
        if name not in names:
            raise AssertionError(f"no stage {name!r}; the stages are {', '.join(names)}")
        if self.seconds and names.index(name) <= names.index(next(reversed(self.seconds))):
            raise AssertionError(f"stage {name!r} runs out of order after {', '.join(self.seconds)}")
        started = time.perf_counter()
        try:
            _stage_hook(name)
            yield
        finally:
            self.seconds[name] = time.perf_counter() - started

    def summary(self) -> str:
        return ", ".join(f"{name} {seconds:.1f}s" for name, seconds in self.seconds.items())


def write_timings(path: Path, *timings: Timings) -> None:
    """``--timings FILE``: seconds per stage as one JSON object (the stage names of both tables differ)."""
    seconds = {name: round(value, 4) for t in timings for name, value in t.seconds.items()}
    try:
        write_output(path, json.dumps(seconds, indent=1) + "\n")
    except OSError as error:
        raise PapersiteError.at(path, 1, f"cannot write the stage timings ({error.strerror})") from None


def diagram() -> str:
    """The stages as docs/ARCHITECTURE.md draws them."""
    lines = []
    for title, stages in (("papersite import", IMPORT_STAGES), ("papersite build", SITE_STAGES)):
        lines.append(f"{title}:")
        width = max(len(s.module) for s in stages)
        for number, stage in enumerate(stages, 1):
            lines.append(f"  {number}. {stage.name:<11} {stage.module:<{width}}  {stage.takes}")
            lines.append(f"     {'':<11} {'':<{width}}  -> {stage.gives}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the import


def import_listings(
    sources: Iterable[Path | str],
    config: ProjectConfig,
    progress: Callable[[int, int], None] | None = None,
    timings: Timings | None = None,
    parallel: bool = False,
) -> ImportReport:
    """Import listings into the project's pages; raises PapersiteError before writing anything.

    ``parallel``: enrichment may fork a worker (``generator/workers.py``): only for a process
    with no other threads, such as the command line."""
    # imported here, not above: a build that skips the import never loads the readers (0.1 s at every build)
    from generator.ingest.identity import load_known, match_known, read_text_or_none, slug_sources
    from generator.ingest.merge import merge_duplicates
    from generator.ingest.report import ImportReport
    from generator.ingest.settled import load_settled
    from generator.ingest.sources import complete_from_references, listing_orders, read_listings, references_json, source_files
    from generator.ingest.threeway import check_plan, plan
    from generator.ingest.titles import assign_identity, draft_record

    started = time.perf_counter()
    timings = timings or Timings(IMPORT_STAGES)
    report = ImportReport()
    with timings.stage("read"):
        listings = read_listings(source_files(sources, config), config)
        entries = [entry for listing in listings for entry in listing.entries]
        for listing in sorted(listings, key=lambda l: l.name):
            report.sources.append(
                {"file": listing.name, "format": listing.format, "entries": len(listing.entries), "announced": listing.announced}
            )
            report.warnings.extend(listing.warnings)
        orders = listing_orders(listings, config)
    with timings.stage("merge"):
        papers = merge_duplicates(entries, report.warnings, orders)
    with timings.stage("references"):
        known = load_known(config)  # settled matches name papers by their pages' slugs
        settled = load_settled(config.settled_matches, slug_sources(known), config.root)
        papers, reference_report = complete_from_references(papers, config, settled)
        report.warnings += settled.warnings + settled.unused()
        report.author_orders = [orders[name] for name in sorted(orders)] + reference_report.orders
    with timings.stage("identity"):
        drafts = [draft_record(paper) for paper in papers]
        match_known(drafts, known, report)
        assign_identity(
            drafts,
            taken_ids=set(known),
            taken_slugs={k.slug for k in known.values()} | {k.path.stem for k in known.values() if k.path},
        )
    with timings.stage("enrich"):
        records = _enrich(drafts, config, parallel)
    report.papers = len(records)
    report.order_unknown = {record.slug for record in records if record.author_order}
    report.settled_file = _shown_path(config.settled_matches, config)
    if reference_report.files:
        report.references = references_json(reference_report, papers, records)
    for paper, record in zip(papers, records):
        if paper.evidence:
            report.merges.append(
                {"slug": record.slug, "sources": [s.label() for s in record.sources], "evidence": [e.to_json() for e in paper.evidence]}
            )
    with timings.stage("plan"):
        writes, to_verify, state = plan(records, known, config, report, progress)
        check_plan(writes, to_verify)
    with timings.stage("write"):
        state_text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in state)
        if read_text_or_none(config.state_file, config.root) != state_text:
            writes.append((config.state_file, state_text))  # last: renamed after every page
        write_together(writes, config)  # all pages and the state, or none (pages/store.py)
    report.stage_seconds = dict(timings.seconds)
    report.seconds = time.perf_counter() - started
    return report


def _shown_path(path: Path | None, config: ProjectConfig) -> str:
    if path is None:
        return ""
    return path.relative_to(config.root).as_posix() if path.is_relative_to(config.root) else str(path)


def _enrich(records: list[PaperRecord], config: ProjectConfig, parallel: bool) -> list[PaperRecord]:
    # imported here: the topic model pulls in numpy and scikit-learn, which a build that skips the import never needs
    from generator.enrich.stage import enrich_records

    enriched = enrich_records(records, config.taxonomy_file, parallel=parallel)  # a bad taxonomy: PapersiteError
    if len(enriched) != len(records) or [r.id for r in enriched] != [r.id for r in records]:
        raise PapersiteError.at(config.taxonomy_file, 1, "enrichment must return one record per paper, in order")
    return list(enriched)
