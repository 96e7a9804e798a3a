"""Staging: everything the engine needs, written as Markdown and assets into one docs dir.

In: the project config (paper pages in ``site_src/papers/``, anything else in
``site_src/``). Out: ``build/docs/``: ``site_src`` copied, each paper page replaced
by its display page, plus the index, stats and Explore pages, the search index
and our CSS/JS. Any engine (MkDocs, Zensical) then builds that dir as it is; no
feature needs an engine hook.

Author and keyword pages (tens of thousands at 12k papers) are not handed to the
engine one by one: each section gets one shell page, and their bodies go to
``build/postbuild/`` for ``postbuild.py``, which every entry point runs after the
engine (docs/ARCHITECTURE.md, "Building the site at scale"). With
``parallel`` the search index is built by a worker while the engine runs.

Files are only rewritten when their bytes change and stale files are removed, so
a live-reloading server sees exactly what changed.
"""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from generator.outputs import check_project_places, clear_the_way
from generator.problems import PapersiteError
from generator.config import ProjectConfig
from generator.pages.folder import Page, Pages, docs_files, read_pages
from generator.pages.record import PaperRecord
from generator.catalog import Catalog, CatalogUpdate, build_catalog, kept_catalog, update_catalog
from generator.site.carried import NO_KEYS, Carried, PageKeys, areas_digest, by_slug, context_digest
from generator import layout
from generator.site.render.cite import Venue
from generator.site.incremental import ENGINE_STAMP, clear_stamp
from generator.site.memo import PAGE_SHARDS, Fingerprints, KnownSlugs, Memo, content_hash, RowsWritten, remove_old_formats, write_rows
from generator.site.render.indices import detail_page_markdown, detail_sources, index_pages
from generator.site.render.views import Views
from generator.site.scripts import shipped_asset
from generator.workers import Forked, SharedJobs, can_fork
from generator.site.textwork import Early, MapPoints, Related, pages_read, worth_a_worker
from generator.site.render.paper_pages import SiteContext, needs_engine, paper_page, read_taxonomy, render_paper_page
from generator.site.postbuild import (
    BODIES, BODIES_INDEX, OLD_PAPER_ROWS_DIR, SHELL_SECTIONS, bodies_files, data_dir, kept_gzip, own_shell, page_row, row_line,
    shell_markdown, shell_url, write_deferred, write_first, write_if_changed,
)
from generator.site.exports import citation_files, coauthor_files, related_files, saved_page
from generator.site.search import explore_page, search_files
from generator.site.paper_map import GRID, paper_points
from generator.site.render.map_page import MAP_DATA_FILE, map_data, map_page
from generator.site.render.stats import stats_page

if TYPE_CHECKING:
    from generator.site.serve import FirstPages

ASSETS_DIR = Path(__file__).parent / "assets"
TEMPLATES_DIR = Path(__file__).parent / "templates"


@dataclass
class StageResult:
    docs_dir: Path
    catalog: Catalog
    written: int  # files whose bytes changed
    removed: int
    docs_changed: bool = True  # False: the docs dir is as the engine last saw it (postbuild.reuse_engine_output)
    pending: "Pending | None" = None  # the search index still being built (parallel)
    removed_paths: list[str] = field(default_factory=list)  # staged files removed, for incremental.py
    details_rendered: int = 0  # author and keyword pages rendered for the shells (the others were kept)
    papers_rendered: int = 0  # paper pages rendered for the papers shell (the others were kept)
    shown: dict[str, str] = field(default_factory=dict)  # pages written into the site first: URL -> SHA-1 of its bytes
    rows: dict[str, RowsWritten] = field(default_factory=dict)  # section -> what its data file holds (postbuild.fill_shells)


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


def read_records(
    config: ProjectConfig, cache: Memo | None = None, save: bool = True, read: Pages | None = None
) -> tuple[list[PaperRecord], dict[str, str]]:
    """Every paper page, and where each slug's page lives (relative to the repo root).

    A page whose bytes are those the last build read is not parsed again (``memo.py``);
    ``cache``: the one the build's check read the pages through (they are not parsed twice).
    ``save=False``: the caller saves ``cache``. ``read``: the pages as the build's check read them."""
    cache = cache or Memo(config, "records", shards=PAGE_SHARDS)
    pages = read if read is not None else read_pages(config, cache=cache)
    pages.raise_errors()
    if save:
        cache.save()
    return pages.records, {page.record.slug: page.front.label for page in pages.pages if page.record}


