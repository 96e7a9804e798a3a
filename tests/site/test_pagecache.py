"""What one build keeps for the next (generator/site/pagecache.py): here, slug_of's memo."""

from __future__ import annotations

from pathlib import Path

from generator import layout
from generator.config import load_config
from generator.site.pagecache import KnownSlugs


def test_known_slugs_are_kept_between_builds_and_a_damaged_file_counts_as_empty(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    (tmp_path / "papersite.yml").write_text("{}\n", encoding="utf-8")
    config = load_config(tmp_path)
    monkeypatch.setattr(layout, "_SLUG_OF", {})
    assert layout.slug_of("José García") == "jose-garcia"
    KnownSlugs(config).save()

    monkeypatch.setattr(layout, "_SLUG_OF", {})  # a new process
    KnownSlugs(config)
    assert layout.known_slugs() == {"José García": "jose-garcia"}

    (config.build_dir / "cache" / "slugs.pickle").write_bytes(b"\x80damaged")
    monkeypatch.setattr(layout, "_SLUG_OF", {})
    KnownSlugs(config)
    assert layout.known_slugs() == {}
    assert layout.slug_of("Index") == "index-x"  # reserved, as without the memo
