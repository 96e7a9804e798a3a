"""generator/ingest/merge.py: merges and non-merges, with evidence, independent of input order."""

from __future__ import annotations

from generator.pages.record import Topic

import importlib.util
import random
from pathlib import Path

import pytest

from generator.ingest.listing import ListingEntry, read_listing
from generator.ingest.merge import SimilarityIndex, merge_duplicates
from generator.text import normalize_text

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
DATASET = ROOT.parent / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz"
BASE = (
    "We propose a method for aligning sparse graph embeddings across heterogeneous domains using optimal transport. "
    "Our approach learns a coupling between node sets and regularizes it with spectral information from both graphs. "
    "Experiments on citation and protein networks show consistent gains over strong baselines in accuracy and speed."
)


def entry(file, n, fmt="abstracts", **fields):
    return ListingEntry(file=file, entry=n, line=n, format=fmt, **fields)


def test_typographic_variants_merge_and_fields_come_from_the_best_source():
    curly = BASE.replace("We propose", "We propose \u201cGOT\u201d \u2014").replace("'", "\u2019")
    plain = BASE.replace("We propose", 'We propose "GOT" -')
    entries = [
        entry("a.txt", 1, abstract=curly),
        entry("b.txt", 4, "numbered", title="Graph Optimal Transport", abstract=plain),
        entry("c.txt", 2, "triples", authors=["Ada"], topic=Topic("Theory", None), abstract=plain + " Code: https://x.y/z"),
    ]
    (paper,) = merge_duplicates(entries)
    assert paper.title == "Graph Optimal Transport"
    assert paper.authors == ["Ada"] and paper.topic == Topic("Theory", None)
    assert paper.abstract.endswith("https://x.y/z")  # longest real abstract
    assert [s.label() for s in paper.sources] == ["a.txt #1", "b.txt #4", "c.txt #2"]
    assert len(paper.evidence) == 2 and all(e.score > 0.5 for e in paper.evidence)


def test_same_title_with_placeholder_merges_in_one_file():
    entries = [
        entry("n.txt", 1, "numbered", title="Same Title", abstract=BASE),
        entry("n.txt", 2, "numbered", title="Same  title", abstract=None),
    ]
    (paper,) = merge_duplicates(entries)
    assert paper.abstract == BASE and paper.evidence[0].kind == "title"


def test_placeholders_and_same_authors_are_no_evidence():
    entries = [
        entry("n.txt", 1, "numbered", title="Paper One", abstract=None),
        entry("n.txt", 2, "numbered", title="Paper Two", abstract=None),
        entry("t.txt", 1, "triples", authors=["A", "B"], topic=Topic("Theory", None), abstract=BASE),
        entry(
            "t.txt", 2, "triples", authors=["A", "B"], topic=Topic("Theory", None),
            abstract="We study regret bounds for brokerage between traders with contextual information and prove "
            "matching lower bounds for every feedback model considered in the online learning literature today.",
        ),
    ]
    assert len(merge_duplicates(entries)) == 4


def test_different_titles_with_a_shared_boilerplate_abstract_stay_apart():
    entries = [
        entry("j", 1, "json", title="One", abstract=BASE, links={"openreview": "https://o/1"}),
        entry("j", 2, "json", title="Two", abstract=BASE, links={"openreview": "https://o/2"}),
        entry("j", 3, "json", title="Three", abstract="We have withdrawn our paper."),
        entry("j", 4, "json", title="Four", abstract="We have withdrawn our paper."),
    ]
    assert len(merge_duplicates(entries)) == 4


def test_order_of_input_does_not_matter():
    entries = [e for p in sorted(CORPUS.glob("*.txt")) for e in read_listing(p).entries]
    expected = merge_duplicates(entries)
    shuffled = list(entries)
    random.Random(7).shuffle(shuffled)
    again = merge_duplicates(shuffled)
    assert [p.sources for p in again] == [p.sources for p in expected]
    assert [p.evidence for p in again] == [p.evidence for p in expected]


def test_bundled_corpus_merges_exactly_the_known_duplicates():
    entries = [e for p in sorted(CORPUS.glob("*.txt")) for e in read_listing(p).entries]
    papers = merge_duplicates(entries)
    assert len(papers) == 635
    merged = sorted(tuple(f"{s.file[:3]}#{s.entry}" for s in p.sources) for p in papers if len(p.entries) > 1)
    assert merged == sorted(
        [
            ("000#4", "002#300"), ("000#7", "002#462"), ("001#1", "002#584"), ("001#7", "002#456"),
            ("001#10", "002#371"), ("001#17", "002#475"), ("002#80", "003#8"),
            ("002#264", "002#265"), ("002#429", "002#430"),
            # the same paper, its abstract rewritten, found by its opening sentence
            ("002#261", "003#20"),
        ]
    )
    brokerage = next(p for p in papers if any(s.file.startswith("003") and s.entry == 20 for s in p.sources))
    # "A Contextual Online Learning Theory of Brokerage", not the same authors'
    # "Trading-Volume Maximization" on the same subject (002 #429)
    assert brokerage.title == "A Contextual Online Learning Theory of Brokerage"
    assert [e.kind for e in brokerage.evidence] == ["opening"]


