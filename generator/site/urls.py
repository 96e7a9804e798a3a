"""Site URLs: slugs of index pages, relative links between pages, safe outbound links.

Every page is a directory URL (``papers/<slug>/``) relative to the site root,
without a leading slash, so the site works under any base path and offline.
Links are written as relative URLs because raw HTML is not rewritten by the
engine.
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote, urlsplit

from slugify import slugify


def slug_of(name: str) -> str:
    """Slug of an index page's display name; never empty."""
    return slugify(name) or "x"


def paper_url(slug: str) -> str:
    return f"papers/{slug}/"


def author_url(slug: str) -> str:
    return f"authors/{slug}/"


def keyword_url(slug: str) -> str:
    return f"keywords/{slug}/"


def area_url(area_slug: str) -> str:
    return f"topics/{area_slug}/"


def subarea_url(area_slug: str, subarea_slug: str) -> str:
    return f"topics/{area_slug}/{subarea_slug}/"


def relative(from_url: str, to_url: str) -> str:
    """Relative link from one directory URL to another ('' is the home page)."""
    here = "/" + from_url
    there = "/" + to_url
    base = here if here.endswith("/") else posixpath.dirname(here) + "/"
    rel = posixpath.relpath(there, base)
    if there.endswith("/") and not rel.endswith("/"):
        rel += "/"
    return "./" if rel in (".", "./") else rel


def is_web_url(url: str) -> bool:
    """Only http(s) URLs with a host become links: ``javascript:`` and friends stay text."""
    if not isinstance(url, str) or any(c in url for c in "\x00\r\n\t <>\"'`"):
        return False
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def query_url(base: str, **params: str) -> str:
    return base + "?" + "&".join(f"{key}={quote(value, safe='')}" for key, value in params.items())
