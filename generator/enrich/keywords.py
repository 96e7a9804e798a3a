"""Keywords: 3-8 canonical keywords per paper, shared across the corpus.

Part of the enrichment stage. Keywords come from the project's vocabulary
(``generator/data/vocabulary.yaml``: ML terms with their synonyms and acronyms)
and from phrases mined from the corpus itself. Every spelling variant of a term
- case, plural, hyphen or space, a split prefix ("hyper parameter"), acronym -
maps to one canonical key, shown in one display form.

A mined phrase must read as a technical noun phrase that several papers use:
no adverb, participle or generic modifier in front ("accurately predicting",
"annotated data", "additional computational overhead"), no generic head at the
end ("appropriate choice", "action pair", "ai system"), never a piece cut out of
a hyphenated compound ("dimensional data" from "high-dimensional data") or of a
longer term, and seen in titles, where authors name their subject.

In:  (title, abstract) texts of the whole corpus. Out: a keyword list per paper,
the same whatever order the papers come in.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

import yaml

from generator.text import unicode_normal

MIN_KEYWORDS = 3
MAX_KEYWORDS = 8
MAX_PHRASE_TOKENS = 6
MIN_COLLOCATION = 0.12
# In a large corpus a mined phrase must be used by more papers, and named in more titles.
LARGE_CORPUS = 2000
MIN_PHRASE_PAPERS_LARGE = 3
MIN_PHRASE_TITLES_LARGE = 1
# A phrase whose papers mostly use one longer phrase around it is a piece of that one.
NESTED_SHARE = 0.5

# Words that never make a keyword: filler of abstracts, not subjects of papers.
STOPWORDS = frozenset(
    """a an the and or nor but of in on at to for from by with without within into onto over under via as is are was
    were be been being this that these those it its their our we us you they he she them his her which who whom whose
    what when where why how than then there here such so not no can could may might must shall should will would do
    does did done has have had having all any both each few more most other some same own very just only also too
    between among across through during before after above below up down out off again further once while whereas
    if else about against because until upon per i ii iii e g eg ie etc versus vs one two three four five six ten
    many much several whether either neither however thus hence therefore moreover furthermore although though
    yet still even since often usually always never""".split()
)
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
# Prefixes that never stand alone: "hyper parameter", "hyper-parameter" and
# "hyperparameter" are one word, whatever the spacing.
BOUND_PREFIXES = frozenset("pre multi non hyper sub co semi intra inter bi uni pseudo quasi anti mini micro macro auto re".split())
# Words whose final "s" is not a plural.
_NOT_PLURAL = frozenset("series species physics bayes hawkes lens news gauss jones ames chess".split())
# Plurals the suffix rules get wrong ("axes" is not the plural of "ax" here).
_IRREGULAR_PLURALS = {"axes": "axis", "matrices": "matrix", "vertices": "vertex", "indices": "index",
                      "hypotheses": "hypothesis", "analyses": "analysis"}

_SEGMENT_SPLIT = re.compile(r"[.,;:!?()\[\]{}\"“”'‘’|/\\<>=+*]+|\s-\s|\s–\s|\s—\s")
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_LATEX = re.compile(r"\$[^$]*\$|\\[a-zA-Z]+")


@lru_cache(maxsize=200_000)
def singular(token: str) -> str:
    """English singular of a lower-case token, by suffix rules only (keys, not display)."""
    if len(token) <= 3 or token.isdigit():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is", "as", "os", "ys")):
        return token[:-1]
    return token


def _plain(text: str) -> str:
    text = unicode_normal(text)
    text = _LATEX.sub(" ", text)
    # Hyphen and underscore join the same words a space does ("Q-learning", "q learning").
    return re.sub(r"[-_‐‑‒]+", " ", text)


def canonical_key(phrase: str) -> str:
    """The one key all spellings of a term share: lower case, singular, single spaces."""
    return " ".join(singular(t.lower()) for t in _TOKEN.findall(_plain(phrase)))


@dataclass(frozen=True)
class Token:
    surface: str  # as written
    key: str  # lower case, singular


def segments(text: str) -> list[list[Token]]:
    """Runs of tokens between punctuation: phrases never cross a comma or a full stop."""
    runs = []
    for part in _SEGMENT_SPLIT.split(_plain(text)):
        tokens = [Token(t, singular(t.lower())) for t in _TOKEN.findall(part)]
        if tokens:
            runs.append(tokens)
    return runs


# --------------------------------------------------------------------------- keyword words
#
# The keys above (``segments``, ``canonical_key``) are the word features the topic
# model was trained on, so they stay as they are. Keywords read text a little more
# closely: they keep track of hyphens (to tell "high-dimensional data" from a phrase
# that starts at "dimensional"), join bound prefixes, and know a few nouns whose
# final "s" is not a plural.

_WORD = re.compile(r"[^\W_]+")
_HYPHEN_GAP = re.compile(r"[-‐‑‒–_]+")


@lru_cache(maxsize=200_000)
def keyword_singular(token: str) -> str:
    """Singular of a lower-case word; "series", "physics" and "-ics" words keep their "s"."""
    if token in _NOT_PLURAL or token.endswith("ics"):
        return token
    return _IRREGULAR_PLURALS.get(token) or singular(token)


@dataclass(frozen=True)
class Word:
    surface: str  # as written; a joined prefix keeps its hyphen ("hyper-parameters")
    key: str  # lower case, singular, prefix joined ("hyperparameter")
    hyphen_before: bool  # written hyphen-joined to the word before ("dimensional" in "high-dimensional")


def _is_acronym_word(surface: str) -> bool:
    return sum(c.isupper() for c in surface) >= 2


def _display_word(surface: str) -> str:
    return surface if _is_acronym_word(surface) else surface.lower()


def keyword_runs(text: str) -> list[list[Word]]:
    """Runs of words between punctuation, with hyphen joins and bound prefixes resolved."""
    text = _LATEX.sub(" ", unicode_normal(text))
    runs = []
    for part in _SEGMENT_SPLIT.split(text):
        words: list[Word] = []
        previous_end = None
        for match in _WORD.finditer(part):
            gap = part[previous_end : match.start()] if previous_end is not None else ""
            hyphen = _HYPHEN_GAP.fullmatch(gap) is not None
            surface = match.group()
            previous_end = match.end()
            if words and words[-1].key in BOUND_PREFIXES and (hyphen or not gap.strip()):
                prefix = words.pop()
                joined = f"{prefix.surface}{'-' if hyphen else ''}{surface}"
                words.append(Word(joined, keyword_singular(prefix.key + surface.lower()), prefix.hyphen_before))
                continue
            words.append(Word(surface, keyword_singular(surface.lower()), hyphen))
        if words:
            runs.append(words)
    return runs


def keyword_key(phrase: str) -> str:
    """The one key all spellings of a term share: lower case, singular, single spaces, prefixes joined."""
    return " ".join(word.key for run in keyword_runs(phrase) for word in run)


@lru_cache(maxsize=1)
def _broad_terms() -> frozenset[str]:
    return frozenset(keyword_key(name) for name in BROAD_TERM_NAMES)


@dataclass(frozen=True)
class VocabularyEntry:
    display: str
    key: str
    variants: tuple[str, ...]  # keys of every spelling, canonical first
    acronyms: tuple[str, ...]  # upper-case spellings, matched only as written


@dataclass
class Vocabulary:
    entries: dict[str, VocabularyEntry]  # canonical key -> entry
    by_variant: dict[tuple[str, ...], str] = field(default_factory=dict)  # variant key tokens -> canonical key
    by_acronym: dict[str, str] = field(default_factory=dict)  # ACRONYM -> canonical key
    longest: dict[str, int] = field(default_factory=dict)  # first token -> most tokens of a variant starting with it

    def canonical(self, phrase: str) -> str:
        """Canonical key of a phrase: the vocabulary term it spells, else its own key."""
        stripped = phrase.strip()
        if _singular_acronym(stripped) in self.by_acronym:
            return self.by_acronym[_singular_acronym(stripped)]
        key = keyword_key(phrase)
        return self.by_variant.get(tuple(key.split()), key)

    def display(self, key: str) -> str:
        entry = self.entries.get(key)
        return entry.display if entry else key


def _singular_acronym(surface: str) -> str:
    return surface[:-1] if surface.endswith("s") and surface[:-1].isupper() else surface


def _is_acronym(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and len(text) <= 8 and " " not in text and sum(c.isupper() for c in letters) >= 2


def parse_vocabulary(data: object, path: str = "<vocabulary>") -> Vocabulary:
    """Vocabulary from YAML data: ``display form: [synonym, ACRONYM, ...]``."""
    if not isinstance(data, dict):
        raise ValueError(f"{path}:1: expected a mapping of keyword display form to a list of synonyms")
    entries: dict[str, VocabularyEntry] = {}
    by_variant: dict[tuple[str, ...], str] = {}
    by_acronym: dict[str, str] = {}
    for display, synonyms in data.items():
        if synonyms is None:
            synonyms = []
        if not isinstance(display, str) or not isinstance(synonyms, list):
            raise ValueError(f"{path}: entry {display!r} must map a string to a list of synonyms")
        key = keyword_key(display)
        if key in entries:
            raise ValueError(f"{path}: entry {display!r} spells the same keyword as {entries[key].display!r}")
        acronyms, variants = [], [key]
        for synonym in [display, *synonyms]:
            synonym = str(synonym)
            if _is_acronym(synonym):
                acronyms.append(synonym)
            else:
                variants.append(keyword_key(synonym))
        entry = VocabularyEntry(display, key, tuple(dict.fromkeys(variants)), tuple(dict.fromkeys(acronyms)))
        entries[key] = entry
        for variant in entry.variants:
            by_variant.setdefault(tuple(variant.split()), key)
        for acronym in entry.acronyms:
            by_acronym.setdefault(acronym, key)
    longest: dict[str, int] = {}
    for tokens in by_variant:
        longest[tokens[0]] = max(longest.get(tokens[0], 0), len(tokens))
    return Vocabulary(entries, by_variant, by_acronym, longest)


def bundled_vocabulary_path() -> Path:
    return Path(str(resources.files("generator") / "data" / "vocabulary.yaml"))


@lru_cache(maxsize=4)
def load_vocabulary(path: str | None = None) -> Vocabulary:
    file = Path(path) if path else bundled_vocabulary_path()
    return parse_vocabulary(yaml.safe_load(file.read_text(encoding="utf-8")), str(file))


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
    """A single title word that can stand as a last-resort keyword ("grokking", not "ensure")."""
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
            form = _display_word(gram[0].surface) + "".join(
                ("-" if w.hyphen_before else " ") + _display_word(w.surface) for w in gram[1:])
            surfaces[key][form] += 1
            if is_title:
                title_keys.add(key)


def _longest_vocabulary_match(run: list[Word], start: int, vocabulary: Vocabulary) -> tuple[str, int] | None:
    for n in range(min(vocabulary.longest.get(run[start].key, 0), len(run) - start), 0, -1):
        hit = vocabulary.by_variant.get(tuple(w.key for w in run[start : start + n]))
        if hit is not None:
            return hit, n
    acronym = _singular_acronym(run[start].surface)
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
        return _is_acronym_word(last) or keyword_singular(last.lower()) == last.lower()

    return min(forms, key=lambda f: (not is_singular(f), -forms[f], f))


# --------------------------------------------------------------------------- choosing


def rank_candidates(terms: PaperTerms, index: KeywordIndex, vocabulary: Vocabulary) -> tuple[list[str], list[str]]:
    """(the strong shared terms, best first; fallbacks: weaker shared terms, then the paper's own)."""
    papers = max(index.papers, 1)
    too_common = papers * 0.4 if papers >= 50 else papers + 1

    def weight(key: str, count: int, curated: bool) -> float:
        df = index.document_frequency.get(key, 1)
        idf = math.log((papers + 1) / df) + 1.0
        title_bonus = 2.0 if key in terms.title_keys else 1.0
        if curated:
            return (1.0 + math.log(count)) * idf * title_bonus * 1.6
        # A phrase authors put in titles names a subject; one only abstracts use may be wording.
        in_titles = min(1.0, 4.0 * index.title_frequency.get(key, 0) / df)
        return (1.0 + math.log(count)) * idf * title_bonus * (0.7 + 0.5 * in_titles)

    shared, single = [], []
    broad = []
    for key, count in terms.vocabulary.items():
        df = index.document_frequency.get(key, 0)
        if df > too_common:
            continue
        if key in _broad_terms() and key not in terms.title_keys:
            broad.append((weight(key, count, True), key))
            continue
        (shared if df >= 2 else single).append((weight(key, count, True), key))
    for key, count in terms.phrases.items():
        if key in index.phrase_display and index.document_frequency.get(key, 0) <= too_common:
            shared.append((weight(key, count, False), key))
    shared.sort(key=lambda item: (-item[0], item[1]))
    single.sort(key=lambda item: (-item[0], item[1]))
    strong = {key for score, key in shared if score >= 0.3 * shared[0][0]} if shared else set()
    distinct = _drop_nested([key for _, key in shared])
    ranked = [key for key in distinct if key in strong]
    weaker = [key for key in distinct if key not in strong]
    # Last resort: the title's own subject words that other papers use too; a word that is a
    # vocabulary spelling stands for its term ("diffusion"), one that only begins a longer term
    # ("reinforcement", "inverse") is a piece of it, never a keyword.
    title_words = [vocabulary.by_variant.get((t,), t) for t in dict.fromkeys(terms.title_tokens)
                   if (t,) in vocabulary.by_variant or (is_subject_word(t) and t not in index.term_starts)]
    words = [t for t in dict.fromkeys(title_words) if 2 <= index.token_frequency.get(t, index.document_frequency.get(t, 0)) <= too_common]
    # The more papers use a word, the likelier another paper falls back on it too.
    words.sort(key=lambda t: (-index.token_frequency.get(t, index.document_frequency.get(t, 0)), t))
    weak_phrases = sorted((key for key in terms.phrases if key in index.fallback_display),
                          key=lambda k: (-index.document_frequency[k], -terms.phrases[k], k))
    # Never fewer than three: the paper's own phrases and title words, even if no other paper uses them.
    own = sorted((key for key in terms.phrases if key not in index.fallback_display and key not in index.phrase_display),
                 key=lambda k: (-terms.phrases[k], k))
    own_words = [t for t in dict.fromkeys(title_words) if t not in words]
    # The broader vocabulary terms the paper's narrower ones spell out ("reinforcement learning" in
    # "offline reinforcement learning"): dropped as nested above, they come back before any title word.
    broad.sort(key=lambda item: (-item[0], item[1]))
    mentioned = [key for _, key in shared] + [key for _, key in single] + [key for _, key in broad]
    implied = [key for key in vocabulary.entries
               if key not in mentioned and any(f" {key} " in f" {other} " for other in mentioned)]
    implied.sort(key=lambda k: (-index.document_frequency.get(k, 0), k))
    # At the very end, title words that begin a longer term the paper does not use at all.
    covered = {t for key in mentioned for t in key.split()}
    pieces = [t for t in dict.fromkeys(terms.title_tokens)
              if is_subject_word(t) and t in index.term_starts and t not in covered and (t,) not in vocabulary.by_variant]
    fallback = weaker + weak_phrases + [key for _, key in single] + implied + [key for _, key in broad]
    return ranked, fallback + words + own + own_words + pieces


def select_keywords(ranked: list[str], fallback: list[str], banned: frozenset[str] = frozenset(),
                    in_use: frozenset[str] = frozenset()) -> list[str]:
    """Keys of the 3-8 best terms, skipping banned ones unless the paper would have too few.

    A paper short of strong terms takes fallbacks other papers already use first,
    so that its last-resort keywords join existing keyword pages.
    """
    chosen = [key for key in ranked if key not in banned][:MAX_KEYWORDS]
    allowed = sorted((key for key in fallback if key not in banned), key=lambda key: key not in in_use)
    for key in [*allowed, *ranked, *fallback]:
        if len(chosen) >= MIN_KEYWORDS:
            break
        if key not in chosen:
            chosen.append(key)
    return chosen


def _drop_nested(keys: list[str]) -> list[str]:
    """Keep "graph neural network", drop "neural network" when a better-ranked key contains it."""
    kept: list[str] = []
    for key in keys:
        padded = f" {key} "
        if any(padded in f" {other} " or f" {other} " in padded for other in kept):
            continue
        kept.append(key)
    return kept


def extract_keywords(papers: Sequence[tuple[str, str]], vocabulary: Vocabulary | None = None) -> list[list[str]]:
    """Keywords for each (title, abstract), in the same order; independent of that order."""
    vocabulary = vocabulary or load_vocabulary()
    all_terms = [find_terms(title, abstract, vocabulary) for title, abstract in papers]
    index = build_index(all_terms, vocabulary)
    candidates = [rank_candidates(terms, index, vocabulary) for terms in all_terms]
    # A keyword only one paper ends up with makes an index page of one: ban those
    # and choose again, a few times, so that keyword pages group papers.
    banned: frozenset[str] = frozenset()
    chosen = [select_keywords(ranked, single) for ranked, single in candidates]
    for _ in range(4):
        uses = Counter(key for keys in chosen for key in keys)
        lonely = frozenset(key for key, n in uses.items() if n < 2)
        if not lonely - banned:
            break
        banned |= lonely
        in_use = frozenset(uses) - banned
        chosen = [select_keywords(ranked, single, banned, in_use) for ranked, single in candidates]
    return [[_display(key, vocabulary, index) for key in keys] for keys in chosen]


def _display(key: str, vocabulary: Vocabulary, index: KeywordIndex) -> str:
    if key in vocabulary.entries:
        return vocabulary.display(key)
    return index.phrase_display.get(key) or index.fallback_display.get(key) or key