def known_records(prints: Fingerprints, pages: Memo) -> None:
    """Each record the build read through ``pages`` is known by its page's bytes (``Fingerprints.known``):
    a record is a function of its page's bytes alone, so equal bytes are an equal record."""
    for digest, value in pages.new.values():
        page = value[0] if isinstance(value, tuple) and value else None
        if isinstance(page, Page) and page.record is not None:
            prints.known(page.record, f"page\0{digest}")


# Changed records an updated catalog may lag its kept one by before it is kept again: writing it is ~0.3 s
# at 11,672 papers, and an update from further back costs only the few more names it makes again.
KEEP_CATALOG_AFTER = 64


@contextmanager
def _kept_from_the_collector() -> Iterator[None]:
    """No collection while the catalog is made, and none after it walks the catalog or what the build read
    before it (``gc.freeze``) until ``stage_docs`` ends: it all lives that long, and at 11,672 papers an edit
    spent ~0.8 s in two collections that walked it (a gen-0 one of the catalog read with collection paused,
    then a gen-1 one of everything) and found no garbage."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


@dataclass
class KeptCatalog:
    """The build's catalog, and what the build that kept it left: its page keys (``site/carried.py``)."""

    catalog: Catalog
    update: CatalogUpdate | None  # how it was updated from the kept one; None: built whole
    keys: PageKeys | None  # the page keys of the kept one
    keys_memo: Memo  # where they are kept: a file of its own, so the catalog's 12 MB are written once when it is kept
    kept_now: str | None = None  # the digest of the catalog this build kept: its page keys are to be kept (``keep_keys``)
    keep: Callable[[], str] | None = None  # keeps this build's catalog, returning its digest (``catalog_of``)

    def carried(self, context: str) -> Carried:
        """The keys carried into this build's pages. Where the kept paper keys are not this build's (another
        context or areas: a setting, the taxonomy or the project's folder changed, or no keys were kept), the
        catalog is kept again now, with the keys this build makes: else every later edit, until
        ``KEEP_CATALOG_AFTER`` records changed, would fingerprint every paper page again (~0.5 s at 11,672)."""
        areas = areas_digest(self.catalog)
        if self.kept_now is None and self.keep is not None and (
                self.keys is None or self.keys.context != context or self.keys.areas != areas):
            self.kept_now = self.keep()
        return Carried(self.keys, self.update, context, areas)

    def keep_keys(self, keys: PageKeys) -> None:
        if self.kept_now is not None:
            self.keys_memo.put(PAGE_KEYS, self.kept_now, keys)
            self.keys_memo.save()


PAGE_KEYS = "page keys"  # the entry of the kept catalog's page keys (memo kind "page-keys"), under its digest


def catalog_of(config: ProjectConfig, records: list[PaperRecord], pages: Memo) -> KeptCatalog:
    """``build_catalog(records)``, updated from the one a build kept (``catalog.update_catalog``) by the
    records whose pages' bytes changed since: the records read through ``pages`` (``known_records``)."""
    digests = {}
    for label, (digest, value) in pages.new.items():
        page = value[0] if isinstance(value, tuple) and value else None
        if isinstance(page, Page) and page.record is not None:
            digests[page.record.slug] = digest
    memo = Memo(config, "catalog")
    keys_memo = Memo(config, "page-keys")
    kept = memo.old.get("kept")
    update = keys = None
    if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[1], tuple) and len(kept[1]) == 2:
        token, (kept_digests, kept_bytes) = kept
        memo.get("kept", token)
        same = {slug for slug, digest in digests.items() if kept_digests.get(slug) == digest}
        update = update_catalog(kept_bytes, records, same)
        found = keys_memo.get(PAGE_KEYS, token)
        keys = found if isinstance(found, PageKeys) else None
        if update is not None and len(kept_digests) + len(digests) - 2 * len(same) <= KEEP_CATALOG_AFTER:
            return KeptCatalog(update.catalog, update, keys, keys_memo, keep=partial(_keep_catalog, memo, update.catalog, digests))
    catalog = update.catalog if update is not None else build_catalog(records)
    return KeptCatalog(catalog, update, keys, keys_memo, kept_now=_keep_catalog(memo, catalog, digests))


