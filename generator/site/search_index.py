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

- **Shards.** The terms, in order, cut into runs of at most ``SHARD_BYTES`` of JSON (a term whose
  postings are longer has a shard of its own), as Pagefind cuts its index into chunks; the
  manifest (``<index>-shards``) lists each shard's first term. A word needs the shard its stem
  falls in (``shard_of``) and, while it is being typed, the shards of every term it begins
  (``shards_of_prefix``): a few KB at any corpus size, where a shard per first letter grew with
  the corpus (130 KB for "s" at 11,672 papers, and ~1 MB at 100k). lunr.js asks one word at a
  time (``search-worker.js``) and a score is a dot product over the query's terms only, so the
  shards holding those terms answer with the same scores as the whole index. Near spellings (one
  edit) are looked up among the terms that begin with the word's first or second letter.
- **Same numbers as lunr.py.** ``LunrIndex`` is lunr.py's ``Builder`` (term numbers in order of first
  use, BM25 with k1 1.2 and b 0.75, the field boost, rounded to 3 decimals) without its objects;
  ``tests/site/test_search_index.py`` compares every weight with lunr.py's. A weight is written
  as an integer of thousandths: ``w / 1000`` in JavaScript is the same double as lunr.py's rounded
  weight.
- **Shard file:** ``{"fields": [...], "terms": [[term, number, postings of field 1, ...], ...]}``,
  terms in UTF-16 order (lunr.js builds its token set in that order); a field's postings are a flat
  list ``[paper gap, weight, paper gap, weight, ...]``, the gap from the previous paper (the first
  from -1).
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable

# Bytes of JSON a shard holds at most (about a third of that gzipped), unless one term's postings
# alone are more. Measured at 11,672 papers (BENCHMARKS.md, issue 31), budgets of 4,000 / 12,000 /
# 32,000 bytes: the probe title's words fetch 24 / 38 / 79 KB of the first index and 35 / 46 / 95 KB
# of the abstracts' (7 shards each), a prefix being typed ("con") 14 / 4 / 2 shards, for
# 2,728 / 1,108 / 441 files. A shard of one first letter was 20-130 KB (300-360 KB in the abstracts).
SHARD_BYTES = 12_000

# lunr.py's Builder defaults (lunr.js has the same)
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
    cut into runs of at most ``shard_bytes`` of JSON, each ``{"rows": [...]}`` by number, and
    ``"shards"``: ``{"starts": [...]}``. A start is the shortest beginning of its shard's first key
    that sorts after the key before it: no key lies between the two, so it finds the same shard,
    and the manifest holds a few letters a shard where a title would be a whole line."""
    encoded = sorted(((_utf16(row[0]), _compact(row)) for row in rows))
    shards: list[list[bytes]] = [[]]
    starts = [""]
    size = 0
    previous = b""
    for key, data in encoded:
        if shards[-1] and size + len(data) + 1 > shard_bytes and key != previous:
            shards.append([])
            starts.append(_start_after(key.decode("utf-16-be", "surrogatepass"), previous))
            size = 0
        shards[-1].append(data)
        size += len(data) + 1
        previous = key
    files = {str(number): b'{"rows":[' + b",".join(shard) + b"]}" for number, shard in enumerate(shards)}
    files["shards"] = b'{"starts":' + _compact(starts) + b"}"
    return files


def _start_after(key: str, previous: bytes) -> str:
    """The shortest beginning of ``key`` that sorts after ``previous`` (UTF-16), ``key`` at most."""
    for end in range(1, len(key)):
        if _utf16(key[:end]) > previous:
            return key[:end]
    return key


class LunrIndex:
    """The terms of each paper's fields -> lunr.js index shards (see the module docstring)."""

    def __init__(self, fields: list[tuple[str, int]]) -> None:
        self.fields = fields
        self.numbers: dict[str, int] = {}  # term -> its lunr term number (``_index``), in order of first use
        self.postings: dict[str, list[dict[int, int]]] = {}  # term -> per field {paper: term frequency}
        self.lengths: list[list[int]] = [[] for _ in fields]  # per field, per paper: how many terms

    def add(self, paper: int, terms: dict[str, list[str]]) -> None:
        """Paper number ``paper`` (the next one: papers are added in order) with its terms per field name."""
        for slot, (name, _) in enumerate(self.fields):
            words = terms.get(name, [])
            self.lengths[slot].append(len(words))
            for term, count in Counter(words).items():
                posting = self.postings.get(term)
                if posting is None:
                    self.numbers[term] = len(self.numbers)
                    posting = self.postings[term] = [{} for _ in self.fields]
                posting[slot][paper] = count

    def shard_files(self, shard_bytes: int = SHARD_BYTES) -> dict[str, bytes]:
        """The shards' JSON by number ("0", "1", ...), and the manifest's ("shards"): the field names
        and each shard's first term (the first's is "", so every term has a shard; an index of no
        terms has one empty shard)."""
        papers = len(self.lengths[0]) if self.fields else 0
        averages = [sum(lengths) / papers if papers else 0 for lengths in self.lengths]
        shards: list[list] = [[]]
        starts = [""]
        size = 0
        for term in sorted(self.postings, key=_utf16):
            posting = self.postings[term]
            frequency = sum(len(docs) for docs in posting)  # lunr counts a paper once per field holding the term
            ratio = (papers - frequency + 0.5) / (frequency + 0.5)
            idf = math.log(1 + abs(ratio))
            entry: list = [term, self.numbers[term]]
            for slot, (_, boost) in enumerate(self.fields):
                flat, previous = [], -1
                for paper, tf in posting[slot].items():  # papers in ascending order: added in order
                    length = self.lengths[slot][paper]
                    # lunr.py's expression, operation for operation, so the floats are the same
                    score = idf * ((_K1 + 1) * tf) / (_K1 * (1 - _B + _B * (length / averages[slot])) + tf)
                    score *= boost
                    flat += (paper - previous, round(round(score, 3) * 1000))
                    previous = paper
                entry.append(flat)
            data = _compact(entry)  # (each entry's JSON once: the shard is their list, as json.dumps would write it)
            if shards[-1] and size + len(data) + 1 > shard_bytes:
                shards.append([])
                starts.append(term)
                size = 0
            shards[-1].append(data)
            size += len(data) + 1
        names = _compact([name for name, _ in self.fields])
        files = {str(number): b'{"fields":' + names + b',"terms":[' + b",".join(terms) + b"]}"
                 for number, terms in enumerate(shards)}
        files["shards"] = b'{"fields":' + names + b',"starts":' + _compact(starts) + b"}"
        return files


# one encoder for every entry (json.dumps with options builds one a call: a third of the tables' time)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _compact(data: object) -> bytes:
    return _ENCODER.encode(data).encode("utf-8")
