"""Citations of a paper: BibTeX, RIS, a plain-text line and Google Scholar ``citation_*`` meta tags.

In: a paper record and its venue (``venue_of``: the paper's own ``venue:``, else
``venue:`` in papersite.yml, else what the site name says, e.g. "ICLR 2025 Papers"). Out: plain text (BibTeX, RIS, the citation
line) and (name, content) pairs; the caller escapes them.

Three rules keep the citations honest. Only a paper the venue accepted is cited
as published (``@inproceedings``, ``CONF``; or as the kind of publication a
bibliography's entry type names, ``ENTRY_KINDS``: an ``@article`` as an article in
its journal); a rejected, withdrawn or undecided one is ``@misc`` / ``UNPB`` with a
"Submitted to ..." note, as OpenReview cites such submissions. A title papersite derived from the abstract is never exported as
the paper's own: the entries carry no title and say that it is unknown, and no
Scholar tags are written. Authors whose order on the paper is not known (a source
that sorts its lists: ``ingest/authors.py``) are never cited as if it were: no
``author`` field, ``AU`` line or ``citation_author`` tag names a first author;
the names go in a note that says their order is not known, and the BibTeX key is
made from the title and year.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from generator.config import VenueSettings
from generator.pages.decisions import read_decision
from generator.pages.record import PaperRecord
from generator.layout import is_web_url

UNKNOWN_TITLE_NOTE = "Title unknown: no source gives it"
# What a page's author_order means, in full (paper pages, citation notes) and short (lists).
ORDER_NOTES = {
    "alphabetical": "listed alphabetically; the order on the paper is not known",
    "unknown": "the order on the paper is not known",
}
ORDER_SHORT = {"alphabetical": "alphabetical order", "unknown": "order not known"}


@dataclass(frozen=True)
class EntryKind:
    """How one kind of publication is cited: its BibTeX and RIS types, the BibTeX field and Scholar tag of its venue."""

    bibtex: str
    ris: str
    venue_field: str  # "booktitle", "journal" ...
    scholar_tag: str | None  # citation_conference_title, citation_journal_title; None: no Scholar tag names it


# A page's ``entry_type`` (BibTeX's words; ingest maps RIS and sheet types to them) -> how a published paper of
# that kind is cited. A paper without one was submitted to a conference (the site's venue): ``inproceedings``.
ENTRY_KINDS = {
    "inproceedings": EntryKind("inproceedings", "CONF", "booktitle", "citation_conference_title"),
    "conference": EntryKind("inproceedings", "CONF", "booktitle", "citation_conference_title"),
    "article": EntryKind("article", "JOUR", "journal", "citation_journal_title"),
    "incollection": EntryKind("incollection", "CHAP", "booktitle", "citation_inbook_title"),
    "book": EntryKind("book", "BOOK", "publisher", None),
    "phdthesis": EntryKind("phdthesis", "THES", "school", "citation_dissertation_institution"),
    "mastersthesis": EntryKind("mastersthesis", "THES", "school", "citation_dissertation_institution"),
    "techreport": EntryKind("techreport", "RPRT", "institution", "citation_technical_report_institution"),
}
# Kinds that say the work was not published: cited as ``@misc`` / ``UNPB`` like a submission without a decision.
UNPUBLISHED_KINDS = ("misc", "unpublished", "online", "electronic")
CONFERENCE = ENTRY_KINDS["inproceedings"]


def entry_kind(paper: PaperRecord) -> EntryKind:
    return ENTRY_KINDS.get((paper.entry_type or "").strip().lower(), CONFERENCE)


@dataclass(frozen=True)
class Venue:
    name: str  # full name for citations: "International Conference on Learning Representations"
    short: str  # what readers call it: "ICLR 2025"
    year: str | None  # "2025"

    @classmethod
    def from_site_name(cls, site_name: str) -> "Venue":
        return cls.from_settings(VenueSettings(), site_name)

    @classmethod
    def from_settings(cls, settings: VenueSettings, site_name: str) -> "Venue":
        named = re.sub(r"\s+(papers|proceedings)\s*$", "", site_name.strip(), flags=re.IGNORECASE) or site_name
        year = settings.year or _year_in(settings.short or site_name)
        short = settings.short or named
        return cls(name=settings.name or short, short=short, year=year)


def venue_of(paper: PaperRecord, site: Venue) -> Venue:
    """The venue a paper is cited with: its own (``venue:`` on its page), else the site's."""
    if not paper.venue:
        return site
    own = " ".join(paper.venue.split())
    return Venue(name=own, short=own, year=_year_in(own))


