"""generator/site/related.py: the most similar papers by content, deterministic whatever the input order."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.pages.record import PaperRecord
from generator.site import related
from generator.site.related import related_papers, related_texts


def _paper(slug: str, title: str, abstract: str = "", keywords=()) -> PaperRecord:
    return PaperRecord(id=slug, slug=slug, title=title, abstract=abstract, keywords=list(keywords))


PAPERS = [
    _paper("diffusion-a", "Diffusion models for images", "Score matching diffusion sampling of images.", ["diffusion models"]),
    _paper("diffusion-b", "Faster diffusion sampling", "A learned solver speeds up diffusion sampling.", ["diffusion models"]),
    _paper("graphs-a", "Graph neural networks at scale", "Message passing over large graphs.", ["graph neural networks"]),
    _paper("graphs-b", "Oversmoothing in graph neural networks", "Message passing graphs oversmooth.", ["graph neural networks"]),
    _paper("rl", "Offline reinforcement learning", "A policy from a fixed dataset.", ["reinforcement learning"]),
]


def test_the_most_similar_paper_comes_first_and_a_paper_is_never_its_own_relative():
    found = related_papers(PAPERS, k=2)
    assert found["diffusion-a"][0] == "diffusion-b" and found["graphs-b"][0] == "graphs-a"
    assert all(slug not in found[slug] and len(found[slug]) <= 2 for slug in found)
    assert set(found) == {p.slug for p in PAPERS}


def test_the_answer_does_not_depend_on_the_input_order():
    shuffled = PAPERS[:]
    random.Random(7).shuffle(shuffled)
    assert related_papers(shuffled) == related_papers(PAPERS)


def test_ties_are_broken_by_slug():
    twins = [_paper(s, "Quantum annealing schedules", "Annealing schedules.") for s in ("c-twin", "a-twin", "b-twin")]
    found = related_papers(PAPERS + twins, k=2)  # (a term in more than half the papers says nothing: max_df)
    assert [found[s] for s in ("a-twin", "b-twin", "c-twin")] == [["b-twin", "c-twin"], ["a-twin", "c-twin"], ["a-twin", "b-twin"]]


def test_fewer_than_two_papers_or_text_of_stop_words_only_give_empty_lists():
    assert related_papers([]) == {} and related_papers(PAPERS[:1]) == {"diffusion-a": []}
    empty = [_paper("x", "the of and"), _paper("y", "a an the")]
    assert related_papers(empty) == {"x": [], "y": []}
    unrelated = [_paper("x", "alpha beta"), _paper("y", "gamma delta")]
    assert related_papers(unrelated) == {"x": [], "y": []}  # nothing shared: no relative at all


def test_pruned_postings_give_the_same_top_answer_on_a_clear_corpus(monkeypatch):
    full = related_papers(PAPERS, k=1)
    monkeypatch.setattr(related, "POSTINGS", 2)  # every term keeps only its two strongest papers
    assert related_papers(PAPERS, k=1) == full


def test_the_texts_change_exactly_when_what_is_read_changes():
    base = related_texts(PAPERS)
    assert related_texts(list(reversed(PAPERS))) == base
    assert related_texts([PAPERS[0].replace(decision="Accept (Oral)"), *PAPERS[1:]]) == base  # not read
    for change in ({"title": "New title"}, {"abstract": "New abstract"}, {"keywords": ["new"]}):
        assert related_texts([PAPERS[0].replace(**change), *PAPERS[1:]]) != base, change


@pytest.mark.parametrize("k", [1, 3])
def test_at_most_k_relatives(k):
    assert all(len(v) <= k for v in related_papers(PAPERS, k=k).values())


# ---------------------------------------------------------------- an edit gives a clean build's lists (issue 31)

_WORDS = "diffusion graph policy reward image score matching message passing solver sampling agent".split()


@pytest.mark.parametrize(("postings", "k", "long_row"), [(3, 2, 2), (4, 1, 0), (related.POSTINGS, 5, related.LONG_ROW)])
@given(
    texts=st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6), min_size=2, max_size=16),
    edits=st.lists(st.tuples(st.integers(0, 15), st.lists(st.sampled_from(_WORDS), max_size=6)), max_size=5),
)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)  # the same setting for every example
def test_lists_from_the_last_computation_are_a_clean_computations(monkeypatch, postings, k, long_row, texts, edits) -> None:  # noqa: ANN001
    """Each edit starts from what the one before kept (its counts, postings and scored lists)."""
    monkeypatch.setattr(related, "POSTINGS", postings)  # small: the pruned postings are exercised too
    monkeypatch.setattr(related, "LONG_ROW", long_row)  # small: rows merged one by one, and all at once
    current = [(f"p{i:02d}", " ".join(words)) for i, words in enumerate(texts)]
    _, kept = related.related_and_counts(current, None, k)
    for row, words in edits:
        if row < len(current):
            current[row] = (current[row][0], " ".join(words))
        found, kept = related.related_and_counts(current, kept, k)
        assert found == related.related_of_texts(current, k)
        assert kept.counts.same_as(related.related_and_counts(current, None, k)[1].counts)


def test_an_edit_compares_again_only_the_rows_it_can_change() -> None:
    papers = [_paper(f"p{i:02d}", f"{a} {b}", keywords=[]) for i, (a, b) in enumerate(
        (a, b) for a in ("graph", "policy", "image", "protein") for b in ("sampling", "solver", "agent", "reward", "score"))]
    _, kept = related.related_and_counts(related_texts(papers), None)
    assert kept.compared == len(papers)
    same, kept = related.related_and_counts(related_texts(papers), kept)
    assert kept.compared == 0 and same == related_papers(papers)
    papers[3] = papers[3].replace(title="protein agent")  # other words: only some rows move
    found, kept = related.related_and_counts(related_texts(papers), kept)
    assert 0 < kept.compared < len(papers) and found == related_papers(papers)


_POSTINGS = st.dictionaries(st.sampled_from("abcdef"), st.dictionaries(st.integers(0, 7), st.sampled_from([0.25, 0.5, 1.0]), max_size=5),
                            max_size=6)  # term -> {paper: weight}


@given(old=_POSTINGS, new=_POSTINGS)
def test_the_moved_papers_are_those_whose_postings_differ(old, new) -> None:
    """``_moved_postings`` compares terms of equal length entry by entry and sorts only the others: it
    names exactly the papers with a (term, weight) posting in one computation and not the other."""
    import numpy as np
    from scipy import sparse

    def csc(postings):  # term -> {paper: weight} as Scored keeps it: CSC over the sorted terms, papers in order
        terms = tuple(sorted(postings))
        entries = [(paper, j, weight) for j, term in enumerate(terms) for paper, weight in postings[term].items()]
        rows, cols, data = (list(part) for part in zip(*entries)) if entries else ([], [], [])
        matrix = sparse.csc_matrix((np.array(data, dtype=float), (rows, cols)), shape=(8, len(terms)))
        matrix.sort_indices()
        return terms, matrix

    old_terms, old_matrix = csc(old)
    new_terms, new_matrix = csc(new)
    last = related.Scored((), 1, None, old_terms, old_matrix, None, None, None, 0)
    pairs = lambda postings: {(term, paper, weight) for term, papers in postings.items() for paper, weight in papers.items()}  # noqa: E731
    expected = sorted({paper for _, paper, _ in pairs(old) ^ pairs(new)})
    assert related._moved_postings(new_matrix, new_terms, last).tolist() == expected


@pytest.mark.parametrize("long_row", [0, 100])
def test_a_merged_row_never_lists_its_own_paper_nor_a_zero_score(monkeypatch, long_row) -> None:
    """``_contenders``, row by row (long rows) or all at once (short ones): as ``_top``."""
    import numpy as np

    monkeypatch.setattr(related, "LONG_ROW", long_row)
    indptr = np.array([0, 3, 5])
    rows = np.array([2, 4])
    columns = np.array([1, 2, 3, 4, 0])
    values = np.array([0.5, 0.9, 0.0, 0.7, 0.3])
    row, col, val = related._contenders(indptr, rows, np.arange(5), values, columns, 5)
    assert sorted(zip(row.tolist(), col.tolist(), val.tolist())) == [(2, 1, 0.5), (4, 0, 0.3)]
