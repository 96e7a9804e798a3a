"""The corpus as the site sees it: papers, and the authors, keywords and topics they share.

In: paper records (``PaperRecord``). Out: a ``Catalog`` with one entry per author,
keyword, area and sub-area, each with a unique slug and the papers it lists, in a
fixed order so that every page built from it is deterministic.

Author names are grouped only when they differ in case, accents or spacing
("José  García" and "jose garcia"); names that differ in any other way stay
separate people, even if their slugs collide (the later one gets ``-2``).

Not part of ``site/``: ``papersite check`` (``pages/check.py``) asks it which author,
keyword and topic URLs exist, and the paper pages must not depend on the site.
"""

from __future__ import annotations

import copyreg
import io
import pickle
import re
from array import array
from bisect import bisect_left, insort
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Callable

from generator.pages.record import PaperRecord
from generator import layout
from generator.text import fold

NO_TOPIC = "No topic"
# Co-authors an author page lists (most shared papers first), the rest counted. A physics
# collaboration gives one paper 5,000 authors: every pair would be 25 million entries
# (4.5 GB at 8,000 names) and each of 5,000 pages a list of 4,999 links.
MAX_COAUTHORS_SHOWN = 100


def sort_key(name: str) -> tuple[str, str]:
    return (fold(name), name)


@dataclass(frozen=True)
class Link:
    """Another page as a link to it shows it: what an author's page shows of a co-author."""

    name: str
    slug: str
    url: str


@dataclass
class Author:
    """A value (its papers and links), not a node of the catalog: an author's page is kept by it (site/memo.py)."""

    name: str  # the most used spelling
    slug: str
    variants: list[str]  # every spelling seen, display name first
    papers: list[PaperRecord] = field(default_factory=list)
    coauthors: list[tuple[Link, int]] = field(default_factory=list)
    coauthor_count: int = 0  # every distinct co-author; ``coauthors`` holds the first MAX_COAUTHORS_SHOWN

    @property
    def url(self) -> str:
        return layout.author_url(self.slug)

    def __getstate__(self) -> dict[str, Any]:
        self.coauthors  # noqa: B018 - made, if still packed: a copy or a pickle holds them as a fresh catalog does
        return {key: value for key, value in self.__dict__.items() if key != _KEPT_COAUTHORS}


class _PackedCoauthors:
    """``Author.coauthors`` where an author has none of its own yet: one read from a kept catalog holds them packed
    (``_KeptCoauthors``) until they are asked for, then as its own. An edit asks for a few: making the 230k (link,
    count) pairs of 35k authors was two thirds of reading the kept catalog at 11,672 papers. (A class attribute that
    is no data descriptor: an author's own ``coauthors`` hides it, and nothing is looked up in reading one.)"""

    def __get__(self, author: Author | None, owner: type | None = None) -> Any:
        if author is None:
            return self
        kept = author.__dict__.pop(_KEPT_COAUTHORS, None)
        if kept is None:
            raise AttributeError("coauthors")
        coauthors = author.__dict__["coauthors"] = kept[1].pairs(kept[0])
        return coauthors


Author.coauthors = _PackedCoauthors()  # type: ignore[assignment]  # after @dataclass, which takes a class value for a default


@dataclass
class Keyword:
    name: str
    slug: str
    papers: list[PaperRecord] = field(default_factory=list)

    @property
    def url(self) -> str:
        return layout.keyword_url(self.slug)


@dataclass
class Subarea:
    is_catalog_node = True  # links to the rest of the catalog: no key for work (memo.Fingerprints)
    name: str
    slug: str
    area: "Area"
    papers: list[PaperRecord] = field(default_factory=list)

    @property
    def url(self) -> str:
        return layout.subarea_url(self.area.slug, self.slug)


@dataclass
class Area:
    is_catalog_node = True  # links to the rest of the catalog: no key for work (memo.Fingerprints)
    name: str
    slug: str
    papers: list[PaperRecord] = field(default_factory=list)  # all papers of the area
    subareas: list[Subarea] = field(default_factory=list)

    @property
    def url(self) -> str:
        return layout.area_url(self.slug)

    @property
    def area_only(self) -> list[PaperRecord]:
        """Papers with this area but no sub-area (low-confidence inferences land here)."""
        return [p for p in self.papers if not (p.topic and p.topic.subarea)]


