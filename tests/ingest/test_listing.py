"""generator/ingest/listing.py: every format, detected from content, and every trap of the bundled corpus."""

from __future__ import annotations

from generator.pages.record import Topic

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.ingest.listing import is_placeholder_abstract, parse_listing, read_listing

from generator.problems import PapersiteError

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
PROSE = "We study a problem of learning with many words so that this paragraph reads like an abstract of a paper."


def listing(text: str | bytes, name: str = "listing.dat"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_listing(data, Path(name))


def test_abstract_list_with_bom_crlf_trailing_spaces_and_blank_lines():
    text = "\ufeffICLR 2025 Papers  \r\n\r\n\r\n" + PROSE + "  \r\n\r\n\r\n\r\nSecond: " + PROSE + "\r\n"
    result = listing(text)
    assert result.format == "abstracts"
    assert [e.abstract for e in result.entries] == [PROSE, "Second: " + PROSE]
    assert [e.entry for e in result.entries] == [1, 2]
    assert all(e.title is None for e in result.entries)


def test_numbered_list_title_starting_with_digits_uses_the_running_count():
    entries = "".join(f"{n}Paper {n}¶\n\n[openreview] [pdf]\n\nAbstract {PROSE}\n\n" for n in range(1, 555))
    text = "Your list\n\nThere are 556 papers for you\n\n" + entries
    text += f"555100 instances is all you need¶\n\n[openreview] [pdf]\n\nAbstract {PROSE}\n\n"
    text += "5563D worlds¶\n"
    result = listing(text)
    assert result.format == "numbered"
    assert result.entries[554].entry == 555
    assert result.entries[554].title == "100 instances is all you need"
    assert result.entries[555].title == "3D worlds"
    assert result.entries[555].abstract is None  # cut off: kept, title only
    assert any("no abstract" in w for w in result.warnings)


def test_numbered_list_multi_paragraph_abstract_placeholder_and_count_warning():
    text = (
        "Your list\r\n\r\nThere are 5 papers for you\r\n\r\n"
        f"1First¶\r\n\r\n[openreview] [pdf]\r\n\r\nAbstract {PROSE}\r\n\r\nMore of it.\r\n\r\n"
        "2Second¶\r\n\r\n[openreview] [pdf]\r\n\r\nAbstract No absctract\r\n"
    )
    result = listing(text)
    assert result.entries[0].abstract == PROSE + "\n\nMore of it."
    assert result.entries[1].title == "Second" and result.entries[1].abstract is None
    assert result.announced == 5
    assert any("announces 5 papers, found 2" in w for w in result.warnings)


def test_triples_with_area_alone_and_single_author():
    text = (
        "论文检索\n\nDeep Learning · Robustness\n\nAda Lovelace, Alan Turing\n\n" + PROSE + "\n\n"
        "Theory\n\nGrace Hopper\n\n" + PROSE + "\n"
    )
    result = listing(text)
    assert result.format == "triples"
    first, second = result.entries
    assert first.topic == Topic("Deep Learning", "Robustness")
    assert first.authors == ["Ada Lovelace", "Alan Turing"]
    assert second.topic == Topic("Theory", None) and second.authors == ["Grace Hopper"]


def test_triples_incomplete_entry_is_an_error_with_line():
    with pytest.raises(PapersiteError, match=r"^t\.txt:3: incomplete entry"):
        listing("论文检索\n\nTheory\n\nGrace Hopper\n", "t.txt")


def test_json_lines_gzip_and_json_array():
    rows = [
        {"title": "A", "authors": ["X"], "abstract": PROSE, "decision": "Reject", "openreview_url": "https://o/a",
         "keywords": ["k1"], "topic": "Theory · Learning Theory"},
        {"title": "B", "authors": "Y, Z", "abstract": "No abstract"},
    ]
    jsonl = "\n".join(json.dumps(r) for r in rows) + "\n\n"
    for data in (gzip.compress(jsonl.encode()), json.dumps(rows).encode(), ("\ufeff" + jsonl).encode()):
        result = listing(data, "export.txt")
        assert result.format == "json"
        a, b = result.entries
        assert a.links == {"openreview": "https://o/a"} and a.decision == "Reject" and a.keywords == ["k1"]
        assert a.topic == Topic("Theory", "Learning Theory")
        assert b.authors == ["Y", "Z"] and b.abstract is None


def test_json_links_that_are_not_web_urls_are_dropped_with_a_warning():
    rows = [{"title": "A", "abstract": PROSE, "openreview_url": "javascript:alert(1)",
             "links": {"pdf": "https://o/a.pdf", "code": "data:text/html,<script>x</script>", "site": "/relative"}}]
    result = listing("\n".join(json.dumps(r) for r in rows), "export.jsonl")
    (entry,) = result.entries
    assert entry.links == {"pdf": "https://o/a.pdf"}
    assert len(result.warnings) == 3 and all(w.startswith("export.jsonl:1: link '") for w in result.warnings)


def test_json_bad_line_names_file_and_line():
    with pytest.raises(PapersiteError, match=r"^x\.jsonl:2: not valid JSON"):
        listing('{"title": "A", "abstract": "b"}\n{oops\n', "x.jsonl")


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"  \n\n \r\n", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (b"caf\xe9\n", "not UTF-8"),
        (b"name,score\nalice,3\n", "found columns 'name', 'score'"),  # a sheet, whose header names no paper field
    ],
)
def test_bad_files_are_errors_naming_the_file(data, message):
    with pytest.raises(PapersiteError) as error:
        listing(data, "bad.txt")
    assert str(error.value).startswith("bad.txt:")
    assert message in str(error.value)


