"""generator/site/filehashes.py: a file is read again only when its stat changed, and its bytes decide."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from generator.config import load_config
from generator.site import filehashes
from generator.site.filehashes import FileHashes


def tree_digest(hashes: FileHashes, folder: Path) -> str:
    digest = hashlib.sha256()
    hashes.fold_tree(digest, folder, folder)
    hashes.save()
    return digest.hexdigest()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(filehashes, "RACY_NS", 0)
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "a.md").write_text("a", encoding="utf-8")
    (tmp_path / "in" / "sub" / "b.md").write_text("b", encoding="utf-8")
    (tmp_path / "papersite.yml").write_text("{}\n", encoding="utf-8")
    return tmp_path


def hashes_of(folder: Path) -> FileHashes:
    return FileHashes(load_config(folder))  # kept in the project's build dir (memo.py)


def test_unchanged_files_are_not_read(folder: Path) -> None:
    first = tree_digest(hashes_of(folder), folder / "in")
    again = hashes_of(folder)
    assert tree_digest(again, folder / "in") == first and again.read == 0


def test_a_touched_file_is_read_and_its_bytes_decide(folder: Path) -> None:
    first = tree_digest(hashes_of(folder), folder / "in")
    os.utime(folder / "in" / "a.md", ns=(1, 1))  # as a git checkout leaves it: other time, same bytes
    touched = hashes_of(folder)
    assert tree_digest(touched, folder / "in") == first and touched.read == 1


def test_an_edit_that_keeps_size_and_time_is_seen_through_a_new_inode(folder: Path) -> None:
    first = tree_digest(hashes_of(folder), folder / "in")
    page = folder / "in" / "a.md"
    seen = page.stat()
    replacement = folder / "in" / "a.tmp"
    replacement.write_text("z", encoding="utf-8")
    os.utime(replacement, ns=(seen.st_atime_ns, seen.st_mtime_ns))
    os.replace(replacement, page)  # how editors and git write a file
    assert tree_digest(hashes_of(folder), folder / "in") != first


def test_files_written_just_before_the_save_are_read_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filehashes, "RACY_NS", 10**18)
    tree_digest(hashes_of(folder), folder / "in")
    again = hashes_of(folder)
    tree_digest(again, folder / "in")
    assert again.read == 2


def test_added_removed_and_missing_files_change_the_digest(folder: Path) -> None:
    hashes = hashes_of(folder)
    first = tree_digest(hashes, folder / "in")
    (folder / "in" / "c.md").write_text("c", encoding="utf-8")
    added = tree_digest(hashes, folder / "in")
    (folder / "in" / "sub" / "b.md").unlink()
    removed = tree_digest(hashes, folder / "in")
    assert len({first, added, removed, tree_digest(hashes, folder / "gone")}) == 4


def test_a_files_stat_is_taken_once_from_its_folders_listing_until_forgotten(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``lstat_of``/``stat_of`` are ``os.lstat``/``os.stat`` as the folder was listed: a file added since is asked
    for itself, a missing one raises as os.lstat does, a link is followed by ``stat_of``; a file written since is
    seen anew only after ``forget_stats`` (the build's, once it wrote pages)."""
    inside = folder / "in"
    (inside / "link.md").symlink_to(inside / "a.md")
    hashes = hashes_of(folder)
    for name in ("a.md", "sub", "link.md"):
        assert hashes.lstat_of(inside / name) == os.lstat(inside / name), name
        assert hashes.stat_of(str(inside / name)) == os.stat(inside / name), name
    assert hashes.stat_of(inside / "link.md") != hashes.lstat_of(inside / "link.md")
    (inside / "new.md").write_text("new", encoding="utf-8")  # after the folder was listed
    assert hashes.lstat_of(inside / "new.md") == os.lstat(inside / "new.md")
    with pytest.raises(FileNotFoundError):
        hashes.lstat_of(inside / "never.md")
    listed = hashes.lstat_of(inside / "a.md")
    (inside / "a.md").write_text("a, written again", encoding="utf-8")
    assert hashes.lstat_of(inside / "a.md") == listed  # as listed
    hashes.forget_stats()
    assert hashes.lstat_of(inside / "a.md") == os.lstat(inside / "a.md") != listed
    monkeypatch.chdir(inside)  # a name alone is in the working folder
    assert hashes.lstat_of("a.md") == os.lstat(inside / "a.md") and hashes.stat_of(Path("link.md")) == os.stat(inside / "a.md")
