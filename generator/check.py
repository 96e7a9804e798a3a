"""Page validation: every problem in every paper page, at once (``papersite check``).

In:  the project config (paper pages in ``papers_dir``, the taxonomy file).
Out: a list of ``Problem`` (``path:line: message``), sorted by file and line.

Maintainers edit pages by hand, so the check is written for the mistakes a
person makes: YAML that does not parse, a field with the wrong type or a typo
in its name, an empty title, a slug copied from another page, a topic that is
not in the taxonomy, a keyword with a stray space, a link to a page that does
not exist. It never stops at the first problem: a pull request gets the whole
list in one CI run. ``papersite build`` calls ``check_pages`` too, so a site is
never built from pages the check rejects.

Topics whose ``source`` is ``listing`` and that fall outside the taxonomy are
only *warnings*: the conference wrote that label, the taxonomy is our
compilation and may lag behind it, and refusing to build over it would punish
maintainers for data they did not type. A topic a person or the enrichment
stage chose (``maintainer``, ``inferred``) must be in the taxonomy: an error.
"""

from __future__ import annotations

import argparse
import posixpath
import re
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from generator.config import ProjectConfig
from generator.site.urls import PAPERS_SECTION
from generator.inputs import InputError, check_anchor_free, compose_yaml, load_yaml
from generator.markup import THEME_FIELDS, scan_body, theme_field_problem
from generator.record import FRONT_MATTER_FIELDS, TOPIC_SOURCES, PaperRecord, RecordError
from generator.site.urls import RESERVED_SLUGS

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

TOPIC_FIELDS = ("area", "subarea", "source", "confidence", "area_confidence")
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# Site sections that exist without a source file in docs_dir (generated at build time).
GENERATED_SECTIONS = frozenset({"", "papers", "topics", "keywords", "authors", "explore", "stats", "about", "search"})


class Severity(str, Enum):
    """How a problem affects the build."""

    ERROR = "error"  # the check fails (exit 1) and the build refuses to run
    WARNING = "warning"  # reported, but the page is usable as it is


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in one file, at one line."""

    path: str
    line: int
    message: str
    severity: Severity = Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        return f"{self.path}:{self.line}: {prefix}{self.message}"


@dataclass
class _Page:
    """A page whose front matter parsed: its data plus the line of every value."""

    path: Path
    label: str  # path as printed in messages
    data: dict[str, Any]
    lines: dict[str, int]  # top-level key -> line of the key
    item_lines: dict[str, list[int]]  # top-level key -> line of each list item
    topic_lines: dict[str, int]  # topic sub-key -> line
    body: str
    body_line: int  # file line of the first body line
    problems: list[Problem] = field(default_factory=list)

    def line(self, key: str) -> int:
        return self.lines.get(key, 1)

    def error(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.label, line, message))

    def warn(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.label, line, message, Severity.WARNING))


# --- reading -------------------------------------------------------------------

_CLOSING_FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)


def _read_page(path: Path, label: str, text: str | None = None) -> _Page | Problem:
    """Parse one page (from ``text`` if given), keeping line numbers; a Problem if it cannot be read at all."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            return Problem(label, 1, f"not UTF-8 text ({error.reason}); save the file as UTF-8")
        except OSError as error:  # a directory or a dangling symlink named *.md
            return Problem(label, 1, f"cannot read the page ({error.strerror}); a paper page must be a file")
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return Problem(label, 1, "page must start with a '---' line opening the YAML front matter")
    closing = _CLOSING_FENCE.search(text, 4)
    if closing is None:
        return Problem(label, 1, "front matter is never closed: add a '---' line after the last field")
    yaml_text = text[4 : closing.start()]
    first_line = 2  # the YAML starts on the line after the opening fence

    try:
        # the importer's reader refuses the same: aliases, anchors, duplicate keys, deep nesting
        check_anchor_free(yaml_text, first_line)
        data, node = compose_yaml(yaml_text, first_line)
    except InputError as error:
        return Problem(label, error.line, error.about("front matter"))
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        return Problem(label, first_line, "front matter must be a YAML mapping of 'field: value' lines")

    lines: dict[str, int] = {}
    item_lines: dict[str, list[int]] = {}
    topic_lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        lines.setdefault(key, first_line + key_node.start_mark.line)
        if isinstance(value_node, yaml.SequenceNode):
            item_lines[key] = [first_line + item.start_mark.line for item in value_node.value]
        if key == "topic" and isinstance(value_node, yaml.MappingNode):
            for sub_key, _ in value_node.value:
                topic_lines[str(sub_key.value)] = first_line + sub_key.start_mark.line

    body_line = text.count("\n", 0, closing.end()) + 2
    return _Page(path, label, data, lines, item_lines, topic_lines, text[closing.end() + 1 :], body_line)


