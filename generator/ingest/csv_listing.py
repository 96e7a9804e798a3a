"""CSV and TSV listings: a spreadsheet of papers, one row each, under a header row.

In:  the listing's lines; optionally papersite.yml's column map for this file
     (``listings: {FILE: {columns: {title: "Paper Name", ...}}}``).
Out: a ``Listing`` of format ``csv``, one entry per non-empty row.

Headers are recognised whatever their case, spacing and punctuation ("Paper
Title", "Author(s)", "abstract_note"): each is reduced to letters and digits and
looked up in ``COLUMN_NAMES``. The separator (comma, semicolon or tab) is the one
under which the header names the most known columns, so a sheet needs no dialect
setting; quoting is Python's ``csv`` module's (doubled quotes, quoted commas and
line breaks). The order of authors in a sheet promises nothing (people sort
them), so it is measured like any listing's (``ingest/authors.py``).

Hostile sheets end as ``path:line:`` errors before they cost memory: a field is
capped (``MAX_FIELD_CHARS``), a line with more separators than ``MAX_COLUMNS`` is
refused before ``csv`` splits it, and a sheet larger than ``MAX_TABLE_BYTES`` is
refused at once.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Iterator, Mapping

from generator.ingest.entry import (
    Listing,
    ListingEntry,
    arxiv_url,
    clean_abstract,
    distinct_keywords,
    doi_url,
    first_last,
    link_name,
    one_line,
    venue_with_year,
    web_links,
)
from generator.pages.record import Topic, parse_topic_label
from generator.pages.schema import topic_problem
from generator.problems import PapersiteError

FORMAT_CSV = "csv"

SEPARATORS = (",", ";", "\t")
MAX_COLUMNS = 1_000  # a sheet of papers has tens of columns; a line with more separators is not one
MAX_FIELD_CHARS = 1024 * 1024  # an abstract is a few KB; one cell larger than this is not a field
# The size of a sheet papersite reads: ~60,000 papers with abstracts. Larger exports are
# better kept as JSON Lines, which streams, or split into several sheets.
MAX_TABLE_BYTES = 96 * 1024 * 1024

# Our field -> the header names it is known by, reduced to letters and digits (``_key``).
COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "title": ("title", "papertitle", "articletitle", "papername"),
    "authors": ("authors", "author", "authorlist", "authornames", "creators", "creator", "by"),
    "abstract": ("abstract", "abstractnote", "summary", "description"),
    "year": ("year", "publicationyear", "pubyear", "date", "publicationdate"),
    "venue": ("venue", "journal", "conference", "booktitle", "publicationtitle", "publication", "proceedings", "source"),
    "url": ("url", "link", "links", "paperurl", "paperlink", "website", "webpage"),
    "pdf": ("pdf", "pdfurl", "pdflink"),
    "openreview": ("openreview", "openreviewurl", "openreviewlink", "forum"),
    "code": ("code", "codeurl", "github", "repository"),
    "doi": ("doi",),
    "arxiv": ("arxiv", "arxivid", "eprint"),
    "keywords": ("keywords", "keyword", "tags", "manualtags", "subjects"),
    "decision": ("decision", "status"),
    "topic": ("topic", "area", "primaryarea", "subjectarea", "track"),
    "entry_type": ("type", "entrytype", "itemtype", "publicationtype"),
}
_KNOWN = {name: field for field, names in COLUMN_NAMES.items() for name in names}
# A row is a paper when it gives one of these.
_PAPER_FIELDS = ("title", "abstract")
# Zotero's item types, as the BibTeX entry types citations use (cite.py).
_ITEM_TYPES = {"journalarticle": "article", "conferencepaper": "inproceedings", "preprint": "misc",
               "booksection": "incollection", "thesis": "phdthesis", "report": "techreport"}


def _key(header: str) -> str:
    return re.sub(r"[^0-9a-z]", "", header.casefold())


def looks_like_table(lines: list[str], columns: Mapping[str, str]) -> bool:
    """A header row of two or more cells: one of them names a known column (or one papersite.yml maps), or all
    are short labels and the next row has as many cells. The second kind is read to say what its header lacks."""
    rows = [line for line in lines[:50] if line.strip()][:2]
    header = rows[0] if rows else ""
    if len(header) > MAX_COLUMNS * 100:
        return sum(header.count(s) for s in SEPARATORS) > MAX_COLUMNS  # a sheet too wide: the reader refuses it
    separator, fields = _best_separator(header, columns)
    if separator is not None:
        return True
    for separator in SEPARATORS:
        cells = _header_cells(header, separator)
        labels = len(cells) >= 2 and all(0 < len(c.strip()) <= 40 and len(c.split()) <= 4 and not c.strip().endswith(".") for c in cells)
        if labels and len(rows) == 2 and len(_header_cells(rows[1], separator)) == len(cells):
            return True
    return False


def _header_cells(header: str, separator: str) -> list[str]:
    try:
        return next(csv.reader([header], delimiter=separator), [])
    except csv.Error:
        return []


def _best_separator(header: str, columns: Mapping[str, str]) -> tuple[str | None, dict[int, str]]:
    """The separator under which the header names the most columns (at least one), and the field of each cell it names."""
    best: tuple[str | None, dict[int, str]] = (None, {})
    for separator in SEPARATORS:
        if header.count(separator) == 0 or header.count(separator) > MAX_COLUMNS:
            continue
        fields = _fields(_header_cells(header, separator), columns)
        if len(fields) > len(best[1]):
            best = (separator, fields)
    return best


def _fields(cells: list[str], columns: Mapping[str, str]) -> dict[int, str]:
    """Position -> our field for each cell the column map or else the known names recognise (first cell wins)."""
    keys = [_key(cell) for cell in cells]
    mapped = {_key(header): field for field, header in columns.items()}
    found: dict[int, str] = {position: mapped[key] for position, key in enumerate(keys) if key in mapped}
    for position, key in enumerate(keys):
        field = _KNOWN.get(key)
        if position not in found and field and field not in found.values():
            found[position] = field
    return found


def read_table(lines: list[str], path: Path, columns: Mapping[str, str]) -> Listing:
    size = sum(len(line) + 1 for line in lines)
    if size > MAX_TABLE_BYTES:
        raise PapersiteError.at(
            path, 1, f"this sheet is {size / 2**20:.0f} MiB; a CSV listing may hold at most {MAX_TABLE_BYTES // 2**20} MiB "
            "(split it into several files, or save it as JSON Lines)"
        )
    first = next(number for number, line in enumerate(lines, 1) if line.strip())
    for number, line in enumerate(lines, 1):
        if sum(line.count(s) for s in SEPARATORS) > MAX_COLUMNS:
            raise PapersiteError.at(path, number, f"more than {MAX_COLUMNS:,} separators on one line: a CSV listing has at most {MAX_COLUMNS:,} columns")
    separator, fields = _best_separator(lines[first - 1], columns)
    cells = _header_cells(lines[first - 1], separator or max(SEPARATORS, key=lines[first - 1].count))
    if separator is None or not any(field in fields.values() for field in _PAPER_FIELDS):
        known = ", ".join(sorted({names[0] for names in COLUMN_NAMES.values()}))
        raise PapersiteError.at(
            path, first,
            f"cannot read this sheet's header: found columns {', '.join(repr(c) for c in cells[:20]) or 'none'}; "
            f"a title or abstract column is needed, and the columns papersite knows are {known} "
            "(or map yours in papersite.yml: listings: {FILE: {columns: {title: ...}}})",
        )
    missing = sorted(header for header in columns.values() if _key(header) not in {_key(c) for c in cells})
    if missing:
        raise PapersiteError.at(path, first, f"papersite.yml maps columns this sheet does not have: {', '.join(missing)} (found {', '.join(cells[:20])})")
    listing = Listing(path, FORMAT_CSV, [])
    for line, row in _rows(lines[first:], first + 1, separator, path):
        values = {field: (row[position].strip() if position < len(row) else "") for position, field in fields.items()}
        if not any(values.values()):
            continue
        entry = _entry(values, path, len(listing.entries) + 1, line, listing.warnings)
        if entry is not None:
            listing.entries.append(entry)
    return listing


def _rows(lines: list[str], first: int, separator: str, path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line where the row starts, cells) per row after the header, which is on line ``first - 1``."""
    reader = csv.reader((line + "\n" for line in lines), delimiter=separator)
    previous = csv.field_size_limit(MAX_FIELD_CHARS)
    try:
        while True:
            start = first + reader.line_num  # line_num: the lines the reader has taken so far
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                where = first + reader.line_num - 1
                raise PapersiteError.at(path, where, f"not a readable CSV row ({error}; a cell holds at most {MAX_FIELD_CHARS:,} characters)") from None
            yield start, row
    finally:
        csv.field_size_limit(previous)  # the limit is the csv module's, process-wide: give it back


