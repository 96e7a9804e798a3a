"""Corrections: a submitted "Fix this paper" issue form in, a maintainer edit of one paper page out.

In:  the issue's Markdown body (as GitHub renders the form, see
     ``generator/corrections/form.py``), the paper pages and the taxonomy.
Out: the corrected page, written atomically, and a unified diff; or every
     problem as ``path:line: message`` and nothing written.

Order: read the body (a regular file, size, encoding) -> parse the form
sections and note what is wrong with each field on its own (the text a
stranger typed: no control or invisible characters, no HTML, no front matter,
no GitHub expressions; ids, topics and links of the right shape) -> take the
project lock -> find the paper by id -> keep the fields that differ from the
page, and refuse if any of *those* is wrong (a field left as the page has it
passes as ``papersite check`` allows it) or if they make the page another
paper (the identity rule, ``same_paper``) -> validate the new page with
``papersite check``'s own code, among all the other pages -> diff -> write.

The edit is an ordinary maintainer edit of the page: the next import's
three-way merge sees fields that differ from what it last proposed and keeps
them, and a topic set here is ``source: maintainer``. The body's text only
ever reaches the page as YAML strings written by the record's dumper, and the
workflows pass it around as files, never through a shell.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import json
import os
import re
import stat
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from generator.layout import is_web_url
from generator.pages.check import check_pages
from generator.pages.folder import display_path, page_paths
from generator.config import ProjectConfig
from generator.corrections.form import (
    CUT_MARK, FIELD_BY_ID, NO_DECISION, ORDER_AS_ON_PAPER, ORDER_CHOICES, PAGE_FIELD, TEMPLATE_PATH, FormValue, decision_choices,
    parse_issue_body, render_issue_form,
)
from generator.outputs import output_problem, write_output
from generator.pages.frontmatter import read_text
from generator.pages.store import project_lock, recover, write_alone
from generator.problems import one_line, PapersiteError
from generator.pages.record import FRONT_MATTER_FIELDS, PaperRecord, Topic, parse_page, parse_topic_label, render_page
from generator.enrich.features import STOPWORDS
from generator.enrich.taxonomy import Taxonomy, load_taxonomy
from generator.text import (
    TEXT_WHITESPACE, code_points, fold, invisible_characters, is_invisible, lookalike_words, title_key, unicode_normal,
)

MAX_BODY_CHARS = 65536  # GitHub refuses a longer issue body, so a longer file is not one
PAPER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
LINK_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--|<\?|<!\[?[A-Za-z]")
EXPRESSION = re.compile(r"\$\{\{")
FRONT_MATTER_LINE = re.compile(rf"^\s*(?:-\s+)?(?:{'|'.join(FRONT_MATTER_FIELDS)})\s*:(?:\s|$)|^-{{3,}}\s*$", re.MULTILINE)
NAME_PUNCTUATION = frozenset(".'’-‐‑ ,")
LIMITS = {"paper_title": 500, "venue": 200, "abstract": 20000, "author": 200, "authors": 300, "keyword": 100, "keywords": 50, "links": 20}
# The identity rule (``same_paper``): a correction may replace the title or most of the authors, not both.
# Share of a title's content words kept (Dice; a word misspelt a little counts as kept) below which the
# title is another paper's: 1 in 20,000 random pairs of the bundled corpus' titles reach it.
SAME_TITLE = 0.7
SAME_NAME = 0.8  # similarity of two folded names (or title words) at or above which one is the other, misspelt
# GitHub refuses a comment over 65,536 characters; the rest is room for what surrounds the parts we cut.
MAX_COMMENT_CHARS = 60000
APPROVE = re.compile(r"^\s*/approve\s+sha256:([0-9a-f]{64})\s*$", re.MULTILINE)
MAINTAINERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})  # GitHub's author_association of people with write access


@dataclass
class Correction:
    """What a form asks for; None for a field it leaves as it is."""

    paper_id: str
    title: str | None = None
    authors: list[str] | None = None
    abstract: str | None = None
    abstract_cut: str | None = None  # the form kept the link's shortened abstract (ends with CUT_MARK)
    topic: tuple[str, str | None] | None = None
    decision: str | None = None  # NO_DECISION removes the page's
    venue: str | None = None
    author_order: str | None = None  # one of ORDER_CHOICES
    keywords: list[str] | None = None
    links: dict[str, str] | None = None
    lines: dict[str, int] = field(default_factory=dict)  # field id -> body line, for messages
    # field id -> what is wrong with its value; held back until it is known whether the field changes
    problems: dict[str, list[str]] = field(default_factory=dict)

    def problems_of(self, fields: set[str]) -> list[str]:
        """The problems of these form fields, and of those whose value is never compared with the page
        (the id, the reason, a topic or decision that is no choice of the form)."""
        always = {"paper_id", "reason"} | {key for key in ("topic", "decision", "author_order") if getattr(self, key) is None}
        return [p for key, found in self.problems.items() if key in fields | always for p in found]


@dataclass
class CorrectionResult:
    page: Path
    label: str  # the page's path as messages print it
    before: str
    after: str
    changed: list[str]  # front-matter fields the correction changes

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{self.label}",
                tofile=f"b/{self.label}",
            )
        )


# --------------------------------------------------------------------------- reading the form


def read_issue_body(path: Path) -> str:
    """The body's text: a regular file of at most MAX_BODY_CHARS characters, UTF-8."""
    label = str(path)
    limit = MAX_BODY_CHARS * 4  # bytes: no need to read a file that cannot be an issue body
    try:
        # O_NONBLOCK: opening a FIFO nobody writes to would wait for ever; the fstat below refuses it
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise PapersiteError.at(label, 1, f"cannot read the issue body ({error.strerror})") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        raise PapersiteError.at(label, 1, "the issue body is not a regular file (a folder, a device or a pipe); "
                                "save the body in a file")
    with os.fdopen(descriptor, "rb") as handle:
        if status.st_size > limit:
            raise PapersiteError.at(label, 1, f"the issue body is {status.st_size:,} bytes; an issue holds at most {MAX_BODY_CHARS:,} characters")
        try:
            data = handle.read(limit + 1)  # a file that grows while it is read stops here
        except OSError as error:
            raise PapersiteError.at(label, 1, f"cannot read the issue body ({error.strerror})") from None
    if len(data) > limit:
        raise PapersiteError.at(label, 1, f"the issue body is over {limit:,} bytes; an issue holds at most {MAX_BODY_CHARS:,} characters")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PapersiteError.at(label, line, f"the issue body is not UTF-8 text ({error.reason})") from None
    if len(text) > MAX_BODY_CHARS:
        raise PapersiteError.at(label, 1, f"the issue body is {len(text):,} characters; an issue holds at most {MAX_BODY_CHARS:,}")
    return text.lstrip("\ufeff")


