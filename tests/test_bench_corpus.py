"""bench/corpus.py: the grown corpus is deterministic, realistic in shape, and the importer keeps its papers apart."""

import importlib.util
import json
import statistics
import sys
from pathlib import Path

import pytest

from generator.ingest.listing import read_listing
from generator.ingest.merge import merge_duplicates
from generator.text import title_key

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT.parent / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz"

spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
corpus = importlib.util.module_from_spec(spec)
sys.modules["bench_corpus"] = corpus
spec.loader.exec_module(corpus)

pytestmark = pytest.mark.skipif(not DATASET.is_file(), reason="the shared ICLR dataset is not here")

# A slice of the real papers keeps the test quick; the generator draws from whatever it is given.
SEEDS = 1500
GROWN = 3000


@pytest.fixture(scope="module")
def real():
    return corpus.real_records(DATASET)[:SEEDS]


@pytest.fixture(scope="module")
def grown(real):
    return corpus.grow(real, SEEDS + GROWN)


def test_real_papers_come_first_unchanged(real, grown):
    assert grown[:SEEDS] == real


def test_same_seed_same_corpus_and_a_smaller_one_is_its_prefix(real, grown):
    assert corpus.grow(real, SEEDS + GROWN) == grown
    assert corpus.grow(real, SEEDS + 100) == grown[:SEEDS + 100]
    assert corpus.grow(real, SEEDS + GROWN, seed=7) != grown


def test_every_paper_has_its_own_title_and_id(grown):
    assert len({title_key(p["title"]) for p in grown}) == len(grown)
    assert len({p["openreview_url"] for p in grown}) == len(grown)


def test_synthetic_papers_are_made_of_real_words_in_new_combinations(real, grown):
    real_sentences = {s for r in real for s in corpus._sentences(r["abstract"])}
    real_names = {a for r in real for a in r["authors"] or []}
    real_titles = {r["title"] for r in real}
    for paper in grown[SEEDS:]:
        sentences = corpus._sentences(paper["abstract"])
        assert len(sentences) >= 2 and set(sentences) <= real_sentences
        assert paper["authors"] and set(paper["authors"]) <= real_names
        assert paper["title"] not in real_titles
    assert {p["decision"] for p in grown[SEEDS:]} == {r["decision"] for r in real}


def test_author_lists_and_abstracts_have_the_real_shape(real, grown):
    synthetic = grown[SEEDS:]
    for measure in (lambda p: len(p["authors"] or []), lambda p: len(corpus._sentences(p["abstract"]))):
        real_median = statistics.median(map(measure, real))
        assert abs(statistics.median(map(measure, synthetic)) - real_median) <= 1
    # co-authors meet again: many synthetic pairs of names were a real team's pair
    real_pairs = {frozenset((a, b)) for r in real for a in r["authors"] or [] for b in r["authors"] or [] if a != b}
    with_real_pair = sum(1 for p in synthetic if any(frozenset((a, b)) in real_pairs
                                                     for a in p["authors"] for b in p["authors"] if a != b))
    assert with_real_pair > len(synthetic) / 3


def test_the_importer_merges_no_two_grown_papers(grown, tmp_path):
    listing = tmp_path / "grown.jsonl"
    listing.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in grown), encoding="utf-8")
    entries = read_listing(listing).entries
    assert len(entries) == len(grown)
    assert len(merge_duplicates(entries)) == len(grown)