def load_taxonomy(path: Path) -> tuple[dict[str, set[str]], list[Problem]]:
    """Area -> sub-areas, read by the one taxonomy reader the import uses; a problem if it refuses the file."""
    from generator.taxonomy import TaxonomyError
    from generator.taxonomy import load_taxonomy as read_taxonomy

    try:
        taxonomy = read_taxonomy(path)
    except TaxonomyError as error:
        where, _, message = str(error).partition(": ")
        file, _, line = where.rpartition(":")
        return {}, [Problem(file or str(path), int(line) if line.isdigit() else 1, message)]
    return {area: set(subs) for area, subs in taxonomy.areas}, []


# --- one page -----------------------------------------------------------------


def _type_name(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false", type(None): "empty"}.get(
        type(value), type(value).__name__
    )


def _check_text(page: _Page, key: str, required: bool) -> None:
    if key not in page.data:
        if required:
            page.error(1, f"missing required field '{key}'")
        return
    value = page.data[key]
    if not isinstance(value, str):
        page.error(page.line(key), f"field '{key}' must be text, got {_type_name(value)}")
    elif not value.strip():
        page.error(page.line(key), f"field '{key}' is empty")


def _check_flag(page: _Page, key: str) -> None:
    if key in page.data and not isinstance(page.data[key], bool):
        page.error(page.line(key), f"field '{key}' must be true or false, got {page.data[key]!r}")


def _check_fields(page: _Page) -> None:
    data = page.data
    for key in data:
        if str(key) in THEME_FIELDS:
            problem = theme_field_problem(str(key), data[key])
            if problem:
                page.error(page.line(str(key)), problem)
        elif str(key) not in FRONT_MATTER_FIELDS:
            page.warn(page.line(str(key)), f"unknown field '{key}' (kept on the page, not shown on the site); known fields: {', '.join(FRONT_MATTER_FIELDS)}")
    for key in ("id", "slug", "title"):
        _check_text(page, key, required=True)
    _check_text(page, "decision", required=False)
    _check_flag(page, "title_derived")
    _check_flag(page, "abstract_missing")

    if "authors" not in data:
        page.error(1, "missing required field 'authors' (a list of names; [] if unknown)")
    elif not isinstance(data["authors"], list):
        page.error(page.line("authors"), f"field 'authors' must be a list of names, got {_type_name(data['authors'])}")
    else:
        for index, author in enumerate(data["authors"]):
            if not isinstance(author, str) or not author.strip():
                page.error(_item_line(page, "authors", index), f"author #{index + 1} must be a non-empty name, got {author!r}")

    _check_abstract(page)
    _check_links(page)
    _check_sources(page)
    _check_filled_from(page)


def _item_line(page: _Page, key: str, index: int) -> int:
    items = page.item_lines.get(key, [])
    return items[index] if index < len(items) else page.line(key)


def _check_abstract(page: _Page) -> None:
    data = page.data
    missing_flag = data.get("abstract_missing") is True
    if "abstract" in data:
        _check_text(page, "abstract", required=True)
        if missing_flag:
            page.error(page.line("abstract_missing"), "page has an abstract and 'abstract_missing: true'; remove one of them")
    elif not missing_flag:
        page.error(1, "missing field 'abstract' (write 'abstract_missing: true' if no abstract is known)")


def _check_links(page: _Page) -> None:
    links = page.data.get("links")
    if links is None:
        return
    if not isinstance(links, dict):
        page.error(page.line("links"), f"field 'links' must map names to URLs, got {_type_name(links)}")
        return
    for name, url in links.items():
        if not isinstance(url, str) or not re.match(r"^https?://\S+$", url):
            page.error(page.line("links"), f"link '{name}' must be an http(s) URL, got {url!r}")


