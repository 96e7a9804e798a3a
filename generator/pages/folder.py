"""The papers folder: every paper page read once, with every problem found on the way.

In:  the project config (``papers_dir``), optionally texts that stand in for files.
Out: ``Pages``: the page files whose front matter parsed (each with its record
     when its fields are valid) and the problems, errors and warnings, sorted by
     file and line: unreadable files, field problems (``schema.py``), an id or a
     slug two pages share.

Import, check, eval and build all read pages here, so each sees the same pages
and the same problems; each decides what an error means for it (import and
build refuse to go on, eval skips the page, check prints them all).

``docs_files`` is the other half of the docs folder: the hand-written pages and
assets the stage copies into the site, found once here so that ``check`` refuses
what the build would refuse (a symlink out of the project, a FIFO).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from generator.config import ProjectConfig
from generator.inputs import lies_inside, outside_problem, readable_file
from generator.pages.frontmatter import FrontMatter, decode_text, parse_front_matter, read_text
from generator.pages.record import IDENTITY_FIELDS, PaperRecord, field_problems, valid_record
from generator.problems import PapersiteError, Problem, errors_only



@dataclass(frozen=True)
class Page:
    """One page file whose front matter parsed."""

    path: Path | None  # None in a page checks' memo (``check.own_checks``): read_pages gives it its path
    front: FrontMatter
    record: PaperRecord | None  # None while its fields have errors
    # the check's own findings in it were made as it was parsed (``check.own_checks``): ``own_findings``, which
    # the check reports (a reader of the pages sees its fields' problems only); its front matter holds only
    # what the checks across pages read
    checked_alone: bool = False
    own_findings: tuple[Problem, ...] = ()


@dataclass
class Pages:
    pages: list[Page] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def records(self) -> list[PaperRecord]:
        """The records of the pages whose fields are valid, in file order."""
        return [page.record for page in self.pages if page.record is not None]

    def errors(self) -> list[Problem]:
        return errors_only(self.problems)

    def raise_errors(self) -> None:
        """For stages that cannot go on from a page they cannot trust."""
        errors = self.errors()
        if errors:
            raise PapersiteError(*errors)


def display_path(path: Path, root: Path) -> str:
    """A path as messages print it: relative to the project root when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def page_paths(config: ProjectConfig, paths: Iterable[Path] | None = None) -> list[Path]:
    """The page files (or of ``paths``) papersite may read (``inputs.readable_file``); ``read_pages`` reports the others."""
    return [path for path in (page_files(config) if paths is None else paths) if _readable(path, config.root)]


def page_files(config: ProjectConfig) -> list[Path]:
    """Every ``*.md`` file of the papers dir, readable or not."""
    # by name: one folder's files in Path order, without Path comparisons (a second at 11,672 pages)
    return [config.papers_dir / name for name in page_names(config)]


def page_names(config: ProjectConfig) -> list[str]:
    """The names of ``page_files``, in their order."""
    return sorted(_page_names(config))


def page_count(config: ProjectConfig) -> int:
    """How many ``page_files`` there are (without making their paths)."""
    return len(_page_names(config))


def _page_names(config: ProjectConfig) -> list[str]:
    if not config.papers_dir.is_dir():
        return []
    with os.scandir(config.papers_dir) as entries:
        return [e.name for e in entries if e.name.endswith(".md")]


def _readable(path: Path, root: Path) -> bool:
    try:
        readable_file(path, root)
    except PapersiteError:
        return False
    return True


def docs_files(config: ProjectConfig, skip: Iterable[Path] = ()) -> tuple[dict[str, Path], list[Problem]]:
    """docs_dir's files as the stage copies them (relative path -> file), minus the paper pages
    and dot-files, and the problem of each file papersite may not read (``inputs.readable_file``).

    Folders linked from inside the project are followed as MkDocs follows them (each real
    folder once: a link to a parent is no loop); ``skip``: folders never walked (the build's own)."""
    files: dict[str, Path] = {}
    problems: list[Problem] = []
    if not config.docs_dir.is_dir():
        return files, problems
    skip = {Path(os.path.realpath(s)) for s in skip}
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(config.docs_dir, followlinks=True):
        here = Path(dirpath)
        in_papers = here == config.papers_dir  # its pages are the paper pages (11,672 names not made paths)
        seen.add(os.path.realpath(here))
        kept = []
        for name in sorted(dirnames):
            folder = here / name
            if name.startswith(".") or Path(os.path.realpath(folder)) in skip:
                continue
            problem = outside_problem(folder, config.root)
            if problem is not None:
                problems.append(Problem(display_path(folder, config.root), 1, problem))
            elif os.path.realpath(folder) not in seen:
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if name.startswith(".") or (in_papers and name.endswith(".md") and name != ".md"):
                continue
            path = here / name
            try:
                readable_file(path, config.root, display_path(path, config.root))
            except PapersiteError as error:
                problems.extend(error.problems)
                continue
            files[path.relative_to(config.docs_dir).as_posix()] = path
    return files, problems


