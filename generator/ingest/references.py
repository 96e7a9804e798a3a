"""Reference stage: complete what the listings say about their papers from reference catalogues.

In:  the merged papers of the listings (``MergedPaper``) and the reference files
     named by ``references:`` in papersite.yml, read by the listing reader (any
     JSON / JSON Lines shape it reads, gzip or not).
Out: the same papers, in the same order, with the fields no listing gave filled
     from their reference counterpart (title, authors, abstract, links, decision,
     topic), each fill recorded as a ``Fill``; and a ``ReferenceReport`` naming
     every match with its evidence and every candidate that was not applied.

Listings decide which papers the site has; a reference never adds one. A value a
listing gives wins, unless papersite.yml declares the reference the authority for
that field (``authority: [title, decision]``): then the reference's value is the
page's and the listing's is kept as the page's ``listed`` entry. Either way the
report shows both where they differ. Author lists follow their sources' order
(``authors.py``): a reference whose lists keep the papers' order gives the order
of the same people a listing gave only alphabetically.

A maintainer settles a candidate in the settled-matches file (``settled.py``): a
pairing marked right is applied as a match, one marked wrong is never applied
nor reported again.

Matching uses the merge stage's evidence (``SimilarityIndex``: equal titles after
normalisation, abstract shingle overlap, forum ids), through its index, never all
pairs. References are judged more strictly than listings are merged, because a
wrong match puts another paper's authors on a page:

- *strong* (applied): the same OpenReview forum; the merge's own evidence; a
  rewritten abstract (shingle Jaccard >= 0.3 and content-word Jaccard >= 0.55:
  among the 30k candidate pairs of distinct ICLR 2025 submissions, one pair
  exceeds 0.2 / 0.4 and it is one abstract pasted under two titles); the same
  title with related abstracts (content-word Jaccard >= 0.2); a similar title
  (word Jaccard >= 0.6) with content-word Jaccard >= 0.4.
- *weak* (reported as a candidate for a maintainer): some overlap below that, or
  a title-only match of fewer than three words.
- *ambiguous* (reported): two reference records of the same strength class within
  0.15 of each other, or one record that two papers claim (the stronger keeps it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from generator.config import SourceSettings
from generator.ingest.authors import OrderVerdict, judge_order, list_order, same_people, source_order
from generator.ingest.listing import Listing, ListingEntry, ReadSettings, read_listing
from generator.ingest.merge import MergedPaper, SimilarityIndex, _Doc
from generator.ingest.settled import Settled
from generator.text import fold, normalize_text, title_key
from generator.pages.record import Fill

STRONG_JACCARD = 0.3  # abstract word 3-shingles, with STRONG_WORDS
STRONG_WORDS = 0.55  # content-word sets
SAME_TITLE_WORDS = 0.2  # same title: abstracts need only share vocabulary
SIMILAR_TITLE = 0.6  # title word Jaccard of a lightly retitled paper
SIMILAR_TITLE_WORDS = 0.4  # ... whose abstract shares this much vocabulary
WEAK_JACCARD = 0.1
WEAK_WORDS = 0.3
MIN_TITLE_WORDS = 3  # a title alone ("Introduction", "Deep Learning") is no evidence below this
AMBIGUITY_MARGIN = 0.15
FORUM = "forum"
CONFIRMED = "confirmed by a maintainer"

# Words that every abstract shares; content-word overlap ignores them.
_STOP_WORDS = frozenset(
    """a an the of for and or to with in on by from via that which as at into its their our is are be been
    we this these those it can not such both using based show shows paper propose proposed method methods
    results approach model models also than more while when where how what only over under between""".split()
)
_TEX_IN_TITLE = str.maketrans({c: "" for c in "$\\{}^_"})


@dataclass(frozen=True)
class Judgement:
    """How one listing paper relates to one reference record."""

    strong: bool
    kind: str  # "forum", "title", "title+abstract", "abstract", "opening", "rewritten abstract", "weak overlap"
    score: float  # word 3-shingle Jaccard of the abstracts (1.0 for forum or title-only evidence)
    words: float  # content-word Jaccard of the abstracts
    same_title: bool

    def rank(self) -> tuple[int, int, float]:
        return (self.kind in (FORUM, CONFIRMED), self.same_title, max(self.score, self.words))


@dataclass
class _Pairing:
    """One listing paper beside one reference record, and the evidence that relates them."""

    paper: int  # position in the papers list
    reference: str  # file name
    record: int  # 1-based record number in the reference
    reference_title: str
    judgement: Judgement

    def to_json(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "record": self.record,
            "reference_title": self.reference_title,
            "match": self.judgement.kind,
            "score": round(self.judgement.score, 3),
            "words": round(self.judgement.words, 3),
        }


@dataclass
class ReferenceMatch(_Pairing):
    """A pairing that was applied: the fields it filled and where listing and reference differ."""

    fields: list[str] = field(default_factory=list)
    differs: dict[str, dict[str, Any]] = field(default_factory=dict)  # field -> {listing, reference}

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "fields": self.fields, "differs": self.differs}


@dataclass
class ReferenceCandidate(_Pairing):
    """A possible counterpart that was not applied, and why."""

    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "reason": self.reason}


@dataclass
class ReferenceReport:
    files: list[dict[str, Any]] = field(default_factory=list)  # {file, records}
    matches: list[ReferenceMatch] = field(default_factory=list)
    candidates: list[ReferenceCandidate] = field(default_factory=list)
    orders: list[OrderVerdict] = field(default_factory=list)  # each reference's author order
    rejected: list[_Pairing] = field(default_factory=list)  # pairings a maintainer marked wrong


def read_references(paths: Iterable[Path], settings: ReadSettings = ReadSettings()) -> list[Listing]:
    """Read every reference file; raises PapersiteError (``path:line: message``) on a bad one."""
    return [read_listing(path, settings) for path in paths]


def complete_papers(
    papers: list[MergedPaper],
    references: list[Listing],
    settings: Callable[[str], SourceSettings] = lambda name: SourceSettings(),
    settled: Settled | None = None,
) -> tuple[list[MergedPaper], ReferenceReport]:
    """Fill what each paper lacks (or what a reference decides) from its counterpart; references in the order given."""
    report = ReferenceReport()
    settled = settled or Settled()
    completed = list(papers)
    for reference in references:
        report.files.append({"file": reference.name, "records": len(reference.entries)})
        declared = settings(reference.name)
        order, declared_by = source_order(declared.author_order, reference.author_order, reference.format)
        verdict = judge_order(reference.name, (e.authors for e in reference.entries), order, declared_by)
        report.orders.append(verdict)
        matcher = _Matcher(reference)
        docs = [matcher.index.make_doc(p.title, p.abstract, p.links.get("openreview")) for p in completed]
        verdicts = settled.for_reference(reference.name, [e.title for e in reference.entries], completed)
        chosen = _choose(completed, docs, matcher, report, verdicts)
        for position, (record, judgement) in sorted(chosen.items()):
            entry = reference.entries[record]
            paper, match = _fill(completed[position], entry, reference.name, judgement, declared.authority, verdict)
            match.paper = position
            completed[position] = paper
            report.matches.append(match)
    report.matches.sort(key=lambda m: (m.paper, m.reference))
    report.candidates.sort(key=lambda c: (c.paper, c.reference, c.record))
    report.rejected.sort(key=lambda c: (c.paper, c.reference, c.record))
    return completed, report


class _Matcher:
    """One reference file indexed for lookup: shingles, titles (TeX-free too) and forum URLs."""

    def __init__(self, reference: Listing) -> None:
        self.reference = reference
        self.index = SimilarityIndex()
        self.by_loose_title: dict[str, list[int]] = {}
        self.by_forum: dict[str, int] = {}
        for number, entry in enumerate(reference.entries):
            forum = entry.links.get("openreview")
            self.index.add(entry.title, entry.abstract, forum)
            loose = loose_title(entry.title)
            if loose:
                self.by_loose_title.setdefault(loose, []).append(number)
            if forum:
                self.by_forum.setdefault(forum, number)
        self._stop_ids: frozenset[int] | None = None
        self._word_sets: dict[int, frozenset[int]] = {}

    def candidates(self, doc: _Doc, title: str | None) -> list[int]:
        found = set(self.index.candidates(doc))
        found.update(self.by_loose_title.get(loose_title(title), ()))
        if doc.record_url and doc.record_url in self.by_forum:
            found.add(self.by_forum[doc.record_url])
        return sorted(found)

    def content_words(self, doc: _Doc, key: int | None = None) -> frozenset[int]:
        if key is not None and key in self._word_sets:
            return self._word_sets[key]
        if self._stop_ids is None:
            vocab = self.index._vocab
            self._stop_ids = frozenset(vocab[w] for w in _STOP_WORDS if w in vocab)
        words = frozenset(doc.word_ids) - self._stop_ids
        if key is not None:
            self._word_sets[key] = words
        return words

    def judge(self, doc: _Doc, title: str | None, number: int, paper_words: frozenset[int]) -> Judgement | None:
        other = self.index.docs[number]
        entry = self.reference.entries[number]
        if doc.record_url and doc.record_url == other.record_url:
            return Judgement(True, FORUM, 1.0, 1.0, doc.title == other.title)
        if doc.record_url and other.record_url:
            return None  # two different forums: two different papers
        jaccard = words = 0.0
        if doc.shingles and other.shingles:
            shared = len(doc.shingles & other.shingles)
            jaccard = shared / (len(doc.shingles) + len(other.shingles) - shared)
            theirs = self.content_words(other, number)
            union = len(paper_words | theirs)
            words = len(paper_words & theirs) / union if union else 0.0
        same_title = bool(title) and (doc.title == other.title or loose_title(title) == loose_title(entry.title))
        long_title = len(doc.title.split()) >= MIN_TITLE_WORDS
        merge = SimilarityIndex.evidence(doc, other)
        if merge is not None:
            kind, score = merge
            if kind == "title" and not long_title:
                return Judgement(False, "short title only", score, words, same_title)
            return Judgement(True, kind, jaccard if doc.shingles and other.shingles else score, words, same_title)
        if jaccard >= STRONG_JACCARD and words >= STRONG_WORDS:
            return Judgement(True, "rewritten abstract", jaccard, words, same_title)
        if same_title and long_title and words >= SAME_TITLE_WORDS:
            return Judgement(True, "title", jaccard, words, same_title)
        similar_title = _title_similarity(title, entry.title) >= SIMILAR_TITLE
        if similar_title and words >= SIMILAR_TITLE_WORDS:
            return Judgement(True, "similar title+abstract", jaccard, words, same_title)
        if same_title and not (doc.shingles and other.shingles) and long_title:
            return Judgement(True, "title", 1.0, 0.0, same_title)
        if jaccard >= WEAK_JACCARD or words >= WEAK_WORDS or same_title or (similar_title and words >= WEAK_JACCARD):
            return Judgement(False, "same title, different abstract" if same_title else "weak overlap", jaccard, words, same_title)
        return None


def _title_similarity(a: str | None, b: str | None) -> float:
    """Jaccard of the two titles' word sets (TeX dropped)."""
    left, right = set(loose_title(a).split()), set(loose_title(b).split())
    return len(left & right) / len(left | right) if left and right else 0.0


