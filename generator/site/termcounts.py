"""Term counts of a corpus's texts, kept from one build to the next, and TF-IDF made from them.

In: texts in slug order (``related.related_texts``, ``paper_map.map_texts``) and the counts the
last build kept. Out: ``TermCounts`` (each text's words and how often, rows in the texts' order)
and its TF-IDF matrix.

Why: related papers and the map compared every paper's text again at each edit, and tokenising
11,672 texts was a quarter of that work (BENCHMARKS.md, issue 31 part 3). A text's counts are a
function of the text alone, so a text the last build counted is not read again: only the edited
papers are tokenised. The TF-IDF is then computed from the counts, whole (a title's words change
their document frequency, hence the weights of every paper holding them), in one canonical form
(vocabulary sorted, each row's terms in vocabulary order): counts kept from before and counts made
afresh give the same matrix, bit for bit, so an edit's result is a clean build's.

The words are scikit-learn's (its analyzer with English stop words, the tokens ``TfidfVectorizer``
read before: ``_analyzer`` does what it does without importing scikit-learn, whose import was ~0.7 s
of every edit's related papers), and the weights its ``TfidfVectorizer(sublinear_tf=True, smooth_idf=True, norm="l2")``:
the same lists and the same map as before, up to the last bit of a float.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

COUNTS_VERSION = "sklearn-english-2"  # what a build keeps of another tokeniser or layout is not reused


@dataclass(frozen=True, eq=False)
class TermCounts:
    """Counts of the words of texts: row ``i`` is text ``i``'s terms (indices into ``vocabulary``,
    ascending) and their counts, a CSR layout. ``digests[i]`` names text ``i`` (its SHA-1)."""

    digests: tuple[str, ...]
    vocabulary: tuple[str, ...]  # sorted; every term occurs in some row
    indptr: Any  # numpy int64, len(digests) + 1
    indices: Any  # numpy int32
    counts: Any  # numpy int32

    def __len__(self) -> int:
        return len(self.digests)

    def same_as(self, other: "TermCounts") -> bool:
        import numpy as np

        return (self.digests == other.digests and self.vocabulary == other.vocabulary
                and all(np.array_equal(a, b) for a, b in ((self.indptr, other.indptr), (self.indices, other.indices),
                                                          (self.counts, other.counts))))


def text_digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()  # noqa: S324 - names a text, no secret


# CountVectorizer's defaults: lower case, no accent stripping, this token pattern, one-word terms
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def _analyzer() -> Callable[[str], list[str]]:
    """``CountVectorizer(stop_words="english").build_analyzer()``, token for token
    (tests/site/test_termcounts.py compares the two)."""
    stop, findall = english_stop_words(), _TOKEN.findall
    return lambda text: [word for word in findall(text.lower()) if word not in stop]


@lru_cache(maxsize=1)
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words, read from the module that holds them and nothing else:
    importing it through its package runs scikit-learn's ``__init__`` (most of a second)."""
    spec = importlib.util.find_spec("sklearn")  # a top-level package is found, not imported
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "feature_extraction" / "_stop_words.py"
        module_spec = importlib.util.spec_from_file_location("papersite_sklearn_stop_words", path)
        if module_spec is None or module_spec.loader is None or not path.is_file():
            continue
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        words = getattr(module, "ENGLISH_STOP_WORDS", None)
        if isinstance(words, frozenset) and words:
            return words
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # another layout: the long way

    return ENGLISH_STOP_WORDS


