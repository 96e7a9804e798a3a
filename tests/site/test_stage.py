"""generator/site/stage.py: the staged docs dir holds every page at its route, rewritten only where it changed."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from generator import layout
from generator.catalog import build_catalog
from generator.config import load_config
from generator.site.exports import RELATED_SHARD
from generator.site.memo import Fingerprints, Memo
from generator.site.related import related_papers
from generator.site.render.map_page import MAP_DATA_FILE
from generator.site.postbuild import data_dir
from generator.site.stage import directory_page, stage_docs, staged_docs_dir, write_tree
from generator.site.termcounts import COUNTS_VERSION
from generator.site.textwork import Related
from site_fixtures import fixture_records, hold_search_worker_until_the_build_writes_the_data, write_project


def test_every_generated_page_is_staged_at_its_route(tmp_path: Path) -> None:
    config = load_config(write_project(tmp_path))
    stage_docs(config, shells=False)
    docs = staged_docs_dir(config)
    for route in (layout.HOME, layout.PAPERS, layout.TOPICS, layout.KEYWORDS, layout.AUTHORS, layout.EXPLORE, layout.STATS, layout.MAP):
        assert (docs / route.staged()).is_file(), route.kind
    assert (docs / layout.PAPER.staged("calibrated-flows")).is_file()
    assert (docs / layout.AUTHOR.staged("ming-zhou")).is_file()


def test_a_second_stage_of_the_same_pages_writes_nothing(tmp_path: Path) -> None:
    config = load_config(write_project(tmp_path))
    stage_docs(config)
    docs = staged_docs_dir(config)
    before = {p: p.stat().st_mtime_ns for p in docs.rglob("*") if p.is_file()}
    result = stage_docs(config)
    after = {p: p.stat().st_mtime_ns for p in docs.rglob("*") if p.is_file()}
    assert after == before and result.removed_paths == []


def test_write_tree_writes_changed_files_and_removes_strays_and_links(tmp_path: Path) -> None:
    target = tmp_path / "t"
    assert write_tree(target, {"a.md": b"one", "d/b.md": b"two"}) == (2, 0)
    (target / "stray.md").write_bytes(b"x")
    os.symlink(tmp_path, target / "link")
    removed: list[str] = []
    written, gone = write_tree(target, {"a.md": b"one", "d/b.md": b"TWO"}, removed)
    assert written == 1 and "stray.md" in removed and not (target / "stray.md").exists()
    assert not os.path.lexists(target / "link")  # a link is none of ours: gone, and nothing written through it
    assert (target / "d" / "b.md").read_bytes() == b"TWO" and tmp_path.is_dir()


def test_a_generated_page_sits_in_its_urls_folder() -> None:
    assert directory_page("authors/x.md") == "authors/x/index.md"
    assert directory_page("index.md") == "index.md" and directory_page("topics/a/index.md") == "topics/a/index.md"


def _derived(config) -> tuple[dict[str, bytes], bytes]:  # noqa: ANN001 - the related shards and the map's data
    stage_docs(config)
    files = data_dir(config) / "deferred" / "files"
    related = {path.name: path.read_bytes() for path in (files / RELATED_SHARD.rsplit("/", 1)[0]).iterdir()}
    return related, (files / MAP_DATA_FILE).read_bytes()


def test_after_an_edit_the_related_lists_and_the_map_are_a_clean_builds(tmp_path: Path) -> None:
    """The edit is counted on top of the term counts the last build kept (termcounts.py)."""
    records = fixture_records() + [
        replace(fixture_records()[0], id=f"x{i}", slug=f"extra-{i}", title=f"Diffusion shortcut flows {i}", keywords=[])
        for i in range(4)
    ]
    config = load_config(write_project(tmp_path / "edited", records))
    first = _derived(config)
    edited = [replace(r, title="Graph diffusion transformers for failure modeling") if r.slug == "extra-2" else r for r in records]
    write_project(tmp_path / "edited", edited)
    incremental = _derived(config)
    assert incremental != first
    assert Memo(config, "related").get(Related.KEPT, COUNTS_VERSION) is not None  # kept for the next edit
    assert incremental == _derived(load_config(write_project(tmp_path / "clean", edited)))


def _parallel_stage_writers(tmp_path: Path, monkeypatch, before_wait) -> tuple[dict[str, str], object]:  # noqa: ANN001
    """A parallel stage's map and related data files: which process wrote each (pid), once ``before_wait(result)``
    has run and the build's wait for the search worker has ended; the project's config."""
    import multiprocessing

    from generator.site import stage, textwork
    from generator.site.postbuild import copy_deferred

    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)  # related papers and the map in workers of their own
    writers = tmp_path / "writers"
    real_map, real_related = stage._write_map_data, stage._write_related_data

    def noted(real):  # noqa: ANN001, ANN202
        def write(*args):  # noqa: ANN002, ANN202
            with writers.open("a") as out:
                out.write(f"{real.__name__} {os.getpid()}\n")
            return real(*args)
        return write

    monkeypatch.setattr(stage, "_write_map_data", noted(real_map))
    monkeypatch.setattr(stage, "_write_related_data", noted(real_related))
    config = load_config(write_project(tmp_path / "project"))
    result = stage_docs(config, parallel=True)
    before_wait(result)
    result.pending.wait()
    assert multiprocessing.active_children() == []
    files = data_dir(config) / "deferred" / "files"
    assert (files / MAP_DATA_FILE).is_file() and any((files / RELATED_SHARD.rsplit("/", 1)[0]).iterdir())
    site = tmp_path / "site"
    copy_deferred(config, site)
    assert (site / MAP_DATA_FILE).is_file()
    return dict(line.split() for line in writers.read_text().splitlines()), config


def test_a_search_worker_that_ends_first_writes_the_map_and_related_data(tmp_path: Path, monkeypatch) -> None:
    """The search worker writes them from the answers of related papers' and the map's workers when it is done
    before the build waits for it, and the build's wait ends those workers."""
    import time

    def worker_done(result) -> None:  # noqa: ANN001
        deadline = time.monotonic() + 120
        while result.pending.worker.process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)

    written, _ = _parallel_stage_writers(tmp_path, monkeypatch, worker_done)
    assert set(written) == {"_write_map_data", "_write_related_data"} and str(os.getpid()) not in written.values()


