"""Author and keyword rows kept by their inputs (generator/site/detailrows.py)."""

from __future__ import annotations

import json
from pathlib import Path

from generator.config import load_config
from generator.site.detailrows import write_rows
from generator.site.render.html import DetailPage
from generator.site.render.indices import DetailSource


def _sources(bodies: dict[str, str], calls: list[str]) -> list[DetailSource]:
    def render(url: str) -> DetailPage:
        calls.append(url)
        return DetailPage(url, url.upper(), bodies[url])

    return [DetailSource(url, lambda url=url: bodies[url], lambda url=url: render(url)) for url in bodies]


def test_a_row_is_rendered_only_when_its_inputs_change_and_the_file_is_what_a_full_render_gives(tmp_path: Path) -> None:
    (tmp_path / "papersite.yml").write_text("{}\n", encoding="utf-8")
    config = load_config(tmp_path)
    target = config.build_dir / "postbuild" / "authors.json"
    bodies = {"authors/a/": "<h1>A</h1>", "authors/b/": "<h1>B ‹b›</h1>", "authors/c/": "<h1>C</h1>"}
    calls: list[str] = []
    assert write_rows(config, "authors", _sources(bodies, calls), target) == 3
    full = target.read_bytes()
    assert [json.loads(line)[0] for line in full.splitlines()] == list(bodies)

    calls.clear()
    bodies["authors/b/"] = "<h1>B, renamed</h1>"
    assert write_rows(config, "authors", _sources(bodies, calls), target) == 1
    assert calls == ["authors/b/"]
    rendered_again = tmp_path / "again.json"
    write_rows(config, "other", _sources(bodies, []), rendered_again)
    assert target.read_bytes() == rendered_again.read_bytes()

    # a kept line whose bytes changed (same size) is rendered again; so is every row without the record
    data = target.read_bytes()
    target.write_bytes(data.replace(b"<h1>A</h1>", b"<h1>X</h1>"))
    calls.clear()
    write_rows(config, "authors", _sources(bodies, calls), target)
    assert calls == ["authors/a/"] and target.read_bytes() == data
    (config.build_dir / "cache" / "rows-authors.json").write_text("not json", encoding="utf-8")
    calls.clear()
    write_rows(config, "authors", _sources(bodies, calls), target)
    assert calls == list(bodies) and target.read_bytes() == data