def body_sha256(text: str) -> str:
    """The hash a maintainer's approval names: of the body as read, line ends and surrounding blank space aside
    (the API client adds a newline, a browser may send CRLF)."""
    return hashlib.sha256(text.replace("\r\n", "\n").strip().encode("utf-8")).hexdigest()


def parse_correction(text: str, path: str, taxonomy: Taxonomy) -> Correction:
    """Every field of the form, read; what is wrong with each goes to ``Correction.problems``, by field."""
    values = parse_issue_body(text)
    raw_id = values.get("paper_id")
    paper_id = raw_id.text.strip() if raw_id else ""
    correction = Correction(paper_id=paper_id, lines={key: value.line for key, value in values.items()})

    def error_in(key: str) -> Callable[..., None]:
        def error(value: FormValue | None, message: str, offset: int = 0) -> None:
            where = (value.line + offset) if value else 1
            correction.problems.setdefault(key, []).append(f"{path}:{where}: {message}")
        return error

    if raw_id is None:
        error_in("paper_id")(None, f"no '### {FIELD_BY_ID['paper_id'].label}' section with a value: this issue was not made with the "
                             "'Fix this paper' form (open it from the paper's page)")
    elif not PAPER_ID.match(paper_id):
        error_in("paper_id")(raw_id, f"paper id {_shown(paper_id)} is not an id: copy the 'id' of the paper's page (letters, digits, '-' or '_')")

    for key, value in values.items():
        _check_text(key, value, error_in(key))

    if "paper_title" in values:
        value, error = values["paper_title"], error_in("paper_title")
        title = " ".join(value.text.split())
        if not _visible(title):
            error(value, "the title is empty; write the paper's title, or leave the field as it was")
        elif len(title) > LIMITS["paper_title"]:
            error(value, f"the title is {len(title)} characters long; at most {LIMITS['paper_title']}")
        _check_lookalikes(title, "the title", value, 0, error)
        correction.title = title

    if "venue" in values:
        value, error = values["venue"], error_in("venue")
        venue = " ".join(value.text.split())
        if len(venue) > LIMITS["venue"]:
            error(value, f"the venue is {len(venue)} characters long; at most {LIMITS['venue']}")
        _check_lookalikes(venue, "the venue", value, 0, error)
        correction.venue = venue or None

    if "authors" in values:
        value, error = values["authors"], error_in("authors")
        names = _list_items(value)
        if len(names) > LIMITS["authors"]:
            error(value, f"{len(names)} authors; a paper page holds at most {LIMITS['authors']}")
        for offset, name in names:
            bad = sorted({c for c in name if not _name_character(c)})
            if bad:
                shown = ", ".join(_shown(c) for c in bad)
                error(value, f"author {_shown(name)} contains {shown}: a name is letters, spaces and . ' , - only", offset)
            elif len(name) > LIMITS["author"]:
                error(value, f"author name is {len(name)} characters long; at most {LIMITS['author']}", offset)
            _check_lookalikes(name, f"author {_shown(name)}", value, offset, error)
        correction.authors = [name for _, name in names]

    if "abstract" in values:
        value, error = values["abstract"], error_in("abstract")
        abstract = "\n".join(line.rstrip() for line in value.text.split("\n")).strip()
        if len(abstract) > LIMITS["abstract"]:
            error(value, f"the abstract is {len(abstract):,} characters long; at most {LIMITS['abstract']:,}")
        if abstract.endswith(CUT_MARK):
            correction.abstract_cut = abstract[: -len(CUT_MARK)].strip()
        else:
            correction.abstract = abstract

    if "topic" in values:
        value = values["topic"]
        area, subarea = parse_topic_label(value.text.strip())
        resolved = taxonomy.resolve(area, subarea) if area else None
        if resolved is None:
            error_in("topic")(value, f"topic {_shown(value.text.strip())} is not in the taxonomy; pick one of the form's choices")
        correction.topic = resolved

    if "decision" in values:
        value = values["decision"]
        choice = " ".join(value.text.split())
        if choice in decision_choices():
            correction.decision = choice
        else:
            error_in("decision")(value, f"decision {_shown(choice)} is not one of the form's choices "
                                 f"({', '.join(decision_choices())})")

    if "author_order" in values:
        value = values["author_order"]
        choice = " ".join(value.text.split())
        if choice in ORDER_CHOICES:
            correction.author_order = choice
        else:
            error_in("author_order")(value, f"author order {_shown(choice)} is not one of the form's choices ({', '.join(ORDER_CHOICES)})")

    if "keywords" in values:
        value, error = values["keywords"], error_in("keywords")
        keywords = _list_items(value)
        if len(keywords) > LIMITS["keywords"]:
            error(value, f"{len(keywords)} keywords; at most {LIMITS['keywords']}")
        for offset, keyword in keywords:
            if len(keyword) > LIMITS["keyword"]:
                error(value, f"keyword is {len(keyword)} characters long; at most {LIMITS['keyword']}", offset)
            if unicode_normal(keyword) != keyword:  # a keyword is a page of the site: one spelling per keyword
                error(value, f"keyword {_shown(keyword)} uses compatibility forms (full-width letters, ligatures...); "
                      f"write {_shown(unicode_normal(keyword))}", offset)
            _check_lookalikes(keyword, f"keyword {_shown(keyword)}", value, offset, error)
        correction.keywords = [keyword for _, keyword in keywords]

    if "links" in values:
        value, error = values["links"], error_in("links")
        links: dict[str, str] = {}
        for offset, line in _list_items(value):
            name, separator, url = line.partition(":")
            name, url = name.strip().lower(), url.strip()
            if not separator or url.startswith("//"):  # "https://..." alone splits at the scheme
                error(value, f"write each link as 'name: URL' (e.g. 'pdf: https://...'), got {_shown(line)}", offset)
                continue
            if not LINK_NAME.match(name):
                error(value, f"link name {_shown(name)} must be a lowercase word such as pdf, code or openreview", offset)
            elif not is_web_url(url):
                error(value, f"link '{name}' must be an http(s) URL without spaces or quotes, got {_shown(url)}", offset)
            if name in links:
                error(value, f"link '{name}' is given twice", offset)
            links[name] = url  # kept even when wrong: a list the page already holds is no change
        if len(links) > LIMITS["links"]:
            error(value, f"{len(links)} links; at most {LIMITS['links']}")
        correction.links = links
    return correction


