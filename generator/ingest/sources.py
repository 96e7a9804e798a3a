"""What an import reads: the listing files and the reference catalogues.

In:  listing paths given on the command line, or every file of ``corpus_dir``
     that is not a reference catalogue; the ``references`` of papersite.yml.
Out: ``Listing`` per file; merged papers completed from the references, with
     the report of what matched.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from generator.config import ProjectConfig
from generator.enrich.taxonomy import load_taxonomy
from generator.ingest.authors import OrderVerdict, judge_order, source_order
from generator.ingest.listing import Listing, ReadSettings, read_listing
from generator.ingest.settled import Settled
from generator.ingest.references import ReferenceReport, complete_papers, read_references
from generator.pages.record import PaperRecord
from generator.ingest.corpus import corpus_files
from generator.problems import PapersiteError, Problem


def source_files(sources: Iterable[Path | str], config: ProjectConfig) -> list[Path]:
    paths = [Path(s) for s in sources]
    references = set(config.references)
    if paths:
        named = [f"{p}:1: this file is a reference catalogue (papersite.yml 'references'), not a listing" for p in paths if p.resolve() in references]
        if named:
            raise PapersiteError(*named)
        return paths
    if not config.corpus_dir.is_dir():
        raise PapersiteError.at(config.corpus_dir, 1, "no listings given and the corpus directory does not exist")
    found, problems = corpus_files(config)
    if problems:
        raise PapersiteError(*problems)
    if not found:
        raise PapersiteError.at(config.corpus_dir, 1, "corpus directory holds no listing files")
    # Relative to where the user stands, so messages and the report name files as the user does.
    return [Path(os.path.relpath(p)) for p in found]


def read_settings(name: str, config: ProjectConfig | None) -> ReadSettings:
    """What a reader of the listing called ``name`` is told: its column map, the site's taxonomy."""
    if config is None:
        return ReadSettings()
    return ReadSettings(columns=dict(config.source(name).columns), taxonomy=load_taxonomy(config.taxonomy_file))


def read_listings(paths: list[Path], config: ProjectConfig | None = None) -> list[Listing]:
    listings, errors = [], []
    for path in paths:
        try:
            listings.append(read_listing(path, read_settings(Path(path).name, config)))
        except PapersiteError as error:
            errors.extend(error.problems)
    names = [listing.name for listing in listings]
    errors += [f"{name}:1: two listings share this file name; sources cite files by name" for name in sorted(set(names)) if names.count(name) > 1]
    if errors:
        raise PapersiteError(*errors)
    return listings


def listing_orders(listings: list[Listing], config: ProjectConfig) -> dict[str, OrderVerdict]:
    """Each listing's author-order verdict, as papersite.yml declares it or as measured."""
    verdicts = {}
    for listing in listings:
        order, declared_by = source_order(config.source(listing.name).author_order, listing.author_order, listing.format)
        verdicts[listing.name] = judge_order(listing.name, (e.authors for e in listing.entries), order, declared_by)
    return verdicts


def complete_from_references(papers: list, config: ProjectConfig, settled: Settled | None = None) -> tuple[list, ReferenceReport]:
    if not config.references:
        return papers, ReferenceReport()
    try:
        references = read_references(config.references, ReadSettings(taxonomy=load_taxonomy(config.taxonomy_file)))
    except PapersiteError as error:
        raise error.noting("(a reference catalogue named in papersite.yml)") from None
    return complete_papers(papers, references, config.source, settled)


def references_json(found: ReferenceReport, papers: list, records: list[PaperRecord]) -> dict[str, Any]:
    def paper(position: int) -> dict[str, Any]:
        record = records[position]
        return {"slug": record.slug, "title": record.title, "sources": [s.label() for s in papers[position].sources]}

    return {
        "files": found.files,
        "matched": [{**paper(m.paper), **m.to_json()} for m in found.matches],
        "candidates": [{**paper(c.paper), **c.to_json()} for c in found.candidates],
        "rejected_by_maintainer": [{**paper(c.paper), **c.to_json()} for c in found.rejected],
    }
