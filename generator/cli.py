"""Command line: ``papersite import|build|serve|check|correct|issue-form|eval|init``.

Only argument parsing lives here; each command is a function of the stage
module that owns it, called with the parsed arguments and the project config.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from pathlib import Path
from generator.config import load_config
from generator.corrections.form import TEMPLATE_PATH
from generator.outputs import check_output
from generator.problems import PapersiteError, one_line

INTERRUPTED = 128 + signal.SIGINT  # 130: what a shell reports for a command stopped by Ctrl-C
# build's options for ``papersite serve`` alone (site/serve.py, _build_command): the folders it serves and watches;
# load the code, then build only when asked (``serve.WarmBuilds``)
SERVED_FOLDERS = "--served-folders"
WHEN_ASKED = "--when-asked"
# the pipe a build process started with WHEN_ASKED tells the server through which pages it wrote first (serve.FirstPages)
SHOWN_TO = "--shown-to"


def _pages_dir(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {'not a directory' if path.exists() else 'no such directory'}; "
                                         "expected a folder of paper pages")
    return path


def _dev_addr(text: str) -> str:
    from generator.site.serve import parse_dev_addr

    try:
        parse_dev_addr(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text

# Options naming a file a command writes: each must be a regular file or missing (outputs.py).
OUTPUT_OPTIONS = ("report", "timings", "comment")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="papersite", description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path("."), help="project root (default: current directory)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    imp = commands.add_parser("import", help="read listings and write/update one page per paper")
    imp.add_argument("sources", nargs="*", type=Path, help="listing files (default: every file in corpus/)")
    imp.add_argument("--report", type=Path, help="write the import report as JSON to this file")
    imp.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    imp.add_argument("--timings", type=Path, metavar="FILE", help="write the seconds of each stage as JSON (benchmarks)")

    build = commands.add_parser("build", help="import, enrich, index and build the static site into site/")
    build.add_argument("--engine", choices=("mkdocs", "zensical"), default="mkdocs")
    build.add_argument("--no-import", action="store_true", help="build from the pages as they are")
    build.add_argument("--clean", action="store_true", help="a full build: import and render every page again")
    build.add_argument("--quiet", action="store_true")
    build.add_argument("--timings", type=Path, metavar="FILE", help="write the seconds of each stage as JSON (benchmarks)")
    build.add_argument(SERVED_FOLDERS, help=argparse.SUPPRESS)
    build.add_argument(WHEN_ASKED, action="store_true", help=argparse.SUPPRESS)
    build.add_argument(SHOWN_TO, type=int, help=argparse.SUPPRESS)

    serve = commands.add_parser("serve", help="preview the site with live reload")
    serve.add_argument("--engine", choices=("mkdocs", "zensical"), default="mkdocs")
    serve.add_argument("--dev-addr", type=_dev_addr, default="127.0.0.1:8000", metavar="HOST:PORT")

    check = commands.add_parser("check", help="validate every paper page; report all problems as path:line: message")
    check.add_argument(
        "--format", choices=("text", "github"), default="text",
        help="github: print each problem as a GitHub Actions ::error/::warning annotation",
    )

    correct = commands.add_parser("correct", help="apply a 'Fix this paper' issue form to its paper page")
    correct.add_argument("issue_body", type=Path, metavar="ISSUE_BODY_FILE", help="the issue's Markdown body")
    correct.add_argument("--dry-run", action="store_true", help="validate and print the diff; write nothing")
    correct.add_argument("--comment", type=Path, metavar="FILE", help="also write the outcome as a Markdown comment")
    correct.add_argument(
        "--base-pages", type=_pages_dir, metavar="DIR",
        help="the paper pages the form was filled from (a batch): fields left as they were there undo nothing",
    )
    correct.add_argument(
        "--approvals", type=Path, metavar="FILE",
        help="the issue's comments (GitHub API JSON): apply the body only if a maintainer approved its sha256",
    )

    form = commands.add_parser("issue-form", help=f"write the correction form from the taxonomy ({TEMPLATE_PATH})")
    form.add_argument("--check", action="store_true", help="only report whether the committed form is up to date")

    evaluate = commands.add_parser("eval", help="measure topic accuracy, calibration and keyword statistics")
    evaluate.add_argument("--labels", type=Path, action="append", default=[], help="labelled JSONL (title, abstract, topic)")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object instead of text")

    init = commands.add_parser("init", help="create a new, working site skeleton in DIR")
    init.add_argument("directory", type=Path)
    init.add_argument("--site-name", default="My papers")
    init.add_argument("--from", dest="listing", type=Path, metavar="FILE",
                      help="start from your own listing (BibTeX, RIS, CSV/TSV, OpenReview notes, JSON ...) instead of the example")
    return parser


def main(argv: list[str] | None = None, held: list | None = None) -> int:
    """``held``: a list whose items the caller keeps until its process exits (``entry``)."""
    try:
        return _run(argv, held)
    except KeyboardInterrupt as stop:  # Ctrl-C in any command, any stage: one line, no traceback
        # a second Ctrl-C must not interrupt the last words either
        with contextlib.suppress(ValueError):  # (not the main thread: an embedding program's)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        note = f" ({stop.args[0]})" if stop.args and isinstance(stop.args[0], str) else ""
        print(f"\npapersite: interrupted{note}" if sys.stderr.isatty() else f"papersite: interrupted{note}",
              file=sys.stderr, flush=True)
        return INTERRUPTED


def _run(argv: list[str] | None, held: list | None = None) -> int:
    args = _parser().parse_args(argv)
    args.held_to_exit = held  # (build.held_to_exit)
    if getattr(args, "when_asked", False):
        from generator.site.serve import wait_until_asked

        asked = wait_until_asked(sys.stdin, args.project, args.shown_to)
        if isinstance(asked, int):
            return asked
        args.first_pages = asked  # build, writing the pages the edit changed first
    try:
        if args.command == "init":
            from generator.scaffold import run_init

            return run_init(args)
        for option in OUTPUT_OPTIONS:  # before any command changes anything (generator/outputs.py)
            if getattr(args, option, None):
                check_output(getattr(args, option))
        config = load_config(args.project)
        if args.command == "import":
            from generator.ingest.importer import run_import
            from generator.site.build import build_gc

            with build_gc():
                return run_import(args, config)
        if args.command in ("build", "serve"):
            from generator.site.build import run_build, run_serve

            if getattr(args, "served_folders", None):
                from generator.site.serve import served_folders

                config = served_folders(config, args.served_folders)

            return run_build(args, config) if args.command == "build" else run_serve(args, config)
        if args.command == "check":
            from generator.pages.check import run_check

            return run_check(args, config)
        if args.command == "correct":
            from generator.corrections.correct import run_correct

            return run_correct(args, config)  # (it takes the project lock to write)
        if args.command == "issue-form":
            from generator.corrections.correct import run_issue_form

            return run_issue_form(args, config)
        if args.command == "eval":
            from generator.enrich.evaluate import run_eval

            return run_eval(args, config)
    except PapersiteError as error:  # every user error: settings, listings, pages, taxonomy, disk
        for line in error.lines():
            print(f"papersite: {line}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `papersite import | head`: the reader left; what was written stays written.
        sys.stderr.close()
        return 0
    except OSError as error:  # the disk said no where no stage expected it: still one line, no traceback
        print(one_line(f"papersite: {error.filename or args.project}:1: {error.strerror or error}"), file=sys.stderr)
        return 1
    raise AssertionError(args.command)


def entry() -> None:
    """The ``papersite`` command: ``main``, then out at once. A build holds millions of objects (an
    edit at 11,672 papers), and an interpreter that frees them one by one on its way out took a second
    more than the build; every file is closed and every worker reaped by then. ``main`` itself returns,
    for whoever calls it in a process that goes on."""
    held: list = []  # what the build would free on its way back here, dropped with the process instead
    status = main(held=held)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed or broken stream has nothing left to say
            stream.flush()
    os._exit(0 if status is None else status if isinstance(status, int) else 1)  # as sys.exit reads it


if __name__ == "__main__":
    entry()
