"""generator/cli.py: every argument is checked before a command runs; a bad one is one line and exit 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from generator.site.serve import parse_dev_addr


@pytest.mark.parametrize("addr", ["127.0.0.1:99999", "127.0.0.1:0", "127.0.0.1:-1", "localhost:65536", "foo", ":",
                                  "127.0.0.1:", "127.0.0.1:80x", "127.0.0.1: 80", "127.0.0.1:８０", "a b:80", "[::1:80", "x\n:80"])
def test_a_bad_dev_addr_is_refused_before_serving(addr, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--dev-addr", addr])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --dev-addr: expected HOST:PORT" in err and "Traceback" not in err


def test_good_dev_addrs_are_host_and_port():
    assert parse_dev_addr("127.0.0.1:8000") == ("127.0.0.1", 8000)
    assert parse_dev_addr(":8001") == ("127.0.0.1", 8001)
    assert parse_dev_addr("[::1]:65535") == ("::1", 65535)
    assert parse_dev_addr("example.org:1") == ("example.org", 1)


def test_a_port_that_cannot_be_bound_is_one_line(tmp_path: Path):
    (tmp_path / "papersite.yml").write_text("", encoding="utf-8")
    # 999.1.1.1 is no address: binding fails inside the server's constructor
    run = subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(tmp_path), "serve", "--dev-addr",
                          "999.1.1.1:8000"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("papersite: cannot serve on 999.1.1.1:8000:")


@pytest.mark.parametrize("kind", ["missing", "a file"])
def test_a_project_that_is_no_directory_is_refused(tmp_path: Path, kind, capsys):
    project = tmp_path / "p"
    if kind == "a file":
        project.write_text("site_name: x\n", encoding="utf-8")
    assert main(["--project", str(project), "check"]) == 2  # (config.py refuses it, for every command but init)
    err = capsys.readouterr().err
    assert str(project) in err and ("does not exist" in err or "not a folder" in err) and "Traceback" not in err


# --------------------------------------------------------------------------- Ctrl-C

import os  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import time  # noqa: E402

from generator.pipeline import IMPORT_STAGES, SITE_STAGES, STAGE_HOOK_ENV  # noqa: E402

LITTER = ("*.papersite-tmp", "*.tmp", ".mkdocs.mkdocs.yml", ".mkdocs.zensical.yml", "import-journal.json")


def papersite(project: Path, *args: str, hook: str | None = None, **popen) -> subprocess.Popen:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PAPERSITE_LOCK_WAIT": "0"}
    env.pop(STAGE_HOOK_ENV, None)
    env.pop("PAPERSITE_LOCK_HOLDER", None)
    if hook:
        env[STAGE_HOOK_ENV] = hook
    return subprocess.Popen([sys.executable, "-m", "generator.cli", "--project", str(project), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def finished(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} if root.exists() else {}


def assert_interrupted(code: int, out: str, err: str, project: Path) -> None:
    assert code == 130, (code, out, err)
    assert "Traceback" not in out + err, err
    assert err.strip().splitlines()[-1].startswith("papersite: interrupted"), err
    left = [str(p) for pattern in LITTER for p in project.rglob(pattern)]
    assert not left, left
    from generator.config import load_config
    from generator.pages.store import project_lock

    with project_lock(load_config(project), "test"):  # not held: taken at once (PAPERSITE_LOCK_WAIT is the test's 60 s otherwise)
        pass


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("ctrlc") / "p"
    assert main(["init", str(project)]) == 0
    code, out, err = finished(papersite(project, "build", "--quiet"))
    assert code == 0, err
    return project


@pytest.mark.parametrize("stage", [s.name for s in SITE_STAGES])
def test_ctrl_c_at_any_build_stage_is_one_line_and_exit_130_and_leaves_no_half_site(built, stage):
    good = tree(built / "site")
    code, out, err = finished(papersite(built, "build", "--clean", "--quiet", hook=f"{stage}:interrupt"))
    assert_interrupted(code, out, err, built)
    site = tree(built / "site")
    assert site in (good, {}), "site/ is the last whole site or gone, never half"
    if not site:
        assert "site was half written and is removed" in err
    code, out, err = finished(papersite(built, "build", "--quiet"))
    assert code == 0, err
    assert tree(built / "site") == good


@pytest.mark.parametrize("stage", [s.name for s in IMPORT_STAGES])
def test_ctrl_c_at_any_import_stage_writes_nothing(built, stage):
    extra = built / "corpus" / "more.jsonl"
    extra.write_text('{"title": "Interrupted Imports", "abstract": "We stop an import at each of its stages and '
                     'look at what it left behind on the disk."}\n', encoding="utf-8")
    try:
        before = tree(built / "site_src") | tree(built / ".papersite")
        code, out, err = finished(papersite(built, "import", "--quiet", hook=f"{stage}:interrupt"))
        assert_interrupted(code, out, err, built)
        after = tree(built / "site_src") | tree(built / ".papersite")
        assert {k: v for k, v in after.items() if k != "lock"} == {k: v for k, v in before.items() if k != "lock"}
    finally:
        extra.unlink()


def test_a_real_sigint_from_outside_during_the_build(built):
    good = tree(built / "site")
    process = papersite(built, "build", "--clean", "--quiet", hook="post-build:pause")
    assert process.stderr.readline().strip() == "papersite: paused at post-build"  # the engine has written site/
    process.send_signal(signal.SIGINT)
    code, out, err = finished(process)
    assert_interrupted(code, out, err, built)
    assert not (built / "site").exists()
    assert finished(papersite(built, "build", "--quiet"))[0] == 0 and tree(built / "site") == good


def test_a_real_sigint_delivered_inside_an_import_stage(built):
    (built / "corpus" / "more.jsonl").write_text('{"title": "Signalled", "abstract": "A build is stopped by the '
                                                 'keyboard of its user in the middle of an import."}\n', encoding="utf-8")
    try:
        code, out, err = finished(papersite(built, "build", "--clean", "--quiet", hook="plan:signal"))
        assert_interrupted(code, out, err, built)
    finally:
        (built / "corpus" / "more.jsonl").unlink()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_ctrl_c_stops_serve_with_one_line(built):
    process = papersite(built, "serve", "--dev-addr", f"127.0.0.1:{_free_port()}")
    deadline = time.monotonic() + 240
    seen = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        seen.append(line)
        if "rebuilt" in line or "rebuild failed" in line or not line:
            break
    assert any("rebuilt" in line for line in seen), seen
    process.send_signal(signal.SIGINT)
    code, out, err = finished(process)
    assert_interrupted(code, out, "".join(seen) + err, built)


@pytest.mark.parametrize("argv", [["correct", "body.md", "--base-pages", "{dir}/nowhere"],
                                  ["correct", "body.md", "--base-pages", "{dir}/file.txt"]])
def test_a_base_pages_folder_that_is_none_is_refused_before_the_command_runs(tmp_path: Path, argv, capsys):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["--project", str(tmp_path), *[a.format(dir=tmp_path) for a in argv]])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --base-pages" in err and "Traceback" not in err


def test_the_command_leaves_at_once_with_mains_status_and_all_it_wrote(tmp_path: Path) -> None:
    """``cli.entry`` skips the interpreter's teardown (a second after an 11,672-paper edit): what the
    command printed into a pipe still arrives whole, and its status is main's."""
    (tmp_path / "site_src" / "papers").mkdir(parents=True)
    ok = subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(tmp_path), "check"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and ok.stdout.strip(), ok
    missing = subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(tmp_path / "nowhere"), "check"],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode != 0 and "nowhere" in missing.stderr, missing


def test_a_build_hands_what_it_read_to_the_caller_that_ends_its_process(tmp_path: Path) -> None:
    """``cli.entry`` keeps what a build read (``build.held_to_exit``) until ``os._exit``: freeing it as the
    build's calls returned was the last ~0.1 s of an edit at 11,672 papers. A caller that goes on holds nothing."""
    from generator.pages.folder import Pages
    from generator.site.stage import StageResult

    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    held: list = []
    assert main(["--project", str(project), "build", "--quiet"], held=held) == 0
    staged = [item for item in held if isinstance(item, StageResult)]
    assert len(staged) == 1 and staged[0].catalog.papers
    assert any(isinstance(item, Pages) and item.pages for item in held)
    (project / "site_src" / "papers" / next(p.name for p in (project / "site_src" / "papers").glob("*.md"))).touch()
    assert main(["--project", str(project), "build", "--quiet", "--no-import"]) == 0  # nothing held, nothing asked
