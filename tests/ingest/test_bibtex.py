"""generator/ingest/bibtex.py: macros, TeX, author lists, links, venues, entry types, and hostile bibliographies."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.ingest.bibtex import MAX_BRACE_DEPTH, scan_entries, split_authors
from generator.ingest.listing import parse_listing
from generator.problems import PapersiteError

LAB = r"""% Exported by hand
@string{neurips = "Advances in Neural Information Processing Systems"}
@comment{an unread remark}

@inproceedings{muller2023,
  title     = {{L}earned Optimizers for M{\"u}ller Flows: $x^2$ and 50\% more},
  author    = {M{\"u}ller, J{\"o}rg and {Johnson and Johnson Labs} and van der Berg, Anna and Smith, Jr., John and others},
  booktitle = neurips # " (NeurIPS)",
  year      = {2023},
  url       = {https://openreview.net/forum?id=abc123},
  eprint    = {2301.01234},
  archivePrefix = {arXiv},
  keywords  = {optimization, Flows; learning},
  abstract  = {We study learned optimizers. They are {\em fast} -- very fast, R&D says 50% of the time.},
}

@article{lee2024,
  title = "A Journal {P}aper",
  author = "Ann Lee and Bo Chen and Cy {\v{C}}ech",
  journal = {Journal of Machine Learning Research},
  year = 2024,
  doi = {https://doi.org/10.5555/12345},
}
"""


def read(text: str, name: str = "lab.txt"):
    return parse_listing(text.encode("utf-8"), Path(name))


def test_a_txt_that_holds_bibtex_is_read_as_bibtex_with_macros_tex_and_author_order() -> None:
    listing = read(LAB)
    assert listing.format == "bibtex" and listing.author_order == "paper"
    first, second = listing.entries
    assert first.title == "Learned Optimizers for Müller Flows: $x^2$ and 50% more"  # math kept for MathML
    assert first.authors == ["Jörg Müller", "Johnson and Johnson Labs", "Anna van der Berg", "John Smith Jr."]
    assert first.abstract == "We study learned optimizers. They are fast – very fast, R&D says 50% of the time."
    assert first.texts == {"entry_type": "inproceedings", "venue": "Advances in Neural Information Processing Systems (NeurIPS) 2023"}
    assert first.links == {
        "openreview": "https://openreview.net/forum?id=abc123",
        "pdf": "https://openreview.net/pdf?id=abc123",
        "arxiv": "https://arxiv.org/abs/2301.01234",
    }
    assert first.keywords == ["optimization", "Flows", "learning"]
    assert (first.entry, first.line, second.entry, second.line) == (1, 5, 2, 17)
    assert second.title == "A Journal Paper" and second.authors == ["Ann Lee", "Bo Chen", "Cy Čech"]
    assert second.texts == {"entry_type": "article", "venue": "Journal of Machine Learning Research 2024"}
    assert second.links == {"doi": "https://doi.org/10.5555/12345"}


def test_and_others_invents_no_name_and_says_so() -> None:
    listing = read(LAB)
    assert "Others" not in " ".join(listing.entries[0].authors)
    assert any("lab.txt:5:" in w and "'muller2023'" in w and "and others" in w for w in listing.warnings)


def test_authors_split_only_on_the_and_outside_braces() -> None:
    assert split_authors("A and {B and C} and D AND E") == ["A", "{B and C}", "D", "E"]
    assert split_authors("  ") == []


def test_an_unbalanced_brace_names_the_entry_and_its_line() -> None:
    text = LAB.replace("title     = {{L}earned", "title     = {{L}earned {")
    with pytest.raises(PapersiteError) as error:
        read(text)
    assert error.value.first.line == 5
    assert "'muller2023'" in error.value.first.message and "unbalanced" in error.value.first.message
    assert "line 17" in error.value.first.message  # where the next entry starts


def test_a_brace_that_closes_nothing_and_a_file_that_ends_inside_an_entry() -> None:
    with pytest.raises(PapersiteError, match="closes no"):
        read("@misc(k, title={A}})\n")
    with pytest.raises(PapersiteError) as error:
        read("@misc{k,\n title={A}\n")
    assert error.value.first.line == 1 and "never closed" in error.value.first.message


def test_ten_thousand_nested_braces_end_as_an_error_quickly() -> None:
    text = "@misc{deep,\n title = " + "{" * 10_000 + "x" + "}" * 10_000 + "\n}\n"
    started = time.process_time()
    with pytest.raises(PapersiteError) as error:
        read(text)
    assert f"nested more than {MAX_BRACE_DEPTH}" in error.value.first.message and "'deep'" in error.value.first.message
    assert error.value.first.line == 2
    assert time.process_time() - started < 5  # CPU seconds: no recursion, no quadratic scan


def test_nesting_up_to_the_limit_is_read() -> None:
    depth = MAX_BRACE_DEPTH - 1  # the entry's own brace is the first level
    listing = read("@misc{deep,\n title = " + "{" * depth + "Deep" + "}" * depth + "\n}\n")
    assert listing.entries[0].title == "Deep"


def test_strings_preambles_and_comments_are_not_papers_and_an_entry_without_text_is_skipped() -> None:
    listing = read("@preamble{\"\\newcommand{\\x}{y}\"}\n@misc{a, title={Kept}}\n@misc{b, year={2020}}\n")
    assert [e.title for e in listing.entries] == ["Kept"]
    assert any("'b'" in w and "neither title nor abstract" in w for w in listing.warnings)


def test_a_script_in_a_url_is_dropped_and_markup_stays_text() -> None:
    listing = read('@misc{x, title={<script>alert(1)</script>}, url={javascript:alert(1)}}\n')
    assert listing.entries[0].title == "<script>alert(1)</script>"  # escaped by the renderers, as every listing string
    assert listing.entries[0].links == {}
    assert any("not an http(s) URL" in w for w in listing.warnings)


def test_the_scan_finds_every_entry_with_its_line_and_key() -> None:
    found = scan_entries(LAB, Path("lab.bib"))
    assert [(e.line, e.kind, e.key) for e in found] == [(2, "string", "neurips"), (3, "comment", "an"), (5, "inproceedings", "muller2023"), (17, "article", "lee2024")]


_PIECES = ["@misc{", "@article(", "k,", "title=", "{", "}", "(", ")", '"', "\\\"u", "\\", "$", "%", "&", " and ", ",", "\n", "#", "=", "x", "@string{m=\"v\"}", "{\\v{C}}", "~", "--"]


@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
@settings(max_examples=300, deadline=None)
def test_any_bibliography_is_read_or_refused_with_a_line(text: str) -> None:
    try:
        listing = read("@misc{a,\n" + text)
    except PapersiteError as error:
        assert error.first.line >= 1
        return
    for entry in listing.entries:
        assert entry.line >= 1 and all(isinstance(a, str) and a.strip() for a in entry.authors)


def test_a_100_mb_bibliography_is_refused_before_it_is_parsed() -> None:
    entry = "@misc{k, title={A title}, abstract={" + "words " * 150 + "}}\n"
    text = entry * (100 * 2**20 // len(entry) + 1)
    started = time.process_time()
    with pytest.raises(PapersiteError) as error:
        read(text)
    assert error.value.first.line == 1 and "at most 48 MiB" in error.value.first.message
    assert time.process_time() - started < 20  # decoding and splitting lines only: the parser never runs


def test_text_between_entries_is_skipped_in_one_pass() -> None:
    started = time.process_time()
    listing = read("@misc{k, title={Kept}}\n" + "@" * 2_000_000 + "\nfree text @ here\n@misc{j, title={Also}}\n")
    assert [(e.title, e.line) for e in listing.entries] == [("Kept", 1), ("Also", 4)]
    assert time.process_time() - started < 5  # the parser never sees the line of '@' (pyparsing took minutes on it)
