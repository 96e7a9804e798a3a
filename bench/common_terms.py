"""What a query would fetch, and read, if the abstracts' common terms were shipped as membership only.

At 100k papers one abstracts term ("model", in 89% of the abstracts) is a 190 KB shard: each of its postings
holds the paper's gap, its term frequency and its abstract's length, and the length alone is ~7 bits of
entropy a paper. The ranking (papersite-ranking.js) sorts by how many of the query's words a paper matches
(which membership alone says), then by title and author matches, and only then by the summed lunr scores;
a common term's score is small (its idf is below log 2 past half the papers) but can still reorder papers
that tie on everything else.

The idea measured here: for a term whose abstracts postings exceed N / FRACTION papers, ship only which
papers hold it (gaps, gzipped), bound its score by its largest possible weight (idf x (k1 + 1) x boost),
and read the exact weight, for the papers that bound leaves undecided among the first K results, from their
abstract texts (the snippets' files, fetched for the shown results anyway). For each query this prints how
many such papers there are, and the shard bytes of its common terms against their membership lists.

In: a site's search files (e.g. ``bench/search_grown.py 100000``'s). Queries: the benchmark's two titles,
30 titles of the dataset (a fixed seed) and four topic queries. Figures only; nothing is changed.

    python bench/common_terms.py SITE [--k 10] [--fractions 2,4,8]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import real_records  # noqa: E402
from generator.site.search import ABSTRACTS_SHARD, INDEX_SHARD, _Terms  # noqa: E402
from generator.site.search_index import shard_of  # noqa: E402
from run import PROBE_TITLE  # noqa: E402
from table import NEXT_QUERY  # noqa: E402

K1, B = 1.2, 0.75
TOPICS = ("diffusion models", "large language model reasoning", "graph neural networks",
          "reinforcement learning from human feedback")
TITLE_OR_AUTHOR = 0b11  # the first index's fields: title, authors, keywords


class Index:
    """One index's shards as a site holds them, read on demand."""

    def __init__(self, site: Path, pattern: str) -> None:
        self.path = lambda key: site / pattern.format(key)
        self.manifest = json.loads(gzip.decompress(self.path("shards").read_bytes()))
        self.shards: dict[int, tuple[dict[str, list], int]] = {}

    def entry(self, term: str) -> tuple[list | None, int]:
        """The term's entry and the bytes of the shard holding it."""
        number = shard_of(term, self.manifest["starts"])
        if number not in self.shards:
            data = self.path(number).read_bytes()
            self.shards[number] = ({t[0]: t for t in json.loads(gzip.decompress(data))["terms"]}, len(data))
        terms, size = self.shards[number]
        return terms.get(term), size

    def weights(self, term: str) -> tuple[dict[int, tuple[float, int]], int, float, int]:
        """paper -> (lunr weight summed over fields, field bits); the term's document count, idf, shard bytes."""
        entry, size = self.entry(term)
        if entry is None:
            return {}, 0, 0.0, size
        fields = [_postings(flat) for flat in entry[2:]]
        papers = self.manifest["papers"]
        count = sum(len(f) for f in fields)  # lunr.idf counts a paper once per field holding the term
        idf = math.log(1 + abs((papers - count + 0.5) / (count + 0.5)))
        found: dict[int, tuple[float, int]] = {}
        for slot, postings in enumerate(fields):
            average, boost = self.manifest["averages"][slot], self.manifest["boosts"][slot]
            for paper, (tf, length) in postings.items():
                weight = round(idf * (K1 + 1) * tf / (K1 * (1 - B + B * length / average) + tf) * boost, 3)
                score, bits = found.get(paper, (0.0, 0))
                found[paper] = (score + weight, bits | 1 << slot)
        return found, count, idf, size


def _postings(flat: list[int]) -> dict[int, tuple[int, int]]:
    """A field's flat postings (search_index.py) -> paper: (term frequency, field length)."""
    if flat and flat[0] == 0:
        raise SystemExit("this site's abstracts ship their common terms as papers only (search_index.COMMON_PAPERS): "
                         "measure a site whose postings are whole (made before issue 31 part 8)")
    found, paper, i = {}, -1, 0
    while i < len(flat):
        paper += flat[i]
        if flat[i + 1] < 0:
            found[paper], i = (-flat[i + 1], flat[i + 2]), i + 3
        else:
            found[paper], i = (1, flat[i + 1]), i + 2
    return found


