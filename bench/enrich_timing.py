"""Time the enrichment stage (model load + topics + keywords) on the corpus and on the ICLR dataset.

    python bench/enrich_timing.py
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.enrich.stage import enrich_records  # noqa: E402
from generator.ingest.listing import read_listing  # noqa: E402
from generator.pages.record import PaperRecord  # noqa: E402
from generator.enrich.topics import load_topic_model  # noqa: E402


def records(papers):
    return [PaperRecord(id=f"{i:012x}", slug=f"p{i}", title=t, abstract=a) for i, (t, a) in enumerate(papers)]


def main() -> int:
    corpus = [(e.title or "", e.abstract or "") for p in sorted((ROOT.parent / "shared" / "corpus").iterdir()) for e in read_listing(p).entries]
    with gzip.open(ROOT.parent / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz", "rt", encoding="utf-8") as stream:
        iclr = [(r.get("title") or "", r.get("abstract") or "") for r in map(json.loads, stream)]
    taxonomy = ROOT / "generator" / "data" / "taxonomy.yaml"
    for name, papers in (("corpus", corpus), ("iclr2025", iclr)):
        load_topic_model.cache_clear()
        started = time.perf_counter()
        load_topic_model()
        loaded = time.perf_counter()
        enrich_records(records(papers), taxonomy)
        done = time.perf_counter()
        print(f"{name}: {len(papers)} papers, model load {loaded - started:.2f} s, enrich {done - loaded:.2f} s, total {done - started:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
