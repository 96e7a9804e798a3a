"""RIS listings: a reference manager's export, one record from ``TY`` to ``ER``.

In:  the listing's lines (``TAG  - value``; a line without a tag continues the field above).
Out: a ``Listing`` of format ``ris``: one entry per record, its authors (``AU``, repeated)
     in the record's order, which is the paper's (a reference manager keeps it).

Tags read: ``TY`` (the entry type citations use), ``TI``/``T1`` title, ``AU``/``A1``
authors, ``AB``/``N2`` abstract, ``PY``/``Y1``/``DA`` year, ``T2``/``JO``/``JF``/``BT``
venue, ``UR`` and ``L1`` links, ``DO`` DOI, ``KW`` keywords; other tags are ignored.
A record without ``ER`` or a tag before ``TY`` is a ``path:line:`` error.
"""

from __future__ import annotations

import re
from pathlib import Path

from generator.ingest.entry import Listing, ListingEntry, clean_abstract, distinct_keywords, doi_url, first_last, link_name, one_line, venue_with_year, web_links
from generator.problems import PapersiteError

FORMAT_RIS = "ris"

# "TY  - JOUR": two characters, two spaces, a hyphen (some exporters write one space, or none after it).
_TAG = re.compile(r"^([A-Z][A-Z0-9])\s{1,2}-(?: (.*)|)$")
# RIS types -> the BibTeX entry types citations use (cite.py); others are "misc".
ENTRY_TYPES = {
    "JOUR": "article", "JFULL": "article", "EJOUR": "article", "MGZN": "article", "NEWS": "article",
    "CONF": "inproceedings", "CPAPER": "inproceedings",
    "CHAP": "incollection", "BOOK": "book", "EBOOK": "book",
    "THES": "phdthesis", "RPRT": "techreport", "UNPB": "unpublished",
}
_TITLE, _AUTHORS, _ABSTRACT = ("TI", "T1"), ("AU", "A1"), ("AB", "N2")
_YEAR, _VENUE = ("PY", "Y1", "DA"), ("T2", "JO", "JF", "BT", "JA", "T3")


def looks_like_ris(lines: list[str]) -> bool:
    first = next((line.strip() for line in lines if line.strip()), "")
    match = _TAG.match(first)
    return match is not None and match.group(1) == "TY"


def read_ris(lines: list[str], path: Path) -> Listing:
    listing = Listing(path, FORMAT_RIS, [], author_order="paper")
    record: dict[str, list[str]] | None = None
    start = last_tag = 0
    tag = ""
    for number, raw in enumerate(lines, 1):
        match = _TAG.match(raw.strip())
        if match is None:
            if raw.strip() and record is not None and tag:
                record[tag][-1] += " " + raw.strip()  # a wrapped value
            elif raw.strip():
                raise PapersiteError.at(path, number, f"expected a RIS line ('TY  - JOUR', 'TI  - Title' ...), got {raw.strip()[:60]!r}")
            continue
        tag, value = match.group(1), (match.group(2) or "").strip()
        if tag == "TY":
            if record is not None:
                raise PapersiteError.at(path, start, f"record starting here has no 'ER  -' before the next 'TY' at line {number}")
            record, start = {"TY": [value]}, number
        elif record is None:
            raise PapersiteError.at(path, number, f"'{tag}' outside a record: each record starts with 'TY  - <type>'")
        elif tag == "ER":
            entry = _entry(record, path, len(listing.entries) + 1, start, listing.warnings)
            if entry is not None:
                listing.entries.append(entry)
            record, tag = None, ""
        else:
            record.setdefault(tag, []).append(value)
        last_tag = number
    if record is not None:
        raise PapersiteError.at(path, start, f"record starting here has no 'ER  -' (the file ends at line {last_tag})")
    return listing


def _first(record: dict[str, list[str]], tags: tuple[str, ...]) -> str | None:
    for tag in tags:
        for value in record.get(tag, []):
            if one_line(value):
                return one_line(value)
    return None


def _entry(record: dict[str, list[str]], path: Path, number: int, line: int, warnings: list[str]) -> ListingEntry | None:
    title = _first(record, _TITLE)
    abstract = clean_abstract(_first(record, _ABSTRACT))
    if title is None and abstract is None:
        warnings.append(f"{path}:{line}: record {number} has neither title (TI) nor abstract (AB): skipped")
        return None
    authors = [first_last(name) for tag in _AUTHORS for name in record.get(tag, []) if name.strip()]
    links: dict[str, str] = {}
    for index, url in enumerate(u for u in record.get("UR", []) if u.strip()):
        links.setdefault(link_name(url) if index == 0 else f"url{index + 1}", url)
    pdfs = [u for u in record.get("L1", []) if u.strip()]
    if pdfs:
        links["pdf"] = pdfs[0]
    doi = _first(record, ("DO",))
    if doi and doi_url(doi):
        links["doi"] = doi_url(doi)  # type: ignore[assignment]
    texts = {}
    venue = venue_with_year(_first(record, _VENUE), _first(record, _YEAR))
    if venue:
        texts["venue"] = venue
    texts["entry_type"] = ENTRY_TYPES.get((record["TY"][0] or "").upper(), "misc")
    return ListingEntry(
        path.name, number, line, FORMAT_RIS,
        title=title,
        authors=authors,
        abstract=abstract,
        links=web_links(links, path, line, warnings),
        keywords=distinct_keywords([k for value in record.get("KW", []) for k in value.split(";")]),
        texts=texts,
    )