def _check_text(key: str, value: FormValue, error: Callable[..., None]) -> None:
    """What no field may hold, wherever its text ends up."""
    text = value.text
    multiline = FIELD_BY_ID[key].kind == "textarea"
    for offset, line in enumerate(text.split("\n")):
        bad = invisible_characters(line, TEXT_WHITESPACE)
        if bad:  # a diff would not show them, and a keyword with one would be a page of its own
            error(value, f"{FIELD_BY_ID[key].label.lower()} contains the control or invisible character(s) "
                  f"{code_points(bad)}", offset)
    if not multiline and "\n" in text.strip():
        error(value, f"{FIELD_BY_ID[key].label.lower()} must be one line")
    if EXPRESSION.search(text):
        error(value, f"{FIELD_BY_ID[key].label.lower()} contains '${{{{', which is not text a paper page holds", _line_of(text, EXPRESSION))
    if key == "reason":
        return  # the reason is for the maintainers to read; it never reaches the page
    if HTML_TAG.search(text):
        error(value, f"{FIELD_BY_ID[key].label.lower()} contains HTML ({_shown(HTML_TAG.search(text).group(0))}); "
              "write plain text", _line_of(text, HTML_TAG))
    match = FRONT_MATTER_LINE.search(text)
    if match and key != "links":
        error(value, f"{FIELD_BY_ID[key].label.lower()} looks like page front matter ({_shown(match.group(0).strip())}); "
              "write the value alone", _line_of(text, FRONT_MATTER_LINE))


