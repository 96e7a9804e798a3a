"""generator/config.py: papersite.yml, the MkDocs settings it drives, and settings refused at load."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.cli import main
from generator.site import zensical_config
from generator.config import left_out_of_nav, load_config
from generator.problems import PapersiteError


def settings(tmp_path: Path, text: str) -> Path:
    (tmp_path / "papersite.yml").write_text(text, encoding="utf-8")
    return tmp_path


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(PapersiteError) as caught:
        load_config(settings(tmp_path, text))
    return str(caught.value)


@pytest.mark.parametrize(
    "value",
    ["site_src", "site_src/papers", "corpus", ".papersite", ".", "..", "site_src/out", "corpus/site"],
)
def test_site_dir_never_overlaps_what_the_project_keeps(tmp_path, value):
    message = refused(tmp_path, f"site_name: X\n\nsite_dir: {value}\n")
    assert message.startswith(f"{tmp_path / 'papersite.yml'}:3: site_dir:"), message


@pytest.mark.parametrize("value", ["site_src", "corpus", ".papersite", ".", "site"])
def test_build_dir_never_overlaps_what_the_project_keeps_or_the_site(tmp_path, value):
    message = refused(tmp_path, f"build_dir: {value}\n")
    assert ":1: " in message and ("build_dir" in message or "site_dir" in message), message


@pytest.mark.parametrize(
    "text, key",
    [
        ("papers_dir: corpus\n", "papers_dir"),
        ("papers_dir: site_src\n", "papers_dir"),
        ("papers_dir: elsewhere/papers\n", "papers_dir"),
        ("state_file: site_src/state.jsonl\n", "state_file"),
        ("repo_url: 'javascript:alert(1)'\n", "repo_url"),
        ("repo_url: ftp://example.org/x\n", "repo_url"),
        ("repo_url: 'https://github.com/o/r\" onclick=\"x'\n", "repo_url"),
        ("repo_branch: 'main\" onclick=x'\n", "repo_branch"),
        ("site_name: [a, list]\n", "site_name"),
        ("site_name: \"a\\x1b[2Jb\"\n", "site_name"),
        ("site_name: \"\\u202eevil\"\n", "site_name"),
        ("site_name: \"Papers\\u200e 2025\"\n", "site_name"),
        ("site_name: \"Papers\\u200b2025\"\n", "site_name"),
        ("site_name: \"Papers\\U000e0041\"\n", "site_name"),
        ("site_dir: 3\n", "site_dir"),
    ],
)
def test_each_bad_setting_is_named_at_its_line(tmp_path, text, key):
    message = refused(tmp_path, "# settings\n" + text)
    assert f"papersite.yml:2: {key}:" in message, message


def test_yaml_tricks_in_the_settings_are_refused(tmp_path):
    assert "papersite.yml:2:" in refused(tmp_path, "site_name: A\nsite_name: B\n")
    assert "anchors" in refused(tmp_path, "site_name: &n A\nrepo_branch: *n\n")


def test_unknown_setting_is_named_at_its_line(tmp_path):
    assert "papersite.yml:3: unknown setting(s) site_dri" in refused(tmp_path, "site_name: X\n\nsite_dri: out\n")


def test_a_state_file_at_the_root_is_fine(tmp_path):
    assert load_config(settings(tmp_path, "state_file: last_import.jsonl\n")).state_file == tmp_path / "last_import.jsonl"


def test_ordinary_settings_load(tmp_path):
    config = load_config(
        settings(tmp_path, "site_name: 'Robots <2025> & friends'\nrepo_url: https://github.com/o/r/\nsite_dir: public\n")
    )
    assert config.repo_url == "https://github.com/o/r" and config.site_dir == tmp_path / "public"
    assert config.site_name == "Robots <2025> & friends"  # plain text: escaped wherever it is shown


def test_the_command_line_prints_the_error_and_deletes_nothing(tmp_path, capsys):
    root = settings(tmp_path, "site_dir: site_src\n")
    page = root / "site_src" / "papers" / "a.md"
    page.parent.mkdir(parents=True)
    page.write_text("---\nid: x\n---\n", encoding="utf-8")
    assert main(["--project", str(root), "build", "--no-import", "--quiet"]) == 2
    assert "papersite.yml:1: site_dir:" in capsys.readouterr().err
    assert page.exists()




def test_site_url_and_repo_url_are_written_once_and_handed_to_the_engine(tmp_path: Path):
    (tmp_path / "papersite.yml").write_text(
        "site_url: https://owner.github.io/papers\nrepo_url: https://github.com/owner/papers/\nrepo_branch: trunk\n",
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert config.site_url == "https://owner.github.io/papers/"
    assert config.engine_settings() == {
        "site_url": "https://owner.github.io/papers/",
        "repo_url": "https://github.com/owner/papers",
        "repo_name": "owner/papers",
        "edit_uri": "edit/trunk/site_src/",
    }
    # Zensical runs no MkDocs plugin: its derived config carries them
    derived = zensical_config.read_config(zensical_config.zensical_config("site_name: x\n", settings=config.engine_settings())[0])
    assert derived["site_url"] == "https://owner.github.io/papers/" and derived["repo_name"] == "owner/papers"


def test_without_them_the_engine_gets_nothing(tmp_path: Path):
    config = load_config(tmp_path)
    assert config.site_url is None and config.engine_settings() == {}


def test_a_sheets_column_map_is_read_and_checked(tmp_path):
    text = "listings:\n  papers.csv:\n    author_order: paper\n    columns: {title: Name of paper, authors: Writers}\n"
    config = load_config(settings(tmp_path, text))
    assert config.source("papers.csv").columns == (("authors", "Writers"), ("title", "Name of paper"))
    assert config.source("papers.csv").author_order == "paper" and config.source("other.csv").columns == ()
    assert "unknown field 'titel'" in refused(tmp_path, "listings:\n  p.csv:\n    columns: {titel: X}\n")
    assert "one header is mapped to two fields" in refused(tmp_path, "listings:\n  p.csv:\n    columns: {title: X, abstract: X}\n")
    assert "must name one header" in refused(tmp_path, "listings:\n  p.csv:\n    columns: {title: [X]}\n")
    assert "papersite.yml:2:" in refused(tmp_path, "# a\nlistings:\n  p.csv:\n    colums: {title: X}\n")


def test_markup_in_the_themes_text_settings_is_refused_at_its_line(tmp_path: Path) -> None:
    """MkDocs writes mkdocs.yml's site name, description, author and repository name into every page
    unescaped (Material's header, <title>, meta tags): markup there is refused, plain text is not."""
    from generator.config import theme_config_problems

    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Robots & friends\n"
        "site_description: \"A <b>bold</b> site\"\n"
        "site_author: O'Brien\n"
        "repo_name: example/papers\n"
        "markdown_extensions:\n"
        "  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "extra:\n"
        "  site_name: <not the theme's>\n", encoding="utf-8")
    problems = theme_config_problems(tmp_path)
    assert [(p.path, p.line, p.message.split(":")[0]) for p in problems] == [
        ("mkdocs.yml", 1, "site_name holds &"), ("mkdocs.yml", 2, "site_description holds < >")]
    (tmp_path / "mkdocs.yml").write_text("site_name: Robots and friends\nsite_author: O'Brien\n", encoding="utf-8")
    assert theme_config_problems(tmp_path) == []
    (tmp_path / "mkdocs.yml").write_text("site_name: [unclosed\n", encoding="utf-8")
    assert theme_config_problems(tmp_path) == []  # the engine says what is wrong with the file itself