def _keep_catalog(memo: Memo, catalog: Catalog, digests: dict[str, str]) -> str:
    """Keep ``catalog`` for the next builds (``kept_catalog``) in ``memo``; returns the digest it is kept by."""
    kept_bytes = kept_catalog(catalog)
    # the catalog names its papers by slug: their pages' digests are the rest of what it is
    token = content_hash(kept_bytes) + content_hash(repr(sorted(digests.items())).encode("utf-8", "surrogatepass"))
    memo.put("kept", token, (digests, kept_bytes))
    memo.save()
    return token


def _site_src_files(config: ProjectConfig) -> dict[str, bytes]:
    """site_src as it is, minus the paper pages (they become display pages) and the staging dir.

    Found by ``folder.docs_files``, which refuses what ``papersite check`` refuses: a file
    linked from outside the project is never copied into the site."""
    found, problems = docs_files(config, skip=(config.build_dir, config.site_dir))
    if problems:
        raise PapersiteError(*problems)
    return {rel: path.read_bytes() for rel, path in found.items()}


def directory_page(path: str) -> str:
    """``authors/x.md`` -> ``authors/x/index.md``: each generated page sits in its URL's folder.

    Zensical resolves relative links in raw HTML against the Markdown file;
    MkDocs leaves them as written. Both read our page-relative links the same
    way only when the file and its URL are in the same folder.
    """
    if path == "index.md" or path.endswith("/index.md"):
        return path
    return path[: -len(".md")] + "/index.md"


@dataclass
class Generated:
    files: dict[str, bytes | None]  # docs dir path -> bytes, for the engine (None: already staged, see _generate)
    catalog: Catalog
    shell_data: dict[str, bytes | None]  # section -> its detail pages for postbuild.py (None: written already)
    staged: Memo  # the fingerprint each staged paper page was rendered from: saved once the docs dir is complete
    docs_written: int = 0  # paper pages written straight into the docs dir
    bodies: tuple[bytes, bytes] | None = None  # postbuild.BODIES and BODIES_INDEX: the index pages' bodies
    details_rendered: int = 0  # author and keyword pages rendered (the others were kept: memo.write_rows)
    papers_rendered: int = 0  # paper pages rendered for the papers shell (the others were kept)
    shown: dict[str, str] = field(default_factory=dict)  # postbuild.write_first's
    coauthors: dict[str, bytes] = field(default_factory=dict)  # the co-author files (exports.coauthor_files)
    rows: dict[str, RowsWritten] = field(default_factory=dict)  # section -> what write_rows wrote into its data file