@dataclass
class Catalog:
    is_catalog_node = True  # links to the rest of the catalog: no key for work (memo.Fingerprints)
    papers: list[PaperRecord]  # sorted by title
    authors: list[Author]
    keywords: list[Keyword]
    areas: list[Area]
    author_of: dict[str, Author]  # folded name -> author
    keyword_of: dict[str, Keyword]  # folded keyword -> keyword
    area_of: dict[str, Area]  # area name -> area
    subarea_of: dict[tuple[str, str], Subarea]
    # renderers' memo of HTML built from this catalog (it lives and dies with it)
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    # every author and keyword name the papers give -> fold(name): kept with the catalog (``kept_catalog``),
    # as a build that updates it would otherwise fold 38k names afresh at 11,672 papers (a third of a second)
    folded: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:  # the whole catalog is every paper many times over
        return f"<Catalog: {len(self.papers)} papers, {len(self.authors)} authors, {len(self.keywords)} keywords, {len(self.areas)} areas>"

    def fold(self, name: str) -> str:
        """``text.fold(name)`` of a name a paper gives."""
        found = self.folded.get(name)
        return found if found is not None else fold(name)

    def paper_authors(self, paper: PaperRecord) -> list[Author]:
        return [self.author_of[key] for key in map(self.fold, paper.authors) if key]

    def paper_keywords(self, paper: PaperRecord) -> list[Keyword]:
        seen: dict[str, Keyword] = {}
        for key in map(self.fold, paper.keywords):
            if key:
                seen.setdefault(key, self.keyword_of[key])
        return list(seen.values())

    def paper_area(self, paper: PaperRecord) -> Area | None:
        return self.area_of.get(paper.topic.area) if paper.topic else None

    def paper_subarea(self, paper: PaperRecord) -> Subarea | None:
        if paper.topic and paper.topic.subarea:
            return self.subarea_of.get((paper.topic.area, paper.topic.subarea))
        return None


def paper_sort_key(paper: PaperRecord) -> tuple[str, str]:
    return (fold(paper.title), paper.slug)


_SPACES = re.compile(r"\s+")


def _display_name(spellings: dict[str, int]) -> str:
    if len(spellings) == 1:  # most names have one spelling
        return next(iter(spellings))
    # Most used spelling; on a tie prefer the one with accents (more information), then code order.
    return sorted(spellings, key=lambda s: (-spellings[s], -sum(ord(c) > 127 for c in s), s))[0]


def _named(spellings: dict[str, int]) -> tuple[str, list[str]]:
    """An author's or keyword's display name and every spelling seen, display name first."""
    name = _display_name(spellings)
    return name, [name] + sorted(s for s in spellings if s != name)


def _author_spelling(name: str) -> str:
    return _SPACES.sub(" ", name.strip())


def _keyword_spelling(name: str) -> str:
    return name.strip()


def _set_coauthors(author: Author, number: int, papers_ranks: list[list[int]], link_at: Callable[[int], Link]) -> None:
    """``author`` (rank ``number``)'s co-authors from the ranks of the authors of each of its papers:
    most shared papers first, then in author order; bounded by its own papers' names."""
    counts = Counter(chain.from_iterable(papers_ranks))
    del counts[number]
    # a stable sort by count (reverse keeps stability) of the ranks in order: C-level keys rather
    # than a Python key per co-author
    ordered = sorted(counts)
    ordered.sort(key=counts.__getitem__, reverse=True)
    author.coauthors = [(link_at(i), counts[i]) for i in ordered[:MAX_COAUTHORS_SHOWN]]
    author.coauthor_count = len(counts)
    author.__dict__.pop(_KEPT_COAUTHORS, None)  # (those it was read with, packed, are no more its own)


def _areas(papers: list[PaperRecord]) -> tuple[list[Area], dict[str, Area], dict[tuple[str, str], Subarea]]:
    """Areas and sub-areas, made whole on every build: one pass over the papers, a few ms at 11,672."""
    area_of: dict[str, Area] = {}
    subarea_of: dict[tuple[str, str], Subarea] = {}
    area_slugs = layout.Slugs()
    for paper in papers:
        area_name = paper.topic.area if paper.topic else NO_TOPIC
        if area_name not in area_of:
            area_of[area_name] = Area(name=area_name, slug="")
        area = area_of[area_name]
        area.papers.append(paper)
        if paper.topic and paper.topic.subarea:
            key = (area_name, paper.topic.subarea)
            if key not in subarea_of:
                subarea_of[key] = Subarea(name=paper.topic.subarea, slug="", area=area)
                area.subareas.append(subarea_of[key])
            subarea_of[key].papers.append(paper)
    areas = sorted(area_of.values(), key=lambda a: (a.name == NO_TOPIC, sort_key(a.name)))
    for area in areas:
        area.slug = area_slugs.take(layout.slug_of(area.name))
        area.subareas.sort(key=lambda s: sort_key(s.name))
        sub_slugs = layout.Slugs()
        for sub in area.subareas:
            sub.slug = sub_slugs.take(layout.slug_of(sub.name))
    return areas, area_of, subarea_of


