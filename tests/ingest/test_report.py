"""generator/ingest/report.py: what an import tells a maintainer, as a summary and as JSON."""

from __future__ import annotations

import json

from generator.ingest.authors import OrderVerdict
from generator.ingest.report import ImportReport


def _report(**changes) -> ImportReport:
    report = ImportReport(
        sources=[{"file": "a.txt", "entries": 3}, {"file": "b.jsonl", "entries": 2}],
        written=["new-b", "new-a"], updated=["upd"], unchanged=["same"], departed=["gone"], deleted=["removed"],
        merges=[{"slug": "new-a", "sources": ["a.txt #1", "b.jsonl #1"], "evidence": []}],
        papers=4, seconds=1.25,
    )
    for key, value in changes.items():
        setattr(report, key, value)
    return report


def test_the_first_line_counts_what_the_import_did():
    assert _report().summary().splitlines()[0] == (
        "4 papers from 5 entries in 2 listing(s): 2 new, 1 updated, 1 unchanged; 1 merged, 0 conflict(s), "
        "1 left the listings (1.2s)"
    )


def test_the_json_sorts_slugs_and_leaves_out_the_timings():
    data = _report(stage_seconds={"read": 0.5}).to_json()
    assert data["papers"] == {
        "total": 4, "written": 2, "updated": 1, "unchanged": 1, "written_slugs": ["new-a", "new-b"],
        "updated_slugs": ["upd"], "departed_slugs": ["gone"], "deleted_by_maintainer": ["removed"],
    }
    assert "stage_seconds" not in json.dumps(data) and "seconds" not in data
    assert json.loads(json.dumps(data)) == data  # plain JSON, nothing a dump would change


def test_conflicts_and_warnings_each_get_a_line_and_a_warning_cannot_break_the_output():
    report = _report(conflicts=[{"slug": "p", "field": "title"}], warnings=["a.txt #2: odd\n::error::injected"])
    lines = report.summary().splitlines()
    assert "conflict: p: field 'title' changed in the listing and by hand; kept the page's value" in lines
    assert lines[-1] == "warning: a.txt #2: odd\\n::error::injected"  # one line: the listing's text cannot start another


def test_references_are_summarised_per_file_with_where_to_settle_candidates():
    references = {
        "files": [{"file": "ref.jsonl"}],
        "matched": [{"slug": "p1", "reference": "ref.jsonl", "fields": ["title"]}, {"slug": "p2", "reference": "ref.jsonl", "fields": []}],
        "candidates": [{"slug": "p3"}, {"slug": "p3"}],
        "rejected_by_maintainer": [{"slug": "p4"}],
    }
    line = _report(references=references, settled_file="settled.yml").summary().splitlines()[1]
    assert line == ("references: 2 of 4 papers matched (2 in ref.jsonl), 1 completed; 1 with candidates to confirm by hand "
                    "(see --report; settle them in settled.yml); 1 pairing(s) rejected by a maintainer")
    assert "the settled_matches file" in _report(references=references).summary()


def test_author_order_lines_only_for_sources_that_say_something():
    measured = OrderVerdict("a.txt", "detect", 10, 1, 1.0, 1.0)
    silent = OrderVerdict("b.txt", "detect", 0, 0, 0.0, 1.0)
    report = _report(author_orders=[measured, silent], order_unknown={"p1", "p2"})
    lines = [line for line in report.summary().splitlines() if line.startswith("author order:")]
    assert lines[0] == f"author order: {measured.describe()}" and len(lines) == 2
    assert lines[1].startswith("author order: 2 paper(s) have authors known only from a source")
    assert report.to_json()["author_order"] == [measured.to_json(), silent.to_json()]


def test_an_empty_import_reads_as_nothing_done():
    report = ImportReport()
    assert report.summary() == "0 papers from 0 entries in 0 listing(s): 0 new, 0 updated, 0 unchanged; 0 merged, 0 conflict(s), 0 left the listings (0.0s)"
    assert report.to_json()["papers"]["total"] == 0
