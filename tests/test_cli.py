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
    with pytest.raises(SystemExit) as stop:
        main(["--project", str(project), "check"])
    assert stop.value.code == 2
    assert "argument --project:" in capsys.readouterr().err
