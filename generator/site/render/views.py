"""What a paper, author or keyword page is handed of the catalog: the values it shows, not the catalog.

In: the catalog. Out: one small value per page, with the attribute and method names
the renderers read of the catalog and its nodes (``Catalog.paper_area``, ``Author.coauthors``,
...), so a renderer takes its view where it took the catalog.

Why: an incremental build keeps a page by the fingerprint of its renderer's arguments
(``site/memo.py``). The catalog links every node to every other (an author to her
co-authors, to theirs, ...), so it cannot be a key; a view can, and it holds all a
page may read: a renderer that starts reading something else fails at once, where a
hand-kept list of its inputs would have given a stale page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.pages.record import PaperRecord
from generator.site.catalog import Catalog
from generator.text import fold


@dataclass(frozen=True)
class Link:
    """Another page as a link to it shows it."""

    name: str
    slug: str
    url: str


@dataclass(frozen=True)
class Memos:
    """The catalog as a page that reads only its renderers' memo sees it (``Catalog.cache``: not an input)."""

    cache: dict = field(compare=False, repr=False)


@dataclass(frozen=True)
class PaperView:
    """The catalog as one paper's page reads it."""

    author_of: dict[str, Link]  # folded name -> the author's page
    keywords: tuple[Link, ...]
    area: Link | None
    subarea: Link | None
    cache: dict = field(compare=False, repr=False)

    def paper_keywords(self, paper: PaperRecord) -> list[Link]:
        return list(self.keywords)

    def paper_area(self, paper: PaperRecord) -> Link | None:
        return self.area

    def paper_subarea(self, paper: PaperRecord) -> Link | None:
        return self.subarea


@dataclass(frozen=True)
class AuthorView:
    name: str
    slug: str
    url: str
    variants: tuple[str, ...]
    papers: tuple[PaperRecord, ...]
    coauthors: tuple[tuple[Link, int], ...]
    coauthor_count: int


@dataclass(frozen=True)
class KeywordView:
    name: str
    slug: str
    url: str
    papers: tuple[PaperRecord, ...]


class Views:
    """Views of one catalog; each node's link is made once (a paper record is shown on many pages,
    an author on each co-author's)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.memos = Memos(catalog.cache)
        self._links: dict[int, Link] = {}

    def link(self, node: Any) -> Link:
        found = self._links.get(id(node))
        if found is None:
            found = self._links[id(node)] = Link(node.name, node.slug, node.url)
        return found

    def paper(self, paper: PaperRecord) -> PaperView:
        catalog = self.catalog
        area, sub = catalog.paper_area(paper), catalog.paper_subarea(paper)
        return PaperView(
            {fold(name): self.link(catalog.author_of[fold(name)]) for name in paper.authors if fold(name)},
            tuple(self.link(k) for k in catalog.paper_keywords(paper)),
            self.link(area) if area else None,
            self.link(sub) if sub else None,
            catalog.cache,
        )

    def author(self, author: Any) -> AuthorView:
        return AuthorView(author.name, author.slug, author.url, tuple(author.variants), tuple(author.papers),
                          tuple((self.link(other), n) for other, n in author.coauthors), author.coauthor_count)

    def keyword(self, keyword: Any) -> KeywordView:
        return KeywordView(keyword.name, keyword.slug, keyword.url, tuple(keyword.papers))

    def links(self, counted: list[tuple[Any, int]]) -> tuple[tuple[Link, int], ...]:
        return tuple((self.link(node), n) for node, n in counted)