def _year_in(text: str) -> str | None:
    """The year a venue's name gives ("ICML 2025" -> "2025"), if any."""
    found = re.search(r"\b(19|20)\d\d\b", text)
    return found.group(0) if found else None


def _ascii_word(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", plain)


def _last_name(author: str) -> str:
    parts = author.replace(",", " ").split()
    return parts[-1] if parts else ""


def _published(paper: PaperRecord) -> bool:
    """Cited as published only when the decision says the venue accepted it, or, with no decision, when a
    bibliography's entry type says it was published (an ``@article`` in a journal)."""
    decision = read_decision(paper.decision)
    if decision is None:
        kind = (paper.entry_type or "").strip().lower()
        return bool(kind) and kind not in UNPUBLISHED_KINDS
    return decision.accepted is True


def order_known(paper: PaperRecord) -> bool:
    """Whether the authors are in the paper's order (so the first is the first author)."""
    return not paper.author_order


def order_words(paper: PaperRecord, short: bool = False) -> str:
    """What the page's author_order means, in full (pages, citations) or short (lists)."""
    return author_order_words(paper.author_order, short)


def author_order_words(author_order: str | None, short: bool = False) -> str:
    """What an author_order value means (``order_words``; the search store's schema holds the short words)."""
    words = ORDER_SHORT if short else ORDER_NOTES
    return words.get(author_order or "", words["unknown"])


def order_note(paper: PaperRecord) -> str | None:
    """What a citation says of authors whose order is not known (None when it is)."""
    if order_known(paper) or not paper.authors:
        return None
    return f"Authors ({order_words(paper)}): {', '.join(' '.join(a.split()) for a in paper.authors)}"


def _title(paper: PaperRecord) -> str | None:
    return None if paper.title_derived else " ".join(paper.title.split())


def bibtex_key(paper: PaperRecord, venue: Venue) -> str:
    """First author, year, first long title word and the id; the title's first two words and the
    year when the first author is not known."""
    title = _title(paper) or ""
    words = [w for w in (_ascii_word(w).lower() for w in title.split()) if len(w) > 3]
    if order_known(paper):
        first = _ascii_word(_last_name(paper.authors[0])).lower() if paper.authors else "anon"
        return f"{first or 'anon'}{venue.year or ''}{words[0] if words else ''}_{paper.id[:6]}"
    lead, rest = (words[0], words[1] if len(words) > 1 else "") if words else ("untitled", "")
    return f"{lead}{venue.year or ''}{rest}_{paper.id[:6]}"


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
    for name in ("openreview", "pdf", "url", "arxiv"):
        if is_web_url(paper.links.get(name, "")):
            return paper.links[name].strip()
    return None


def _doi(paper: PaperRecord) -> str | None:
    """The DOI itself ("10.5555/12345") of a paper whose ``doi`` link is a doi.org URL."""
    found = re.match(r"^https://(?:dx\.)?doi\.org/(10\.\S+)$", paper.links.get("doi", "").strip())
    return found.group(1) if found else None


def _submitted_note(paper: PaperRecord, venue: Venue) -> str | None:
    """What a citation says of a paper not cited as published; None for a bibliography's own unpublished
    entry (``@misc``, a preprint), which was never said to be submitted anywhere."""
    decision = read_decision(paper.decision)
    if decision is None and (paper.entry_type or "").strip().lower() in UNPUBLISHED_KINDS:
        return None
    if decision is None:
        return f"Submitted to {venue.short}; decision not known"
    if decision.accepted is None:
        return f"Submitted to {venue.short}; decision: {decision.text}"
    return f"Submitted to {venue.short}"


def bibtex(paper: PaperRecord, venue: Venue) -> str:
    published = _published(paper)
    title = _title(paper)
    fields = [("title", _bibtex_value(title))] if title else []
    if paper.authors and order_known(paper):
        fields.append(("author", " and ".join(_bibtex_value(a) for a in paper.authors)))
    kind = entry_kind(paper)
    if published:
        fields.append((kind.venue_field, _bibtex_value(venue.name)))
    if venue.year:
        fields.append(("year", venue.year))
    url = _known_url(paper)
    if url:
        fields.append(("url", _bibtex_value(url)))
    doi = _doi(paper)
    if doi:
        fields.append(("doi", _bibtex_value(doi)))
    notes = [] if published else [note for note in (_submitted_note(paper, venue),) if note]
    if not title:
        notes.append(UNKNOWN_TITLE_NOTE)
    authors_note = order_note(paper)
    if authors_note:
        notes.append(authors_note)
    if notes:
        fields.append(("note", _bibtex_value(". ".join(notes))))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind.bibtex if published else 'misc'}{{{bibtex_key(paper, venue)},\n{body}\n}}"


