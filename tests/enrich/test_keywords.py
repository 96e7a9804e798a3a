import random

from generator.enrich.features import canonical_key, singular
from generator.enrich.keywords import extract_keywords
from generator.enrich.phrases import is_junk
from generator.enrich.vocabulary import load_vocabulary


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
    papers = [
        ("Scaling LLMs", "We study LLMs and their reasoning."),
        ("Small llm tricks for reinforcement learning",
         "An llm is cheap: we use reinforcement learning and policy gradient with chain of thought."),
    ] * 2
    keywords = extract_keywords(papers)
    assert "large language models" in keywords[0]
    # "llm" in lower case is a word, not the acronym: the second paper is not about LLMs as written
    assert all("large language models" not in kws and "LLM" not in kws for kws in keywords[1::2]), keywords
    assert all(3 <= len(kws) <= 8 for kws in keywords), keywords
    assert "reinforcement learning" in keywords[1]


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


# --------------------------------------------------------------------------- mining rules

from generator.enrich.vocabulary import keyword_key, keyword_runs  # noqa: E402


def _junk(phrase: str) -> bool:
    return is_junk(keyword_key(phrase).split())


def test_phrases_that_do_not_start_like_a_noun_phrase_are_junk():
    for phrase in ("accurately predicting", "closely align", "adding conditional control", "selecting data",
                   "annotated data", "generated image", "additional computational overhead", "appropriate choice",
                   "desirable outcome", "minimal assumptions", "various tasks", "novel approach"):
        assert _junk(phrase), phrase


def test_phrases_with_a_generic_or_adjective_head_are_junk():
    for phrase in ("adverse effects", "action pair", "ai system", "computational cost", "image quality",
                   "predictive power", "fine tuned", "human annotated", "context aware", "sharpness aware",
                   "machine learning", "design choices"):
        assert _junk(phrase), phrase


def test_technical_phrases_are_kept():
    for phrase in ("latent space", "reward function", "missing data", "sampling bias", "temporal point process",
                   "information bottleneck", "spurious correlation", "theorem proving", "knowledge tracing",
                   "lower bound", "saddle point", "supervised contrastive loss", "early stopping"):
        assert not _junk(phrase), phrase


def test_split_prefixes_and_hyphens_fold_together():
    assert keyword_key("hyper parameters") == keyword_key("Hyper-Parameter") == keyword_key("hyperparameter")
    assert keyword_key("non-convex") == keyword_key("nonconvex") == keyword_key("non convex")
    assert keyword_key("Time Series") == "time series" and keyword_key("physics") == "physics"


def test_vocabulary_acronyms_synonyms_and_new_areas_share_one_display():
    vocabulary = load_vocabulary()
    for variants, display in (
        (("GFlowNets", "generative flow network", "Generative Flow Networks"), "generative flow networks"),
        (("CFG", "classifier free guidance", "Classifier-Free Guidance"), "classifier-free guidance"),
        (("SAM", "sharpness aware minimization"), None),
        (("KANs", "Kolmogorov-Arnold networks", "kolmogorov arnold network"), "kolmogorov-arnold networks"),
        (("time-series forecasting", "Time Series Forecasting"), "time series forecasting"),
    ):
        keys = {vocabulary.canonical(v) for v in variants}
        if display is None:
            assert vocabulary.canonical("SAM") != vocabulary.canonical("sharpness aware minimization")
            continue
        assert len(keys) == 1, variants
        assert vocabulary.display(keys.pop()) == display


def test_pieces_of_hyphenated_compounds_are_not_mined():
    words = keyword_runs("high-dimensional data from LLM-based agents")[0]
    assert [w.hyphen_before for w in words] == [False, True, False, False, False, True, False]
    papers = [(f"High-dimensional data study {i}", "We study high-dimensional data and heavy-tailed distributions.")
              for i in range(4)]
    from generator.enrich.phrases import build_index, find_terms

    vocabulary = load_vocabulary()
    index = build_index([find_terms(t, a, vocabulary) for t, a in papers], vocabulary)
    assert "dimensional data" not in index.phrase_display
    assert "tailed distribution" not in index.phrase_display


def test_a_phrase_mostly_inside_a_longer_one_gives_way():
    from generator.enrich.phrases import build_index, find_terms

    vocabulary = load_vocabulary()
    papers = [(f"Gene expression of zebrafish fin regeneration, part {i}", "Zebrafish fin regeneration assays.")
              for i in range(4)]
    index = build_index([find_terms(t, a, vocabulary) for t, a in papers], vocabulary)
    assert "zebrafish fin regeneration" in index.phrase_display
    assert "fin regeneration" not in index.phrase_display and "zebrafish fin" not in index.phrase_display


