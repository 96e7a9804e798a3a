"""generator/site/render/html.py: escaping in one module; listing text stays text in HTML, YAML and theme templates."""

from __future__ import annotations

import yaml

import pytest

from generator.site.render.html import (
    attr, block, clip, esc, front_matter, link, meta_text, neutral_chars, out_link, page, plain_chars, plain_title,
)


def test_escaping_leaves_no_markup_and_no_raw_control_or_bidi_character():
    assert esc('<b a="x">&\'') == "&lt;b a=&quot;x&quot;&gt;&amp;&#x27;"
    assert esc("nul\x00 esc\x1b rlo\u202e lrm\u200e") == "nul\ufffd esc\ufffd rlo&#x202e; lrm&#x200e;"
    assert esc(42) == "42" and neutral_chars("plain text") == "plain text"
    assert plain_chars("a\x07b\u2066c") == "a\ufffdbc"  # a template escapes it: the bidi control goes


def test_links_escape_their_target_and_text_and_only_web_urls_go_out():
    assert link('x" onclick="y', "<t>", cls="c") == '<a href="x&quot; onclick=&quot;y" class=c>&lt;t&gt;</a>'
    assert link("u/", "<i>ok</i>", raw_text=True) == "<a href=u/><i>ok</i></a>"
    assert out_link("https://x.org/p?a=1&b=2", "paper", {"data-kind": 'p"'}) == (
        '<a href="https://x.org/p?a=1&amp;b=2" data-kind=p&quot; rel=nofollow>paper</a>')
    for url in ("javascript:alert(1)", "data:text/html,x", "https://x.org/\" onmouseover=", "ftp://x.org", ""):
        assert out_link(url, "<text>") == "&lt;text&gt;", url


def test_an_attribute_value_keeps_its_quotes_wherever_html_needs_them():
    # unquoted, a space, an = or a backtick would end or change the value; any other space is kept quoted too
    for value in ("a b", "a=b", "a`b", "a\tb", "a\u00a0b", "a\u3000b"):
        assert attr("v", value) == f' v="{esc(value)}"', value
    assert attr("v", "") == " v"  # the name alone: HTML reads it as the empty value
    assert attr("v", "a'b\"<c>&") == " v=a&#x27;b&quot;&lt;c&gt;&amp;"  # escaped: nothing left that ends it
    assert attr("href", "../x/?a=1&b=2") == ' href="../x/?a=1&amp;b=2"'
    assert attr("href", "../../papers/x-y/#cite") == " href=../../papers/x-y/#cite"


def test_a_plain_title_cannot_open_a_tag_or_an_entity_in_any_template():
    assert plain_title("  A <script>  &amp; &#106;ava  \u202eB\x00 ") == "A ‹script› ＆amp; ＆#106;ava B\ufffd"
    assert plain_title("R&D and A & B") == "R&D and A & B"  # an ampersand that starts no entity stays
    assert meta_text('He said "hi" <b>') == "He said ”hi” ‹b›"


@pytest.mark.parametrize(("text", "limit", "clipped"), [
    ("short", 10, "short"),
    ("one two three four", 9, "one two…"),
    ("one, two, three", 9, "one…"),  # no trailing comma before the ellipsis
    ("unbrokenlongword", 5, "unbro…"),
    ("  spaced \n out  ", 20, "spaced out"),
])
def test_clip_cuts_at_a_word(text, limit, clipped):
    assert clip(text, limit) == clipped


def test_block_drops_empty_parts_and_blank_lines():
    assert block("<p>a</p>", "", "<p>b</p>\n\n  \n<p>c</p>") == "<p>a</p>\n<p>b</p>\n<p>c</p>"


HOSTILE = ["plain", 'quote " and \\ backslash', "line\nbreak", "tab\tx", "#not a comment", "- not a list", "key: value",
           "{{ jinja }}", "ünïcödé ✓", "\u2028ls\u2029ps\x85nel", "\ufeffbom", "del\x7f", "yes", "null", "1e3", "", " lead"]


def test_front_matter_reads_back_exactly_for_any_text():
    data = {"title": HOSTILE[1], "flag": True, "count": 3, "items": HOSTILE, "nested": {"k": HOSTILE[2], "empty": {}},
            "empty_list": [], "rows": [{"a": "x", "b": ["y"]}]}
    assert yaml.safe_load(front_matter(data)) == data


def test_a_page_is_front_matter_a_fence_and_the_trimmed_body():
    assert page({"title": "T"}, "\n\nBody\n\n") == '---\ntitle: "T"\n---\n\nBody\n'
