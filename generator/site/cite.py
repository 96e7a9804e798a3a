"""Citations of a paper: BibTeX, RIS and Google Scholar ``citation_*`` meta tags.

In: a paper record and the venue (from the site name, e.g. "ICLR 2025 Papers").
Out: plain text (BibTeX, RIS) and (name, content) pairs; the caller escapes them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from generator.record import PaperRecord
from generator.site.html import clip
from generator.site.urls import is_web_url


@dataclass(frozen=True)
class Venue:
    name: str  # "ICLR 2025"
    year: str | None  # "2025"

    @classmethod
    def from_site_name(cls, site_name: str) -> "Venue":
        name = re.sub(r"\s+(papers|proceedings)\s*$", "", site_name.strip(), flags=re.IGNORECASE) or site_name
        year = re.search(r"\b(19|20)\d\d\b", site_name)
        return cls(name=name, year=year.group(0) if year else None)


def _ascii_word(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", plain)


def _last_name(author: str) -> str:
    parts = author.replace(",", " ").split()
    return parts[-1] if parts else ""


def bibtex_key(paper: PaperRecord, venue: Venue) -> str:
    first = _ascii_word(_last_name(paper.authors[0])).lower() if paper.authors else "anon"
    words = [w for w in (_ascii_word(w).lower() for w in paper.title.split()) if len(w) > 3]
    return f"{first or 'anon'}{venue.year or ''}{words[0] if words else ''}_{paper.id[:6]}"


def _bibtex_value(text: str) -> str:
    # An unbalanced brace would end the field early and corrupt the entry.
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    if depth != 0:
        text = text.replace("{", "\\{").replace("}", "\\}")
    return " ".join(text.split())


def _known_url(paper: PaperRecord) -> str | None:
    for name in ("openreview", "pdf"):
        if is_web_url(paper.links.get(name, "")):
            return paper.links[name].strip()
    return None


def bibtex(paper: PaperRecord, venue: Venue) -> str:
    fields = [("title", _bibtex_value(paper.title))]
    if paper.authors:
        fields.append(("author", " and ".join(_bibtex_value(a) for a in paper.authors)))
    fields.append(("booktitle", _bibtex_value(venue.name)))
    if venue.year:
        fields.append(("year", venue.year))
    url = _known_url(paper)
    if url:
        fields.append(("url", _bibtex_value(url)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@inproceedings{{{bibtex_key(paper, venue)},\n{body}\n}}"


def ris(paper: PaperRecord, venue: Venue) -> str:
    lines = ["TY  - CONF", f"TI  - {' '.join(paper.title.split())}"]
    lines += [f"AU  - {' '.join(a.split())}" for a in paper.authors]
    lines.append(f"T2  - {venue.name}")
    if venue.year:
        lines.append(f"PY  - {venue.year}")
    if paper.keywords:
        lines += [f"KW  - {' '.join(k.split())}" for k in paper.keywords]
    if paper.abstract:
        lines.append(f"AB  - {' '.join(paper.abstract.split())}")
    url = _known_url(paper)
    if url:
        lines.append(f"UR  - {url}")
    lines.append("ER  - ")
    return "\n".join(lines)


def scholar_meta(paper: PaperRecord, venue: Venue) -> list[tuple[str, str]]:
    """Google Scholar's Highwire tags; ``citation_pdf_url`` only for a known PDF."""
    tags = [("citation_title", " ".join(paper.title.split()))]
    tags += [("citation_author", " ".join(a.split())) for a in paper.authors]
    if venue.year:
        tags.append(("citation_publication_date", venue.year))
    tags.append(("citation_conference_title", venue.name))
    if is_web_url(paper.links.get("pdf", "")):
        tags.append(("citation_pdf_url", paper.links["pdf"]))
    if paper.abstract:
        tags.append(("citation_abstract", clip(paper.abstract, 1000)))
    return tags
