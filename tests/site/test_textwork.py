"""generator/site/textwork.py: related papers and the map, kept by their texts, made in workers that may start before
the check; whatever a worker read, the build's answer is the one a clean computation gives for the checked pages."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from generator.config import load_config
from generator.pages.record import render_page
from generator.site import build, textwork
from generator.site.exports import RELATED_SHARD
from generator.site.memo import PAGE_SHARDS, CheckedPages, Fingerprints, Memo, checked_scope
from generator.site.paper_map import paper_points
from generator.site.postbuild import data_dir
from generator.site.related import related_papers
from generator.site.render.map_page import MAP_DATA_FILE
from generator.site.stage import read_records, stage_docs, staged_docs_dir
from generator.site.termcounts import COUNTS_VERSION
from generator.site.textwork import Early, MapPoints, Related, page_items, pages_read
from site_fixtures import fixture_records, hold_search_worker_until_the_build_writes_the_data, write_project


def test_the_map_is_laid_out_again_only_when_what_it_reads_changes(tmp_path: Path) -> None:
    config = load_config(write_project(tmp_path))
    stage_docs(config, shells=False)
    # beside the engine, as the search files are: a change of the points alone runs no engine
    assert (data_dir(config) / "deferred" / "files" / MAP_DATA_FILE).is_file()
    assert not (staged_docs_dir(config) / MAP_DATA_FILE).exists()
    records, _ = read_records(config)

    def kept(papers) -> bool:  # noqa: ANN001
        return MapPoints(config, papers, fork=False, prints=Fingerprints()).value is not None

    assert kept(records) and kept(list(reversed(records)))
    assert kept([replace(records[0], authors=["Someone Else"], keywords=["other"])] + records[1:])
    assert not kept([replace(records[0], abstract="Entirely new words about proteins.")] + records[1:])
    assert not kept(records[1:])


def test_a_forked_worker_reads_the_memo_answers_from_it_and_keeps_what_it_computes(tmp_path: Path) -> None:
    """With a worker, the build never makes related papers' or the map's texts nor reads their memo itself: the
    worker answers from it while the texts are as they were, and saves what it computed (the counts never come back)."""
    config = load_config(write_project(tmp_path))
    records, _ = read_records(config)
    first = Related(config, records, fork=True, prints=Fingerprints())
    assert first.worker is not None and not hasattr(first, "cache") and not hasattr(first, "texts")  # the worker's to do
    lists = first.result()
    saved = Memo(config, "related")
    key_of = lambda papers: Fingerprints().of(Related.texts_of(papers))  # noqa: E731
    assert saved.get(Related.ENTRY, key_of(records)) == lists and saved.get(Related.KEPT, COUNTS_VERSION) is not None
    memo_file = saved.path
    stamp = memo_file.stat().st_mtime_ns
    again = Related(config, list(reversed(records)), fork=True, prints=Fingerprints())
    assert again.result() == lists and memo_file.stat().st_mtime_ns == stamp  # answered from the memo, nothing saved
    edited = [replace(records[0], abstract="Entirely new words about proteins.")] + records[1:]
    changed = Related(config, edited, fork=True, prints=Fingerprints())
    assert changed.result() == related_papers(edited)  # computed from the counts the worker kept: a clean computation's
    assert Memo(config, "related").get(Related.ENTRY, key_of(edited)) is not None


def test_a_kinds_texts_are_its_items_in_order_whatever_the_order_of_the_records() -> None:
    records = fixture_records()
    for kind in textwork.KINDS:
        texts = kind.texts_of(records)
        assert texts == kind.texts_of(list(reversed(records)))
        assert texts == kind.in_order([kind.item_of(r) for r in reversed(records)])


def _checked(config) -> dict[str, str]:  # noqa: ANN001 - the pages a build's check reads, as it names them
    from generator.pages.folder import read_pages

    pages = CheckedPages(config)
    read_pages(config, cache=pages)
    return pages_read(pages)


def test_page_items_are_the_checked_records_texts_and_an_edit_parses_its_own_page_alone(tmp_path: Path, monkeypatch) -> None:
    config = load_config(write_project(tmp_path))
    records, _ = read_records(config)
    parsed: list[str] = []
    real = textwork.record_of_bytes
    monkeypatch.setattr(textwork, "record_of_bytes", lambda path, label, data: parsed.append(label) or real(path, label, data))
    items, read = page_items(config)
    for kind in textwork.KINDS:
        assert kind.in_order(items[kind.KIND]) == kind.texts_of(records) and read == _checked(config)
    assert sorted(parsed) == sorted(set(parsed)) and len(parsed) == len(records)  # nothing kept yet: one pass for every kind
    parsed.clear()
    assert page_items(config)[1] == _checked(config) and parsed == []  # every page as it was kept
    page = config.papers_dir / f"{records[0].slug}.md"
    page.write_text(render_page(replace(records[0], title="A Title Edited Since")), encoding="utf-8")
    os.utime(config.papers_dir / f"{records[1].slug}.md")  # touched, not changed: read again, not parsed
    items, read = page_items(config)
    assert parsed == [f"site_src/papers/{records[0].slug}.md"]
    for kind in textwork.KINDS:
        assert kind.in_order(items[kind.KIND]) == kind.texts_of(read_records(config)[0]) and read == _checked(config)


def test_a_page_that_is_no_regular_file_is_left_to_the_check_and_never_opened(tmp_path: Path) -> None:
    config = load_config(write_project(tmp_path))
    os.mkfifo(config.papers_dir / "a-fifo.md")  # opening it would wait for a writer
    os.symlink(config.papers_dir / f"{fixture_records()[0].slug}.md", config.papers_dir / "a-link.md")
    done: list = []
    reader = threading.Thread(target=lambda: done.append(page_items(config)), daemon=True)
    reader.start()
    reader.join(20)
    assert done, "page_items hung on a FIFO"
    items, read = done[0]
    assert "site_src/papers/a-fifo.md" not in read and "site_src/papers/a-link.md" not in read
    assert all(len(found) == len(fixture_records()) for found in items.values())


def test_an_early_workers_answer_is_taken_only_for_the_pages_the_check_read(tmp_path: Path) -> None:
    config = load_config(write_project(tmp_path))
    records, _ = read_records(config)
    worker = textwork.EarlyWorker(config)
    for kind, clean in ((MapPoints, paper_points), (Related, related_papers)):  # in either order
        work = kind(config, records, fork=False, prints=Fingerprints(), early=Early(kind, worker), read=_checked(config))
        assert work.result() == clean(records)
    assert worker.worker is None  # every answer taken: the worker ended
    # a page changed after the worker read it and before the check did: the build answers for the checked pages
    worker = textwork.EarlyWorker(config)
    worker.worker.process.join()  # it read the pages and answered for each kind (its answers wait in the pipe)
    early = {kind.KIND: Early(kind, worker) for kind in textwork.KINDS}
    page = config.papers_dir / f"{records[2].slug}.md"
    edited = replace(records[2], abstract="Entirely new words about proteins and their folding.")
    page.write_text(render_page(edited), encoding="utf-8")
    checked, _ = read_records(config)
    assert any(r.abstract == edited.abstract for r in checked)
    read = _checked(config)
    related = Related(config, checked, fork=False, prints=Fingerprints(), early=early["related"], read=read)
    points = MapPoints(config, checked, fork=False, prints=Fingerprints(), early=early["map"], read=read)
    assert related.result() == related_papers(checked) and points.result() == paper_points(checked)


def _args() -> argparse.Namespace:
    return argparse.Namespace(no_import=True, quiet=True, clean=False, engine="mkdocs")


def _let_the_search_worker_end_first(monkeypatch) -> None:
    """The search worker writes the map's and related papers' data: the build waits for it to end first."""
    import time

    from generator.site import stage

    real_wait = stage.Pending.wait

    def wait(pending) -> None:  # noqa: ANN001
        deadline = time.monotonic() + 120
        while pending.worker is not None and pending.worker.process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        real_wait(pending)

    monkeypatch.setattr(stage.Pending, "wait", wait)


@pytest.mark.parametrize("writer", ["search worker", "build"])
def test_a_build_with_early_workers_is_a_clean_builds_after_an_edit(tmp_path: Path, monkeypatch, writer: str) -> None:
    """Whichever process writes the map's and related papers' data from the early worker's answers."""
    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)
    if writer == "build":
        hold_search_worker_until_the_build_writes_the_data(tmp_path, monkeypatch)
    else:
        _let_the_search_worker_end_first(monkeypatch)
    records = fixture_records() + [
        replace(fixture_records()[0], id=f"x{i}", slug=f"extra-{i}", title=f"Diffusion shortcut flows {i}", keywords=[])
        for i in range(4)
    ]
    started: list[dict] = []
    real = textwork.start_early
    monkeypatch.setattr(textwork, "start_early", lambda config, changed: started.append(real(config, changed)) or started[-1])
    project = write_project(tmp_path / "edited", records)
    assert build.run_build(_args(), load_config(project)) == 0
    # a first build: no memo of pages yet (as the build begins, nor at the check), which its workers keep from the
    # checked records
    assert started == [{}, {}]
    assert multiprocessing.active_children() == []  # the search worker took related papers' answer; the build ended them
    kept = Memo(load_config(project), textwork.PAGES_KIND, scope=checked_scope(load_config(project)), shards=PAGE_SHARDS)
    assert len(kept.old) == len(records)
    page = project / "site_src" / "papers" / "extra-2.md"
    page.write_text(re.sub(r"^title: .*$", "title: Graph diffusion transformers for failure modeling",
                           page.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")
    assert build.run_build(_args(), load_config(project)) == 0
    assert len(started) == 3 and set(started[2]) == {"related", "map"}  # the edit's workers started with the build
    assert multiprocessing.active_children() == []
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "site_src").mkdir()
    for name in ("papersite.yml", "mkdocs.yml"):
        (clean / name).write_bytes((project / name).read_bytes())
    (clean / "site_src" / "papers").mkdir()
    for source in (project / "site_src" / "papers").iterdir():
        (clean / "site_src" / "papers" / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 10_000)  # no early worker
    assert build.run_build(_args(), load_config(clean)) == 0
    related = sorted(path.relative_to(clean / "site").as_posix() for path in (clean / "site").glob(RELATED_SHARD.format("*")))
    assert related  # the related papers' data, which the search worker writes from the early worker's answer
    for name in ("papers/extra-2/index.html", "papers/extra-1/index.html", MAP_DATA_FILE, *related):
        assert (project / "site" / name).read_bytes() == (clean / "site" / name).read_bytes(), name


def test_a_build_that_fails_its_check_stops_the_early_workers(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)
    started: list = []
    real = textwork.start_early
    monkeypatch.setattr(textwork, "start_early", lambda config, changed: started.append(real(config, 0)) or started[-1])
    project = write_project(tmp_path)
    assert build.run_build(_args(), load_config(project)) == 0  # keeps the memo of pages the early workers read
    page = project / "site_src" / "papers" / f"{fixture_records()[0].slug}.md"
    page.write_text(page.read_text(encoding="utf-8").replace("title:", "title: [unclosed", 1), encoding="utf-8")
    assert build.run_build(_args(), load_config(project)) == 1
    assert started[-1] and all(early.worker.worker is None for early in started[-1].values())
    assert multiprocessing.active_children() == []
    assert "problem(s) in the paper pages" in capsys.readouterr().err


def test_the_worker_started_with_the_build_ends_unasked_when_nothing_or_many_files_changed(tmp_path: Path, monkeypatch) -> None:
    """It starts before the stamps know what changed: a build with nothing to do ends it, and so does one where
    more files changed than an early worker should parse beside the check (the stage's workers then start
    from the checked records, as in a clean build)."""
    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)
    started: list[dict] = []
    real = textwork.start_early
    monkeypatch.setattr(textwork, "start_early", lambda config, changed: started.append(real(config, changed)) or started[-1])
    asked: list[str] = []
    real_answer = Early.value_if_read
    monkeypatch.setattr(Early, "value_if_read", lambda early, read: asked.append(early.kind.KIND) or real_answer(early, read))
    project = write_project(tmp_path)
    assert build.run_build(_args(), load_config(project)) == 0
    started.clear()
    assert build.run_build(_args(), load_config(project)) == 0  # nothing changed
    assert len(started) == 1 and set(started[0]) == {"related", "map"}
    assert all(early.worker.worker is None for early in started[0].values()) and asked == []
    assert multiprocessing.active_children() == []
    monkeypatch.setattr(textwork, "EARLY_AT_MOST_CHANGED", 0)  # one changed page is then too many
    page = project / "site_src" / "papers" / f"{fixture_records()[0].slug}.md"
    page.write_text(re.sub(r"^title: .*$", "title: Many files changed meanwhile", page.read_text(encoding="utf-8"),
                           count=1, flags=re.M), encoding="utf-8")
    started.clear()
    assert build.run_build(_args(), load_config(project)) == 0
    assert len(started) == 2 and set(started[0]) == {"related", "map"} and started[1] == {}
    assert all(early.worker.worker is None for early in started[0].values()) and asked == []  # never asked
    assert multiprocessing.active_children() == []
    shown = (project / "site" / "papers" / fixture_records()[0].slug / "index.html").read_text(encoding="utf-8")
    assert "Many files changed meanwhile" in shown