def test_placeholders():
    assert is_placeholder_abstract("No absctract")
    assert is_placeholder_abstract("N/A")
    assert is_placeholder_abstract("")
    assert not is_placeholder_abstract(PROSE)
    assert not is_placeholder_abstract("No free lunch for transformers in long contexts, we show.")


def test_bundled_corpus_formats_and_traps():
    found = {p.name[:3]: read_listing(p) for p in sorted(CORPUS.glob("*.txt"))}
    assert {k: (v.format, len(v.entries)) for k, v in found.items()} == {
        "000": ("abstracts", 8),
        "001": ("abstracts", 19),
        "002": ("numbered", 598),
        "003": ("triples", 20),
    }
    numbered = found["002"]
    assert numbered.announced == 1000
    assert numbered.entries[554].title.startswith("100 instances is all you need")
    assert numbered.entries[-1].entry == 598 and numbered.entries[-1].abstract is None
    assert numbered.entries[264].abstract is None  # "No absctract"
    assert found["003"].entries[-1].authors == ["François Bachoc", "Tommaso Cesari", "Roberto Colomboni"]


# --------------------------------------------------------------------------- hostile and unbounded input

# Run in a child so that a pattern gone quadratic fails the test (by its timeout) instead of hanging it.
_LINEAR = """
import sys
from pathlib import Path
from generator.ingest.listing import parse_listing
from generator.problems import PapersiteError
from generator.site.render.mathml import render_abstract
kind = sys.argv[1]
n = 2_000_000
if kind == "math":
    html = render_abstract("\\\\[ \\\\( " * (n // 6) + "$x$")
    assert html.endswith("</math></p>"), html[-80:]
else:
    data = {
        "spaces": "Header\\n\\n1" + " " * n + "a\\n",
        "counts": "1," * (n // 2) + "\\n\\n1Title¶\\nAbstract hello\\n",
        "links": "1Title¶\\n" + "[a] " * (n // 4) + "x\\nAbstract hi\\n",
        "digits": "Header\\n\\n" + "1" * n + "\\n\\n1¶\\n\\n" + "0" * n + "x¶\\n",
    }[kind]
    try:
        parse_listing(data.encode(), Path("x.txt"))
    except PapersiteError:
        pass
print("done")
"""


@pytest.mark.parametrize("kind", ["spaces", "counts", "links", "digits", "math"])
def test_patterns_over_listing_text_run_in_linear_time(kind):
    import subprocess
    import sys

    # 2 MB of each input that used to be quadratic (33 s at 120 KB of spaces, 37 s for "1,"
    # headers, a hang at 200 KB of unclosed \[ \(): linear, it is well inside the guard.
    result = subprocess.run(
        [sys.executable, "-c", _LINEAR, kind], capture_output=True, text=True, timeout=240,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0 and "done" in result.stdout, result.stderr[-2000:]


def test_announced_count_still_read_from_the_header():
    text = "Accepted: 1,234 papers (ICLR)\n\n1Title¶\nAbstract " + PROSE + "\n"
    assert listing(text).announced == 1234
    assert listing("x12 papers here\n\n1Title¶\nAbstract " + PROSE + "\n").announced is None


def test_a_gzip_bomb_and_an_oversized_file_are_refused_before_they_fill_memory(tmp_path, monkeypatch):
    from generator import inputs
    from generator.ingest import listing as listing_module

    monkeypatch.setattr(listing_module, "MAX_LISTING_BYTES", 1024 * 1024)
    monkeypatch.setattr(inputs, "MAX_LISTING_BYTES", 1024 * 1024)
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b" " * (64 * 1024 * 1024)))  # 64 KB on disk, 64 MiB inflated
    assert bomb.stat().st_size < 128 * 1024
    with pytest.raises(PapersiteError, match=r"bomb.jsonl.gz:1: gzip data inflates to more than 1 MiB"):
        read_listing(bomb)
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (1024 * 1024 + 1))
    with pytest.raises(PapersiteError, match=r"big.txt:1: the listing is larger than 1 MiB"):
        read_listing(big)


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"title": "A", "title": "B"}', "key 'title' appears twice"),
        ("[" * 3000 + "]" * 3000, "nested more than 64 levels"),
        ('{"title": "A", "entry": ' + "7" * 5000 + "}", "more than 100 characters"),
        ('{"title": "\\udc00 lone"}', "lone surrogate"),
        ('{"title": "A", "topic": {"area": "X", "subarea": 5}}', "sub-area must be text"),
        ('{"title": "A", "topic": {"area": "X", "subarea": ["a"]}}', "sub-area must be text"),
    ],
)
def test_json_records_that_would_crash_or_lose_data_are_errors_at_their_line(line, message):
    with pytest.raises(PapersiteError) as caught:
        listing('{"title": "Fine", "abstract": "x"}\n' + line + "\n", "x.jsonl")
    assert str(caught.value).startswith("x.jsonl:2: ") and message in str(caught.value), str(caught.value)


