"""Project configuration: where a site's listings, pages and outputs live.

Read from ``papersite.yml`` at the project root (every key optional); paths in
it are relative to that root. One ``ProjectConfig`` is built per command and
passed down explicitly: no stage reads configuration on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

CONFIG_FILE = "papersite.yml"


class ConfigError(ValueError):
    pass


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
    repo_url: str | None  # e.g. https://github.com/owner/repo, for edit / issue links
    repo_branch: str
    # Reference catalogues: files that complete what listings say about their papers
    # (authors, titles, links, decisions); they never add a paper.
    references: tuple[Path, ...] = ()
    venue: VenueSettings = VenueSettings()

    @property
    def papers_rel(self) -> str:
        return self.papers_dir.relative_to(self.docs_dir).as_posix()


def bundled_taxonomy() -> Path:
    return Path(str(resources.files("generator") / "data" / "taxonomy.yaml"))


_DEFAULTS: dict[str, Any] = {
    "corpus_dir": "corpus",
    "docs_dir": "site_src",
    "papers_dir": "site_src/papers",
    "state_file": ".papersite/last_import.jsonl",
    "taxonomy_file": None,
    "site_dir": "site",
    "build_dir": "build",
    "site_name": "Papers",
    "repo_url": None,
    "repo_branch": "main",
    "references": [],
    "venue": {},
}
VENUE_KEYS = ("name", "short", "year")


def _key_line(text: str, key: str) -> int:
    match = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def load_config(root: Path | str = ".") -> ProjectConfig:
    root = Path(root).resolve()
    values = dict(_DEFAULTS)
    config_path = root / CONFIG_FILE
    text = ""
    if config_path.exists():
        try:
            text = config_path.read_text(encoding="utf-8")
            loaded = yaml.safe_load(text) or {}
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line = mark.line + 1 if mark else 1
            raise ConfigError(f"{config_path}:{line}: not valid YAML") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{config_path}:1: expected a mapping of setting: value")
        unknown = sorted(set(loaded) - set(_DEFAULTS))
        if unknown:
            raise ConfigError(
                f"{config_path}:1: unknown setting(s) {', '.join(unknown)}; expected some of {', '.join(_DEFAULTS)}"
            )
        values.update({k: v for k, v in loaded.items() if v is not None or k in ("repo_url", "taxonomy_file")})
    def path(key: str) -> Path:
        return (root / str(values[key])).resolve()

    taxonomy = path("taxonomy_file") if values["taxonomy_file"] else bundled_taxonomy()
    references = _references(values["references"], root, config_path, _key_line(text, "references"))
    venue = _venue(values["venue"], config_path, _key_line(text, "venue"))
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
        repo_url=(str(values["repo_url"]).rstrip("/") if values["repo_url"] else None),
        repo_branch=str(values["repo_branch"]),
        references=references,
        venue=venue,
    )
    return config


def _references(value: Any, root: Path, config_path: Path, line: int) -> tuple[Path, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(f"{config_path}:{line}: 'references' must be a list of file paths")
    paths = [(root / item).resolve() for item in value]
    names = [p.name for p in paths]
    for item, path in zip(value, paths):
        if not path.is_file():
            raise ConfigError(f"{config_path}:{line}: reference file {item} does not exist")
        if names.count(path.name) > 1:
            raise ConfigError(f"{config_path}:{line}: two references share the file name {path.name}; pages cite them by name")
    return tuple(paths)


def _venue(value: Any, config_path: Path, line: int) -> VenueSettings:
    if value in (None, {}):
        return VenueSettings()
    if not isinstance(value, dict) or set(map(str, value)) - set(VENUE_KEYS):
        raise ConfigError(f"{config_path}:{line}: 'venue' must be a mapping with some of {', '.join(VENUE_KEYS)}")
    fields: dict[str, str | None] = {}
    for key in VENUE_KEYS:
        item = value.get(key)
        if item is not None and not isinstance(item, (str, int)) or isinstance(item, bool):
            raise ConfigError(f"{config_path}:{line}: venue {key} must be text")
        fields[key] = " ".join(str(item).split()) or None if item is not None else None
    return VenueSettings(**fields)