def test_no_worker_starts_early_where_it_would_parse_what_the_check_parses(tmp_path: Path, monkeypatch) -> None:
    """A clean build (nothing kept) or many changed files: the check parses those pages, and so would each early worker."""
    from generator.site.memo import forget_all

    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)
    config = load_config(write_project(tmp_path))
    assert textwork.start_early(config, 0) == {}  # never built: no memo of pages
    assert build.run_build(_args(), config) == 0
    assert textwork.start_early(config, textwork.EARLY_AT_MOST_CHANGED + 1) == {}
    early = textwork.start_early(config, textwork.EARLY_AT_MOST_CHANGED)
    assert set(early) == {"related", "map"}
    for worker in early.values():
        worker.cancel()
    forget_all(config)  # papersite build --clean
    assert textwork.start_early(config, 0) == {}
    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 10_000)
    assert build.run_build(_args(), config) == 0 and textwork.start_early(config, 0) == {}  # too few papers


def _imported_project(tmp_path: Path) -> Path:
    """The fixture project as an import last left it: its state rows are its pages, the import's stamp kept."""
    from generator.site import incremental

    project = write_project(tmp_path)
    (project / "corpus").mkdir()  # no listing: what the import read is as its stamp says (the pages' views)
    config = load_config(project)
    config.state_file.parent.mkdir(parents=True, exist_ok=True)
    config.state_file.write_text("".join(json.dumps({"id": r.id, "fields": r.to_front_matter()}) + "\n" for r in read_records(config)[0]),
                                 encoding="utf-8")
    incremental.write_stamp(config, incremental.IMPORT_STAMP, incremental.import_inputs(config))
    return project


