"""generator/enrich/phrases.py: the terms of one paper, and which mined phrases the corpus keeps."""

from __future__ import annotations

import pytest

from generator.enrich.phrases import (
    LARGE_CORPUS, MAX_PHRASE_TOKENS, broad_terms, build_index, find_terms, is_junk, is_subject_word,
)
from generator.enrich.vocabulary import keyword_key, parse_vocabulary

VOCABULARY = parse_vocabulary({"graph neural networks": ["GNN"], "attention mechanism": ["attention"]})


@pytest.mark.parametrize("phrase", [
    "accurately predicting", "adding conditional control", "additional computational overhead",
    "appropriate choice", "proposed method", "model compression", "fine tuned", "", "a b c d e f g",
    "world model", "graph network",  # a generic head ("model", "network") needs a curated term
])
def test_phrases_no_reader_would_browse_by_are_junk(phrase):
    assert is_junk(keyword_key(phrase).split())


@pytest.mark.parametrize("phrase", ["action space", "latent diffusion", "federated learning", "optimal transport", "neural tangent kernel"])
def test_technical_noun_phrases_are_not(phrase):
    assert not is_junk(keyword_key(phrase).split())


def test_length_limits_and_single_words():
    assert is_junk(["graph"] * (MAX_PHRASE_TOKENS + 1)) and not is_junk(["graph"] * 2)
    assert is_junk(["model"]) and not is_junk(["diffusion"])  # a head alone is no keyword; a subject word is


def test_subject_words_are_what_a_title_word_may_stand_for():
    assert is_subject_word("diffusion") and is_subject_word("transformer")
    for word in ("ensure", "model", "quickly", "trained", "grokking", "the", "gan", "2024"):  # -ing reads as a verb
        assert not is_subject_word(word), word


def test_find_terms_counts_vocabulary_terms_longest_first_and_mines_the_rest():
    terms = find_terms(
        "Graph Neural Networks for Action Spaces",
        "GNNs learn action spaces. We propose a new attention mechanism for action space exploration.",
        VOCABULARY,
    )
    gnn = keyword_key("graph neural networks")
    assert terms.vocabulary[gnn] == 2 and terms.vocabulary[keyword_key("attention mechanism")] == 1
    assert gnn in terms.title_keys and "action space" in terms.title_keys
    assert terms.phrases["action space"] == 3
    assert terms.surfaces["action space"] == {"action spaces": 2, "action space": 1}
    assert "propose" not in " ".join(terms.phrases)  # filler never starts or ends a candidate
    assert terms.title_tokens == ("graph", "neural", "network", "for", "action", "space")


def test_a_piece_of_a_hyphenated_compound_is_never_a_candidate():
    terms = find_terms("", "High-dimensional data and high-dimensional data again.", VOCABULARY)
    assert "dimensional data" not in terms.phrases


def test_find_terms_of_nothing_finds_nothing():
    terms = find_terms("", "", VOCABULARY)
    assert not terms.vocabulary and not terms.phrases and not terms.tokens and terms.title_tokens == ()


def _papers(*texts):
    return [find_terms(title, abstract, VOCABULARY) for title, abstract in texts]


def test_a_mined_phrase_is_kept_when_papers_share_it_and_a_title_names_it():
    index = build_index(_papers(
        ("Action space shaping", "We shape the action space."),
        ("Exploring action spaces", "Large action spaces are hard."),
        ("Unrelated title", "Nothing here about it."),
    ), VOCABULARY)
    assert index.papers == 3
    assert index.phrase_display == {"action space": "action space"}  # singular spelling preferred
    assert index.document_frequency["action space"] == 2 and index.title_frequency["action space"] == 2


def test_a_phrase_one_paper_uses_or_no_title_names_is_no_keyword():
    one_paper = build_index(_papers(("Action space shaping", "The action space."), ("Other", "Other words.")), VOCABULARY)
    assert "action space" not in one_paper.phrase_display
    no_title = build_index(_papers(("First", "The action space is large."), ("Second", "An action space again.")), VOCABULARY)
    assert "action space" not in no_title.phrase_display and no_title.fallback_display == {"action space": "action space"}


def test_a_phrase_mostly_written_as_one_hyphenated_word_is_a_modifier():
    index = build_index(_papers(("Fine-grained control", "Fine-grained labels."), ("Fine-grained", "fine-grained data.")), VOCABULARY)
    assert not any(key.startswith("fine grained") for key in index.phrase_display)


def test_a_piece_of_a_longer_phrase_gives_way_to_it():
    index = build_index(_papers(
        ("Neural tangent kernels", "Neural tangent kernels describe wide layers."),
        ("Neural tangent kernel regression", "We fit a neural tangent kernel."),
    ), VOCABULARY)
    assert "neural tangent kernel" in index.phrase_display
    assert "tangent kernel" not in index.phrase_display and "neural tangent" not in index.phrase_display


def test_the_thresholds_rise_in_a_large_corpus_and_broad_terms_are_vocabulary_keys():
    assert LARGE_CORPUS > 2
    assert keyword_key("reasoning") in broad_terms() and all(key == keyword_key(key) for key in broad_terms())