def _catalog(papers: list[PaperRecord], authors: list[Author], keywords: list[Keyword], author_of: dict[str, Author],
             keyword_of: dict[str, Keyword], folded: dict[str, str]) -> Catalog:
    areas, area_of, subarea_of = _areas(papers)
    return Catalog(papers=papers, authors=authors, keywords=keywords, areas=areas, author_of=author_of,
                   keyword_of=keyword_of, area_of=area_of, subarea_of=subarea_of, folded=folded)


def _folded_names(papers: list[PaperRecord], known: dict[str, str]) -> dict[str, str]:
    """Every author and keyword name of ``papers`` -> its ``fold``, taken from ``known`` where it is there."""
    folded: dict[str, str] = {}
    for paper in papers:
        for name in chain(paper.authors, paper.keywords):
            if name not in folded:
                found = known.get(name)
                folded[name] = found if found is not None else fold(name)
    return folded


def _folded_updated(folded: dict[str, str], added: list[PaperRecord], touched: set[str], author_of: dict[str, Author],
                    keyword_of: dict[str, Keyword], papers: list[PaperRecord]) -> dict[str, str]:
    """``_folded_names(papers, folded)`` of a kept catalog's ``folded`` (updated in place), where the papers changed
    are ``added`` and the authors and keywords made again ``touched`` (by folded name, ``_update_named``): a name a
    gone paper gave folds to a touched name, so only the names of those are looked for in their papers (walking
    every paper's names was 0.05 s of an edit at 11,672 papers). A name that folds to nothing has no entry to look
    in: where one is kept, the names are walked whole."""
    for record in added:
        for name in chain(record.authors, record.keywords):
            if name not in folded:
                folded[name] = fold(name)
    if "" in folded.values():
        return _folded_names(papers, folded)
    for name in [name for name, key in folded.items() if key in touched]:
        key = folded[name]
        author, keyword = author_of.get(key), keyword_of.get(key)
        if not ((author is not None and any(name in p.authors for p in author.papers))
                or (keyword is not None and any(name in p.keywords for p in keyword.papers))):
            del folded[name]
    return folded


def _ranks(paper: PaperRecord, rank: dict[int, int], author_of: dict[str, Author]) -> list[int]:
    """The paper's distinct authors, as their ranks in author order."""
    return sorted({rank[id(author_of[k])] for k in map(fold, paper.authors) if k})


