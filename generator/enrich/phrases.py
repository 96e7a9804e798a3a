"""Phrase mining: the terms of each paper, and which mined phrases the corpus keeps.

A mined phrase must read as a technical noun phrase that several papers use:
no adverb, participle or generic modifier in front ("accurately predicting",
"annotated data", "additional computational overhead"), no generic head at the
end ("appropriate choice", "action pair", "ai system"), never a piece cut out of
a hyphenated compound ("dimensional data" from "high-dimensional data") or of a
longer term, and seen in titles, where authors name their subject.

In:  (title, abstract) of each paper and the vocabulary. Out: ``PaperTerms`` per
paper (``find_terms``) and the corpus ``KeywordIndex`` (``build_index``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from generator.enrich.features import STOPWORDS
from generator.enrich.vocabulary import (
    Vocabulary, Word, display_word, is_acronym_word, keyword_key, keyword_runs, keyword_singular, singular_acronym,
)

MAX_PHRASE_TOKENS = 6
MIN_COLLOCATION = 0.12
# In a large corpus a mined phrase must be used by more papers, and named in more titles.
LARGE_CORPUS = 2000
MIN_PHRASE_PAPERS_LARGE = 3
MIN_PHRASE_TITLES_LARGE = 1
# A phrase whose papers mostly use one longer phrase around it is a piece of that one.
NESTED_SHARE = 0.5

GENERIC_WORDS = frozenset(
    """propose proposed proposes proposing paper papers result results approach approaches method methods novel
    state art sota existing significant significantly extensive extensively experiment experiments experimental
    show shows shown showing demonstrate demonstrates demonstrated performance performances work works new
    various different first recent recently based using use used uses well address addresses key problem problems
    task tasks challenge challenges challenging effective effectively efficient efficiently improve improves improved
    improving improvement improvements achieve achieves achieved achieving outperform outperforms outperforming
    baseline baselines superior comprehensive simple important strong stronger better best large small high low
    way ways find finds found make makes made provide provides provided study studies studied investigate
    paradigm framework frameworks technique techniques setting settings scenario scenarios aspect aspects
    analysis analyze analyses consider considers leverage leverages leveraging enable enables enabling introduce
    introduces introduced present presents presented code available github https http www com org html
    particular specific specifically general generally given current currently furthermore potential remarkable
    crucial critical fundamental widely wide broad lack limited limitation limitations issue issues extensive
    further additionally prior previous previously conventional traditional standard typical typically real world
    benchmark benchmarks dataset datasets performance evaluation empirical empirically theoretical theoretically
    notably substantially substantial promising impressive robust accurate accuracy effectiveness efficiency
    across number numbers set sets type types level levels range order orders term terms case cases part parts
    end able ability abilities need needs require requires required remains remain gain gains due thereby
    instead like unlike following follow follows enhance enhances enhanced enhancing exhibit exhibits inspired
    named called termed dubbed leading lead leads yield yields obtain obtains obtained allow allows allowing
    insight insights understanding understand contribution contributions goal aim aims""".split()
)
# Heads that make a phrase concrete ("world model", "federated learning") but are
# not keywords on their own.
ALLOWED_LAST_ONLY = frozenset("model models learning network networks data training inference".split())

# Words the topic model (generator/enrich/topics.py) does not treat as stopwords but that
# never sit inside a keyword: prepositions and pronouns of titles ("toward", "your").
KEYWORD_STOPWORDS = frozenset(
    """toward towards behind beyond along around despite amongst unto your yours ours mine whose doe wa ha
    ensure ensuring going way ways like tell billion million thousand hundred et al""".split()
)
# Verbs that abstracts use around nouns ("PCEE offers", "the condition holds", "contain noisy labels"):
# a phrase holding one is a piece of a sentence, not a term.
KEYWORD_VERBS = frozenset(
    """offer offers hold holds contain contains optimise optimises optimize optimizes regarding concerning remain
    remains become becomes help helps seem seems tend tends fail fails rely relies suffer suffers exist exists
    appear appears occur occurs arise arises lie lies reveal reveals suggest suggests indicate indicates
    explain explains produce produces capture captures reduce reduces increase increases maintain maintains
    depend depends involve involves include includes benefit benefits perform performs operate operates
    achieve attain attains ensure ensures encourage encourages prevent prevents mitigate mitigates
    alleviate alleviates support supports affect affects give gives develop develops allocate allocates imagine
    orient orients reconstruct reconstructs retain retains enough""".split()
)
# A phrase starting with one of these says how good or how many, not what: "additional
# computational overhead", "appropriate choice", "desirable outcome".
GENERIC_MODIFIERS = frozenset(
    """additional appropriate various different significant novel existing effective efficient specific given
    certain new recent key main overall high low good better best large small many multiple desirable desired
    minimal maximal quantitative qualitative underlying potential powerful prominent final initial intermediate
    shorter longer larger smaller higher faster slower fast slow cheap expensive costly prolonged adverse
    realistic reliable accurate simple diverse rich strong important crucial critical fundamental major minor
    wide broad entire full complete common typical similar corresponding relevant related respective suitable
    proper practical useful valuable interesting promising remarkable notable considerable sufficient
    insufficient scarce abundant numerous previous future past earlier later latest modern advanced
    sophisticated scalable flexible versatile explicit frontier rigorous annotated generated unseen
    unknown arbitrary distinct separate individual whole true false artificial great greater
    greatest huge massive tiny little own heavy hard easy difficult extreme severe strict unified holistic
    generic specialized dedicated raw flatter de""".split()
)
# Last words that name no subject: "appropriate choice", "adverse effects", "action pair".
GENERIC_HEADS = frozenset(
    """choice effect overhead pair system way performance result approach method task quality power outcome
    cost resource burden demand property assumption mechanism information sample event period era measure
    practice manner fashion step lunch look output setup scheme strategy procedure pipeline solution tool
    module component factor phenomenon capability capacity degradation challenge difficulty benefit advantage
    drawback concern impact role usage application scenario scale level form model network score object
    version variant stage phase round unit amount degree extent fraction portion kind sort category
    manner behaviour behavior characteristic feature attribute element item instance option trick tip
    guideline principle rule insight evidence observation finding claim idea notion sense view perspective lens
    literature increment""".split()
)
# Gerunds and participles that do head technical terms ("learning rate", "sampling
# bias", "missing data", "masked language modeling"); other -ing/-ed first words are verbs.
TECHNICAL_VERB_FORMS = frozenset(
    """learning training sampling reasoning modeling modelling planning forecasting clustering matching pruning
    embedding encoding decoding hashing boosting bagging ranking tracking scheduling routing pooling caching
    computing processing programming engineering editing inpainting rendering captioning grounding tuning
    prompting parsing tagging labeling labelling filtering smoothing masking mixing pretraining finetuning
    coding mining imaging sensing scaling merging unlearning forgetting steering watermarking jailbreaking
    missing bounding streaming offloading morphing spiking gating branching splitting splatting sketching
    folding docking binding signaling signalling sequencing teaming trading recording driving transfer
    supervised unsupervised distributed randomized constrained structured masked federated decentralized
    centralized generalized directed undirected labeled unlabeled labelled unlabelled mixed quantized
    pretrained attributed gated augmented sliced kernelized integrated truncated weighted fixed regularized
    conditioned compressed sparsified embedded coupled layered stacked nested linked seed speed feed bed red
    need shed reed""".split()
)
# Nouns whose ending looks like an adjective's or an adverb's.
NOUN_EXCEPTIONS = frozenset(
    """signal interval retrieval integral potential trial animal crystal removal arrival survival reversal
    terminal rival metric logic topic music critic heuristic traffic arithmetic fabric mosaic clinic graphic
    objective derivative incentive primitive narrative initiative directive variable table observable
    anomaly family assembly supply poly monopoly early butterfly proposal dual manual journal tutorial""".split()
)
# Endings of words that qualify a noun instead of naming a thing.
ADJECTIVE_ENDINGS = ("ly", "ive", "ous", "able", "ible", "ful", "ic", "al")
ADJECTIVE_HEADS = frozenset(
    """aware based free wise like specific agnostic centric friendly grained tailed guided driven dependent
    invariant efficient optimal robust safe stable consistent sensitive aligned sure short sum scale level
    oriented conditioned informed inspired enabled enhanced assisted augmented powered preserving
    independent""".split()
)
# Whole phrases too broad to group papers at an ML venue.
BROAD_PHRASES = frozenset(
    """machine learning|artificial intelligence|natural language|generative ai|ai system|ai model|real world
    |deep network|neural model|learning model|learning algorithm|learning method|learning problem
    |learning system|learning task|human level|open source|closed source|fall short|trade off|large scale
    |small scale|state art|design choice|data driven|ground truth""".replace("\n", "").split("|")
)
# Vocabulary terms so broad that a paper merely mentioning them is not about them ("we train neural
# networks", "on standard benchmarks"): a keyword only when the title names them, else a last resort.
BROAD_TERM_NAMES = (
    "neural networks", "embeddings", "benchmark", "efficiency", "evaluation", "sampling", "loss functions",
    "activation functions", "optimization", "generalization", "bias", "robustness", "latent variable models",
    "representation learning", "reasoning", "alignment", "prompting", "exploration",
)
@lru_cache(maxsize=1)
def broad_terms() -> frozenset[str]:
    return frozenset(keyword_key(name) for name in BROAD_TERM_NAMES)


# --------------------------------------------------------------------------- what a keyword looks like


@lru_cache(maxsize=200_000)
def _is_filler(token: str) -> bool:
    return (token in STOPWORDS or token in KEYWORD_STOPWORDS or token in KEYWORD_VERBS or token in GENERIC_WORDS
            or token.isdigit() or len(token) < 2)


@lru_cache(maxsize=200_000)
def _is_adverb(token: str) -> bool:
    return token.endswith("ly") and len(token) > 4 and token not in NOUN_EXCEPTIONS


@lru_cache(maxsize=200_000)
def _is_verb_form(token: str) -> bool:
    """A gerund or participle ("adding", "annotated") that is not a known technical head."""
    if token in TECHNICAL_VERB_FORMS:
        return False
    return (token.endswith("ing") and len(token) > 5) or (token.endswith("ed") and len(token) > 4)


@lru_cache(maxsize=200_000)
def _is_adjective(token: str) -> bool:
    return token in ADJECTIVE_HEADS or (token.endswith(ADJECTIVE_ENDINGS) and token not in NOUN_EXCEPTIONS)


def is_junk(key_tokens: Sequence[str]) -> bool:
    """A mined phrase no reader would browse by.

    Junk is filler ("propose", "results"), a phrase that does not start like a noun
    phrase (adverb, verb form or generic modifier first: "accurately predicting",
    "adding conditional control", "additional computational overhead") or that
    does not end in a subject (a generic head, an adjective or a participle:
    "appropriate choice", "ai system", "fine tuned"). Vocabulary terms are matched
    before mining, so a curated "attention mechanism" is never judged here.
    """
    if not key_tokens or len(key_tokens) > MAX_PHRASE_TOKENS:
        return True
    for position, token in enumerate(key_tokens):
        if _is_filler(token):
            return True
        if token in ALLOWED_LAST_ONLY and position != len(key_tokens) - 1:
            return True
    if len(key_tokens) == 1:
        return key_tokens[0] in ALLOWED_LAST_ONLY
    first, last = key_tokens[0], key_tokens[-1]
    if " ".join(key_tokens) in BROAD_PHRASES:
        return True
    if first in GENERIC_MODIFIERS or _is_verb_form(first) or any(_is_adverb(t) for t in key_tokens):
        return True
    if last in GENERIC_HEADS or _is_adjective(last):
        return True
    return last.endswith("ed") and _is_verb_form(last)


@lru_cache(maxsize=200_000)
def is_subject_word(token: str) -> bool:
    """A single title word that can stand as a last-resort keyword ("diffusion", not "ensure"; a word in -ing
    reads as a verb unless it is a known technical head)."""
    return (len(token) >= 4 and token.isalpha() and not _is_filler(token) and token not in ALLOWED_LAST_ONLY
            and token not in GENERIC_MODIFIERS and token not in GENERIC_HEADS and not _is_adverb(token)
            and not _is_verb_form(token) and not _is_adjective(token))


# --------------------------------------------------------------------------- one paper


@dataclass(frozen=True)
class PaperTerms:
    """What one paper mentions: canonical keys with counts, title mentions counted apart."""

    vocabulary: Counter
    phrases: Counter  # candidate mined phrases (key) from text the vocabulary did not cover
    surfaces: dict  # phrase key -> Counter of display forms as written
    title_keys: frozenset
    tokens: frozenset  # every word key, for telling collocations from chance pairs
    title_tokens: tuple = ()  # title words in order: the last resort for a paper with few terms


def find_terms(title: str, abstract: str, vocabulary: Vocabulary) -> PaperTerms:
    """Vocabulary terms (longest match first) and the candidate phrases between them."""
    vocab_counts: Counter = Counter()
    phrase_counts: Counter = Counter()
    surfaces: dict[str, Counter] = defaultdict(Counter)
    title_keys: set[str] = set()
    tokens: set[str] = set()
    for is_title, text in ((True, title or ""), (False, abstract or "")):
        for run in keyword_runs(text):
            tokens.update(w.key for w in run)
            uncovered: list[tuple[int, int]] = []  # [start, end) of run not covered by the vocabulary
            i, start = 0, 0
            while i < len(run):
                match = _longest_vocabulary_match(run, i, vocabulary)
                if match is None:
                    i += 1
                    continue
                key, length = match
                vocab_counts[key] += 1
                if is_title:
                    title_keys.add(key)
                uncovered.append((start, i))
                i += length
                start = i
            uncovered.append((start, len(run)))
            for begin, end in uncovered:
                _mine_piece(run, begin, end, is_title, phrase_counts, surfaces, title_keys)
    title_tokens = tuple(w.key for run in keyword_runs(title or "") for w in run)
    return PaperTerms(vocab_counts, phrase_counts, dict(surfaces), frozenset(title_keys), frozenset(tokens), title_tokens)


def _mine_piece(run: list[Word], begin: int, end: int, is_title: bool, phrase_counts: Counter,
                surfaces: dict[str, Counter], title_keys: set[str]) -> None:
    """Count the 2- and 3-word candidates of run[begin:end] that are whole, technical phrases."""
    usable = [not _is_filler(w.key) for w in run[begin:end]]
    for start in range(begin, end - 1):
        # A phrase cut out of a hyphenated compound is a fragment ("dimensional data").
        if run[start].hyphen_before or not usable[start - begin]:
            continue
        for n in (2, 3):
            stop = start + n
            if stop > end or not usable[stop - 1 - begin]:
                break
            if stop < len(run) and run[stop].hyphen_before:
                continue
            gram = run[start:stop]
            keys = [w.key for w in gram]
            if is_junk(keys):
                continue
            key = " ".join(keys)
            phrase_counts[key] += 1
            form = display_word(gram[0].surface) + "".join(
                ("-" if w.hyphen_before else " ") + display_word(w.surface) for w in gram[1:])
            surfaces[key][form] += 1
            if is_title:
                title_keys.add(key)


def _longest_vocabulary_match(run: list[Word], start: int, vocabulary: Vocabulary) -> tuple[str, int] | None:
    for n in range(min(vocabulary.longest.get(run[start].key, 0), len(run) - start), 0, -1):
        hit = vocabulary.by_variant.get(tuple(w.key for w in run[start : start + n]))
        if hit is not None:
            return hit, n
    acronym = singular_acronym(run[start].surface)
    if acronym in vocabulary.by_acronym:
        return vocabulary.by_acronym[acronym], 1
    return None


# --------------------------------------------------------------------------- the corpus


@dataclass(frozen=True)
class KeywordIndex:
    """Corpus-wide view: how many papers use each term, and each mined phrase's display form."""

    document_frequency: dict[str, int]
    phrase_display: dict[str, str]  # the mined phrases that may become keywords
    papers: int
    token_frequency: dict[str, int] = field(default_factory=dict)
    title_frequency: dict[str, int] = field(default_factory=dict)  # papers naming the term in their title
    fallback_display: dict[str, str] = field(default_factory=dict)  # shared phrases no title names: last resorts
    term_starts: frozenset = frozenset()  # first words of the vocabulary's and the kept phrases' longer terms


