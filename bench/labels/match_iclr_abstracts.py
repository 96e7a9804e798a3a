"""Give held-out labelled papers their full abstract, where ICLR 2025 had the same paper.

Run by hand, deterministic:
    python bench/labels/match_iclr_abstracts.py [--iclr PATH]

Why: the labelled abstracts are cut to 1-2 sentences, while a site's pages carry whole
abstracts. Many ICML 2025 papers were ICLR 2025 submissions first, so the ICLR dataset
(`shared/datasets/iclr2025_submissions.jsonl.gz`) holds their full abstract. Scoring the
model on those texts measures it on the kind of input it meets on a real site.

In:  bench/labels/icml2025_test.jsonl (held out: never read by bench/train_topics.py).
Out: bench/labels/icml2025_test_iclr_abstracts.jsonl: the test papers found in the ICLR data,
     with the ICLR title and abstract and the ICML topic label.

Match: the same normalised title, or (titles often change between venues) at least half of
the labelled abstract's word 5-grams found in one ICLR abstract. A title match wins.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIN_CONTAINMENT = 0.5


def words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9]+", " ", text.casefold()).split()


def shingles(text: str, size: int = 5) -> set[str]:
    tokens = words(text)
    return {" ".join(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iclr", type=Path, default=Path("/work/shared/datasets/iclr2025_submissions.jsonl.gz"))
    args = parser.parse_args()
    with gzip.open(args.iclr, "rt", encoding="utf-8") as stream:
        iclr = [json.loads(line) for line in stream]
    iclr = [r for r in iclr if (r.get("abstract") or "").strip()]
    by_title: dict[str, int] = {}
    by_shingle: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(iclr):
        by_title.setdefault(" ".join(words(row.get("title") or "")), i)
        for shingle in shingles(row["abstract"]):
            by_shingle[shingle].append(i)

    labelled = [json.loads(line) for line in (HERE / "icml2025_test.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    found, how = [], Counter()
    for row in labelled:
        match = by_title.get(" ".join(words(row["title"])))
        if match is not None:
            how["title"] += 1
        else:
            own = shingles(row.get("abstract") or "")
            hits = Counter(i for s in own for i in by_shingle.get(s, ()))
            # Ties go to the lower ICLR row number, so the answer never depends on dict order.
            best = min(hits.items(), key=lambda item: (-item[1], item[0]), default=None)
            if best is None or best[1] < MIN_CONTAINMENT * len(own):
                continue
            match = best[0]
            how["abstract"] += 1
        found.append({"title": iclr[match]["title"], "abstract": iclr[match]["abstract"], "topic": row["topic"], "icml_title": row["title"]})

    out = HERE / "icml2025_test_iclr_abstracts.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in found), encoding="utf-8")
    print(f"{len(found)} of {len(labelled)} test papers found in ICLR 2025 ({how['title']} by title, {how['abstract']} by abstract) -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
