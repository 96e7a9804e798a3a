"""Project configuration: where a site's listings, pages and outputs live.

Read from ``papersite.yml`` at the project root (every key optional); paths in
it are relative to that root. One ``ProjectConfig`` is built per command and
passed down explicitly: no stage reads configuration on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

CONFIG_FILE = "papersite.yml"


class ConfigError(ValueError):
    pass


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

    def engine_settings(self) -> dict[str, str]:
        """The MkDocs settings papersite.yml drives, so that each is written in one place only."""
        settings = {"site_url": self.site_url} if self.site_url else {}
        if self.repo_url:
            docs = self.docs_dir.relative_to(self.root).as_posix() if self.docs_dir.is_relative_to(self.root) else ""
            settings["repo_url"] = self.repo_url
            settings["repo_name"] = "/".join(self.repo_url.split("/")[-2:])
            settings["edit_uri"] = f"edit/{self.repo_branch}/{docs + '/' if docs else ''}"
        return settings

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
    "site_url": None,
    "repo_url": None,
    "repo_branch": "main",
}


def load_config(root: Path | str = ".") -> ProjectConfig:
    root = Path(root).resolve()
    values = dict(_DEFAULTS)
    config_path = root / CONFIG_FILE
    if config_path.exists():
        try:
            loaded = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
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
    )
    return config
