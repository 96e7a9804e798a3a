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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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


def related_papers(papers: list[PaperRecord], k: int = 5) -> dict[str, list[str]]:
    return related_of_texts(related_texts(papers), k)


def related_of_texts(texts: list[tuple[str, str]], k: int = 5) -> dict[str, list[str]]:
    """``related_papers`` of (slug, text) pairs in slug order (``related_texts``)."""
    return related_and_counts(texts, None, k)[0]


@dataclass(frozen=True, eq=False)
class Scored:
    """What a computation of the lists leaves for the next one (kept in the build's memo).

    ``counts``: the texts' term counts; ``postings``: the pruned postings the rows were compared
    with, a CSC matrix over ``terms`` (the TF-IDF's columns: a column's papers and weights); the
    lists, row by row (CSR: ``listed`` columns are papers, ``scores`` their rounded scores)."""

    slugs: tuple[str, ...]
    k: int
    counts: "TermCounts"
    terms: tuple[str, ...]
    postings: Any  # scipy CSC, papers x terms
    listed_indptr: Any
    listed: Any
    scores: Any
    compared: int  # rows compared with every paper this time (the others were merged with their last list)

    def lists(self) -> dict[str, list[str]]:
        slugs, indptr, listed = self.slugs, self.listed_indptr.tolist(), self.listed.tolist()
        return {slug: [slugs[j] for j in listed[indptr[i] : indptr[i + 1]]] for i, slug in enumerate(slugs)}


def related_and_counts(texts: list[tuple[str, str]], kept: "Scored | None", k: int = 5) -> tuple[dict[str, list[str]], "Scored"]:
    """``related_of_texts``, and what the next computation may start from. With ``kept`` (the last
    build's): its counts spare the texts it counted, and a row whose list cannot have changed is
    not compared again (``_rows_to_compare``); the lists are a clean computation's all the same."""
    from generator.site.termcounts import counted

    counts = counted([text for _, text in texts], kept.counts if kept is not None else None)
    scored = _scored(tuple(slug for slug, _ in texts), counts, k, kept)
    return scored.lists(), scored


def _scored(slugs: tuple[str, ...], counts: "TermCounts", k: int, last: "Scored | None") -> Scored:
    import numpy as np
    from scipy import sparse

    from generator.site.termcounts import kept_terms, tfidf

    n = len(slugs)
    vectors = tfidf(counts, MAX_DF) if n >= 2 else None
    if vectors is None:  # fewer than two papers, or every text empty or stop words only
        empty = np.zeros(0, dtype=np.int64)
        return Scored(slugs, k, counts, (), sparse.csc_matrix((n, 0)), np.zeros(n + 1, dtype=np.int64), empty, np.zeros(0), 0)
    terms = kept_terms(counts, MAX_DF)
    pruned = _prune_postings(vectors, POSTINGS) if n > POSTINGS else vectors
    postings = sparse.csc_matrix(pruned)
    postings.sort_indices()
    targets = postings.T.tocsc()
    rows: list[tuple[Any, Any]] = [(np.zeros(0, dtype=np.int64), np.zeros(0))] * n
    compare = np.arange(n)
    if last is not None and last.slugs == slugs and last.k == k and len(last.terms):
        compare = _rows_to_compare(vectors, targets, counts, terms, postings, last, rows)
    for start in range(0, len(compare), CHUNK):
        chunk = compare[start : start + CHUNK]
        # Stay sparse: each row holds only the papers that share a kept posting
        # with it, so the work grows with the papers, not with their square.
        scores = (vectors[chunk] @ targets).tocsr()
        for offset, i in enumerate(chunk.tolist()):
            lo, hi = scores.indptr[offset], scores.indptr[offset + 1]
            rows[i] = _top(i, scores.indices[lo:hi], scores.data[lo:hi], k)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(cols) for cols, _ in rows])
    return Scored(slugs, k, counts, terms, postings, indptr,
                  np.concatenate([cols for cols, _ in rows]).astype(np.int64), np.concatenate([vals for _, vals in rows]),
                  len(compare))


def _top(i: int, columns, values, k: int):  # noqa: ANN001, ANN202
    """Row ``i``'s list: (papers, rounded scores), at most ``k``, best first, ties by slug."""
    import numpy as np

    # round so that float noise between runs cannot reorder equal scores
    keep = (values > 1e-9) & (columns != i)  # not related to itself
    cols, vals = columns[keep], np.round(values[keep], 9)
    if len(cols) > k:
        # only the entries at or above the k-th best score can make the list
        kth = np.partition(vals, len(vals) - k)[len(vals) - k]
        top = vals >= kth
        cols, vals = cols[top], vals[top]
    # papers are in slug order, so the index breaks ties by slug
    order = np.lexsort((cols, -vals))[:k]
    return cols[order].astype(np.int64), vals[order]


