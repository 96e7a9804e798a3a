"""OpenReview API notes: a dump of ``/notes`` (a JSON list of notes, ``{"notes": [...]}``, or one per line).

In:  the JSON records of a listing (each a note: ``id``, ``forum``, ``content.<field>.value``)
     and the site's taxonomy.
Out: a ``Listing`` of format ``openreview``: title, authors in the submission's order
     (the paper's), abstract, the authors' own keywords, venue and decision, the primary
     area as a listed topic where the taxonomy has it, forum and PDF links.

What a note's ``venue`` says (``VENUE_DECISIONS``): "ICLR 2025 Oral" / "Spotlight" /
"Poster" are accepted papers ("Accept (Oral)" ...; the venue is "ICLR 2025"); "Submitted
to ICLR 2025" is a rejected submission when ``venueid`` says so ("Reject"), else one not
yet decided (no decision); "... Withdrawn Submission" and "... Desk Rejected Submission"
are "Withdrawn" and "Desk Rejected". Any other venue is kept as the venue, with no decision.

A primary area ("generative models") is a listed topic when the taxonomy has an area or
sub-area of that name (case and spacing aside); otherwise the entry gets no listed topic
(the enrich stage infers one, as for any listing without topics), its area is kept as a
keyword so nothing the authors chose is lost, and the listing warns once per area.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from generator.enrich.taxonomy import Taxonomy
from generator.ingest.entry import Listing, ListingEntry, clean_abstract, distinct_keywords, one_line, web_links
from generator.pages.record import Topic
from generator.problems import PapersiteError
from generator.text import fold

FORMAT_OPENREVIEW = "openreview"
OPENREVIEW = "https://openreview.net"

# The venue's own words for a decision, after its name ("ICLR 2025 Poster").
VENUE_DECISIONS = (
    (re.compile(r"^(?P<venue>.+?)\s+(?:conference\s+)?oral$", re.IGNORECASE), "Accept (Oral)"),
    (re.compile(r"^(?P<venue>.+?)\s+(?:conference\s+)?spotlight$", re.IGNORECASE), "Accept (Spotlight)"),
    (re.compile(r"^(?P<venue>.+?)\s+(?:conference\s+)?poster$", re.IGNORECASE), "Accept (Poster)"),
    (re.compile(r"^(?P<venue>.+?)\s+(?:conference\s+)?withdrawn\s+submission$", re.IGNORECASE), "Withdrawn"),
    (re.compile(r"^(?P<venue>.+?)\s+(?:conference\s+)?desk\s+rejected\s+submission$", re.IGNORECASE), "Desk Rejected"),
)
_SUBMITTED = re.compile(r"^submitted\s+to\s+(?P<venue>.+)$", re.IGNORECASE)


def is_note(item: Any) -> bool:
    """An API v2 note: an object whose ``content`` holds fields as ``{"value": ...}`` (or, as the older
    API v1 wrote them, a ``content`` with the values themselves and a ``title``)."""
    content = item.get("content") if isinstance(item, dict) else None
    if not isinstance(content, dict):
        return False
    return any(isinstance(v, dict) and "value" in v for v in content.values()) or isinstance(content.get("title"), str)


def notes_of(data: Any) -> list[Any] | None:
    """The notes of a loaded JSON document (a list of notes or ``{"notes": [...]}``), None if it holds none."""
    if isinstance(data, dict) and isinstance(data.get("notes"), list):
        data = data["notes"]
    if isinstance(data, list) and data and all(is_note(item) for item in data):
        return data
    return None


def read_notes(records: list[tuple[int, Any]], path: Path, taxonomy: Taxonomy | None) -> Listing:
    """``records``: (line, note) in file order."""
    listing = Listing(path, FORMAT_OPENREVIEW, [], author_order="paper")
    unmapped: dict[str, int] = {}
    for number, (line, note) in enumerate(records, 1):
        if not is_note(note):
            raise PapersiteError.at(path, line, f"note {number} is not an OpenReview note (no 'content' with '{{\"value\": ...}}' fields)")
        entry = _entry(note, path, number, line, taxonomy, unmapped, listing.warnings)
        if entry is not None:
            listing.entries.append(entry)
    for area, line in sorted(unmapped.items(), key=lambda item: item[1]):
        listing.warnings.append(
            f"{path}:{line}: primary area {area!r} is not in the site's taxonomy: those papers get no listed topic "
            "(one is inferred) and keep the area as a keyword"
        )
    return listing


def _value(content: dict, name: str) -> Any:
    field = content.get(name)
    return field.get("value") if isinstance(field, dict) else field  # v2: {"value": ...}; v1: the value


def _text(content: dict, name: str, path: Path, line: int) -> str | None:
    value = _value(content, name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise PapersiteError.at(path, line, f"content.{name}.value must be text, got {type(value).__name__}")
    return value.strip() or None


def _texts(content: dict, name: str, path: Path, line: int) -> list[str]:
    value = _value(content, name)
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PapersiteError.at(path, line, f"content.{name}.value must be a list of text")
    return [" ".join(v.split()) for v in value if v.strip()]


def venue_and_decision(venue: str | None, venueid: str | None) -> tuple[str | None, str | None]:
    """("ICLR 2025", "Accept (Poster)") from "ICLR 2025 Poster"; see the module's docstring for each case."""
    venue = one_line(venue)
    if venue is None:
        return None, None
    for pattern, decision in VENUE_DECISIONS:
        match = pattern.match(venue)
        if match:
            return match.group("venue"), decision
    submitted = _SUBMITTED.match(venue)
    if submitted:
        rejected = bool(venueid) and "rejected_submission" in venueid.casefold() and "desk" not in venueid.casefold()
        return submitted.group("venue"), ("Reject" if rejected else None)
    return venue, None