def _list_items(value: FormValue) -> list[tuple[int, str]]:
    """Non-empty lines (offset, text), without a Markdown list marker a reader may have typed."""
    items = []
    for offset, line in enumerate(value.text.split("\n")):
        item = re.sub(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)", "", line).strip()
        if item:
            items.append((offset, " ".join(item.split())))
    return items


def _visible(text: str) -> str:
    """The text without spaces and invisible characters (zero-width spaces and joiners)."""
    return "".join(c for c in text if not c.isspace() and not is_invisible(c))


def _check_lookalikes(text: str, what: str, value: FormValue, offset: int, error: Callable[..., None]) -> None:
    words = lookalike_words(text)
    if words:
        error(value, f"{what} mixes Latin letters with Cyrillic or Greek look-alikes in {_shown(words[0])}; "
              "type it in one script", offset)


def _name_character(c: str) -> bool:
    return unicodedata.category(c)[0] in "LM" or c in NAME_PUNCTUATION


def _line_of(text: str, pattern: re.Pattern[str]) -> int:
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) if match else 0


def _shown(text: str, limit: int = 60) -> str:
    """A stranger's text, quoted for a message: one line, short, control characters visible."""
    text = "".join(f"\\u{ord(c):04x}" if is_invisible(c) else c for c in text)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# --------------------------------------------------------------------------- applying it


def find_page(config: ProjectConfig, paper_id: str, body_label: str, line: int) -> tuple[Path, PaperRecord, str]:
    """The page whose front matter has this id, its record and its text; PapersiteError if none has."""
    pattern = re.compile(rf"^id:\s*['\"]?{re.escape(paper_id)}['\"]?\s*$", re.MULTILINE)
    for path in page_paths(config):
        if not path.is_file():
            continue  # a folder or a pipe named *.md (reading a pipe would wait): papersite check names it
        try:
            text = path.read_text(encoding="utf-8", errors="replace")  # a page that is not UTF-8 may still be another's
        except OSError:
            continue  # unreadable: papersite check names it; it is not this paper's page
        if pattern.search(text[: text.find("\n---", 3) + 1 or len(text)]):
            label = display_path(path, config.root)
            try:
                text = read_text(path, label)
                record = parse_page(text, label)
            except PapersiteError as error:
                raise error.noting("(fix the page before correcting it)") from None
            if record.id == paper_id:
                return path, record, text
    hint = ""
    if (config.papers_dir / f"{paper_id}.md").is_file():
        hint = f"; that is the slug of {display_path(config.papers_dir / f'{paper_id}.md', config.root)}, not its id"
    raise PapersiteError.at(body_label, line, f"no paper page has the id {paper_id!r}{hint}")


