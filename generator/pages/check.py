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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from generator.config import ProjectConfig, nav_problems, theme_config_problems
from generator.pages.folder import Page, Pages, display_path, docs_files, page_paths, read_pages
from generator.pages.frontmatter import FrontMatter
from generator.pages.markup import scan_body
from generator.pages.record import IDENTITY_FIELDS
from generator.pages.schema import TOPIC_SOURCES, topic_problem
from generator.problems import PapersiteError, Problem, Severity, errors_only
from generator.layout import AREA, AUTHOR, KEYWORD, PAPER, PAPERS_SECTION, RESERVED_SLUGS, SUBAREA, route_of

SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# Site sections that exist without a source file in docs_dir (generated at build time).
# Sections that are not papersite's routes: the engine's search page, and the About page every project has.
ENGINE_SECTIONS = frozenset({"about", "search"})


@dataclass
class _Page:
    """A page that parsed, and what the checks beyond its own fields find in it."""

    page: Page
    problems: list[Problem] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.page.path

    @property
    def data(self) -> dict:
        return self.page.front.data

    def line(self, key: str, sub: str | None = None) -> int:
        return self.page.front.line(key, sub)

    def error(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.page.front.label, line, message))

    def warn(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.page.front.label, line, message, Severity.WARNING))


def load_taxonomy(path: Path) -> tuple[dict[str, set[str]], list[Problem]]:
    """Area -> sub-areas, read by the one taxonomy reader the import uses; a problem if it refuses the file."""
    from generator.enrich.taxonomy import load_taxonomy as read_taxonomy

    try:
        taxonomy = read_taxonomy(path)
    except PapersiteError as error:
        return {}, error.problems
    return {area: set(subs) for area, subs in taxonomy.areas}, []


# --- one page, beyond its own fields (schema.py) ----------------------------------


def _check_topic(page: _Page, taxonomy: dict[str, set[str]]) -> None:
    """Whether a well-formed topic is in the taxonomy (its shape is the schema's to check)."""
    topic = page.data.get("topic")
    if not isinstance(topic, dict) or not taxonomy:
        return
    source = topic.get("source", "maintainer")
    area, subarea = topic.get("area"), topic.get("subarea")
    if source not in TOPIC_SOURCES or not isinstance(area, str) or not area.strip():
        return
    if subarea is not None and not isinstance(subarea, str) or topic_problem(area, subarea or None):
        return  # malformed: the schema said so
    # The conference's own words (a listing's topic line, a reference's label) are kept with a
    # warning; only topics a person or the model chose must be in the taxonomy.
    report = page.warn if source in ("listing", "conference") else page.error
    if area not in taxonomy:
        report(page.line("topic", "area"), f"topic area {area!r} is not in the taxonomy; expected one of {', '.join(sorted(taxonomy))}")
    elif subarea and subarea not in taxonomy[area]:
        choices = ", ".join(sorted(taxonomy[area])) or "none (use the area alone)"
        report(page.line("topic", "subarea"), f"topic subarea {subarea!r} is not in area {area!r} of the taxonomy; expected one of {choices}")


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
        routed = route_of(url_path)
        if routed is not None:
            route, values = routed
            known = {
                PAPER: self.paper_slugs, AUTHOR: self.author_slugs, KEYWORD: self.keyword_slugs,
                AREA: self.topic_paths, SUBAREA: self.topic_paths,
            }.get(route)
            if known is None:  # a section page: always made
                return True
            return "/".join(values) in known
        parts = [p for p in url_path.strip("/").split("/") if p]
        if len(parts) == 1 and parts[0] in ENGINE_SECTIONS:
            return True
        return self.has_source("/".join(parts))

    def has_source(self, rel: str) -> bool:
        rel = rel.rstrip("/")
        candidates = [rel, f"{rel}.md", f"{rel}/index.md", f"{rel}/README.md"]
        return any((self.docs_dir / c).is_file() for c in candidates if c)


def _site_index(config: ProjectConfig, pages: list[_Page], records: list, cache: Any = None) -> _SiteIndex:
    """The URLs the build will make, from the same catalogue the build makes of the pages that parse.

    Slugs are handed out by the catalogue ("C++" and "C#" are keywords/c/ and keywords/c-2/), so
    guessing them with slugify would reject links to pages that exist. ``cache.site_urls(inputs,
    compute)`` may answer for the catalogue's URLs when the records' names are those it has seen.
    """
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


