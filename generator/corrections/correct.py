"""Corrections: a submitted "Fix this paper" issue form in, a maintainer edit of one paper page out.

In:  the issue's Markdown body (as GitHub renders the form, see
     ``generator/corrections/form.py``), the paper pages and the taxonomy.
Out: the corrected page, written atomically, and a unified diff; or every
     problem as ``path:line: message`` and nothing written.

Order: read the body (size, encoding) -> parse the form sections -> validate
each field on its own (the text a stranger typed: no control characters, no
HTML, no front matter, no GitHub expressions; ids, topics and links of the
right shape) -> find the paper by id -> apply the fields that differ from the
page -> validate the new page with ``papersite check``'s own code, among all
the other pages -> diff -> write.

The edit is an ordinary maintainer edit of the page: the next import's
three-way merge sees fields that differ from what it last proposed and keeps
them, and a topic set here is ``source: maintainer``. The body's text only
ever reaches the page as YAML strings written by the record's dumper, and the
workflows pass it around as files, never through a shell.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from generator.layout import is_web_url
from generator.pages.check import check_pages
from generator.pages.folder import display_path, page_paths
from generator.config import ProjectConfig
from generator.corrections.form import CUT_MARK, FIELD_BY_ID, TEMPLATE_PATH, FormValue, parse_issue_body, render_issue_form
from generator.pages.store import write_alone
from generator.problems import PapersiteError
from generator.pages.record import PaperRecord, Topic, parse_page, render_page
from generator.pages.schema import FRONT_MATTER_FIELDS
from generator.enrich.taxonomy import Taxonomy, load_taxonomy, parse_topic_label

MAX_BODY_CHARS = 65536  # GitHub refuses a longer issue body, so a longer file is not one
PAPER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
LINK_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--|<\?|<!\[?[A-Za-z]")
EXPRESSION = re.compile(r"\$\{\{")
FRONT_MATTER_LINE = re.compile(rf"^\s*(?:-\s+)?(?:{'|'.join(FRONT_MATTER_FIELDS)})\s*:(?:\s|$)|^-{{3,}}\s*$", re.MULTILINE)
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NAME_PUNCTUATION = frozenset(".'’-‐‑ ,")
LIMITS = {"paper_title": 500, "abstract": 20000, "author": 200, "authors": 300, "keyword": 100, "keywords": 50, "links": 20}


@dataclass
class Correction:
    """What a form asks for; None for a field it leaves as it is."""

    paper_id: str
    title: str | None = None
    authors: list[str] | None = None
    abstract: str | None = None
    abstract_cut: str | None = None  # the form kept the link's shortened abstract (ends with CUT_MARK)
    topic: tuple[str, str | None] | None = None
    keywords: list[str] | None = None
    links: dict[str, str] | None = None
    lines: dict[str, int] = field(default_factory=dict)  # field id -> body line, for messages


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
    label = str(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise PapersiteError.at(label, 1, f"cannot read the issue body ({error.strerror})") from None
    if size > MAX_BODY_CHARS * 4:  # no need to read a file that cannot be an issue body
        raise PapersiteError.at(label, 1, f"the issue body is {size:,} bytes; an issue holds at most {MAX_BODY_CHARS:,} characters")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise PapersiteError.at(label, 1, f"the issue body is not UTF-8 text ({error.reason})") from None
    if len(text) > MAX_BODY_CHARS:
        raise PapersiteError.at(label, 1, f"the issue body is {len(text):,} characters; an issue holds at most {MAX_BODY_CHARS:,}")
    return text.lstrip("\ufeff")


def parse_correction(text: str, path: str, taxonomy: Taxonomy) -> Correction:
    """Every field of the form, validated on its own; raises PapersiteError with all problems."""
    values = parse_issue_body(text)
    errors: list[str] = []

    def error(value: FormValue | None, message: str, offset: int = 0) -> None:
        errors.append(f"{path}:{(value.line + offset) if value else 1}: {message}")

    raw_id = values.get("paper_id")
    paper_id = raw_id.text.strip() if raw_id else ""
    if raw_id is None:
        error(None, f"no '### {FIELD_BY_ID['paper_id'].label}' section with a value: this issue was not made with the "
              "'Fix this paper' form (open it from the paper's page)")
    elif not PAPER_ID.match(paper_id):
        error(raw_id, f"paper id {_shown(paper_id)} is not an id: copy the 'id' of the paper's page (letters, digits, '-' or '_')")
    correction = Correction(paper_id=paper_id, lines={key: value.line for key, value in values.items()})

    for key, value in values.items():
        _check_text(key, value, error)

    if "paper_title" in values:
        value = values["paper_title"]
        title = " ".join(value.text.split())
        if not _visible(title):
            error(value, "the title is empty; write the paper's title, or leave the field as it was")
        elif len(title) > LIMITS["paper_title"]:
            error(value, f"the title is {len(title)} characters long; at most {LIMITS['paper_title']}")
        correction.title = title

    if "authors" in values:
        value = values["authors"]
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
        correction.authors = [name for _, name in names]

    if "abstract" in values:
        value = values["abstract"]
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
            error(value, f"topic {_shown(value.text.strip())} is not in the taxonomy; pick one of the form's choices")
        correction.topic = resolved

    if "keywords" in values:
        value = values["keywords"]
        keywords = _list_items(value)
        if len(keywords) > LIMITS["keywords"]:
            error(value, f"{len(keywords)} keywords; at most {LIMITS['keywords']}")
        for offset, keyword in keywords:
            if len(keyword) > LIMITS["keyword"]:
                error(value, f"keyword is {len(keyword)} characters long; at most {LIMITS['keyword']}", offset)
        correction.keywords = [keyword for _, keyword in keywords]

    if "links" in values:
        value = values["links"]
        links: dict[str, str] = {}
        for offset, line in _list_items(value):
            name, separator, url = line.partition(":")
            name, url = name.strip().lower(), url.strip()
            if not separator or url.startswith("//"):  # "https://..." alone splits at the scheme
                error(value, f"write each link as 'name: URL' (e.g. 'pdf: https://...'), got {_shown(line)}", offset)
            elif not LINK_NAME.match(name):
                error(value, f"link name {_shown(name)} must be a lowercase word such as pdf, code or openreview", offset)
            elif not is_web_url(url):
                error(value, f"link '{name}' must be an http(s) URL without spaces or quotes, got {_shown(url)}", offset)
            elif name in links:
                error(value, f"link '{name}' is given twice", offset)
            else:
                links[name] = url
        if len(links) > LIMITS["links"]:
            error(value, f"{len(links)} links; at most {LIMITS['links']}")
        correction.links = links

    if errors:
        raise PapersiteError(*errors)
    return correction


def _check_text(key: str, value: FormValue, error: Callable[..., None]) -> None:
    """What no field may hold, wherever its text ends up."""
    text = value.text
    multiline = FIELD_BY_ID[key].kind == "textarea"
    for offset, line in enumerate(text.split("\n")):
        bad = sorted({c for c in line if (unicodedata.category(c) == "Cc" and c != "\t") or c in BIDI_CONTROLS})
        if bad:
            error(value, f"{FIELD_BY_ID[key].label.lower()} contains the control character(s) "
                  f"{', '.join(f'U+{ord(c):04X}' for c in bad)}", offset)
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
    return "".join(c for c in text if unicodedata.category(c) not in ("Zs", "Cf", "Cc") and not c.isspace())


def _name_character(c: str) -> bool:
    return unicodedata.category(c)[0] in "LM" or c in NAME_PUNCTUATION


def _line_of(text: str, pattern: re.Pattern[str]) -> int:
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) if match else 0


def _shown(text: str, limit: int = 60) -> str:
    """A stranger's text, quoted for a message: one line, short, control characters visible."""
    text = "".join(c if unicodedata.category(c)[0] != "C" else f"\\u{ord(c):04x}" for c in text)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# --------------------------------------------------------------------------- applying it