def _base_page(base_dir: Path, name: str) -> PaperRecord | None:
    """The page as the form was filled from it (``--base-pages``), if that folder has it."""
    path = base_dir / name
    if not path.is_file():
        return None
    try:
        return parse_page(read_text(path, str(path)), str(path))
    except PapersiteError as error:
        raise error.noting("(a page of --base-pages)") from None


def _comparable(record: PaperRecord, key: str):
    """A field as a reader sees it: spacing does not count, a topic is its area and sub-area."""
    value = getattr(record, key)
    if key in ("title", "abstract"):
        return " ".join((value or "").split())
    if key in ("authors", "keywords"):
        return [" ".join(item.split()) for item in value]
    if key == "topic":
        return (value.area, value.subarea) if value is not None else None
    if key in ("decision", "author_order", "venue"):
        return " ".join(value.split()) if value else None
    return dict(value)


# --------------------------------------------------------------------------- the identity rule


def same_paper(before: PaperRecord, after: PaperRecord) -> str | None:
    """None when ``after`` is still the paper ``before`` describes; else why it is another.

    A paper is known by its title and its authors. A correction may replace either (a later
    official title, a wrong author list from a listing) but not both at once: a title that keeps
    less than SAME_TITLE of its content words, with an author list in which fewer than half of the names
    (of the longer list, old or new: adding many authors replaces them too) are the page's,
    describes another paper, whatever the abstract says; so does a title changed even a little
    with the abstract and most authors replaced. A made-up title (``title_derived``) or a page
    without authors has nothing to lose.
    """
    if before.title_derived or not before.authors:
        return None
    kept = _authors_kept(before.authors, after.authors)
    out_of = max(len(before.authors), len(after.authors))
    if 2 * kept >= out_of:
        return None
    authors = f"the authors (only {kept} of {out_of} names are the page's)"
    title_kept = _title_similarity(before.title, after.title)
    if title_kept < SAME_TITLE:
        return f"the form replaces the title ({title_kept:.0%} of its words kept) and {authors} at once: that is another paper"
    if before.abstract and all(_comparable(before, key) != _comparable(after, key) for key in ("title", "abstract")):
        # a title near another paper's ("... for Graphs", "... for Text") with its authors and its abstract
        return f"the form changes the title and the abstract and replaces {authors} at once: that is another paper"
    return None


def _title_similarity(before: str, after: str) -> float:
    """Share of content words the two titles have in common (Dice), spelling variants and typos aside."""
    old, new = _content_words(before), _content_words(after)
    if not old or not new:
        return 0.0
    remaining = list(new)
    kept = 0
    for word in old:
        match = word if word in remaining else next((other for other in remaining if _similar_words(word, other)), None)
        if match is not None:
            remaining.remove(match)
            kept += 1
    return 2 * kept / (len(old) + len(new))


def _content_words(title: str) -> set[str]:
    # "for", "of", "via" make "Diffusion Models for Graphs" look like "... for Text"
    words = set(title_key(title).split())
    return (words - STOPWORDS) or words


def _similar_words(a: str, b: str) -> bool:
    return min(len(a), len(b)) > 3 and difflib.SequenceMatcher(None, a, b).ratio() >= SAME_NAME


def _authors_kept(before: list[str], after: list[str]) -> int:
    """How many of ``before`` are still in ``after``: the same name, spelt alike or misspelt a little."""
    remaining = [fold(name) for name in after]
    kept = 0
    for name in (fold(name) for name in before):
        match = next((other for other in remaining if other == name), None)
        if match is None:
            match = next((other for other in remaining if _similar_names(name, other)), None)
        if match is not None:
            remaining.remove(match)
            kept += 1
    return kept