_AND = re.compile(r",?\s+(?:and|&)\s+")


def split_authors(cell: str) -> list[str]:
    """Names split on ';' (or ' and ' / ' & '), each "Last, First" turned around; a cell without those
    is split on commas, unless it is one "Last, First" name."""
    cell = one_line(cell) or ""
    if ";" in cell:
        parts = cell.split(";")
    elif _AND.search(cell):
        parts = _AND.split(cell)
        if not all(_inverted(part) for part in parts):  # "Ann Lee, Bo Chen and Cy Diaz"
            parts = [name for part in parts for name in part.split(",")]
    elif _inverted(cell):
        parts = [cell]
    else:
        parts = cell.split(",")
    return [first_last(part) for part in parts if part.strip()]


def _inverted(name: str) -> bool:
    """ "Lee, Ann" or "van der Berg, Anna": one comma after a last name (one word, lower-case particles before it)."""
    parts = name.split(",")
    if len(parts) != 2 or not parts[1].strip():
        return False
    words = parts[0].split()
    return bool(words) and all(word.islower() for word in words[:-1])


def _list(cell: str) -> list[str]:
    return [part.strip() for part in re.split(r"[;,]", cell) if part.strip()]


def _topic(text: str, path: Path, line: int, warnings: list[str]) -> Topic | None:
    if not text:
        return None
    area, subarea = parse_topic_label(text)
    if topic_problem(area, subarea):
        warnings.append(f"{path}:{line}: topic {text[:60]!r} is not 'Area · Sub-area': left out")
        return None
    return Topic(area, subarea)


