"""Enrichment stage: topics and keywords for merged paper records.

In: records as the listings give them. Out: the same records with a topic
(listed, or inferred with a confidence) and canonical keywords.
PLACEHOLDER: the enrichment helper replaces this module's body; the
signature below is the contract the importer calls.
"""

from __future__ import annotations

from pathlib import Path

from generator.record import PaperRecord


def enrich_records(records: list[PaperRecord], taxonomy_file: Path) -> list[PaperRecord]:
    return records