def _check_sources(page: _Page) -> None:
    sources = page.data.get("sources")
    if "sources" not in page.data:
        page.error(1, "missing required field 'sources' (the listing entries this paper was read from)")
        return
    if not isinstance(sources, list):
        page.error(page.line("sources"), f"field 'sources' must be a list, got {_type_name(sources)}")
        return
    for index, source in enumerate(sources):
        line = _item_line(page, "sources", index)
        if not isinstance(source, dict):
            page.error(line, f"source #{index + 1} must be a mapping with 'file', 'entry' and 'format'")
            continue
        if not isinstance(source.get("file"), str) or not source["file"].strip():
            page.error(line, f"source #{index + 1} needs a 'file' name")
        entry = source.get("entry")
        if isinstance(entry, bool) or not isinstance(entry, int) or entry < 0:
            page.error(line, f"source #{index + 1} needs a whole-number 'entry', got {entry!r}")
        if "format" in source and not isinstance(source["format"], str):
            page.error(line, f"source #{index + 1} 'format' must be text, got {source['format']!r}")


FILL_FIELDS = ("title", "authors", "abstract", "decision", "topic")


def _check_filled_from(page: _Page) -> None:
    """Provenance of reference fills: written by the importer, but a page can be edited by hand."""
    if "filled_from" not in page.data:
        return
    fills = page.data["filled_from"]
    if not isinstance(fills, list):
        page.error(page.line("filled_from"), f"field 'filled_from' must be a list, got {_type_name(fills)}")
        return
    for index, fill in enumerate(fills):
        line = _item_line(page, "filled_from", index)
        where = f"filled_from #{index + 1}"
        if not isinstance(fill, dict):
            page.error(line, f"{where} must be a mapping with 'reference', 'record', 'match', 'score' and 'fields'")
            continue
        if not isinstance(fill.get("reference"), str) or not fill["reference"].strip():
            page.error(line, f"{where} needs a 'reference' file name")
        record = fill.get("record")
        if isinstance(record, bool) or not isinstance(record, int) or record < 1:
            page.error(line, f"{where} needs a whole-number 'record' (1 or more), got {record!r}")
        score = fill.get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
            page.error(line, f"{where} 'score' must be a number from 0 to 1, got {score!r}")
        if "match" in fill and not isinstance(fill["match"], str):
            page.error(line, f"{where} 'match' must be text, got {fill['match']!r}")
        fields = fill.get("fields")
        if not isinstance(fields, list) or not all(
            isinstance(name, str) and (name in FILL_FIELDS or name.startswith("links.")) for name in fields
        ):
            page.error(line, f"{where} 'fields' must list field names ({', '.join(FILL_FIELDS)}, links.<name>), got {fields!r}")


def _check_topic(page: _Page, taxonomy: dict[str, set[str]]) -> None:
    if "topic" not in page.data or page.data["topic"] is None:
        return
    topic = page.data["topic"]
    line = page.line("topic")
    if not isinstance(topic, dict):
        page.error(line, f"field 'topic' must be a mapping with 'area' (and 'subarea', 'source'), got {_type_name(topic)}")
        return

    def sub_line(key: str) -> int:
        return page.topic_lines.get(key, line)

    for key in topic:
        if key not in TOPIC_FIELDS:
            page.error(sub_line(str(key)), f"unknown topic field '{key}'; expected some of {', '.join(TOPIC_FIELDS)}")
    source = topic.get("source", "maintainer")
    if source not in TOPIC_SOURCES:
        page.error(sub_line("source"), f"topic source must be one of {', '.join(TOPIC_SOURCES)}, got {source!r}")
    for key in ("confidence", "area_confidence"):
        confidence = topic.get(key)
        if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1):
            page.error(sub_line(key), f"topic {key.replace('_', ' ')} must be a number from 0 to 1, got {confidence!r}")

    area, subarea = topic.get("area"), topic.get("subarea")
    if not isinstance(area, str) or not area.strip():
        page.error(sub_line("area"), f"topic needs a non-empty 'area', got {area!r}")
        return
    if subarea is not None and not isinstance(subarea, str):
        page.error(sub_line("subarea"), f"topic subarea must be text, got {subarea!r}")
        return
    if not taxonomy:
        return
    # The conference's own words (a listing's topic line, a reference's label) are kept with a
    # warning; only topics a person or the model chose must be in the taxonomy.
    report = page.warn if source in ("listing", "conference") else page.error
    if area not in taxonomy:
        report(sub_line("area"), f"topic area {area!r} is not in the taxonomy; expected one of {', '.join(sorted(taxonomy))}")
    elif subarea and subarea not in taxonomy[area]:
        choices = ", ".join(sorted(taxonomy[area])) or "none (use the area alone)"
        report(sub_line("subarea"), f"topic subarea {subarea!r} is not in area {area!r} of the taxonomy; expected one of {choices}")


