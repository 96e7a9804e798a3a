"""Listing stage: read one listing file into typed entries, whatever its format.

In:  a listing file (plain text in one of three layouts, JSON Lines / a JSON
     array, OpenReview API notes, BibTeX, RIS, or a CSV/TSV sheet, optionally
     gzip-compressed) and what papersite.yml says of it (``ReadSettings``).
Out: a ``Listing`` holding the detected format, the announced paper count if
     the header gives one, warnings, and one ``ListingEntry`` per paper.

The format is detected from the content, never from the file name, because
users save exports under whatever name their browser picks. Every problem is
reported as ``path:line: what is wrong``; a file that cannot be read raises
``PapersiteError`` so the importer can refuse to write anything. This module
detects the format and reads the four layouts of the bundled corpus and our JSON;
each other format has a reader of its own (``bibtex.py``, ``ris.py``,
``csv_listing.py``, ``openreview.py``), and ``entry.py`` holds what they produce.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator

from generator.ingest import bibtex, csv_listing, openreview, ris
from generator.ingest.entry import (  # re-exported: what every stage imports from the listing stage
    Listing,
    ListingEntry,
    ReadSettings,
    clean_abstract,
    distinct_keywords,
    is_placeholder_abstract,
    openreview_pdf_url,
    web_links,
)
from generator.inputs import MAX_ANNOUNCED_PAPERS, MAX_LISTING_BYTES, InputError, gunzip_capped, load_json, read_capped, readable_file
from generator.pages.record import LISTED_TEXT_FIELDS, Topic, parse_topic_label
from generator.pages.schema import topic_problem
from generator.problems import PapersiteError

FORMAT_ABSTRACTS = "abstracts"
FORMAT_NUMBERED = "numbered"
FORMAT_TRIPLES = "triples"
FORMAT_JSON = "json"
FORMAT_OPENREVIEW = openreview.FORMAT_OPENREVIEW
FORMAT_BIBTEX = bibtex.FORMAT_BIBTEX
FORMAT_RIS = ris.FORMAT_RIS
FORMAT_CSV = csv_listing.FORMAT_CSV

TRIPLES_HEADER = "论文检索"

# An abstract paragraph shorter than this (in words) is not prose; a file whose
# paragraphs are mostly that short is not an abstract list.
MIN_ABSTRACT_WORDS = 12


# --------------------------------------------------------------------------- decoding


def read_listing(path: Path | str, settings: ReadSettings = ReadSettings()) -> Listing:
    """Read and parse one listing file; raises PapersiteError if it is not a listing."""
    path = readable_file(path, None)  # a FIFO would hang the read; where it may lie, the caller knows
    return parse_listing(read_capped(path, MAX_LISTING_BYTES, "listing"), path, settings)


def parse_listing(data: bytes, path: Path | str, settings: ReadSettings = ReadSettings()) -> Listing:
    path = Path(path)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gunzip_capped(data)
        except InputError as error:
            raise PapersiteError.at(path, 1, error.message) from None
    text = _decode(data, path)
    if not text.strip():
        raise PapersiteError.at(path, 1, "empty listing: expected paper entries")
    lines = [line.rstrip() for line in text.split("\n")]
    fmt = detect_format(lines, settings)
    if fmt is None:
        first = next(i for i, line in enumerate(lines) if line.strip()) + 1
        raise PapersiteError.at(
            path,
            first,
            "unrecognised listing: expected an abstract list, a numbered list ('1Title¶'), "
            f"a '{TRIPLES_HEADER}' triples list, JSON records or OpenReview notes, BibTeX ('@article{{...'), "
            "RIS ('TY  - JOUR') or a CSV/TSV sheet with a header row (Title, Authors, Abstract ...)",
        )
    readers: dict[str, Callable[[], Listing]] = {
        FORMAT_JSON: lambda: _read_json(lines, path, settings),
        FORMAT_TRIPLES: lambda: _read_triples(lines, path),
        FORMAT_NUMBERED: lambda: _read_numbered(lines, path),
        FORMAT_ABSTRACTS: lambda: _read_abstracts(lines, path),
        FORMAT_BIBTEX: lambda: bibtex.read_bibtex(lines, path),
        FORMAT_RIS: lambda: ris.read_ris(lines, path),
        FORMAT_CSV: lambda: csv_listing.read_table(lines, path, settings.columns),
    }
    listing = readers[fmt]()
    if not listing.entries:
        raise PapersiteError.at(path, 1, f"no paper entries found in this {listing.format} listing")
    return listing


def _decode(data: bytes, path: Path) -> str:
    if b"\x00" in data:
        raise PapersiteError.at(path, 1, "binary file (contains NUL bytes): expected a UTF-8 text listing")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise PapersiteError.at(path, line, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    text = text.lstrip("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Greedy and anchored on the one '¶' at the end: linear (a lazy group before \s* made a
# line of spaces quadratic); the title's trailing spaces are stripped in code.
_NUMBERED_TITLE = re.compile(r"^(\d+)(.*)¶$")
# "[openreview] [pdf]": labels in brackets; never a one-line JSON array ('[{"title": ...}]').
_LINKS_LINE = re.compile(r"^(\[[^\]{}\"]+\]\s*)+$")
MAX_ENTRY_DIGITS = 9


def _numbered_title(line: str) -> re.Match | None:
    # Only a line that ends in '¶' can be one; without that test, the digits and the
    # '.*' after them could split a long run of digits every way (quadratic).
    return _NUMBERED_TITLE.match(line) if line.endswith("¶") else None


def detect_format(lines: list[str], settings: ReadSettings = ReadSettings()) -> str | None:
    """Which reader fits these lines (None: none does). OpenReview notes are JSON: ``_read_json`` tells them apart."""
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith(("{", "[")) and not _LINKS_LINE.match(first):
        return FORMAT_JSON
    if first == TRIPLES_HEADER:
        return FORMAT_TRIPLES
    if bibtex.looks_like_bibtex(lines):
        return FORMAT_BIBTEX
    if ris.looks_like_ris(lines):
        return FORMAT_RIS
    if csv_listing.looks_like_table(lines, settings.columns):
        return FORMAT_CSV
    if any(_numbered_title(line) for line in lines):
        return FORMAT_NUMBERED
    paragraphs = list(_paragraphs(lines))
    if len(paragraphs) >= 2 and len(paragraphs[0][1].split("\n")) == 1:
        body = paragraphs[1:]
        prose = sum(1 for _, text in body if len(text.split()) >= MIN_ABSTRACT_WORDS)
        if prose * 2 > len(body):
            return FORMAT_ABSTRACTS
    return None


def _paragraphs(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(1-based first line, text with lines joined by newlines) per blank-line block."""
    start, block = 0, []
    for number, line in enumerate(lines, 1):
        if line.strip():
            if not block:
                start = number
            block.append(line.strip())
        elif block:
            yield start, "\n".join(block)
            block = []
    if block:
        yield start, "\n".join(block)


