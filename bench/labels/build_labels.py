"""Build the labelled ICML 2025 splits from the transcriptions (run by hand, deterministic).

In:  bench/labels/icml2025_sample.jsonl  (73 papers, split dev/test, transcribed first)
     bench/labels/raw/airas_icml2025.txt (116 papers: title || abstract start || topic "A->B")
     bench/labels/raw/airas/part1..6.jsonl (~3,450 records {"id", "title", "topic", "abstract"})
     All three come from airas-org/airas-papers-db, data/icml/2025.json @ d17c3d0e.
Out: bench/labels/icml2025_{train,dev,test}.jsonl (title, abstract, topic "Area · Sub-area"
     or an area alone, split), and icml2025_heldout.jsonl (the 84 papers held out before
     this rebuild; all of them are in the new test split, kept for comparison).

Cleaning of the part files: records are deduplicated by (id, title) (one id is shared by two
different papers); a record whose topic is null is a copy of one with a topic; a paper with
any "Position->..." topic, or a title starting "Position:", is dropped (position track, not
in the taxonomy). When copies of a paper disagree on the topic (9 papers), the first
non-null topic in file order is kept. "A->B" becomes "A · B"; every label is checked against
generator/data/taxonomy.yaml: an unknown area drops the paper, an unknown sub-area of a
known area keeps the paper as area-only (both reported). Papers are then deduplicated by
normalised title across all three sources (the earlier transcriptions win, so the 180 papers
of the old splits keep their text exactly).

Split (sha1 of the normalised title, mod 100): < 20 test, 20..29 dev, else train, except
that a paper of the old held-out split always goes to test and a paper of the old train
split (trained and tuned on before) always goes to train.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from generator.enrich.taxonomy import load_taxonomy  # noqa: E402

TEST_PERCENT = 20
DEV_PERCENT = 10
SPLITS = ("train", "dev", "test")


def title_key(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.casefold()).strip()


def title_hash(title: str) -> int:
    return int(hashlib.sha1(title_key(title).encode()).hexdigest(), 16) % 100


def hash_split(title: str) -> str:
    h = title_hash(title)
    if h < TEST_PERCENT:
        return "test"
    if h < TEST_PERCENT + DEV_PERCENT:
        return "dev"
    return "train"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def old_rows() -> list[dict]:
    """The 180 papers of the earlier splits, with their earlier split (train / test)."""
    held = {title_key(r["title"]) for r in read_jsonl(HERE / "icml2025_heldout.jsonl")}
    rows, seen = [], set()
    for row in read_jsonl(HERE / "icml2025_sample.jsonl"):
        seen.add(title_key(row["title"]))
        rows.append({"title": row["title"], "abstract": row["abstract"], "topic": row["topic"]})
    for line in (HERE / "raw" / "airas_icml2025.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        title, abstract, topic = (part.strip() for part in line.split("||"))
        if topic == "?" or topic.startswith("Position") or title_key(title) in seen:
            continue
        seen.add(title_key(title))
        rows.append({"title": title, "abstract": abstract, "topic": " · ".join(p.strip() for p in topic.split("->"))})
    for row in rows:
        row["old"] = "test" if title_key(row["title"]) in held else "train"
    return rows


def part_rows(taxonomy, stats: Counter, unknown: Counter) -> list[dict]:
    records = []
    for path in sorted((HERE / "raw" / "airas").glob("part*.jsonl")):
        records += read_jsonl(path)
    stats["part records"] = len(records)
    topics: dict[tuple[str, str], list] = {}
    first: dict[tuple[str, str], dict] = {}
    for record in records:
        key = (record["id"], record["title"])
        first.setdefault(key, record)
        topics.setdefault(key, []).append(record.get("topic"))
    stats["distinct (id, title)"] = len(first)
    rows = []
    for key, record in first.items():
        found = [t for t in topics[key] if t]
        if not found:
            stats["dropped: topic null"] += 1
            continue
        if any(t.startswith("Position") for t in found) or record["title"].startswith("Position:"):
            stats["dropped: position track"] += 1
            continue
        if len(set(found)) > 1:
            stats["copies disagree (first topic kept)"] += 1
        parts = [p.strip() for p in found[0].split("->")]
        area, sub = parts[0], (parts[1] if len(parts) > 1 else None)
        if not taxonomy.contains(area):
            unknown[found[0]] += 1
            stats["dropped: unknown area"] += 1
            continue
        if sub is not None and not taxonomy.contains(area, sub):
            unknown[found[0]] += 1
            stats["unknown sub-area (kept area-only)"] += 1
            sub = None
        stats["area-only label" if sub is None else "area and sub-area label"] += 1
        rows.append({"title": record["title"], "abstract": record.get("abstract") or "",
                     "topic": area if sub is None else f"{area} · {sub}"})
    return rows


def main() -> None:
    taxonomy = load_taxonomy(ROOT / "generator" / "data" / "taxonomy.yaml")
    stats: Counter = Counter()
    unknown: Counter = Counter()
    rows = old_rows()
    seen = {title_key(r["title"]) for r in rows}
    for row in part_rows(taxonomy, stats, unknown):
        if title_key(row["title"]) in seen:
            stats["already in the earlier transcriptions"] += 1
            continue
        seen.add(title_key(row["title"]))
        rows.append(row)
    for row in rows:
        row["split"] = row.get("old") or hash_split(row["title"])
    for name, n in stats.items():
        print(f"{name}: {n}")
    print("unknown labels:", dict(unknown) or "none")
    print(f"total {len(rows)} papers")
    for split in SPLITS:
        chosen = [r for r in rows if r["split"] == split]
        with (HERE / f"icml2025_{split}.jsonl").open("w", encoding="utf-8") as out:
            for row in chosen:
                out.write(json.dumps({k: row[k] for k in ("title", "abstract", "topic", "split")}, ensure_ascii=False) + "\n")
        print(f"{split}: {len(chosen)} ({sum(' · ' not in r['topic'] for r in chosen)} area-only)")


if __name__ == "__main__":
    main()
