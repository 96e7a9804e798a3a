"""What a paper, author or keyword page is handed of the catalog: the values it shows, not the catalog.

In: the catalog. Out: per page, a value with the attribute and method names the renderers
read of the catalog (``Catalog.paper_area``, ``Catalog.cache``, ...), so a renderer takes
its view where it took the catalog. (An author or a keyword is a value already: its
papers, and links to its co-authors, ``catalog.Link``.)

Why: an incremental build keeps a page by the fingerprint of its renderer's arguments
(``site/memo.py``). The catalog links every part to every other, so it cannot be a key;
a view can, and it holds all a page may read: a renderer that starts reading something
else fails at once, where a hand-kept list of its inputs would have given a stale page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Container
from typing import Any

from generator.pages.record import PaperRecord
from generator.catalog import Catalog, Link


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


class _Links(dict):
    """id(node) -> the node's ``Link``, made when first asked for: an edit's build asks for few of the 37k at
    11,672 papers (the pages it renders again, the authors whose keys were not carried), and making them all
    was 0.1 s of every build."""

    def __init__(self, nodes: dict[int, Any]) -> None:
        super().__init__()
        self.nodes = nodes

    def __missing__(self, key: int) -> Link:
        node = self.nodes[key]
        link = self[key] = Link(node.name, node.slug, node.url)
        return link


def _shown(link: Link) -> tuple[str, str, str]:
    """What a link shows, as a digest is made of it."""
    return (link.name, link.slug, link.url)


class Views:
    """Views of one catalog; each page's link is made once (a keyword is shown on many pages:
    one object, which ``memo.Fingerprints`` hashes once).

    ``prints``: the build's ``memo.Fingerprints``, whose records are known by their pages' bytes
    (``stage.known_records``). Each author, keyword and paper view is then known to it by what it is
    made of, not hashed field by field: at 11,672 papers that was 35k authors, 73k links and 11.6k
    views pickled on every build to find the few an edit changed. What it is made of follows
    ``catalog.build_catalog``: an author (its name, variants, papers, co-authors and their counts) is
    its papers' records and the links of the authors on them (a co-author's name and slug: another
    author's slug moves when a colliding name arrives); a keyword is its papers' records; a paper's
    view is its record's authors, keywords and topic as links. ``tests/site/render/test_views.py``
    checks, over edits, that equal digests are equal values."""

    def __init__(self, catalog: Catalog, prints: Any = None, kept: tuple[Container[str], Container[str]] = ((), ())) -> None:
        self.catalog = catalog
        self.memos = Memos(catalog.cache)
        nodes = [*catalog.authors, *catalog.keywords, *catalog.areas, *(sub for area in catalog.areas for sub in area.subareas)]
        self._links = _Links({id(node): node for node in nodes})
        self.prints = prints
        self._made_of: dict[int, tuple] = {}  # id(paper) -> (digest of its record and authors' links, those links)
        if prints is not None:
            self._know(prints, kept)

    def _know(self, prints: Any, kept: tuple[Container[str], Container[str]]) -> None:
        """``kept``: the slugs of the authors and of the keywords whose pages have a key carried from the last kept build
        (``site/carried.py``): no one hashes those, so they are not made known (nor their papers, for them)."""
        catalog, links = self.catalog, self._links
        kept_authors, kept_keywords = kept
        for author in catalog.authors:
            if author.slug not in kept_authors:
                prints.known(author, prints.of("Author", _shown(links[id(author)]), [self._made(p)[0] for p in author.papers]))
        for keyword in catalog.keywords:
            if keyword.slug not in kept_keywords:
                prints.known(keyword, prints.of("Keyword", _shown(links[id(keyword)]), [prints.digest_of(p) for p in keyword.papers]))

    def _made(self, paper: PaperRecord) -> tuple:
        made = self._made_of.get(id(paper))
        if made is None:
            catalog, links, prints = self.catalog, self._links, self.prints
            names = tuple([(key, _shown(links[id(catalog.author_of[key])])) for key in map(catalog.fold, paper.authors) if key])
            made = self._made_of[id(paper)] = (prints.of(prints.digest_of(paper), names), names)  # hashed once, not once per author
        return made

    def link(self, node: Any) -> Link:
        return self._links[id(node)]

    def paper(self, paper: PaperRecord) -> PaperView:
        catalog, links = self.catalog, self._links
        area, sub = catalog.paper_area(paper), catalog.paper_subarea(paper)
        folded = [catalog.fold(name) for name in paper.authors]
        view = PaperView(
            {name: links[id(catalog.author_of[name])] for name in folded if name},
            tuple([links[id(k)] for k in catalog.paper_keywords(paper)]),
            links[id(area)] if area else None,
            links[id(sub)] if sub else None,
            catalog.cache,
        )
        if self.prints is not None:
            shown = [_shown(link) if link else None for link in (*view.keywords, view.area, view.subarea)]
            self.prints.known(view, self.prints.of("PaperView", self._made(paper)[1], shown))
        return view

    def links(self, counted: list[tuple[Any, int]]) -> tuple[tuple[Link, int], ...]:
        return tuple([(self._links[id(node)], n) for node, n in counted])