def test_listing_values_are_normalised_to_what_check_accepts():
    # (a topic with an empty part around '·' is refused, not normalised: see below)
    records = [
        {"title": "A", "topic": "", "keywords": ["Graph", "graph", " GRAPH ", "trees"], "links": {"pdf": "HTTPS://example.org/a.pdf"}},
        {"title": "C", "topic": " Vision  ·  Robots "},
    ]
    entries = listing("".join(json.dumps(r) + "\n" for r in records), "x.jsonl").entries
    assert entries[0].topic is None and entries[0].keywords == ["Graph", "trees"]
    assert entries[0].links == {"pdf": "https://example.org/a.pdf"}
    assert entries[1].topic == Topic("Vision", "Robots")


_PIECES = [b"{", b"}", b"[", b"]", b'"', b":", b",", b"\n", b"\n\n", b"1", b"\xc2\xb6", b"\xc2\xb7", b"\x1f\x8b", b"\x00",
           b"\xff", b"Abstract ", b"title", "论文检索".encode(), b"\\u", b"d800", b" ", b"a", b'"topic":', b"1e999", b"NaN"]


@given(st.lists(st.sampled_from(_PIECES), max_size=60).map(b"".join) | st.binary(max_size=200))
@settings(max_examples=600, deadline=None)
def test_random_bytes_are_a_listing_or_a_listing_error(data):
    try:
        listing(data)
    except PapersiteError as error:
        assert str(error).startswith("listing.dat:")


@given(st.lists(st.sampled_from(_PIECES), max_size=80).map(b"".join))
@settings(max_examples=200, deadline=None)
def test_random_gzip_is_a_listing_or_a_listing_error(data):
    try:
        listing(gzip.compress(data))
    except PapersiteError as error:
        assert str(error).startswith("listing.dat:")


@pytest.mark.parametrize("topic", ["·", " · ", " · Robustness", "Deep Learning ·", "Deep Learning · · Robustness", "   "])
def test_a_topic_with_an_empty_part_is_refused_in_every_format(topic):
    if topic.strip():  # (a blank line is no topic line at all in this format)
        triples = f"论文检索\n\n{topic}\n\nAda Lovelace\n\n{PROSE}\n"
        with pytest.raises(PapersiteError, match=r"^listing.dat:3: expected a topic line .*topic (sub-)?area must be a name"):
            listing(triples)
    record = {"title": "A paper", "abstract": PROSE}
    area, _, subarea = topic.partition("·")
    for value in (topic, {"area": area, "subarea": subarea} if area.strip() and subarea.strip() else {"area": topic}):
        with pytest.raises(PapersiteError, match=r"^listing.dat:2: field 'topic': topic (sub-)?area must be a name"):
            listing("\n" + json.dumps({**record, "topic": value}) + "\n")


def test_an_empty_topic_string_is_no_topic_and_a_named_one_is_kept():
    record = {"title": "A paper", "abstract": PROSE}
    assert listing(json.dumps({**record, "topic": ""}) + "\n").entries[0].topic is None
    assert listing(json.dumps({**record, "topic": " Theory ·  Deep  nets "}) + "\n").entries[0].topic == Topic("Theory", "Deep nets")


@pytest.mark.parametrize("count", ["9" * 5000, "1," * 2000 + "000", "10000001", "99999999999999999999"])
def test_a_header_announcing_an_unreasonable_count_is_refused_at_its_line(count):
    text = f"Your list\n\nThere are {count} papers for you\n\n1First¶\n\n[openreview] [pdf]\n\nAbstract {PROSE}\n"
    with pytest.raises(PapersiteError, match=r"^listing.dat:3: header announces .* papers; expected at most 10,000,000"):
        listing(text)
    assert listing(text.replace(count, "10,000,000")).announced == 10_000_000


def test_a_one_line_json_array_is_json_not_a_links_line():
    result = listing(json.dumps([{"title": "One line", "abstract": PROSE}]), "one.json")
    assert result.format == "json" and result.entries[0].title == "One line"
