"""Search index: lunr.js 2.3.9 indexes, scored here exactly as lunr.py scores them, written in shards.

In: for each paper (in catalog order), the terms of each field, already tokenised and stemmed
(``search.py``). Out: small JSON files of consecutive terms, the shards, and the first term of each
(``shard_files``); the browser's worker (``assets/search-worker.js``) turns the shards a query needs
into a ``lunr.Index`` and lunr.js searches it, so ranking is lunr's own.

Why not lunr.py's serialised index: at 11,672 papers it was 9.2 MB (short fields) and 22.8 MB
(abstracts) of JSON that the browser had to download, parse and load whole before the first result,
and lunr.py's builder took 13 CPU s of every build. A lunr index holds each (term, field, paper)
weight twice (the inverted index and the field vectors); here it is held once, per term, and the
worker rebuilds both halves.

- **Shards.** The terms, in order, cut into runs of about ``SHARD_BYTES`` of JSON (``_cut``), as
  Pagefind cuts its index into chunks; the manifest (``<index>-shards``) lists each shard's first
  term. A word needs the shard its stem falls in (``shard_of``) and, while it is being typed, the
  shards of every term it begins (``shards_of_prefix``): a few KB at any corpus size, where a shard
  per first letter grew with the corpus (130 KB for "s" at 11,672 papers, and ~1 MB at 100k).
  lunr.js asks one word at a time (``search-worker.js``) and a score is a dot product over the
  query's terms only, so the shards holding those terms answer with the same scores as the whole
  index. Near spellings (one edit) are looked up among the terms that begin with the word's first
  or second letter.
- **Cut where the terms say.** A shard ends where its terms say (content-defined chunking, as backup
  tools cut files: ``_cut``), not after a running count of bytes from the first term: so a term
  gained or lost moves the cuts of its own shard at most, and every other shard keeps its terms,
  its number and its bytes.
- **What does not depend on other papers.** lunr's weight of a term in a paper's field is BM25
  (k1 1.2, b 0.75, the field's boost, rounded to 3 decimals), of the term's frequency there, the
  field's length in the paper, the term's document frequency and the paper count and fields'
  average lengths. One retitled paper changes the average title length, so stored weights would
  all change with it. The shards hold instead what a paper's own fields say (frequency and length,
  in each posting) and the term's postings (its document frequency is their count); the manifest
  holds the paper count, the average lengths, k1, b and the boosts, and the worker computes each
  weight as lunr.js's builder does (``search-worker.js`` shardPart). An edit then rewrites the shards
  of the terms its papers had or have, and the manifest (``IndexState.update``), byte for byte what
  a build from scratch writes (``tests/site/test_search_index.py``).
- **Same numbers as lunr.py.** The weights are lunr.py's (``LunrIndex`` is its ``Builder`` without its
  objects): lunr.py's rounding (``round(x, 3)``, ties to even) is the worker's ``round3``; a term's
  number (lunr adds a score's products in its order) is lunr.py's order of first use, which the
  worker reads from the first paper of the term's postings, its first field there, and the term's
  place in that field (the entry's second value). ``tests/site/test_browser_contract.py`` runs the
  worker under Node on the bundled corpus: its scores equal lunr.py's index of every paper.
- **Shard file:** ``{"terms": [[term, place, postings of field 1, ...], ...]}``, terms in UTF-16
  order (lunr.js builds its token set in that order); a field's postings are a flat list: the
  paper's gap from the previous one (the first from -1), then the field's length in the paper
  where the term is there once, else minus its frequency and the length
  (``[gap, length, gap, -frequency, length, ...]``); in an index made with a common line (the abstracts',
  ``COMMON_PAPERS``), a field of a term held by more papers than that is their gaps alone after a 0
  (``[0, gap, gap, ...]``): which papers hold it, not how often, nor their lengths. **Manifest:** ``{"fields", "boosts", "papers",
  "averages", "k1", "b", "starts"}``.
"""

from __future__ import annotations