def test_a_build_that_waits_first_writes_the_map_and_related_data_itself(tmp_path: Path, monkeypatch) -> None:
    """The main process writes them when it has nothing left but to wait for a search worker still at work (the
    worker is held here until they are written): then the worker does not, and the files are the same."""
    main = hold_search_worker_until_the_build_writes_the_data(tmp_path, monkeypatch)
    written, config = _parallel_stage_writers(tmp_path, monkeypatch, lambda result: None)
    assert set(written) == {"_write_map_data", "_write_related_data"} and set(written.values()) == {str(main)}
    clean = load_config(write_project(tmp_path / "clean"))
    stage_docs(clean)  # no worker: the main process writes them
    files, clean_files = data_dir(config) / "deferred" / "files", data_dir(clean) / "deferred" / "files"
    assert (files / MAP_DATA_FILE).read_bytes() == (clean_files / MAP_DATA_FILE).read_bytes()


def test_what_a_stage_keeps_from_the_collector_is_given_back(tmp_path: Path, monkeypatch) -> None:
    """The catalog and what was read before it are kept out of the collector's walks while the docs are staged
    (``gc.freeze``), and given back when staging ends, even when it fails: ``papersite serve`` outlives builds."""
    import gc

    from generator.site import stage

    frozen = []
    real_freeze = gc.freeze
    monkeypatch.setattr(stage.gc, "freeze", lambda: (frozen.append(True), real_freeze()))
    config = load_config(write_project(tmp_path))
    stage_docs(config)
    assert frozen and gc.get_freeze_count() == 0 and gc.isenabled()
    first = len(frozen)  # the catalog's, and each memo file's (memo._collector_paused)

    def broken(*args, **kwargs):
        raise RuntimeError("a stage that fails after the catalog")

    monkeypatch.setattr(stage, "index_pages", broken)
    with pytest.raises(RuntimeError, match="fails after the catalog"):
        stage_docs(config)
    assert len(frozen) > first and gc.get_freeze_count() == 0 and gc.isenabled()


