"""generator/ingest/identity.py: a known paper keeps its id and slug from import to import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.config import load_config
from generator.ingest.identity import KnownPaper, load_known, match_known, read_text_or_none, slug_sources
from generator.ingest.report import ImportReport
from generator.pages.record import PaperRecord, SourceRef
from generator.problems import PapersiteError
from site_fixtures import fixture_records, write_project


def _state_row(paper_id: str, slug: str, **fields) -> str:
    return json.dumps({"id": paper_id, "slug": slug, "fields": fields}, ensure_ascii=False, sort_keys=True) + "\n"


def _project(tmp_path: Path, state: str | None, records=None):
    root = write_project(tmp_path, records if records is not None else fixture_records()[:2])
    if state is not None:
        (root / ".papersite").mkdir(exist_ok=True)
        (root / ".papersite" / "last_import.jsonl").write_text(state, encoding="utf-8")
    return load_config(root)


def test_known_papers_come_from_the_state_and_the_pages(tmp_path):
    config = _project(tmp_path, _state_row("gone1", "a-departed-paper", title="Departed") + "\n" + _state_row("a1", "old-slug"))
    known = load_known(config)
    assert sorted(known) == ["a1", "a2", "gone1"]
    assert known["gone1"].page is None and known["gone1"].base == {"title": "Departed"}
    assert known["a1"].base == {} and known["a1"].page.slug == "one-step-diffusion-via-shortcut-models"
    assert known["a1"].slug == "old-slug"  # the state's slug: what the last import proposed
    assert known["a2"].base is None and known["a2"].path.name == "calibrated-flows.md"


def test_a_state_row_holding_a_line_separator_in_a_string_is_one_row(tmp_path):
    """The state is written with ensure_ascii=False: U+2028 and U+0085 stay raw inside its strings."""
    config = _project(tmp_path, _state_row("a9", "sep", abstract="one\u2028two\x85three\u2029four"))
    assert load_known(config)["a9"].base == {"abstract": "one\u2028two\x85three\u2029four"}


@pytest.mark.parametrize(("state", "line", "message"), [
    ("{not json\n", 1, "not a state record (not valid JSON"),
    ("\n[1, 2]\n", 2, "not a state record (expected JSON with id, slug, fields)"),
    ('{"id": "x", "slug": "y"}\n', 1, "not a state record (expected JSON with id, slug, fields)"),
])
def test_a_damaged_state_file_is_a_located_error(tmp_path, state, line, message):
    config = _project(tmp_path, state)
    with pytest.raises(PapersiteError) as refused:
        load_known(config)
    assert str(refused.value).startswith(f"{config.state_file}:{line}: {message}")


def test_no_state_yet_is_no_state_and_a_state_outside_the_project_is_refused(tmp_path):
    config = _project(tmp_path / "p", None)
    assert read_text_or_none(config.state_file, config.root) is None
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(_state_row("x", "y"), encoding="utf-8")
    config.state_file.parent.mkdir()
    config.state_file.symlink_to(outside)
    with pytest.raises(PapersiteError, match="leads outside the project"):
        read_text_or_none(config.state_file, config.root)


def test_slug_sources_join_what_was_imported_and_what_the_page_says():
    page = fixture_records()[0]
    known = {"a1": KnownPaper("a1", page.slug, {"sources": [{"file": "old.txt", "entry": 4}, "junk"]}, page, None),
             "b": KnownPaper("b", "b-slug", None, None, None)}
    assert slug_sources(known) == {page.slug: {("old.txt", 4), ("000_a.txt", 3), ("001_b.txt", 17)}, "b-slug": set()}


def _draft(title, abstract, source=("new.txt", 1)):
    return PaperRecord(id="new", slug="new", title=title, abstract=abstract, sources=[SourceRef(*source, "numbered")])


def test_a_draft_that_is_a_known_paper_takes_its_id_and_slug_and_a_second_claimant_is_new():
    known = {"k1": KnownPaper("k1", "kept-slug", {"title": "Shortcut Models for One Step Diffusion",
                                                   "abstract": "We train one network to sample in one step."}, None, None)}
    first = _draft("Shortcut Models for One Step Diffusion", "We train one network to sample in one step.")
    second = _draft("Shortcut Models for One Step Diffusion", "We train one network to sample in one step.", ("other.txt", 9))
    stranger = _draft("Graph Transformers at Scale", "Attention over millions of nodes.")
    report = ImportReport()
    match_known([first, second, stranger], known, report)
    assert (first.id, first.slug) == ("k1", "kept-slug")
    assert (second.id, second.slug) == ("new", "new") and (stranger.id, stranger.slug) == ("new", "new")
    assert report.warnings == ["other.txt #9: matches the same page as new.txt #1; imported as a new paper"]


def test_a_shared_listing_entry_identifies_a_paper_unless_the_titles_disagree():
    known = {"k1": KnownPaper("k1", "kept", {"title": "Old title", "sources": [{"file": "l.txt", "entry": 3}]}, None, None)}
    retitled = _draft(None, "Completely new abstract text.", ("l.txt", 3))
    match_known([retitled], known, ImportReport())
    assert retitled.id == "k1"
    other = _draft("Another paper entirely", None, ("l.txt", 3))
    match_known([other], known, ImportReport())
    assert other.id == "new"
    match_known([other], {}, ImportReport())  # nothing known: nothing to match
    assert other.id == "new"
