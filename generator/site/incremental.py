"""What a build may skip: the import when its inputs are unchanged, and the
engine's work on pages whose staged text is unchanged.

In: the project config, the staged docs dir's change list (``stage.py``).
Out: stamps in the build dir (``build/stamps/{import,engine}.json``) and, for an
incremental engine run, the staged pages touched or site files removed so that
MkDocs' ``--dirty`` mode renders exactly the pages whose output can differ.

Why this is safe: every generated page's HTML is a function of its staged
Markdown plus inputs every page shares (mkdocs.yml, theme templates, engine and
package versions). Those shared inputs are the engine stamp; when it changes,
or after ``--clean``, the build is a clean one. The staged Markdown of a page
changes whenever anything it shows changes (the stage rewrites a file only when
its bytes differ), so an unchanged staged page has an unchanged output.
Pages that are not paper pages (index pages, hand-written pages, the shells)
are few and feed the engine's own search index, which MkDocs builds from the
pages it renders: they are rendered on every build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

from generator.config import ProjectConfig
from generator.inputs import lies_inside

STAMPS_DIR = "stamps"
IMPORT_STAMP = "import"
ENGINE_STAMP = "engine"  # valid only while site_dir is what the last build made of the staged dir
# Settings that are outputs or scratch of the build, never inputs of the import.
_NOT_IMPORT_INPUTS = {"root", "site_dir", "build_dir", "docs_dir"}
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # generator/
_ENGINE_PARTS = ("site/templates", "site/plugin.py", "engines.py", "site/incremental.py")


def _hash_tree(digest: "hashlib._Hash", path: Path, base: Path) -> None:
    """Fold every file under ``path`` (name and bytes, in sorted order) into ``digest``."""
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    else:
        digest.update(f"missing:{path}\0".encode())
        return
    for file in files:
        try:
            name = file.relative_to(base).as_posix()
        except ValueError:
            name = file.as_posix()
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        if file.is_symlink() and not lies_inside(file, base):
            # not read: the import refuses it (inputs.readable_file), so its target is nobody's input
            digest.update(f"link out:{os.path.realpath(file)}\0".encode("utf-8", "surrogateescape"))
            continue
        digest.update(hashlib.sha256(file.read_bytes()).digest())


def _versions(*names: str) -> str:
    out = []
    for name in names:
        try:
            out.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            out.append(f"{name}=none")
    return ",".join(out)


def import_inputs(config: ProjectConfig) -> str:
    """A hash of everything the import reads: every path setting (listings,
    pages, state, taxonomy, any later one), the settings file and papersite's code and data."""
    digest = hashlib.sha256()
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        paths = [value] if isinstance(value, Path) else [v for v in value if isinstance(v, Path)] if isinstance(value, tuple) else []
        if field.name in _NOT_IMPORT_INPUTS or not paths:
            continue
        digest.update(f"{field.name}\0".encode())
        for path in paths:  # one setting may name several files (references)
            _hash_tree(digest, path, config.root)
    _hash_tree(digest, config.root / "papersite.yml", config.root)
    _hash_tree(digest, _PACKAGE_DIR, _PACKAGE_DIR)
    return digest.hexdigest()


def engine_inputs(config: ProjectConfig, engine: str, theme_dirs: list[Path]) -> str:
    """A hash of what every rendered page shares: the engine config, theme overrides, versions."""
    digest = hashlib.sha256()
    digest.update(f"{engine}\0{_versions('mkdocs', 'mkdocs-material', 'zensical')}\0".encode())
    # Not SOURCE_DATE_EPOCH: only the sitemap shows the build date, and MkDocs writes it on every build.
    digest.update(f"{config.site_dir}\0".encode())
    # papersite.yml's share of the engine config (site_url, repo_url, ...): on every page's chrome
    digest.update(json.dumps(config.engine_settings(), sort_keys=True).encode())
    _hash_tree(digest, config.root / "mkdocs.yml", config.root)
    for directory in theme_dirs:
        _hash_tree(digest, directory, directory)
    # What papersite adds to the engine's view of every page: our templates, the
    # plugin that adds them, the way the engine is run and this module's rules.
    # (Staged pages and post-build pages are compared byte by byte instead.)
    for part in _ENGINE_PARTS:
        _hash_tree(digest, _PACKAGE_DIR / part, _PACKAGE_DIR)
    return digest.hexdigest()


def _stamp_path(config: ProjectConfig, name: str) -> Path:
    return config.build_dir / STAMPS_DIR / f"{name}.json"


def stamp_matches(config: ProjectConfig, name: str, value: str) -> bool:
    path = _stamp_path(config, name)
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("inputs") == value
    except (OSError, ValueError, AttributeError):
        return False


def write_stamp(config: ProjectConfig, name: str, value: str) -> None:
    path = _stamp_path(config, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"inputs": value}) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def clear_stamp(config: ProjectConfig, name: str) -> None:
    """Before a step that may fail half-way: the next build must not trust its output."""
    _stamp_path(config, name).unlink(missing_ok=True)


def is_paper_page(rel: str, papers_rel: str) -> bool:
    """``papers/<slug>/index.md`` (not ``papers/index.md``)."""
    prefix = papers_rel.rstrip("/") + "/"  # relative to the docs dir, as staged
    return rel.startswith(prefix) and rel.endswith("/index.md") and rel.count("/") == prefix.count("/") + 1


def output_of(rel: str) -> str:
    """The site file MkDocs writes for a staged file (``use_directory_urls``: pages are X/index.md)."""
    return rel[: -len(".md")] + ".html" if rel.endswith(".md") else rel


def prepare_dirty_build(docs_dir: Path, site_dir: Path, removed: list[str], papers_rel: str) -> None:
    """Make MkDocs' --dirty mode render what a clean build would render differently.

    Staged files that are gone take their output with them; every staged page that
    is not a paper page is marked newer than its output (see the module docstring).
    """
    for rel in removed:
        target = site_dir / output_of(rel)
        target.unlink(missing_ok=True)
        parent = target.parent
        while parent != site_dir and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    for dirpath, dirnames, filenames in os.walk(docs_dir):
        here = Path(dirpath)
        rel_dir = here.relative_to(docs_dir).as_posix()
        for name in filenames:
            if not name.endswith(".md"):
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if not is_paper_page(rel, papers_rel):
                (site_dir / output_of(rel)).unlink(missing_ok=True)  # missing output: MkDocs renders it
