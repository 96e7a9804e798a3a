"""generator/config.py: papersite.yml, and the MkDocs settings it drives."""

from __future__ import annotations

from pathlib import Path

from generator import engines
from generator.config import load_config


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
    derived = engines.read_config(engines.zensical_config("site_name: x\n", settings=config.engine_settings())[0])
    assert derived["site_url"] == "https://owner.github.io/papers/" and derived["repo_name"] == "owner/papers"


def test_without_them_the_engine_gets_nothing(tmp_path: Path):
    config = load_config(tmp_path)
    assert config.site_url is None and config.engine_settings() == {}
