"""Search index: lunr.js 2.3.9 indexes, scored here exactly as lunr.py scores them, written in shards.

In: for each paper (in catalog order), the terms of each field, already tokenised and stemmed
(``search.py``). Out: one small JSON file per shard (``shard_files``); the browser's worker
(``assets/search-worker.js``) turns the shards a query needs into a ``lunr.Index`` and lunr.js
searches it, so ranking is lunr's own.

Why not lunr.py's serialised index: at 11,672 papers it was 9.2 MB (short fields) and 22.8 MB
(abstracts) of JSON that the browser had to download, parse and load whole before the first result,
and lunr.py's builder took 13 CPU s of every build. A lunr index holds each (term, field, paper)
weight twice (the inverted index and the field vectors); here it is held once, per term, and the
worker rebuilds both halves.

- **Shards.** A term goes to the shard of its first letter (``shard_of``; digits share one, every
  other character another). lunr.js asks one word at a time (``search-worker.js``), and every term
  a word can match as typed, stemmed or as a prefix starts with the word's first letter (stemming
  only changes endings), so the shard of that letter alone answers it with the same scores: a
  score is a dot product over the query's terms only. Near spellings (one edit) can change the
  first letter; the worker answers those from every shard.
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
from collections import Counter

SHARD_KEYS = tuple("0abcdefghijklmnopqrstuvwxyz") + ("other",)

# lunr.py's Builder defaults (lunr.js has the same)
_K1 = 1.2
_B = 0.75


def shard_of(term: str) -> str:
    """The shard a term is in; search-worker.js (shardOf) applies the same rule to a query word."""
    first = term[0]
    if "a" <= first <= "z":
        return first
    return "0" if "0" <= first <= "9" else "other"


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

    def shard_files(self) -> dict[str, bytes]:
        """Shard key -> the shard's JSON, for every key of SHARD_KEYS (empty shards too, so the browser
        never asks for a file that is not there)."""
        papers = len(self.lengths[0]) if self.fields else 0
        averages = [sum(lengths) / papers if papers else 0 for lengths in self.lengths]
        shards: dict[str, list] = {key: [] for key in SHARD_KEYS}
        for term in sorted(self.postings, key=lambda t: t.encode("utf-16-be")):
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
            shards[shard_of(term)].append(entry)
        names = [name for name, _ in self.fields]
        return {key: _compact({"fields": names, "terms": terms}) for key, terms in shards.items()}


def _compact(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