def loose_title(title: str | None) -> str:
    """The title key with TeX markup dropped: "MGD$^3$" and "MGD3" are one title."""
    return title_key(title.translate(_TEX_IN_TITLE)) if title else ""


def _choose(
    papers: list[MergedPaper],
    docs: list[_Doc],
    matcher: _Matcher,
    report: ReferenceReport,
    settled: dict[tuple[int, int], bool],
) -> dict[int, tuple[int, Judgement]]:
    """The reference record each paper is matched to; everything else goes to the report.

    ``settled``: (paper position, 0-based record) -> True (a maintainer confirmed the pairing)
    or False (rejected it)."""
    name = matcher.reference.name
    entries = matcher.reference.entries

    def candidate(position: int, number: int, judgement: Judgement, reason: str) -> None:
        report.candidates.append(
            ReferenceCandidate(position, name, number + 1, entries[number].title or "", judgement, reason)
        )

    confirmed_by_paper: dict[int, list[int]] = {}
    for (position, number), right in sorted(settled.items()):
        if right:
            confirmed_by_paper.setdefault(position, []).append(number)
    best: dict[int, tuple[int, Judgement]] = {}
    for position, (paper, doc) in enumerate(zip(papers, docs)):
        paper_words = matcher.content_words(doc)
        judged = []
        numbers = set(matcher.candidates(doc, paper.title)) | set(confirmed_by_paper.get(position, ()))
        for number in sorted(numbers):
            judgement = matcher.judge(doc, paper.title, number, paper_words)
            right = settled.get((position, number))
            if right is False:
                report.rejected.append(
                    _Pairing(position, name, number + 1, entries[number].title or "", judgement or Judgement(False, "rejected", 0.0, 0.0, False))
                )
                continue
            if right:
                base = judgement or Judgement(False, CONFIRMED, 0.0, 0.0, False)
                judgement = Judgement(True, CONFIRMED, base.score, base.words, base.same_title)
            if judgement is not None:
                judged.append((judgement, number))
        strong = sorted(((j, n) for j, n in judged if j.strong), key=lambda item: (item[0].rank(), -item[1]), reverse=True)
        for judgement, number in judged:
            if not judgement.strong and not strong:
                candidate(position, number, judgement, "weak evidence: confirm by hand")
        if not strong:
            continue
        top, number = strong[0]
        if len(strong) > 1:
            second, other = strong[1]
            if top.kind not in (FORUM, CONFIRMED) and top.rank()[:2] == second.rank()[:2] and top.rank()[2] - second.rank()[2] < AMBIGUITY_MARGIN:
                for judgement, n in strong:
                    candidate(position, n, judgement, "two reference records are close: confirm which one by hand")
                continue
        best[position] = (number, top)

    # One reference record is one paper: when two papers claim it, the stronger keeps it.
    claims: dict[int, list[int]] = {}
    for position, (number, _) in best.items():
        claims.setdefault(number, []).append(position)
    for number, positions in claims.items():
        if len(positions) < 2:
            continue
        positions.sort(key=lambda p: (best[p][1].rank(), -p), reverse=True)
        for position in positions[1:]:
            candidate(position, number, best[position][1], f"this record is matched to {papers[positions[0]].label()}")
            del best[position]
    return best