def _similar_names(a: str, b: str) -> bool:
    matcher = difflib.SequenceMatcher(None, a, b)
    return matcher.quick_ratio() >= SAME_NAME and matcher.ratio() >= SAME_NAME


# --------------------------------------------------------------------------- applying it


def apply_correction(
    record: PaperRecord, correction: Correction, body_label: str, base: PaperRecord | None = None
) -> tuple[PaperRecord, list[str]]:
    """The corrected record and the fields that changed; a form that equals the page changes nothing.

    ``base`` is the page the form was filled from, when it may since have changed (a batch of
    corrections): a field the form leaves as it was there is not a change, so it does not undo
    an earlier correction, and a field both changed differently is a conflict. Only the fields
    that change must pass the form's rules (``Correction.problems``): the others are the page's.
    """
    base = base or record
    line = lambda key: correction.lines.get(key, 1)  # noqa: E731
    errors: list[str] = []
    wanted: dict = {}
    if correction.title is not None:
        wanted["title"] = correction.title
    if correction.authors is not None:
        wanted["authors"] = correction.authors
    if correction.abstract is not None:
        wanted["abstract"] = correction.abstract
    if correction.abstract_cut is not None and not _comparable(base, "abstract").startswith(
        " ".join(correction.abstract_cut.split())
    ):
        errors.append(
            f"{body_label}:{line('abstract')}: the abstract ends with '{CUT_MARK}', the mark of the link's shortened "
            "copy, but its start differs from the page's: paste the whole corrected abstract"
        )
    if correction.topic is not None:
        wanted["topic"] = Topic(correction.topic[0], correction.topic[1], "maintainer")
    if correction.decision is not None:
        wanted["decision"] = None if correction.decision == NO_DECISION else correction.decision
    if correction.author_order is not None:
        known = correction.author_order == ORDER_AS_ON_PAPER
        wanted["author_order"] = None if known else (base.author_order or "unknown")
    elif correction.authors is not None and record.author_order:
        wanted["author_order"] = None  # a form without the choice: its Authors field asks for the paper's order
    if correction.venue is not None:
        wanted["venue"] = correction.venue
    if correction.keywords is not None:
        wanted["keywords"] = correction.keywords
    if correction.links is not None:
        wanted["links"] = correction.links

    changes: dict = {}
    form_key = {page: form for form, page in PAGE_FIELD.items()}
    for key, value in wanted.items():
        proposed = _comparable(record.replace(**{key: value}), key)
        if proposed == _comparable(base, key) or proposed == _comparable(record, key):
            continue  # left as it was, or already so
        if _comparable(record, key) != _comparable(base, key):
            errors.append(
                f"{body_label}:{line(form_key[key])}: the page's {key} changed after this form was filled in "
                "(by another correction); open the form again from the page and redo this change"
            )
            continue
        changes[key] = value
    errors = correction.problems_of({form_key[key] for key in changes}) + errors
    if "title" in changes:
        changes["title_derived"] = False  # a person wrote the real title
    corrected = record.replace(**changes)
    other = same_paper(base, corrected)
    if other:
        errors.append(
            f"{body_label}:{line('paper_title')}: {other}, not paper {record.id!r}; check the paper id, "
            "or ask a maintainer to edit the page by hand"
        )
    if errors:
        raise PapersiteError(*errors)
    changed = [key for key in changes if key != "title_derived"]
    return corrected, changed


def correct_page(
    config: ProjectConfig, body_path: Path, dry_run: bool = False, base_dir: Path | None = None,
    approvals: set[str] | None = None,
) -> CorrectionResult:
    """Apply an issue body to its page (unless ``dry_run``); raises PapersiteError before writing.

    ``base_dir`` holds the pages as they were when the forms were filled in (see ``apply_correction``).
    ``approvals``: the body hashes maintainers approved (``approved_hashes``); when given, a body
    whose hash is not among them is refused, so an issue edited after its approval changes nothing.
    A correction that writes holds the project lock from reading the page to writing it: an import
    running meanwhile would otherwise write its own copy of the page over the correction.
    """
    body_label = str(body_path)
    text = read_issue_body(body_path)
    digest = body_sha256(text)
    if approvals is not None and digest not in approvals:
        raise PapersiteError.at(body_label, 1, f"no maintainer approved this text (sha256:{digest}); it was edited after "
                                "its approval, or never approved: a maintainer comments '/approve sha256:...' "
                                "with the hash of the checked text")
    taxonomy = load_taxonomy(config.taxonomy_file)
    correction = parse_correction(text, body_label, taxonomy)
    if "paper_id" in correction.problems:  # no page to compare with: every problem counts
        raise PapersiteError(*(p for found in correction.problems.values() for p in found))
    if dry_run:
        return _corrected(config, correction, body_label, base_dir, dry_run)
    with project_lock(config, "correct"):
        recover(config)  # an import killed half way is finished first, or it would later undo this
        return _corrected(config, correction, body_label, base_dir, dry_run)