def build_catalog(records: list[PaperRecord]) -> Catalog:
    papers = sorted(records, key=paper_sort_key)

    # plain dicts, not Counters: one per author (35k at 11,672 papers), and a Counter costs ~25 µs to make
    author_spellings: dict[str, dict[str, int]] = defaultdict(dict)
    author_papers: dict[str, list[PaperRecord]] = defaultdict(list)
    keyword_spellings: dict[str, dict[str, int]] = defaultdict(dict)
    keyword_papers: dict[str, list[PaperRecord]] = defaultdict(list)
    folded: dict[str, str] = {}
    for paper in papers:
        for name in paper.authors:
            key = folded[name] = fold(name)
            if not key:
                continue
            spellings = author_spellings[key]
            spelling = _author_spelling(name)
            spellings[spelling] = spellings.get(spelling, 0) + 1
            if not author_papers[key] or author_papers[key][-1] is not paper:
                author_papers[key].append(paper)
        for name in paper.keywords:
            key = folded[name] = fold(name)
            if not key:
                continue
            spellings = keyword_spellings[key]
            spelling = _keyword_spelling(name)
            spellings[spelling] = spellings.get(spelling, 0) + 1
            if not keyword_papers[key] or keyword_papers[key][-1] is not paper:
                keyword_papers[key].append(paper)

    slugs = layout.Slugs()
    authors: list[Author] = []
    author_of: dict[str, Author] = {}
    for key in sorted(author_spellings):
        name, variants = _named(author_spellings[key])
        author = Author(name=name, slug=slugs.take(layout.slug_of(name)), variants=variants, papers=author_papers[key])
        authors.append(author)
        author_of[key] = author
    authors.sort(key=lambda a: sort_key(a.name))

    # Co-authors: linear in the names of the papers, never every pair (MAX_COAUTHORS_SHOWN).
    rank = {id(a): i for i, a in enumerate(authors)}  # authors are sorted by sort_key already
    links = [Link(a.name, a.slug, a.url) for a in authors]
    ranks_of = {id(p): _ranks(p, rank, author_of) for p in papers}
    shown_of: dict[int, list[tuple[Link, int]]] = {}  # per paper: its first authors, made once
    for number, author in enumerate(authors):
        if len(author.papers) == 1:  # most authors: every co-author shares that one paper
            ranks = ranks_of[id(author.papers[0])]
            shown = shown_of.get(id(author.papers[0]))
            if shown is None:
                shown = shown_of[id(author.papers[0])] = [(links[i], 1) for i in ranks[: MAX_COAUTHORS_SHOWN + 1]]
            author.coauthors = [pair for pair in shown if pair[0] is not links[number]][:MAX_COAUTHORS_SHOWN]
            author.coauthor_count = len(ranks) - 1
            continue
        _set_coauthors(author, number, [ranks_of[id(paper)] for paper in author.papers], links.__getitem__)

    slugs = layout.Slugs()
    keywords: list[Keyword] = []
    keyword_of: dict[str, Keyword] = {}
    for key in sorted(keyword_spellings):
        name = _display_name(keyword_spellings[key])
        keyword = Keyword(name=name, slug=slugs.take(layout.slug_of(name)), papers=keyword_papers[key])
        keywords.append(keyword)
        keyword_of[key] = keyword
    keywords.sort(key=lambda k: sort_key(k.name))

    return _catalog(papers, authors, keywords, author_of, keyword_of, folded)


# The catalog per changed record: a build keeps its catalog (``kept_catalog``) and the next one updates it by the
# records whose pages changed (``update_catalog``), equal to ``build_catalog`` of the same records.

# Past this many changed records an update stops paying: each touched name is counted again from its papers.
MAX_CHANGED = 2000
_SUFFIXED = re.compile(r"-\d+$")


class _Gone:
    """Where a kept catalog listed a paper whose page has changed or gone: whatever lists it is made again."""

    __slots__ = ("slug",)

    def __init__(self, slug: str) -> None:
        self.slug = slug


def _paper_ref(slug: str) -> PaperRecord:  # how a kept catalog names a paper; _KeptReader stands in for it
    raise RuntimeError(f"paper {slug!r} of a kept catalog read without update_catalog")


_KEPT_COAUTHORS = "_kept_coauthors"  # an Author's attribute while its co-authors are packed: (ranks, _KeptCoauthors)


class _KeptCoauthors:
    """The co-authors of a kept catalog's authors, packed: each author's is the bytes of an ``array("i")`` of
    (rank, shared papers) pairs, a rank being the place in ``order`` (the authors as the catalog was kept) of the
    author it links to; ``pairs`` makes them (``_PackedCoauthors``). A rank reads its author's name and slug when
    asked: ``update_catalog`` makes again the co-authors of each author of one whose name or slug moved, so those
    left packed link only to authors whose name and slug are the kept ones."""

    def __init__(self, order: list[Author]) -> None:
        self.order = order
        self._links: dict[int, Link] = {}

    def __getstate__(self) -> list[Author]:
        return self.order

    def __setstate__(self, order: list[Author]) -> None:
        self.order, self._links = order, {}

    def pairs(self, packed: bytes) -> list[tuple[Link, int]]:
        numbers = array("i")
        numbers.frombytes(packed)
        links, order = self._links, self.order
        made = []
        for at in range(0, len(numbers), 2):
            rank = numbers[at]
            link = links.get(rank)
            if link is None:
                author = order[rank]
                link = links[rank] = Link(author.name, author.slug, author.url)
            made.append((link, numbers[at + 1]))
        return made


