"""Related papers: the k most similar papers by content (title, keywords, abstract).

In: papers. Out: for each paper slug, up to k other slugs, most similar first.
TF-IDF vectors are compared through a pruned posting list: each term keeps only
its ``POSTINGS`` highest-weighted papers, so the work grows with papers x terms
per paper x POSTINGS instead of with all pairs. Ties are broken by slug so the
result never depends on input order.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from generator.record import PaperRecord

POSTINGS = 200  # papers kept per term: above a few thousand papers this bounds the work
CHUNK = 512


def _text(paper: PaperRecord) -> str:
    # The title and keywords say what a paper is about more densely than its abstract.
    return " ".join([paper.title] * 2 + list(paper.keywords) * 2 + [paper.abstract or ""])


def _prune_postings(matrix: sparse.csr_matrix, keep: int) -> sparse.csr_matrix:
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


def related_papers(papers: list[PaperRecord], k: int = 5) -> dict[str, list[str]]:
    ordered = sorted(papers, key=lambda p: p.slug)
    slugs = [p.slug for p in ordered]
    result: dict[str, list[str]] = {slug: [] for slug in slugs}
    if len(ordered) < 2:
        return result
    try:
        vectors = TfidfVectorizer(
            stop_words="english", sublinear_tf=True, max_df=0.5, min_df=1, dtype=np.float64
        ).fit_transform([_text(p) for p in ordered])
    except ValueError:  # every text empty or stop words only
        return result
    vectors = sparse.csr_matrix(vectors)
    targets = _prune_postings(vectors, POSTINGS).T.tocsc() if len(ordered) > POSTINGS else vectors.T.tocsc()
    names = np.array(slugs)
    for start in range(0, len(ordered), CHUNK):
        scores = (vectors[start : start + CHUNK] @ targets).toarray()
        for offset, row in enumerate(scores):
            i = start + offset
            row[i] = 0.0
            candidates = np.flatnonzero(row > 1e-9)
            if not len(candidates):
                continue
            # round so that float noise between runs cannot reorder equal scores
            order = np.lexsort((names[candidates], -np.round(row[candidates], 9)))[:k]
            result[slugs[i]] = [slugs[j] for j in candidates[order]]
    return result
