"""generator/enrich/features.py: the tokens and keys the topic model was trained on."""

from __future__ import annotations

import pytest

from generator.enrich.features import STOPWORDS, Token, canonical_key, segments, singular


@pytest.mark.parametrize(("token", "expected"), [
    ("networks", "network"), ("policies", "policy"), ("classes", "class"), ("boxes", "box"),
    ("patches", "patch"), ("meshes", "mesh"), ("loss", "loss"), ("bus", "bus"), ("analysis", "analysis"),
    ("gas", "gas"), ("photos", "photos"), ("days", "days"), ("gans", "gan"),
    ("ies", "ies"), ("gns", "gns"), ("1990s", "1990"), ("2024", "2024"),  # three letters or fewer stay
])
def test_singular_by_suffix_rules(token, expected):
    assert singular(token) == expected


@pytest.mark.parametrize("spelling", [
    "Graph Neural Networks", "graph-neural-networks", "graph_neural network", "GRAPH  neural\tnetworks",
    "graph‐neural networks",  # a Unicode hyphen
])
def test_every_spelling_of_a_term_shares_one_key(spelling):
    assert canonical_key(spelling) == "graph neural network"


def test_keys_drop_latex_and_fold_compatibility_forms():
    assert canonical_key("$\\ell_1$ regularisation") == "regularisation"
    assert canonical_key("\\textbf{sparse} codes") == "sparse code"
    assert canonical_key("ﬁne-tuning") == "fine tuning"  # the fi ligature
    assert canonical_key("") == "" and canonical_key("!!!") == ""


def test_segments_never_cross_punctuation_or_a_spaced_en_or_em_dash():
    runs = segments("Diffusion models, for images: fast sampling – and more (see Table 1).")  # an en dash; a hyphen joins
    assert [[t.surface for t in run] for run in runs] == [
        ["Diffusion", "models"], ["for", "images"], ["fast", "sampling"], ["and", "more"], ["see", "Table", "1"],
    ]
    assert runs[0][1] == Token("models", "model")


def test_a_hyphen_inside_a_word_joins_and_empty_text_has_no_segments():
    assert [[t.key for t in run] for run in segments("Q-learning agents")] == [["q", "learning", "agent"]]
    assert segments("") == [] and segments(" ,.;: ") == []


def test_stopwords_are_lower_case_words_and_hold_no_subject():
    assert all(word == word.lower() and word.isalnum() for word in STOPWORDS)
    assert {"the", "of", "we", "however"} <= STOPWORDS
    assert not {"graph", "learning", "network", "model"} & STOPWORDS
