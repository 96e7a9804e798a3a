"""One edit's cost, two versions of papersite side by side: the probe paper's title (or its abstract)
edited, then `papersite build --no-import` (`papersite build` with --checked-import), alternated between two
projects each built by its own code.

    python bench/edit_pair.py --before PROJECT CODE --after PROJECT CODE [--rounds 6] [--edit abstract|moved-title]
        [--checked-import]

PROJECT: a project both codes can build (make one with `bench/run.py`'s `new_project`, import it, copy
it, and build each copy once with its code); CODE: the folder holding that version's `generator`
package (a git worktree): each build runs in it, with it on PYTHONPATH. The order alternates each round, so a machine that
slows down or speeds up meanwhile weighs on both. Prints each build's wall and CPU seconds (user +
system of the build and its workers) and the medians; the ratio is the figure to compare across
machines. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import PROBE_TITLE, _slug, measured_env  # noqa: E402 - beside this script


def _edit_probe(project: Path, pattern: str, replacement: str, what: str) -> None:
    """The probe page with its first line matching ``pattern`` (a regex of one line) replaced."""
    page = project / "site_src" / "papers" / f"{_slug(PROBE_TITLE)}.md"
    edited, found = re.subn(pattern, replacement, page.read_text(encoding="utf-8"), count=1, flags=re.M)
    if not found:
        raise SystemExit(f"{page}: no {what} line to edit")
    page.write_text(edited, encoding="utf-8")


def edit_title(project: Path, mark: int) -> None:
    _edit_probe(project, r"^title: .*$", f"title: {PROBE_TITLE} (edited {mark})", "title")


def edit_abstract(project: Path, mark: int) -> None:
    """The probe page's abstract begins with "Edited <mark>." (in place of the mark an earlier round left)."""
    _edit_probe(project, r"^abstract: (?:Edited \d+\. )?(?=[A-Za-z])", f"abstract: Edited {mark}. ", "plain abstract")


def edit_moved_title(project: Path, mark: int) -> None:
    """The probe page's title begins with "Aardvark" or "Zebra" (by the mark's parity): the paper moves from one end
    of the title order to the other, and every paper between changes its place in the search files."""
    _edit_probe(project, r"^title: (?:Aardvark |Zebra )?", f"title: {'Zebra' if mark % 2 else 'Aardvark'} ", "title")


EDITS = {"title": edit_title, "abstract": edit_abstract, "moved-title": edit_moved_title}


def timed_build(project: Path, code: Path, checked_import: bool = False) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # run from CODE: `python -m` puts the working folder first on the path, before PYTHONPATH, so a run from
    # another checkout would time that checkout's code on both sides
    command = ["build", "--quiet"] if checked_import else ["build", "--no-import", "--quiet"]
    subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(project.resolve()), *command],
                   cwd=code.resolve(), env=measured_env({"PYTHONPATH": str(code.resolve())}), check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", nargs=2, metavar=("PROJECT", "CODE"), required=True)
    parser.add_argument("--after", nargs=2, metavar=("PROJECT", "CODE"), required=True)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--edit", choices=sorted(EDITS), default="title", help="what each round edits (default: the title)")
    parser.add_argument("--checked-import", action="store_true",
                        help="`papersite build` (its import's stamp checked, as the benchmark table's edit), not --no-import")
    args = parser.parse_args()
    sides = [("before", Path(args.before[0]), Path(args.before[1])), ("after", Path(args.after[0]), Path(args.after[1]))]
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in sides}
    mark = int(time.time())
    for number in range(args.rounds):
        for name, project, code in sides if number % 2 == 0 else sides[::-1]:
            mark += 1
            EDITS[args.edit](project, mark)
            wall, cpu = timed_build(project, code, args.checked_import)
            figures[name].append((wall, cpu))
            print(f"{name}: {wall:.2f} s wall, {cpu:.2f} CPU s (load {os.getloadavg()[0]:.2f})", flush=True)
    medians = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)) for name, runs in figures.items()}
    for name, (wall, cpu) in medians.items():
        print(f"{name}: median {wall:.2f} s wall, {cpu:.2f} CPU s")
    print(f"after / before: {medians['after'][0] / medians['before'][0]:.2f} wall, {medians['after'][1] / medians['before'][1]:.2f} CPU")


if __name__ == "__main__":
    main()
