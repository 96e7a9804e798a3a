"""Project configuration: where a site's listings, pages and outputs live.

Read from ``papersite.yml`` at the project root (every key optional); paths in
it are relative to that root. One ``ProjectConfig`` is built per command and
passed down explicitly: no stage reads configuration on its own.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from generator.ingest.authors import SOURCE_ORDERS
from generator.ingest.csv_listing import COLUMN_NAMES
from generator.pages.record import AUTHORITY_FIELDS  # what a reference may be made the authority for
from generator.layout import MAP, SAVED, is_web_url
from generator.inputs import InputError, load_yaml_with_lines, outside_problem, read_regular_text, readable_file
from generator.problems import PapersiteError, Problem
from generator.text import invisible_characters

CONFIG_FILE = "papersite.yml"


@dataclass(frozen=True)
class VenueSettings:
    """The venue the site's papers were submitted to, for citations.

    ``name`` is the full name citations use ("International Conference on
    Learning Representations"), ``short`` the acronym and year readers know
    ("ICLR 2025"); both default to what the site name says.
    """

    name: str | None = None
    short: str | None = None
    year: str | None = None




@dataclass(frozen=True)
class SourceSettings:
    """What papersite.yml says of one listing or reference file (by file name).

    ``author_order``: whether its author lists are the papers' order (``paper``), sorted
    (``alphabetical``), in some other order (``unknown``), or to be measured (``detect``:
    ``ingest/authors.py``). ``authority``: the fields whose value a reference catalogue
    decides over the listings' (``AUTHORITY_FIELDS``); empty for a listing. ``columns``: for a
    CSV/TSV listing whose headers papersite does not know, the header of each of our fields
    (``csv_listing.COLUMN_NAMES`` names the fields), as (field, header) pairs.
    """

    author_order: str = "detect"
    authority: tuple[str, ...] = ()
    columns: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ProjectConfig:
    root: Path
    corpus_dir: Path
    docs_dir: Path  # the MkDocs docs dir (site_src/)
    papers_dir: Path  # paper pages, inside docs_dir
    state_file: Path  # what the last import proposed, for three-way merges
    taxonomy_file: Path  # two-level subject areas
    site_dir: Path  # built site
    build_dir: Path  # scratch: staged docs for the engine
    site_name: str
    site_url: str | None  # where the site is published, e.g. https://owner.github.io/repo/ (canonical links, sitemap)
    repo_url: str | None  # e.g. https://github.com/owner/repo, for edit / issue links
    repo_branch: str
    # Reference catalogues: files that complete what listings say about their papers
    # (authors, titles, links, decisions); they never add a paper.
    references: tuple[Path, ...] = ()
    venue: VenueSettings = VenueSettings()
    # By file name: what a listing (``listings:``) or reference (``references:``) entry declares.
    source_settings: tuple[tuple[str, SourceSettings], ...] = ()
    # Reference matches a maintainer settled (right / wrong): ``ingest/settled.py``.
    settled_matches: Path | None = None

    def source(self, name: str) -> SourceSettings:
        """The settings of the listing or reference file called ``name`` (defaults when not named)."""
        return dict(self.source_settings).get(name, SourceSettings())

    def engine_settings(self) -> dict[str, str]:
        """The MkDocs settings papersite.yml drives, so that each is written in one place only."""
        settings = {"site_url": self.site_url} if self.site_url else {}
        if self.repo_url:
            docs = self.docs_dir.relative_to(self.root).as_posix() if self.docs_dir.is_relative_to(self.root) else ""
            settings["repo_url"] = self.repo_url
            settings["repo_name"] = "/".join(self.repo_url.split("/")[-2:])
            settings["edit_uri"] = f"edit/{self.repo_branch}/{docs + '/' if docs else ''}"
        return settings



def bundled_taxonomy() -> Path:
    return Path(str(resources.files("generator") / "data" / "taxonomy.yaml"))


# --------------------------------------------------------------------------- validation
# Settings are checked here, once, so no stage can be handed one that deletes the
# project (site_dir: site_src), points a link at a script, or writes markup.

_PATH_KEYS = ("corpus_dir", "docs_dir", "papers_dir", "state_file", "taxonomy_file", "site_dir", "build_dir", "settled_matches")
_BRANCH = re.compile(r"^[A-Za-z0-9._/-]+$")


def _check_types(values: dict[str, Any], lines: dict[str, int], config_path: Path) -> None:
    def fail(key: str, message: str) -> None:
        raise PapersiteError.at(config_path, lines.get(key, 1), f"{key}: {message}")

    for key in _PATH_KEYS:
        value = values[key]
        if value is not None and (not isinstance(value, str) or not value.strip() or "\x00" in value):
            fail(key, f"must be a path (text), got {value!r}")
    problem = site_name_problem(values["site_name"])
    if problem:
        fail("site_name", problem)
    for key, example in (("repo_url", "https://github.com/OWNER/REPO"), ("site_url", "https://OWNER.github.io/REPO/")):
        url = values.get(key)
        if url is not None and not is_web_url(url):
            fail(key, f"must be an http(s) URL such as {example}, got {url!r}")
    branch = values["repo_branch"]
    if not isinstance(branch, str) or not _BRANCH.match(branch) or ".." in branch:
        fail("repo_branch", f"must be a branch name (letters, digits, '.', '_', '-', '/'), got {branch!r}")


def site_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be a site name, or None (shared with ``papersite init --site-name``)."""
    if not isinstance(name, str) or not name.strip() or invisible_characters(name) or len(name) > 200:
        return f"must be one line of plain text (at most 200 characters, no control or invisible characters), got {name!r}"
    return None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_places(config: ProjectConfig, lines: dict[str, int], config_path: Path) -> None:
    """Folders the build empties never overlap what the project keeps."""

    def fail(key: str, message: str) -> None:
        raise PapersiteError.at(config_path, lines.get(key, 1), f"{key}: {message}")

    kept = {
        "docs_dir": config.docs_dir,
        "corpus_dir": config.corpus_dir,
        "papers_dir": config.papers_dir,
        "state folder (state_file)": config.state_file.parent,
        "taxonomy_file": config.taxonomy_file,
        "settled_matches": config.settled_matches,
    }
    for key in ("site_dir", "build_dir"):
        target = getattr(config, key)
        if _inside(config.root, target):
            fail(key, f"{target} is the project root or holds it; the build replaces this folder")
        for name, place in kept.items():
            if name.startswith("state") and place == config.root:
                continue  # state_file at the root: covered by the root check above
            if _inside(target, place) or _inside(place, target):
                fail(key, f"{target} overlaps the {name} {place}; the build replaces this folder, so it must be separate")
    if _inside(config.site_dir, config.build_dir) or _inside(config.build_dir, config.site_dir):
        fail("site_dir", f"{config.site_dir} and build_dir {config.build_dir} must be separate folders")
    if config.papers_dir == config.docs_dir or config.docs_dir not in config.papers_dir.parents:
        fail("papers_dir", f"{config.papers_dir} must be a folder inside docs_dir ({config.docs_dir})")
    if _inside(config.papers_dir, config.corpus_dir) or _inside(config.corpus_dir, config.papers_dir):
        fail("papers_dir", f"{config.papers_dir} overlaps corpus_dir {config.corpus_dir}; pages and listings must be apart")
    if config.settled_matches and _inside(config.settled_matches, config.docs_dir):
        fail("settled_matches", f"{config.settled_matches} must not be inside docs_dir (it would be published)")
    if _inside(config.state_file, config.docs_dir) or _inside(config.state_file, config.corpus_dir):
        fail("state_file", f"{config.state_file} must not be inside docs_dir or corpus_dir")


_DEFAULTS: dict[str, Any] = {
    "corpus_dir": "corpus",
    "docs_dir": "site_src",
    "papers_dir": "site_src/papers",
    "state_file": ".papersite/last_import.jsonl",
    "taxonomy_file": None,
    "site_dir": "site",
    "build_dir": "build",
    "site_name": "Papers",
    "site_url": None,
    "repo_url": None,
    "repo_branch": "main",
    "references": [],
    "listings": {},
    "settled_matches": ".papersite/settled_matches.yaml",
    "venue": {},
}
VENUE_KEYS = ("name", "short", "year")


def load_config(root: Path | str = ".") -> ProjectConfig:
    """The settings of the project at ``root``; PapersiteError when it is no project folder.

    A missing ``papersite.yml`` means every default; a missing folder is an error
    (``--project`` mistyped in CI must not check nothing and say OK)."""
    given = root
    root = Path(root).resolve()
    if not root.is_dir():
        what = "is not a folder but a file" if root.exists() else "does not exist"
        raise PapersiteError.at(given, 1, f"the project folder (--project) {what}; give the folder holding papersite.yml")
    values = dict(_DEFAULTS)
    config_path = root / CONFIG_FILE
    lines: dict[str, int] = {}
    if config_path.exists() or config_path.is_symlink():
        readable_file(config_path, root)
        try:
            loaded, lines = load_yaml_with_lines(config_path.read_text(encoding="utf-8"))
        except InputError as error:
            raise PapersiteError.at(config_path, error.line, f"{error.about('papersite.yml')}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise PapersiteError.at(config_path, 1, f"cannot read the settings ({error})") from None
        loaded = loaded or {}
        if not isinstance(loaded, dict):
            raise PapersiteError.at(config_path, 1, "expected a mapping of setting: value")
        unknown = sorted(set(loaded) - set(_DEFAULTS), key=str)
        if unknown:
            raise PapersiteError(
                f"{config_path}:{lines.get(str(unknown[0]), 1)}: unknown setting(s) {', '.join(map(str, unknown))}; "
                f"expected some of {', '.join(_DEFAULTS)}"
            )
        values.update({k: v for k, v in loaded.items() if v is not None or k in ("repo_url", "taxonomy_file")})
        _check_types(values, lines, config_path)
    def path(key: str) -> Path:
        return (root / str(values[key])).resolve()

    taxonomy = path("taxonomy_file") if values["taxonomy_file"] else bundled_taxonomy()
    references, reference_settings = _references(values["references"], root, config_path, lines.get("references", 1))
    listing_settings = _listings(values["listings"], config_path, lines.get("listings", 1))
    venue = _venue(values["venue"], config_path, lines.get("venue", 1))
    config = ProjectConfig(
        root=root,
        corpus_dir=path("corpus_dir"),
        docs_dir=path("docs_dir"),
        papers_dir=path("papers_dir"),
        state_file=path("state_file"),
        taxonomy_file=taxonomy,
        site_dir=path("site_dir"),
        build_dir=path("build_dir"),
        site_name=str(values["site_name"]),
        site_url=(str(values["site_url"]).rstrip("/") + "/" if values["site_url"] else None),
        repo_url=(str(values["repo_url"]).rstrip("/") if values["repo_url"] else None),
        repo_branch=str(values["repo_branch"]),
        references=references,
        venue=venue,
        source_settings=tuple(sorted({**listing_settings, **reference_settings}.items())),
        settled_matches=path("settled_matches"),
    )
    _check_inside(config, values, lines, config_path)
    _check_places(config, lines, config_path)
    return config


_FILE_KEYS = ("state_file", "taxonomy_file", "settled_matches")


def _check_inside(config: ProjectConfig, values: dict[str, Any], lines: dict[str, int], config_path: Path) -> None:
    """Every place a setting names (given or default) lies in the project, and a file is a regular one.

    Settings are resolved (symlinks followed) before anything is read or written, so a
    ``site_src`` or ``build`` linked out of the project, or ``docs_dir: /etc``, stops here,
    with the line of the setting when papersite.yml gives it, else the path itself."""
    keys = [k for k in _PATH_KEYS if k != "taxonomy_file" or values["taxonomy_file"]]
    places = [(key, Path(str(values[key])), getattr(config, key)) for key in keys]
    for key, given, place in places:
        problem = outside_problem(config.root / given, config.root)
        if problem is None and key in _FILE_KEYS and (place.exists() or (config.root / given).is_symlink()):
            try:
                readable_file(place, config.root)
            except PapersiteError as error:
                problem = error.first.message
        if problem is not None:
            if key in lines:
                raise PapersiteError.at(config_path, lines[key], f"{key}: {given} {problem}")
            raise PapersiteError.at(config.root / given, 1, f"{problem} ({key})")


def _references(value: Any, root: Path, config_path: Path, line: int) -> tuple[tuple[Path, ...], dict[str, SourceSettings]]:
    """Each item a path, or a mapping ``{file, authority, author_order}``."""
    if value is None:
        return (), {}
    if not isinstance(value, list):
        raise PapersiteError.at(config_path, line, "'references' must be a list of file paths (or of mappings with 'file')")
    paths: list[Path] = []
    settings: dict[str, SourceSettings] = {}
    for item in value:
        where = f"reference {item!r}"
        if isinstance(item, dict):
            unknown = sorted(set(map(str, item)) - {"file", "authority", "author_order"})
            if unknown or not isinstance(item.get("file"), str):
                raise PapersiteError.at(
                    config_path, line, f"{where}: a reference mapping has 'file' (a path) and optionally 'authority', 'author_order'"
                )
            name = item["file"]
            found = _source_settings(item, config_path, line, where)
        elif isinstance(item, str):
            name, found = item, None
        else:
            name, found = "", None
        if not name.strip():
            raise PapersiteError.at(config_path, line, "'references' must be a list of file paths (or of mappings with 'file')")
        path = (root / name).resolve()
        try:
            readable_file(root / name, root)
        except PapersiteError as error:
            raise PapersiteError.at(config_path, line, f"reference file {name} {error.first.message}") from None
        if any(p.name == path.name for p in paths):
            raise PapersiteError.at(config_path, line, f"two references share the file name {path.name}; pages cite them by name")
        paths.append(path)
        if found is not None:
            settings[path.name] = found
    return tuple(paths), settings


def _listings(value: Any, config_path: Path, line: int) -> dict[str, SourceSettings]:
    """``listings: {FILE_NAME: {author_order: ..., columns: {FIELD: HEADER}}}``: what a listing file declares."""
    if value in (None, {}):
        return {}
    if not isinstance(value, dict):
        raise PapersiteError.at(config_path, line, "'listings' must map listing file names to settings ({author_order: ..., columns: ...})")
    settings = {}
    for name, item in value.items():
        where = f"listing {name!r}"
        if not isinstance(name, str) or "/" in name or not name.strip():
            raise PapersiteError.at(config_path, line, f"{where}: name a listing by its file name (no folder)")
        if not isinstance(item, dict) or set(map(str, item)) - {"author_order", "columns"}:
            raise PapersiteError.at(config_path, line, f"{where}: expected a mapping with 'author_order' and/or 'columns'")
        found = _source_settings(item, config_path, line, where)
        settings[name] = replace(found, columns=_columns(item.get("columns"), config_path, line, where))
    return settings


def _columns(value: Any, config_path: Path, line: int, where: str) -> tuple[tuple[str, str], ...]:
    """A sheet's column map: our field -> its header, each header one line of text, each used once."""
    if value in (None, {}):
        return ()
    fields = ", ".join(COLUMN_NAMES)
    if not isinstance(value, dict):
        raise PapersiteError.at(config_path, line, f"{where}: columns must map fields ({fields}) to the sheet's headers")
    pairs = []
    for field_name, header in value.items():
        if field_name not in COLUMN_NAMES:
            raise PapersiteError.at(config_path, line, f"{where}: columns: unknown field {field_name!r}; the fields are {fields}")
        if not isinstance(header, str) or not header.strip() or "\n" in header:
            raise PapersiteError.at(config_path, line, f"{where}: columns: {field_name} must name one header (text), got {header!r}")
        pairs.append((str(field_name), header.strip()))
    headers = [header for _, header in pairs]
    if len(set(headers)) != len(headers):
        raise PapersiteError.at(config_path, line, f"{where}: columns: one header is mapped to two fields")
    return tuple(sorted(pairs))


def _source_settings(item: dict, config_path: Path, line: int, where: str) -> SourceSettings:
    order = item.get("author_order", "detect")
    if order not in SOURCE_ORDERS:
        raise PapersiteError.at(config_path, line, f"{where}: author_order must be one of {', '.join(SOURCE_ORDERS)}, got {order!r}")
    authority = item.get("authority") or []
    if isinstance(authority, str):
        authority = [authority]
    if not isinstance(authority, list) or not all(a in AUTHORITY_FIELDS for a in authority):
        raise PapersiteError.at(
            config_path, line, f"{where}: authority must list some of {', '.join(AUTHORITY_FIELDS)}, got {item.get('authority')!r}"
        )
    return SourceSettings(author_order=order, authority=tuple(dict.fromkeys(authority)))


def _venue(value: Any, config_path: Path, line: int) -> VenueSettings:
    if value in (None, {}):
        return VenueSettings()
    if not isinstance(value, dict) or set(map(str, value)) - set(VENUE_KEYS):
        raise PapersiteError.at(config_path, line, f"'venue' must be a mapping with some of {', '.join(VENUE_KEYS)}")
    fields: dict[str, str | None] = {}
    for key in VENUE_KEYS:
        item = value.get(key)
        if item is not None and (not isinstance(item, (str, int)) or isinstance(item, bool) or site_name_problem(str(item))):
            raise PapersiteError.at(config_path, line, f"venue {key} must be one line of plain text, got {item!r}")
        fields[key] = " ".join(str(item).split()) or None if item is not None else None
    return VenueSettings(**fields)


# mkdocs.yml settings the theme writes into every page as text, as they are: MkDocs renders its templates
# without escaping, so markup there would run in every reader's browser (papersite's own templates escape;
# Material's header, <title> and meta tags do not). `papersite init` writes them plain.
THEME_TEXT_SETTINGS = ("site_name", "site_description", "site_author", "repo_name")
_MARKUP = '<>"&'


class _AnyTagLoader(yaml.SafeLoader):
    """mkdocs.yml may hold MkDocs' own tags (``!ENV``, ``!!python/name:``): read here as nothing."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


MKDOCS_FILE = "mkdocs.yml"  # the engine's settings, at the project's root beside papersite.yml


def mkdocs_yml_text(root: Path, name: str = MKDOCS_FILE) -> str | None:
    """The text of the project's mkdocs.yml; None where there is none (the engine says so). ``PapersiteError``
    ``mkdocs.yml:1: message`` where it is no regular file inside the project: a FIFO's read would wait for ever
    (``papersite check`` and ``build`` did), a link out of the project is read by no command."""
    path = Path(root) / name
    if not os.path.lexists(path):
        return None
    readable_file(path, Path(root).resolve(), name)
    try:
        return read_regular_text(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise PapersiteError.at(name, 1, f"cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise PapersiteError.at(name, 1, "is not UTF-8 text") from None


def theme_config_problems(root: Path, name: str = MKDOCS_FILE) -> list[Problem]:
    """A ``THEME_TEXT_SETTINGS`` value of the project's mkdocs.yml holding a character HTML reads as
    markup, at its line; nothing when there is no mkdocs.yml, or no YAML in it (the build says so itself);
    the file itself where papersite may not read it (``mkdocs_yml_text``)."""
    try:
        text = mkdocs_yml_text(root, name)
    except PapersiteError as error:
        return list(error.problems)
    try:
        node = yaml.compose(text, Loader=_AnyTagLoader) if text is not None else None
    except yaml.YAMLError:
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    problems = []
    for key, value in node.value:
        if key.value in THEME_TEXT_SETTINGS and isinstance(value, yaml.ScalarNode):
            found = sorted({c for c in value.value if c in _MARKUP})
            if found:
                problems.append(Problem(name, key.start_mark.line + 1, (
                    f"{key.value} holds {' '.join(found)}: the theme writes it into every page as HTML, unescaped; "
                    "write it as plain text (\"and\" for &, no quotes or angle brackets)")))
    return problems


# Section pages added after projects were made: a project's nav that names none of them gets them
# (before "About" where it has one), so an older mkdocs.yml builds (strict mode fails on a page
# left out of the nav) and shows the new page; naming the page in ``not_in_nav`` keeps it out.
ADDED_SECTIONS = ((MAP, "Map"), (SAVED, "Saved"))  # sections an older mkdocs.yml nav lacks


def _nav_pages(nav: Any) -> set[str]:
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*map(_nav_pages, nav.values())) if nav else set()
    if isinstance(nav, list):
        return set().union(*map(_nav_pages, nav)) if nav else set()
    return set()


def nav_with_added_sections(nav: Any, not_in_nav: Any = None) -> Any:
    """``nav`` with each of ``ADDED_SECTIONS`` it lacks; a nav that is not a list (none: MkDocs
    lists every page itself) is returned as it is."""
    if not isinstance(nav, list):
        return nav
    named, excluded = _nav_pages(nav), str(not_in_nav or "")
    nav = list(nav)
    for route, title in ADDED_SECTIONS:
        staged = route.staged()
        if staged in named or route.url() in named or f"/{route.url()}" in excluded:
            continue
        about = next((i for i, item in enumerate(nav) if isinstance(item, dict) and "About" in item), len(nav))
        nav.insert(about, {title: staged})
    return nav


# What MkDocs counts as a page (``mkdocs.utils.markdown_extensions``), and the files it never builds whatever
# ``exclude_docs`` says (``mkdocs.structure.files._default_exclude``)
PAGE_SUFFIXES = (".markdown", ".mdown", ".mkdn", ".mkd", ".md")
ALWAYS_EXCLUDED = (".*", "/templates/")


def left_out_of_nav(config: dict, pages: list[str]) -> list[str]:
    """The pages of ``pages`` (paths in the docs dir) no entry of the nav leads to, as MkDocs finds them: not in
    ``nav`` (with the sections papersite adds), nor named by ``not_in_nav``, ``exclude_docs`` or ``draft_docs``.
    MkDocs' strict build fails on one where ``validation.nav.omitted_files`` is ``warn``, and Zensical builds it
    unreachable without a word; papersite says so under both. None where the config lets them be (no ``nav``:
    every page is listed; ``omitted_files`` left at MkDocs' ``info``, or ``ignore``)."""
    from pathspec import GitIgnoreSpec

    validation = config.get("validation") if isinstance(config.get("validation"), dict) else {}
    nav_checks = validation.get("nav") if isinstance(validation.get("nav"), dict) else {}
    # (a value at validation's top applies to its nav and links parts, where they do not set it)
    level = nav_checks.get("omitted_files", validation.get("omitted_files", "info"))
    if not isinstance(config.get("nav"), list) or level != "warn":
        return []

    def patterns(key: str, always: tuple[str, ...] = ()) -> GitIgnoreSpec:
        text = config.get(key)
        return GitIgnoreSpec.from_lines([*always, *(text.splitlines() if isinstance(text, str) else [])])

    named = {PurePosixPath(path).as_posix() for path in _nav_pages(nav_with_added_sections(config["nav"], config.get("not_in_nav")))}
    kept_out = [patterns("exclude_docs", ALWAYS_EXCLUDED), patterns("draft_docs"), patterns("not_in_nav")]
    return [path for path in pages
            if path.endswith(PAGE_SUFFIXES) and path not in named and not any(spec.match_file(path) for spec in kept_out)]


def nav_problems(root: Path, pages: dict[str, str], name: str = MKDOCS_FILE) -> list[Problem]:
    """Each hand-written page of docs_dir (``pages``: its path there -> the path to name it by) no entry of
    mkdocs.yml's nav leads to (``left_out_of_nav``): MkDocs' strict build would fail on it in words of its own, and
    Zensical build it unreachable; nothing when there is no readable mkdocs.yml (the build says so itself)."""
    if not any(path.endswith(PAGE_SUFFIXES) for path in pages):  # (most projects: then neither file nor pathspec is read)
        return []
    try:
        text = mkdocs_yml_text(root, name)
        settings = yaml.load(text, Loader=_AnyTagLoader) if text is not None else None  # noqa: S506 - safe, tags read as nothing
    except (PapersiteError, yaml.YAMLError):  # (the file papersite may not read: theme_config_problems names it)
        return []
    if not isinstance(settings, dict):
        return []
    return [Problem(pages[path], 1, (
        f"no entry of the nav in {name} leads to this page; list it under nav: (or put /{path} under not_in_nav: "
        "to keep it out of the menus): MkDocs' strict build refuses a page left out, and Zensical builds it unreachable"))
        for path in left_out_of_nav(settings, sorted(pages))]
