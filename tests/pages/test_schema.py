"""generator/pages/schema.py and the field table that applies it (record.field_problems)."""

from __future__ import annotations

import pytest

from generator.pages.frontmatter import parse_front_matter
from generator.pages.record import (
    AUTHORITY_FIELDS, FIELD_BY_NAME, FILL_FIELDS, FRONT_MATTER_FIELDS, PAPER_FIELDS, PaperRecord, field_problems,
)
from generator.pages.schema import topic_problem
from generator.problems import Severity

GOOD = """---
id: a1
slug: a-paper
title: A Paper
authors: [Ana Lee]
keywords: []
venue: ICML 2025
abstract: Something.
sources: [{file: l.txt, entry: 1, format: json}]
listed: {venue: ICML 2024}
---
"""


def problems(text: str) -> list[tuple[int, str, Severity]]:
    return [(p.line, p.message, p.severity) for p in field_problems(parse_front_matter(text, "p.md"))]


def test_a_good_page_has_no_problem() -> None:
    assert problems(GOOD) == []


def test_the_table_is_the_records_page_fields_in_page_order() -> None:
    record_fields = [f.name for f in PaperRecord.__dataclass_fields__.values() if f.name not in ("body", "extra")]
    assert [spec.name for spec in PAPER_FIELDS] == record_fields
    assert FRONT_MATTER_FIELDS.index("abstract_missing") == FRONT_MATTER_FIELDS.index("abstract") + 1
    assert set(AUTHORITY_FIELDS) <= set(FILL_FIELDS) and "venue" in AUTHORITY_FIELDS
    assert all(spec.label for spec in PAPER_FIELDS if spec.form), "a field in the correction form needs a label"


@pytest.mark.parametrize("name", [spec.name for spec in PAPER_FIELDS if spec.required])
def test_every_required_field_missing_is_an_error_naming_it(name: str) -> None:
    text = "\n".join(line for line in GOOD.splitlines() if not line.startswith(f"{name}:")) + "\n"
    found = problems(text)
    assert any(f"missing required field '{name}'" in message for _, message, _ in found), found


@pytest.mark.parametrize("name, value, words", [
    ("venue", "''", "is empty"),
    ("venue", "[ICML]", "must be text"),
    ("title_derived", "yes please", "true or false"),
    ("author_order", "reverse", "author_order must be one of"),
    ("listed", "{pages: 3}", "unknown listed field 'pages'"),
    ("keywords", "[a, A]", "repeats keyword"),
    ("links", "{pdf: 'javascript:alert(1)'}", "must be an http(s) URL"),
])
def test_each_rule_names_the_line_and_what_is_wrong(name: str, value: str, words: str) -> None:
    lines = [line for line in GOOD.splitlines() if not line.startswith(f"{name}:")]
    lines.insert(4, f"{name}: {value}")
    found = [(line, message) for line, message, severity in problems("\n".join(lines) + "\n") if severity is Severity.ERROR]
    assert any(line == 5 and words in message for line, message in found), found


def test_an_unknown_key_is_a_warning_listing_the_known_ones() -> None:
    found = problems(GOOD.replace("keywords: []", "keywords: []\nerrata: fixed eq. 3"))
    assert [(severity, "unknown field 'errata'" in message) for _, message, severity in found] == [(Severity.WARNING, True)]
    assert "venue" in found[0][1]


def test_topic_lines_with_an_empty_part_or_a_separator_in_the_area_are_refused() -> None:
    assert topic_problem("Deep Learning", "Theory") is None
    assert topic_problem("Deep · Learning", None) and topic_problem(" ", None) and topic_problem("A", "x ·  ")
    assert topic_problem("A\nB", None)


def test_labels_come_from_the_table() -> None:
    assert FIELD_BY_NAME["venue"].label == "Venue" and FIELD_BY_NAME["title"].form.id == "paper_title"


def test_one_parser_reads_every_way_a_topic_is_written() -> None:
    from generator.pages.record import parse_topic_label, topic_label

    for text in ("Deep Learning › Theory", "Deep Learning · Theory", " Deep  Learning->Theory ", "Deep Learning → Theory"):
        assert parse_topic_label(text) == ("Deep Learning", "Theory"), text
    assert parse_topic_label("Optimization") == ("Optimization", None)
    assert parse_topic_label("A · B · C") == ("A", "B · C")  # a sub-area may hold the listings' separator
    assert parse_topic_label("A ·") == ("A", "")  # an empty part, for topic_problem to refuse
    assert parse_topic_label(topic_label("Deep Learning", "Theory")) == ("Deep Learning", "Theory")
