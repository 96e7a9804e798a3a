"""Page keys carried from the build that kept the catalog: an edit's build finds the few pages it changed
without hashing every author and paper page's arguments.

In: the catalog updated from the kept one (``catalog.CatalogUpdate``: which papers are the kept ones unchanged,
which authors and keywords were made again or moved), and the keys of the pages ``memo.write_rows`` wrote in the
build that kept it (``PageKeys``). Out: for an author, keyword or paper page, its key where the page is made of
nothing that changed since, else None (its arguments are then hashed, ``memo.Fingerprints``).

Why: at 11,672 papers an edit hashed the arguments of 35k author pages and 11.7k paper pages (and built each
paper's view of the catalog to do it) to find the dozen whose key moved: ~1.2 s of the main process. A key is
the fingerprint of the page's arguments, a function of their values; a value the update did not touch is the
kept one, so its key is the kept key. What each page is made of is what ``render/views.py`` says:

- an author page: the author (name, slug, variants, papers and the co-authors' links), made again exactly for the
  authors ``authors_remade`` names;
- a keyword page: the keyword (name, slug and papers), made again exactly for the keywords ``keywords_remade``
  names, and the keywords most on its papers (their links and counts: the same while its papers are, unless a
  keyword's name or slug moved, ``keywords_moved``);
- a paper page: its record (unchanged for a slug in ``same``), its view (the links of its authors, keywords and
  topic: changed where an author or keyword of it moved, or where the areas' links differ) and its context (the
  settings, venue and taxonomy, and its page's path). Its related papers are not in it (the browser draws them:
  ``exports.related_files``).

The keys are kept in a memo of their own (``stage.catalog_of``, kind ``page-keys``) under the kept catalog's digest, so they are never
read for another catalog. A page whose key is carried but whose row is missing or damaged is rendered again
(``memo.write_rows``) with its arguments made then.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from generator import layout
from generator.catalog import Author, Catalog, CatalogUpdate, Keyword
from generator.pages.record import PaperRecord
from generator.site.memo import content_hash


@dataclass(frozen=True)
class PageKeys:
    """The keys of the pages of a kept catalog, and what of the build they also depend on."""

    context: str  # every paper page's context but its page's path (settings, venue, taxonomy): ``context_digest``
    areas: str  # the areas' and sub-areas' links: ``areas_digest``
    authors: dict[str, str]  # author slug -> its page's key (``by_slug``)
    papers: dict[str, tuple[str, str]]  # slug -> (key, page path)
    keywords: dict[str, str] = field(default_factory=dict)  # keyword slug -> its page's key


def areas_digest(catalog: Catalog) -> str:
    """What a paper view shows of the topics: every area's and sub-area's link."""
    links = [(a.name, a.slug, a.url, [(s.name, s.slug, s.url) for s in a.subareas]) for a in catalog.areas]
    return content_hash(repr(links).encode("utf-8", "surrogatepass"))


class Carried:
    """The kept keys still true of this build's pages (none where ``keys`` or ``update`` is None, or where the
    context or the areas differ from the kept build's)."""

    def __init__(self, keys: PageKeys | None, update: CatalogUpdate | None, context: str, areas: str) -> None:
        usable = keys is not None and update is not None
        self.update = update
        # author slug -> its page's key, but the remade ones': by slug, as an edit asks for every author's twice
        # (a URL made 70k times was ~0.05 s of it at 11,672 papers), and kept so (made so once, when kept)
        self.author_keys = dict(keys.authors) if usable else {}
        self.paper_keys = keys.papers if usable and keys.context == context and keys.areas == areas else {}
        # a keyword page shows its papers and the keywords most on them: none is carried where a keyword's
        # name or slug moved (it may be on any page's list), nor of a keyword whose papers changed
        self.keyword_keys = dict(keys.keywords) if usable and not update.keywords_moved else {}
        if usable:
            for name in update.authors_remade:
                author = update.catalog.author_of.get(name)
                if author is not None:
                    self.author_keys.pop(author.slug, None)
            for name in update.keywords_remade:
                keyword = update.catalog.keyword_of.get(name)
                if keyword is not None:
                    self.keyword_keys.pop(keyword.slug, None)

    def author(self, author: Author) -> str | None:
        return self.author_keys.get(author.slug)

    def keyword(self, keyword: Keyword) -> str | None:
        return self.keyword_keys.get(keyword.slug)

    def kept_slugs(self) -> tuple[Container[str], Container[str]]:
        """The slugs of the authors and of the keywords whose page keys are carried (``render.views.Views``' ``kept``)."""
        return self.author_keys, self.keyword_keys

    def paper(self, paper: PaperRecord, path: str | None) -> str | None:
        kept = self.paper_keys.get(paper.slug)
        if kept is None:
            return None
        key, kept_path = kept
        update = self.update
        if kept_path != path or paper.slug not in update.same:
            return None
        catalog = update.catalog
        if update.authors_moved and not update.authors_moved.isdisjoint(map(catalog.fold, paper.authors)):
            return None
        if update.keywords_moved and not update.keywords_moved.isdisjoint(map(catalog.fold, paper.keywords)):
            return None
        return key


def by_slug(route: layout.Route, keys: dict[str, str]) -> dict[str, str]:
    """Page URL -> key as slug -> key, for the pages of ``route`` (``PageKeys``' authors and keywords)."""
    head, tail = route.url("\0").split("\0")
    return {url[len(head):len(url) - len(tail)]: key for url, key in keys.items() if url.startswith(head) and url.endswith(tail)}


NO_KEYS = Carried(None, None, "", "")


def context_digest(prints: Any, context: Any) -> str:
    """What every paper page's context holds but its page's path (``SiteContext.for_paper``)."""
    return prints.of("SiteContext", context.config, context.venue, context.taxonomy)