def _check_keywords(page: _Page) -> None:
    if "keywords" not in page.data:
        return
    keywords = page.data["keywords"]
    if keywords is None:
        return
    if not isinstance(keywords, list):
        page.error(page.line("keywords"), f"field 'keywords' must be a list, got {_type_name(keywords)}")
        return
    seen: dict[str, int] = {}
    for index, keyword in enumerate(keywords):
        line = _item_line(page, "keywords", index)
        if not isinstance(keyword, str):
            page.error(line, f"keyword {keyword!r} must be text (quote it)")
            continue
        if not keyword.strip():
            page.error(line, "keyword is empty")
            continue
        if keyword != keyword.strip():
            page.error(line, f"keyword {keyword!r} has leading or trailing spaces")
        folded = keyword.strip().casefold()
        if folded in seen:
            page.error(line, f"keyword {keyword!r} repeats keyword #{seen[folded] + 1} (keywords are compared ignoring case)")
        else:
            seen[folded] = index


def _check_slug_matches_file(page: _Page) -> None:
    slug = page.data.get("slug")
    if not isinstance(slug, str) or not slug:
        return
    if not SLUG_PATTERN.match(slug):
        page.error(page.line("slug"), f"slug {slug!r} must be lowercase letters, digits and single hyphens")
    elif slug in RESERVED_SLUGS:
        page.error(page.line("slug"), f"slug {slug!r} is reserved (a section page, an engine file or a Windows device name); use {slug}-paper")
    if slug != page.path.stem:
        page.error(page.line("slug"), f"slug {slug!r} differs from the file name; rename the file to {slug}.md or fix the slug")


# --- across pages -------------------------------------------------------------


def _check_duplicates(pages: list[_Page], key: str) -> None:
    """Every page sharing a value hears about the others: either one may be the one to fix."""
    groups: dict[str, list[_Page]] = {}
    for page in pages:
        value = page.data.get(key)
        if isinstance(value, str) and value:
            groups.setdefault(value, []).append(page)
    for value, group in groups.items():
        if len(group) < 2:
            continue
        for page in group:
            others = ", ".join(f"{o.label}:{o.line(key)}" for o in group if o is not page)
            page.error(page.line(key), f"duplicate {key} {value!r}: also used by {others}")


@dataclass(frozen=True)
class _SiteIndex:
    """What URLs the built site will have, for checking links in bodies."""

    docs_dir: Path
    papers_rel: str
    paper_slugs: frozenset[str]
    topic_paths: frozenset[str]
    keyword_slugs: frozenset[str]
    author_slugs: frozenset[str]

    def has_url(self, url_path: str) -> bool:
        parts = [p for p in url_path.strip("/").split("/") if p]
        if not parts:
            return True
        section, rest = parts[0], parts[1:]
        if section == self.papers_rel and len(rest) == 1:
            return rest[0] in self.paper_slugs
        if section == "topics" and rest:
            return "/".join(rest) in self.topic_paths
        if section == "keywords" and len(rest) == 1:
            return rest[0] in self.keyword_slugs
        if section == "authors" and len(rest) == 1:
            return rest[0] in self.author_slugs
        if not rest and section in GENERATED_SECTIONS:
            return True
        return self.has_source("/".join(parts))

    def has_source(self, rel: str) -> bool:
        rel = rel.rstrip("/")
        candidates = [rel, f"{rel}.md", f"{rel}/index.md", f"{rel}/README.md"]
        return any((self.docs_dir / c).is_file() for c in candidates if c)