def kept_catalog(catalog: Catalog) -> bytes:
    """What ``update_catalog`` starts from: the catalog's papers, authors and keywords, each paper named by its
    slug: the records are the records memo's already, and reading 11,672 of them again would cost what the update
    saves. Each author's co-authors are packed (``_KeptCoauthors``). The areas are made whole (``_areas``)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    table = _KeptCoauthors(list(catalog.authors))  # a copy: an update changes the catalog's list in place
    rank = {author.slug: number for number, author in enumerate(catalog.authors)}

    def packed(author: Author) -> tuple:
        state = author.__getstate__()
        try:
            ranks = array("i", [number for link, count in state["coauthors"] for number in (rank[link.slug], count)])
        except KeyError:  # a link to no author of the catalog: kept as it is
            return (copyreg.__newobj__, (Author,), state)
        del state["coauthors"]
        state[_KEPT_COAUTHORS] = (ranks.tobytes(), table)
        return (copyreg.__newobj__, (Author,), state)

    pickler.dispatch_table = {**copyreg.dispatch_table, PaperRecord: lambda record: (_paper_ref, (record.slug,)), Author: packed}
    pickler.dump((catalog.papers, catalog.authors, catalog.keywords, catalog.author_of, catalog.keyword_of, catalog.folded))
    return out.getvalue()


class _KeptReader(pickle.Unpickler):
    def __init__(self, kept: bytes, paper: Callable[[str], Any]) -> None:
        super().__init__(io.BytesIO(kept))
        self.paper = paper

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_paper_ref":
            return self.paper
        return super().find_class(module, name)


@dataclass(frozen=True)
class CatalogUpdate:
    """An updated catalog and what of it differs from the kept one: folded names, and the slugs of the papers
    that are the kept ones unchanged. What is not named here is as the kept catalog had it, so a page made only
    of it shows what it showed then (``site/carried.py``)."""

    catalog: Catalog
    same: frozenset[str]  # slugs of the papers kept unchanged
    authors_remade: frozenset[str]  # authors made again (papers, name, slug or co-authors may differ)
    authors_moved: frozenset[str]  # authors whose name or slug moved, or that came or went (links to them differ)
    keywords_moved: frozenset[str]  # the same of keywords
    keywords_remade: frozenset[str] = frozenset()  # keywords made again (their papers may differ)


def update_catalog(kept: bytes, records: list[PaperRecord], same: set[str]) -> CatalogUpdate | None:
    """``build_catalog(records)``, from ``kept_catalog`` of an earlier build's catalog whose papers with a slug in
    ``same`` are these ``records`` unchanged (their pages' bytes are the same): only the authors and keywords the
    other papers (changed, added, gone) name are made again, and the co-authors of those whose name or slug moved.

    None where that is not sure to be the whole build's catalog, for the caller to build it whole: two records
    with one slug, more than ``MAX_CHANGED`` changed papers, kept bytes that cannot be read or do not hold these papers,
    and a name whose slug would move another name's (``_update_named``)."""
    by_slug = {record.slug: record for record in records}
    if len(by_slug) != len(records):
        return None
    added = [record for record in records if record.slug not in same]
    if len(added) > MAX_CHANGED:
        return None
    gone: dict[str, _Gone] = {}

    def paper(slug: str) -> Any:
        record = by_slug.get(slug) if slug in same else None
        return record if record is not None else gone.setdefault(slug, _Gone(slug))

    # (reading makes ~0.5 million objects that all live on: the build reads it with the collector paused,
    # stage._kept_from_the_collector)
    try:
        papers, authors, keywords, author_of, keyword_of, folded = _KeptReader(kept, paper).load()
    except Exception:  # noqa: BLE001 - whatever the bytes hold, a kept catalog that cannot be read is none
        return None
    if len(gone) > MAX_CHANGED:
        return None
    gone_ids = {id(g) for g in gone.values()}
    papers = [p for p in papers if id(p) not in gone_ids]
    for record in added:
        insort(papers, record, key=paper_sort_key)
    if len(papers) != len(records):
        return None
    changed = _update_named(authors, author_of, gone_ids, added, lambda p: p.authors, _author_spelling)
    keywords_changed = _update_named(keywords, keyword_of, gone_ids, added, lambda p: p.keywords, _keyword_spelling)
    if changed is None or keywords_changed is None:
        return None
    touched, moved = changed
    # An author's co-authors are made of its papers' authors' links and order: made again where a paper
    # changed, and for each author of a paper of one whose name or slug moved.
    again = {key for key in touched if key in author_of}
    for key in moved:
        if key in author_of:
            again.update(k for p in author_of[key].papers for k in map(fold, p.authors) if k)
    if again:
        rank = {id(a): i for i, a in enumerate(authors)}
        made: dict[int, Link] = {}

        def link_at(i: int) -> Link:
            link = made.get(i)
            if link is None:
                link = made[i] = Link(authors[i].name, authors[i].slug, authors[i].url)
            return link

        ranks_of: dict[int, list[int]] = {}
        for key in sorted(again):
            author = author_of[key]
            for p in author.papers:
                if id(p) not in ranks_of:
                    ranks_of[id(p)] = _ranks(p, rank, author_of)
            _set_coauthors(author, rank[id(author)], [ranks_of[id(p)] for p in author.papers], link_at)
    if added or gone:
        folded = _folded_updated(folded, added, touched | keywords_changed[0], author_of, keyword_of, papers)
    catalog = _catalog(papers, authors, keywords, author_of, keyword_of, folded)
    return CatalogUpdate(catalog, frozenset(same & by_slug.keys()), frozenset(touched | again), frozenset(moved),
                         frozenset(keywords_changed[1]), frozenset(keywords_changed[0]))


def _update_named(entries: list[Any], entry_of: dict[str, Any], gone_ids: set[int], added: list[PaperRecord],
                  names_of: Callable[[PaperRecord], list[str]], spelling_of: Callable[[str], str]) -> tuple[set[str], set[str]] | None:
    """``entries`` (authors or keywords, in name order) and ``entry_of`` (folded name -> entry) updated in place
    for the papers gone and added: each name such a paper gives is made again from its papers, as
    ``build_catalog`` makes it. Returns the folded names so made and those whose name or slug moved (or that came
    or went); None when a slug would move another entry's (slugs are handed out in folded-name order, a later
    name with a taken slug getting ``-2``): only a slug no one else wants is handed out here."""
    touched = {k for k, e in entry_of.items() if not gone_ids.isdisjoint(map(id, e.papers))} if gone_ids else set()
    added_to: dict[str, list[PaperRecord]] = defaultdict(list)
    for record in added:
        for key in dict.fromkeys(k for k in map(fold, names_of(record)) if k):
            added_to[key].append(record)
    touched.update(added_to)
    moved: set[str] = set()
    freed: list[str] = []  # slugs of entries gone or renamed
    fresh: list[Any] = []  # entries new or renamed, in folded-name order: they take a slug
    for key in sorted(touched):
        entry = entry_of.get(key)
        papers = [p for p in entry.papers if id(p) not in gone_ids] if entry is not None else []
        for record in added_to.get(key, ()):
            insort(papers, record, key=paper_sort_key)
        if not papers:
            _remove(entries, entry)
            del entry_of[key]
            freed.append(entry.slug)
            moved.add(key)
            continue
        spellings: dict[str, int] = {}
        for p in papers:
            for name in names_of(p):
                if fold(name) == key:
                    spelling = spelling_of(name)
                    spellings[spelling] = spellings.get(spelling, 0) + 1
        name, variants = _named(spellings)
        if entry is None:
            entry = entry_of[key] = Author(name, "", variants) if spelling_of is _author_spelling else Keyword(name, "")
        elif entry.name != name:
            _remove(entries, entry)
            freed.append(entry.slug)
        else:
            entry.papers = papers
            if isinstance(entry, Author):
                entry.variants = variants
            continue
        entry.name, entry.papers = name, papers
        if isinstance(entry, Author):
            entry.variants = variants
        insort(entries, entry, key=lambda e: sort_key(e.name))
        fresh.append(entry)
        moved.add(key)
    if freed or fresh:
        renamed = {id(e) for e in fresh}
        taken = {e.slug for e in entries if id(e) not in renamed}
        for slug in freed:  # did it push a later name to -2? (a slug with a number may be one pushed itself)
            if _SUFFIXED.search(slug) or f"{slug}-2" in taken:
                return None
        for entry in fresh:
            slug = layout.slug_of(entry.name)
            if slug in taken:
                return None
            entry.slug = slug
            taken.add(slug)
    return touched, moved


def _remove(entries: list[Any], entry: Any) -> None:
    """``entry`` out of ``entries`` (sorted by name), found by what it is, not by equality (a deep compare)."""
    at = bisect_left(entries, sort_key(entry.name), key=lambda e: sort_key(e.name))
    if not (at < len(entries) and entries[at] is entry):
        at = next(i for i, e in enumerate(entries) if e is entry)
    del entries[at]
