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


def test_rows_written_by_two_processes_are_those_one_writes(tmp_path: Path) -> None:
    """``split_from`` (the command line, at scale): a forked worker writes the second half of the rows;
    the file and the record are those one process writes, kept lines are reused by either half,
    and a row that fails to render in the worker fails the whole write."""
    import pytest

    from generator.problems import PapersiteError

    (tmp_path / "papersite.yml").write_text("{}\n", encoding="utf-8")
    config = load_config(tmp_path)
    bodies = {f"papers/p{n}/": f"<h1>P{n} ‹{n}›</h1>" * (n + 1) for n in range(7)}
    alone, split = config.build_dir / "alone.json", config.build_dir / "split.json"
    assert write_rows(config, "alone", _sources(bodies, []), alone) == 7
    assert write_rows(config, "split", _sources(bodies, []), split, split_from=2) == 7
    assert split.read_bytes() == alone.read_bytes()
    record = json.loads((config.build_dir / "cache" / "rows-split.json").read_text(encoding="utf-8"))
    assert record == json.loads((config.build_dir / "cache" / "rows-alone.json").read_text(encoding="utf-8"))
    assert not split.with_name("split.json.tail").exists()

    bodies["papers/p1/"] = "<h1>first half</h1>"
    bodies["papers/p6/"] = "<h1>second half</h1>"  # rendered in the worker: its call is not seen here
    calls: list[str] = []
    assert write_rows(config, "split", _sources(bodies, calls), split, split_from=2) == 2
    assert calls == ["papers/p1/"]
    write_rows(config, "alone", _sources(bodies, []), alone)
    assert split.read_bytes() == alone.read_bytes()

    def broken() -> DetailPage:
        raise RuntimeError("a page that cannot be rendered")

    sources = _sources({**bodies, "papers/p5/": "changed"}, [])
    sources[5] = DetailSource("papers/p5/", lambda: "changed again", broken)
    with pytest.raises(PapersiteError, match="split pages failed in its worker"):
        write_rows(config, "split", sources, split, split_from=2)
    assert not split.with_name("split.json.tail").exists()
