"""generator/outputs.py: a file the user names is written only when it is a regular file or missing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from generator.config import load_config
from generator.outputs import check_output, project_place_problems, write_output
from generator.problems import PapersiteError


def _target(tmp_path: Path, kind: str) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    path = tmp_path / "out.json"
    if kind == "regular":
        path.write_text("old", encoding="utf-8")
    elif kind == "missing in missing folders":
        path = tmp_path / "new" / "deeper" / "out.json"
    elif kind == "symlink":
        path.symlink_to(victim)
    elif kind == "dangling symlink":
        path.symlink_to(tmp_path / "nowhere.txt")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "under a file":
        path = victim / "out.json"
    return path


@pytest.mark.parametrize("kind", ["missing", "regular", "missing in missing folders"])
def test_a_regular_or_missing_file_is_written_whole(tmp_path, kind):
    path = _target(tmp_path, kind)
    write_output(path, '{"a": 1}\n')
    assert path.read_text(encoding="utf-8") == '{"a": 1}\n' and stat.S_ISREG(os.lstat(path).st_mode)
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".papersite-tmp")]


@pytest.mark.parametrize(
    "kind, words",
    [("symlink", "symlink"), ("dangling symlink", "symlink"), ("fifo", "FIFO"), ("folder", "folder"), ("under a file", "not a folder")],
)
def test_a_link_a_fifo_or_a_folder_is_refused_and_left_as_it_was(tmp_path, kind, words):
    path = _target(tmp_path, kind)
    before = os.lstat(path).st_mode if os.path.lexists(path) else None
    for attempt in (check_output, lambda p: write_output(p, "new")):
        with pytest.raises(PapersiteError) as caught:
            attempt(path)
        assert str(caught.value).startswith(f"{path}:1: ") and words in str(caught.value), caught.value
    assert (os.lstat(path).st_mode if os.path.lexists(path) else None) == before
    assert (tmp_path / "victim.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize("place", ["build/docs", "build/memo", "build/postbuild/deferred/files/search", "site/papers", ".papersite/lock"])
def test_a_link_out_of_the_project_where_the_build_writes_is_named(tmp_path, place):
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    link = root / place
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "elsewhere")
    (root / "build" / "inside").mkdir(parents=True, exist_ok=True)
    (root / "build" / "kept").symlink_to(root / "build" / "inside")  # a link that stays inside is fine
    (problem,) = project_place_problems(load_config(root))
    assert problem.startswith(f"{link.resolve().parent / link.name}:1: ") or problem.startswith(f"{link}:1: "), problem
    assert "leads outside the project" in problem


def test_papersite_replaces_a_link_where_a_file_of_its_own_goes_and_names_a_fifo(tmp_path):
    """clear_the_way (before papersite writes a file of its own) and replace_file (the engine's derived
    config): a link there is replaced, never written through; a FIFO is refused as path:1 and left."""
    import os

    from generator.outputs import clear_the_way, replace_file
    from generator.problems import PapersiteError

    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    (tmp_path / "derived.yml").symlink_to(victim)
    os.mkfifo(tmp_path / "pipe.yml")
    assert not clear_the_way(victim) and not clear_the_way(tmp_path) and not clear_the_way(tmp_path / "missing")
    replace_file(tmp_path / "derived.yml", "INHERIT: mkdocs.yml\n")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert (tmp_path / "derived.yml").read_text(encoding="utf-8") == "INHERIT: mkdocs.yml\n" and not (tmp_path / "derived.yml").is_symlink()
    (tmp_path / "link.yml").symlink_to(victim)
    assert clear_the_way(tmp_path / "link.yml") and not (tmp_path / "link.yml").exists() and victim.exists()
    for refuse in (lambda: clear_the_way(tmp_path / "pipe.yml"), lambda: replace_file(tmp_path / "pipe.yml", b"x")):
        with pytest.raises(PapersiteError, match=r"pipe\.yml:1: is a FIFO \(named pipe\), not a regular file"):
            refuse()
    assert (tmp_path / "pipe.yml").is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["derived.yml", "pipe.yml", "victim.txt"]


def test_a_folder_the_site_is_written_in_is_made_never_through_a_link(tmp_path):
    from generator.outputs import real_folder

    site = tmp_path / "site"
    (site / "papers").mkdir(parents=True)
    real_folder(site, site / "papers" / "a" / "b")
    assert (site / "papers" / "a" / "b").is_dir()
    (site / "papers" / "c").write_text("an earlier build's file", encoding="utf-8")
    made: set[Path] = set()
    real_folder(site, site / "papers" / "c", made)  # a file in the way: an output of before, replaced
    assert (site / "papers" / "c").is_dir() and {site / "papers", site / "papers" / "c"} <= made
    outside = tmp_path / "outside"
    outside.mkdir()
    (site / "papers" / "d").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PapersiteError, match=r"papers/d:1: is a symbolic link .*remove the link"):
        real_folder(site, site / "papers" / "d" / "e")
    assert list(outside.iterdir()) == [] and (site / "papers" / "d").is_symlink()  # neither followed nor removed
    os.mkfifo(site / "papers" / "f")
    with pytest.raises(PapersiteError, match="FIFO"):
        real_folder(site, site / "papers" / "f")
    assert stat.S_ISFIFO(os.lstat(site / "papers" / "f").st_mode)