def parse_topic(text: str) -> Topic | None:
    """A listing's topic line ('Area · Sub-area') as its topic; None for an empty text (no topic).

    Raises ValueError (the message) for a topic with an empty part: '·', ' · Sub', 'Area ·', '  '."""
    if text == "":
        return None
    area, subarea = parse_topic_label(text)
    problem = topic_problem(area, subarea)
    if problem:
        raise ValueError(f"{problem} (the topic reads {text[:60]!r})")
    return Topic(area, subarea)


def _join(text: str) -> str:
    return " ".join(text.split("\n"))


# --------------------------------------------------------------------------- readers


def _read_abstracts(lines: list[str], path: Path) -> Listing:
    paragraphs = list(_paragraphs(lines))[1:]  # the first one is the header line
    entries = [
        ListingEntry(path.name, number, line, FORMAT_ABSTRACTS, abstract=clean_abstract(_join(text)))
        for number, (line, text) in enumerate(paragraphs, 1)
    ]
    listing = Listing(path, FORMAT_ABSTRACTS, entries)
    for entry in entries:
        if entry.abstract is None:
            listing.warnings.append(f"{path}:{entry.line}: entry {entry.entry} has no abstract and no title")
    return listing


# Found as: each run of digits and commas once (finditer does not retry inside a run),
# then the word after it; one pattern for both made a header of "1,1,1,..." quadratic.
_COUNT = re.compile(r"\d[\d,]*")
_COUNT_NOUN = re.compile(r"\s+(?:papers|entries|submissions)\b", re.IGNORECASE)


