"""generator/ingest/settled.py: a maintainer's word on a reference match, read strictly and applied by listing entry."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from generator.ingest.settled import load_settled
from generator.pages.record import SourceRef
from generator.problems import PapersiteError

SLUGS = {"shortcut-models": [("a.txt", 3), ("b.txt", 7)], "graphs": [("a.txt", 4)]}


def _load(tmp_path: Path, text: str | bytes):
    path = tmp_path / "settled.yaml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return load_settled(path, SLUGS, tmp_path)


def _papers(*sources):
    return [SimpleNamespace(sources=[SourceRef(f, e, "numbered") for f, e in group]) for group in sources]


GOOD = """\
- paper: shortcut-models
  reference: ref.jsonl
  record: 2
  match: right
- source: "a.txt #4"
  reference: ref.jsonl
  record: 1
  match: wrong
  reference_title: Graph Transformers
  note: same authors, another paper
"""


def test_no_file_settles_nothing(tmp_path):
    assert load_settled(None, SLUGS).matches == []
    assert load_settled(tmp_path / "absent.yaml", SLUGS, tmp_path).matches == []
    assert _load(tmp_path, "# nothing settled yet\n").matches == []


def test_each_item_names_its_line_the_paper_and_its_listing_entries(tmp_path):
    first, second = _load(tmp_path, GOOD).matches
    assert (first.line, first.names, first.sources, first.record, first.right) == (
        1, "paper shortcut-models", frozenset({("a.txt", 3), ("b.txt", 7)}), 2, True)
    assert (second.line, second.names, second.sources, second.right, second.reference_title) == (
        5, "source a.txt #4", frozenset({("a.txt", 4)}), False, "Graph Transformers")


def test_verdicts_apply_to_the_papers_holding_the_entries_and_unused_ones_are_reported(tmp_path):
    settled = _load(tmp_path, GOOD)
    papers = _papers([("b.txt", 7)], [("z.txt", 1)])  # this import holds the first paper only
    assert settled.for_reference("ref.jsonl", ["Graph Transformers", "Shortcut Models"], papers) == {(0, 1): True}
    assert settled.for_reference("other.jsonl", ["x"], papers) == {}
    assert settled.unused() == [f"{tmp_path / 'settled.yaml'}:5: source a.txt #4 is not a paper of this import; settlement not applied"]
    assert settled.warnings == []


def test_a_changed_reference_file_is_reported_not_applied(tmp_path):
    settled = _load(tmp_path, GOOD)
    papers = _papers([("a.txt", 3)], [("a.txt", 4)])
    # record 2 is gone; record 1's title differs only in case and punctuation, so it is the same record
    assert settled.for_reference("ref.jsonl", ["Graph transformers!"], papers) == {(1, 0): False}
    assert settled.warnings == [f"{tmp_path / 'settled.yaml'}:1: ref.jsonl has no record 2 (1 records); not applied"]
    settled = _load(tmp_path, GOOD)
    assert settled.for_reference("ref.jsonl", ["Something Else", "Shortcut Models"], papers) == {(0, 1): True}
    assert "record 1 of ref.jsonl is now titled 'Something Else', not 'Graph Transformers'" in settled.warnings[0]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("paper: x\n", 1, "expected a list of settled matches"),
    ("- just text\n", 1, "each settled match is a mapping"),
    ("- {paper: graphs, reference: r, record: 1, match: right, verdict: yes}\n", 1, "unknown key(s) verdict"),
    ("- {paper: graphs, reference: r, record: 1, match: maybe}\n", 1, "match must be 'right' or 'wrong', got 'maybe'"),
    ("- {paper: graphs, reference: ../r.jsonl, record: 1, match: right}\n", 1, "reference must be the reference catalogue's file name"),
    ("- {paper: graphs, reference: r, record: 0, match: right}\n", 1, "record must be the record's number"),
    ("- {paper: graphs, reference: r, record: true, match: right}\n", 1, "record must be the record's number"),
    ("- {paper: graphs, reference: r, record: 1, match: right, reference_title: 5}\n", 1, "reference_title must be text"),
    ("- {reference: r, record: 1, match: right}\n", 1, "name the paper with one of"),
    ("- {paper: graphs, source: 'a.txt #4', reference: r, record: 1, match: right}\n", 1, "name the paper with one of"),
    ("- {paper: nobody, reference: r, record: 1, match: right}\n", 1, "no paper page has the slug 'nobody'"),
    ("- {source: a.txt, reference: r, record: 1, match: right}\n", 1, "source must name a listing entry as the report does"),
    ("\n\n- &a {paper: graphs, reference: r, record: 1, match: right}\n- *a\n", 3, "anchors"),
    ("- {paper: graphs, reference: r, record: 1, match: right, match: wrong}\n", 1, "appears twice"),
    (b"- paper: caf\xe9\n", 1, "cannot read the settled matches"),
])
def test_a_bad_file_is_a_located_error(tmp_path, text, line, message):
    with pytest.raises(PapersiteError) as refused:
        _load(tmp_path, text)
    assert str(refused.value).startswith(f"{tmp_path / 'settled.yaml'}:{line}: ") and message in str(refused.value)


def test_every_bad_item_is_reported_at_once(tmp_path):
    with pytest.raises(PapersiteError) as refused:
        _load(tmp_path, "- x\n- {paper: graphs, reference: r, record: 1, match: right}\n- y\n")
    assert [p.line for p in refused.value.problems] == [1, 3]


def test_a_file_that_is_no_regular_file_inside_the_project_is_refused(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text(GOOD, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "settled.yaml").symlink_to(outside)
    with pytest.raises(PapersiteError, match="leads outside the project"):
        load_settled(project / "settled.yaml", SLUGS, project.resolve())
    (project / "folder.yaml").mkdir()
    with pytest.raises(PapersiteError, match="is a folder"):
        load_settled(project / "folder.yaml", SLUGS, project.resolve())