OPENING = "We study how a broker should set prices between two traders whose private valuations are unknown to it."


def test_rewritten_abstract_with_the_same_long_opening_merges():
    first = OPENING + " " + BASE
    rewritten = OPENING.replace(" ", "", 3) + "In this version the coupling is regularized differently. " + BASE.split(". ")[1]
    (paper,) = merge_duplicates([
        entry("a.txt", 1, "numbered", title="Brokerage", abstract=first),
        entry("b.txt", 2, "triples", authors=["Ada"], abstract=rewritten),
    ])
    assert paper.title == "Brokerage" and paper.evidence[0].kind == "opening"


def test_a_shared_stock_opening_is_no_evidence():
    stock = "Large language models have shown remarkable abilities."
    one = stock + " We prune attention heads of transformers by their gradient saliency on held-out calibration data."
    two = stock + " We align reward models to human preferences with a pairwise ranking objective over sampled answers."
    assert len(merge_duplicates([entry("a.txt", 1, abstract=one), entry("b.txt", 1, abstract=two)])) == 2


def test_same_opening_but_unrelated_rest_stays_apart():
    one = OPENING + " " + BASE
    two = OPENING + " We instead measure the welfare of a market maker under adversarial order flows and new fee rules."
    two += " Lower bounds show that no algorithm beats logarithmic regret when traders act strategically over rounds."
    assert len(merge_duplicates([entry("a.txt", 1, abstract=one), entry("b.txt", 1, abstract=two)])) == 2


def test_normalize_text_unifies_typography():
    assert normalize_text("\u201cA\u201d \u2014 it\u2019s\u00a0 B") == normalize_text('"a" - it\'s b')


# --------------------------------------------------------------------------- the self-join


def _pairs_from_candidates(index, docs):
    """The merge stage's pairs as the per-document lookup gives them (each pair met from both ends)."""
    for doc in docs:
        index.insert(doc)
    return [(i, j) for j in range(len(docs)) for i in index.candidates(docs[j]) if i < j]


def _with_duplicates(papers, seed=5):
    """The papers, and near-copies of some: a dropped sentence, a new title, no title, a shared title
    over another abstract, and one long opening sentence shared by more papers than the opening table keeps."""
    rng = random.Random(seed)
    more = []
    for paper in rng.sample([p for p in papers if p.get("title")], 60):
        sentences = (paper.get("abstract") or "").split(". ")
        more.append({"title": paper["title"], "abstract": ". ".join(sentences[1:]) or None})
        more.append({"title": None, "abstract": paper.get("abstract")})
        more.append({"title": paper["title"] + " revisited", "abstract": ". ".join(sentences[:-1]) or None})
        more.append({"title": paper["title"], "abstract": rng.choice(papers).get("abstract")})
    for n in range(45):
        more.append({"title": None, "abstract": OPENING + " " + (rng.choice(papers).get("abstract") or "")})
    return papers + more


def _assert_same_pairs(papers):
    index = SimilarityIndex()
    docs = [index.make_doc(p.get("title"), p.get("abstract"), p.get("openreview_url")) for p in _with_duplicates(papers)]
    pairs = list(SimilarityIndex.candidate_pairs(docs))
    assert pairs == _pairs_from_candidates(index, docs)
    assert len(pairs) > len(papers) // 10  # titles, openings and shared phrases all gave pairs


def test_the_self_join_pairs_what_the_lookup_pairs_on_the_bundled_corpus():
    entries = [e for p in sorted(CORPUS.glob("*.txt")) for e in read_listing(p).entries]
    _assert_same_pairs([{"title": e.title, "abstract": e.abstract} for e in entries])


def _bench_corpus():
    spec = importlib.util.spec_from_file_location("bench_corpus_for_merge", ROOT / "bench" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not DATASET.is_file(), reason="the shared ICLR dataset is not here")
def test_the_self_join_pairs_what_the_lookup_pairs_on_real_and_grown_papers():
    corpus = _bench_corpus()
    real = corpus.real_records(DATASET)[:1500]
    _assert_same_pairs(real)
    # grown papers share real sentences: many more pairs per paper than the real ones give
    _assert_same_pairs(corpus.grow(real, 4000))