def _generate(
    config: ProjectConfig,
    catalog: Catalog,
    source_of: dict[str, str],
    shells: bool,
    search: bool,
    target: Path,
    prints: Fingerprints | None = None,
    kept: KeptCatalog | None = None,
    first: "FirstPages | None" = None,
) -> Generated:
    """``target``: the docs dir being staged. Paper pages are written as they are rendered
    (not held in memory): as rows of the papers shell's data file (with ``shells``), or into
    ``target`` for those the engine renders (``needs_engine``), left in ``files`` as None. A page
    whose renderer's arguments have the fingerprint its row or staged file was rendered from is
    not rendered again (``memo.py``): the arguments are the page's view of the catalog (``views.py``).
    ``kept``: the catalog as ``catalog_of`` made it; the author and paper pages' keys it carries from the build
    that kept it are not computed again (``carried.py``). ``first``: the pages a server's edit changed, rendered
    before the rest and written into the site whole (``postbuild.write_first``), each said to the server.
    """
    # the taxonomy read once for all pages (SiteContext.for_paper)
    context = SiteContext(config, Venue.from_settings(config.venue, config.site_name), source_of, (read_taxonomy(config),))
    prints = prints or Fingerprints()
    prints.known_settings(config)  # the taxonomy by its bytes: the pages' context holds the settings
    context_key = context_digest(prints, context)
    carried = kept.carried(context_key) if kept is not None else NO_KEYS
    # authors, keywords and paper views known by what they are made of (but the authors whose keys are carried)
    views = Views(catalog, prints, kept=carried.kept_slugs())

    def paper_args(paper: PaperRecord) -> tuple:
        return (paper, views.paper(paper), context.for_paper(paper.slug))

    files = _site_src_files(config)
    shown: dict[str, str] = {}
    edited = [paper for paper in catalog.papers if source_of.get(paper.slug) in first.names and not needs_engine(paper)
              and not {f"{layout.paper_url(paper.slug)}index.md", f"{layout.paper_url(paper.slug)[:-1]}.md"} & files.keys()] \
        if first is not None and shells else []  # (a hand-written page in site_src wins: the engine renders it)
    if edited:  # the pages a server's edit changed, before the rest: seen ~2 s sooner at 11,672 papers
        shown = write_first(config, config.site_dir, layout.PAPERS_SECTION,
                            [page_row(paper_page(*paper_args(paper))) for paper in edited])
        for url, digest in shown.items():
            first.shown(url, digest)

    lists = Memo(config, "index-lists", shards=PAGE_SHARDS)

    def keep(label: str, render: Callable[..., str], *args: Any) -> str:  # an A to Z list or a list's row, kept by what it shows
        return lists.value(f"{render.__qualname__}\0{label}", prints.of(render, args), lambda: render(*args))

    pages = index_pages(catalog, context, keep)
    pages[layout.STATS.staged()] = stats_page(catalog)
    pages[layout.EXPLORE.staged()] = explore_page(catalog)
    pages[layout.MAP.staged()] = map_page(catalog, keep)
    pages[layout.SAVED.staged()] = saved_page()
    lists.save()
    bodies: list[list[str]] = []  # [page URL, body] of the index pages staged as their own shell
    for path, text in pages.items():
        if path in files:  # a hand-written page in site_src wins
            continue
        staged_path = directory_page(path)
        if shells and staged_path not in files:
            text, body = own_shell(text)
            bodies.append([staged_path[: -len("index.md")], body])
        files.setdefault(staged_path, text.encode("utf-8"))
    shell_data: dict[str, bytes | None] = {}
    rows: dict[str, RowsWritten] = {}
    details_rendered = 0  # author and keyword pages not kept from the last build
    # each row's URL -> its key: the next builds' carried keys, if this one kept the catalog
    author_keys: dict[str, str] = {}
    keyword_keys: dict[str, str] = {}
    paper_keys: dict[str, str] = {}
    for section, sources in detail_sources(catalog, views, carried.author, carried.keyword).items():
        # a hand-written page in site_src wins here too
        sources = [d for d in sources if f"{d.url}index.md" not in files and f"{d.url[:-1]}.md" not in files]
        if shells and sources:
            files[f"{shell_url(section)}index.md"] = shell_markdown(section).encode("utf-8")
            # rendered one at a time (or kept from the last build) and written at once: see memo.write_rows
            written = rows[section] = RowsWritten()
            details_rendered += write_rows(config, section, sources, data_dir(config) / f"{section}.json", _row_line, prints,
                                           {"authors": author_keys, "keywords": keyword_keys}.get(section), written)
            shell_data[section] = None
        else:
            for source in sources:
                files[f"{source.url}index.md"] = detail_page_markdown(source.render(*source.args)).encode("utf-8")
    staged = Memo(config, "staged")
    staged.forget()  # until the docs dir is complete
    docs_written = papers_rendered = 0
    # Paper pages the papers shell takes: rows of one data file, kept like the author and keyword
    # pages. One file, not one per page: 11,672 files created by the stage and opened again by
    # the post-build step cost seconds on a slow disk.
    shelled: list[_PaperRow] = []
    for paper in catalog.papers:
        if shells and not needs_engine(paper):
            key = carried.paper(paper, source_of.get(paper.slug))
            shelled.append(_PaperRow(layout.paper_url(paper.slug), key, partial(paper_args, paper)))
            continue
        args = paper_args(paper)
        rel = f"{layout.paper_url(paper.slug)}index.md"
        key = prints.of(render_paper_page, args)
        if staged.get(rel, key) is None or not (target / rel).is_file():
            docs_written += write_if_changed(target / rel, render_paper_page(*args).encode("utf-8"))
        staged.put(rel, key, True)
        files[rel] = None
    shutil.rmtree(data_dir(config) / OLD_PAPER_ROWS_DIR, ignore_errors=True)  # a row file per page, before
    if shelled:
        files[f"{shell_url(layout.PAPERS_SECTION)}index.md"] = shell_markdown(layout.PAPERS_SECTION).encode("utf-8")
        written = rows[layout.PAPERS_SECTION] = RowsWritten()
        papers_rendered = write_rows(config, layout.PAPERS_SECTION, shelled, data_dir(config) / f"{layout.PAPERS_SECTION}.json",
                                     _row_line, prints, paper_keys, written)
        shell_data[layout.PAPERS_SECTION] = None
    if kept is not None and kept.kept_now is not None:
        kept.keep_keys(PageKeys(context_key, areas_digest(catalog), by_slug(layout.AUTHOR, author_keys),
                                {p.slug: (paper_keys[url], source_of.get(p.slug))
                                 for p in catalog.papers if (url := layout.paper_url(p.slug)) in paper_keys},
                                by_slug(layout.KEYWORD, keyword_keys)))
    # the authors' pages' keys know their co-authors: a file of them is made again where a key moved
    coauthors = coauthor_files(catalog, config, author_keys if shells else None)
    if search:
        files.update(browser_data(catalog, config, prints))
    for asset in sorted(ASSETS_DIR.iterdir()):
        if asset.is_file():
            files[f"assets/papersite/{asset.name}"] = shipped_asset(asset.name, asset.read_bytes())
    bodies_data = bodies_files(bodies) if bodies else None
    return Generated(files=files, catalog=catalog, shell_data=shell_data, staged=staged, docs_written=docs_written,
                     bodies=bodies_data, details_rendered=details_rendered, papers_rendered=papers_rendered, shown=shown,
                     coauthors=coauthors, rows=rows)


