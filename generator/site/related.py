"""Related papers: the k most similar papers by content (title, keywords, abstract).

In: papers. Out: for each paper slug, up to k other slugs, most similar first.
TF-IDF vectors are compared through a pruned posting list: each term keeps only
its ``POSTINGS`` highest-weighted papers, so the work grows with papers x terms
per paper x POSTINGS instead of with all pairs. Ties are broken by slug so the
result never depends on input order. The vectors are made from each text's term
counts (``termcounts.py``), which a build keeps for the next: an edit tokenises
only the papers it changed, and gives the lists a clean build gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.pages.record import PaperRecord

if TYPE_CHECKING:
    from scipy import sparse

    from generator.site.termcounts import TermCounts

POSTINGS = 200  # papers kept per term: above a few thousand papers this bounds the work
CHUNK = 512
MAX_DF = 0.5  # a term in more than half the papers says nothing of what two of them share


def _text(paper: PaperRecord) -> str:
    # The title and keywords say what a paper is about more densely than its abstract.
    return " ".join([paper.title] * 2 + list(paper.keywords) * 2 + [paper.abstract or ""])


def related_texts(papers: list[PaperRecord]) -> list[tuple[str, str]]:
    """All ``related_of_texts`` is given of the papers: (slug, text), in slug order. Its result is kept
    by their fingerprint (``stage.py``); loads no numerical library."""
    return sorted((p.slug, _text(p)) for p in papers)


def _prune_postings(matrix: "sparse.csr_matrix", keep: int) -> "sparse.csr_matrix":
    import numpy as np
    from scipy import sparse

    columns = matrix.tocsc()
    rows, cols, vals = [], [], []
    for col in range(columns.shape[1]):
        start, end = columns.indptr[col], columns.indptr[col + 1]
        if start == end:
            continue
        data = columns.data[start:end]
        index = columns.indices[start:end]
        if end - start > keep:
            # stable ordering on (-weight, row) keeps the choice deterministic
            order = np.lexsort((index, -data))[:keep]
            data, index = data[order], index[order]
        rows.append(index)
        cols.append(np.full(len(index), col))
        vals.append(data)
    if not rows:
        return sparse.csr_matrix(matrix.shape)
    return sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=matrix.shape
    )


def load_libraries() -> None:
    """Import what ``related_papers`` needs (a second, scikit-learn mostly): ``papersite serve`` does it
    while it waits for the first edit, which would otherwise pay it (a title or abstract edit)."""
    import numpy  # noqa: F401
    import scipy.sparse  # noqa: F401
    import sklearn.feature_extraction.text  # noqa: F401


def related_papers(papers: list[PaperRecord], k: int = 5) -> dict[str, list[str]]:
    return related_of_texts(related_texts(papers), k)


def related_of_texts(texts: list[tuple[str, str]], k: int = 5) -> dict[str, list[str]]:
    """``related_papers`` of (slug, text) pairs in slug order (``related_texts``)."""
    return related_and_counts(texts, None, k)[0]


def related_and_counts(
    texts: list[tuple[str, str]], kept: "TermCounts | None", k: int = 5
) -> tuple[dict[str, list[str]], "TermCounts"]:
    """``related_of_texts``, with the texts' counts: ``kept`` (the last build's) spares the texts it counted."""
    from generator.site.termcounts import counted

    counts = counted([text for _, text in texts], kept)
    return related_of_counts([slug for slug, _ in texts], counts, k), counts


def related_of_counts(slugs: list[str], counts: "TermCounts", k: int = 5) -> dict[str, list[str]]:
    """The related lists of papers ``slugs`` (slug order) whose texts were counted into ``counts``."""
    import numpy as np

    from generator.site.termcounts import tfidf

    result: dict[str, list[str]] = {slug: [] for slug in slugs}
    if len(slugs) < 2:
        return result
    vectors = tfidf(counts, MAX_DF)
    if vectors is None:  # every text empty or stop words only
        return result
    targets = _prune_postings(vectors, POSTINGS).T.tocsc() if len(slugs) > POSTINGS else vectors.T.tocsc()
    for start in range(0, len(slugs), CHUNK):
        # Stay sparse: each row holds only the papers that share a kept posting
        # with it, so the work grows with the papers, not with their square.
        scores = (vectors[start : start + CHUNK] @ targets).tocsr()
        indptr, columns, values = scores.indptr, scores.indices, scores.data
        # round so that float noise between runs cannot reorder equal scores
        rounded = np.round(values, 9)
        for offset in range(scores.shape[0]):
            i = start + offset
            lo, hi = indptr[offset], indptr[offset + 1]
            keep = (values[lo:hi] > 1e-9) & (columns[lo:hi] != i)  # not related to itself
            cols, vals = columns[lo:hi][keep], rounded[lo:hi][keep]
            if not len(cols):
                continue
            if len(cols) > k:
                # only the entries at or above the k-th best score can make the list
                kth = np.partition(vals, len(vals) - k)[len(vals) - k]
                top = vals >= kth
                cols, vals = cols[top], vals[top]
            # papers are in slug order, so the index breaks ties by slug
            order = np.lexsort((cols, -vals))[:k]
            result[slugs[i]] = [slugs[j] for j in cols[order]]
    return result