def _catalog_urls(records: list) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(topic paths, keyword slugs, author slugs) of the catalogue of ``records``."""
    from generator.catalog import build_catalog

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
    if not page.page.front.body.strip():
        return
    body = _blank_code(page.page.front.body)
    slug = page.data.get("slug") if isinstance(page.data.get("slug"), str) else page.path.stem
    page_url = "/" + PAPER.url(slug)
    for pattern in (_INLINE_LINK, _REFERENCE_DEF, _HTML_LINK):
        for match in pattern.finditer(body):
            target = match.group(1)
            line = page.page.front.body_line + body.count("\n", 0, match.start(1))
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
    for offset, message in scan_body(page.page.front.body)[1]:
        page.error(page.page.front.body_line + offset, message)


# --- entry points -------------------------------------------------------------


def check_pages(
    config: ProjectConfig,
    paths: Iterable[Path] | None = None,
    texts: Mapping[Path, str] | None = None,
    cache: Any = None,
    found: Pages | None = None,
) -> list[Problem]:
    """Every problem in the paper pages (errors and warnings), sorted by file and line.

    ``texts`` stands in for the files it names: ``papersite correct`` checks a
    page as it would be written, among all the others, before writing it.
    ``cache`` (``papersite build``: ``site/memo.CheckedPages``) answers for
    pages whose bytes are unchanged (``read_pages``) and for the site's URLs. ``found``: the
    pages as the caller read them (``papersite build`` stages the very pages it checked).
    """
    taxonomy, problems = load_taxonomy(config.taxonomy_file)
    if found is None:
        found = read_pages(config, paths, texts, cache)
    problems += found.problems
    pages = [_Page(page) for page in found.pages]
    for page in pages:
        if page.page.checked_alone:
            page.problems.extend(page.page.own_findings)
        else:
            _own_checks(page, taxonomy)
    site = _site_index(config, pages, found.records, cache)
    for page in pages:
        _check_body_links(page, site)
        problems.extend(page.problems)
    return sorted(problems)


def _own_checks(page: _Page, taxonomy: dict[str, set[str]]) -> None:
    """What the check finds in a page alone, beside its fields' own problems (schema.py)."""
    _check_topic(page, taxonomy)
    _check_slug_matches_file(page)
    _check_body_markup(page)


OwnChecks = Callable[[tuple[Page | None, list[Problem]]], tuple[Page | None, list[Problem]]]


def own_checks(config: ProjectConfig) -> OwnChecks:
    """(a page as it parsed, its problems) -> the page checked alone (``Page.checked_alone``, with the check's own
    findings in it: ``Page.own_findings``) and the same problems: what a memo of checked pages keeps
    (``site/memo.CheckedPages``), so that a build neither checks an unchanged page again nor reads back its whole
    front matter (a fifth of the memo's 35 MB at 11,672 papers). The findings depend on the page's bytes, its path and
    the taxonomy, which the memo is kept for; they stay the check's to report, as they were (a build's stage refuses
    the pages whose own fields have errors, and renders safely what the check would refuse)."""
    taxonomy: dict[str, set[str]] | None = None

    def checked(read: tuple[Page | None, list[Problem]]) -> tuple[Page | None, list[Problem]]:
        nonlocal taxonomy
        if not (isinstance(read, tuple) and len(read) == 2 and isinstance(read[0], Page)) or read[0].checked_alone:
            return read  # no page (a file that is none: its problem), or checked already
        page, problems = read
        if taxonomy is None:
            taxonomy = load_taxonomy(config.taxonomy_file)[0]
        own = _Page(page)
        _own_checks(own, taxonomy)
        front = page.front
        across = FrontMatter(front.label, {key: front.data[key] for key in IDENTITY_FIELDS if key in front.data}, front.body,
                             front.body_line, {key: front.key_lines[key] for key in IDENTITY_FIELDS if key in front.key_lines})
        # no path: ``read_pages`` gives each page read through the memo its path of today, and unpickling a path
        # a page was a fifth of reading the memo's 29 MB at 11,672 papers
        return Page(None, across, page.record, checked_alone=True, own_findings=tuple(own.problems)), problems

    return checked


def project_file_problems(config: ProjectConfig) -> list[Problem]:
    """What the build would refuse to read beside the pages: a file of docs_dir or corpus_dir
    linked out of the project, a FIFO or device among them (``inputs.readable_file``), and a
    papers folder that is not there (checking nothing is no OK), and markup in the theme's text settings
    (``config.theme_config_problems``)."""
    from generator.ingest.corpus import corpus_files

    if not config.papers_dir.is_dir():
        where = display_path(config.papers_dir, config.root)
        return [Problem(where, 1, "the papers folder (papers_dir) does not exist; run `papersite import` first, "
                        "or check --project and papersite.yml")]
    pages, problems = docs_files(config, skip=(config.build_dir, config.site_dir))
    hand_written = {path: display_path(file, config.root) for path, file in pages.items()}
    return problems + corpus_files(config)[1] + theme_config_problems(config.root) + nav_problems(config.root, hand_written)


def run_check(args: argparse.Namespace, config: ProjectConfig) -> int:
    started = time.perf_counter()
    count = len(page_paths(config))
    problems = sorted(project_file_problems(config) + check_pages(config))
    github = getattr(args, "format", "text") == "github"
    for problem in problems:
        print(problem.github_annotation() if github else problem)
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
