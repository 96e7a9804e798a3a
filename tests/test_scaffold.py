"""papersite init: a new site skeleton that builds and passes the check at once."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator.cli import main
from generator.scaffold import skeleton_files, template_root

REPO = Path(__file__).resolve().parents[1]
# Keys whose values belong to one site; everything else in mkdocs.yml is shared.
SITE_SPECIFIC_KEYS = ("site_name", "site_url", "site_description", "repo_url", "repo_name", "edit_uri", "copyright")


def papersite(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", "--project", str(project), *args],
        capture_output=True, text=True, timeout=600,
    )


def needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not written yet")


def test_init_writes_a_complete_skeleton(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "new"
    assert main(["init", str(site), "--site-name", "Robotics: 2025"]) == 0
    for rel in ("papersite.yml", "mkdocs.yml", ".gitignore", "corpus/example.jsonl"):
        assert (site / rel).is_file(), rel
    assert yaml.safe_load((site / "papersite.yml").read_text())["site_name"] == "Robotics: 2025"
    assert yaml.load((site / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["site_name"] == "Robotics: 2025"
    entries = [json.loads(line) for line in (site / "corpus" / "example.jsonl").read_text().splitlines()]
    assert len(entries) >= 2 and all(e["title"] and e["abstract"] for e in entries)
    assert "papersite build" in capsys.readouterr().out


def test_init_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["init", str(tmp_path)]) == 2
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert not (tmp_path / "papersite.yml").exists()


def test_fresh_skeleton_passes_check(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "s")]) == 0
    assert main(["--project", str(tmp_path / "s"), "check"]) == 0


def test_skeleton_mkdocs_matches_the_repository() -> None:
    repo_mkdocs = REPO / "mkdocs.yml"
    if not repo_mkdocs.exists():
        pytest.skip("the repository has no mkdocs.yml yet")

    def shared(text: str) -> dict:
        data = yaml.load(text, Loader=yaml.BaseLoader)
        for key in SITE_SPECIFIC_KEYS:
            data.pop(key, None)
        return data

    template = (template_root() / "mkdocs.yml").read_text(encoding="utf-8")
    assert shared(template) == shared(repo_mkdocs.read_text(encoding="utf-8")), (
        "generator/scaffold/mkdocs.yml drifted from mkdocs.yml: copy it over, keeping '$site_name'"
    )


def test_skeleton_imports_and_checks(tmp_path: Path) -> None:
    needs("generator.ingest.importer")
    site = tmp_path / "s"
    assert main(["init", str(site)]) == 0
    result = papersite(site, "import", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    pages = sorted((site / "site_src" / "papers").glob("*.md"))
    assert len(pages) == len((site / "corpus" / "example.jsonl").read_text().splitlines())
    result = papersite(site, "check")
    assert result.returncode == 0 and "OK" in result.stdout, result.stdout + result.stderr


@pytest.mark.slow
def test_skeleton_builds(tmp_path: Path) -> None:
    needs("generator.ingest.importer")
    needs("generator.site.build")
    site = tmp_path / "s"
    assert main(["init", str(site), "--site-name", "Skeleton"]) == 0
    result = papersite(site, "build", "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (site / "site" / "index.html").is_file()
    assert "Skeleton" in (site / "site" / "index.html").read_text(encoding="utf-8")
    assert papersite(site, "check").returncode == 0


def test_skeleton_files_substitute_only_the_site_name() -> None:
    files = skeleton_files("X")
    assert "$site_name" not in "".join(files.values())
    assert files[".gitignore"].count("/site/") == 1


def test_a_site_name_with_markup_stays_text_in_the_theme_config_and_control_characters_are_refused(tmp_path, capsys):
    import yaml

    from generator.cli import main
    from generator.config import load_config

    name = 'Robots "2025" <b>& friends</b>'
    assert main(["init", str(tmp_path / "site"), "--site-name", name]) == 0
    theme_name = yaml.safe_load((tmp_path / "site" / "mkdocs.yml").read_text(encoding="utf-8"))["site_name"]
    assert not set(theme_name) & set("<>\"'&") and "Robots" in theme_name
    assert load_config(tmp_path / "site").site_name == name  # papersite.yml keeps it exactly: escaped where shown
    assert main(["init", str(tmp_path / "bad"), "--site-name", "evil\x1b[2J"]) == 2
    assert "--site-name must be one line of plain text" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def test_init_from_a_listing_puts_it_in_place_of_the_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    own = tmp_path / ".hidden.ris"
    own.write_text("TY  - JOUR\nTI  - My Paper\nAU  - Lee, Ann\nER  - \n", encoding="utf-8")
    site = tmp_path / "site"
    assert main(["init", str(site), "--from", str(own)]) == 0
    assert sorted(p.name for p in (site / "corpus").iterdir()) == ["hidden.ris"]  # a dot-file would not be imported
    assert (site / "corpus" / "hidden.ris").read_bytes() == own.read_bytes()
    assert "Your listing: corpus/hidden.ris (ris, 1 paper)" in capsys.readouterr().out
    assert main(["init", str(tmp_path / "none"), "--from", str(tmp_path / "missing.bib")]) == 2
    assert not (tmp_path / "none").exists()