@dataclass
class _PaperRow:
    """A paper page of the papers shell, as ``memo.write_rows`` takes it: its arguments (the paper's view and its
    context) are made only when asked, and a page whose key is carried (``carried.py``)
    and whose row is intact is never asked."""

    url: str
    key: str | None
    make: Callable[[], tuple]
    render = staticmethod(paper_page)

    @property
    def args(self) -> tuple:
        return self.make()


def _row_line(page) -> bytes:  # noqa: ANN001 (render.html.DetailPage)
    return row_line(page_row(page))


def write_tree(target: Path, files: dict[str, bytes | None], removed_paths: list[str] | None = None) -> tuple[int, int]:
    """Make ``target`` hold exactly ``files``; returns (files written, files removed).

    A None in ``files`` is a file already in ``target`` as it should be.

    ``removed_paths`` collects the relative paths of the files removed."""
    written = removed = 0
    target.mkdir(parents=True, exist_ok=True)
    existing: dict[str, int] = {}  # rel path -> size, from one walk of the tree
    for dirpath, dirnames, filenames in os.walk(target):
        here = Path(dirpath)
        # a link in the tree is none of ours: removed, so nothing is written through it (a FIFO: refused)
        for name in [n for n in dirnames + filenames if clear_the_way(here / n)]:
            dirnames[:] = [d for d in dirnames if d != name]
            filenames[:] = [f for f in filenames if f != name]
        for name in filenames:
            path = here / name
            existing[path.relative_to(target).as_posix()] = path.stat().st_size
    made: set[Path] = set()
    for rel, data in files.items():
        path = target / rel
        size = existing.get(rel)
        if data is None:  # staged already (stage._generate)
            if size is None:
                raise PapersiteError(f"{path}:1: the staged file vanished while staging; build again")
            continue
        if size is not None:
            # a file of another size differs: no need to read it
            if size == len(data) and path.read_bytes() == data:
                continue
        elif path.parent not in made:
            if path.parent.is_file():
                path.parent.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        if path.is_dir():
            shutil.rmtree(path)
        path.write_bytes(data)
        written += 1
    for rel in sorted(existing.keys() - files.keys()):
        path = target / rel
        if path.is_file():
            path.unlink()
            removed += 1
            if removed_paths is not None:
                removed_paths.append(rel)
    for dirpath, dirnames, filenames in os.walk(target, topdown=False):
        here = Path(dirpath)
        if here != target and not any(here.iterdir()):
            here.rmdir()
    return written, removed


