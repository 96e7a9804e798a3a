"""generator/site/zensical_config.py: the config Zensical builds from, derived from the project's mkdocs.yml."""

from __future__ import annotations

import pytest

from generator.problems import PapersiteError
from generator.site.zensical_config import ZENSICAL_TESTED_VERSION, read_config, zensical_config

from site_fixtures import TINY_MKDOCS_YML as MKDOCS_YML  # noqa: E402


def test_zensical_config_removes_what_zensical_must_not_or_cannot_run():
    text, notes = zensical_config(
        MKDOCS_YML.replace("  - search\n", "  - search\n  - tags\n  - papersite\n") + "hooks:\n  - hooks.py\n"
    )
    config = read_config(text)
    assert config["plugins"] == ["search"]
    assert "hooks" not in config
    assert any("tags" in note and "quadratic" in note for note in notes)
    assert any("papersite" in note for note in notes)
    assert any("hooks" in note for note in notes)


def test_zensical_config_asks_for_the_material_look_unless_the_project_chose_one():
    config = read_config(zensical_config(MKDOCS_YML)[0])
    assert config["theme"]["variant"] == "classic"
    chosen = MKDOCS_YML.replace("  custom_dir: overrides\n", "  custom_dir: overrides\n  variant: modern\n")
    assert read_config(zensical_config(chosen)[0])["theme"]["variant"] == "modern"


def test_zensical_config_is_deterministic_and_keeps_python_and_env_tags():
    source = MKDOCS_YML.replace(
        "  - md_in_html\n",
        "  - md_in_html\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
    ) + "copyright: !ENV [PAPERSITE_COPYRIGHT, 'none']\n"
    first, _ = zensical_config(source, site_dir="out/site")
    assert first == zensical_config(source, site_dir="out/site")[0]
    assert "!!python/name:material.extensions.emoji.twemoji" in first
    assert "!ENV" in first and "PAPERSITE_COPYRIGHT" in first
    config = read_config(first)
    assert config["site_dir"] == "out/site"
    assert config["not_in_nav"].strip() == "/papers/*/index.md"


def test_zensical_config_of_a_small_project_is_exactly_the_documented_derivation():
    """A fixed expectation, not a second run: tags and our plugin dropped, classic look, settings and paths added."""
    source = (
        "site_name: Tiny\ntheme:\n  name: material\nplugins:\n  - search\n  - tags\n  - papersite\n"
        "markdown_extensions:\n  - toc:\n      permalink: true\n"
    )
    text, notes = zensical_config(source, site_dir="out/site", docs_dir="build/docs", custom_dir="build/overrides",
                                  settings={"site_url": "https://x.org/", "repo_url": "https://github.com/a/b"})
    body = "".join(line + "\n" for line in text.splitlines() if not line.startswith("#"))
    assert body == (
        "site_name: Tiny\ntheme:\n  name: material\n  variant: classic\n  custom_dir: build/overrides\n"
        "plugins:\n- search\nmarkdown_extensions:\n- toc:\n    permalink: true\n"
        "site_url: https://x.org/\nrepo_url: https://github.com/a/b\ndocs_dir: build/docs\nsite_dir: out/site\n"
    )
    assert notes == ["plugin 'tags' removed: Zensical's tags listing grows memory quadratically",
                     "plugin 'papersite' is not run by Zensical"]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("site_name: x\ntheme: [\n", 3, "not valid YAML"),
    ("site_name: x\n  bad: indent\n", 2, "not valid YAML"),
    ("- a list\n", 1, "expected a mapping of settings at the top level"),
    ("just text\n", 1, "expected a mapping of settings at the top level"),
])
def test_a_config_that_is_no_mapping_is_a_located_error(text, line, message):
    with pytest.raises(PapersiteError) as refused:
        read_config(text, "site/mkdocs.yml")
    assert refused.value.first.path == "site/mkdocs.yml" and refused.value.first.line == line
    assert message in refused.value.first.message


def test_an_empty_config_reads_as_no_settings_and_derives_the_classic_look_only_for_a_theme():
    assert read_config("") == {} and read_config("# only a comment\n") == {}
    text, notes = zensical_config("")
    assert read_config(text) == {} and notes == []
    assert read_config(zensical_config("theme: material\n")[0])["theme"] == {"name": "material", "variant": "classic"}


def test_plugins_written_as_a_mapping_or_with_options_keep_their_options():
    text, notes = zensical_config("plugins:\n  search:\n    lang: de\n  material/tags: {}\n  offline: {enabled: true}\n")
    assert read_config(text)["plugins"] == [{"search": {"lang": "de"}}, {"offline": {"enabled": True}}]
    assert notes == ["plugin 'material/tags' removed: Zensical's tags listing grows memory quadratically"]
    listed = read_config(zensical_config("plugins:\n  - search:\n      lang: de\n  - material/privacy\n")[0])["plugins"]
    assert listed == [{"search": {"lang": "de"}}, "material/privacy"]


def test_settings_and_paths_override_the_config_but_a_projects_own_custom_dir_stays():
    source = "site_url: https://old.example/\ntheme:\n  name: material\n  custom_dir: mine\n"
    config = read_config(zensical_config(source, custom_dir="build/overrides", settings={"site_url": "https://new.example/"})[0])
    assert config["site_url"] == "https://new.example/"
    assert config["theme"]["custom_dir"] == "mine"


def test_the_derived_config_says_where_it_came_from_and_which_version_it_was_tested_with():
    text, _ = zensical_config("site_name: x\n")
    assert text.startswith("# Derived by papersite (generator/site/zensical_config.py)")
    assert f"tested with {ZENSICAL_TESTED_VERSION}" in text.splitlines()[1]


def test_a_multi_line_string_is_written_as_a_block_and_reads_back_the_same():
    source = "not_in_nav: |\n  /a/*.md\n  /b/*.md\nsite_name: 'Ünïcode: yes'\n"
    text, _ = zensical_config(source)
    assert "not_in_nav: |" in text and "Ünïcode" in text
    assert read_config(text) == read_config(source)


def test_an_older_nav_gets_the_saved_page_before_about_unless_it_names_or_excludes_it():
    from generator.config import nav_with_added_sections

    old = "nav:\n  - Home: index.md\n  - Stats: stats/index.md\n  - About: about/index.md\n"
    text, notes = zensical_config(old)
    assert read_config(text)["nav"] == [{"Home": "index.md"}, {"Stats": "stats/index.md"}, {"Map": "map/index.md"},
                                        {"Saved": "saved/index.md"}, {"About": "about/index.md"}]
    assert any("Saved" in note and "Map" in note for note in notes)
    own = [{"Home": "index.md"}, {"My list": [{"Kept": "saved/index.md"}, {"Where": "map/index.md"}]}]
    assert nav_with_added_sections(own) == own
    assert nav_with_added_sections([{"Home": "index.md"}], "/saved/index.md\n/map/index.md\n") == [{"Home": "index.md"}]
    assert nav_with_added_sections(None) is None, "no nav: MkDocs lists every page itself"