def _corrected(
    config: ProjectConfig, correction: Correction, body_label: str, base_dir: Path | None, dry_run: bool
) -> CorrectionResult:
    path, record, before = find_page(config, correction.paper_id, body_label, correction.lines.get("paper_id", 1))
    base = _base_page(base_dir, path.name) if base_dir is not None else None
    corrected, changed = apply_correction(record, correction, body_label, base)
    after = render_page(corrected) if changed else before
    result = CorrectionResult(path, display_path(path, config.root), before, after, changed)
    if not changed:
        return result
    problems = [p for p in check_pages(config, texts={path: after}) if p.is_error and p.path == result.label]
    if problems:
        raise PapersiteError(*(f"{p} (in the corrected page)" for p in problems))
    if not dry_run:
        write_alone(path, after)
    return result


def approved_hashes(text: str) -> set[str]:
    """The body hashes approved in an issue's comments (the API's JSON: one array, or several pages
    of them one after another): '/approve sha256:HEX' lines of comments by people with write access."""
    decoder, position, comments = json.JSONDecoder(), 0, []
    text = text.strip()
    while position < len(text):
        value, position = decoder.raw_decode(text, position)
        comments.extend(value if isinstance(value, list) else [value])
        while position < len(text) and text[position].isspace():
            position += 1
    return {
        match.group(1)
        for comment in comments
        if _by_a_maintainer(comment) and isinstance(comment.get("body"), str)
        for match in APPROVE.finditer(comment["body"])
    }


