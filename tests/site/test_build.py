"""generator/site/build.py: the site stages in order; a build never starts from pages it rejects."""

from __future__ import annotations

import argparse
import gc
import subprocess
from pathlib import Path

import pytest

from generator.config import load_config
from generator.site.build import BUILD_GC_THRESHOLD, FALLBACK_EPOCH, build_gc, run_build, source_date_epoch
from site_fixtures import fixture_records, write_project


def test_the_build_date_is_the_environments_then_the_last_commits_then_a_fixed_one(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert source_date_epoch(tmp_path) == "1700000000"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))  # no repository above tmp_path counts
    assert source_date_epoch(tmp_path) == FALLBACK_EPOCH
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@x", "-c", "commit.gpgsign=false"]
    try:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        subprocess.run([*git, "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x", "--date", "@1600000000"],
                       check=True, env={"GIT_COMMITTER_DATE": "@1600000000", "PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not installed")
    assert source_date_epoch(tmp_path) == "1600000000"


def test_the_build_thresholds_hold_for_the_build_only():
    before = gc.get_threshold()
    with build_gc():
        assert gc.get_threshold() == BUILD_GC_THRESHOLD
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError):
        with build_gc():
            raise RuntimeError("a stage failed")
    assert gc.get_threshold() == before


def _args(**changes) -> argparse.Namespace:
    values = {"engine": "mkdocs", "no_import": True, "clean": False, "quiet": True, "timings": None}
    return argparse.Namespace(**{**values, **changes})


def test_a_page_with_an_error_stops_the_build_before_anything_is_staged(tmp_path: Path, capsys):
    root = write_project(tmp_path, fixture_records()[:2])
    page = next((root / "site_src" / "papers").glob("*.md"))
    page.write_text(page.read_text(encoding="utf-8").replace("title: ", "title: [", 1), encoding="utf-8")
    assert run_build(_args(), load_config(root)) == 1
    err = capsys.readouterr().err
    assert f"site_src/papers/{page.name}:" in err and "problem(s) in the paper pages" in err and "Traceback" not in err
    assert not (root / "site").exists() and not (root / "build" / "docs").exists()


def test_a_timings_file_that_cannot_be_written_is_refused_before_the_build_starts(tmp_path: Path, capsys):
    root = write_project(tmp_path, fixture_records()[:1])
    (root / "a-folder").mkdir()
    assert run_build(_args(timings=root / "a-folder"), load_config(root)) == 1
    assert "a-folder:1: " in capsys.readouterr().err
    assert not (root / "build").exists() and not (root / "site").exists()


def test_a_build_that_runs_no_import_loads_no_listing_reader(tmp_path: Path):
    """The listings' readers (BibTeX's parser among them: 0.1 s to load) are the import's; an edit's build
    without one never loads them, nor does the check of the corpus folder it runs."""
    import sys

    project = write_project(tmp_path)
    assert run_build(_args(), load_config(project)) == 0
    page = next((project / "site_src" / "papers").glob("*.md"))
    page.write_text(page.read_text(encoding="utf-8").replace("title: ", "title: Edited ", 1), encoding="utf-8")
    probe = (
        "import sys, argparse; from generator.config import load_config; from generator.site.build import run_build\n"
        "args = argparse.Namespace(no_import=True, quiet=True, clean=False, engine='mkdocs')\n"
        f"assert run_build(args, load_config({str(project)!r})) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith(('generator.ingest.listing', 'generator.ingest.merge', 'bibtexparser', 'pyparsing'))))"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert shown.stdout.strip().splitlines()[-1] == "[]"
