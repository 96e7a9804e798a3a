"""generator/ingest/csv_listing.py: spreadsheets as people save them, and sheets that are attacks."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.ingest.csv_listing import MAX_COLUMNS, MAX_TABLE_BYTES, split_authors
from generator.ingest.listing import ReadSettings, parse_listing
from generator.problems import PapersiteError

ABSTRACT = "We study a problem of learning with many words so that this cell reads like an abstract."


def read(text: str, name: str = "sheet.dat", columns: dict[str, str] | None = None):
    return parse_listing(text.encode("utf-8"), Path(name), ReadSettings(columns=columns or {}))


def test_headers_in_any_spelling_quoted_commas_doubled_quotes_and_empty_cells() -> None:
    text = (
        "Paper Title,Author(s),ABSTRACT,Year,Venue,Link,doi,Keywords\r\n"
        f'"Commas, and ""quotes""","Lee, Ann; Chen, Bo","{ABSTRACT}",2024,ICML,https://example.org/p,10.5555/x,"a; b"\r\n'
        ',,,,,,,\r\n'
        '"Second\nline title",,,,,,,\r\n'
    )
    listing = read(text)
    assert listing.format == "csv" and listing.author_order == "detect"  # a sheet promises no order
    first, second = listing.entries
    assert first.title == 'Commas, and "quotes"'
    assert first.authors == ["Ann Lee", "Bo Chen"]
    assert first.abstract == ABSTRACT
    assert first.texts == {"venue": "ICML 2024"}
    assert first.links == {"url": "https://example.org/p", "doi": "https://doi.org/10.5555/x"}
    assert first.keywords == ["a", "b"]
    assert (first.line, second.line, second.entry) == (2, 4, 2)  # the empty row is no paper
    assert second.title == "Second line title" and second.authors == [] and second.abstract is None


def test_tab_and_semicolon_separated_sheets() -> None:
    tsv = read(f"title\tauthors\tabstract\nA paper\tAnn Lee and Bo Chen\t{ABSTRACT}\n")
    assert tsv.entries[0].authors == ["Ann Lee", "Bo Chen"]
    semi = read(f"Titel;Title;Authors\nx;A paper;Ann Lee, Bo Chen\n")
    assert semi.entries[0].title == "A paper" and semi.entries[0].authors == ["Ann Lee", "Bo Chen"]


@pytest.mark.parametrize(
    ("cell", "names"),
    [
        ("Lee, Ann", ["Ann Lee"]),
        ("van der Berg, Anna", ["Anna van der Berg"]),
        ("Ann Lee, Bo Chen, Cy Diaz", ["Ann Lee", "Bo Chen", "Cy Diaz"]),
        ("Ann Lee, Bo Chen and Cy Diaz", ["Ann Lee", "Bo Chen", "Cy Diaz"]),
        ("Lee, Ann and Chen, Bo", ["Ann Lee", "Bo Chen"]),
        ("Lee, Ann; Chen, Bo;", ["Ann Lee", "Bo Chen"]),
        ("Ann Lee & Bo Chen", ["Ann Lee", "Bo Chen"]),
        ("", []),
    ],
)
def test_author_cells(cell: str, names: list[str]) -> None:
    assert split_authors(cell) == names


def test_a_header_that_cannot_be_mapped_names_its_columns_and_the_known_names() -> None:
    with pytest.raises(PapersiteError) as error:
        read("Name of paper,Writers,Year\nx,y,2020\n")
    problem = error.value.first
    assert problem.line == 1
    assert "'Name of paper'" in problem.message and "'Writers'" in problem.message
    assert "title" in problem.message and "abstract" in problem.message and "papersite.yml" in problem.message


def test_papersite_yml_maps_an_unusual_sheet() -> None:
    columns = {"title": "Name of paper", "authors": "Writers"}
    listing = read("Name of paper,Writers,Year\nA paper,Ann Lee; Bo Chen,2020\n", columns=columns)
    assert listing.entries[0].title == "A paper" and listing.entries[0].authors == ["Ann Lee", "Bo Chen"]
    assert listing.entries[0].texts == {"venue": "2020"}
    with pytest.raises(PapersiteError, match="does not have: Summary"):
        read("Name of paper,Writers\nA,B\n", columns={**columns, "abstract": "Summary"})


def test_a_million_columns_end_as_an_error_quickly() -> None:
    started = time.process_time()
    with pytest.raises(PapersiteError) as error:
        read("title," + ",".join(["x"] * 1_000_000) + "\nA,b\n")
    assert error.value.first.line == 1 and f"{MAX_COLUMNS:,} columns" in error.value.first.message
    assert time.process_time() - started < 5


def test_a_cell_larger_than_the_limit_names_its_line() -> None:
    with pytest.raises(PapersiteError) as error:
        read('title,abstract\nA,"' + "x" * 2_000_000 + '"\n')
    assert error.value.first.line == 2 and "at most" in error.value.first.message


def test_a_100_mb_sheet_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    row = f'"A title","Ann Lee","{ABSTRACT}"\n'
    text = "title,authors,abstract\n" + row * (100 * 2**20 // len(row) + 1)
    assert len(text) > MAX_TABLE_BYTES
    started = time.process_time()
    with pytest.raises(PapersiteError) as error:
        read(text)
    assert error.value.first.line == 1 and "MiB" in error.value.first.message
    assert time.process_time() - started < 20


def test_a_row_with_neither_title_nor_abstract_is_skipped_with_a_warning() -> None:
    listing = read("title,authors\nA,Ann Lee\n,Bo Chen\n")
    assert [e.title for e in listing.entries] == ["A"]
    assert any("sheet.dat:3:" in w for w in listing.warnings)


def test_one_line_of_prose_with_commas_is_not_a_sheet() -> None:
    with pytest.raises(PapersiteError, match="unrecognised listing"):
        read("Hello, world, this is a note\n\nAnd another line\n")


@given(st.lists(st.sampled_from(["title", "authors", ",", ";", "\t", '"', '""', "\n", "\r\n", "x", "Lee, Ann", " and "]), max_size=60).map("".join))
@settings(max_examples=300, deadline=None)
def test_any_sheet_is_read_or_refused_with_a_line(text: str) -> None:
    try:
        listing = read("title,abstract\n" + text)
    except PapersiteError as error:
        assert error.first.line >= 1
        return
    assert all(entry.title or entry.abstract for entry in listing.entries)
