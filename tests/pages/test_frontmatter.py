"""generator/pages/frontmatter.py: the one reader of a page's text, with the line of every value."""

from __future__ import annotations

import pytest

from generator.pages.frontmatter import FrontMatter, decode_text, parse_front_matter, read_text, render_front_matter
from generator.problems import PapersiteError

PAGE = """\
---
title: A Title
authors:
  - Ann
  - Bo
links:
  pdf: https://x.org/p.pdf
  code: https://x.org/c
---


Body *text*.
"""


def test_every_value_knows_its_line_and_the_body_its_first_line():
    page = parse_front_matter(PAGE, "papers/a.md")
    assert page.data == {"title": "A Title", "authors": ["Ann", "Bo"], "links": {"pdf": "https://x.org/p.pdf", "code": "https://x.org/c"}}
    assert (page.line("title"), page.line("authors"), page.item_line("authors", 1), page.line("links", "code")) == (2, 3, 5, 8)
    assert page.body == "Body *text*.\n" and page.body_line == 12
    assert page.line("missing") == 1 and page.item_line("authors", 9) == 3 and page.line("links", "nope") == 6


def test_a_byte_order_mark_and_crlf_read_as_without():
    page = parse_front_matter("\ufeff" + PAGE.replace("\n", "\r\n"), "a.md")
    assert page.data["title"] == "A Title" and page.line("links", "code") == 8 and page.body == "Body *text*.\n"


@pytest.mark.parametrize(("text", "line", "message"), [
    ("title: x\n", 1, "page must start with a '---' line"),
    ("---\ntitle: x\n", 1, "front matter is never closed"),
    ("---\n- a\n- b\n---\n", 2, "front matter must be a YAML mapping"),
    ("---\n---\n", 2, "front matter must be a YAML mapping"),
    ("---\ntitle: x\ntitle: y\n---\n", 3, "key 'title' appears twice"),
    ("---\ntitle: &t x\nalias: *t\n---\n", 2, "anchors"),
    ("---\ntitle: [unclosed\n---\n", 3, "front matter is not valid YAML"),
])
def test_text_that_is_no_page_is_a_located_error(text, line, message):
    with pytest.raises(PapersiteError) as refused:
        parse_front_matter(text, "papers/a.md")
    assert (refused.value.first.path, refused.value.first.line) == ("papers/a.md", line)
    assert message in refused.value.first.message


def test_a_closing_fence_may_carry_trailing_spaces_but_not_text():
    assert parse_front_matter("---\ntitle: x\n---  \nbody\n").body == "body\n"
    with pytest.raises(PapersiteError, match="never closed"):
        parse_front_matter("---\ntitle: x\n--- not a fence\n")


def test_render_is_the_inverse_of_parse():
    text = render_front_matter("title: A Title\n", "\n\nBody.\n\n")
    assert text == "---\ntitle: A Title\n---\n\nBody.\n"
    page = parse_front_matter(text)
    assert page.data == {"title": "A Title"} and page.body == "Body.\n" and page.body_line == 5
    assert render_front_matter("title: x\n", "") == "---\ntitle: x\n---\n"


def test_bytes_that_are_no_utf8_and_paths_that_are_no_file_are_problems_of_the_page(tmp_path):
    assert decode_text(b"a\r\nb\rc", "a.md") == "a\nb\nc"
    with pytest.raises(PapersiteError, match=r"^a.md:1: not UTF-8 text"):
        decode_text(b"---\ntitle: caf\xe9\n", "a.md")
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(PapersiteError, match="a paper page must be a file"):
        read_text(tmp_path / "dir.md", "dir.md")
    (tmp_path / "ok.md").write_bytes(b"---\r\ntitle: x\r\n---\r\n")
    assert read_text(tmp_path / "ok.md", "ok.md") == "---\ntitle: x\n---\n"


def test_fields_that_never_were_a_file_are_all_on_line_one():
    page = FrontMatter.of({"title": "x", "authors": ["a"]}, "body", "merge")
    assert (page.label, page.line("title"), page.item_line("authors", 0), page.body) == ("merge", 1, 1, "body")