def _rows_to_compare(vectors, targets, counts, terms, postings, last: Scored, rows: list) -> Any:  # noqa: ANN001, ANN401
    """The rows whose lists must be computed again; the others' lists are set in ``rows``.

    A row's scores are its vector times the postings, summed in its terms' order: a row whose
    vector is the last one's (its text and every one of its terms' document frequencies unchanged)
    scores every paper whose postings are unchanged exactly as before. So only the scores against
    the papers whose postings changed (``moved``) are computed for it, merged with its last list;
    the merge is the clean list unless a paper of that list fell below its old k-th entry (a paper
    outside it might then enter), and that row is compared in full."""
    import numpy as np

    n = len(last.slugs)
    changed = np.array([a != b for a, b in zip(counts.digests, last.counts.digests)], dtype=bool)
    last_df = dict(zip(last.counts.vocabulary, np.bincount(last.counts.indices, minlength=len(last.counts.vocabulary)).tolist()))
    df = np.bincount(counts.indices, minlength=len(counts.vocabulary))
    df_moved = np.array([last_df.get(t, 0) for t in counts.vocabulary], dtype=np.int64) != df
    row_of = np.repeat(np.arange(n), np.diff(counts.indptr))
    changed[row_of[df_moved[counts.indices]]] = True
    moved = _moved_postings(postings, terms, last)
    is_moved = np.zeros(n, dtype=bool)
    is_moved[moved] = True
    listed_rows = np.repeat(np.arange(n), np.diff(last.listed_indptr))
    touched = np.zeros(n, dtype=bool)
    touched[listed_rows[is_moved[last.listed]]] = True
    again = changed.copy()
    if len(moved):
        scores = (vectors[~changed] @ targets[:, moved]).tocsr()
        touched[np.flatnonzero(~changed)[np.diff(scores.indptr) > 0]] = True
        position = np.full(n, -1, dtype=np.int64)
        position[np.flatnonzero(~changed)] = np.arange(int((~changed).sum()))
    indptr, listed, kept_scores = last.listed_indptr, last.listed, last.scores
    for i in range(n):
        if changed[i]:
            continue
        lo, hi = indptr[i], indptr[i + 1]
        old_cols, old_vals = listed[lo:hi], kept_scores[lo:hi]
        if not touched[i]:
            rows[i] = (old_cols, old_vals)
            continue
        stays = ~is_moved[old_cols]
        p = position[i]
        new_cols, new_vals = _top(i, moved[scores.indices[scores.indptr[p] : scores.indptr[p + 1]]],
                                  scores.data[scores.indptr[p] : scores.indptr[p + 1]], last.k)
        cols = np.concatenate([old_cols[stays], new_cols])
        vals = np.concatenate([old_vals[stays], new_vals])
        order = np.lexsort((cols, -vals))[: last.k]
        cols, vals = cols[order], vals[order]
        if hi - lo == last.k and (len(cols) < last.k or (-vals[-1], cols[-1]) > (-old_vals[-1], old_cols[-1])):
            again[i] = True  # a paper that was not listed may now be: compared in full
        else:
            rows[i] = (cols, vals)
    return np.flatnonzero(again)


def _moved_postings(postings, terms: tuple[str, ...], last: Scored):  # noqa: ANN001, ANN202
    """The papers with a posting (term, weight) that is not the last computation's, or lost one."""
    import numpy as np

    union = sorted(set(terms).union(last.terms))
    number = {term: i for i, term in enumerate(union)}

    def entries(matrix, names):  # noqa: ANN001, ANN202 - (term, paper, weight's bits) of every posting
        ids = np.array([number[t] for t in names], dtype=np.int64)
        return np.repeat(ids, np.diff(matrix.indptr)), matrix.indices.astype(np.int64), matrix.data.view(np.int64)

    new, old = entries(postings, terms), entries(last.postings, last.terms)
    term, paper, bits = (np.concatenate([a, b]) for a, b in zip(new, old))
    order = np.lexsort((bits, paper, term))
    term, paper, bits = term[order], paper[order], bits[order]
    # a posting in both lists appears twice, side by side; one in only one of them, once
    twin = (term[1:] == term[:-1]) & (paper[1:] == paper[:-1]) & (bits[1:] == bits[:-1])
    alone = np.ones(len(term), dtype=bool)
    alone[1:] &= ~twin
    alone[:-1] &= ~twin
    return np.unique(paper[alone])
