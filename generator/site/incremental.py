"""What a build may skip: the import when its inputs are unchanged, and the
engine's work on pages whose staged text is unchanged.

In: the project config, the staged docs dir's change list (``stage.py``).
Out: stamps in the build dir (``memo.py``'s kind ``stamps``: import, build, engine) and, for an
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
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from generator.config import ProjectConfig
from generator.outputs import real_folder
from generator.site.filehashes import FileHashes
from generator.site.memo import PAGE_SHARDS, Memo

STAMPS = "stamps"  # memo.py's kind: stamp name -> its value
IMPORT_STAMP = "import"
BUILD_STAMP = "build"  # valid only while site_dir is what the last build made
ENGINE_STAMP = "engine"  # valid only while site_dir is what the last build made of the staged dir
# Settings that are outputs or scratch of the build, never inputs of the import.
_NOT_IMPORT_INPUTS = {"root", "site_dir", "build_dir", "docs_dir", "papers_dir"}  # pages: see import_inputs
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # generator/
# postbuild.py: its minify_page is what plugin.py's on_post_page makes of every page MkDocs renders
_ENGINE_PARTS = ("site/templates", "site/plugin.py", "site/postbuild.py", "site/engines.py", "site/zensical_config.py",
                 "site/incremental.py", "site/memo.py")


def _versions(*names: str) -> str:
    out = []
    for name in names:
        try:
            out.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            out.append(f"{name}=none")
    return ",".join(out)


def file_hashes(config: ProjectConfig) -> FileHashes:
    """The stamps' file hashes; ``save()`` them once the stamp is computed."""
    return FileHashes(config)


def import_inputs(
    config: ProjectConfig, hashes: FileHashes | None = None, checked: Callable[[], Memo] | None = None,
    settle: list[tuple[Path, str]] | None = None, pages: bool = True,
) -> str:
    """A hash of everything the import reads: every path setting (listings, state,
    taxonomy, references, settled matches, any later one), the settings file and
    papersite's code and data; of the pages, only what can change the import's
    result (``ingest/pagestamp.py``: a page edit the import would keep needs no import).
    ``checked``: gives the check cache the changed pages are parsed through (``memo.CheckedPages``),
    the build's own, so that it is loaded once. ``settle``: ``pagestamp.pages_view``'s (pages the
    caller writes as the import would, at once). ``pages=False``: not the pages' views, for a build
    that runs no import (``build_inputs`` hashes the pages' bytes; a view is a second of an edit at 11,672)."""
    from generator.ingest.pagestamp import VIEWS_KIND, pages_view

    own = hashes is None
    hashes = hashes or file_hashes(config)
    digest = hashlib.sha256()
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        paths = [value] if isinstance(value, Path) else [v for v in value if isinstance(v, Path)] if isinstance(value, tuple) else []
        if field.name in _NOT_IMPORT_INPUTS or not paths:
            continue
        digest.update(f"{field.name}\0".encode())
        for path in paths:  # one setting may name several files (references)
            # the taxonomy by its bytes alone: the bundled one lies in whichever checkout of papersite runs
            hashes.fold_tree(digest, path, path.parent if field.name == "taxonomy_file" else config.root)
    hashes.fold_tree(digest, config.root / "papersite.yml", config.root)
    hashes.fold_tree(digest, _PACKAGE_DIR, _PACKAGE_DIR)
    if pages:
        state = hashlib.sha256()
        hashes.fold_tree(state, config.state_file, config.root)
        views = Memo(config, VIEWS_KIND, scope=state.hexdigest(), versioned=False, shards=PAGE_SHARDS)
        digest.update(pages_view(config, hashes.file_hash, views, checked or (lambda: _checked_pages(config)), settle,
                                 hashes.lstat_of).encode())
    else:
        digest.update(b"pages not viewed\0")
    if own:
        hashes.save(partial=True)
    return digest.hexdigest()


def _checked_pages(config: ProjectConfig):  # noqa: ANN202
    from generator.site.memo import CheckedPages  # loaded only when a page changed

    return CheckedPages(config)


