"""bench/labels/build_iclr2025_topics.py: the ICLR 2025 topic reference and its scheme map."""

import gzip
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "labels"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


build = _load("build_iclr2025_topics", LABELS / "build_iclr2025_topics.py")

from generator.enrich.taxonomy import load_taxonomy  # noqa: E402
from generator.pages.record import parse_topic_label  # noqa: E402

TAXONOMY = load_taxonomy(ROOT / "generator" / "data" / "taxonomy.yaml")


def test_scheme_map_covers_every_label_of_the_shipped_data_and_maps_into_the_taxonomy():
    scheme = build.read_scheme_map(build.SCHEME_MAP, TAXONOMY)  # raises on a target outside the taxonomy
    used = {source for _, _, source in build.read_raw(build.RAW)}
    assert used and not used - set(scheme)
    assert not set(scheme) - used  # every mapping was reviewed against a label that occurs


def test_shipped_reference_is_in_the_taxonomy_and_written_deterministically(tmp_path):
    data = build.REFERENCE.read_bytes()
    assert data[4:8] == b"\0\0\0\0"  # gzip header mtime 0
    records = [json.loads(line) for line in gzip.decompress(data).decode("utf-8").splitlines()]
    assert records and all(set(r) == {"title", "abstract", "openreview_url", "topic"} for r in records)
    assert all(TAXONOMY.contains(*parse_topic_label(r["topic"])) for r in records)
    assert len({r["openreview_url"] for r in records}) == len(records)
    assert all(r["openreview_url"].startswith(build.FORUM) and r["abstract"] for r in records)
    build.write_gzip_jsonl(tmp_path / "again.jsonl.gz", records)
    assert (tmp_path / "again.jsonl.gz").read_bytes() == data


def test_an_unmapped_label_is_a_located_error(tmp_path):
    raw = tmp_path / "raw.tsv"
    raw.write_text("AAAAAAAAAA\tDeep Learning->Graph Neural Networks\nBBBBBBBBBB\tQuantum Widgets->Everything\n", encoding="utf-8")
    scheme = build.read_scheme_map(build.SCHEME_MAP, TAXONOMY)
    with pytest.raises(build.BuildError, match=rf"^{raw}:2: topic 'Quantum Widgets->Everything' is not in"):
        build.reference_records(build.read_raw(raw), scheme, {}, {}, Counter(), raw)


def test_a_malformed_raw_line_is_a_located_error(tmp_path):
    raw = tmp_path / "raw.tsv"
    raw.write_text("AAAAAAAAAA\tDeep Learning->Graph Neural Networks\nno tab here\n", encoding="utf-8")
    with pytest.raises(build.BuildError, match=rf"^{raw}:2: expected 'forum id TAB topic'"):
        build.read_raw(raw)


def test_papers_are_joined_by_forum_id_or_title_and_copies_dropped():
    scheme = {"Deep Learning->Graph Neural Networks": "Deep Learning · Graph Neural Networks"}
    paper = {"title": "Deep GNNs", "abstract": "An abstract.", "openreview_url": build.FORUM + "AAAAAAAAAA"}
    raw = [(1, "AAAAAAAAAA", "Deep Learning->Graph Neural Networks"), (2, "title:Deep GNNs", "Deep Learning->Graph Neural Networks"),
           (3, "ZZZZZZZZZZ", "Deep Learning->Graph Neural Networks")]
    stats = Counter()
    records = build.reference_records(raw, scheme, {"AAAAAAAAAA": paper}, {"deep gnns": paper}, stats)
    assert records == [{**paper, "topic": "Deep Learning · Graph Neural Networks"}]
    assert stats == Counter({"not in the OpenReview export": 1, "second copy (oral and poster listings)": 1})