def find_page(config: ProjectConfig, paper_id: str, body_label: str, line: int) -> tuple[Path, PaperRecord]:
    """The page whose front matter has this id; PapersiteError if none has."""
    pattern = re.compile(rf"^id:\s*['\"]?{re.escape(paper_id)}['\"]?\s*$", re.MULTILINE)
    for path in page_paths(config):
        text = path.read_text(encoding="utf-8", errors="replace")
        if pattern.search(text[: text.find("\n---", 3) + 1 or len(text)]):
            try:
                record = parse_page(text, path)
            except PapersiteError as error:
                raise error.noting("(fix the page before correcting it)") from None
            if record.id == paper_id:
                return path, record
    hint = ""
    if (config.papers_dir / f"{paper_id}.md").is_file():
        hint = f"; that is the slug of {display_path(config.papers_dir / f'{paper_id}.md', config.root)}, not its id"
    raise PapersiteError.at(body_label, line, f"no paper page has the id {paper_id!r}{hint}")


def _comparable(record: PaperRecord, key: str):
    """A field as a reader sees it: spacing does not count, a topic is its area and sub-area."""
    value = getattr(record, key)
    if key in ("title", "abstract"):
        return " ".join((value or "").split())
    if key in ("authors", "keywords"):
        return [" ".join(item.split()) for item in value]
    if key == "topic":
        return (value.area, value.subarea) if value is not None else None
    return dict(value)


