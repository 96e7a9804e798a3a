"""generator/enrich/vocabulary.py: every spelling of a keyword term reads as one key and one display form."""

from __future__ import annotations

import pytest

from generator.enrich.vocabulary import (
    display_word, is_acronym_word, keyword_key, keyword_runs, keyword_singular, load_vocabulary, parse_vocabulary,
    singular_acronym,
)
from generator.problems import PapersiteError


@pytest.mark.parametrize(("word", "expected"), [
    ("series", "series"), ("physics", "physics"), ("dynamics", "dynamics"), ("bayes", "bayes"),
    ("matrices", "matrix"), ("vertices", "vertex"), ("hypotheses", "hypothesis"), ("axes", "axis"),
    ("networks", "network"), ("policies", "policy"),
])
def test_keyword_singular_knows_the_words_whose_s_is_no_plural(word, expected):
    assert keyword_singular(word) == expected


@pytest.mark.parametrize("spelling", ["hyperparameters", "hyper-parameters", "hyper parameter", "Hyper-Parameter"])
def test_a_bound_prefix_joins_its_word_however_it_is_written(spelling):
    assert keyword_key(spelling) == "hyperparameter"


def test_runs_track_hyphens_and_keep_a_joined_prefix_as_written():
    (run,) = keyword_runs("high-dimensional pre-trained models")
    assert [(w.surface, w.key, w.hyphen_before) for w in run] == [
        ("high", "high", False), ("dimensional", "dimensional", True), ("pre-trained", "pretrained", False),
        ("models", "model", False),
    ]
    assert [[w.key for w in r] for r in keyword_runs("graphs, trees; $x^2$ \\emph{and} sets")] == [["graph"], ["tree"], ["and"], ["set"]]
    assert keyword_runs("") == [] and keyword_key("") == ""


def test_acronyms_are_two_capitals_or_more_and_lose_only_a_plural_s():
    assert is_acronym_word("LLMs") and is_acronym_word("ViT") and not is_acronym_word("Transformer")
    assert display_word("LLM") == "LLM" and display_word("Diffusion") == "diffusion"
    assert singular_acronym("LLMs") == "LLM" and singular_acronym("GANs") == "GAN"
    assert singular_acronym("SS") == "SS" and singular_acronym("Bus") == "Bus"


def test_a_vocabulary_maps_synonyms_and_acronyms_to_one_display():
    vocabulary = parse_vocabulary({"large language models": ["LLM", "large-scale language model"], "linear attention": None})
    for spelling in ("Large Language Model", "large-scale language models", "LLM", "LLMs"):
        assert vocabulary.canonical(spelling) == "large language model", spelling
    assert vocabulary.display("large language model") == "large language models"
    assert vocabulary.canonical("llm") == "llm"  # an acronym is matched only as written
    assert vocabulary.canonical("Graph Cuts") == "graph cut" and vocabulary.display("graph cut") == "graph cut"
    assert vocabulary.longest["large"] == 4 and vocabulary.entries["linear attention"].variants == ("linear attention",)


@pytest.mark.parametrize(("data", "message"), [
    (["a", "b"], "expected a mapping of keyword display form to a list of synonyms"),
    ({"graphs": "graph theory"}, "entry 'graphs' must map a string to a list of synonyms"),
    ({3: ["x"]}, "entry 3 must map a string to a list of synonyms"),
    ({"graph": [], "Graphs": []}, "entry 'Graphs' spells the same keyword as 'graph'"),
])
def test_a_malformed_vocabulary_is_a_user_error_naming_the_file(data, message):
    with pytest.raises(PapersiteError) as refused:
        parse_vocabulary(data, "vocab.yaml")
    assert refused.value.first.path == "vocab.yaml" and refused.value.first.message == message


def test_the_bundled_vocabulary_loads_and_each_acronym_belongs_to_one_term(tmp_path):
    bundled = load_vocabulary()
    assert bundled.canonical("RAG") == bundled.canonical("retrieval augmented generation")
    assert bundled.display(bundled.canonical("LoRA")) == "low-rank adaptation"
    own = tmp_path / "vocabulary.yaml"
    own.write_text("graph neural networks: [GNN]\n", encoding="utf-8")
    assert load_vocabulary(str(own)).display(load_vocabulary(str(own)).canonical("GNNs")) == "graph neural networks"
