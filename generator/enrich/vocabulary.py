"""The keyword vocabulary: ML terms with their synonyms and acronyms, and how keywords read words.

In:  ``generator/data/vocabulary.yaml`` (or a project's own file). Out: a
``Vocabulary`` mapping every spelling of a term to one canonical key and one
display form; ``keyword_runs`` / ``keyword_key`` read text the way keywords
compare it (hyphens tracked, bound prefixes joined, a few plurals that are not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from generator.text import unicode_normal
from generator.enrich.features import LATEX, SEGMENT_SPLIT, singular
from generator.problems import PapersiteError

# Prefixes that never stand alone: "hyper parameter", "hyper-parameter" and
# "hyperparameter" are one word, whatever the spacing.
BOUND_PREFIXES = frozenset("pre multi non hyper sub co semi intra inter bi uni pseudo quasi anti mini micro macro auto re".split())
# Words whose final "s" is not a plural.
_NOT_PLURAL = frozenset("series species physics bayes hawkes lens news gauss jones ames chess".split())
# Plurals the suffix rules get wrong ("axes" is not the plural of "ax" here).
_IRREGULAR_PLURALS = {"axes": "axis", "matrices": "matrix", "vertices": "vertex", "indices": "index",
                      "hypotheses": "hypothesis", "analyses": "analysis"}


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


def is_acronym_word(surface: str) -> bool:
    return sum(c.isupper() for c in surface) >= 2


def display_word(surface: str) -> str:
    return surface if is_acronym_word(surface) else surface.lower()


def keyword_runs(text: str) -> list[list[Word]]:
    """Runs of words between punctuation, with hyphen joins and bound prefixes resolved."""
    text = LATEX.sub(" ", unicode_normal(text))
    runs = []
    for part in SEGMENT_SPLIT.split(text):
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
        if singular_acronym(stripped) in self.by_acronym:
            return self.by_acronym[singular_acronym(stripped)]
        key = keyword_key(phrase)
        return self.by_variant.get(tuple(key.split()), key)

    def display(self, key: str) -> str:
        entry = self.entries.get(key)
        return entry.display if entry else key


def singular_acronym(surface: str) -> str:
    return surface[:-1] if surface.endswith("s") and surface[:-1].isupper() else surface


def _is_acronym(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and len(text) <= 8 and " " not in text and sum(c.isupper() for c in letters) >= 2


def parse_vocabulary(data: object, path: str = "<vocabulary>") -> Vocabulary:
    """Vocabulary from YAML data: ``display form: [synonym, ACRONYM, ...]``."""
    if not isinstance(data, dict):
        raise PapersiteError.at(path, 1, "expected a mapping of keyword display form to a list of synonyms")
    entries: dict[str, VocabularyEntry] = {}
    by_variant: dict[tuple[str, ...], str] = {}
    by_acronym: dict[str, str] = {}
    for display, synonyms in data.items():
        if synonyms is None:
            synonyms = []
        if not isinstance(display, str) or not isinstance(synonyms, list):
            raise PapersiteError.at(path, 1, f"entry {display!r} must map a string to a list of synonyms")
        key = keyword_key(display)
        if key in entries:
            raise PapersiteError.at(path, 1, f"entry {display!r} spells the same keyword as {entries[key].display!r}")
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