def _announced_count(line: str) -> int | None:
    """The paper count a header line announces; ValueError for a count no listing can hold."""
    for match in _COUNT.finditer(line):
        before = line[match.start() - 1 : match.start()]
        if before.isalnum() or before == "_":
            continue  # a number must start a word: not the "12" of "x12 papers"
        if _COUNT_NOUN.match(line, match.end()):
            digits = match.group(0).replace(",", "").lstrip("0") or "0"
            # compared as text first: int() of a 5,000-digit string is refused by Python itself
            if len(digits) > len(str(MAX_ANNOUNCED_PAPERS)) or int(digits) > MAX_ANNOUNCED_PAPERS:
                shown = digits if len(digits) <= 20 else f"a {len(digits):,}-digit number"
                raise ValueError(f"header announces {shown} papers; expected at most {MAX_ANNOUNCED_PAPERS:,}")
            return int(digits)
    return None


def _read_numbered(lines: list[str], path: Path) -> Listing:
    listing = Listing(path, FORMAT_NUMBERED, [])
    entries = listing.entries
    current: ListingEntry | None = None
    abstract: list[list[str]] = []  # paragraphs of the current abstract
    in_abstract = False
    previous_blank = True
    header: list[tuple[int, str]] = []  # (line number, text)

    def finish() -> None:
        if current is None:
            return
        text = "\n\n".join(" ".join(p) for p in abstract if p)
        current.abstract = clean_abstract(text) if text else None
        if not text:
            listing.warnings.append(
                f"{path}:{current.line}: entry {current.entry} has no abstract (cut off?); kept with its title"
            )

    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            previous_blank = True
            continue
        expected = entries[-1].entry + 1 if entries else 1
        split = _split_number(line, expected) if previous_blank else None
        if split is not None:
            finish()
            seq, title = split
            if seq != expected:
                listing.warnings.append(f"{path}:{number}: entry number {seq} follows {expected - 1}")
            current = ListingEntry(path.name, seq, number, FORMAT_NUMBERED, title=title)
            entries.append(current)
            abstract, in_abstract = [], False
        elif current is None:
            header.append((number, line))
        elif _LINKS_LINE.match(line) and not in_abstract:
            pass  # "[openreview] [pdf]": the export keeps the labels but not the URLs
        else:
            if line.startswith("Abstract") and not in_abstract:
                line = line[len("Abstract") :].lstrip(" :")
                in_abstract = True
            elif not in_abstract:
                listing.warnings.append(f"{path}:{number}: text before 'Abstract' read as abstract")
                in_abstract = True
            if previous_blank or not abstract:
                abstract.append([])
            if line:
                abstract[-1].append(line)
        previous_blank = False
    finish()
    for number, line in header:
        try:
            announced = _announced_count(line)
        except ValueError as error:
            raise PapersiteError.at(path, number, str(error)) from None
        if announced is not None:
            listing.announced = announced
            break
    if listing.announced is not None and listing.announced != len(entries):
        listing.warnings.append(
            f"{path}:1: header announces {listing.announced} papers, found {len(entries)}"
        )
    return listing