def counted(texts: Sequence[str], kept: TermCounts | None = None) -> TermCounts:
    """The counts of ``texts``; a text with the digest of one of ``kept``'s rows takes that row."""
    import numpy as np

    digests = tuple(text_digest(text) for text in texts)
    kept_row: dict[str, int] = {d: i for i, d in enumerate(kept.digests)} if kept is not None else {}
    fresh: dict[int, tuple[list[str], list[int]]] = {}
    analyze = None
    for i, (text, digest) in enumerate(zip(texts, digests)):
        if digest not in kept_row:
            analyze = analyze or _analyzer()
            words = Counter(analyze(text))
            terms = sorted(words)
            fresh[i] = (terms, [words[t] for t in terms])
    old_vocabulary = kept.vocabulary if kept is not None else ()
    vocabulary = sorted(set(old_vocabulary).union(t for terms, _ in fresh.values() for t in terms))
    index = {term: i for i, term in enumerate(vocabulary)}
    # where each kept term now stands (both lists sorted: a kept row stays in ascending order)
    old_position = np.fromiter((index[t] for t in old_vocabulary), dtype=np.int32, count=len(old_vocabulary))
    # each row's terms and counts: a kept row's from the kept arrays, a run of rows kept in the same order
    # at once (a loop of slices a row was a second at 100k papers), a fresh row's from its own count
    source = np.fromiter((kept_row.get(digest, -1) for digest in digests), dtype=np.int64, count=len(digests))  # -1: fresh
    lengths = np.zeros(len(texts), dtype=np.int64)
    from_kept = source >= 0
    if kept is not None:
        lengths[from_kept] = np.diff(kept.indptr)[source[from_kept]]
    for i, (terms, _) in fresh.items():
        lengths[i] = len(terms)
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lengths)
    indices = np.zeros(int(indptr[-1]), dtype=np.int32)
    counts = np.zeros(int(indptr[-1]), dtype=np.int32)
    follows = np.r_[False, from_kept[1:] & from_kept[:-1] & (source[1:] == source[:-1] + 1)]
    starts = np.flatnonzero(from_kept & ~follows).tolist()
    ends = (np.flatnonzero(from_kept & ~np.r_[follows[1:], False]) + 1).tolist()
    for first, end in zip(starts, ends):
        lo, hi = kept.indptr[source[first]], kept.indptr[source[end - 1] + 1]
        indices[indptr[first] : indptr[end]] = old_position[kept.indices[lo:hi]]
        counts[indptr[first] : indptr[end]] = kept.counts[lo:hi]
    for i, (terms, numbers) in fresh.items():
        indices[indptr[i] : indptr[i + 1]] = np.fromiter((index[t] for t in terms), dtype=np.int32, count=len(terms))
        counts[indptr[i] : indptr[i + 1]] = numbers
    # terms no text holds any more leave the vocabulary (a clean count never had them)
    used = np.bincount(indices, minlength=len(vocabulary)) > 0
    if not used.all():
        renumber = (np.cumsum(used) - 1).astype(np.int32)
        indices, vocabulary = renumber[indices], [t for t, u in zip(vocabulary, used.tolist()) if u]
    return TermCounts(digests, tuple(vocabulary), indptr, indices.astype(np.int32), counts.astype(np.int32))


def _kept(counts: TermCounts, max_df: float, min_df: int):  # noqa: ANN202 (document frequencies, kept mask)
    import numpy as np

    document_frequency = np.bincount(counts.indices, minlength=len(counts.vocabulary))
    return document_frequency, (document_frequency >= min_df) & (document_frequency <= max_df * len(counts))


def kept_terms(counts: TermCounts, max_df: float, min_df: int = 1) -> tuple[str, ...]:
    """The terms ``tfidf`` keeps: its columns, in order."""
    kept = _kept(counts, max_df, min_df)[1].tolist()
    return tuple(term for term, keep in zip(counts.vocabulary, kept) if keep)


def tfidf(counts: TermCounts, max_df: float, min_df: int = 1):  # noqa: ANN201 (a scipy CSR matrix, or None)
    """``TfidfVectorizer(sublinear_tf=True, max_df=max_df, min_df=min_df).fit_transform`` of the counted
    texts, rows L2-normalised; its columns are the kept terms in vocabulary order. None when no term is
    kept (where scikit-learn raises ValueError)."""
    import numpy as np
    from scipy import sparse

    n = len(counts)
    document_frequency, kept = _kept(counts, max_df, min_df)
    if not n or not kept.any():
        return None
    column = (np.cumsum(kept) - 1).astype(np.int32)
    idf = np.log((1.0 + n) / (1.0 + document_frequency)) + 1.0
    rows = np.repeat(np.arange(n), np.diff(counts.indptr))
    keep = kept[counts.indices]
    rows, terms = rows[keep], counts.indices[keep]
    weights = (np.log(counts.counts[keep].astype(np.float64)) + 1.0) * idf[terms]
    # np.bincount adds each row's squares in order: a row's norm depends on that row alone
    norms = np.sqrt(np.bincount(rows, weights=weights * weights, minlength=n))
    weights = weights / np.where(norms > 0, norms, 1.0)[rows]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
    return sparse.csr_matrix((weights, column[terms], indptr), shape=(n, int(kept.sum())))
