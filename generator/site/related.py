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
LONG_ROW = 256  # a row's candidates above which its best are picked by itself (``_contenders``)
MAX_DF = 0.5  # a term in more than half the papers says nothing of what two of them share


def _text(paper: PaperRecord) -> str:
    # The title and keywords say what a paper is about more densely than its abstract.
    return " ".join([paper.title] * 2 + list(paper.keywords) * 2 + [paper.abstract or ""])


def related_texts(papers: list[PaperRecord]) -> list[tuple[str, str]]:
    """All ``related_of_texts`` is given of the papers: (slug, text), in slug order. Its result is kept
    by their fingerprint (``textwork.py``); loads no numerical library."""
    return related_in_order([related_item(p) for p in papers])


def related_item(paper: PaperRecord) -> tuple[str, str]:
    """What ``related_texts`` holds of one paper."""
    return paper.slug, _text(paper)


def related_in_order(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(items)


def _prune_postings(matrix: "sparse.csr_matrix", keep: int) -> "sparse.csr_matrix":
    import numpy as np
    from scipy import sparse

    columns = matrix.tocsc()
    count = np.diff(columns.indptr)
    longer = count > keep
    # a term held by at most ``keep`` papers keeps them all, without a call a term
    short = np.repeat(~longer, count)
    rows = [columns.indices[short]]
    cols = [np.repeat(np.arange(columns.shape[1]), count)[short]]
    vals = [columns.data[short]]
    for col in np.flatnonzero(longer).tolist():
        start, end = columns.indptr[col], columns.indptr[col + 1]
        data = columns.data[start:end]
        index = columns.indices[start:end]
        # only weights at or above the keep-th largest can be kept; stable ordering on (-weight, row)
        # keeps the choice among them deterministic
        top = data >= np.partition(data, len(data) - keep)[len(data) - keep]
        data, index = data[top], index[top]
        order = np.lexsort((index, -data))[:keep]
        rows.append(index[order])
        cols.append(np.full(keep, col))
        vals.append(data[order])
    if not columns.nnz:
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


def _contenders(indptr, rows, indices, values, papers, k: int):  # noqa: ANN001, ANN202
    """Rows' scores (row ``rows[j]``: papers ``papers[indices]`` and raw scores ``values`` at
    ``indptr[j]:indptr[j + 1]``) -> (row, paper, rounded score) of the entries its best k are among: a
    long row's own best k (``_top``), a short row's every entry but itself. Per row, numpy's calls cost
    more than a short row's entries; a long row's partition costs less than sorting them all."""
    import numpy as np

    count = np.diff(indptr)
    long_rows = count > LONG_ROW
    short = np.flatnonzero(~long_rows)
    lengths = count[short]
    at = np.repeat(indptr[:-1][short] - (np.cumsum(lengths) - lengths), lengths) + np.arange(lengths.sum())
    row, col, val = np.repeat(rows[short], lengths), papers[indices[at]], values[at]
    keep = (val > 1e-9) & (col != row)  # as _top
    found = [(row[keep], col[keep], np.round(val[keep], 9))]
    for j in np.flatnonzero(long_rows).tolist():
        lo, hi = indptr[j], indptr[j + 1]
        best, scores = _top(int(rows[j]), papers[indices[lo:hi]], values[lo:hi], k)
        found.append((np.full(len(best), rows[j], dtype=np.int64), best, scores))
    return tuple(np.concatenate(part) for part in zip(*found))


def _best_of_each_row(row, col, val, k: int):  # noqa: ANN001, ANN202
    """Entries (row, paper, rounded score) -> each row's best k, best first, ties by paper (``_top``'s
    order), in row order."""
    import numpy as np

    order = np.lexsort((col, -val, row))
    row, col, val = row[order], col[order], val[order]
    first = np.flatnonzero(np.r_[True, row[1:] != row[:-1]]) if len(row) else np.zeros(0, dtype=np.int64)
    rank = np.arange(len(row)) - np.repeat(first, np.diff(np.r_[first, len(row)]))
    best = rank < k
    return row[best], col[best], val[best]


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
    indptr, listed, kept_scores, k = last.listed_indptr, last.listed, last.scores, last.k
    for i in np.flatnonzero(~changed & ~touched).tolist():
        rows[i] = (listed[indptr[i] : indptr[i + 1]], kept_scores[indptr[i] : indptr[i + 1]])
    merged = ~changed & touched
    # Each merged row: its list's papers whose postings stayed, with their kept scores, and its scores
    # against the moved papers, the best k of both; all rows at once (a loop of numpy calls a row was
    # ~1.5 s at 11,672 papers, where an edit that moves a common term's frequency touches every row).
    stays = merged[listed_rows] & ~is_moved[listed]
    row, col, val = listed_rows[stays], listed[stays], kept_scores[stays]
    if len(moved):
        found_row, found_col, found_val = _contenders(scores.indptr, np.flatnonzero(~changed), scores.indices, scores.data,
                                                      moved, k)
        # a full list that kept every paper: a score below its last one cannot enter it
        floor = np.full(n, -np.inf)
        whole = merged & (np.bincount(row, minlength=n) == k)
        floor[whole] = kept_scores[indptr[1:][whole] - 1]
        enter = found_val >= floor[found_row]
        row, col, val = (np.concatenate([a, b[enter]]) for a, b in zip((row, col, val), (found_row, found_col, found_val)))
    row, col, val = _best_of_each_row(row, col, val, k)
    starts = np.searchsorted(row, np.arange(n + 1))
    count = np.diff(starts)
    # a paper that was not listed may now be where a full list lost one or its last got worse: compared in full
    full = merged & (np.diff(indptr) == k)
    again |= full & (count < k)
    whole = np.flatnonzero(full & (count == k))
    last_at, old_last = starts[whole + 1] - 1, indptr[whole + 1] - 1
    worse = val[last_at] < kept_scores[old_last]
    again[whole] |= worse | ((val[last_at] == kept_scores[old_last]) & (col[last_at] > listed[old_last]))
    for i in np.flatnonzero(merged & ~again).tolist():
        rows[i] = (col[starts[i] : starts[i + 1]], val[starts[i] : starts[i + 1]])
    return np.flatnonzero(again)


def _moved_postings(postings, terms: tuple[str, ...], last: Scored):  # noqa: ANN001, ANN202
    """The papers with a posting (term, weight) that is not the last computation's, or lost one.

    Both are CSC with each column's papers in order, so a term whose postings have the same length
    in both is compared entry by entry; only the terms that differ are sorted to find which papers
    moved (sorting every posting twice was most of an edit's related papers)."""
    import numpy as np

    union = sorted(set(terms).union(last.terms))
    number = {term: i for i, term in enumerate(union)}

    def columns(matrix, names):  # noqa: ANN001, ANN202 - each union term's (start, length) in matrix
        ids = np.array([number[t] for t in names], dtype=np.int64)
        start, length = np.zeros(len(union), dtype=np.int64), np.zeros(len(union), dtype=np.int64)
        start[ids], length[ids] = matrix.indptr[:-1], np.diff(matrix.indptr)
        return start, length

    (new_start, new_length), (old_start, old_length) = columns(postings, terms), columns(last.postings, last.terms)
    new_bits, old_bits = postings.data.view(np.int64), last.postings.data.view(np.int64)
    alike = np.flatnonzero(new_length == old_length)
    lengths = new_length[alike]
    term = np.repeat(alike, lengths)
    step = np.arange(len(term)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    at_new, at_old = new_start[term] + step, old_start[term] + step
    differ = (postings.indices[at_new] != last.postings.indices[at_old]) | (new_bits[at_new] != old_bits[at_old])
    changed = np.zeros(len(union), dtype=bool)
    changed[term[differ]] = True
    changed[new_length != old_length] = True

    def entries(start, length, indices, bits):  # noqa: ANN001, ANN202 - (term, paper, weight's bits) of the changed terms' postings
        ids = np.flatnonzero(changed)
        count = length[ids]
        where = np.repeat(start[ids], count) + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
        return np.repeat(ids, count), indices[where].astype(np.int64), bits[where]

    new = entries(new_start, new_length, postings.indices, new_bits)
    old = entries(old_start, old_length, last.postings.indices, old_bits)
    term, paper, bits = (np.concatenate([a, b]) for a, b in zip(new, old))
    order = np.lexsort((bits, paper, term))
    term, paper, bits = term[order], paper[order], bits[order]
    # a posting in both lists appears twice, side by side; one in only one of them, once
    twin = (term[1:] == term[:-1]) & (paper[1:] == paper[:-1]) & (bits[1:] == bits[:-1])
    alone = np.ones(len(term), dtype=bool)
    alone[1:] &= ~twin
    alone[:-1] &= ~twin
    return np.unique(paper[alone])
