"""Every user error is ``path:line: message`` and a non-zero exit, never a traceback.

One bad input of each kind a user can hand papersite (a listing, a paper page,
the taxonomy, papersite.yml, mkdocs.yml), each through every command that reads
it, run as the user runs them: ``papersite ...`` and ``mkdocs build``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from site_fixtures import fixture_records, write_project

GOOD_LISTING = '{"title": "Graphs at Scale", "abstract": "We study graphs with a new method for very many nodes and edges."}\n'


def _project(root: Path) -> Path:
    project = write_project(root, [r for r in fixture_records() if r.slug != "hostile-paper"])
    (project / "corpus").mkdir()
    (project / "corpus" / "a.jsonl").write_text(GOOD_LISTING, encoding="utf-8")
    return project


def _settings(project: Path, **changes: object) -> None:
    path = project / "papersite.yml"
    settings = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**settings, **changes}), encoding="utf-8")


def bad_listing(project: Path) -> str:
    (project / "corpus" / "b.jsonl").write_text(GOOD_LISTING + '{"title": 5, "abstract": "x"}\n', encoding="utf-8")
    return "corpus/b.jsonl:2"


def bad_page(project: Path) -> str:
    page = next((project / "site_src" / "papers").glob("*.md"))
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("title: ", "title: [unclosed ", 1), encoding="utf-8")
    return f"site_src/papers/{page.name}:"


def bad_taxonomy(project: Path) -> str:
    (project / "taxonomy.yaml").write_text("Deep Learning:\n- Generative Models\n- Generative Models\n", encoding="utf-8")
    _settings(project, taxonomy_file="taxonomy.yaml")
    return "taxonomy.yaml:1"


def bad_settings(project: Path) -> str:
    _settings(project, site_url="javascript:alert(1)")
    return "papersite.yml:"


def bad_reference(project: Path) -> str:
    (project / "corpus" / "ref.jsonl").write_text('{"title": "x"\n', encoding="utf-8")
    _settings(project, references=["corpus/ref.jsonl"])
    return "corpus/ref.jsonl:1"


INPUTS = [bad_listing, bad_page, bad_taxonomy, bad_settings, bad_reference]
# (command, which inputs it must refuse); for the others it must simply not crash
COMMANDS = {
    "import": {bad_listing, bad_page, bad_taxonomy, bad_settings, bad_reference},
    "build": {bad_listing, bad_page, bad_taxonomy, bad_settings, bad_reference},
    "check": {bad_page, bad_taxonomy, bad_settings},
    "eval": {bad_settings},
}


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator.cli", *args], cwd=project, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("make_bad", INPUTS, ids=lambda f: f.__name__)
def test_no_bad_input_ends_in_a_traceback(tmp_path: Path, make_bad) -> None:
    project = _project(tmp_path)
    where = make_bad(project)
    for command, refused in COMMANDS.items():
        result = _run(project, command)
        output = result.stdout + result.stderr
        assert "Traceback" not in output, f"papersite {command} with {make_bad.__name__}:\n{output}"
        if make_bad in refused:
            assert result.returncode != 0, f"papersite {command} accepted {make_bad.__name__}:\n{output}"
            lines = [re.sub(r"^(papersite|warning): ", "", line) for line in output.splitlines()]
            assert any(where in line and re.match(r"^[^:]+:\d+: \S", line) for line in lines), (
                f"papersite {command}: no '{where}...: message' line for {make_bad.__name__}:\n{result.stderr}"
            )


@pytest.mark.slow
@pytest.mark.parametrize("make_bad", [bad_page, bad_settings], ids=lambda f: f.__name__)
def test_mkdocs_build_reports_a_bad_page_or_setting_without_a_traceback(tmp_path: Path, make_bad) -> None:
    project = _project(tmp_path)
    where = make_bad(project)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet"], cwd=project, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert where in result.stderr, result.stderr


def test_a_bad_mkdocs_yml_is_a_located_problem(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "mkdocs.yml").write_text("site_name: [unclosed\n", encoding="utf-8")
    result = _run(project, "build", "--no-import", "--quiet")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert re.search(r"mkdocs\.yml", result.stderr), result.stderr
