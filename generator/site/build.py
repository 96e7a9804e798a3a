"""``papersite build`` and ``papersite serve``: the site stages, in the order of ``pipeline.SITE_STAGES``.

import -> check -> stage -> engine -> post-build, each timed (``Timings``; the
build's last line gives the seconds, ``--timings FILE`` writes them as JSON with
the import's own stages). The import is skipped when nothing it reads changed;
pages whose bytes the last build read are not parsed again (``memo.py``);
the engine renders only the pages whose staged text changed; ``--clean`` does
all of it in full. ``mkdocs build`` / ``mkdocs serve`` on the project reach the
same result through ``plugin.py``, which runs the stage step from the config
hook and the post-build step after the build. ``papersite serve`` is ``serve.py``.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.pages.folder import read_pages
from generator.config import MKDOCS_FILE, ProjectConfig, mkdocs_yml_text
from generator.outputs import check_output
from generator.pages.folder import display_path as display
from generator.pages.store import interrupts_deferred, project_lock, recover, write_together
from generator.site.engines import EngineError, build_with_engine
from generator.pipeline import IMPORT_STAGES, SITE_STAGES, Timings, write_timings
from generator.site.zensical_config import read_config
from generator.site import incremental
from generator.site.filehashes import FileHashes
from generator import layout
from generator.problems import PapersiteError, one_line

# 1980-01-01: the earliest date zip and friends accept; used when git has no answer.
FALLBACK_EPOCH = "315532800"


def source_date_epoch(root: Path) -> str:
    """The build date for the sitemap: the last commit's time, so rebuilds of one input are identical."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True, text=True, timeout=10, check=False
        )
        value = out.stdout.strip()
        if out.returncode == 0 and value.isdigit():
            return value
    except (OSError, subprocess.SubprocessError):
        pass
    return FALLBACK_EPOCH


def _say(quiet: bool, message: str) -> None:
    if not quiet:
        print(message, file=sys.stderr)


def import_unless_unchanged(
    config: ProjectConfig, quiet: bool, clean: bool, timings: Timings | None = None, imported: str | None = None,
    starting: Callable[[], None] | None = None,
) -> int | None:
    """The import step, skipped when nothing it reads changed since it last succeeded
    (``papersite import`` or a build's; ``run_import`` keeps the stamp): None when skipped,
    else the import's exit status. ``imported``: ``incremental.import_inputs``, if the caller has it.
    ``starting``: called just before the import runs."""
    from generator.ingest.importer import run_import

    if imported is None:
        imported = incremental.import_inputs(config)
    if not clean and incremental.stamp_matches(config, incremental.IMPORT_STAMP, imported):
        _say(quiet, "import: no listing, page, state or setting changed since the last import; skipped")
        return None
    if starting is not None:
        starting()
    return run_import(argparse.Namespace(sources=[], report=None, quiet=quiet), config, timings)


def _theme_dirs(config: ProjectConfig) -> list[Path]:
    """The project's own theme overrides (mkdocs.yml ``theme.custom_dir``), which reach every page."""
    text = mkdocs_yml_text(config.root)  # (PapersiteError where papersite may not read it: the build stops, saying so)
    if text is None:
        return []
    theme = read_config(text, config.root / MKDOCS_FILE).get("theme")
    custom = theme.get("custom_dir") if isinstance(theme, dict) else None
    return [config.root / str(custom)] if custom else []


# Python collects its youngest objects every 700 allocations, and a build makes
# millions of objects (records, catalog, rendered pages) that live until it ends:
# each collection that reaches the older generations walks them again (a third of
# the catalog's time at 12k papers). Collecting every 50,000 allocations keeps
# nearly all of that time and still frees garbage cycles.
BUILD_GC_THRESHOLD = (50_000, 20, 10)


def gc_for_builds() -> None:
    gc.set_threshold(*BUILD_GC_THRESHOLD)


@contextmanager
def build_gc() -> Iterator[None]:
    """``gc_for_builds`` for the length of a build (the forked workers inherit it); the
    thresholds are restored afterwards, as `papersite serve` outlives many builds."""
    before = gc.get_threshold()
    gc_for_builds()
    try:
        yield
    finally:
        gc.set_threshold(*before)


def held_to_exit(args: argparse.Namespace, *objects: object) -> None:
    """Keep ``objects`` alive until the process exits, where the command's caller ends it at once (``cli.entry``):
    the catalog, pages and memos a build read are millions of objects, and freeing them as the build's calls
    return was ~0.1 s at the very end of an edit at 11,672 papers, after the site was complete."""
    held = getattr(args, "held_to_exit", None)
    if held is not None:
        held.extend(objects)


