"""bench/train_topics.py: the training data it uses and the model it writes."""

import gzip
import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


train_topics = _load("train_topics", ROOT / "bench" / "train_topics.py")

from generator.ingest.listing import read_listing  # noqa: E402
from generator.enrich.taxonomy import load_taxonomy  # noqa: E402

TRIPLES = "论文检索\n\n{topic}\n\nAda Lovelace, Alan Turing\n\n{abstract}\n"
ABSTRACT = (
    "We study message passing graph neural networks for molecular property prediction. Oversmoothing limits deep "
    "models, so we propose a residual normalisation that keeps node features apart across many layers. On twelve "
    "benchmarks the method improves accuracy by four points and trains twice as fast as the strongest baselines, "
    "and a theoretical analysis explains why the features stay distinct as the depth grows without bound."
)


def _title_key(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.casefold()).strip()


def test_a_listed_paper_is_found_under_another_title_or_with_a_cut_abstract(tmp_path):
    (tmp_path / "000_listing.txt").write_text(TRIPLES.format(topic="Deep Learning · Graph Neural Networks", abstract=ABSTRACT), encoding="utf-8")
    cut = " ".join(ABSTRACT.split(". ")[:2]) + "."
    papers = [
        ("Residual Normalisation Against Oversmoothing", cut),  # retitled, abstract cut to two sentences
        ("Deep GNNs without oversmoothing", ABSTRACT),  # retitled, same abstract
        ("Convergence of SGD", "We prove convergence rates of stochastic gradient descent for nonconvex objectives with heavy-tailed noise."),
    ]
    assert train_topics.bundled_papers(papers, tmp_path) == {0, 1}


def test_no_paper_of_the_bundled_listings_is_trained_on():
    taxonomy = load_taxonomy(ROOT / "generator" / "data" / "taxonomy.yaml")
    rows, left_out = train_topics.training_rows(taxonomy.labels(), list(taxonomy.area_names))
    assert left_out > 0  # the labelled files do hold some: the check is not vacuous
    # An independent check, by exact normalised title against every bundled listing entry.
    listed = {_title_key(e.title) for p in sorted((ROOT / "corpus").glob("*.txt")) for e in read_listing(p).entries if e.title}
    assert not [title for title, _, _, _ in rows if _title_key(title) in listed]
    # The ICLR 2025 training files themselves hold none either.
    for name in ("iclr2025_train.jsonl", "iclr2025_dev.jsonl"):
        lines = (ROOT / "bench" / "labels" / name).read_text(encoding="utf-8").splitlines()
        papers = [(row["title"], row["abstract"]) for row in map(json.loads, lines)]
        assert train_topics.bundled_papers(papers) == set()


def _small_training_set(tmp_path: Path) -> Path:
    """The first rows of each training file and a few unlabelled texts: a model in seconds."""
    labels = tmp_path / "labels"
    labels.mkdir()
    for name in train_topics.TRAINING_FILES:
        lines = (ROOT / "bench" / "labels" / name).read_text(encoding="utf-8").splitlines()
        (labels / name).write_text("\n".join(lines[:120]) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "unlabelled.jsonl.gz", "wt", encoding="utf-8") as stream:
        for line in (ROOT / "bench" / "labels" / "icml2025_test.jsonl").read_text(encoding="utf-8").splitlines()[:200]:
            row = json.loads(line)
            stream.write(json.dumps({"title": row["title"], "abstract": row["abstract"]}) + "\n")
    return labels


def test_training_twice_gives_identical_arrays(tmp_path):
    labels = _small_training_set(tmp_path)
    outputs = []
    for run in ("a", "b"):
        out = tmp_path / f"{run}.npz"
        assert train_topics.main(["--labels-dir", str(labels), "--iclr", str(tmp_path / "unlabelled.jsonl.gz"), "--out", str(out)]) == 0
        outputs.append(out)
    with np.load(outputs[0]) as first, np.load(outputs[1]) as second:
        assert sorted(first.files) == sorted(second.files)
        assert "area_calibration" in first.files and "subarea_calibration" in first.files
        for name in first.files:
            assert np.array_equal(first[name], second[name]), name
    assert outputs[0].read_bytes() == outputs[1].read_bytes()


def test_calibration_curve_is_monotone_and_bounded():
    confidence = np.array([0.1, 0.2, 0.3, 0.5, 0.6, 0.9, 0.95])
    right = np.array([0, 1, 0, 0, 1, 1, 1])
    xs, ys = train_topics.isotonic_curve(confidence, right)
    assert list(xs) == sorted(xs) and list(ys) == sorted(ys)
    assert 0.0 <= min(ys) and max(ys) <= 1.0