def _site_index(config: ProjectConfig, pages: list[_Page], cache: Any = None) -> _SiteIndex:
    """The URLs the build will make, from the same catalogue the build makes of the pages that parse.

    Slugs are handed out by the catalogue ("C++" and "C#" are keywords/c/ and keywords/c-2/), so
    guessing them with slugify would reject links to pages that exist. ``cache.site_urls(inputs,
    compute)`` may answer for the catalogue's URLs when the records' names are those it has seen.
    """
    records = []
    for page in pages:
        try:
            records.append(PaperRecord.from_front_matter(page.data, path=page.label))
        except RecordError:
            continue  # reported as a problem of its own page
    if cache is None:
        topic_paths, keyword_slugs, author_slugs = _catalog_urls(records)
    else:  # what build_catalog's slugs depend on
        inputs = repr([(r.authors, r.keywords, r.topic.area if r.topic else None, r.topic.subarea if r.topic else None)
                       for r in records])
        topic_paths, keyword_slugs, author_slugs = cache.site_urls(inputs, lambda: _catalog_urls(records))
    slugs = {p.data["slug"] for p in pages if isinstance(p.data.get("slug"), str)}
    return _SiteIndex(
        config.docs_dir,
        PAPERS_SECTION,  # where paper pages are served, not where their files sit
        frozenset(slugs),
        topic_paths,
        keyword_slugs,
        author_slugs,
    )


