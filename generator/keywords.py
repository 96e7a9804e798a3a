"""Keywords: 3-8 canonical keywords per paper, shared across the corpus.

Part of the enrichment stage. Keywords come from the project's vocabulary
(``generator/data/vocabulary.yaml``: ML terms with their synonyms and acronyms)
and from phrases mined from the corpus itself (noun-like phrases that at least
two papers use). Every spelling variant of a term - case, plural, hyphen or
space, acronym - maps to one canonical key, shown in one display form.

In:  (title, abstract) texts of the whole corpus. Out: a keyword list per paper,
the same whatever order the papers come in.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

import yaml

MIN_KEYWORDS = 3
MAX_KEYWORDS = 8
MAX_PHRASE_TOKENS = 6
MIN_COLLOCATION = 0.12

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
    text = unicodedata.normalize("NFKC", text)
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
        singular_acronym = stripped[:-1] if stripped.endswith("s") and stripped[:-1].isupper() else stripped
        if singular_acronym in self.by_acronym:
            return self.by_acronym[singular_acronym]
        key = canonical_key(phrase)
        return self.by_variant.get(tuple(key.split()), key)

    def display(self, key: str) -> str:
        entry = self.entries.get(key)
        return entry.display if entry else key


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
        key = canonical_key(display)
        acronyms, variants = [], [key]
        for synonym in [display, *synonyms]:
            synonym = str(synonym)
            if _is_acronym(synonym):
                acronyms.append(synonym)
            else:
                variants.append(canonical_key(synonym))
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


@lru_cache(maxsize=200_000)
def _is_filler(token: str) -> bool:
    return token in STOPWORDS or token in GENERIC_WORDS or token.isdigit() or len(token) < 2


def is_junk(key_tokens: Sequence[str]) -> bool:
    """A phrase no reader would browse by: filler words, numbers, or a bare generic head."""
    if not key_tokens or len(key_tokens) > MAX_PHRASE_TOKENS:
        return True
    for position, token in enumerate(key_tokens):
        if token in STOPWORDS or token in GENERIC_WORDS or token.isdigit() or len(token) < 2:
            return True
        if token in ALLOWED_LAST_ONLY and position != len(key_tokens) - 1:
            return True
    if len(key_tokens) == 1 and key_tokens[0] in ALLOWED_LAST_ONLY:
        return True
    last = key_tokens[-1]
    # Adverbs and adjectives do not end a noun phrase.
    return last.endswith(("ly", "ive", "ous", "able", "ible", "ful", "ic", "al")) and len(key_tokens) > 1


@dataclass(frozen=True)
class PaperTerms:
    """What one paper mentions: canonical keys with counts, title mentions counted apart."""

    vocabulary: Counter
    phrases: Counter  # candidate mined phrases (key) from text the vocabulary did not cover
    surfaces: dict  # phrase key -> Counter of surface forms
    title_keys: frozenset
    tokens: frozenset  # every token key, for telling collocations from chance pairs
    title_tokens: tuple = ()  # title words in order: the last resort for a paper with few terms


def find_terms(title: str, abstract: str, vocabulary: Vocabulary) -> PaperTerms:
    """Vocabulary terms (longest match first) and the candidate phrases between them."""
    vocab_counts: Counter = Counter()
    phrase_counts: Counter = Counter()
    surfaces: dict[str, Counter] = defaultdict(Counter)
    title_keys: set[str] = set()
    tokens: set[str] = set()
    for is_title, text in ((True, title or ""), (False, abstract or "")):
        for run in segments(text):
            tokens.update(t.key for t in run)
            uncovered: list[list[Token]] = [[]]
            i = 0
            while i < len(run):
                match = _longest_vocabulary_match(run, i, vocabulary)
                if match is None:
                    uncovered[-1].append(run[i])
                    i += 1
                    continue
                key, length = match
                vocab_counts[key] += 1
                if is_title:
                    title_keys.add(key)
                uncovered.append([])
                i += length
            for piece in uncovered:
                usable = [not _is_filler(t.key) for t in piece]
                for start in range(len(piece) - 1):
                    for n in (2, 3):
                        if start + n > len(piece) or not all(usable[start : start + n]):
                            break
                        gram = piece[start : start + n]
                        keys = [t.key for t in gram]
                        if is_junk(keys):
                            continue
                        key = " ".join(keys)
                        phrase_counts[key] += 1
                        surfaces[key][" ".join(t.surface.lower() for t in gram)] += 1
                        if is_title:
                            title_keys.add(key)
    title_tokens = tuple(t.key for run in segments(title or "") for t in run)
    return PaperTerms(vocab_counts, phrase_counts, dict(surfaces), frozenset(title_keys), frozenset(tokens), title_tokens)


def _longest_vocabulary_match(run: list[Token], start: int, vocabulary: Vocabulary) -> tuple[str, int] | None:
    surface = run[start].surface
    singular_surface = surface[:-1] if surface.endswith("s") and surface[:-1].isupper() else surface
    for n in range(min(vocabulary.longest.get(run[start].key, 0), len(run) - start), 0, -1):
        hit = vocabulary.by_variant.get(tuple(t.key for t in run[start : start + n]))
        if hit is not None:
            return hit, n
    if singular_surface in vocabulary.by_acronym:
        return vocabulary.by_acronym[singular_surface], 1
    return None


@dataclass(frozen=True)
class KeywordIndex:
    """Corpus-wide view: how many papers use each term, and each mined phrase's display form."""

    document_frequency: dict[str, int]
    phrase_display: dict[str, str]
    papers: int
    token_frequency: dict[str, int] = field(default_factory=dict)