class Pending:
    """The search index, built by a forked worker while the engine runs.

    lunr.py takes one core for many seconds at 12k papers; the engine is a
    separate single-threaded process, so on two cores the index costs little
    wall time. The worker starts as soon as the catalog exists, at low priority
    (it must not slow the staging), writes ``postbuild/deferred/``, and
    ``postbuild.py`` copies that into the site after the engine.

    ``answering``: the workers whose answers go into the map's and related papers' data files: stopped once the
    search worker ended, or with it. Their process is this one's child to end. ``jobs``: writing those files, done
    by the search worker once its own files are written or by this process when it has nothing left to do but
    wait for it (``wait``), whichever comes to it first: either may be the edit's longest path (BENCHMARKS.md,
    issue 31 part 25).
    """

    def __init__(self, worker: Forked | None, answering: list | None = None, jobs: SharedJobs | None = None) -> None:
        self.worker = worker
        self.answering = answering or []
        self.jobs = jobs

    def wait(self) -> None:
        try:
            if self.jobs is not None:
                self.jobs.do_untaken()
            if self.worker is not None:
                worker, self.worker = self.worker, None
                worker.result()
        except BaseException:
            self.cancel()
            raise
        finally:
            self._end_answering()

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.worker = None
        self._end_answering()

    def _end_answering(self) -> None:
        for worker in self.answering:  # each has sent all it had (the data files are written), or is not wanted
            worker.cancel()
        self.answering = []
        if self.jobs is not None:
            self.jobs.close()


def _write_map_data(catalog: Catalog, map_points: "MapPoints | None", out_dir: Path) -> None:
    """The map's points, beside the engine like the search files: a retitled paper moves points by a
    hair, and that alone must not run the engine (no page shows them)."""
    points = map_points.result() if map_points is not None else paper_points(catalog.papers)
    write_deferred(out_dir, {MAP_DATA_FILE: kept_gzip(out_dir, MAP_DATA_FILE, map_data(catalog, points, GRID))}, "manifest-map.json")


def _write_related_data(catalog: Catalog, related: Related, config: ProjectConfig, out_dir: Path) -> None:
    """Each paper's related papers (``exports.related_files``), beside the engine like the map's data: no page
    holds them, so the pages are rendered without waiting for them, and a change of them alone runs no engine."""
    write_deferred(out_dir, related_files(catalog, related.result(), config), "manifest-related.json")


def browser_data(catalog: Catalog, config: ProjectConfig, prints: Fingerprints | None = None) -> dict[str, bytes]:
    """What the browser fetches on demand: the search files and the citations it downloads. No
    page shows them, so they are made beside the engine (``Pending``) and a change of them alone
    (a retitled paper's citation) runs no engine. ``prints``: the build's (not shared with another
    thread: a ``Fingerprints`` is one thread's)."""
    venue = Venue.from_settings(config.venue, config.site_name)
    return {**search_files(catalog, config, prints), **citation_files(catalog, venue, config.site_name, config, prints)}


def _search_worker(config: ProjectConfig, catalog: Catalog, out_dir: Path, prints: Fingerprints | None = None,
                   jobs: SharedJobs | None = None) -> None:
    """The search files and citations, then those of ``jobs`` (the map's and related papers' data) the build has
    not taken (``Pending``)."""
    write_deferred(out_dir, browser_data(catalog, config, prints))
    if jobs is not None:
        jobs.do_untaken()


