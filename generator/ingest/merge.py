"""Merge stage: one cluster per paper, however many listings mention it.

In:  ``ListingEntry`` objects from any number of listings (any order).
Out: ``MergedPaper`` objects, one per paper, each holding its entries (sorted),
     the best value of every field, and the evidence (with a score) for every
     merge that formed it.

Two entries are the same paper when their normalized titles are equal (and
their abstracts, if both have one, do not contradict that), or when their
abstracts are near-identical after typography is normalized (word 3-shingle
Jaccard or containment). Candidates come from an inverted index of rare
shingles and a title table, never from comparing all pairs, so 20k entries
stay fast; the merge meets each pair once, in one pass over the entries
(``SimilarityIndex.candidate_pairs``). Placeholder abstracts were already turned into None by the listing
stage, so "No absctract" twice is no evidence. Authors and topic are never
evidence: the same group writes several papers on one subject.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from itertools import chain
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from generator.ingest.authors import OrderVerdict, list_order
from generator.ingest.listing import FORMAT_JSON, FORMAT_NUMBERED, FORMAT_TRIPLES, ListingEntry, distinct_keywords
from generator.pages.record import Fill, SourceRef, Topic
from generator.text import normalize_text, title_key

SHINGLE_WORDS = 3
# Shingles shared by more documents than this are common phrasing ("in this
# paper we"), not evidence; skipping them keeps candidate lists short.
RARE_SHINGLE_MAX_DF = 40
# Thresholds, tuned on the bundled corpus: true duplicates with a rewritten
# sentence score about 0.57 Jaccard; unrelated ICLR abstracts stay below 0.2.
ABSTRACT_JACCARD = 0.5
ABSTRACT_CONTAINMENT = 0.85  # one version is the other minus a sentence / code URL
MIN_CONTAINMENT_SHINGLES = 20  # shorter abstracts are boilerplate or placeholders
RETITLED_JACCARD = 0.8  # both titled, titles differ: only a near copy counts
SAME_TITLE_CONTAINMENT = 0.3  # same title and abstracts overlap at least this much
# Two versions of one abstract can be rewritten past every threshold above but
# keep their opening sentence (corpus 003's last entry and 002 #261). A long,
# identical opening plus some further overlap is evidence; a short stock opener
# ("Large language models have shown remarkable abilities.") is not.
MIN_OPENING_CHARS = 70  # letters and digits of the opening sentence
OPENING_JACCARD = 0.1
MIN_SHARED_AFTER_OPENING = 10  # word 3-shingles shared beyond the opening sentence

# Which format's value wins for a field: lower is better.
TITLE_PRIORITY = {FORMAT_NUMBERED: 0, FORMAT_JSON: 1}
AUTHORS_PRIORITY = {FORMAT_TRIPLES: 0, FORMAT_JSON: 1}
TOPIC_PRIORITY = {FORMAT_TRIPLES: 0, FORMAT_JSON: 1}

_WORD = re.compile(r"\w+")
# Only shingles whose last word id has these bits clear are indexed: the same
# shingle is kept or dropped in every document alike, so near-duplicates still
# share about 1/4 of their shingles in the index, at 1/4 of the cost.
_SAMPLE_MASK = 0b11


_OPENING_SENTENCE = re.compile(r"^(.+?[a-z0-9)\]])\.(?:\s|(?=[A-Z])|$)", re.DOTALL)


def opening_key(abstract: str | None) -> tuple[str, int]:
    """The abstract's first sentence reduced to letters and digits, and its shingle count.

    Spaces are dropped too: one listing glues words ("the role ofcontextual
    informationin"), and "traders.In" ends a sentence without a space.
    """
    if not abstract:
        return "", 0
    match = _OPENING_SENTENCE.match(abstract.strip())
    sentence = match.group(1) if match else abstract
    normalized = normalize_text(sentence)
    key = re.sub(r"[^a-z0-9]", "", normalized)
    if len(key) < MIN_OPENING_CHARS:
        return "", 0
    return key, max(0, len(_WORD.findall(normalized)) - SHINGLE_WORDS + 1)


@dataclass(frozen=True)
class MergeEvidence:
    """Why two entries were judged the same paper."""

    left: str  # entry label, "file #n"
    right: str
    kind: str  # "title", "title+abstract", "abstract", "opening"
    score: float  # Jaccard of abstract shingles (1.0 for a title match without abstracts)

    def to_json(self) -> dict:
        return {"left": self.left, "right": self.right, "kind": self.kind, "score": round(self.score, 3)}


@dataclass
class _Doc:
    title: str  # title_key, "" if none
    word_ids: tuple[int, ...] = ()  # the abstract's words, as vocabulary ids
    sample: tuple[int, ...] = ()  # the shingles used for candidate lookup
    record_url: str = ""  # the paper's own record (OpenReview forum); distinct URLs: distinct papers
    opening: str = ""  # opening_key of the abstract, "" if too short to be evidence
    opening_shingles: int = 0  # how many of the shingles the opening sentence makes
    _shingles: frozenset[int] | None = field(default=None, repr=False, compare=False)

    @property
    def shingles(self) -> frozenset[int]:
        """Every word 3-shingle; made only for documents that meet a candidate (few, at scale)."""
        if self._shingles is None:
            ids = self.word_ids
            self._shingles = frozenset({a << 40 | b << 20 | c for a, b, c in zip(ids, ids[1:], ids[2:])})
        return self._shingles


# A shingle is its three word ids packed into one int, a << 40 | b << 20 | c, written inline where
# millions are made (a call per shingle cost more than the packing). Word ids stay below 2**20 for
# any realistic corpus, so the packing is exact.


class SimilarityIndex:
    """Documents (title + abstract) indexed for candidate lookup and scoring."""

    def __init__(self) -> None:
        self._vocab: dict[str, int] = {}
        self.docs: list[_Doc] = []
        self._postings: defaultdict[int, list[int]] = defaultdict(list)
        self._titles: dict[str, list[int]] = {}
        self._openings: dict[str, list[int]] = {}

    def make_doc(self, title: str | None, abstract: str | None, record_url: str | None = None) -> _Doc:
        ids: tuple[int, ...] = ()
        sample: tuple[int, ...] = ()
        if abstract:
            vocab = self._vocab
            words = _WORD.findall(normalize_text(abstract))
            # Look every word up at C speed; only words new to the corpus take the slow path.
            found = list(map(vocab.get, words))
            if None in found:
                found = [vocab.setdefault(word, len(vocab)) if i is None else i for word, i in zip(words, found)]
            ids = tuple(found)
            # The low bits of a packed shingle are its last word's id: sampling on them keeps or
            # drops a shingle alike in every document.
            sample = tuple(sorted({a << 40 | b << 20 | c for a, b, c in zip(ids, ids[1:], ids[2:]) if not c & _SAMPLE_MASK}))
        return _Doc(title_key(title), ids, sample, record_url or "", *opening_key(abstract))

    def add(self, title: str | None, abstract: str | None, record_url: str | None = None) -> int:
        return self.insert(self.make_doc(title, abstract, record_url))

    def insert(self, doc: _Doc) -> int:
        """Index a document this index made; its number."""
        number = len(self.docs)
        self.docs.append(doc)
        postings = self._postings
        for shingle in doc.sample:
            postings[shingle].append(number)
        if doc.title:
            self._titles.setdefault(doc.title, []).append(number)
        if doc.opening:
            self._openings.setdefault(doc.opening, []).append(number)
        return number

    def candidates(self, doc: _Doc) -> list[int]:
        """Indexed documents sharing the title or a rare shingle with ``doc``, sorted."""
        postings = self._postings
        shared_postings = []
        for shingle in doc.sample:
            posting = postings.get(shingle)
            # A posting of one holds only the document itself: most of them, at scale.
            if posting is not None and 1 < len(posting) <= RARE_SHINGLE_MAX_DF:
                shared_postings.append(posting)
        found = Counter(chain.from_iterable(shared_postings))
        result = set(self._titles.get(doc.title, ())) if doc.title else set()
        result.update(number for number, shared in found.items() if shared >= 2)
        opening_posting = self._openings.get(doc.opening, ()) if doc.opening else ()
        if len(opening_posting) <= RARE_SHINGLE_MAX_DF:
            result.update(opening_posting)
        return sorted(result)

    @staticmethod
    def candidate_pairs(docs: Sequence[_Doc]) -> Iterator[tuple[int, int]]:
        """Every pair (i, j), i < j, of ``docs`` such that j is among ``candidates(docs[i])`` of an
        index holding all of them, ordered by j, then i.

        The self-join of the merge stage. ``candidates`` meets a pair from both ends and counts
        every indexed document of each posting; here the documents are visited in order and each
        meets only those before it, so a pair is counted once, and postings are kept for rare
        shingles only. The count still grows with how many documents share rare phrases.
        """
        document_frequency = Counter(chain.from_iterable(doc.sample for doc in docs))
        postings: dict[int, list[int]] = {
            shingle: [] for shingle, count in document_frequency.items() if 1 < count <= RARE_SHINGLE_MAX_DF}
        del document_frequency
        opening_counts = Counter(doc.opening for doc in docs if doc.opening)
        titles: dict[str, list[int]] = {}
        openings: dict[str, list[int]] = {}
        for j, doc in enumerate(docs):
            shared_postings = [postings[shingle] for shingle in doc.sample if shingle in postings]
            found = {i for i, shared in Counter(chain.from_iterable(shared_postings)).items() if shared >= 2}
            for posting in shared_postings:
                posting.append(j)
            if doc.title:
                same_title = titles.setdefault(doc.title, [])
                found.update(same_title)
                same_title.append(j)
            if doc.opening and opening_counts[doc.opening] <= RARE_SHINGLE_MAX_DF:
                same_opening = openings.setdefault(doc.opening, [])
                found.update(same_opening)
                same_opening.append(j)
            for i in sorted(found):
                yield i, j

    @staticmethod
    def evidence(a: _Doc, b: _Doc) -> tuple[str, float] | None:
        """(kind, score) when the two documents are the same paper, else None."""
        if a.record_url and b.record_url and a.record_url != b.record_url:
            return None  # two records of the same database (an author pasted one abstract twice)
        jaccard = containment = 0.0
        both_abstracts = bool(a.shingles) and bool(b.shingles)
        if both_abstracts:
            shared = len(a.shingles & b.shingles)
            smaller = min(len(a.shingles), len(b.shingles))
            jaccard = shared / (len(a.shingles) + len(b.shingles) - shared)
            containment = shared / smaller if smaller >= MIN_CONTAINMENT_SHINGLES else jaccard
        if a.title and a.title == b.title:
            if not both_abstracts:
                return "title", 1.0
            if containment >= SAME_TITLE_CONTAINMENT or jaccard >= SAME_TITLE_CONTAINMENT:
                return "title+abstract", jaccard
            return None  # same title, unrelated abstracts: two papers (reported by the caller)
        if not both_abstracts or min(len(a.shingles), len(b.shingles)) < MIN_CONTAINMENT_SHINGLES:
            return None  # "We have withdrawn our paper." is boilerplate, not evidence
        if a.title and b.title:
            return ("abstract", jaccard) if jaccard >= RETITLED_JACCARD else None
        if jaccard >= ABSTRACT_JACCARD or containment >= ABSTRACT_CONTAINMENT:
            return "abstract", jaccard
        if (
            a.opening
            and a.opening == b.opening
            and jaccard >= OPENING_JACCARD
            and shared - max(a.opening_shingles, b.opening_shingles) >= MIN_SHARED_AFTER_OPENING
        ):
            return "opening", jaccard
        return None


@dataclass
class MergedPaper:
    """One paper: its entries and the best value of each field across them."""

    entries: list[ListingEntry]
    title: str | None
    authors: list[str]
    abstract: str | None
    topic: Topic | None
    decision: str | None
    links: dict[str, str]
    keywords: list[str]
    texts: dict[str, str] = field(default_factory=dict)  # one-line fields by name (record.LISTED_TEXT_FIELDS)
    evidence: list[MergeEvidence] = field(default_factory=list)
    filled_from: list[Fill] = field(default_factory=list)  # fields a reference catalogue filled
    author_order: str | None = None  # None: the paper's order; else the page's author_order (ingest/authors.py)
    listed: dict[str, Any] = field(default_factory=dict)  # listings' values an authoritative reference replaced

    @property
    def sources(self) -> list[SourceRef]:
        return sorted(SourceRef(e.file, e.entry, e.format) for e in self.entries)

    def label(self) -> str:
        return self.entries[0].label()


def merge_duplicates(
    entries: Iterable[ListingEntry],
    warnings: list[str] | None = None,
    orders: Mapping[str, OrderVerdict] | None = None,
) -> list[MergedPaper]:
    """Cluster entries that are the same paper; result order is canonical (first source).

    ``orders``: each listing's author-order verdict by file name; a listing that keeps the
    papers' order gives the authors before one that does not."""
    ordered = sorted(entries, key=ListingEntry.sort_key)
    index = SimilarityIndex()
    docs = [index.make_doc(entry.title, entry.abstract, entry.links.get("openreview")) for entry in ordered]

    edges: list[tuple[float, int, int, str]] = []
    kept_apart: list[tuple[int, int]] = []
    for i, j in SimilarityIndex.candidate_pairs(docs):
        found = SimilarityIndex.evidence(docs[i], docs[j])
        if found is not None:
            edges.append((found[1], i, j, found[0]))
        elif docs[i].title and docs[i].title == docs[j].title:
            kept_apart.append((i, j))
    if warnings is not None:
        warnings.extend(
            f"{ordered[i].label()} and {ordered[j].label()} share a title but not their abstracts: kept apart"
            for i, j in sorted(kept_apart)
        )

    # Strongest evidence first, so a weak link cannot chain two titled papers together.
    edges.sort(key=lambda edge: (-edge[0], edge[1], edge[2]))
    parent = list(range(len(ordered)))
    titles: dict[int, set[str]] = {i: {d.title} if d.title else set() for i, d in enumerate(docs)}
    evidence: dict[int, list[MergeEvidence]] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for score, i, j, kind in edges:
        ri, rj = root(i), root(j)
        if ri == rj:
            continue
        if titles[ri] and titles[rj] and not titles[ri] & titles[rj] and score < RETITLED_JACCARD:
            if warnings is not None:
                warnings.append(
                    f"{ordered[i].label()} ~ {ordered[j].label()} (score {score:.2f}) would join two titled papers: kept apart"
                )
            continue
        keep, gone = min(ri, rj), max(ri, rj)
        parent[gone] = keep
        titles[keep] |= titles.pop(gone)
        evidence.setdefault(keep, []).extend(evidence.pop(gone, []))
        evidence[keep].append(MergeEvidence(ordered[i].label(), ordered[j].label(), kind, score))

    clusters: dict[int, list[ListingEntry]] = {}
    for i, entry in enumerate(ordered):
        clusters.setdefault(root(i), []).append(entry)
    return [
        _merge_fields(members, sorted(evidence.get(r, []), key=lambda e: (e.left, e.right)), orders or {})
        for r, members in sorted(clusters.items())
    ]


def _first(entries: list[ListingEntry], priority: dict[str, int], value) -> object:
    ranked = sorted(entries, key=lambda e: (priority.get(e.format, len(priority)), e.file, e.entry))
    for entry in ranked:
        found = value(entry)
        if found:
            return found
    return None


def _authors(entries: list[ListingEntry], orders: Mapping[str, OrderVerdict]) -> tuple[list[str], str | None]:
    """The authors (an ordered listing's first, then by format) and the page's author_order for them."""
    def rank(entry: ListingEntry) -> tuple[bool, int, str, int]:
        verdict = orders.get(entry.file)
        ordered = verdict is None or verdict.in_paper_order
        return (not ordered, AUTHORS_PRIORITY.get(entry.format, len(AUTHORS_PRIORITY)), entry.file, entry.entry)

    for entry in sorted(entries, key=rank):
        if entry.authors:
            return list(entry.authors), list_order(entry.authors, orders.get(entry.file))
    return [], None


def _texts(entries: list[ListingEntry]) -> dict[str, str]:
    """Each one-line field from the first entry that gives it (JSON first, then file order)."""
    names = sorted({name for entry in entries for name in entry.texts})
    found = {name: _first(entries, {FORMAT_JSON: 0}, lambda e, name=name: e.texts.get(name)) for name in names}
    return {name: value for name, value in found.items() if value}  # type: ignore[misc]


def _merge_fields(entries: list[ListingEntry], evidence: list[MergeEvidence], orders: Mapping[str, OrderVerdict]) -> MergedPaper:
    # The longest real abstract wins (ties: first in file/entry order): versions
    # differ by typography, a dropped sentence or a dropped code URL, and the
    # longer one has lost nothing.
    abstracts = [e for e in entries if e.abstract]
    best = max(abstracts, key=lambda e: len(e.abstract or ""), default=None)
    links: dict[str, str] = {}
    keywords: list[str] = []
    for entry in entries:
        for key, url in entry.links.items():
            links.setdefault(key, url)
        keywords.extend(entry.keywords)
    keywords = distinct_keywords(keywords)  # "Graph" and "graph" are one keyword, as check compares them
    authors, author_order = _authors(entries, orders)
    return MergedPaper(
        entries=entries,
        title=_first(entries, TITLE_PRIORITY, lambda e: e.title),  # type: ignore[arg-type]
        authors=authors,
        author_order=author_order,
        abstract=best.abstract if best else None,
        topic=_first(entries, TOPIC_PRIORITY, lambda e: e.topic),  # type: ignore[arg-type]
        decision=_first(entries, {FORMAT_JSON: 0}, lambda e: e.decision),  # type: ignore[arg-type]
        texts=_texts(entries),
        links=links,
        keywords=keywords,
        evidence=evidence,
    )
