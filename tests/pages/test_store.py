"""generator/pages/store.py: one import at a time, and an import is written whole or not at all, whatever crashes."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import textwrap
from argparse import Namespace
from pathlib import Path

import pytest

from generator.pages import store
from generator.pages.check import check_pages
from generator.problems import errors_only
from generator.config import load_config
from generator.ingest.importer import run_import
from generator.pipeline import import_listings

REPO = Path(__file__).resolve().parents[2]
PROSE = (
    "We present a careful study of {topic} with enough distinct words that no two fixtures look alike, "
    "measuring {topic} on several public benchmarks and reporting where {topic} helps and where it fails."
)
TOPICS = ["graphs", "diffusion", "robots", "proteins", "markets", "speech"]


class Crash(BaseException):
    """A kill: raised where the process would die; nothing after it runs."""


def listing(titles: list[str], suffix: str = "") -> str:
    return "".join(
        json.dumps({"title": f"{title} {suffix}".strip(), "authors": ["Ada Lovelace"], "abstract": PROSE.format(topic=title)}) + "\n"
        for title in titles
    )


def make_project(root: Path) -> Path:
    (root / "corpus").mkdir(parents=True)
    (root / "corpus" / "a.jsonl").write_text(listing(TOPICS), encoding="utf-8")
    return root


def files(root: Path) -> dict[str, bytes]:
    """Every file of data an import may write: the lock (it holds no data) and the build's scratch
    (stamps and caches, which may name where the project lies) excluded."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "corpus" not in p.parts and p.name != store.LOCK_NAME and p.relative_to(root).parts[0] != "build"
    }


def import_quietly(root: Path) -> int:
    return run_import(Namespace(sources=[], report=None, quiet=True), load_config(root))


def second_listing(root: Path) -> None:
    # every page changes (abstracts) and two papers are new: many writes in one import
    text = "".join(
        json.dumps({"title": t, "authors": ["Ada Lovelace", "Alan Turing"], "abstract": PROSE.format(topic=t) + " Revised."}) + "\n"
        for t in TOPICS + ["tides", "glaciers"]
    )
    (root / "corpus" / "a.jsonl").write_text(text, encoding="utf-8")


@pytest.fixture()
def imported(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "base")
    assert import_quietly(root) == 0
    return root


@pytest.fixture()
def expected(imported: Path, tmp_path: Path) -> dict[str, bytes]:
    """What the second import writes when nothing goes wrong."""
    clean = tmp_path / "clean"
    shutil.copytree(imported, clean)
    second_listing(clean)
    assert import_quietly(clean) == 0
    return files(clean)


def count_steps(imported: Path, tmp_path: Path) -> tuple[int, int]:
    """(temporary files written, renames) of the second import."""
    root = tmp_path / "count"
    shutil.copytree(imported, root)
    second_listing(root)
    counts = {"write": 0, "replace": 0}
    real_write, real_replace = store._write_file, os.replace

    def write(path, text):  # noqa: ANN001
        counts["write"] += 1
        real_write(path, text)

    def replace(a, b):  # noqa: ANN001
        counts["replace"] += 1
        real_replace(a, b)

    store._write_file, os.replace = write, replace
    try:
        import_listings([], load_config(root))
    finally:
        store._write_file, os.replace = real_write, real_replace
    return counts["write"], counts["replace"]


def crash_at(monkeypatch: pytest.MonkeyPatch, name: str, target, step: int) -> None:  # noqa: ANN001
    """Make the step-th call of ``target`` die like a kill -9: no clean-up after it either."""
    calls = {"n": 0}

    def dying(*args):  # noqa: ANN002
        calls["n"] += 1
        if calls["n"] == step:
            raise Crash()
        return target(*args)

    monkeypatch.setattr(*name, dying)
    monkeypatch.setattr(store, "_remove_quietly", lambda path: None)