def test_mined_phrases_need_a_title_and_keep_acronym_case():
    from generator.enrich.phrases import build_index, find_terms

    vocabulary = load_vocabulary()
    papers = [("Fréchet coupling for OOD scores", "Fréchet coupling of OOD scores and the sinkhorn step."),
              ("Fréchet coupling at scale", "We revisit Fréchet coupling; OOD scores help."),
              ("Other", "OOD scores and sinkhorn step again.")]
    index = build_index([find_terms(t, a, vocabulary) for t, a in papers], vocabulary)
    assert index.phrase_display.get("fréchet coupling") == "fréchet coupling"
    assert "sinkhorn step" not in index.phrase_display  # no title names it
    # an acronym inside a mined phrase keeps its capitals; the other words are lower-cased
    papers = [("Sparse QKV caches for long contexts", "Sparse QKV caches cut memory."),
              ("Sparse QKV caches at scale", "We revisit Sparse QKV caches."), ("Other", "Nothing shared here.")]
    index = build_index([find_terms(t, a, vocabulary) for t, a in papers], vocabulary)
    assert list(index.phrase_display.values()) == ["sparse QKV caches"]
    keywords = extract_keywords(papers, vocabulary)
    assert "sparse QKV caches" in keywords[0] and "sparse QKV caches" in keywords[1]
    assert not any(k.lower() == "sparse qkv caches" and k != "sparse QKV caches" for kws in keywords for k in kws)


def test_every_paper_gets_three_keywords_even_when_alone():
    papers = [("Boundless Socratic Learning", "Socratic recursion lets an agent improve itself within a closed system.")]
    papers += [(f"Diffusion models {i}", "Diffusion models and score matching for image generation.") for i in range(4)]
    for keywords in extract_keywords(papers):
        assert 3 <= len(keywords) <= 8


# --- issue 15: fragments, names, false synonyms, broad terms -------------------------------------


def test_sentence_pieces_and_citations_are_not_keywords():
    for phrase in ("hsu et", "pcee offer", "condition hold", "contain noisy", "ai assessor optimise", "give rise"):
        assert _junk(phrase), phrase
    papers = [
        ("Early exits for PCEE models", "Following Hsu et al., PCEE offers early exits; the condition holds when layers contain noisy features."),
        ("PCEE early exits revisited", "As Hsu et al. show, PCEE offers cheap exits and the condition holds for layers that contain noisy features."),
        ("Orientation axes of objects", "We estimate the orientation axes of objects from images of orientation axes."),
        ("Estimating orientation axes", "Orientation axes are estimated."),
    ]
    found = {k for keywords in extract_keywords(papers) for k in keywords}
    for fragment in ("hsu et", "pcee offer", "condition hold", "contain noisy", "orientation ax"):
        assert fragment not in found, (fragment, found)


def test_a_word_is_not_a_synonym_of_a_term_it_is_only_near():
    vocabulary = load_vocabulary()
    assert vocabulary.canonical("denoising") != vocabulary.canonical("image restoration")
    assert vocabulary.canonical("matrix completion") != vocabulary.canonical("matrix factorization")
    papers = [("Faster denoising diffusion", "Denoising diffusion models generate images by denoising."),
              ("Denoising score matching", "Denoising objectives train diffusion models.")]
    assert all("image restoration" not in keywords for keywords in extract_keywords(papers))


def test_a_single_word_stands_for_its_term_and_a_term_piece_is_never_a_keyword():
    papers = [
        ("Diffusion for planning", "Diffusion models plan trajectories with reinforcement learning."),
        ("Reinforcement and diffusion", "We combine reinforcement learning with diffusion models."),
        ("Diffusion schedules", "Noise schedules of diffusion models matter."),
    ]
    for keywords in extract_keywords(papers):
        assert "diffusion" not in keywords and "reinforcement" not in keywords, keywords
        assert "diffusion models" in keywords


def test_a_broad_term_only_mentioned_gives_way_to_the_papers_subject():
    papers = [
        ("Graph transformers for molecules", "Graph transformers predict molecules; we evaluate on benchmarks with neural networks and evaluation."),
        ("Graph transformers revisited", "Graph transformers and molecules, evaluation on benchmarks."),
        ("Neural networks are wide", "Neural networks in the infinite width limit."),
        ("Neural networks are deep", "Neural networks of many layers."),
    ]
    keywords = extract_keywords(papers)
    for mine in keywords[:2]:
        assert "evaluation" not in mine and "benchmark" not in mine, mine
        assert "transformers" in mine, "the broader term its narrower keyword spells out fills the third place"
    assert all("neural networks" in mine for mine in keywords[2:]), "a title that names the broad term keeps it"
