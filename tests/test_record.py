"""generator/record.py: pages round-trip, whatever text a listing holds."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.record import PaperRecord, SourceRef, Topic, _PurePageDumper, dump_yaml, parse_page, render_page

HOSTILE = [
    "<script>alert('x')</script>",
    "---\ntitle: injected\n---",
    "key: value # not a comment",
    "{{ config.secret }} {% raw %}",
    "**bold** [link](javascript:alert(1)) <img src=x onerror=alert(1)>",
    "'single' \"double\" `back`",
    "- item\n- item",
    "&anchor *alias !!python/object",
    "  leading and trailing  ",
    "\ttab\u2028line separator\u0085next line",
]

# Text a listing can hold: any printable Unicode, newlines included (YAML cannot
# carry most control characters; listings never contain them).
def texts(max_codepoint: int = 0x10FFFF):
    pieces = st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff", max_codepoint=max_codepoint)
    | st.sampled_from(["\n", "\t", "#", "'", '"', "<", ">", ":", "-", " "]),
        max_size=40,
    ) | st.sampled_from(["---", ": ", " #", "{{ x }}", "<script>", "\n---\n", "- a", "&a", "*a", "!!str"])
    return st.lists(pieces, max_size=6).map("".join)


def record_strategy(text=texts()):
    optional_text = st.none() | text.filter(lambda s: s != "")
    return st.builds(
        PaperRecord,
        id=st.from_regex(r"[0-9a-f]{12}", fullmatch=True),
        slug=st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True),
        title=text,
        title_derived=st.booleans(),
        authors=st.lists(text, max_size=4),
        abstract=optional_text,
        topic=st.none()
        | st.builds(
            Topic,
            area=text,
            subarea=optional_text,
            source=st.sampled_from(["listing", "inferred", "maintainer"]),
            confidence=st.none() | st.floats(0, 1),
            area_confidence=st.none() | st.floats(0, 1),
        ),
        keywords=st.lists(text, max_size=3),
        decision=optional_text,
        links=st.dictionaries(st.sampled_from(["openreview", "pdf", "code"]), text, max_size=2),
        sources=st.lists(st.builds(SourceRef, file=text, entry=st.integers(1, 10**6), format=st.sampled_from(["numbered", "json"])), max_size=3),
        # a maintainer's own keys, including ones that try to shadow a field the record owns
        extra=st.dictionaries(st.sampled_from(["errata", "status", "description", "id", "title"]), text | st.lists(text, max_size=2), max_size=3),
    )


def _expected(record: PaperRecord) -> dict:
    return record.to_front_matter()


@settings(max_examples=80, deadline=None)
@given(record_strategy())
def test_front_matter_round_trips(record):
    page = render_page(record)
    again = parse_page(page)
    assert again.to_front_matter() == _expected(record)
    assert render_page(again) == page


@settings(max_examples=60, deadline=None)
@given(record_strategy(texts(max_codepoint=0xFFFF)))
def test_fast_and_pure_yaml_emitters_write_the_same_bytes(record):
    data = record.to_front_matter()
    # Known difference: outside the Basic Multilingual Plane (emoji, math letters)
    # the pure emitter writes "\U0001F600" escapes where libyaml writes the
    # character; both read back to the same text.
    assert dump_yaml(data) == dump_yaml(data, dumper=_PurePageDumper)


def test_hostile_text_is_kept_exactly_as_text():
    for value in HOSTILE:
        record = PaperRecord(id="abc", slug="s", title=value, authors=[value], abstract=value)
        page = render_page(record)
        front, _, body = page[4:].partition("\n---\n")
        assert body == ""  # nothing from a listing lands in the Markdown body
        assert yaml.safe_load(front)["title"] == value
        again = parse_page(page)
        assert (again.title, again.authors, again.abstract) == (value, [value], value)


import pytest  # noqa: E402

from generator.record import RecordError, parse_page  # noqa: E402


@pytest.mark.parametrize(
    "front, line, words",
    [
        ("id: a\nslug: a\nid: b\n", 4, "key 'id' appears twice"),
        ("id: &x a\nslug: *x\n", 2, "anchors"),
        ("id: a\nslug: a\ntitle: t\nauthors: []\nsources: [{file: f, entry: .inf}]\n", 1, "integer 'entry'"),
        ("id: a\nslug: a\ntitle: t\nauthors: []\ntopic: {area: A, confidence: high}\nsources: []\n", 1, "confidence must be a number"),
        ("id: a\nslug: a\ntitle: t\nauthors: []\nsources: [{file: f, entry: " + "9" * 5000 + "}]\n", 6, "more than 100 characters"),
    ],
)
def test_pages_that_would_crash_or_lose_data_are_record_errors(front, line, words):
    with pytest.raises(RecordError) as caught:
        parse_page(f"---\n{front}---\n", "p.md")
    assert caught.value.line == line and words in caught.value.message, str(caught.value)