def test_check_and_build_refuse_a_hostile_site_name_in_mkdocs_yml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from generator.cli import main
    from site_fixtures import write_project

    project = write_project(tmp_path / "p")
    text = (project / "mkdocs.yml").read_text(encoding="utf-8")
    (project / "mkdocs.yml").write_text(text.replace("site_name: Test Papers 2025", "site_name: Test <img src=x onerror=alert(1)>"),
                                        encoding="utf-8")
    line = 1 + text.split("\n").index("site_name: Test Papers 2025")
    for command in ("check", "build"):
        assert main(["--project", str(project), command, *(["--no-import", "--quiet"] if command == "build" else [])]) == 1
        out = capsys.readouterr()
        assert f"mkdocs.yml:{line}: site_name holds < >" in out.out + out.err, command
    assert not (project / "site").exists()


# mkdocs.yml's nav settings and the pages beside them: left_out_of_nav must name the pages MkDocs' own nav names
NAV_CASES = [
    ("nav:\n  - Home: index.md\n", ["index.md", "note.md", "guide/index.md", "guide/pic.png"]),
    ("nav:\n  - Home: ./index.md\n  - Guide:\n    - guide/index.md\n    - Deep: guide/deep/page.markdown\n",
     ["index.md", "guide/index.md", "guide/deep/page.markdown", "guide/deep/other.mdown", "guide/x.txt"]),
    ("nav:\n  - index.md\nnot_in_nav: |\n  /drafts/*.md\n  extra.md\n",
     ["index.md", "drafts/a.md", "drafts/sub/b.md", "sub/extra.md", "extra.md", "other.md"]),
    ("nav:\n  - index.md\nexclude_docs: |\n  private/\ndraft_docs: |\n  wip-*.md\n",
     ["index.md", "private/a.md", "wip-one.md", "templates/t.md", "sub/templates/t.md", ".hidden.md", "kept.md"]),
    ("nav:\n  - Home: index.md\n  - Site: https://example.org/\n  - Up: ../outside.md\n", ["index.md", "outside.md"]),
]