def _catalog_urls(records: list[PaperRecord]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(topic paths, keyword slugs, author slugs) of the catalogue of ``records``."""
    from generator.site.catalog import build_catalog

    catalog = build_catalog(records)
    topic_paths = {area.slug for area in catalog.areas}
    topic_paths.update(f"{area.slug}/{sub.slug}" for area in catalog.areas for sub in area.subareas)
    return (
        frozenset(topic_paths),
        frozenset(k.slug for k in catalog.keywords),
        frozenset(a.slug for a in catalog.authors),
    )


_FENCED_CODE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_INLINE_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
_HTML_LINK = re.compile(r"""<a\s[^>]*href\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


def _blank_code(body: str) -> str:
    """Code samples may show links that are not meant to resolve; keep line breaks."""

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    return _INLINE_CODE.sub(blank, _FENCED_CODE.sub(blank, body))


def _check_body_links(page: _Page, site: _SiteIndex) -> None:
    if not page.body.strip():
        return
    body = _blank_code(page.body)
    slug = page.data.get("slug") if isinstance(page.data.get("slug"), str) else page.path.stem
    page_url = f"/{site.papers_rel}/{slug}/"
    for pattern in (_INLINE_LINK, _REFERENCE_DEF, _HTML_LINK):
        for match in pattern.finditer(body):
            target = match.group(1)
            line = page.body_line + body.count("\n", 0, match.start(1))
            if not _link_resolves(target, page, site, page_url):
                page.error(line, f"link {target!r} points to a page that does not exist")


def _link_resolves(target: str, page: _Page, site: _SiteIndex, page_url: str) -> bool:
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path:
        return True  # external, mailto:, or a bare #anchor: not ours to verify
    path = unquote(parts.path)
    if posixpath.splitext(path.rstrip("/"))[1]:
        return _file_link_resolves(path, page, site)
    # A directory-style URL: the browser resolves it against the page's URL.
    absolute = path if path.startswith("/") else posixpath.normpath(posixpath.join(page_url, path))
    if absolute.startswith("/.."):
        return False
    return site.has_url(absolute)


def _file_link_resolves(path: str, page: _Page, site: _SiteIndex) -> bool:
    """A link to a file (page.md, figure.png): MkDocs resolves it against the source file."""
    if path.startswith("/"):
        rel = path.lstrip("/")
    else:
        try:
            page_dir = page.path.parent.resolve().relative_to(site.docs_dir.resolve()).as_posix()
        except ValueError:
            page_dir = site.papers_rel
        rel = posixpath.normpath(posixpath.join(page_dir, path))
    if rel.startswith("../") or rel == "..":
        return False
    if rel.endswith(".md"):
        papers_prefix = f"{site.papers_rel}/"
        if rel.startswith(papers_prefix) and "/" not in rel[len(papers_prefix) :]:
            return rel[len(papers_prefix) : -3] in site.paper_slugs
    return (site.docs_dir / rel).is_file()


def _check_body_markup(page: _Page) -> None:
    """Raw HTML, attribute lists, script URLs and control characters: the build would neutralise them."""
    for offset, message in scan_body(page.body)[1]:
        page.error(page.body_line + offset, message)


# --- entry points -------------------------------------------------------------


def display_path(path: Path, root: Path) -> str:
    """A path as messages print it: relative to the project root when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def paper_page_paths(config: ProjectConfig) -> list[Path]:
    if not config.papers_dir.is_dir():
        return []
    return sorted(config.papers_dir.glob("*.md"))


def _check_page(path: Path, label: str, text: str | None, taxonomy: dict[str, set[str]]) -> _Page | Problem:
    """One page read and given the checks that need only the page (and the taxonomy)."""
    page = _read_page(path, label, text)
    if isinstance(page, _Page):
        _check_fields(page)
        _check_topic(page, taxonomy)
        _check_keywords(page)
        _check_slug_matches_file(page)
    return page


def check_pages(
    config: ProjectConfig,
    paths: Iterable[Path] | None = None,
    texts: Mapping[Path, str] | None = None,
    cache: Any = None,
) -> list[Problem]:
    """Every problem in the paper pages (errors and warnings), sorted by file and line.

    ``texts`` stands in for the files it names: ``papersite correct`` checks a
    page as it would be written, among all the others, before writing it.
    ``cache`` (``papersite build``: ``generator/site/pagecache.CheckedPages``) may
    answer for work on what it has seen: ``cache.page(path, label, check)`` for
    ``check()`` of a page whose bytes are unchanged (a fresh copy: the checks
    across pages add problems to it), and ``cache.site_urls`` (``_site_index``).
    """
    taxonomy, problems = load_taxonomy(config.taxonomy_file)
    pages: list[_Page] = []
    texts = texts or {}
    for path in paper_page_paths(config) if paths is None else paths:
        label = display_path(path, config.root)
        if cache is not None and path not in texts:
            read = cache.page(path, label, lambda path=path, label=label: _check_page(path, label, None, taxonomy))
        else:
            read = _check_page(path, label, texts.get(path), taxonomy)
        if isinstance(read, Problem):
            problems.append(read)
        else:
            pages.append(read)
    _check_duplicates(pages, "id")
    _check_duplicates(pages, "slug")
    site = _site_index(config, pages, cache)
    for page in pages:
        _check_body_links(page, site)
        _check_body_markup(page)
        problems.extend(page.problems)
    return sorted(problems)


def github_annotation(problem: Problem) -> str:
    """The problem as a GitHub Actions workflow command: the pull request shows it on the page's line."""

    def escape(text: str, in_property: bool = False) -> str:
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return text.replace(":", "%3A").replace(",", "%2C") if in_property else text

    command = "error" if problem.is_error else "warning"
    return f"::{command} file={escape(problem.path, True)},line={problem.line}::{escape(problem.message)}"


def errors_only(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.is_error]


def run_check(args: argparse.Namespace, config: ProjectConfig) -> int:
    started = time.perf_counter()
    count = len(paper_page_paths(config))
    problems = check_pages(config)
    github = getattr(args, "format", "text") == "github"
    for problem in problems:
        print(github_annotation(problem) if github else problem)
    errors = len(errors_only(problems))
    warnings = len(problems) - errors
    elapsed = time.perf_counter() - started
    where = display_path(config.papers_dir, config.root)
    if errors:
        files = len({p.path for p in problems if p.is_error})
        print(
            f"papersite check: {errors} error(s), {warnings} warning(s) in {files} file(s); "
            f"{count} page(s) in {where} checked in {elapsed:.2f}s",
            file=sys.stderr,
        )
        return 1
    note = f", {warnings} warning(s)" if warnings else ""
    print(f"papersite check: OK, {count} page(s) in {where}{note} ({elapsed:.2f}s)")
    return 0
