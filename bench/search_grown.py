"""A query's bytes and ms at a size this machine cannot build in time: only the search files, made in-process.

In: a size (e.g. 100000) and a site built by this papersite (any size: its home page and scripts are what the
reader opens). Out: that site's home page and assets with the search files (``search.search_files``) of the
first ``size`` papers of ``bench/corpus.py``'s corpus (the real 11,672, then grown ones), made straight from
the listing's records: no import, so no keywords and no topics (the importer derives them), which leaves the
titles' index and the names table a little lighter than a built site's; every other search file is as a build
writes it. ``python bench/run.py --search-cost OUT`` or ``bench/search_trace.py OUT`` then measures it.
Prints the CPU seconds and peak memory of making the files, and their bytes.

    python bench/search_grown.py 100000 THIS_SITE OUT_SITE
"""

from __future__ import annotations

import hashlib
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import grow, real_records  # noqa: E402
from generator import layout  # noqa: E402
from generator.catalog import build_catalog  # noqa: E402
from generator.pages.record import PaperRecord, SourceRef  # noqa: E402
from generator.site import search  # noqa: E402
from search_only import fresh_site, print_kinds  # noqa: E402


def papers(size: int) -> list[PaperRecord]:
    """The corpus's first ``size`` records as pages would hold them (slugs made unique in listing order)."""
    slugs = layout.Slugs()
    made = []
    for line, record in enumerate(grow(real_records(), size), 1):
        made.append(PaperRecord(id=hashlib.sha1(record["openreview_url"].encode()).hexdigest()[:12],
                                slug=slugs.take(layout.slug_of(record["title"])), title=record["title"],
                                abstract=record.get("abstract"), authors=list(record.get("authors") or []),
                                decision=record.get("decision"), sources=[SourceRef("corpus.jsonl", line, "jsonl")]))
    return made


def main(argv: list[str]) -> int:
    size, this, out = int(argv[0]), Path(argv[1]), Path(argv[2])
    begun, cpu = time.perf_counter(), time.process_time()
    files = search.search_files(build_catalog(papers(size)))
    wall, cpu = time.perf_counter() - begun, time.process_time() - cpu
    fresh_site(this, out)
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{size} papers: the search files in {wall:.0f} s wall, {cpu:.0f} s CPU, peak {peak:,.0f} MB")
    print_kinds(files)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
