"""Build the labelled ICML 2025 splits from the transcriptions (run by hand, deterministic).

In:  bench/labels/icml2025_sample.jsonl (73 papers, split dev/test, transcribed earlier)
     bench/labels/raw/airas_icml2025.txt (title || abstract start || topic "A->B", transcribed
     from airas-org/airas-papers-db data/icml/2025.json @ d17c3d0e)
Out: bench/labels/icml2025_train.jsonl, icml2025_heldout.jsonl (and the old dev/test files kept).

Split: a paper of the old *test* split stays held out; an old *dev* paper is training data
(it was looked at before); a new paper is held out when sha1(normalised title) mod 100 < 40.
Position-track papers and records whose topic was cut are skipped; duplicates (same
normalised title) are kept once.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELD_OUT_PERCENT = 40


def title_key(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.casefold()).strip()


def held_out(title: str) -> bool:
    return int(hashlib.sha1(title_key(title).encode()).hexdigest(), 16) % 100 < HELD_OUT_PERCENT


def main() -> None:
    rows, seen = [], set()
    for line in (HERE / "icml2025_sample.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        seen.add(title_key(row["title"]))
        rows.append({**row, "split": "test" if row["split"] == "test" else "train", "origin": "sample"})
    for line in (HERE / "raw" / "airas_icml2025.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        title, abstract, topic = (part.strip() for part in line.split("||"))
        if topic == "?" or topic.startswith("Position") or title_key(title) in seen:
            continue
        seen.add(title_key(title))
        topic = " · ".join(p.strip() for p in topic.split("->"))
        rows.append({"title": title, "abstract": abstract, "topic": topic,
                     "split": "test" if held_out(title) else "train", "origin": "airas"})
    for split, name in (("train", "icml2025_train.jsonl"), ("test", "icml2025_heldout.jsonl")):
        with (HERE / name).open("w", encoding="utf-8") as out:
            for row in rows:
                if row["split"] == split:
                    out.write(json.dumps({k: row[k] for k in ("title", "abstract", "topic", "split")}, ensure_ascii=False) + "\n")
        print(split, sum(r["split"] == split for r in rows))


if __name__ == "__main__":
    main()