import ast
import json
import zlib
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable

# Bytes of JSON a shard holds on average (about a third of that gzipped; ``_cut``: from half to twice
# that, unless one term's postings alone are more). Measured at 11,672 papers with shards cut at a
# running count (BENCHMARKS.md, issue 31), budgets of 4,000 / 12,000 /
# 32,000 bytes: the probe title's words fetch 24 / 38 / 79 KB of the first index and 35 / 46 / 95 KB
# of the abstracts' (7 shards each), a prefix being typed ("con") 14 / 4 / 2 shards, for
# 2,728 / 1,108 / 441 files. A shard of one first letter was 20-130 KB (300-360 KB in the abstracts).
# 12,000 until issue 31 part 7: the tables (titles, typed words, names) are looked up a key at a time,
# one shard a key, and a title typed key by key looks up each of its prefixes; at 6,000 its first
# query fetched 309-326 KB against 411-422 (pasted: 178-201 against 242-245), relevance unchanged.
SHARD_BYTES = 6_000

# In the abstracts' index (whose worker has the texts), a term's postings held by more papers than this
# are shipped as the papers alone (gaps after a leading 0), without each paper's frequency and field
# length: at 100k papers "model" is in 89% of the abstracts, a 190 KB shard, 11.5 KB as membership. The
# worker bounds such a term's weight and the page reads the exact one from the texts of the results it
# shows (BENCHMARKS.md, issue 31 part 8: ``bench/common_terms.py``, 36 queries at 100k with this line:
# the first 10 results in lunr's order needed the texts of 10 papers (median), 32 at most). A count of
# papers, not a share: an entry stays independent of the other papers.
COMMON_PAPERS = 2_500

# lunr.py's Builder defaults (lunr.js has the same): handed to the worker in each manifest
_K1 = 1.2
_B = 0.75


def _utf16(term: str) -> bytes:
    return term.encode("utf-16-be", "surrogatepass")  # lunr.js's order (JavaScript compares UTF-16 code units)


def shard_of(term: str, starts: list[str]) -> int:
    """The shard that holds ``term`` if any does: the last whose first term is not after it.
    ``starts``: the manifest's first terms. papersite-core.js shardOf is the same rule."""
    return max(0, bisect_right(starts, _utf16(term), key=_utf16) - 1)


def shards_of_prefix(prefix: str, starts: list[str]) -> list[int]:
    """The shards that may hold a term beginning with ``prefix``: the one of its place, and each
    next one whose first term begins with it. papersite-core.js shardsOfPrefix is the same rule."""
    first = last = shard_of(prefix, starts)
    while last + 1 < len(starts) and starts[last + 1].startswith(prefix):
        last += 1
    return list(range(first, last + 1))


def keyed_shards(rows: Iterable[list], shard_bytes: int = SHARD_BYTES) -> dict[str, bytes]:
    """Rows whose first item is their key (a string) -> the same shards and manifest as an index's,
    for a table looked up by key or by a key's beginning (``shard_of``, ``shards_of_prefix``): the
    rows in UTF-16 order of their key (then of their JSON: the same bytes whatever the input order),
    cut as an index's terms are (``_cut``: a changed row moves the cuts of its own shard at most),
    never between rows of one key, each ``{"rows": [...]}`` by number, and
    ``"shards"``: ``{"starts": [...]}``. A start is the shortest beginning of its shard's first key
    that sorts after the key before it: no key lies between the two, so it finds the same shard,
    and the manifest holds a few letters a shard where a title would be a whole line."""
    by_key: dict[str, list[list]] = {}
    for row in rows:
        by_key.setdefault(row[0], []).append(row)
    table = KeyedTable()
    table.update(by_key)
    return table.shard_files(shard_bytes)


