"""The merge stage alone, in-process, on grown corpora: CPU per paper as the corpus grows.

    python bench/merge_bench.py 11672 50000 100000 [--pairs]

For each size: the corpus of bench/corpus.py (the real ICLR 2025 papers, then grown
ones) as one JSONL listing, read by the importer's reader (not timed), then
``merge_duplicates`` (timed: CPU seconds of this process). ``--pairs`` also counts the
candidate pairs the merge checks (``SimilarityIndex.candidate_pairs``, a second pass):
grown papers are made of real sentences, so the pairs per paper grow with the corpus,
and with them the merge's cost per paper. Peak RSS is this process's, growing corpus
included. Figures only: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402  bench/corpus.py, which puts the repository on sys.path

from generator.ingest.listing import ListingEntry, read_listing  # noqa: E402
from generator.ingest.merge import SimilarityIndex, merge_duplicates  # noqa: E402


def merge_figures(size: int, records: list[dict], pairs: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "bench.jsonl"
        listing.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus.grow(records, size)),
                           encoding="utf-8")
        entries = read_listing(listing).entries
    started = time.process_time()
    papers = merge_duplicates(entries)
    cpu = time.process_time() - started
    figures = {"papers": size, "merged_into": len(papers), "merge_cpu_s": round(cpu, 2),
               "ms_per_paper": round(1000 * cpu / size, 3)}
    if pairs:
        index = SimilarityIndex()
        docs = [index.make_doc(e.title, e.abstract, e.links.get("openreview"))
                for e in sorted(entries, key=ListingEntry.sort_key)]
        figures["pairs_per_paper"] = round(sum(1 for _ in SimilarityIndex.candidate_pairs(docs)) / size, 2)
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--pairs", action="store_true", help="also count the candidate pairs per paper")
    args = parser.parse_args(argv)
    records = corpus.real_records()
    for size in args.sizes:
        print(json.dumps(merge_figures(size, records, args.pairs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
