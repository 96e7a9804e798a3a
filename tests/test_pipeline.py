"""generator/pipeline.py: the stages of an import and a build, in the order the table gives, each timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.config import load_config
from generator.pipeline import IMPORT_STAGES, SITE_STAGES, STAGE_HOOK_ENV, Stage, Timings, diagram, import_listings, write_timings
from generator.problems import PapersiteError
from site_fixtures import fixture_records, write_project


def test_an_import_runs_its_stages_in_the_table_order(tmp_path: Path) -> None:
    root = write_project(tmp_path, fixture_records()[:2])
    (root / "corpus").mkdir()
    (root / "corpus" / "more.jsonl").write_text(
        '{"title": "A New Paper on Graphs", "abstract": "We study graphs with a new method for many nodes and edges."}\n',
        encoding="utf-8",
    )
    report = import_listings([], load_config(root))
    assert list(report.stage_seconds) == [stage.name for stage in IMPORT_STAGES]
    assert all(seconds >= 0 for seconds in report.stage_seconds.values())


def test_timings_refuse_an_unknown_stage_and_one_out_of_order() -> None:
    timings = Timings(IMPORT_STAGES)
    with timings.stage("merge"):
        pass
    with pytest.raises(AssertionError, match="out of order"):
        with timings.stage("read"):
            pass
    with pytest.raises(AssertionError, match="no stage 'render'"):
        with timings.stage("render"):
            pass


def test_a_stage_hook_interrupts_the_named_stage_only(monkeypatch) -> None:
    monkeypatch.setenv(STAGE_HOOK_ENV, "merge:interrupt")
    timings = Timings(IMPORT_STAGES)
    with timings.stage("read"):
        pass
    with pytest.raises(KeyboardInterrupt):
        with timings.stage("merge"):
            raise AssertionError("the stage body must not run")
    assert list(timings.seconds) == ["read", "merge"]  # the interrupted stage is still timed


def test_timings_are_written_as_one_json_object_of_both_tables(tmp_path: Path) -> None:
    imported, built = Timings(IMPORT_STAGES), Timings(SITE_STAGES)
    with imported.stage("read"):
        pass
    with built.stage("engine"):
        pass
    assert imported.summary().startswith("read ") and imported.summary().endswith("s")
    write_timings(tmp_path / "t.json", imported, built)
    seconds = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert list(seconds) == ["read", "engine"] and all(isinstance(v, float) and v >= 0 for v in seconds.values())
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    with pytest.raises(PapersiteError, match=r"a-file/t.json:1: cannot be written: .*a-file is not a folder"):
        write_timings(tmp_path / "a-file" / "t.json", imported)  # the disk says no: one line, not a traceback


def test_stage_names_are_unique_and_the_diagram_draws_each_stage_with_what_it_gives() -> None:
    for stages in (IMPORT_STAGES, SITE_STAGES):
        assert len({s.name for s in stages}) == len(stages)
    drawn = diagram()
    assert drawn.startswith("papersite import:\n  1. read ") and "papersite build:\n  1. import " in drawn
    for stage in IMPORT_STAGES + SITE_STAGES:
        assert f"-> {stage.gives}" in drawn and stage.module in drawn
    assert Stage("x", "m.py", "a", "b") == Stage("x", "m.py", "a", "b")


def test_an_import_of_a_bad_listing_writes_nothing(tmp_path: Path) -> None:
    root = write_project(tmp_path, fixture_records()[:1])
    before = sorted(p.name for p in (root / "site_src" / "papers").iterdir())
    (root / "corpus").mkdir()
    (root / "corpus" / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match="bad.jsonl:1: "):
        import_listings([], load_config(root))
    assert sorted(p.name for p in (root / "site_src" / "papers").iterdir()) == before
    assert not (root / ".papersite" / "last_import.jsonl").exists()