def run_build(args: argparse.Namespace, config: ProjectConfig) -> int:
    # One import or build at a time per project; the import inside re-enters the lock.
    try:
        if getattr(args, "timings", None):
            check_output(args.timings)  # before anything changes
        with project_lock(config, "build"), build_gc():
            recovered = recover(config)
            if recovered:
                _say(bool(getattr(args, "quiet", False)), f"papersite: {recovered}")
            return _locked_build(args, config)
    except PapersiteError as error:  # a stage, the engine or the post-build step said what is wrong
        for line in error.lines():
            print(f"papersite: {line}", file=sys.stderr)
        return 1
    except OSError as error:  # a full disk or a read-only build/site folder
        print(one_line(f"papersite: {error.filename or config.build_dir}:1: {error.strerror or error}; build stopped"), file=sys.stderr)
        return 1


def _locked_build(args: argparse.Namespace, config: ProjectConfig) -> int:
    """``SITE_STAGES`` in their order (pipeline.py), each timed; nothing at all when no input
    changed since the last build (``incremental.build_inputs``)."""
    quiet = bool(getattr(args, "quiet", False))
    clean = bool(getattr(args, "clean", False))
    os.environ["SOURCE_DATE_EPOCH"] = source_date_epoch(config.root)
    timings, import_timings = Timings(SITE_STAGES), Timings(IMPORT_STAGES)
    # one for the build's stamps, saved once each covered them all: each stamp's own would keep only
    # the files it covers, and the next would read and hash the others again (11,672 pages a build)
    hashes = incremental.file_hashes(config)
    # related papers' and the map's worker (``textwork.start_early``), by kind: the stage's to take, else ended here.
    # Started before the stamps know whether anything changed: they are one core's work (~0.7 s of an edit at 11,672
    # papers) and the other core idles meanwhile; a build with nothing to do ends it unasked, one with many changed
    # files before the check (``_checked_stages``)
    early: dict = {}
    if not clean:
        from generator.site.textwork import start_early

        early.update(start_early(config, changed=0))
    # The import's share of the stamps is most of their cost at scale (every page's view,
    # ingest/pagestamp.py): computed once, for the build stamp and for the import's skip.
    checks = _CheckCache(config, hashes)
    no_import = bool(getattr(args, "no_import", False))
    settle: list[tuple[Path, str]] | None = None if clean or no_import else []
    try:
        imported = incremental.import_inputs(config, hashes, checked=checks, settle=settle, pages=not no_import)
        _settle_page_edits(config, quiet, settle, imported, hashes)
        inputs = _build_inputs(args, config, hashes, imported)
        if not clean and incremental.stamp_matches(config, incremental.BUILD_STAMP, incremental.build_stamp(config, inputs)):
            _say(quiet, f"build: nothing changed since the last build; {display(config.site_dir, config.root)} is up to date")
            status = 0
        else:
            incremental.clear_stamp(config, incremental.BUILD_STAMP)  # trusted again only once this build ends well
            status = _stages(args, config, quiet, clean, timings, import_timings, imported, inputs, checks, hashes, early)
    finally:
        for worker in early.values():  # ended already where the stage took their answers
            worker.cancel()
        held_to_exit(args, hashes, checks)
    if getattr(args, "timings", None):
        write_timings(Path(args.timings), import_timings, timings)
    return status


def _settle_page_edits(config: ProjectConfig, quiet: bool, settle: list[tuple[Path, str]] | None, imported: str,
                       hashes: FileHashes) -> None:
    """Write the pages the import would write only to record a maintainer's edit of a value a
    reference filled (``pagestamp.settled_text``), as it would write them, when that is all the
    import would do: its stamp, which counts them as written, matches. Else the import runs and
    writes them itself, merged with whatever else changed."""
    if not settle or not incremental.stamp_matches(config, incremental.IMPORT_STAMP, imported):
        return
    write_together(settle, config)
    hashes.forget_stats()
    names = ", ".join(display(path, config.root) for path, _ in settle[:3]) + (" ..." if len(settle) > 3 else "")
    _say(quiet, f"import: {len(settle)} edited page(s) no longer credit a reference with a value a maintainer "
                f"replaced ({names}); no listing changed, nothing else to import")


def _build_inputs(args: argparse.Namespace, config: ProjectConfig, hashes: FileHashes, imported: str | None = None) -> str:
    return incremental.build_inputs(
        config, getattr(args, "engine", "mkdocs"), bool(getattr(args, "no_import", False)), _theme_dirs(config), imported,
        hashes,
    )