def _entry(values: dict[str, str], path: Path, number: int, line: int, warnings: list[str]) -> ListingEntry | None:
    title, abstract = one_line(values.get("title")), clean_abstract(values.get("abstract") or None)
    if title is None and abstract is None:
        warnings.append(f"{path}:{line}: row has neither title nor abstract: skipped")
        return None
    links = {name: values[name] for name in ("pdf", "openreview", "code") if values.get(name)}
    if values.get("url"):
        links.setdefault(link_name(values["url"]), values["url"])
    if values.get("doi"):
        doi = doi_url(values["doi"])
        if doi:
            links["doi"] = doi
        else:
            warnings.append(f"{path}:{line}: {values['doi'][:60]!r} is not a DOI: left out")
    if values.get("arxiv"):
        arxiv = arxiv_url(values["arxiv"])
        if arxiv:
            links["arxiv"] = arxiv
    texts = {}
    venue = venue_with_year(values.get("venue"), values.get("year"))
    if venue:
        texts["venue"] = venue
    kind = _ITEM_TYPES.get(_key(values.get("entry_type", "")), one_line(values.get("entry_type", "").lower()))
    if kind:
        texts["entry_type"] = kind
    return ListingEntry(
        path.name, number, line, FORMAT_CSV,
        title=title,
        authors=split_authors(values.get("authors", "")),
        abstract=abstract,
        topic=_topic(values.get("topic", ""), path, line, warnings),
        decision=one_line(values.get("decision")),
        links=web_links(links, path, line, warnings),
        keywords=distinct_keywords(_list(values.get("keywords", ""))),
        texts=texts,
    )