def _fill(
    paper: MergedPaper,
    entry: ListingEntry,
    reference: str,
    judgement: Judgement,
    authority: tuple[str, ...] = (),
    order: OrderVerdict | None = None,
) -> tuple[MergedPaper, ReferenceMatch]:
    """The paper completed from ``entry``: empty fields filled, ``authority`` fields decided by the reference.

    A listing's value that the reference replaces is kept in ``listed``."""
    changes: dict[str, Any] = {}
    filled: list[str] = []
    differs: dict[str, dict[str, Any]] = {}
    listed = dict(paper.listed)

    def decide(name: str, ours: Any, theirs: Any, same: bool) -> None:
        """The reference's value where the page has none, or where it is the authority and they differ."""
        if not ours:
            changes[name] = theirs
            filled.append(name)
        elif not same and (name != "abstract" or name in authority):  # abstracts differ in typography: not news
            differs[name] = {"listing": ours, "reference": theirs}
            if name in authority:
                changes[name] = theirs
                filled.append(name)
                listed.setdefault(name, ours)

    if entry.title:
        decide("title", paper.title, entry.title, loose_title(paper.title) == loose_title(entry.title))
    if entry.authors:
        _fill_authors(paper, entry, order, "authors" in authority, changes, filled, differs, listed)
    if entry.abstract:
        decide("abstract", paper.abstract, entry.abstract, normalize_text(paper.abstract or "") == normalize_text(entry.abstract))
    if entry.decision:
        decide("decision", paper.decision, entry.decision, paper.decision == entry.decision)
    texts = dict(paper.texts)
    for name, theirs in sorted(entry.texts.items()):
        ours = paper.texts.get(name)
        decide(name, ours, theirs, fold(ours or "") == fold(theirs))
        if name in changes:
            texts[name] = changes.pop(name)
    if texts != paper.texts:
        changes["texts"] = texts
    new_links = {key: url for key, url in sorted(entry.links.items()) if key not in paper.links}
    if new_links:
        changes["links"] = {**paper.links, **new_links}
        filled.extend(f"links.{key}" for key in new_links)
    if entry.topic and not paper.topic:
        changes["topic"] = dataclasses.replace(entry.topic, source="conference")
        filled.append("topic")
    if listed != paper.listed:
        changes["listed"] = listed
    record_number = entry.entry
    if filled:
        fill = Fill(reference, record_number, judgement.kind, round(judgement.score, 3), tuple(filled))
        changes["filled_from"] = [*paper.filled_from, fill]
    match = ReferenceMatch(0, reference, record_number, entry.title or "", judgement, filled, differs)
    return (dataclasses.replace(paper, **changes) if changes else paper), match


def _fill_authors(
    paper: MergedPaper,
    entry: ListingEntry,
    order: OrderVerdict | None,
    authority: bool,
    changes: dict[str, Any],
    filled: list[str],
    differs: dict[str, dict[str, Any]],
    listed: dict[str, Any],
) -> None:
    """Authors from the reference where the page has none, where it decides them, or where it knows their order."""
    theirs = list(entry.authors)
    their_order = list_order(theirs, order)
    if not paper.authors:
        changes.update(authors=theirs, author_order=their_order)
        filled.append("authors")
        return
    if [fold(a) for a in paper.authors] == [fold(a) for a in theirs]:
        if paper.author_order and their_order is None:  # an ordered source confirms the order
            changes["author_order"] = None
        return
    differs["authors"] = {"listing": list(paper.authors), "reference": theirs}
    people = same_people(paper.authors, theirs)
    if people and paper.author_order and their_order is None:
        changes.update(authors=theirs, author_order=None)  # the same people, in the paper's order
        filled.append("authors")
    elif authority and not people:
        changes.update(authors=theirs, author_order=their_order)
        filled.append("authors")
        listed.setdefault("authors", list(paper.authors))
