"""``papersite import``: listings in, one committed Markdown page per paper out.

In:  listing files (default: every file in ``corpus/``), the paper pages in
     ``site_src/papers/`` (which maintainers edit by hand) and the state file
     (``.papersite/last_import.jsonl``: what the previous import proposed).
Out: created / updated pages, a new state file and an ``ImportReport``.

The stages, in order, are ``pipeline.import_listings``; this module is the
command around them: the project lock, recovery from an interrupted import,
the progress bar, the summary and the JSON report.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from generator.config import ProjectConfig
from generator.outputs import check_output, check_project_places, write_output
from generator.pages.store import project_lock, recover
from generator.pipeline import IMPORT_STAGES, Timings, import_listings, write_timings
from generator.problems import PapersiteError, one_line
from generator.site import incremental

LONG_IMPORT = 2000  # papers: show progress even when stderr is not a terminal


def run_import(args: Any, config: ProjectConfig, timings: Timings | None = None) -> int:
    """``papersite import``: exit 0 on success, 1 when nothing could be written.

    ``timings`` (``papersite build``'s) receives the seconds of each import stage;
    ``--timings FILE`` writes them as JSON.
    """
    timings = timings or Timings(IMPORT_STAGES)
    quiet = bool(getattr(args, "quiet", False))
    sources = list(getattr(args, "sources", None) or [])
    try:  # before anything changes: an import whose report cannot be written writes nothing
        for output in (getattr(args, "report", None), getattr(args, "timings", None)):
            if output:
                check_output(output)
    except PapersiteError as failure:
        for line in failure.lines():
            print(f"papersite: {line}", file=sys.stderr)
        print("papersite: import not started; nothing was written", file=sys.stderr)
        return 1
    try:
        check_project_places(config)  # a lock, journal or state linked out of the project
        with project_lock(config, "import"):
            recovered = recover(config)
            if recovered and not quiet:
                print(f"papersite: {recovered}", file=sys.stderr)
            # the command line: no other threads, so enrichment may fork a worker
            report = import_listings(sources, config, progress=None if quiet else _progress_bar, timings=timings, parallel=True)
            # The configured listings: `papersite build` need not import them again. A failed import
            # keeps the last stamp: it wrote all of its pages and state or none (pages/store.py), and
            # a stamp that matched before still describes the files as they are.
            if not sources:
                incremental.write_stamp(config, incremental.IMPORT_STAMP, incremental.import_inputs(config))
    except PapersiteError as failure:
        for line in failure.lines():
            print(f"papersite: {line}", file=sys.stderr)
        print("papersite: import aborted; nothing was written", file=sys.stderr)
        return 1
    except OSError as error:  # a full disk, a read-only folder, a directory named x.md: before the commit
        where = error.filename or config.papers_dir
        print(one_line(f"papersite: {where}:1: {error.strerror or error}; import aborted, nothing was written"), file=sys.stderr)
        return 1
    if getattr(args, "report", None):
        try:
            write_output(Path(args.report), json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
        except PapersiteError as error:  # made a symlink or a FIFO while the import ran
            print(f"papersite: {error.first}; the import itself was written", file=sys.stderr)
            return 1
        except OSError as error:
            print(f"papersite: {args.report}:1: cannot write the report ({error.strerror}); the import itself was written", file=sys.stderr)
            return 1
    if getattr(args, "timings", None):
        write_timings(Path(args.timings), timings)
    if not quiet:
        print(report.summary())
    return 0


def _progress_bar(done: int, total: int) -> None:
    stream = sys.stderr
    if stream.isatty():
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\rimporting [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            stream.write("\n")
        stream.flush()
    elif total >= LONG_IMPORT and (done == total or done % 2048 == 0):
        stream.write(f"importing: {done}/{total} papers\n")
