"""Import benchmark: the 11,672-paper ICLR 2025 dataset into a fresh temporary project.

Prints papers/s (whole import: read, merge, titles, enrich, render, write) and
peak memory (resident set size from ``resource.getrusage``; tracemalloc's peak of
Python allocations with ``--tracemalloc``, which slows the run down).

    python bench/import_bench.py [DATASET] [--tracemalloc] [--reference]

``--reference``: the dataset is also the project's reference catalogue, so every
paper is matched against all 11,672 reference records; the "references" stage
(read the reference, index it, match every paper) is reported on its own line.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.config import load_config  # noqa: E402
from generator.pipeline import import_listings  # noqa: E402

DEFAULT_DATASET = ROOT.parent / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz"
TARGET_PAPERS_PER_SECOND = 2000
TARGET_PEAK_BYTES = 1 << 30


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--tracemalloc", action="store_true", help="also report Python's traced peak")
    parser.add_argument("--reference", action="store_true", help="match the dataset against itself as a reference catalogue")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="papersite-bench-") as tmp:
        project = Path(tmp)
        (project / "corpus").mkdir()
        shutil.copy(args.dataset, project / "corpus" / args.dataset.name)
        if args.reference:
            (project / "references").mkdir()
            shutil.copy(args.dataset, project / "references" / args.dataset.name)
            (project / "papersite.yml").write_text(f"references:\n- references/{args.dataset.name}\n", encoding="utf-8")
        config = load_config(project)
        if args.tracemalloc:
            tracemalloc.start()
        started = time.perf_counter()
        report = import_listings([], config)
        elapsed = time.perf_counter() - started
        traced = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
        pages = len(list(config.papers_dir.glob("*.md")))
    # ru_maxrss is in KiB on Linux.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rate = report.papers / elapsed
    print(f"dataset:   {args.dataset.name}")
    print(f"papers:    {report.papers} ({pages} pages written, {len(report.merges)} merges)")
    print(f"time:      {elapsed:.2f} s")
    print("stages:    " + ", ".join(f"{k} {v:.2f}s" for k, v in report.stage_seconds.items()))
    print(f"rate:      {rate:,.0f} papers/s (target >= {TARGET_PAPERS_PER_SECOND:,})")
    # Enrichment (topics, keywords) is its own stage with its own benchmark;
    # this line shows what the import machinery itself costs.
    own = elapsed - report.stage_seconds.get("enrich", 0.0)
    print(f"without enrichment: {report.papers / own:,.0f} papers/s ({own:.2f} s)")
    if args.reference:
        seconds = report.stage_seconds.get("references", 0.0)
        matched = report.references.get("matched", [])
        candidates = {c["slug"] for c in report.references.get("candidates", [])}
        print(
            f"references: {seconds:.2f} s for {report.papers:,} papers against {report.references['files'][0]['records']:,} "
            f"records ({report.papers / max(seconds, 1e-9):,.0f} papers/s); {len(matched):,} matched, "
            f"{len(candidates):,} with candidates only"
        )
    print(f"peak RSS:  {peak / 2**20:,.0f} MiB (target < {TARGET_PEAK_BYTES / 2**20:,.0f} MiB)")
    if traced is not None:
        print(f"traced:    {traced / 2**20:,.0f} MiB peak of Python allocations")
    return 0 if rate >= TARGET_PAPERS_PER_SECOND and peak < TARGET_PEAK_BYTES else 1


if __name__ == "__main__":
    sys.exit(main())