class _CheckCache:
    """The check cache (``memo.CheckedPages``: 35 MB at 11,672 papers), loaded at most once a build:
    the import stamp parses the changed pages through it, then the check reads every page through it."""

    def __init__(self, config: ProjectConfig, hashes: FileHashes) -> None:
        self.config, self.hashes = config, hashes
        self.memo = None

    def __call__(self):  # noqa: ANN204 - a CheckedPages, imported only when a page changed
        if self.memo is None:
            from generator.site.memo import CheckedPages

            self.memo = CheckedPages(self.config, self.hashes.stat_of)
        return self.memo


def _stages(args, config, quiet, clean, timings, import_timings, imported: str, inputs: str, checks: _CheckCache,  # noqa: ANN001
            hashes: FileHashes, early: dict) -> int:
    """``inputs``: ``_build_inputs`` as the build began (``imported``: its import share). ``early``: the early
    worker by kind, if the import's stamp started it (``_checked_stages`` may start it, and hands it on)."""
    if not getattr(args, "no_import", False):

        def stop_early() -> None:  # it read the pages the import is about to write
            for worker in early.values():
                worker.cancel()
            early.clear()

        with timings.stage("import"):
            status = import_unless_unchanged(config, quiet, clean, import_timings, imported, starting=stop_early)
        if status:
            return status
        if status is not None:  # the import ran and wrote its pages: the steps below read those
            hashes.forget_stats()
            inputs = _build_inputs(args, config, hashes)
            checks = _CheckCache(config, hashes)  # and saved its own check cache
    status = _checked_stages(args, config, quiet, clean, timings, checks, hashes, early)
    if status == 0:
        incremental.write_stamp(config, incremental.BUILD_STAMP, incremental.build_stamp(config, inputs))
    return status


def _checked_stages(args, config, quiet, clean, timings, checks: _CheckCache, hashes: FileHashes,  # noqa: ANN001
                    early: dict) -> int:
    # Imported here, not above: a build with nothing to do stops before them (a second of imports).
    from generator.pages.check import check_pages, errors_only, project_file_problems
    from generator.site.memo import forget_all
    from generator.site.stage import stage_docs
    from generator.site.textwork import EARLY_AT_MOST_CHANGED, start_early

    engine = getattr(args, "engine", "mkdocs")
    stamp = incremental.engine_inputs(config, engine, _theme_dirs(config), hashes)
    # Decided before staging, which clears the stamp: the site holds what this engine, run as now, rendered last, so
    # the engine renders into it only what changed (MkDocs' --dirty; Zensical, which has no such mode, renders its
    # few pages aside, moved over their last versions: engines.py), or nothing (``skip_engine``).
    dirty = not clean and config.site_dir.is_dir() and incremental.stamp_matches(config, incremental.ENGINE_STAMP, stamp)
    staged = None
    try:
        with timings.stage("check"):
            # The same validation as `papersite check`: never build a site from pages it rejects.
            if clean:  # a full build trusts nothing the last one kept
                forget_all(config)
                checks = _CheckCache(config, hashes)
            # on the core the check leaves idle; their answers are taken only for the pages the check read
            if hashes.read > EARLY_AT_MOST_CHANGED:  # the worker started with the build would parse them beside the check
                for worker in early.values():
                    worker.cancel()
                early.clear()
            if not early:  # (the import ran, which ended it)
                early.update(start_early(config, changed=hashes.read))
            # Pages whose bytes the last build checked are not parsed again (memo.py).
            checked = checks()
            found = read_pages(config, cache=checked, lstat=hashes.lstat_of)  # staged below as they were checked
            errors = errors_only(project_file_problems(config) + check_pages(config, cache=checked, found=found))
            if errors:  # else the stage saves it, once its first worker has started
                checked.save()
        if errors:
            for problem in errors:
                print(problem, file=sys.stderr)
            print(
                f"papersite: {len(errors)} problem(s) in the paper pages or the project's files; fix them (see `papersite check`)",
                file=sys.stderr,
            )
            return 1
        # the pages a server's edit changed, written first (serve.FirstPages): only where the engine renders changed
        # pages alone (a full run would clear the site under them)
        first = getattr(args, "first_pages", None) if dirty else None
        with timings.stage("stage"):
            staged = stage_docs(config, parallel=True, pages=checked, checked=found, first=first, early=early)
    finally:
        if staged is None or staged.pending is None:  # else the search worker takes their answers: its Pending ends them
            for worker in early.values():  # the stage took their answers; else (an error, Ctrl-C) none is wanted
                worker.cancel()
    try:
        return _engine_and_postbuild(config, staged, engine, dirty, stamp, quiet, timings, first)
    finally:
        if staged.pending is not None:  # the engine failed: stop the search worker
            staged.pending.cancel()
        held_to_exit(args, staged, found, checked)