class KeyedTable:
    """A table of ``keyed_shards`` as the last build wrote it: each key's rows as JSON (in the order
    the shards hold them) and the keys in UTF-16 order. ``update`` replaces the rows of the keys that
    changed, so a build encodes and sorts only those (a title edit: a few of 127k rows at 11,672
    papers) and writes what ``keyed_shards`` writes of the whole table."""

    def __init__(self) -> None:
        self.rows: dict[str, bytes] = {}  # key -> its rows' JSON, joined by ","
        self.firsts: dict[str, int] = {}  # a key of several rows -> its first's length (few keys: a smaller memo)
        self.order: list[str] = []  # the keys, in UTF-16 order

    def update(self, changed: dict[str, list[list]]) -> None:
        """Each key of ``changed`` now has these rows (none: the key is gone)."""
        resort = len(changed) * 8 > len(self.order)  # many keys: sorting them all again is quicker
        order = self.order
        for key, rows in changed.items():
            known = key in self.rows
            if not rows:
                if known:
                    del self.rows[key]
                    self.firsts.pop(key, None)
                    if not resort:
                        del order[bisect_right(order, _utf16(key), key=_utf16) - 1]
                continue
            encoded = sorted(_compact(row) for row in rows)
            self.rows[key] = b",".join(encoded)
            if len(encoded) > 1:
                self.firsts[key] = len(encoded[0])
            else:
                self.firsts.pop(key, None)
            if not known and not resort:
                order.insert(bisect_right(order, _utf16(key), key=_utf16), key)
        if resort:
            self.order = sorted(self.rows, key=_utf16)

    def shard_files(self, shard_bytes: int = SHARD_BYTES) -> dict[str, bytes]:
        """The shards and the manifest (``keyed_shards``)."""
        rows, order, several = self.rows, self.order, self.firsts
        totals = [len(rows[key]) + 1 for key in order]
        firsts = [several.get(key, total - 1) + 1 for key, total in zip(order, totals)] if several else totals
        bounds = [*_cut_runs(order, firsts, totals, shard_bytes), len(order)]
        files, starts = {}, []
        for number, (at, end) in enumerate(zip(bounds, bounds[1:])):
            starts.append(_start_after(order[at], _utf16(order[at - 1])) if number else "")
            files[str(number)] = b'{"rows":[' + b",".join(rows[key] for key in order[at:end]) + b"]}"
        files["shards"] = b'{"starts":' + _compact(starts) + b"}"
        return files


def _start_after(key: str, previous: bytes) -> str:
    """The shortest beginning of ``key`` that sorts after ``previous`` (UTF-16), ``key`` at most."""
    for end in range(1, len(key)):
        if _utf16(key[:end]) > previous:
            return key[:end]
    return key


class LunrIndex:
    """The terms of each paper's fields -> the index's shards (see the module docstring), and the state
    that updates them (``update``)."""

    def __init__(self, fields: list[tuple[str, int]], common: int | None = None) -> None:
        self.fields = fields
        self.common = common  # COMMON_PAPERS for an index whose texts the worker has, else None
        self.postings: dict[str, list[dict[int, int]]] = {}  # term -> per field {paper: term frequency}
        self.lengths: list[list[int]] = [[] for _ in fields]  # per field, per paper: how many terms
        self.places: dict[str, int] = {}  # term -> where it is first in the first field of the first paper holding it

    def add(self, paper: int, terms: dict[str, list[str]]) -> None:
        """Paper number ``paper`` (the next one: papers are added in order) with its terms per field name."""
        for slot, (name, _) in enumerate(self.fields):
            words = terms.get(name, [])
            self.lengths[slot].append(len(words))
            for term, count in Counter(words).items():
                posting = self.postings.get(term)
                if posting is None:
                    posting = self.postings[term] = [{} for _ in self.fields]
                    self.places[term] = words.index(term)
                posting[slot][paper] = count

    def state(self, papers: list[dict[str, list[str]]]) -> "IndexState":
        """What ``update`` needs of this index (``papers``: the terms it was made of, as added)."""
        entries, shipped = {}, {}
        for term, posting in self.postings.items():
            entries[term] = _entry(term, self.places[term], posting, self.lengths)
            if _is_common(posting, self.common):
                shipped[term] = _entry(term, self.places[term], posting, self.lengths, self.common)
        return IndexState(self.fields, [_paper_key(paper, self.fields) for paper in papers], entries,
                          [list(lengths) for lengths in self.lengths], sorted(entries, key=_utf16), shipped, self.common)

    def shard_files(self, shard_bytes: int = SHARD_BYTES) -> dict[str, bytes]:
        """The shards' JSON by number ("0", "1", ...), and the manifest's ("shards"): the field names and
        boosts, the paper count, the fields' average lengths and each shard's first term (the first's
        is "", so every term has a shard; an index of no terms has one empty shard)."""
        papers = [{} for _ in self.lengths[0]] if self.fields else []
        return self.state(papers).shard_files(shard_bytes)