def _split_number(line: str, expected: int) -> tuple[int, str] | None:
    """Split '555100 instances…¶' into (555, '100 instances…') using the expected number.

    A title may itself start with digits, so the digits alone cannot say where
    the entry number ends; the running count can.
    """
    match = _numbered_title(line)
    if match is None:
        return None
    digits, rest = match.group(1), match.group(2).rstrip()
    prefix = str(expected)
    if digits.startswith(prefix) and (len(digits) > len(prefix) or rest.strip()):
        title = (digits[len(prefix) :] + rest).strip()
        if title:
            return expected, title
    # Out of sequence: take the shortest number past the previous one that leaves a title
    # (an entry number has at most MAX_ENTRY_DIGITS digits: a line of 5,000 zeros is no entry).
    for cut in range(1, min(len(digits), MAX_ENTRY_DIGITS) + 1):
        seq = int(digits[:cut])
        title = (digits[cut:] + rest).strip()
        if seq >= expected and title:
            return seq, title
    return None


def _read_triples(lines: list[str], path: Path) -> Listing:
    paragraphs = list(_paragraphs(lines))[1:]
    listing = Listing(path, FORMAT_TRIPLES, [])
    if len(paragraphs) % 3:
        line = paragraphs[len(paragraphs) - len(paragraphs) % 3][0]
        raise PapersiteError.at(
            path, line, "incomplete entry: expected topic line, authors line and abstract per paper"
        )
    for number, index in enumerate(range(0, len(paragraphs), 3), 1):
        (topic_line, topic), (_, authors), (_, abstract) = paragraphs[index : index + 3]
        topic = _join(topic)
        if len(topic.split()) > 12 or topic.endswith("."):
            raise PapersiteError.at(path, topic_line, f"expected a topic line ('Area · Sub-area'), got {topic[:60]!r}")
        try:
            parsed = parse_topic(topic)
        except ValueError as error:
            raise PapersiteError.at(path, topic_line, f"expected a topic line ('Area · Sub-area'): {error}") from None
        if parsed is None:
            raise PapersiteError.at(path, topic_line, f"expected a topic line ('Area · Sub-area'), got {topic[:60]!r}")
        names = [name.strip() for name in _join(authors).split(",") if name.strip()]
        listing.entries.append(
            ListingEntry(
                path.name,
                number,
                topic_line,
                FORMAT_TRIPLES,
                authors=names,
                abstract=clean_abstract(_join(abstract)),
                topic=parsed,
            )
        )
    return listing


def _read_json(lines: list[str], path: Path, settings: ReadSettings) -> Listing:
    text = "\n".join(lines)
    records: list[tuple[int, Any]] = []
    notes = _notes_object(lines)
    if notes is not None:
        return openreview.read_notes([(1, note) for note in notes], path, settings.taxonomy)
    if text.lstrip().startswith("["):
        try:
            data = load_json(text)
        except InputError as error:
            raise PapersiteError.at(path, error.line, error.message) from None
        notes = openreview.notes_of(data)
        if notes is not None:
            return openreview.read_notes([(1, note) for note in notes], path, settings.taxonomy)
        if not isinstance(data, list):
            raise PapersiteError.at(path, 1, "expected a JSON array of paper records")
        records = [(1, item) for item in data]
    else:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                records.append((number, load_json(line, number)))
            except InputError as error:
                raise PapersiteError.at(path, number, error.message.replace("not valid JSON:", "not valid JSON Lines:")) from None
    if records and all(openreview.is_note(item) for _, item in records):  # one note per line
        return openreview.read_notes(records, path, settings.taxonomy)
    notes = openreview.notes_of(records[0][1]) if len(records) == 1 else None
    if notes is not None:  # {"notes": [...]} on one line
        return openreview.read_notes([(records[0][0], note) for note in notes], path, settings.taxonomy)
    listing = Listing(path, FORMAT_JSON, [])
    for number, (line, item) in enumerate(records, 1):
        listing.entries.append(_json_entry(item, path, number, line, listing.warnings))
    return listing


