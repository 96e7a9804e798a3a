"""Build the keyword reference sets from public OpenReview metadata (deterministic).

In: ``iclr2018.json`` of the public GitHub repository papercopilot/paperlists (its ``keywords``
field is what the authors typed into OpenReview, ``;``-separated), e.g. from a local clone:

    git -C paperlists show 33f9884e652f05a768d2f216534d7f1e446a0cf7:iclr/iclr2018.json > /tmp/iclr2018.json
    python bench/labels/build_keyword_labels.py /tmp/iclr2018.json

Out: ``bench/labels/openreview_keywords_iclr2018.jsonl``, one row per paper with an abstract and
keywords: ``{"id", "title", "abstract", "keywords", "split"}``. Split: sha1 of the OpenReview id
mod 2: 0 dev (tune on), 1 test (held out, reported).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "openreview_keywords_iclr2018.jsonl"


def main(source: str) -> int:
    rows = json.loads(Path(source).read_text(encoding="utf-8"))
    kept = []
    for row in rows:
        keywords = [k.strip() for k in (row.get("keywords") or "").split(";") if k.strip()]
        abstract = " ".join((row.get("abstract") or "").split())
        if not keywords or not abstract or not row.get("title"):
            continue
        split = "dev" if int(hashlib.sha1(row["id"].encode()).hexdigest(), 16) % 2 == 0 else "test"
        kept.append({"id": row["id"], "title": " ".join(row["title"].split()), "abstract": abstract,
                     "keywords": keywords, "split": split})
    kept.sort(key=lambda r: r["id"])
    with OUT.open("w", encoding="utf-8") as handle:
        for row in kept:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(kept)} papers ({sum(r['split'] == 'dev' for r in kept)} dev)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