def ris(paper: PaperRecord, venue: Venue) -> str:
    published = _published(paper)
    title = _title(paper)
    lines = [f"TY  - {entry_kind(paper).ris}" if published else "TY  - UNPB"]
    if title:
        lines.append(f"TI  - {title}")
    if order_known(paper):
        lines += [f"AU  - {' '.join(a.split())}" for a in paper.authors]
    if published:
        lines.append(f"T2  - {venue.name}")
    if venue.year:
        lines.append(f"PY  - {venue.year}")
    if paper.keywords:
        lines += [f"KW  - {' '.join(k.split())}" for k in paper.keywords]
    url = _known_url(paper)
    if url:
        lines.append(f"UR  - {url}")
    doi = _doi(paper)
    if doi:
        lines.append(f"DO  - {doi}")
    submitted = None if published else _submitted_note(paper, venue)
    if submitted:
        lines.append(f"N1  - {submitted}")
    if not title:
        lines.append(f"N1  - {UNKNOWN_TITLE_NOTE}")
    authors_note = order_note(paper)
    if authors_note:
        lines.append(f"N1  - {authors_note}")
    lines.append("ER  - ")
    return "\n".join(lines)


def citation_line(paper: PaperRecord, venue: Venue) -> str:
    """One line a reader can paste into a reference list."""
    authors = [" ".join(a.split()) for a in paper.authors]
    who = ", ".join(authors[:-1]) + f" and {authors[-1]}" if len(authors) > 1 else (authors[0] if authors else "Unknown authors")
    if authors and not order_known(paper):
        who = f"[Authors, {order_words(paper)}: {', '.join(authors)}]"
    title = _title(paper) or "[Title unknown]"
    decision = read_decision(paper.decision)
    if _published(paper):
        where = f"In {venue.name}" + (f" ({venue.short})" if venue.short != venue.name else "")
    elif decision is not None and decision.accepted is False:
        where = f"{_submitted_note(paper, venue) or venue.short}; {decision.label.lower()}"
    else:
        where = _submitted_note(paper, venue) or venue.short
    year = f", {venue.year}" if venue.year and venue.year not in where else ""
    url = _known_url(paper)
    return f"{who}. {title.rstrip('.')}. {where}{year}." + (f" {url}" if url else "")


def scholar_meta(paper: PaperRecord, venue: Venue) -> list[tuple[str, str]]:
    """Google Scholar's Highwire tags; none for a derived title (Scholar would index it as the paper's)."""
    title = _title(paper)
    if not title:
        return []
    tags = [("citation_title", title)]
    if order_known(paper):  # Scholar takes the first citation_author for the first author
        tags += [("citation_author", " ".join(a.split())) for a in paper.authors]
    if venue.year:
        tags.append(("citation_publication_date", venue.year))
    scholar_tag = entry_kind(paper).scholar_tag
    if _published(paper) and scholar_tag:
        tags.append((scholar_tag, venue.name))
    if is_web_url(paper.links.get("pdf", "")):
        tags.append(("citation_pdf_url", paper.links["pdf"]))
    # No citation_abstract: the abstract is on the page, and the tag repeated it (1.3 KB of each
    # paper page at 12k papers); Scholar reads the page, and reference managers the BibTeX or RIS.
    return tags