def _by_a_maintainer(comment: object) -> bool:
    """A person with write access; never a bot, whose dry-run comment shows the very line to post."""
    if not isinstance(comment, dict) or comment.get("author_association") not in MAINTAINERS:
        return False
    user = comment.get("user")
    return not (isinstance(user, dict) and (user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")))


# --------------------------------------------------------------------------- command line


def comment_markdown(result: CorrectionResult | None, errors: list[str], dry_run: bool, digest: str = "") -> str:
    """The outcome as an issue comment, at most MAX_COMMENT_CHARS long. Text from the issue goes only
    inside a code fence longer than any backtick run it holds, so it cannot turn into Markdown."""

    def fenced(text: str, language: str = "") -> str:
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"

    room = MAX_COMMENT_CHARS - 2000  # for the sentences around the fenced part
    if errors:
        shown, size = [], 0
        for line in errors:
            line = line if len(line) <= 1000 else line[:999] + "…"
            if size + len(line) + 1 > room:
                break
            shown.append(line)
            size += len(line) + 1
        more = f"\n\nThe first {len(shown)} of {len(errors)} problems are shown; fix them and the check lists the rest." \
            if len(shown) < len(errors) else ""
        return (
            f"**This correction cannot be applied yet** ({len(errors)} problem(s)). Edit the issue to fix what is listed "
            "below (lines are lines of the issue text); the check runs again after each edit. Nothing was changed.\n\n"
            + fenced("\n".join(shown)) + more + "\n"
        )
    assert result is not None
    if not result.changed:
        return "**Nothing to change:** every field of the form already matches the page `" + result.label + "`.\n"
    verb = "would change" if dry_run else "changes"
    diff = result.diff()
    note = ""
    if len(diff) > room:
        cut = diff.rfind("\n", 0, room) + 1 or room
        note = (f"\nThe diff is {len(diff):,} characters; the first {cut:,} are shown "
                "(run `papersite correct --dry-run` on the issue body to see it whole).\n")
        diff = diff[:cut]
    approve = ""
    if dry_run and digest:
        approve = ("\nTo apply exactly this text, a maintainer comments the line below and adds the `approved` label; "
                   "an edit of the issue after that needs a new approval.\n\n" + fenced(f"/approve sha256:{digest}"))
    return (
        f"**The correction is valid.** It {verb} {', '.join(result.changed)} of `{result.label}`; "
        "`papersite check` passes on the corrected page.\n\n"
        + fenced(diff, "diff") + note + approve
    )


def run_correct(args: argparse.Namespace, config: ProjectConfig) -> int:
    """``papersite correct``: 0 when the page is (or would be) corrected or already right, 1 otherwise."""
    dry_run = bool(args.dry_run)
    comment = Path(args.comment) if args.comment else None
    if comment is not None:
        problem = output_problem(comment)  # the same rule as --report and --timings
        if problem:
            print(f"{comment}:1: {problem}; nothing was changed", file=sys.stderr)
            return 1
    result, errors, digest = None, [], ""
    try:
        approvals = None
        if getattr(args, "approvals", None):
            approvals = _read_approvals(Path(args.approvals))
        with contextlib.suppress(PapersiteError):
            digest = body_sha256(read_issue_body(Path(args.issue_body)))  # for the comment, even when refused
        base = Path(args.base_pages) if getattr(args, "base_pages", None) else None
        result = correct_page(config, Path(args.issue_body), dry_run=dry_run, base_dir=base, approvals=approvals)
    except PapersiteError as failure:
        errors = failure.lines()
    except OSError as error:  # a page folder that cannot be read or written
        errors = [f"{error.filename or config.papers_dir}:1: {error.strerror or error}"]
    if comment is not None:
        try:
            write_output(comment, comment_markdown(result, errors, dry_run, digest))
        except PapersiteError as failure:  # made a link or a folder since the check
            print(f"{failure.lines()[0]}; the comment was not written", file=sys.stderr)
            return 1
        except OSError as error:
            print(f"{comment}:1: cannot write the comment ({error.strerror})", file=sys.stderr)
            return 1
    if errors:
        for line in errors:
            print(line, file=sys.stderr)
        print(f"papersite correct: {len(errors)} problem(s); nothing was changed", file=sys.stderr)
        return 1
    assert result is not None
    if not result.changed:
        print(f"papersite correct: nothing to change; the form matches {result.label}")
        return 0
    sys.stdout.write(printed_diff(result))
    action = "would change" if dry_run else "changed"
    print(f"papersite correct: {action} {', '.join(result.changed)} in {result.label}")
    return 0


def printed_diff(result: CorrectionResult) -> str:
    """The diff as the command prints it: a page line "::warning ..." (a context line starts with a
    space, which the runner strips) never reaches a CI log as a workflow command."""
    return "".join(one_line(line) + "\n" for line in result.diff().splitlines())


def _read_approvals(path: Path) -> set[str]:
    """``--approvals FILE``: the issue's comments as the API gives them."""
    if not path.is_file():  # never a pipe: reading one would wait
        raise PapersiteError.at(path, 1, "--approvals names no file; it holds the issue's comments as the API gives them")
    try:
        return approved_hashes(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PapersiteError.at(path, 1, f"cannot read the approvals ({error.strerror})") from None
    except ValueError as error:  # not UTF-8, or not JSON
        raise PapersiteError.at(path, 1, f"not the JSON of an issue's comments ({error})") from None


def run_issue_form(args: argparse.Namespace, config: ProjectConfig) -> int:
    """``papersite issue-form``: write the form from the taxonomy, or with ``--check`` say if it is stale."""
    try:
        text = render_issue_form(load_taxonomy(config.taxonomy_file))
    except PapersiteError as error:
        print(f"papersite: {error}", file=sys.stderr)
        return 1
    path = config.root / TEMPLATE_PATH
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if args.check:
        if current != text:
            print(f"{TEMPLATE_PATH}:1: the correction form is out of date with the taxonomy; run 'papersite issue-form'", file=sys.stderr)
            return 1
        print(f"papersite issue-form: {TEMPLATE_PATH} is up to date")
        return 0
    if current != text:
        write_alone(path, text)
    print(f"papersite issue-form: wrote {TEMPLATE_PATH}")
    return 0
