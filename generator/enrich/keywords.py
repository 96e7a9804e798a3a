"""Keywords: 3-8 canonical keywords per paper, shared across the corpus.

Part of the enrichment stage. Keywords come from the project's vocabulary
(``vocabulary.py``: ML terms with their synonyms and acronyms) and from
phrases mined from the corpus itself (``phrases.py``). Every spelling variant
of a term - case, plural, hyphen or space, a split prefix ("hyper parameter"),
acronym - maps to one canonical key, shown in one display form. This module
ranks each paper's candidates and chooses among them.

In:  (title, abstract) texts of the whole corpus. Out: a keyword list per paper,
the same whatever order the papers come in.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

from generator.enrich.phrases import KeywordIndex, PaperTerms, broad_terms, build_index, find_terms, is_subject_word
from generator.enrich.vocabulary import Vocabulary, load_vocabulary

MIN_KEYWORDS = 3
MAX_KEYWORDS = 8


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
        if key in broad_terms() and key not in terms.title_keys:
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
    implied = sorted(
        {key for key in _word_runs_within(mentioned) if key in vocabulary.entries} - set(mentioned),
        key=lambda k: (-index.document_frequency.get(k, 0), k),
    )
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


def _word_runs_within(keys: list[str]) -> set[str]:
    """Every run of whole words inside each key ("reinforcement learning" and "learning" inside
    "offline reinforcement learning"): the keys ``f" {run} " in f" {key} "`` holds for. A paper's
    few mentioned terms give a few dozen runs; testing every vocabulary entry against every term
    instead was 38 million tests at 11,672 papers."""
    runs: set[str] = set()
    for key in keys:
        words = key.split(" ")
        for start in range(len(words)):
            for end in range(start + 1, len(words) + 1):
                runs.add(" ".join(words[start:end]))
    return runs


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
