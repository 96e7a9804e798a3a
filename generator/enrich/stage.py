"""Enrichment stage: topics and keywords for merged paper records.

In:  records as the listings give them, and the site's taxonomy file.
Out: the same records, in the same order, with a topic (a listed or
maintainer topic is kept as it is; a missing one is inferred, with a
confidence) and canonical keywords (only where a record has none).

Pure: reads the taxonomy and the bundled model data, writes nothing. The
importer's per-field three-way merge decides whether a proposal is used, so a
human edit always wins; this stage only never overwrites a topic it was given.
Keywords depend on the whole corpus (a keyword must be shared), never on the
order of the records.
"""

from __future__ import annotations

import logging
from pathlib import Path

from generator.enrich.keywords import extract_keywords
from generator.pages.record import PaperRecord
from generator.enrich.taxonomy import load_taxonomy
from generator.enrich.topics import infer_topics, load_topic_model

log = logging.getLogger(__name__)


def enrich_records(records: list[PaperRecord], taxonomy_file: Path) -> list[PaperRecord]:
    taxonomy = load_taxonomy(taxonomy_file)
    model = load_topic_model()
    for record in records:
        if record.topic is not None and record.topic.source != "inferred":
            problem = taxonomy.topic_problem(record.topic)
            if problem:
                log.warning("%s: %s (kept: a %s topic wins)", record.slug or record.id, problem, record.topic.source)

    # Keywords are chosen over the corpus in a canonical order (by id), so the
    # answer is the same however the records arrive.
    by_id = sorted(range(len(records)), key=lambda i: (records[i].id, i))
    texts = [(records[i].title or "", records[i].abstract or "") for i in by_id]
    keywords_sorted = extract_keywords(texts)
    keywords = [[] for _ in records]
    for position, index in enumerate(by_id):
        keywords[index] = keywords_sorted[position]

    # Topics of the records without one, in one batch (a single sparse product).
    missing = [i for i, record in enumerate(records) if record.topic is None]
    inferred = infer_topics([(records[i].title or "", records[i].abstract or "") for i in missing], taxonomy, model)
    topics = dict(zip(missing, inferred))

    enriched = []
    for position, (record, proposed) in enumerate(zip(records, keywords)):
        changes = {}
        if topics.get(position) is not None:
            changes["topic"] = topics[position]
        if not record.keywords:
            changes["keywords"] = proposed
        enriched.append(record.replace(**changes) if changes else record)
    return enriched
