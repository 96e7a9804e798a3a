"""generator/pages/record.py: pages round-trip, whatever text a listing holds."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.layout import is_web_url
from generator.text import invisible_characters
from generator.pages.schema import topic_problem
from generator.pages.record import PaperRecord, SourceRef, Topic, _PurePageDumper, dump_yaml, parse_page, render_page

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


def record_strategy(text=texts(), max_codepoint: int = 0x10FFFF):
    """Records the page model accepts (schema.py), holding any text a listing can."""
    words = text.filter(lambda s: s.strip() != "")  # a field the model requires to say something
    optional_text = st.none() | words
    keywords = st.lists(words.map(str.strip), max_size=3, unique_by=str.casefold)
    # a URL the page model accepts: http(s), a host, no space, quote, angle bracket or control character
    url_text = st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Lo", "Nd"), max_codepoint=max_codepoint)
                       | st.sampled_from(list("/?=&%#.-_~:+!$,;@()*[]{}|^")), min_size=1, max_size=30)
    # filtered by the page reader's own test, so the strategy cannot drift from it (``http://x[`` is no URL)
    url = st.builds(lambda scheme, rest: f"{scheme}://x{rest}", st.sampled_from(["http", "https"]), url_text).filter(is_web_url)
    return st.builds(
        PaperRecord,
        id=st.from_regex(r"[0-9a-f]{12}", fullmatch=True),
        slug=st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True),
        title=words,
        title_derived=st.booleans(),
        authors=st.lists(words, max_size=4),
        abstract=optional_text,
        topic=st.none()
        | st.builds(
            Topic,
            area=words,
            subarea=optional_text,
            source=st.sampled_from(["listing", "inferred", "maintainer"]),
            confidence=st.none() | st.floats(0, 1),
            area_confidence=st.none() | st.floats(0, 1),
        ).filter(lambda t: topic_problem(t.area, t.subarea or None) is None),  # the page reader's own rule
        keywords=keywords,
        decision=optional_text,
        venue=optional_text,
        links=st.dictionaries(st.sampled_from(["openreview", "pdf", "code"]), url, max_size=2),
        sources=st.lists(st.builds(SourceRef, file=words, entry=st.integers(1, 10**6), format=st.sampled_from(["numbered", "json"])), max_size=3),
        # a maintainer's own keys, including ones that try to shadow a field the record owns
        extra=st.dictionaries(st.sampled_from(["errata", "status", "id", "title"]), text | st.lists(text, max_size=2), max_size=3)
        # a maintainer's own text field: what check would refuse (an invisible character) is no page to round-trip
        | st.builds(lambda d: {"description": d}, words.filter(lambda d: not invisible_characters(d))),
    )


OWN_FIELDS = {"id", "slug", "title", "title_derived", "authors", "topic", "keywords", "decision", "venue", "links",
              "abstract", "abstract_missing", "sources", "filled_from"}


def _expected(record: PaperRecord) -> dict:
    """The front matter ARCHITECTURE.md documents, written out from the record's fields (not by the code under test)."""
    data: dict = {"id": record.id, "slug": record.slug, "title": record.title}
    if record.title_derived:
        data["title_derived"] = True
    data["authors"] = list(record.authors)
    if record.topic is not None:
        t = record.topic
        data["topic"] = {"area": t.area, **({"subarea": t.subarea} if t.subarea else {}), "source": t.source}
        for name in ("confidence", "area_confidence"):
            if getattr(t, name) is not None:
                data["topic"][name] = round(getattr(t, name), 3)
    data["keywords"] = list(record.keywords)
    if record.decision:
        data["decision"] = record.decision
    if record.venue:
        data["venue"] = record.venue
    if record.links:
        data["links"] = dict(sorted(record.links.items()))
    if record.abstract:
        data["abstract"] = record.abstract
    else:
        data["abstract_missing"] = True
    data["sources"] = [{"file": s.file, "entry": s.entry, "format": s.format}
                       for s in sorted(record.sources, key=lambda s: (s.file, s.entry, s.format))]
    data.update({k: v for k, v in sorted(record.extra.items()) if k not in OWN_FIELDS})
    return data


@settings(max_examples=80, deadline=None)
@given(record_strategy())
def test_front_matter_round_trips(record):
    page = render_page(record)
    expected = _expected(record)
    assert page.startswith("---\n") and "\n---\n" in page[3:]
    front = yaml.safe_load(page[4:].partition("\n---\n")[0])  # what any YAML reader sees on the page
    assert front == expected and list(front) == list(expected)  # same values, in the documented order
    assert list(front.get("links", {})) == sorted(record.links)  # links by name: a re-import never reorders them
    again = parse_page(page)
    assert again.to_front_matter() == expected
    assert (again.title, again.authors, again.keywords, again.abstract or None) == (
        record.title, record.authors, record.keywords, record.abstract or None)
    assert render_page(again) == page


@settings(max_examples=60, deadline=None)
@given(record_strategy(texts(max_codepoint=0xFFFF), max_codepoint=0xFFFF))
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


from generator.problems import PapersiteError  # noqa: E402


@pytest.mark.parametrize(
    "front, line, words",
    [
        ("id: a\nslug: a\nid: b\n", 4, "key 'id' appears twice"),
        ("id: &x a\nslug: *x\n", 2, "anchors"),
        ("id: a\nslug: a\ntitle: t\nauthors: []\nsources: [{file: f, entry: .inf}]\nabstract_missing: true\n", 6, "whole-number 'entry'"),
        ("id: a\nslug: a\ntitle: t\nauthors: []\ntopic: {area: A, confidence: high}\nsources: []\nabstract_missing: true\n", 6, "confidence must be a number"),
        ("id: a\nslug: a\ntitle: t\nauthors: []\nsources: [{file: f, entry: " + "9" * 5000 + "}]\n", 6, "more than 100 characters"),
    ],
)
def test_pages_that_would_crash_or_lose_data_are_record_errors(front, line, words):
    with pytest.raises(PapersiteError) as caught:
        parse_page(f"---\n{front}---\n", "p.md")
    assert caught.value.first.line == line and words in caught.value.first.message, str(caught.value)


def test_a_link_the_page_reader_refuses_is_never_written():
    # Hypothesis found it: ``http://x[`` (urlsplit takes ``[`` for an IPv6 host) was written, then refused on reading.
    record = PaperRecord(id="abc", slug="s", title="T", links={"code": "http://x["})
    with pytest.raises(ValueError, match="link 'code' must be an http"):
        render_page(record)
    fine = PaperRecord(id="abc", slug="s", title="T", links={"code": "http://x/["})
    assert parse_page(render_page(fine)).links == {"code": "http://x/["}


def test_a_topic_the_page_reader_refuses_is_never_written():
    for area, subarea in (("·", None), ("Theory", " · "), ("A · B", None)):
        with pytest.raises(ValueError, match="topic (sub-)?area must be a name"):
            render_page(PaperRecord(id="abc", slug="s", title="T", topic=Topic(area, subarea, "listing")))