def build_index(all_terms: Sequence[PaperTerms], vocabulary: Vocabulary) -> KeywordIndex:
    document_frequency: Counter = Counter()
    token_frequency: Counter = Counter()
    title_frequency: Counter = Counter()
    surfaces: dict[str, Counter] = defaultdict(Counter)
    for terms in all_terms:
        document_frequency.update(terms.vocabulary.keys())
        document_frequency.update(terms.phrases.keys())
        token_frequency.update(terms.tokens)
        title_frequency.update(terms.title_keys)
        for key, forms in terms.surfaces.items():
            surfaces[key].update(forms)
    papers = len(all_terms)
    min_papers, min_titles = (MIN_PHRASE_PAPERS_LARGE, MIN_PHRASE_TITLES_LARGE) if papers >= LARGE_CORPUS else (2, 1)
    kept: dict[str, Counter] = {}
    fallback: dict[str, Counter] = {}
    for key, forms in surfaces.items():
        df = document_frequency[key]
        if df < 2 or key in vocabulary.entries:
            continue
        # A collocation ("action space") is used together far more often than its
        # words' frequencies suggest; a chance pair ("successful attack") is not.
        if df < MIN_COLLOCATION * min(token_frequency[t] for t in key.split()):
            continue
        # Mostly written as one hyphenated word, the phrase is a modifier ("fine-grained",
        # "multi-turn"), not a subject.
        if sum(n for form, n in forms.items() if " " not in form) * 2 > sum(forms.values()):
            continue
        if df >= min_papers and title_frequency[key] >= min_titles:
            kept[key] = forms
        else:
            fallback[key] = forms
    _drop_pieces_of_longer_phrases(kept, document_frequency)
    _drop_pieces_of_longer_phrases(fallback, document_frequency)
    starts = {tokens[0] for tokens in vocabulary.by_variant if len(tokens) > 1}
    starts.update(key.split()[0] for key in kept)
    return KeywordIndex(
        dict(document_frequency),
        {key: _phrase_display(forms) for key, forms in kept.items()},
        papers,
        dict(token_frequency),
        dict(title_frequency),
        {key: _phrase_display(forms) for key, forms in fallback.items()},
        frozenset(starts),
    )


def _drop_pieces_of_longer_phrases(kept: dict[str, Counter], document_frequency: Counter) -> None:
    """Drop "arnold network" when most papers using it say "kolmogorov arnold network"."""
    for key in sorted(kept, key=lambda k: (-len(k.split()), k)):
        words = key.split()
        if len(words) < 3 or key not in kept:
            continue
        for piece in (" ".join(words[:-1]), " ".join(words[1:])):
            if piece in kept and document_frequency[key] >= NESTED_SHARE * document_frequency[piece]:
                del kept[piece]


def _phrase_display(forms: Counter) -> str:
    """The most used spelling, singular ones first ("latent space" over "latent spaces"); ties by text."""
    def is_singular(form: str) -> bool:
        last = form.rsplit(" ", 1)[-1].rsplit("-", 1)[-1]
        return is_acronym_word(last) or keyword_singular(last.lower()) == last.lower()

    return min(forms, key=lambda f: (not is_singular(f), -forms[f], f))