def _topic(area: str | None, taxonomy: Taxonomy | None) -> Topic | None:
    if not area or taxonomy is None:
        return None
    key = fold(" ".join(area.split()))
    for name, subareas in taxonomy.areas:
        if fold(name) == key:
            return Topic(name)
    found = [(name, sub) for name, subareas in taxonomy.areas for sub in subareas if fold(sub) == key]
    return Topic(*found[0]) if len(found) == 1 else None  # a sub-area two areas share says no area


def _link(value: str | None) -> str | None:
    """OpenReview gives its PDFs as site paths ("/pdf/abc.pdf"): made absolute on openreview.net."""
    if not value:
        return None
    return OPENREVIEW + value if value.startswith("/") and not value.startswith("//") else value


def _entry(
    note: dict, path: Path, number: int, line: int, taxonomy: Taxonomy | None, unmapped: dict[str, int], warnings: list[str]
) -> ListingEntry | None:
    content = note["content"]
    title = one_line(_text(content, "title", path, line))
    abstract = clean_abstract(_text(content, "abstract", path, line))
    if title is None and abstract is None:
        warnings.append(f"{path}:{line}: note {number} has neither title nor abstract: skipped")
        return None
    venue, decision = venue_and_decision(_text(content, "venue", path, line), _text(content, "venueid", path, line))
    area = one_line(_text(content, "primary_area", path, line))
    topic = _topic(area, taxonomy)
    keywords = _texts(content, "keywords", path, line)
    if area and topic is None:
        unmapped.setdefault(area, line)
        keywords.append(area)
    links: dict[str, str] = {}
    forum = note.get("forum") or note.get("id")
    if isinstance(forum, str) and re.fullmatch(r"[A-Za-z0-9_-]+", forum):
        links["openreview"] = f"{OPENREVIEW}/forum?id={forum}"
        links["pdf"] = f"{OPENREVIEW}/pdf?id={forum}"
    pdf = _link(_text(content, "pdf", path, line))
    if pdf:
        links.setdefault("pdf", pdf)
    code = _text(content, "code", path, line)
    if code:
        links["code"] = code
    return ListingEntry(
        path.name, number, line, FORMAT_OPENREVIEW,
        title=title,
        authors=_texts(content, "authors", path, line),
        abstract=abstract,
        topic=topic,
        decision=decision,
        links=web_links(links, path, line, warnings),
        keywords=distinct_keywords(keywords),
        texts={"venue": venue} if venue else {},
    )
