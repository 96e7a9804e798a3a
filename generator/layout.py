"""The site's layout: every URL and slug, relative links between pages, which URLs are web links.

Every page is a directory URL (``papers/<slug>/``) relative to the site root,
without a leading slash, so the site works under any base path and offline.
Links are written as relative URLs because raw HTML is not rewritten by the
engine. Slugs are handed out here, for papers (at first import, then fixed)
and for index pages (authors, keywords, topics: at each build, in name order);
so is the one test of an outbound URL that settings, listings, pages,
corrections and renderers share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import quote, urlsplit

from slugify import slugify


# Slugs no paper, author, keyword or topic may take: the section's own page
# (index), files the engines write beside the pages (search, assets, sitemap, 404),
# and the device names Windows cannot check out as files (CON.md, NUL.md, COM1.md).
RESERVED_SLUGS = frozenset(
    {"index", "search", "assets", "sitemap", "404", "con", "prn", "aux", "nul"}
    | {f"{device}{n}" for device in ("com", "lpt") for n in range(1, 10)}
)


def unreserved(slug: str, suffix: str) -> str:
    """``slug``, or ``slug`` + ``suffix`` when the slug is reserved."""
    return f"{slug}{suffix}" if slug in RESERVED_SLUGS else slug


def slug_of(name: str) -> str:
    """Slug of an index page's display name; never empty, never reserved."""
    slug = _SLUG_OF.get(name)
    if slug is None:
        slug = _SLUG_OF[name] = unreserved(slugify(name) or "x", "-x")
    return slug


# slugify takes ~25 µs a name and a build slugs every author and keyword name (37k at 11,672
# papers): slug_of is memoised here, and the memo is kept between builds (memo.KnownSlugs).
_SLUG_OF: dict[str, str] = {}


def known_slugs() -> dict[str, str]:
    """slug_of's memo: display name -> slug (memo.KnownSlugs loads and keeps it)."""
    return _SLUG_OF


PAPER_SLUG_MAX_LENGTH = 80


def paper_slug(title: str) -> str:
    """A new paper's slug, from its title: at most 80 characters, cut at a word."""
    slug = slugify(title, max_length=PAPER_SLUG_MAX_LENGTH, word_boundary=True, save_order=True)
    # "Index" would take over papers/index.html, "CON" give a file Windows cannot check out
    return unreserved(slug or "paper", "-paper")


class Slugs:
    """Hands out unique slugs in call order: a later name with a taken slug gets -2, -3, ...

    ``max_length`` keeps a suffixed slug within that many characters (paper slugs);
    ``reserved_suffix`` is added to a reserved slug before anything else.
    """

    def __init__(self, taken: set[str] | frozenset[str] = RESERVED_SLUGS, max_length: int | None = None,
                 reserved_suffix: str = "-x") -> None:
        self.taken = set(taken)
        self.max_length = max_length
        self.reserved_suffix = reserved_suffix

    def take(self, base: str) -> str:
        base = unreserved(base, self.reserved_suffix)
        slug, n = base, 1
        while slug in self.taken:
            n += 1
            suffix = f"-{n}"
            slug = (base[: self.max_length - len(suffix)].rstrip("-") if self.max_length else base) + suffix
        self.taken.add(slug)
        return slug


def paper_slugs(taken: set[str]) -> Slugs:
    """The slugs new papers may take, beside those of the papers already known."""
    return Slugs(taken, max_length=PAPER_SLUG_MAX_LENGTH, reserved_suffix="-paper")


@dataclass(frozen=True)
class Route:
    """One kind of page: its URL, where the stage writes its Markdown, and how a URL is read back.

    ``pattern`` is a directory URL relative to the site root with ``{name}`` holes, each one
    path segment ("authors/{slug}/"); a section page has none ("explore/"). Every URL the
    renderers, ``check`` and ``papersite.js`` use comes from a route (the browser gets the
    patterns in the search data), so a URL scheme is written once."""

    kind: str
    pattern: str
    # the text around the holes: "topics/", "/", "/" (a URL is built ~10^5 times a build: no format())
    _between: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_between", tuple(re.split(r"\{\w+\}", self.pattern)))

    @property
    def holes(self) -> tuple[str, ...]:
        return tuple(re.findall(r"\{(\w+)\}", self.pattern))

    def url(self, *values: str) -> str:
        between = self._between
        if len(values) == 1 and len(between) == 2:
            return between[0] + values[0] + between[1]
        if len(values) != len(between) - 1:
            raise TypeError(f"{self.kind} URL takes {len(between) - 1} value(s), got {len(values)}")
        return "".join(part for pair in zip(between, values) for part in pair) + between[-1]

    def staged(self, *values: str) -> str:
        """The staged Markdown file that becomes this page (``authors/jane-doe/index.md``)."""
        return f"{self.url(*values)}index.md"

    @property
    def section(self) -> str:
        """The URL's first segment ("authors"): the folder its pages sit in."""
        return self.pattern.split("/", 1)[0]

    def match(self, url_path: str) -> tuple[str, ...] | None:
        """The hole values of a site URL path (no leading slash needed) that this route makes, else None."""
        parts = [p for p in url_path.strip("/").split("/") if p]
        wanted = [p for p in self.pattern.split("/") if p]
        if len(parts) != len(wanted):
            return None
        values = []
        for part, want in zip(parts, wanted):
            if want.startswith("{"):
                values.append(part)
            elif part != want:
                return None
        return tuple(values)