def test_a_crash_at_any_step_of_an_import_is_finished_or_undone_by_the_next(imported, expected, tmp_path, monkeypatch):
    writes, renames = count_steps(imported, tmp_path)
    assert writes == 9 + 1 and renames == 9 + 1  # 8 pages, the state file, the journal
    steps = [("write", k) for k in range(1, writes + 1)] + [("replace", k) for k in range(1, renames + 1)]
    for kind, step in steps:
        root = tmp_path / f"crash-{kind}-{step}"
        shutil.copytree(imported, root)
        second_listing(root)
        before = files(root)
        with monkeypatch.context() as patch:
            if kind == "write":
                crash_at(patch, (store, "_write_file"), store._write_file, step)
            else:
                crash_at(patch, (os, "replace"), os.replace, step)
            with pytest.raises(Crash):
                import_listings([], load_config(root))
        left = files(root)
        # before the journal is in place nothing visible changed; after it, the import is committed
        committed = kind == "replace" and step > 1
        visible = {k: v for k, v in left.items() if not k.endswith(store.TEMP_SUFFIX) and "import-journal" not in k}
        if not committed:
            assert visible == before, f"{kind} {step}: a page or the state changed before the commit point"
        assert import_quietly(root) == 0, f"{kind} {step}: the next import failed"
        assert files(root) == expected, f"{kind} {step}: pages and state differ from an import that never crashed"
        assert not errors_only(check_pages(load_config(root)))


def test_a_crash_after_the_commit_is_rolled_forward_by_a_build_without_import_too(imported, expected, tmp_path, monkeypatch):
    root = tmp_path / "rolled"
    shutil.copytree(imported, root)
    second_listing(root)
    with monkeypatch.context() as patch:
        crash_at(patch, (os, "replace"), os.replace, 4)
        with pytest.raises(Crash):
            import_listings([], load_config(root))
    assert store.recover(load_config(root)).startswith("finished an interrupted import")
    assert files(root) == expected


def test_a_project_moved_after_a_crash_still_recovers(imported, expected, tmp_path, monkeypatch):
    root = tmp_path / "before-move"
    shutil.copytree(imported, root)
    second_listing(root)
    with monkeypatch.context() as patch:
        crash_at(patch, (os, "replace"), os.replace, 3)
        with pytest.raises(Crash):
            import_listings([], load_config(root))
    moved = root.rename(tmp_path / "after-move")
    assert import_quietly(moved) == 0
    assert files(moved) == expected


def test_orphan_temporaries_of_older_versions_are_removed(imported):
    config = load_config(imported)
    orphans = [config.papers_dir / ".graphs.md.12345.tmp", config.papers_dir / f".x.md{store.TEMP_SUFFIX}"]
    for orphan in orphans:
        orphan.write_text("half a page", encoding="utf-8")
    keep = config.papers_dir / "notes.tmp"
    keep.write_text("not ours", encoding="utf-8")
    assert import_quietly(imported) == 0
    assert not any(p.exists() for p in orphans) and keep.exists()


def test_a_full_disk_writes_nothing_and_says_so(imported, tmp_path, monkeypatch, capsys):
    second_listing(imported)
    before = files(imported)
    real = store._write_file
    calls = {"n": 0}

    def full(path, text):  # noqa: ANN001
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, text)

    monkeypatch.setattr(store, "_write_file", full)
    assert import_quietly(imported) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "nothing was written" in err and ":1:" in err
    assert files(imported) == before  # no page, no state, no temporary left


def test_a_failing_clean_up_never_hides_the_real_error(imported, monkeypatch, capsys):
    second_listing(imported)
    real = store._write_file
    calls = {"n": 0}

    def read_only(path, text):  # noqa: ANN001
        calls["n"] += 1
        if calls["n"] == 2:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        real(path, text)

    def unlink(path):  # noqa: ANN001
        raise PermissionError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(store, "_write_file", read_only)
    monkeypatch.setattr(os, "unlink", unlink)
    assert import_quietly(imported) == 1
    err = capsys.readouterr().err
    assert "Permission denied" in err and "Read-only" not in err and "Traceback" not in err


# --------------------------------------------------------------------------- the lock

HOLDER = textwrap.dedent(
    """
    import sys
    from generator.config import load_config
    from generator.pages.store import project_lock
    with project_lock(load_config(sys.argv[1]), "test-holder"):
        print("locked", flush=True)
        sys.stdin.read()  # hold the lock until the test closes our stdin
    """
)