class PageMemo(Protocol):
    """What a build kept of pages it read (``site/memo.py``): a value per unchanged page."""

    def page(self, path: Path, label: str, compute: Callable[[bytes | None], Any]) -> Any: ...


def read_pages(
    config: ProjectConfig,
    paths: Iterable[Path] | None = None,
    texts: Mapping[Path, str] | None = None,
    cache: PageMemo | None = None,
    lstat: Callable[[Path], os.stat_result] = os.lstat,
) -> Pages:
    """Every page of ``papers_dir`` (or of ``paths``); ``texts`` stand in for the files they name.

    With a ``cache`` a page whose bytes did not change since the last build is not parsed again.
    ``lstat``: ``os.lstat``, or the build's (``FileHashes.lstat_of``: one a page for its stamps and its check).
    """
    found = Pages()
    texts = texts or {}
    # A regular file (not a link) in the papers folder, itself inside the project, passes
    # ``readable_file``: one lstat instead of resolving every page's path (seconds at 11,672 pages).
    folder_inside = lies_inside(config.papers_dir, config.root)
    labels = PageLabels(config)
    # every page of the folder (the build's case): each in it by construction, none stood in for by a text, so
    # no page's path is split, compared or hashed for that (a fifth of reading 11,672 kept pages)
    whole_folder = paths is None and not texts
    for path in page_files(config) if paths is None else paths:
        label = labels.of(path, in_folder=whole_folder)
        in_folder = whole_folder or path.parent == config.papers_dir
        if (whole_folder or path not in texts) and not (folder_inside and in_folder and _regular(path, lstat)):
            try:  # before any read: a FIFO would hang it, a link out of the project would publish its target
                readable_file(path, config.root, label)
            except PapersiteError as error:
                found.problems.extend(_as_page_problem(error))
                continue
        if not whole_folder and path in texts:
            page, problems = _read_one(path, label, texts[path])
        elif cache is not None:
            page, problems = cache.page(path, label, lambda data, path=path, label=label: _read_one(path, label, None, data))
        else:
            page, problems = _read_one(path, label, None)
        found.problems.extend(problems)
        if page is not None:  # the path of today's project, not of the build that cached the page
            found.pages.append(Page(path, page.front, page.record, page.checked_alone, page.own_findings))
    for key in IDENTITY_FIELDS:
        found.problems.extend(_shared(found.pages, key))
    found.problems.sort()
    return found


class PageLabels:
    """``display_path`` of each page, by string for those in the papers folder: ``relative_to`` was
    half of reading 11,672 kept pages."""

    def __init__(self, config: ProjectConfig) -> None:
        self.config = config
        self.folder = config.papers_dir
        inside = self.folder.is_relative_to(config.root)
        self.prefix = display_path(self.folder, config.root) + "/" if inside and self.folder != config.root else "" if inside else None

    def of_name(self, name: str) -> str:
        """``of`` the page called ``name`` in the papers folder (no path made)."""
        return self.prefix + name if self.prefix is not None else display_path(self.folder / name, self.config.root)

    def of(self, path: Path, in_folder: bool = False) -> str:
        """``in_folder``: the caller knows ``path`` is in the papers folder."""
        if self.prefix is not None and (in_folder or path.parent == self.folder):
            return self.prefix + path.name
        return display_path(path, self.config.root)


def _regular(path: Path, lstat: Callable[[Path], os.stat_result] = os.lstat) -> bool:
    try:
        return stat.S_ISREG(lstat(path).st_mode)
    except OSError:
        return False


def _as_page_problem(error: PapersiteError) -> list[Problem]:
    return [Problem(p.path, p.line, f"cannot read the page: it {p.message}", p.severity) for p in error.problems]


def record_of_bytes(path: Path, label: str, data: bytes) -> PaperRecord | None:
    """The record of a page holding ``data``, as ``read_pages`` reads it; None for a page with errors."""
    page, _ = _read_one(path, label, None, data)
    return page.record if page is not None else None


def _read_one(path: Path, label: str, text: str | None, data: bytes | None = None) -> tuple[Page | None, list[Problem]]:
    """One page (from ``text``, its ``data`` or its file) and its own problems; no page when it is not a page at all."""
    try:
        if text is None:
            text = read_text(path, label) if data is None else decode_text(data, label)
        front = parse_front_matter(text, label)
    except PapersiteError as error:
        return None, error.problems
    problems = field_problems(front)
    return Page(path, front, None if errors_only(problems) else valid_record(front)), problems


def _shared(pages: list[Page], key: str) -> list[Problem]:
    """Every page sharing a value hears about the others: either one may be the one to fix."""
    groups: dict[str, list[Page]] = {}
    for page in pages:
        value = page.front.data.get(key)
        if isinstance(value, str) and value:
            groups.setdefault(value, []).append(page)
    problems = []
    for value, group in groups.items():
        if len(group) < 2:
            continue
        for page in group:
            others = ", ".join(f"{o.front.label}:{o.front.line(key)}" for o in group if o is not page)
            problems.append(Problem(page.front.label, page.front.line(key), f"duplicate {key} {value!r}: also used by {others}"))
    return problems
