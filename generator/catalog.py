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

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import chain

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

    def __repr__(self) -> str:  # the whole catalog is every paper many times over
        return f"<Catalog: {len(self.papers)} papers, {len(self.authors)} authors, {len(self.keywords)} keywords, {len(self.areas)} areas>"

    def paper_authors(self, paper: PaperRecord) -> list[Author]:
        return [self.author_of[fold(name)] for name in paper.authors if fold(name)]

    def paper_keywords(self, paper: PaperRecord) -> list[Keyword]:
        seen: dict[str, Keyword] = {}
        for name in paper.keywords:
            if fold(name):
                seen.setdefault(fold(name), self.keyword_of[fold(name)])
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


def build_catalog(records: list[PaperRecord]) -> Catalog:
    papers = sorted(records, key=paper_sort_key)

    # plain dicts, not Counters: one per author (35k at 11,672 papers), and a Counter costs ~25 µs to make
    author_spellings: dict[str, dict[str, int]] = defaultdict(dict)
    author_papers: dict[str, list[PaperRecord]] = defaultdict(list)
    keyword_spellings: dict[str, dict[str, int]] = defaultdict(dict)
    keyword_papers: dict[str, list[PaperRecord]] = defaultdict(list)
    for paper in papers:
        for name in paper.authors:
            key = fold(name)
            if not key:
                continue
            spellings = author_spellings[key]
            spelling = _SPACES.sub(" ", name.strip())
            spellings[spelling] = spellings.get(spelling, 0) + 1
            if not author_papers[key] or author_papers[key][-1] is not paper:
                author_papers[key].append(paper)
        for name in paper.keywords:
            key = fold(name)
            if not key:
                continue
            spellings = keyword_spellings[key]
            spelling = name.strip()
            spellings[spelling] = spellings.get(spelling, 0) + 1
            if not keyword_papers[key] or keyword_papers[key][-1] is not paper:
                keyword_papers[key].append(paper)

    slugs = layout.Slugs()
    authors: list[Author] = []
    author_of: dict[str, Author] = {}
    for key in sorted(author_spellings):
        spellings = author_spellings[key]
        name = _display_name(spellings)
        variants = [name] + sorted(s for s in spellings if s != name)
        author = Author(name=name, slug=slugs.take(layout.slug_of(name)), variants=variants, papers=author_papers[key])
        authors.append(author)
        author_of[key] = author
    authors.sort(key=lambda a: sort_key(a.name))

    # Co-authors: linear in the names of the papers, never every pair (MAX_COAUTHORS_SHOWN).
    rank = {id(a): i for i, a in enumerate(authors)}  # authors are sorted by sort_key already
    links = [Link(a.name, a.slug, a.url) for a in authors]
    ranks_of = {  # each paper's distinct authors, in author order
        id(p): sorted({rank[id(author_of[k])] for k in map(fold, p.authors) if k}) for p in papers
    }
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
        # bounded by this author's own papers' names, and dropped before the next author
        counts = Counter(chain.from_iterable(ranks_of[id(paper)] for paper in author.papers))
        del counts[number]
        # most shared papers first, then in author order: a stable sort by count (reverse keeps
        # stability) of the ranks in order, C-level keys rather than a Python key per co-author
        ordered = sorted(counts)
        ordered.sort(key=counts.__getitem__, reverse=True)
        author.coauthors = [(links[i], counts[i]) for i in ordered[:MAX_COAUTHORS_SHOWN]]
        author.coauthor_count = len(counts)

    slugs = layout.Slugs()
    keywords: list[Keyword] = []
    keyword_of: dict[str, Keyword] = {}
    for key in sorted(keyword_spellings):
        name = _display_name(keyword_spellings[key])
        keyword = Keyword(name=name, slug=slugs.take(layout.slug_of(name)), papers=keyword_papers[key])
        keywords.append(keyword)
        keyword_of[key] = keyword
    keywords.sort(key=lambda k: sort_key(k.name))

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
    return Catalog(
        papers=papers,
        authors=authors,
        keywords=keywords,
        areas=areas,
        author_of=author_of,
        keyword_of=keyword_of,
        area_of=area_of,
        subarea_of=subarea_of,
    )
