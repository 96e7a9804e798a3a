"""generator/site/plugin.py: ``mkdocs build`` on a papersite project takes the project lock, as every writer does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from generator.pipeline import STAGE_HOOK_ENV

HOLD = """
import sys
from generator.config import load_config
from generator.pages.store import project_lock
with project_lock(load_config(sys.argv[1]), "build"):
    print("held", flush=True)
    sys.stdin.read()
"""


def env() -> dict[str, str]:
    values = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PAPERSITE_LOCK_WAIT": "0"}
    for name in (STAGE_HOOK_ENV, "PAPERSITE_LOCK_HOLDER"):
        values.pop(name, None)
    return values


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("lock") / "p"
    assert main(["init", str(project)]) == 0
    run = subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(project), "build", "--quiet"],
                         env=env(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return project


def mkdocs_build(project: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(project / "mkdocs.yml")], cwd=project,
                          env={**env(), **extra}, capture_output=True, text=True, timeout=300)


def papersite_build(project: Path, **popen) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(project), "build", "--quiet"],
                          env=env(), capture_output=True, text=True, timeout=300, **popen)


def refused_in_one_line(run: subprocess.CompletedProcess, holder: str) -> None:
    output = run.stdout + run.stderr
    assert run.returncode != 0, output
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if "locked" in line]
    assert len(lines) == 1 and f"the project is locked by {holder}" in lines[0], output


def test_every_writer_is_refused_while_another_process_holds_the_lock(built):
    site = tree(built / "site")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(built)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env())
    try:
        assert holder.stdout.readline().strip() == "held"
        refused_in_one_line(mkdocs_build(built), f"papersite build (pid {holder.pid})")
        refused_in_one_line(papersite_build(built), f"papersite build (pid {holder.pid})")
        body = built.parent / "issue.md"
        body.write_text("### Paper id\n\nx\n", encoding="utf-8")
        for command in (["import", "--quiet"], ["correct", str(body)]):  # every writer of pages waits its turn
            run = subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(built), *command],
                                 env=env(), capture_output=True, text=True, timeout=300)
            refused_in_one_line(run, f"papersite build (pid {holder.pid})")
        # the holder's name in the environment lets only its own child (the engine) through, not a stranger
        lock = (built / ".papersite" / "lock").resolve()
        refused_in_one_line(mkdocs_build(built, PAPERSITE_LOCK_HOLDER=f"{holder.pid}:{lock}"), f"papersite build (pid {holder.pid})")
        assert tree(built / "site") == site  # nothing touched
    finally:
        holder.communicate("", timeout=60)
    run = mkdocs_build(built)  # the lock is free again: the plugin takes it, builds and lets it go
    assert run.returncode == 0, run.stdout + run.stderr
    assert (built / ".papersite" / "lock").read_text(encoding="utf-8") == ""


def test_a_second_build_or_mkdocs_build_is_refused_while_a_build_runs(built):
    first = subprocess.Popen([sys.executable, "-m", "generator.cli", "--project", str(built), "build", "--clean", "--quiet"],
                             env={**env(), STAGE_HOOK_ENV: "engine:pause"}, stderr=subprocess.PIPE, text=True)
    try:
        assert first.stderr.readline().strip() == "papersite: paused at engine"
        refused_in_one_line(papersite_build(built), f"papersite build (pid {first.pid})")
        refused_in_one_line(mkdocs_build(built), f"papersite build (pid {first.pid})")
    finally:
        first.kill()
        first.communicate(timeout=60)
    run = mkdocs_build(built)  # a killed holder's lock went with it
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_theme_files_no_page_loads_go_and_a_link_among_them_is_removed_not_followed(tmp_path):
    from generator.site.plugin import remove_unloaded_theme_files

    site = tmp_path / "site"
    scripts, sheets = site / "assets" / "javascripts", site / "assets" / "stylesheets"
    (scripts / "workers").mkdir(parents=True)
    (scripts / "workers" / "search.1.min.js").write_text("worker")
    sheets.mkdir(parents=True)
    for path in (scripts / "bundle.1.min.js", scripts / "bundle.1.min.js.map", sheets / "main.1.min.css", sheets / "main.1.min.css.map"):
        path.write_text(path.name)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "lunr.de.js").write_text("not the site's")
    (scripts / "lunr").symlink_to(outside, target_is_directory=True)
    os.mkfifo(sheets / "palette.1.min.css.map")  # a FIFO: neither opened nor removed
    remove_unloaded_theme_files(site)
    left = sorted(p.relative_to(site).as_posix() for p in site.rglob("*"))
    assert left == ["assets", "assets/javascripts", "assets/javascripts/bundle.1.min.js", "assets/stylesheets",
                    "assets/stylesheets/main.1.min.css", "assets/stylesheets/palette.1.min.css.map"]
    assert (outside / "lunr.de.js").read_text() == "not the site's"