# Paper pages are served from this section whatever folder their source pages sit in
# (papers_dir): the URL of a paper never depends on a setting.
PAPERS_SECTION = "papers"

PAPER = Route("paper", f"{PAPERS_SECTION}/{{slug}}/")
AUTHOR = Route("author", "authors/{slug}/")
KEYWORD = Route("keyword", "keywords/{slug}/")
AREA = Route("area", "topics/{area}/")
SUBAREA = Route("subarea", "topics/{area}/{subarea}/")
DETAIL_ROUTES = (PAPER, AUTHOR, KEYWORD, AREA, SUBAREA)

# The section pages papersite generates, by kind.
HOME = Route("home", "")
PAPERS = Route("papers", f"{PAPERS_SECTION}/")
AUTHORS = Route("authors", "authors/")
KEYWORDS = Route("keywords", "keywords/")
TOPICS = Route("topics", "topics/")
EXPLORE = Route("explore", "explore/")
STATS = Route("stats", "stats/")
SAVED = Route("saved", "saved/")  # the reader's saved papers (kept in their browser), and lists shared as links
MAP = Route("map", "map/")  # every paper placed by content (site/paper_map.py)
SECTION_ROUTES = (HOME, PAPERS, AUTHORS, KEYWORDS, TOPICS, EXPLORE, STATS, MAP, SAVED)


def route_of(url_path: str) -> tuple[Route, tuple[str, ...]] | None:
    """The generated page kind a URL path names, and its hole values; None for other URLs."""
    for route in SECTION_ROUTES + DETAIL_ROUTES:
        values = route.match(url_path)
        if values is not None:
            return route, values
    return None


def url_patterns() -> dict[str, str]:
    """Every route's pattern by kind: what the browser builds its links from (the search data)."""
    return {route.kind: route.pattern for route in SECTION_ROUTES + DETAIL_ROUTES}


# The key under mkdocs.yml's ``extra`` where the engine's templates find ``url_patterns()``.
ROUTES_EXTRA = "papersite_routes"

paper_url = PAPER.url
author_url = AUTHOR.url
keyword_url = KEYWORD.url
area_url = AREA.url
subarea_url = SUBAREA.url


def relative(from_url: str, to_url: str) -> str:
    """Relative link from one directory URL to another ('' is the home page).

    Called once per link on every generated page (about a million times at
    12k papers), so it works on path segments instead of posixpath.relpath
    and remembers its answers; the results are the same as relpath's.
    """
    depth = from_url.count("/")
    if not depth:
        return to_url or "./"
    # The common case: a link into another section goes up to the root and down.
    slash = to_url.find("/")
    if slash > 0 and from_url[: from_url.index("/") + 1] != to_url[: slash + 1]:
        return "../" * depth + to_url
    # ... and a link to a sibling page (author to co-author) goes up one level.
    if from_url.endswith("/") and to_url.endswith("/") and depth > 1:
        parent = from_url[: from_url.rindex("/", 0, -1) + 1]
        if to_url.startswith(parent) and to_url.count("/") == depth and to_url != from_url:
            return "../" + to_url[len(parent) :]
    return _relative(from_url, to_url)


@lru_cache(maxsize=1 << 18)
def _relative(from_url: str, to_url: str) -> str:
    # the page's folder: its URL when it is a directory URL, else the URL's parent
    base = [s for s in from_url.split("/")[:-1] if s]
    there = [s for s in to_url.split("/") if s]
    common = 0
    for a, b in zip(base, there):
        if a != b:
            break
        common += 1
    parts = [".."] * (len(base) - common) + there[common:]
    rel = "/".join(parts)
    if not rel:
        return "./"
    if to_url.endswith("/") or not to_url:
        rel += "/"
    return rel


# White space (str.isspace's, which the re module's \s follows) and what could end an attribute.
_NOT_IN_URLS = re.compile(r"[\s<>\"'`\\]")


def is_web_url(url: str) -> bool:
    """An http(s) URL with a host and nothing that could leave an attribute: the only URLs
    that become links or are accepted as links (``javascript:`` and friends stay text)."""
    # (whole-string tests: a per-character loop over the 3 KB "Fix this paper" links was 20 s at 11,672 papers)
    if not isinstance(url, str) or not url.isprintable() or _NOT_IN_URLS.search(url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def query_url(base: str, **params: str) -> str:
    return base + "?" + "&".join(f"{key}={quote(value, safe='')}" for key, value in params.items())