def engine_inputs(config: ProjectConfig, engine: str, theme_dirs: list[Path], hashes: FileHashes | None = None) -> str:
    """A hash of what every rendered page shares: the engine config, theme overrides, versions."""
    own = hashes is None
    hashes = hashes or file_hashes(config)
    digest = hashlib.sha256()
    digest.update(f"{engine}\0{_versions('mkdocs', 'mkdocs-material', 'zensical', 'minify-html')}\0".encode())
    # Not SOURCE_DATE_EPOCH: only the sitemap shows the build date, and MkDocs writes it on every build.
    digest.update(f"{config.site_dir}\0".encode())
    # papersite.yml's share of the engine config (site_url, repo_url, ...): on every page's chrome
    digest.update(json.dumps(config.engine_settings(), sort_keys=True).encode())
    hashes.fold_tree(digest, config.root / "mkdocs.yml", config.root)
    for directory in theme_dirs:
        hashes.fold_tree(digest, directory, directory)
    # What papersite adds to the engine's view of every page: our templates, the
    # plugin that adds them, the way the engine is run and this module's rules.
    # (Staged pages and post-build pages are compared byte by byte instead.)
    for part in _ENGINE_PARTS:
        hashes.fold_tree(digest, _PACKAGE_DIR / part, _PACKAGE_DIR)
    if own:
        hashes.save(partial=True)
    return digest.hexdigest()


def build_inputs(config: ProjectConfig, engine: str, no_import: bool, theme_dirs: list[Path], imported: str | None = None,
                 hashes: FileHashes | None = None) -> str:
    """A hash of everything a build reads, for ``papersite build`` to stop at once when nothing changed.

    The import's inputs, the engine's (``engine_inputs``), the whole docs dir (pages,
    hand-written pages, assets), all of papersite's code, its version and Python's, and
    the build date the sitemap shows. Files are compared by stat, then by bytes (``filehashes.py``).
    ``imported``: ``import_inputs(config)`` if the caller has it (the pages' views are its cost). ``hashes``:
    the build's, if it made them for its other stamps (saved here: this stamp covers every file they do).
    """
    hashes = hashes or file_hashes(config)
    digest = hashlib.sha256()
    digest.update(f"{engine}\0{no_import}\0{os.environ.get('SOURCE_DATE_EPOCH', '')}\0".encode())
    digest.update(f"{sys.version}\0{_versions('papersite')}\0".encode())  # the code is hashed below; its Python too
    digest.update((imported if imported is not None else import_inputs(config, hashes)).encode())
    digest.update(engine_inputs(config, engine, theme_dirs, hashes).encode())
    hashes.fold_tree(digest, config.docs_dir, config.root)
    if not config.papers_dir.is_relative_to(config.docs_dir):
        hashes.fold_tree(digest, config.papers_dir, config.root)
    hashes.fold_tree(digest, _PACKAGE_DIR, _PACKAGE_DIR)
    hashes.save()
    return digest.hexdigest()


def build_stamp(config: ProjectConfig, inputs: str) -> str:
    """``build_inputs`` and what the last build left in the site dir's top level: a deleted
    site, or one another tool rewrote, is built again. Files deeper in ``site/`` are the
    build's output and not watched (``--clean`` rebuilds them)."""
    digest = hashlib.sha256(inputs.encode())
    try:
        for entry in sorted(os.scandir(config.site_dir), key=lambda e: e.name):
            seen = entry.stat(follow_symlinks=False)
            digest.update(f"{entry.name}\0{seen.st_size}\0{seen.st_mtime_ns}\0{seen.st_ino}\0".encode("utf-8", "surrogateescape"))
    except OSError:
        digest.update(b"no site\0")
    return digest.hexdigest()


def _stamps(config: ProjectConfig) -> Memo:
    stamps = Memo(config, STAMPS, versioned=False)  # a stamp hashes papersite's code itself
    stamps.new = dict(stamps.old)  # every stamp is kept until cleared
    return stamps


def stamp_matches(config: ProjectConfig, name: str, value: str) -> bool:
    return _stamps(config).get(name, value) is not None


def write_stamp(config: ProjectConfig, name: str, value: str) -> None:
    stamps = _stamps(config)
    stamps.put(name, value, True)
    stamps.save()


def clear_stamp(config: ProjectConfig, name: str) -> None:
    """Before a step that may fail half-way: the next build must not trust its output."""
    stamps = _stamps(config)
    if stamps.new.pop(name, None) is not None:
        stamps.save()


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
    made: set[Path] = set()  # the site's folders looked at: a link on the way is refused, never followed (real_folder)
    for rel in removed:
        target = site_dir / output_of(rel)
        _unlink_output(site_dir, target, made)
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
                _unlink_output(site_dir, site_dir / output_of(rel), made)  # missing output: MkDocs renders it


def _unlink_output(site_dir: Path, target: Path, made: set[Path]) -> None:
    """``target`` (an engine's output) removed, never through a link in the site: one on its folder's way is named
    (``outputs.real_folder``): what it leads to is not the site's to remove."""
    if os.path.lexists(target.parent):
        real_folder(site_dir, target.parent, made)
    target.unlink(missing_ok=True)