def _mkdocs_left_out(tmp_path, text: str, pages: list[str], caplog) -> list[str]:
    """The pages MkDocs' own nav reports as left out (its files, exclusions and nav, as ``mkdocs build`` makes them)."""
    import logging

    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files, set_exclusions
    from mkdocs.structure.nav import get_navigation

    for page in pages:
        (tmp_path / "docs" / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / page).write_text("# A page\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\n{text}validation:\n  nav:\n    omitted_files: warn\n", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = get_files(config)
    set_exclusions(files, config)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        get_navigation(files, config)
    said = [r.getMessage() for r in caplog.records if "not included in the \"nav\"" in r.getMessage()]
    return sorted(line.strip()[2:] for message in said for line in message.splitlines()[1:])


@pytest.mark.parametrize("number", range(len(NAV_CASES)))
def test_the_pages_left_out_of_the_nav_are_those_mkdocs_names(number, tmp_path, caplog):
    text, pages = NAV_CASES[number]
    ours = left_out_of_nav(yaml.safe_load(text + "validation:\n  nav:\n    omitted_files: warn\n"), sorted(pages))
    assert ours == _mkdocs_left_out(tmp_path, text, pages, caplog)
    assert ours, "each case leaves a page out"


def test_pages_left_out_of_the_nav_only_where_mkdocs_would_refuse_them():
    pages = ["index.md", "note.md"]
    nav = "nav:\n  - index.md\n"
    assert left_out_of_nav(yaml.safe_load(nav + "validation:\n  nav:\n    omitted_files: warn\n"), pages) == ["note.md"]
    assert left_out_of_nav(yaml.safe_load(nav + "validation:\n  omitted_files: warn\n"), pages) == ["note.md"], \
        "a value at validation's top applies to its nav part"
    assert left_out_of_nav(yaml.safe_load(nav), pages) == [], "MkDocs' own level (info) lets the page be"
    assert left_out_of_nav(yaml.safe_load(nav + "validation:\n  nav:\n    omitted_files: ignore\n"), pages) == []
    assert left_out_of_nav(yaml.safe_load("validation:\n  nav:\n    omitted_files: warn\n"), pages) == [], \
        "no nav: MkDocs lists every page"
    assert left_out_of_nav(yaml.safe_load(nav + "validation:\n  nav:\n    omitted_files: warn\n"), ["map/index.md", "saved/index.md"]) == [], \
        "the sections papersite adds to an older nav are in it"
