"""generator/site/termcounts.py: counts kept from the last build are the counts a clean build makes,
and the TF-IDF made from them is scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from generator.site import termcounts
from generator.site.termcounts import counted, tfidf

WORDS = ["diffusion", "graph", "policy", "Graph", "the", "of", "naïve", "x", "ab", "ab12", "transformer", "ΔT", "neural"]
texts_strategy = st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), max_size=12)


@given(before=texts_strategy, after=texts_strategy)
def test_counts_kept_from_any_earlier_corpus_are_the_counts_made_afresh(before: list[str], after: list[str]) -> None:
    kept = counted(before)
    assert counted(after, kept).same_as(counted(after))


def test_a_text_the_last_build_counted_is_not_read_again(monkeypatch) -> None:  # noqa: ANN001
    texts = ["graph neural networks", "diffusion models for images", "offline policy learning"]
    kept = counted(texts)
    read: list[str] = []
    analyzer = termcounts._analyzer()
    monkeypatch.setattr(termcounts, "_analyzer", lambda: lambda text: read.append(text) or analyzer(text))
    edited = [texts[0], "diffusion models for graphs", texts[2], "a new paper on policy graphs"]
    assert counted(edited, kept).same_as(counted(edited))
    assert read[:2] == ["diffusion models for graphs", "a new paper on policy graphs"]  # the first call only: the edits


@pytest.mark.parametrize("min_df", [1, 2])
@given(texts=texts_strategy)
def test_the_weights_are_scikit_learns(min_df: int, texts: list[str]) -> None:
    counts = counted(texts)
    ours = tfidf(counts, max_df=0.5, min_df=min_df)
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, max_df=0.5, min_df=min_df, dtype=np.float64)
    try:
        theirs = vectorizer.fit_transform(texts)
    except ValueError:  # no term left: scikit-learn refuses, we say None
        assert ours is None
        return
    assert ours is not None and ours.shape == theirs.shape
    kept_terms = [t for t in counts.vocabulary if t in vectorizer.vocabulary_]
    assert kept_terms == sorted(vectorizer.vocabulary_)  # the same columns, in the same order
    assert np.allclose(ours.toarray(), theirs.toarray(), rtol=0, atol=1e-12)


def test_no_text_no_words_no_matrix() -> None:
    assert tfidf(counted([]), 0.5) is None
    assert tfidf(counted(["the of and", "a an"]), 0.5) is None
    assert len(counted(["the of"]).vocabulary) == 0


# Letters, digits, marks and punctuation from several scripts, and the stop words themselves in any case.
ANALYZED = st.lists(st.sampled_from(list("aAbZ019_ -'.,éÉßİıΣσςΔ\u0301\u00a0\u2003\u200bﬁ日本語") + ["The", "THE", "of", "Also"]),
                    max_size=40).map("".join)


@given(text=ANALYZED)
def test_the_words_are_scikit_learns_analyzers(text: str) -> None:
    from sklearn.feature_extraction.text import CountVectorizer

    assert termcounts._analyzer()(text) == CountVectorizer(stop_words="english").build_analyzer()(text)


def test_the_stop_words_are_scikit_learns_whole() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert termcounts.english_stop_words() == ENGLISH_STOP_WORDS


def test_counting_words_imports_no_scikit_learn() -> None:
    import subprocess
    import sys

    script = ("import sys; from generator.site.termcounts import counted; counted(['Graph neural networks', 'the policy']);"
              "assert not [m for m in sys.modules if m.split('.')[0] == 'sklearn'], 'sklearn imported'")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
