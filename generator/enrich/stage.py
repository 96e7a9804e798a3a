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
from generator.workers import Forked, can_fork

log = logging.getLogger(__name__)

# Topics are inferred in a forked worker while keywords are chosen here from this many
# papers to infer on: at 11,672 papers on two cores, 2.4 s of the 13 s of enrichment.
TOPICS_IN_WORKER_FROM = 2_000


def enrich_records(records: list[PaperRecord], taxonomy_file: Path, parallel: bool = False) -> list[PaperRecord]:
    """``parallel``: topics may be inferred in a forked worker (``generator/workers.py``), only
    for a process with no other threads. The answer is the same either way."""
    taxonomy = load_taxonomy(taxonomy_file)
    model = load_topic_model()
    for record in records:
        if record.topic is not None and record.topic.source != "inferred":
            problem = taxonomy.topic_problem(record.topic)
            if problem:
                log.warning("%s: %s (kept: a %s topic wins)", record.slug or record.id, problem, record.topic.source)

    # Topics of the records without one, in one batch (a single sparse product); they do not
    # depend on the keywords, so a worker may infer them while the keywords are chosen.
    missing = [i for i, record in enumerate(records) if record.topic is None]
    to_infer = [(records[i].title or "", records[i].abstract or "") for i in missing]
    worker = None
    if parallel and can_fork() and len(missing) >= TOPICS_IN_WORKER_FROM:
        worker = Forked("topic inference", infer_topics, to_infer, taxonomy, model)

    # Keywords are chosen over the corpus in a canonical order (by id), so the
    # answer is the same however the records arrive.
    by_id = sorted(range(len(records)), key=lambda i: (records[i].id, i))
    texts = [(records[i].title or "", records[i].abstract or "") for i in by_id]
    try:
        keywords_sorted = extract_keywords(texts)
    except BaseException:
        if worker is not None:
            worker.cancel()
        raise
    keywords = [[] for _ in records]
    for position, index in enumerate(by_id):
        keywords[index] = keywords_sorted[position]

    inferred = worker.result() if worker is not None else infer_topics(to_infer, taxonomy, model)
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
