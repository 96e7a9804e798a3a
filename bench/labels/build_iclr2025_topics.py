"""Build the ICLR 2025 topic reference and labelled splits (run by hand, deterministic).

    python bench/labels/build_iclr2025_topics.py [--iclr PATH]

In:  bench/labels/raw/iclr2025_virtual_topics.tsv: ``forum id TAB topic`` per paper, in the
     order of airas-org/airas-papers-db data/iclr/2025.json (the ICLR 2025 virtual site's
     labels; ``-`` where the site gives none; ``title:<title>`` as key where the record has
     no forum URL). Transcribed from that file; origin in corpus/references/README.md.
     bench/labels/iclr2025_scheme_map.yaml: every source label -> our taxonomy.
     The ICLR 2025 OpenReview export (--iclr): full title and abstract of each forum id.
Out: corpus/references/iclr2025_topics.jsonl.gz: one record per labelled paper
     {title, abstract, openreview_url, topic "Area · Sub-area" or "Area"}, gzip with mtime 0.
     bench/labels/iclr2025_{train,dev,test}.jsonl: the same papers as labelled rows
     {title, abstract, topic, split}; train and dev never hold a paper of the bundled
     listings (corpus/*.txt), see ``bundled_papers`` in bench/train_topics.py.

Rows without a label, and rows whose paper is not in the export (blog-post and journal
tracks have no OpenReview forum of the conference), are dropped and counted. A label the
scheme map lacks, or one that maps outside the taxonomy, stops the build with path:line.
Split: sha1 of the normalised title mod 100, as build_labels.py: < 20 test, 20..29 dev, else
train.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))  # train_topics
sys.path.insert(0, str(HERE))  # build_labels

from build_labels import hash_split, title_key  # noqa: E402
from train_topics import bundled_papers  # noqa: E402

from generator.enrich.taxonomy import load_taxonomy  # noqa: E402
from generator.pages.record import parse_topic_label  # noqa: E402

LABEL_SEPARATOR = " · "  # how the labels files write area and sub-area (a listing's topic line)

RAW = HERE / "raw" / "iclr2025_virtual_topics.tsv"
SCHEME_MAP = HERE / "iclr2025_scheme_map.yaml"
REFERENCE = ROOT / "corpus" / "references" / "iclr2025_topics.jsonl.gz"
FORUM = "https://openreview.net/forum?id="
NO_TOPIC = "-"


class BuildError(Exception):
    """``path:line: message``, printed instead of a traceback."""


def read_scheme_map(path: Path, taxonomy) -> dict[str, str]:
    """Source label -> our label, each target checked against the taxonomy."""
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise BuildError(f"{path}:1: expected a mapping of source label to 'Area · Sub-area' or 'Area'")
    mapped = {}
    for source, target in data.items():
        line = next((n for n, row in enumerate(text.splitlines(), 1) if row.startswith(f'"{source}"')), 1)
        area, sub = parse_topic_label(str(target))
        if not taxonomy.contains(area, sub):
            raise BuildError(f"{path}:{line}: '{target}' is not in the taxonomy")
        mapped[str(source)] = area if sub is None else f"{area}{LABEL_SEPARATOR}{sub}"
    return mapped


def read_raw(path: Path) -> list[tuple[int, str, str]]:
    """(line, key, source topic) per labelled row, in file order."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise BuildError(f"{path}:{number}: expected 'forum id TAB topic'")
        if parts[1] != NO_TOPIC:
            rows.append((number, parts[0], parts[1]))
    return rows


def read_export(path: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """Submissions by forum id and by normalised title."""
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        records = [json.loads(line) for line in stream]
    by_id = {r["openreview_url"].removeprefix(FORUM): r for r in records if r.get("openreview_url", "").startswith(FORUM)}
    by_title: dict[str, dict] = {}
    for record in records:
        by_title.setdefault(title_key(record.get("title") or ""), record)
    return by_id, by_title


def reference_records(raw, scheme, by_id, by_title, stats: Counter, raw_path: Path = RAW) -> list[dict]:
    """One record per labelled paper found in the export, in the order of the raw file."""
    records, seen = [], set()
    for number, key, source in raw:
        if source not in scheme:
            raise BuildError(f"{raw_path}:{number}: topic '{source}' is not in {SCHEME_MAP.name}; add its mapping there")
        paper = by_title.get(title_key(key[6:])) if key.startswith("title:") else by_id.get(key)
        if paper is None:
            stats["not in the OpenReview export"] += 1
            continue
        if paper["openreview_url"] in seen:
            stats["second copy (oral and poster listings)"] += 1
            continue
        seen.add(paper["openreview_url"])
        records.append(
            {"title": paper["title"], "abstract": paper["abstract"], "openreview_url": paper["openreview_url"], "topic": scheme[source]}
        )
    return records


def write_gzip_jsonl(path: Path, rows: list[dict]) -> None:
    """JSON Lines, gzip with mtime 0 and no file name: the same rows give the same bytes."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as stream:
        for row in rows:
            stream.write((json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iclr", type=Path, default=Path("/work/shared/datasets/iclr2025_submissions.jsonl.gz"))
    args = parser.parse_args()
    taxonomy = load_taxonomy(ROOT / "generator" / "data" / "taxonomy.yaml")
    stats: Counter = Counter()
    try:
        scheme = read_scheme_map(SCHEME_MAP, taxonomy)
        raw = read_raw(RAW)
        records = reference_records(raw, scheme, *read_export(args.iclr), stats)
    except BuildError as error:
        print(error, file=sys.stderr)
        return 1
    write_gzip_jsonl(REFERENCE, records)

    rows = [{"title": r["title"], "abstract": r["abstract"], "topic": r["topic"], "split": hash_split(r["title"])} for r in records]
    bundled = bundled_papers([(r["title"], r["abstract"]) for r in rows])
    for split in ("train", "dev", "test"):
        # The test split is never trained on, so it keeps the bundled papers it draws.
        kept = [r for i, r in enumerate(rows) if r["split"] == split and (split == "test" or i not in bundled)]
        if split != "test":
            stats[f"{split}: bundled papers left out"] = sum(1 for i in bundled if rows[i]["split"] == split)
        with open(HERE / f"iclr2025_{split}.jsonl", "w", encoding="utf-8") as stream:
            for row in kept:
                stream.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{split}: {len(kept)} papers", file=sys.stderr)
    area_only = sum(LABEL_SEPARATOR not in r["topic"] for r in records)
    print(f"{REFERENCE.relative_to(ROOT)}: {len(records)} papers ({area_only} area-only) of {len(raw)} labelled rows; "
          f"{len(bundled)} are papers of the bundled listings", file=sys.stderr)
    for what, n in sorted(stats.items()):
        print(f"  {what}: {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