def _retitle(project: Path) -> None:
    page = project / "site_src" / "papers" / f"{fixture_records()[0].slug}.md"
    page.write_text(re.sub(r"^title: .*$", "title: Graph diffusion transformers for failure modeling",
                           page.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")


def test_an_edit_starts_the_early_worker_as_the_build_begins(tmp_path: Path, monkeypatch) -> None:
    """`papersite build`: the early worker starts once, before the stamps (one core's work, at 11,672 papers ~0.7 s
    of an edit) and so before the check cache is loaded."""
    from generator.ingest import importer
    from generator.site import incremental, memo

    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)
    project = _imported_project(tmp_path)
    monkeypatch.setattr(importer, "run_import", lambda *a, **k: pytest.fail("a page edit the import keeps imported"))
    args = argparse.Namespace(no_import=False, quiet=True, clean=False, engine="mkdocs")
    assert build.run_build(args, load_config(project)) == 0  # keeps the memo of pages the early worker reads
    events: list[str] = []
    real_start, real_checked, real_stamp = textwork.start_early, memo.CheckedPages.__init__, incremental.import_inputs
    monkeypatch.setattr(textwork, "start_early", lambda config, changed: events.append("early") or real_start(config, changed))
    monkeypatch.setattr(incremental, "import_inputs", lambda *a, **k: events.append("stamp") or real_stamp(*a, **k))

    def checked(self, config, *rest) -> None:  # noqa: ANN001
        events.append("check cache")
        real_checked(self, config, *rest)

    monkeypatch.setattr(memo.CheckedPages, "__init__", checked)
    _retitle(project)
    assert build.run_build(args, load_config(project)) == 0
    assert events == ["early", "stamp", "check cache"]
    assert multiprocessing.active_children() == []
    assert "Graph diffusion transformers" in (project / "site" / "papers" / fixture_records()[0].slug / "index.html").read_text(encoding="utf-8")


def test_an_early_worker_is_stopped_before_the_import_it_read_the_pages_for_runs(tmp_path: Path, monkeypatch) -> None:
    """A page and a listing changed: the early worker, started as the stamp viewed the page, is stopped before the
    import rewrites the pages (it would idle until the import's end, then be thrown away)."""
    from generator.ingest import importer

    monkeypatch.setattr(textwork, "RELATED_IN_WORKER_FROM", 1)
    project = _imported_project(tmp_path)
    args = argparse.Namespace(no_import=False, quiet=True, clean=False, engine="mkdocs")
    monkeypatch.setattr(importer, "run_import", lambda *a, **k: pytest.fail("nothing changed for the import"))
    assert build.run_build(args, load_config(project)) == 0  # keeps the memo of pages the early worker reads
    started: list[dict] = []
    real = textwork.start_early
    monkeypatch.setattr(textwork, "start_early", lambda config, changed: started.append(real(config, changed)) or started[-1])
    running: list[list] = []
    monkeypatch.setattr(importer, "run_import", lambda *a, **k: running.append(multiprocessing.active_children()) or 1)
    _retitle(project)
    (project / "corpus" / "more.jsonl").write_text('{"title": "A listing that arrived"}\n', encoding="utf-8")
    assert build.run_build(args, load_config(project)) == 1  # the stand-in import fails: the build stops there
    assert started and set(started[0]) == {"related", "map"}
    assert running == [[]]
    assert multiprocessing.active_children() == []