def build_index(all_terms: Sequence[PaperTerms], vocabulary: Vocabulary) -> KeywordIndex:
    document_frequency: Counter = Counter()
    token_frequency: Counter = Counter()
    surfaces: dict[str, Counter] = defaultdict(Counter)
    for terms in all_terms:
        document_frequency.update(set(terms.vocabulary))
        document_frequency.update(set(terms.phrases))
        token_frequency.update(terms.tokens)
        for key, forms in terms.surfaces.items():
            surfaces[key].update(forms)
    papers = len(all_terms)
    min_papers = 2 if papers < 2000 else 3
    phrase_display = {}
    for key, forms in surfaces.items():
        df = document_frequency[key]
        if df < min_papers or key in vocabulary.entries:
            continue
        # A collocation ("action space") is used together far more often than its
        # words' frequencies suggest; a chance pair ("successful attack") is not.
        if df < MIN_COLLOCATION * min(token_frequency[t] for t in key.split()):
            continue
        # The singular spelling when anyone wrote it, else the most used one; ties by text.
        phrase_display[key] = key if key in forms else min(forms, key=lambda f: (-forms[f], f))
    return KeywordIndex(dict(document_frequency), phrase_display, papers, dict(token_frequency))


def rank_candidates(terms: PaperTerms, index: KeywordIndex, vocabulary: Vocabulary) -> tuple[list[str], list[str]]:
    """(the strong shared terms, best first; fallbacks: weaker shared terms, then the paper's own)."""
    papers = max(index.papers, 1)
    too_common = papers * 0.4 if papers >= 50 else papers + 1

    def weight(key: str, count: int, curated: bool) -> float:
        df = index.document_frequency.get(key, 1)
        idf = math.log((papers + 1) / df) + 1.0
        title_bonus = 2.0 if key in terms.title_keys else 1.0
        return (1.0 + math.log(count)) * idf * title_bonus * (1.6 if curated else 1.0)

    shared, single = [], []
    for key, count in terms.vocabulary.items():
        df = index.document_frequency.get(key, 0)
        if df > too_common:
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
    # Last resort: the title's own subject words that other papers use too.
    words = [t for t in dict.fromkeys(terms.title_tokens)
             if t.isalpha() and len(t) >= 4 and not is_junk((t,)) and 2 <= index.token_frequency.get(t, 0) <= too_common]
    words.sort(key=lambda t: (index.token_frequency[t], t))
    return ranked, weaker + [key for _, key in single] + words


def select_keywords(ranked: list[str], fallback: list[str], banned: frozenset[str] = frozenset()) -> list[str]:
    """Keys of the 3-8 best terms, skipping banned ones unless the paper would have too few."""
    chosen = [key for key in ranked if key not in banned][:MAX_KEYWORDS]
    allowed = [key for key in fallback if key not in banned]
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
    for _ in range(3):
        uses = Counter(key for keys in chosen for key in keys)
        lonely = frozenset(key for key, n in uses.items() if n < 2)
        if not lonely - banned:
            break
        banned |= lonely
        chosen = [select_keywords(ranked, single, banned) for ranked, single in candidates]
    return [[vocabulary.display(key) if key in vocabulary.entries else index.phrase_display.get(key, key) for key in keys]
            for keys in chosen]