def test_an_edit_renders_again_the_topic_pages_of_the_paper_it_changed(tmp_path: Path, monkeypatch) -> None:
    """Each area and sub-area page is kept whole by what it shows (``indices.topics_pages``)."""
    import functools

    from generator.site.render import indices

    records = fixture_records()
    config = load_config(write_project(tmp_path, records))
    stage_docs(config)
    rendered: list[tuple] = []
    for name in ("area_page", "subarea_page"):
        real = getattr(indices, name)
        monkeypatch.setattr(indices, name, functools.wraps(real)(
            lambda *args, real=real: rendered.append((real.__name__, *args[:-1])) or real(*args)))
    stage_docs(config)
    assert rendered == []  # nothing changed
    paper = next(r for r in records if r.topic and r.topic.subarea)
    write_project(tmp_path, [replace(r, title=f"{r.title}, revised") if r is paper else r for r in records])
    stage_docs(config)
    area = next(a for a in build_catalog(records).areas if a.name == paper.topic.area)
    sub = next(s for s in area.subareas if s.name == paper.topic.subarea)
    subareas = tuple((s.name, s.slug, len(s.papers)) for s in area.subareas)
    assert sorted(rendered) == [("area_page", area.name, area.slug, subareas), ("subarea_page", area.name, area.slug, sub.name, sub.slug)]


def test_an_edit_renders_again_the_map_lists_and_all_papers_rows_of_the_paper_it_changed(tmp_path: Path, monkeypatch) -> None:
    """The map page's list of each topic and All papers' rows, in runs (``components.kept_chunks``), are kept by the
    papers they show: kept by the next build (the lists' memo saved after the last of them), rendered again where an
    edited paper is, and the pages are a clean build's."""
    import functools

    from generator.site.render import indices, map_page

    records = fixture_records()
    config = load_config(write_project(tmp_path, records))
    stage_docs(config)
    rendered: list[tuple] = []
    for module, name in ((map_page, "_map_items"), (indices, "_papers_rows")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, functools.wraps(real)(
            lambda *args, real=real: rendered.append((real.__name__, args)) or real(*args)))
    stage_docs(config)
    assert rendered == []  # nothing changed
    paper = next(r for r in records if r.topic and r.topic.subarea)
    edited = [replace(r, title=f"{r.title}, revised") if r is paper else r for r in records]
    write_project(tmp_path, edited)
    stage_docs(config)
    shown = {name: [p.slug for p in next(a for a in args if isinstance(a, tuple))] for name, args in rendered}
    assert sorted(shown) == ["_map_items", "_papers_rows"] and len(rendered) == 2
    assert all(paper.slug in slugs for slugs in shown.values())
    target = staged_docs_dir(config)
    pages = {rel: (target / rel).read_bytes() for rel in ("map/index.md", "papers/index.md") if (target / rel).exists()}
    assert pages
    clean = load_config(write_project(tmp_path / "clean", edited))
    stage_docs(clean)
    assert pages == {rel: (staged_docs_dir(clean) / rel).read_bytes() for rel in pages}


def test_after_a_settings_change_the_next_edit_carries_the_paper_keys_again(tmp_path: Path, monkeypatch) -> None:
    """The paper keys a build carries are those of the kept catalog's build, for its context (``KeptCatalog.carried``):
    a build under another context (here the site's name) carries none, and keeps the catalog again with its own
    keys, so the edit after it carries them (else every edit would fingerprint every paper page again)."""
    from generator.site import stage

    records = fixture_records()
    config = load_config(write_project(tmp_path, records))
    stage_docs(config)
    carried: list = []
    real = stage.KeptCatalog.carried
    monkeypatch.setattr(stage.KeptCatalog, "carried", lambda kept, context: carried.append(real(kept, context)) or carried[-1])
    config = load_config(write_project(tmp_path, records, site_name="Renamed Papers"))
    stage_docs(config)
    assert carried[-1].paper_keys == {}  # the kept keys were made for the other name
    paper = records[0]
    write_project(tmp_path, [replace(r, title=f"{r.title}, revised") if r is paper else r for r in records], site_name="Renamed Papers")
    stage_docs(config)
    others = [r for r in records if r is not paper]
    assert all(carried[-1].paper(r, f"site_src/papers/{r.slug}.md") is not None for r in others)
    assert carried[-1].paper(replace(paper, title=f"{paper.title}, revised"), f"site_src/papers/{paper.slug}.md") is None