def papersite(root: Path, *args: str, wait: str = "60") -> subprocess.Popen:
    env = {**os.environ, "PAPERSITE_LOCK_WAIT": wait}
    return subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "--project", str(root), *args],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_a_second_process_is_refused_while_another_holds_the_lock(imported):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(imported)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        second_listing(imported)
        before = files(imported)
        refused = papersite(imported, "import", "--quiet", wait="0")
        _, err = refused.communicate(timeout=120)
        assert refused.returncode == 1
        assert ".papersite/lock:1: the project is locked by papersite test-holder (pid" in err and "Traceback" not in err
        assert files(imported) == before
        build = papersite(imported, "build", "--quiet", wait="0")
        _, err = build.communicate(timeout=120)
        assert build.returncode == 1 and "locked by papersite test-holder" in err
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    done = papersite(imported, "import", "--quiet")
    assert done.communicate(timeout=300)[1] == "" and done.returncode == 0


def test_two_imports_at_once_give_the_pages_of_one(tmp_path):
    root = make_project(tmp_path / "race")
    (root / "corpus" / "b.jsonl").write_text(listing(["tides", "glaciers", "comets", "lichens", "ferns", "deltas"]), encoding="utf-8")
    first, second = papersite(root, "import", "--quiet"), papersite(root, "import", "--quiet")
    results = [p.communicate(timeout=600) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, results
    config = load_config(root)
    state = [json.loads(line) for line in config.state_file.read_text(encoding="utf-8").splitlines()]
    pages = sorted(p.stem for p in config.papers_dir.glob("*.md"))
    assert len(pages) == 2 * len(TOPICS) and sorted(row["slug"] for row in state) == pages
    assert not errors_only(check_pages(config))
    again = papersite(root, "import", "--quiet")
    again.communicate(timeout=600)
    assert again.returncode == 0
    report = tmp_path / "report.json"
    assert run_import(Namespace(sources=[], report=report, quiet=True), config) == 0
    assert json.loads(report.read_text())["papers"]["updated"] == 0  # no false conflicts or rewrites
    assert json.loads(report.read_text())["conflicts"] == []


# --------------------------------------------------------------------------- never through a link (issue 27)


def test_a_lock_linked_out_of_the_project_is_refused_and_its_target_kept(tmp_path):
    from generator.problems import PapersiteError

    root = tmp_path / "project"
    (root / ".papersite").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (root / ".papersite" / "lock").symlink_to(victim)
    config = load_config(root)
    with pytest.raises(PapersiteError) as caught:
        with store.project_lock(config, "import"):
            pass
    assert "lock:1: " in str(caught.value), caught.value
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert run_import(Namespace(sources=[], report=None, quiet=True), config) == 1  # named before the lock is taken
    assert victim.read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize("pair", [["../victim.txt", "site_src/papers/x.md"], ["site_src/papers/.x.md.papersite-tmp", "../victim.txt"]])
def test_a_journal_renames_only_an_imports_temporaries_inside_the_project(tmp_path, pair):
    from generator.problems import PapersiteError

    root = tmp_path / "project"
    (root / ".papersite").mkdir(parents=True)
    (root / "site_src" / "papers").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (root / "site_src" / "papers" / ".x.md.papersite-tmp").write_text("page", encoding="utf-8")
    (root / ".papersite" / "import-journal.json").write_text(json.dumps([pair]), encoding="utf-8")
    with pytest.raises(PapersiteError, match="import-journal.json:1: "):
        store.recover(load_config(root))
    assert victim.read_text(encoding="utf-8") == "keep me" and not (root / "site_src" / "papers" / "x.md").exists()


@pytest.mark.parametrize("special", ["link to /dev/zero", "fifo"])
def test_a_journal_that_is_no_file_is_named_not_read_forever(tmp_path, special):
    """A committed link from the journal to /dev/zero (endless bytes), or a FIFO (a read that waits for a
    writer), is refused at once with the journal's path: the read is never started."""
    import os

    from generator.problems import PapersiteError

    root = tmp_path / "project"
    (root / ".papersite").mkdir(parents=True)
    journal = root / ".papersite" / "import-journal.json"
    if special == "fifo":
        os.mkfifo(journal)
    else:
        journal.symlink_to("/dev/zero")
    with pytest.raises(PapersiteError, match="import-journal.json:1: cannot read the import journal .*not a regular file"):
        store.recover(load_config(root))