def apply_correction(
    record: PaperRecord, correction: Correction, body_label: str, base: PaperRecord | None = None
) -> tuple[PaperRecord, list[str]]:
    """The corrected record and the fields that changed; a form that equals the page changes nothing.

    ``base`` is the page the form was filled from, when it may since have changed (a batch of
    corrections): a field the form leaves as it was there is not a change, so it does not undo
    an earlier correction, and a field both changed differently is a conflict.
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
    if correction.keywords is not None:
        wanted["keywords"] = correction.keywords
    if correction.links is not None:
        wanted["links"] = correction.links

    changes: dict = {}
    form_key = {"title": "paper_title"}
    for key, value in wanted.items():
        proposed = _comparable(record.replace(**{key: value}), key)
        if proposed == _comparable(base, key) or proposed == _comparable(record, key):
            continue  # left as it was, or already so
        if _comparable(record, key) != _comparable(base, key):
            errors.append(
                f"{body_label}:{line(form_key.get(key, key))}: the page's {key} changed after this form was filled in "
                "(by another correction); open the form again from the page and redo this change"
            )
            continue
        changes[key] = value
    if "title" in changes:
        changes["title_derived"] = False  # a person wrote the real title
    identity = ("title", "authors", "abstract")
    if all(key in changes for key in identity) and base.authors and base.abstract and not base.title_derived:
        errors.append(
            f"{body_label}:{line('paper_title')}: the form changes the title, the authors and the abstract at once: "
            f"that describes another paper, not paper {record.id!r}; check the paper id (or edit the page by hand)"
        )
    if errors:
        raise PapersiteError(*errors)
    changed = [key for key in changes if key != "title_derived"]
    return record.replace(**changes), changed


def correct_page(
    config: ProjectConfig, body_path: Path, dry_run: bool = False, base_dir: Path | None = None
) -> CorrectionResult:
    """Apply an issue body to its page (unless ``dry_run``); raises PapersiteError before writing.

    ``base_dir`` holds the pages as they were when the forms were filled in (see ``apply_correction``).
    """
    body_label = str(body_path)
    text = read_issue_body(body_path)
    taxonomy = load_taxonomy(config.taxonomy_file)
    correction = parse_correction(text, body_label, taxonomy)
    path, record = find_page(config, correction.paper_id, body_label, correction.lines.get("paper_id", 1))
    before = path.read_text(encoding="utf-8")
    base = None
    if base_dir is not None and (base_dir / path.name).is_file():
        base = parse_page((base_dir / path.name).read_text(encoding="utf-8"), base_dir / path.name)
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


# --------------------------------------------------------------------------- command line


def comment_markdown(result: CorrectionResult | None, errors: list[str], dry_run: bool) -> str:
    """The outcome as an issue comment. Text from the issue goes only inside a code fence
    longer than any backtick run it holds, so it cannot turn into Markdown."""

    def fenced(text: str, language: str = "") -> str:
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"

    if errors:
        return (
            "**This correction cannot be applied yet.** Edit the issue to fix what is listed below "
            "(lines are lines of the issue text); the check runs again after each edit. Nothing was changed.\n\n"
            + fenced("\n".join(errors))
        )
    assert result is not None
    if not result.changed:
        return "**Nothing to change:** every field of the form already matches the page `" + result.label + "`.\n"
    verb = "would change" if dry_run else "changes"
    return (
        f"**The correction is valid.** It {verb} {', '.join(result.changed)} of `{result.label}`; "
        "`papersite check` passes on the corrected page. A maintainer applies it by adding the `approved` label.\n\n"
        + fenced(result.diff(), "diff")
    )


def run_correct(args: argparse.Namespace, config: ProjectConfig) -> int:
    """``papersite correct``: 0 when the page is (or would be) corrected or already right, 1 otherwise."""
    dry_run = bool(args.dry_run)
    result, errors = None, []
    try:
        base = Path(args.base_pages) if getattr(args, "base_pages", None) else None
        result = correct_page(config, Path(args.issue_body), dry_run=dry_run, base_dir=base)
    except PapersiteError as failure:
        errors = failure.lines()
    if args.comment:
        write_alone(Path(args.comment), comment_markdown(result, errors, dry_run))
    if errors:
        for line in errors:
            print(line, file=sys.stderr)
        print(f"papersite correct: {len(errors)} problem(s); nothing was changed", file=sys.stderr)
        return 1
    assert result is not None
    if not result.changed:
        print(f"papersite correct: nothing to change; the form matches {result.label}")
        return 0
    sys.stdout.write(result.diff())
    action = "would change" if dry_run else "changed"
    print(f"papersite correct: {action} {', '.join(result.changed)} in {result.label}")
    return 0


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