def measure(query: str, meta: Index, abstracts: Index, common_over: int, k: int) -> dict[str, int]:
    """How many papers' texts the first ``k`` results need read, and the common terms' bytes before and after."""
    words = list(dict.fromkeys(_Terms()(query)))
    # paper -> [words hit, words hit in title or authors, score without common terms, their bound, their score]
    docs: dict[int, list] = {}
    figures = {"papers": 0, "read": 0, "shard_bytes": 0, "common_bytes": 0, "membership_bytes": 0}
    for i, term in enumerate(words):
        for index in (meta, abstracts):
            found, count, idf, size = index.weights(term)
            if not found:
                continue
            figures["shard_bytes"] += size
            common = index is abstracts and count > common_over
            if common:
                figures["common_bytes"] += size
                gaps = [b - a for a, b in zip([-1, *sorted(found)], sorted(found))]
                figures["membership_bytes"] += len(zlib.compress(json.dumps(gaps, separators=(",", ":")).encode(), 6))
            for paper, (score, bits) in found.items():
                doc = docs.setdefault(paper, [0, 0, 0.0, 0.0, 0.0])
                doc[0] |= 1 << i
                if index is meta and bits & TITLE_OR_AUTHOR:
                    doc[1] |= 1 << i
                if common:
                    doc[3] += idf * (K1 + 1) * abstracts.manifest["boosts"][0]
                    doc[4] += score
                else:
                    doc[2] += score
    figures["papers"] = len(docs)
    groups: dict[tuple[int, int], list[int]] = {}
    for paper, doc in docs.items():
        groups.setdefault((bin(doc[0]).count("1"), bin(doc[1]).count("1")), []).append(paper)
    wanted = k
    for key in sorted(groups, reverse=True):
        if wanted <= 0:
            break
        members = groups[key]
        if len(members) <= wanted:  # all of them shown: their order is their exact scores'
            figures["read"] += sum(1 for p in members if docs[p][3])
            wanted -= len(members)
            continue
        # the group's first ``wanted``: read papers by their bound until none unread can pass them
        members.sort(key=lambda p: docs[p][2] + docs[p][3], reverse=True)
        exact: list[float] = []
        for paper in members:
            if len(exact) >= wanted and sorted(exact, reverse=True)[wanted - 1] >= docs[paper][2] + docs[paper][3]:
                break
            figures["read"] += 1 if docs[paper][3] else 0
            exact.append(docs[paper][2] + docs[paper][4])
        wanted = 0
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--k", type=int, default=10, help="results whose order must be exact (the header shows 10)")
    parser.add_argument("--fractions", default="2,4,8", help="a term is common past N / FRACTION abstracts")
    args = parser.parse_args(argv)
    meta, abstracts = Index(args.site, INDEX_SHARD), Index(args.site, ABSTRACTS_SHARD)
    titles = [r["title"] for r in random.Random(7).sample(real_records(), 30)]
    queries = [PROBE_TITLE, NEXT_QUERY, *titles, *TOPICS]
    papers = abstracts.manifest["papers"]
    print(f"{papers:,} papers, {len(queries)} queries, first {args.k} results exact")
    for fraction in map(int, args.fractions.split(",")):
        rows = [measure(q, meta, abstracts, papers // fraction, args.k) for q in queries]
        read = sorted(r["read"] for r in rows)
        total = {key: sum(r[key] for r in rows) for key in ("shard_bytes", "common_bytes", "membership_bytes")}
        print(f"common past N/{fraction}: texts read median {read[len(read) // 2]}, 90th percentile "
              f"{read[int(0.9 * len(read))]}, most {read[-1]}; shard KB {total['shard_bytes'] / 1000:,.0f}, of them "
              f"common terms' {total['common_bytes'] / 1000:,.0f} -> membership {total['membership_bytes'] / 1000:,.0f}")
        for query, row in zip([*queries[:2], *queries[-len(TOPICS):]], [*rows[:2], *rows[-len(TOPICS):]]):
            print(f"  {query[:60]!r}: {row['papers']:,} papers match; texts read {row['read']}; shard KB "
                  f"{row['shard_bytes'] / 1000:,.0f}, common {row['common_bytes'] / 1000:,.0f} -> {row['membership_bytes'] / 1000:,.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