# A paper's terms as ``IndexState`` keeps them: one string, each term after a unit separator and the fields
# between record separators. Both are whitespace to ``str.split`` and to the search's word splitting, so no term
# holds one; a paper whose terms would is kept as their ``repr`` after a NUL instead, which no other key begins with.
_TERM, _FIELD = "\x1f", "\x1e"


def _paper_key(paper: dict[str, list[str]], fields: list[tuple[str, int]]) -> str:
    """What ``IndexState`` compares and keeps of a paper's terms: 11,672 strings read back and written by an edit, not
    tuples of tuples of terms (~0.05 CPU s of the search worker's edit)."""
    per_field = [paper.get(name, ()) for name, _ in fields]
    key = _FIELD.join([_TERM + _TERM.join(terms) if terms else "" for terms in per_field])
    if key.count(_TERM) != sum(map(len, per_field)) or key.count(_FIELD) != max(len(fields) - 1, 0) or key.startswith("\0"):
        return "\0" + repr([list(terms) for terms in per_field])
    return key


def _key_terms(key: str) -> list[list[str]]:
    """The terms of each field of a paper, as ``_paper_key`` kept them."""
    if key.startswith("\0"):
        return ast.literal_eval(key[1:])
    return [field.split(_TERM)[1:] for field in key.split(_FIELD)]


def _entry(term: str, place: int, posting: list[dict[int, int]], lengths: list[list[int]], common: int | None = None) -> bytes:
    """A term's entry: ``[term, place, postings of field 1, ...]`` (module docstring); with ``common``, a
    field's postings of more papers than that as the papers alone: ``[0, gap, gap, ...]``."""
    entry: list = [term, place]
    for slot, docs in enumerate(posting):
        flat: list[int] = []
        previous = -1
        if common is not None and len(docs) > common:
            flat.append(0)  # no gap is 0: the mark of a field shipped as membership
            for paper in sorted(docs):
                flat.append(paper - previous)
                previous = paper
        else:
            for paper in sorted(docs):
                tf = docs[paper]
                flat += (paper - previous, lengths[slot][paper]) if tf == 1 else (paper - previous, -tf, lengths[slot][paper])
                previous = paper
        entry.append(flat)
    return _compact(entry)


def _is_common(posting: list[dict[int, int]], common: int | None) -> bool:
    """Whether a field of the term is shipped as its papers alone (``COMMON_PAPERS``; None: no field is)."""
    return common is not None and any(len(docs) > common for docs in posting)


def _postings_of(entry: bytes, fields: int) -> list[dict[int, int]]:
    """An entry -> its postings (per field {paper: term frequency}): ``_entry`` read back."""
    decoded = json.loads(entry)
    posting: list[dict[int, int]] = []
    for flat in decoded[2:2 + fields]:
        docs: dict[int, int] = {}
        paper, i = -1, 0
        while i < len(flat):
            paper += flat[i]
            if flat[i + 1] < 0:
                docs[paper] = -flat[i + 1]
                i += 3
            else:
                docs[paper] = 1
                i += 2
        posting.append(docs)
    return posting