def stage_docs(
    config: ProjectConfig, *, shells: bool = True, parallel: bool = False,
    pages: Memo | None = None,
    checked: Pages | None = None,
    first: "FirstPages | None" = None,
    early: dict[str, Early] | None = None,
) -> StageResult:
    """Stage the docs dir: everything the engine builds, written into ``build/docs``.

    ``shells``: sections with many detail pages (papers, authors, keywords) get one
    shell page plus data for ``postbuild.py`` instead of one Markdown page per entry
    (a paper page with a maintainer's Markdown body stays a page of its own).

    ``parallel`` (when fork is available): related papers in a worker, and the
    search index in a worker that runs on while the engine builds; the caller
    must then run ``postbuild.run_postbuild(config, site_dir, result.pending)``.
    Only for a process with no other threads (the CLI; ``papersite serve`` runs
    it as a child process): forking beside running threads risks a child stuck
    on a held lock.

    ``pages``: the cache the build's check read the pages through, to read them from; ``checked``:
    the pages the check read (each page file is then read once per build). ``first``: the pages a server's edit
    changed, written into the site first (``_generate``). ``early``: related papers' and the map's workers, started
    before the check read the pages (``textwork.start_early``); they are this stage's to take or cancel.
    """
    check_project_places(config)  # before the first write: no link out of the project in build_dir or site_dir
    # The staged dir is about to differ from what the last `papersite build` rendered
    # (a `mkdocs serve` may be staging): that build's site is no base for a dirty one.
    clear_stamp(config, ENGINE_STAMP)
    remove_old_formats(config)
    pages = pages or Memo(config, "records", shards=PAGE_SHARDS)
    records, source_of = read_records(config, pages, save=False, read=checked)
    early = early or {}
    workers: list = list(early.values())
    try:
        prints = Fingerprints()
        known_records(prints, pages)
        fork = parallel and worth_a_worker(len(records))
        read = pages_read(pages) if early else None
        # related papers' forked worker keeps the memo of pages for the next build's early worker (every kind's items)
        keeps = pages if fork and not early else None
        related = Related(config, records, fork=fork, prints=prints, early=early.get(Related.KIND), read=read, checked=keeps)
        workers.append(related)
        map_points = MapPoints(config, records, fork=fork, prints=prints, early=early.get(MapPoints.KIND), read=read)
        workers.append(map_points)
        slugs = KnownSlugs(config)  # slugify is slow: the names' slugs the last build made
        with _kept_from_the_collector():
            kept = catalog_of(config, records, pages)
            catalog = kept.catalog
        post = data_dir(config)
        deferred = post / "deferred"
        for manifest in deferred.glob("manifest*.json"):  # its files stay: each is rewritten only if it changed
            clear_the_way(manifest)  # a FIFO in its place is named, not removed
            manifest.unlink(missing_ok=True)
        pending = None
        if parallel and can_fork():
            # the build's prints go with the fork (its own copy): they know each record by its page's bytes. Not
            # niced: in an edit it is the last work to end (BENCHMARKS.md, issue 31 part 19). It or this process,
            # whichever is free first, writes the map's and related papers' data from their workers' answers
            # (``Pending``); the pending search reaps those workers
            # a job a file, the larger first: each worker's answer comes on a pipe of its own (textwork.EarlyWorker),
            # so this process and the search worker may each write one as they end together
            jobs = SharedJobs(partial(_write_map_data, catalog, map_points, deferred),
                              partial(_write_related_data, catalog, related, config, deferred))
            pending = Pending(Forked("search index", _search_worker, config, catalog, deferred, prints, jobs),
                              answering=[related, map_points], jobs=jobs)  # (each ends its early worker too)
            workers.append(pending)
        # after the workers started (the search index's is the edit's longest path): it is ~35 MB to write at 11,672 papers
        pages.save()
        slugs.save()
        target = staged_docs_dir(config)
        generated = _generate(
            config, catalog, source_of, shells=shells, search=pending is None,
            target=target, prints=prints, kept=kept, first=first,
        )
        if pending is None:
            _write_map_data(catalog, map_points, deferred)
            _write_related_data(catalog, related, config, deferred)
        write_deferred(deferred, generated.coauthors, "manifest-coauthors.json")  # beside the engine: no page holds them
        removed_paths: list[str] = []
        written, removed = write_tree(target, generated.files, removed_paths)
        docs_changed = bool(written or removed or generated.docs_written)
        written += generated.docs_written  # the paper rows: counted apart (papers_rendered)
        generated.staged.save()
        write_tree(staged_overrides_dir(config), template_files())
        post.mkdir(parents=True, exist_ok=True)
        if generated.bodies is None:
            (post / BODIES).unlink(missing_ok=True)
            (post / BODIES_INDEX).unlink(missing_ok=True)
        else:
            write_if_changed(post / BODIES, generated.bodies[0])
            write_if_changed(post / BODIES_INDEX, generated.bodies[1])
        for section in SHELL_SECTIONS:
            path = post / f"{section}.json"
            if section in generated.shell_data:
                data = generated.shell_data[section]
                if data is not None:
                    write_if_changed(path, data)
            else:
                path.unlink(missing_ok=True)
    except BaseException:
        for worker in workers:
            worker.cancel()
        raise
    finally:
        gc.unfreeze()  # what _kept_from_the_collector held is the collector's again (a caller may go on)
    return StageResult(
        docs_dir=target, catalog=catalog, written=written, removed=removed, pending=pending, removed_paths=removed_paths,
        docs_changed=docs_changed, details_rendered=generated.details_rendered, papers_rendered=generated.papers_rendered,
        shown=generated.shown, rows=generated.rows,
    )
