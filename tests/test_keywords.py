import random

from generator.keywords import canonical_key, extract_keywords, is_junk, load_vocabulary, singular


def test_variants_of_a_term_share_one_key_and_display():
    vocabulary = load_vocabulary()
    keys = {vocabulary.canonical(v) for v in ("LLMs", "LLM", "large language model", "Large Language Models", "large-language models")}
    assert len(keys) == 1
    assert vocabulary.display(keys.pop()) == "large language models"


def test_hyphen_space_case_and_plural_fold_together():
    assert canonical_key("Self-Supervised Learning") == canonical_key("self supervised learning")
    assert canonical_key("Diffusion Models") == canonical_key("diffusion model")
    assert singular("policies") == "policy" and singular("bias") == "bias"


def test_acronyms_match_only_as_written():
    papers = [("Scaling LLMs", "We study LLMs and their reasoning."), ("Small llm tricks", "An llm is cheap.")] * 2
    keywords = extract_keywords(papers)
    assert "large language models" in keywords[0]


def test_junk_never_becomes_a_keyword():
    for phrase in ("propose", "paper", "results", "state of the art", "novel approach", "proposed method"):
        assert is_junk(canonical_key(phrase).split())
    papers = [
        ("A novel approach to graph neural networks", "We propose a novel approach. Results show state-of-the-art performance of graph neural networks in this paper."),
        ("Graph neural networks for molecules", "We propose graph neural networks for molecules; results are state-of-the-art."),
        ("Molecules and diffusion models", "Diffusion models generate molecules. Our paper shows results."),
    ]
    for keywords in extract_keywords(papers):
        for junk in ("propose", "paper", "results", "state-of-the-art", "novel approach"):
            assert junk not in keywords


def test_keywords_are_shared_and_deterministic_under_shuffling():
    base = [
        (f"Paper {i} on diffusion models", f"We study diffusion models and reinforcement learning with policy gradient variant {i}.")
        for i in range(6)
    ] + [(f"Graph paper {i}", f"Graph neural networks and message passing for node classification, case {i}.") for i in range(6)]
    first = dict(zip(base, extract_keywords(base)))
    shuffled = base[:]
    random.Random(7).shuffle(shuffled)
    second = dict(zip(shuffled, extract_keywords(shuffled)))
    assert first == second
    for keywords in first.values():
        assert 3 <= len(keywords) <= 8