class IndexState:
    """An index as the last build wrote it: each paper's terms, each term's entry (its JSON), the
    fields' lengths and the terms in UTF-16 order. ``update`` gives the state of other papers'
    terms touching only the entries of the terms the changed papers had or have: an entry holds no
    number that depends on other papers (the worker scores from the lengths and the manifest's
    averages), so every other entry keeps its bytes."""

    def __init__(self, fields: list[tuple[str, int]], papers: list[str], entries: dict[str, bytes],
                 lengths: list[list[int]], order: list[str], shipped: dict[str, bytes], common: int | None) -> None:
        self.fields = fields
        self.papers = papers  # each paper's terms (``_paper_key``)
        self.entries = entries  # whole: what ``update`` reads postings back from
        self.lengths = lengths
        self.order = order
        self.shipped = shipped  # the common terms' entries as the shards hold them (``COMMON_PAPERS``)
        self.common = common

    KEPT_FORM = "index-state 2"

    def kept(self) -> tuple:
        """What the memo keeps of it: builtin values (a memo file holds them in ``marshal``'s form, not pickled), read
        and written whole by a title edit (9 MB at 11,672 papers)."""
        return (self.KEPT_FORM, self.fields, self.papers, self.entries, self.lengths, self.order, self.shipped, self.common)

    @classmethod
    def from_kept(cls, kept: object) -> "IndexState | None":
        """The state ``kept`` gave; None where it is not what ``kept`` makes."""
        if not (isinstance(kept, tuple) and len(kept) == 8 and kept[0] == cls.KEPT_FORM):
            return None
        return cls(*kept[1:])

    def update(self, papers: list[dict[str, list[str]]]) -> "IndexState":
        """The state of ``papers`` (each one's terms by field name), made from this one. Where most papers
        changed (or moved: a paper's number is its place), the index is made again; either way the
        state, and so the files, are what ``LunrIndex`` makes of ``papers``."""
        keys = [_paper_key(paper, self.fields) for paper in papers]
        changed = [n for n in range(max(len(keys), len(self.papers)))
                   if n >= len(keys) or n >= len(self.papers) or keys[n] != self.papers[n]]
        if not changed:
            return self  # the very state: what the build keeps of it is not written again (``memo.Memo.save``)
        if len(changed) * 4 > len(keys):
            return _made(self.fields, papers, self.common)
        names = [name for name, _ in self.fields]

        def terms_of(n: int) -> list[list[str]]:  # a paper's terms now, field by field
            return [list(papers[n].get(name, ())) for name in names]

        # each field's lengths: the last ones, and the changed papers' now (an unchanged paper's are as they were)
        lengths = [old[:len(keys)] + [0] * (len(keys) - len(old)) for old in self.lengths]
        counts = {}
        for n in changed:
            if n < len(keys):
                now = terms_of(n)
                counts[n] = [Counter(terms) for terms in now]
                for slot, terms in enumerate(now):
                    lengths[slot][n] = len(terms)
        touched: set[str] = set()
        for n in changed:
            for version in (_key_terms(self.papers[n]) if n < len(self.papers) else (), terms_of(n) if n < len(keys) else ()):
                for terms in version:
                    touched.update(terms)
        entries, shipped = dict(self.entries), dict(self.shipped)
        order = list(self.order)
        gone = set(changed)
        for term in sorted(touched):
            old = entries.get(term)
            posting = _postings_of(old, len(self.fields)) if old is not None else [{} for _ in self.fields]
            for slot, docs in enumerate(posting):
                for n in gone & docs.keys():
                    del docs[n]
                for n, per_field in counts.items():
                    if term in per_field[slot]:
                        docs[n] = per_field[slot][term]
            if any(posting):
                first = min(min(docs) for docs in posting if docs)
                slot = next(slot for slot, docs in enumerate(posting) if first in docs)
                place = list(papers[first].get(names[slot], ())).index(term)
                entries[term] = _entry(term, place, posting, lengths)
                if _is_common(posting, self.common):
                    shipped[term] = _entry(term, place, posting, lengths, self.common)
                else:
                    shipped.pop(term, None)
                if old is None:
                    order.insert(bisect_right(order, _utf16(term), key=_utf16), term)
            elif old is not None:
                del entries[term]
                shipped.pop(term, None)
                order.pop(bisect_right(order, _utf16(term), key=_utf16) - 1)
        return IndexState(self.fields, keys, entries, lengths, order, shipped, self.common)

    def shard_files(self, shard_bytes: int = SHARD_BYTES) -> dict[str, bytes]:
        """The shards' JSON by number, and the manifest's (``LunrIndex.shard_files``)."""
        papers = len(self.papers)
        # lunr's average field length: the same float here as in lunr.py (sum of ints, one division)
        averages = [sum(lengths) / papers if papers else 0 for lengths in self.lengths]
        entry = lambda term: self.shipped.get(term) or self.entries[term]  # noqa: E731
        shards = _cut(self.order, [entry(term) for term in self.order], shard_bytes)
        files = {str(number): b'{"terms":[' + b",".join(entry(t) for t in terms) + b"]}"
                 for number, terms in enumerate(shards)}
        files["shards"] = _compact({
            "fields": [name for name, _ in self.fields], "boosts": [boost for _, boost in self.fields],
            "papers": papers, "averages": averages, "k1": _K1, "b": _B, "starts": [""] + [terms[0] for terms in shards[1:]],
        })
        return files