def _notes_object(lines: list[str]) -> list[Any] | None:
    """The notes of a file that is one JSON object written over several lines (``{"notes": [...]}``).

    A first line that is a whole JSON value starts JSON Lines, which is never loaded as one document."""
    first = next(line for line in lines if line.strip())
    if not first.lstrip().startswith("{"):
        return None
    try:
        load_json(first)
        return None
    except InputError:
        pass
    try:
        return openreview.notes_of(load_json("\n".join(lines)))
    except InputError:
        return None  # broken JSON: the JSON Lines reader below says where


def _text_field(item: dict, key: str, path: Path, line: int) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise PapersiteError.at(path, line, f"field '{key}' must be a string, got {type(value).__name__}")
    return value.strip() or None


def _texts(item: dict, path: Path, line: int) -> dict[str, str]:
    """The record's one-line fields (``venue`` ...), white space folded; absent when empty."""
    found = {name: " ".join((_text_field(item, name, path, line) or "").split()) for name in LISTED_TEXT_FIELDS}
    return {name: value for name, value in found.items() if value}


def _string_list(item: dict, key: str, path: Path, line: int) -> list[str]:
    value = item.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PapersiteError.at(path, line, f"field '{key}' must be a list of strings")
    return [v.strip() for v in value if v.strip()]


def _json_entry(item: Any, path: Path, number: int, line: int, warnings: list[str]) -> ListingEntry:
    if not isinstance(item, dict):
        raise PapersiteError.at(path, line, f"record {number} must be a JSON object, got {type(item).__name__}")
    title = _text_field(item, "title", path, line)
    abstract = clean_abstract(_text_field(item, "abstract", path, line))
    if title is None and abstract is None:
        raise PapersiteError.at(path, line, f"record {number} has neither 'title' nor 'abstract'")
    topic = None
    raw_topic = item.get("topic", item.get("primary_area"))
    if isinstance(raw_topic, dict) and isinstance(raw_topic.get("area"), str):
        subarea = raw_topic.get("subarea")
        if subarea is not None and not isinstance(subarea, str):
            raise PapersiteError.at(path, line, f"field 'topic' sub-area must be text, got {type(subarea).__name__}")
        topic = Topic(" ".join(raw_topic["area"].split()), " ".join((subarea or "").split()) or None)
        problem = topic_problem(topic.area, topic.subarea)
        if problem:
            raise PapersiteError.at(path, line, f"field 'topic': {problem}")
    elif isinstance(raw_topic, str):
        try:
            topic = parse_topic(raw_topic)  # "": no topic
        except ValueError as error:
            raise PapersiteError.at(path, line, f"field 'topic': {error}") from None
    elif raw_topic is not None:
        raise PapersiteError.at(path, line, "field 'topic' must be 'Area · Sub-area' or {area, subarea}")
    links: dict[str, str] = {}
    raw_links = item.get("links") or {}
    if not isinstance(raw_links, dict):
        raise PapersiteError.at(path, line, "field 'links' must map names to URLs")
    links.update({str(k): str(v) for k, v in raw_links.items() if v})
    for key in ("openreview_url", "pdf_url", "code_url", "url"):
        value = _text_field(item, key, path, line)
        if value:
            links.setdefault(key.removesuffix("_url") if key != "url" else "url", value)
    return ListingEntry(
        path.name,
        number,
        line,
        FORMAT_JSON,
        title=title,
        authors=_string_list(item, "authors", path, line),
        abstract=abstract,
        topic=topic,
        decision=_text_field(item, "decision", path, line),
        texts=_texts(item, path, line),
        links=web_links(links, path, line, warnings),
        keywords=distinct_keywords(_string_list(item, "keywords", path, line)),
    )
