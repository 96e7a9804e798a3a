"""What one edit costs the corpus-wide work (related papers, the map layout) at a given size, in-process.

Grows the real dataset to each size (``bench/corpus.py``), then for related papers and for the map:
a clean computation (every text tokenised), the same with the last build's term counts and one
title edited (what a build does after an edit), and how long its parts take. Figures only.

    python bench/derived_bench.py --sizes 11672,100000

The dataset has no keywords or topics (the import derives them): the related texts are title and
abstract, and each paper's landmark is drawn from 40 made-up topics by its number, which costs the
layout what real topics cost it (its work is the TF-IDF and the SVD, not the landmarks).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import grow, real_records  # noqa: E402
from generator.site import paper_map, related, termcounts  # noqa: E402


def _timed(what: str, fn, *args):  # noqa: ANN001, ANN202
    cpu, wall = time.process_time(), time.perf_counter()
    value = fn(*args)
    print(f"  {what}: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} CPU s", flush=True)
    return value


def run(size: int, parts: set[str]) -> None:
    records = grow(real_records(), size)
    slugs = [f"p{i:06d}" for i in range(len(records))]
    texts = [f"{r['title']}\n{r.get('abstract') or ''}" for r in records]
    print(f"{size} papers (load {' '.join(f'{x:.1f}' for x in os.getloadavg())})", flush=True)
    related_texts = list(zip(slugs, texts))
    if "related" in parts:
        _related(slugs, texts, related_texts)
    if "map" in parts:
        _map(related_texts)
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB", flush=True)


def _related(slugs: list[str], texts: list[str], related_texts: list[tuple[str, str]]) -> None:
    lists, counts = _timed("related, clean (tokenise + TF-IDF + product)", related.related_and_counts, related_texts, None)
    edited = list(related_texts)
    edited[len(edited) // 2] = (slugs[len(edited) // 2], "Edited title about graph diffusion\n" + texts[len(edited) // 2])
    again, scored = _timed("related, one title edited, from the last computation", related.related_and_counts, edited, counts)
    _timed("  of which the counts", termcounts.counted, [t for _, t in edited], counts.counts)
    changed = sum(lists[s] != again[s] for s in slugs)
    print(f"  rows compared again: {scored.compared}; lists changed by the edit: {changed}", flush=True)
    clean = _timed("related, the same edit from scratch", related.related_of_texts, edited)
    print(f"  equal to the clean lists: {clean == again}", flush=True)


def _map(related_texts: list[tuple[str, str]]) -> None:
    map_texts = [paper_map.MapText(s, t, f"Area {i % 40}\0") for i, (s, t) in enumerate(related_texts)]
    _, map_counts = _timed("map, clean", paper_map.layout_and_counts, map_texts, None)
    map_edited = list(map_texts)
    middle = map_edited[len(map_edited) // 2]
    map_edited[len(map_edited) // 2] = paper_map.MapText(middle.slug, "Edited title about graph diffusion\n" + middle.text, middle.topic)
    _timed("map, one title edited, counts kept", paper_map.layout_and_counts, map_edited, map_counts)
    kept = termcounts.counted([t.text for t in map_edited], map_counts)
    _timed("  of which TF-IDF + SVD + landmarks", paper_map.layout_of_counts, map_edited, kept)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="11672")
    parser.add_argument("--parts", default="related,map")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, set(args.parts.split(",")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