def _made(fields: list[tuple[str, int]], papers: list[dict[str, list[str]]], common: int | None = None) -> IndexState:
    index = LunrIndex(fields, common)
    for number, paper in enumerate(papers):
        index.add(number, paper)
    return index.state(papers)


def index_state(fields: list[tuple[str, int]], papers: list[dict[str, list[str]]], last: IndexState | None = None,
                common: int | None = None) -> IndexState:
    """The state of an index of ``papers``: ``last`` updated where it is one of the same fields and line, else made."""
    if last is not None and last.fields == fields and last.common == common:
        return last.update(papers)
    return _made(fields, papers, common)


def _cut(keys: list[str], data: list[bytes], shard_bytes: int) -> list[list[str]]:
    """Keys in order (each once), with their JSON -> runs of keys, the shards (``_cut_runs``)."""
    bounds = [*_cut_runs(keys, [len(entry) + 1 for entry in data], None, shard_bytes), len(keys)]
    return [keys[at:end] for at, end in zip(bounds, bounds[1:])] if keys else [[]]


def _cut_runs(keys: list[str], firsts: list[int], totals: list[int] | None, shard_bytes: int) -> list[int]:
    """Keys in order (each once), the bytes of each one's first row and of all its rows (``totals``;
    None: each has one row) -> where each shard begins (0 first), cut where the keys themselves say
    (content-defined, as backup tools cut files into chunks): a shard ends before a key once it holds
    ``shard_bytes / 2`` when that key is an anchor (a hash of the key below its share of
    ``shard_bytes / 2`` by its first row: a shard grows ``shard_bytes`` on average), and before any key
    whose first row would take it past ``2 * shard_bytes`` (a key's rows are never cut apart). A cut does
    not depend on where the shards before it were cut beyond the last anchor, so a changed key moves the
    cuts of its own shard at most, and the shards after it keep their keys and bytes (a numbered shard
    keeps its number unless a cut was made or lost)."""
    low, high = shard_bytes // 2, 2 * shard_bytes
    bounds = [0]
    size = 0
    for at, (key, length) in enumerate(zip(keys, firsts)):
        if size and (size + length > high or (size >= low and _anchor(key, length, low))):
            bounds.append(at)
            size = 0
        size += length if totals is None else totals[at]
    return bounds


def _anchor(key: str, length: int, low: int) -> bool:
    """Whether a key of ``length`` bytes is an anchor: with chance ``length / low``, by its hash alone."""
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) * low < length << 32


# one encoder for every entry (json.dumps with options builds one a call: a third of the tables' time)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _compact(data: object) -> bytes:
    return _ENCODER.encode(data).encode("utf-8")
