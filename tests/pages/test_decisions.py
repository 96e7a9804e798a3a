"""generator/pages/decisions.py: what a stored decision means (badge, accepted or not, filter key)."""

from __future__ import annotations

import pytest

from generator.pages.decisions import KEY_ORDER, KNOWN, decision_counts, read_decision


def test_decisions_read_as_badges_and_count_in_filter_order():
    assert [read_decision(t).label for t in ("Accept (Oral)", "accept (spotlight)", "Accept (Poster)", "Reject", "Withdrawn", "Desk Rejected")] == [
        "Oral", "Spotlight", "Poster", "Rejected", "Withdrawn", "Desk rejected"]
    assert read_decision("Accept (Talk)").accepted is True and read_decision("Under review").accepted is None
    assert read_decision(None) is None and read_decision("  ") is None
    counts = decision_counts(["Reject", None, "Accept (Oral)", "Reject", "Under review"])
    assert counts == [("oral", "Oral", 1), ("rejected", "Rejected", 2), ("other", "Other decision", 1), ("none", "No decision", 1)]


@pytest.mark.parametrize(("text", "stored", "label", "key", "accepted"), [
    ("  Accept   (Oral) ", "Accept (Oral)", "Oral", "oral", True),  # the known words, whatever the spacing and case
    ("ACCEPT (POSTER)", "Accept (Poster)", "Poster", "poster", True),
    ("Accept (Best Paper)", "Accept (Best Paper)", "Accept (Best Paper)", "accepted", True),  # shown as written
    ("Rejected  after rebuttal", "Rejected after rebuttal", "Rejected", "rejected", False),
    ("Desk rejected (formatting)", "Desk rejected (formatting)", "Rejected", "rejected", False),
    ("Withdrawn by authors", "Withdrawn by authors", "Withdrawn", "withdrawn", False),
    ("Conditional accept", "Conditional accept", "Conditional accept", "other", None),  # says neither
])
def test_other_words_are_read_by_how_they_start(text, stored, label, key, accepted):
    decision = read_decision(text)
    assert (decision.text, decision.label, decision.key, decision.accepted) == (stored, label, key, accepted)


def test_every_key_a_decision_can_have_is_in_the_filter_order_once():
    assert len(KEY_ORDER) == len(set(KEY_ORDER))
    assert [d.key for d in KNOWN] == KEY_ORDER[: len(KNOWN)]
    for text in ("Accept (Talk)", "Reject", "Under review", "Withdrawn", "Desk Rejected"):
        assert read_decision(text).key in KEY_ORDER


def test_counts_of_nothing_are_empty_and_kinds_without_papers_are_left_out():
    assert decision_counts([]) == []
    assert decision_counts([None, "", "  "]) == [("none", "No decision", 3)]
    assert decision_counts(["Accept (Talk)", "accept (talk)"]) == [("accepted", "Accepted", 2)]
