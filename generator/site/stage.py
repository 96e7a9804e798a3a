"""Staging: everything the engine needs, written as Markdown and assets into one docs dir.

In: the project config (paper pages in ``site_src/papers/``, anything else in
``site_src/``). Out: ``build/docs/``: ``site_src`` copied, each paper page replaced
by its display page, plus the index, stats and Explore pages, the search index
and our CSS/JS. Any engine (MkDocs, Zensical) then builds that dir as it is; no
feature needs an engine hook.

Files are only rewritten when their bytes change and stale files are removed, so
a live-reloading server sees exactly what changed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from generator.config import ProjectConfig
from generator.record import PaperRecord, RecordError, read_page
from generator.site.catalog import Catalog, build_catalog
from generator.site.cite import Venue
from generator.site.indices import index_pages
from generator.site.paper_pages import SiteContext, render_paper_page
from generator.site.related import related_papers
from generator.site.search import explore_page, search_files
from generator.site.stats import stats_page

ASSETS_DIR = Path(__file__).parent / "assets"
TEMPLATES_DIR = Path(__file__).parent / "templates"


class StageError(RuntimeError):
    pass


@dataclass
class StageResult:
    docs_dir: Path
    catalog: Catalog
    written: int  # files whose bytes changed
    removed: int


def staged_docs_dir(config: ProjectConfig) -> Path:
    return config.build_dir / "docs"


def staged_overrides_dir(config: ProjectConfig) -> Path:
    """Our theme overrides, copied into the project for Zensical, whose custom_dir must lie inside it."""
    return config.build_dir / "overrides"


def template_files() -> dict[str, bytes]:
    return {
        path.relative_to(TEMPLATES_DIR).as_posix(): path.read_bytes()
        for path in sorted(TEMPLATES_DIR.rglob("*"))
        if path.is_file()
    }


def read_records(config: ProjectConfig) -> tuple[list[PaperRecord], dict[str, str]]:
    """Every paper page, and where each slug's page lives (relative to the repo root)."""
    records: list[PaperRecord] = []
    source_of: dict[str, str] = {}
    errors: list[str] = []
    paths = sorted(config.papers_dir.glob("*.md")) if config.papers_dir.is_dir() else []
    for path in paths:
        try:
            record = read_page(path)
        except RecordError as error:
            errors.append(str(error))
            continue
        try:
            rel = path.relative_to(config.root).as_posix()
        except ValueError:
            rel = path.as_posix()
        if record.slug in source_of:
            errors.append(f"{rel}:1: slug '{record.slug}' is also used by {source_of[record.slug]}; slugs must be unique")
            continue
        records.append(record)
        source_of[record.slug] = rel
    if errors:
        raise StageError("\n".join(errors))
    return records, source_of


def _site_src_files(config: ProjectConfig) -> dict[str, bytes]:
    """site_src as it is, minus the paper pages (they become display pages) and the staging dir."""
    files: dict[str, bytes] = {}
    if not config.docs_dir.is_dir():
        return files
    skip = {config.build_dir.resolve(), config.site_dir.resolve()}
    for dirpath, dirnames, filenames in os.walk(config.docs_dir):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and (here / d).resolve() not in skip)
        for name in sorted(filenames):
            path = here / name
            if name.startswith("."):
                continue
            if path.parent == config.papers_dir and path.suffix == ".md":
                continue
            files[path.relative_to(config.docs_dir).as_posix()] = path.read_bytes()
    return files


def directory_page(path: str) -> str:
    """``authors/x.md`` -> ``authors/x/index.md``: each generated page sits in its URL's folder.

    Zensical resolves relative links in raw HTML against the Markdown file;
    MkDocs leaves them as written. Both read our page-relative links the same
    way only when the file and its URL are in the same folder.
    """
    if path == "index.md" or path.endswith("/index.md"):
        return path
    return path[: -len(".md")] + "/index.md"


def generated_files(config: ProjectConfig) -> tuple[dict[str, bytes], Catalog]:
    records, source_of = read_records(config)
    catalog = build_catalog(records)
    context = SiteContext(config=config, venue=Venue.from_site_name(config.site_name), source_of=source_of)
    by_slug = {p.slug: p for p in catalog.papers}
    related = related_papers(catalog.papers)

    files = _site_src_files(config)
    papers_rel = config.papers_rel
    for paper in catalog.papers:
        neighbours = [by_slug[s] for s in related.get(paper.slug, [])]
        text = render_paper_page(paper, catalog, neighbours, context)
        files[directory_page(f"{papers_rel}/{paper.slug}.md")] = text.encode("utf-8")
    pages = index_pages(catalog, context)
    pages["stats.md"] = stats_page(catalog)
    pages["explore.md"] = explore_page()
    for path, text in pages.items():
        if path in files:  # a hand-written page in site_src wins
            continue
        files.setdefault(directory_page(path), text.encode("utf-8"))
    files.update(search_files(catalog))
    for asset in sorted(ASSETS_DIR.iterdir()):
        if asset.is_file():
            files[f"assets/papersite/{asset.name}"] = asset.read_bytes()
    return files, catalog


def write_tree(target: Path, files: dict[str, bytes]) -> tuple[int, int]:
    """Make ``target`` hold exactly ``files``; returns (files written, files removed)."""
    written = removed = 0
    target.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        path = target / rel
        try:
            if path.read_bytes() == data:
                continue
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
        except IsADirectoryError:
            shutil.rmtree(path)
        path.write_bytes(data)
        written += 1
    wanted = set(files)
    for dirpath, dirnames, filenames in os.walk(target, topdown=False):
        here = Path(dirpath)
        for name in filenames:
            rel = (here / name).relative_to(target).as_posix()
            if rel not in wanted:
                (here / name).unlink()
                removed += 1
        if here != target and not any(here.iterdir()):
            here.rmdir()
    return written, removed


def stage_docs(config: ProjectConfig) -> StageResult:
    files, catalog = generated_files(config)
    target = staged_docs_dir(config)
    written, removed = write_tree(target, files)
    write_tree(staged_overrides_dir(config), template_files())
    return StageResult(docs_dir=target, catalog=catalog, written=written, removed=removed)