def _engine_and_postbuild(config, staged, engine, dirty, stamp, quiet, timings, first=None) -> int:  # noqa: ANN001
    from generator.site.postbuild import reuse_engine_output

    _say(quiet, f"stage: {len(staged.catalog.papers)} papers -> {staged.docs_dir} "
         f"({staged.written} files written, {staged.removed} removed; {staged.papers_rendered} paper, "
         f"{staged.details_rendered} author and keyword pages rendered) in {timings.seconds['stage']:.1f}s")
    config_file = config.root / MKDOCS_FILE
    if not config_file.exists():
        print(f"papersite: {config_file}:1: no mkdocs.yml in the project; run 'papersite init' or add one", file=sys.stderr)
        return 1
    # Nothing the engine renders changed (an edit that shows only in paper, author, keyword and
    # index bodies): the post-build step fills from the engine's last rendering.
    skip_engine = dirty and not staged.docs_changed and reuse_engine_output(config, config.site_dir)
    touched = _Touched(first)  # set as the first write into site/ begins
    try:
        pages = _engine_then_postbuild(config, config_file, staged, engine, dirty, skip_engine, quiet, timings, touched)
    except KeyboardInterrupt:
        if not touched:
            raise
        # The engine and the post-build step write site/ in place: stopped half-way, it is neither
        # the last site nor the new one. Removed, so nothing serves it and the next build is full.
        with interrupts_deferred():
            shutil.rmtree(config.site_dir, ignore_errors=True)
        raise KeyboardInterrupt(f"{display(config.site_dir, config.root)} was half written and is removed; build again") from None
    incremental.write_stamp(config, incremental.ENGINE_STAMP, stamp)
    how = " (nothing for it to render)" if skip_engine else "" if not dirty else " (changed pages only)" if engine == "mkdocs" \
        else " (its pages, over the last site)"
    _say(quiet, f"build: {engine}{how} -> {config.site_dir}, "
         f"post-build {pages} files ({timings.summary()}; total {sum(timings.seconds.values()):.1f}s)")
    return 0


def _engine_then_postbuild(config, config_file, staged, engine, dirty, skip_engine, quiet, timings, touched) -> int:  # noqa: ANN001
    from generator.site.postbuild import run_postbuild
    from generator.site.stage import staged_overrides_dir

    with timings.stage("engine"):
        if not skip_engine:
            touched.now()
            if dirty:
                incremental.prepare_dirty_build(staged.docs_dir, config.site_dir, staged.removed_paths, layout.PAPERS_SECTION)
            build_with_engine(
                engine,
                config_file,
                docs_dir=staged.docs_dir,
                site_dir=config.site_dir,
                overrides_dir=staged_overrides_dir(config),
                settings=config.engine_settings(),
                strict=True,
                quiet=quiet,
                dirty=dirty,
            )
    with timings.stage("post-build"):
        touched.now()
        return run_postbuild(config, config.site_dir, staged.pending, staged.shown, staged.rows, engine_skipped=skip_engine)


class _Touched:
    """Whether the build began writing ``site/`` in place (false until ``now``); a server's build says so as it begins
    (``first``: serve.FirstPages), as the server sends the site's other files until then."""

    def __init__(self, first=None) -> None:  # noqa: ANN001 (serve.FirstPages)
        self.first = first
        self.began = False

    def now(self) -> None:
        if not self.began and self.first is not None:
            self.first.writing()
        self.began = True

    def __bool__(self) -> bool:
        return self.began


def run_serve(args: argparse.Namespace, config: ProjectConfig) -> int:
    """Live preview: ``serve.py`` rebuilds incrementally on every edit, with the engine asked for."""
    from generator.site.engines import require_engine
    from generator.site.serve import serve

    engine = getattr(args, "engine", "mkdocs")
    try:
        require_engine(engine)
    except EngineError as error:
        for line in error.lines():
            print(f"papersite: {line}", file=sys.stderr)
        return 1
    os.environ["SOURCE_DATE_EPOCH"] = source_date_epoch(config.root)
    return serve(config, args.dev_addr, engine)


__all__ = ["run_build", "run_serve", "source_date_epoch"]
