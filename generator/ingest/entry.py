"""What every listing reader produces, and the small rules they share.

In:  the fields one reader found for one paper.
Out: ``ListingEntry`` (one paper as one listing gives it) inside a ``Listing``,
     cleaned the same way whatever the format: placeholder abstracts dropped,
     keywords without repeats, only web links kept, "Last, First" names turned.

The dispatcher (``listing.py``) and each format's reader (``bibtex.py``,
``csv_listing.py``, ``ris.py``, ``openreview.py``) import these from here, so
no reader depends on another and the dispatcher depends on all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from generator.enrich.taxonomy import Taxonomy
from generator.layout import is_web_url
from generator.pages.record import Topic


@dataclass
class ListingEntry:
    """One paper as one listing gives it; missing fields are None or empty."""

    file: str  # file name (no directory): what pages cite as their source
    entry: int  # 1-based position in the file (the printed number for numbered lists)
    line: int  # line where the entry starts, for messages
    format: str
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    abstract: str | None = None  # None when absent or a placeholder ("No absctract")
    topic: Topic | None = None  # source "listing"
    decision: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # one-line fields by name (record.LISTED_TEXT_FIELDS)

    def label(self) -> str:
        return f"{self.file} #{self.entry}"

    def sort_key(self) -> tuple[str, int]:
        return (self.file, self.entry)


@dataclass
class Listing:
    path: Path
    format: str
    entries: list[ListingEntry]
    announced: int | None = None  # paper count the header claims
    warnings: list[str] = field(default_factory=list)
    # What the format itself says of its author lists (ingest/authors.py SOURCE_ORDERS): "paper" for
    # a bibliography (BibTeX, RIS, OpenReview notes), whose lists are the papers' own; "detect" (measure
    # them) where the format promises nothing. papersite.yml's ``author_order`` overrides it.
    author_order: str = "detect"

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class ReadSettings:
    """What the project tells a reader about one listing file (defaults: nothing)."""

    columns: Mapping[str, str] = field(default_factory=dict)  # a sheet's columns by our field name (papersite.yml)
    taxonomy: Taxonomy | None = None  # the site's topics: a listing's own area names are mapped onto them


_PLACEHOLDER = re.compile(
    r"(no|none|n/?a|nil|null|tbd|todo|missing|unavailable|not available|coming soon|abstract)\b.*",
    re.IGNORECASE,
)


def is_placeholder_abstract(text: str | None) -> bool:
    """True for text that stands where an abstract should be but is not one."""
    if text is None:
        return True
    stripped = text.strip().strip(".-–—_*()[] ")
    if not stripped:
        return True
    return len(stripped.split()) <= 5 and _PLACEHOLDER.fullmatch(stripped) is not None


def clean_abstract(text: str | None) -> str | None:
    if text is None:
        return None
    text = text.strip()
    return None if is_placeholder_abstract(text) else text


def one_line(text: str | None) -> str | None:
    """White space folded to single spaces; None for nothing left."""
    folded = " ".join((text or "").split())
    return folded or None


def distinct_keywords(keywords: list[str]) -> list[str]:
    """Keywords without repeats ignoring case (the first spelling stays), as ``papersite check`` compares them."""
    seen: set[str] = set()
    kept = []
    for keyword in keywords:
        key = keyword.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            kept.append(keyword.strip())
    return kept


# Words that belong to the last name when a name is turned ("van der Berg, Anna" -> "Anna van der Berg").
def first_last(name: str) -> str:
    """``"Last, First"`` as ``"First Last"``; ``"Last, Jr., First"`` as ``"First Last Jr."``; any other name as written."""
    parts = [part.strip() for part in name.split(",")]
    if len(parts) == 2 and all(parts):
        return " ".join(f"{parts[1]} {parts[0]}".split())
    if len(parts) == 3 and all(parts):
        return " ".join(f"{parts[2]} {parts[0]} {parts[1]}".split())
    return " ".join(name.split())


_OPENREVIEW_FORUM = re.compile(r"^https://openreview\.net/forum\?id=([A-Za-z0-9_-]+)$")


def openreview_pdf_url(forum_url: str) -> str | None:
    """The PDF of an OpenReview forum: same id, ``/pdf`` instead of ``/forum``."""
    match = _OPENREVIEW_FORUM.match(forum_url.strip())
    return f"https://openreview.net/pdf?id={match.group(1)}" if match else None


_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_ARXIV = re.compile(r"^(?:arxiv:\s*|https?://arxiv\.org/(?:abs|pdf)/)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)$", re.IGNORECASE)


def doi_url(text: str) -> str | None:
    """``https://doi.org/<doi>`` for a DOI however it is written (bare, ``doi:``, a doi.org URL)."""
    match = _DOI.match(text.strip())
    return f"https://doi.org/{match.group(1)}" if match else None


def arxiv_url(text: str) -> str | None:
    """``https://arxiv.org/abs/<id>`` for an arXiv identifier (new or old style), else None."""
    match = _ARXIV.match(text.strip())
    return f"https://arxiv.org/abs/{match.group(1)}" if match else None


def web_links(raw: Mapping[str, str], path: Path, line: int, warnings: list[str]) -> dict[str, str]:
    """The links a reader's browser may open (never javascript:, data: or a path); a warning for each other.
    An OpenReview forum gives the PDF's link too, where the listing names none."""
    links: dict[str, str] = {}
    for key, value in raw.items():
        value = value.strip()
        if is_web_url(value):
            scheme, rest = value.split(":", 1)
            links[key] = scheme.lower() + ":" + rest  # HTTPS://x is stored as https://x, as check expects
        else:
            warnings.append(f"{path}:{line}: link '{key}' is not an http(s) URL, dropped: {value[:80]!r}")
    pdf = openreview_pdf_url(links.get("openreview", ""))
    if pdf and "pdf" not in links:
        links["pdf"] = pdf
    return links


def link_name(url: str) -> str:
    """The name a listing's one URL is stored under: ``openreview`` for a forum (merge's evidence), else ``url``."""
    return "openreview" if _OPENREVIEW_FORUM.match(url.strip()) else "url"


_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")


def venue_with_year(venue: str | None, year: str | None) -> str | None:
    """A paper's venue as one line: "NeurIPS" and "2023" -> "NeurIPS 2023" (the year once); the year alone if no venue."""
    venue = one_line(venue)
    found = _YEAR.search(year or "")
    if found is None or (venue and found.group(0) in venue):
        return venue
    return f"{venue} {found.group(0)}" if venue else found.group(0)
