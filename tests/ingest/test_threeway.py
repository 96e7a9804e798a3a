"""generator/ingest/threeway.py: the listing's new value, the maintainer's edit and the last import, field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config import load_config
from generator.ingest.identity import KnownPaper
from generator.ingest.report import ImportReport
from generator.ingest.threeway import check_plan, drop_overridden_fills, merge_fields, plan
from generator.pages.record import render_page
from generator.problems import PapersiteError
from site_fixtures import fixture_records, write_project


@pytest.mark.parametrize(("base", "page", "proposed", "merged", "conflicts"), [
    ({"title": "A"}, {"title": "A"}, {"title": "B"}, {"title": "B"}, []),  # untouched: the listing's new value
    ({"title": "A"}, {"title": "Mine"}, {"title": "A"}, {"title": "Mine"}, []),  # edited by hand only
    ({"title": "A"}, {"title": "Mine"}, {"title": "B"}, {"title": "Mine"}, ["title"]),  # both: the human wins
    ({"title": "A"}, {"title": "B"}, {"title": "B"}, {"title": "B"}, []),  # both made the same change
    (None, {"title": "Hand"}, {"title": "B"}, {"title": "Hand"}, ["title"]),  # no state: a difference is a conflict
    ({"id": "x"}, {"id": "x", "slug": "kept"}, {"id": "y", "slug": "new"}, {"id": "x", "slug": "kept"}, []),
    ({"decision": "Reject"}, {"decision": "Reject"}, {}, {}, []),  # the listing dropped it, nobody had touched it
    ({}, {"note": "maintainer's"}, {}, {"note": "maintainer's"}, []),  # a field only the page has stays
])
def test_each_field_merges_three_ways(base, page, proposed, merged, conflicts):
    assert merge_fields(base, page, proposed) == (merged, conflicts)


def test_links_merge_key_by_key_and_in_name_order():
    base = {"links": {"pdf": "https://a/old.pdf"}}
    page = {"links": {"pdf": "https://a/old.pdf", "code": "https://github.com/me/code"}}
    proposed = {"links": {"pdf": "https://a/new.pdf", "openreview": "https://openreview.net/x"}}
    merged, conflicts = merge_fields(base, page, proposed)
    assert list(merged["links"].items()) == [
        ("code", "https://github.com/me/code"), ("openreview", "https://openreview.net/x"), ("pdf", "https://a/new.pdf")]
    assert conflicts == []
    _, conflicts = merge_fields(base, {"links": {"pdf": "https://mine.pdf"}}, proposed)
    assert conflicts == ["links.pdf"]


def test_a_fill_the_maintainer_replaced_no_longer_claims_the_reference():
    proposed = {"title": "Ref title", "abstract": "Ref abstract", "filled_from": [{"file": "ref.jsonl", "fields": ["title", "abstract"]}]}
    merged = {**proposed, "title": "Maintainer's title"}
    drop_overridden_fills(merged, proposed)
    assert merged["filled_from"] == [{"file": "ref.jsonl", "fields": ["abstract"]}]
    merged = {**proposed, "title": "Mine", "abstract": "Mine too"}
    drop_overridden_fills(merged, proposed)
    assert "filled_from" not in merged
    hand = {**proposed, "filled_from": [{"file": "by hand", "fields": ["title"]}], "title": "Mine"}
    drop_overridden_fills(hand, proposed)
    assert hand["filled_from"] == [{"file": "by hand", "fields": ["title"]}]  # hand-edited provenance stays


def _known(tmp_path: Path):
    records = fixture_records()[:4]
    config = load_config(write_project(tmp_path, records))
    page_of = {r.id: (r, config.papers_dir / f"{r.slug}.md") for r in records}
    known = {
        # a1 unchanged since the last import; a2 edited by hand (title) while the listing changed it too
        "a1": KnownPaper("a1", records[0].slug, records[0].to_front_matter(), *page_of["a1"]),
        "a2": KnownPaper("a2", records[1].slug, {**records[1].to_front_matter(), "title": "Old listed title"}, *page_of["a2"]),
        # a3's page was deleted by a maintainer; a4's paper left the listings; gone only in the state
        "a3": KnownPaper("a3", records[2].slug, records[2].to_front_matter(), None, None),
        "a4": KnownPaper("a4", records[3].slug, records[3].to_front_matter(), *page_of["a4"]),
        "gone": KnownPaper("gone", "gone-slug", {"title": "Gone"}, None, None),
    }
    return records, config, known


def test_plan_writes_new_pages_merges_known_ones_and_keeps_the_state_of_departed_papers(tmp_path):
    records, config, known = _known(tmp_path)
    new = records[0].replace(id="n1", slug="brand-new")
    a2 = records[1].replace(title="Listing's new title")
    report = ImportReport()
    writes, to_verify, state = plan([records[0], a2, records[2], new], known, config, report, None)
    assert [path.name for path, _ in writes] == ["brand-new.md"]  # a2: the human title wins, so nothing changes
    assert to_verify == []
    assert report.written == ["brand-new"] and report.unchanged == [records[0].slug, records[1].slug]
    assert report.deleted == [records[2].slug] and report.departed == [records[3].slug]
    assert report.conflicts == [{"slug": records[1].slug, "field": "title", "last_imported": "Old listed title",
                                 "page": records[1].title, "listing": "Listing's new title"}]
    assert [row["id"] for row in state] == ["a1", "a2", "a3", "a4", "gone", "n1"]  # sorted; departed ones kept
    assert next(row for row in state if row["id"] == "a2")["fields"]["title"] == "Listing's new title"


def test_plan_updates_a_page_nobody_edited_and_reports_progress(tmp_path):
    records, config, known = _known(tmp_path)
    seen = []
    report = ImportReport()
    writes, to_verify, _ = plan([records[0].replace(decision="Accept (Oral)")], known, config, report,
                                lambda done, total: seen.append((done, total)))
    assert [path.name for path, _ in writes] == [f"{records[0].slug}.md"] and to_verify == [0]
    assert "decision: Accept (Oral)" in writes[0][1] and report.updated == [records[0].slug]
    assert seen == [(1, 1)]


def test_check_plan_refuses_two_papers_in_one_file_and_an_unreadable_merged_page(tmp_path):
    page = tmp_path / "p.md"
    text = render_page(fixture_records()[0])
    check_plan([(page, text)], [0])
    with pytest.raises(PapersiteError, match="two papers would be written to this page"):
        check_plan([(page, text), (page, text)], [])
    with pytest.raises(PapersiteError, match=r"\(in the page this import would write\)"):
        check_plan([(page, "---\ntitle: [unclosed\n---\n")], [0])
    check_plan([(page, "not a page at all")], [])  # pages rendered from a record are not read back
