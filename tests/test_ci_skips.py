"""Every skip fails under CI=true (tests/conftest.py): a missing tool can never drop a group of tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SKIPPING = {
    "test_call.py": "import pytest\ndef test_a():\n    pytest.skip('git is not installed')\n",
    "test_mark.py": "import pytest\n@pytest.mark.skipif(True, reason='zensical is not installed')\ndef test_b():\n    pass\n",
    "test_fixture.py": (
        "import pytest\n@pytest.fixture()\ndef pages():\n    pytest.skip('no committed import yet')\n"
        "def test_c(pages):\n    pass\n"
    ),
    "test_runs.py": "def test_d():\n    assert True\n",
}


MODULE_SKIP = {"test_module.py": "import pytest\npytest.skip('needs the real-abstracts dataset', allow_module_level=True)\n"}


def _run(tmp_path: Path, ci: str | None, files: dict[str, str] = SKIPPING) -> subprocess.CompletedProcess[str]:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env,
    )


def test_without_ci_a_missing_tool_skips_with_its_reason(tmp_path: Path) -> None:
    run = _run(tmp_path, None)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 3 skipped" in run.stdout, run.stdout
    for reason in ("git is not installed", "zensical is not installed", "no committed import yet"):
        assert reason in run.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_every_kind_of_skip_fails_and_names_its_reason(tmp_path: Path, ci: str) -> None:
    run = _run(tmp_path, ci)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "skipped" not in run.stdout.splitlines()[-1], run.stdout
    for test, reason in [
        ("test_call.py::test_a", "git is not installed"),
        ("test_mark.py::test_b", "zensical is not installed"),
        ("test_fixture.py::test_c", "no committed import yet"),
    ]:
        assert f"{test}: skipped ({reason}), but CI is set" in run.stdout, run.stdout
    assert "1 passed" in run.stdout


def test_under_ci_a_module_that_skips_stops_the_run(tmp_path: Path) -> None:
    assert _run(tmp_path, None, MODULE_SKIP).returncode == 5  # pytest: nothing ran, nothing failed
    run = _run(tmp_path, "true", MODULE_SKIP)
    assert run.returncode not in (0, 5), run.stdout
    assert "test_module.py: skipped (needs the real-abstracts dataset), but CI is set" in run.stdout, run.stdout
