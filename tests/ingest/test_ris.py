"""generator/ingest/ris.py: records from TY to ER, repeated tags in order, wrapped values, broken files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.ingest.listing import parse_listing
from generator.problems import PapersiteError

EXPORT = """TY  - JOUR
TI  - Deep Nets for Everything
AU  - Lee, Ann
AU  - Chen, Bo
AU  - Diaz, Cy
AB  - We study a problem of learning with many words
  that wraps onto a second line.
PY  - 2024///
JO  - Journal of Machine Learning Research
UR  - https://example.org/paper
DO  - 10.5555/12345
KW  - deep learning
KW  - nets
ER  - 

TY  - CONF
T1  - A Conference Paper
A1  - Zed Young
T2  - ICML
PY  - 2023
UR  - https://openreview.net/forum?id=Xy_1-z
N1  - a note that is not read
ER  -
"""


def read(text: str, name: str = "export.txt"):
    return parse_listing(text.encode("utf-8"), Path(name))


def test_a_reference_managers_export() -> None:
    listing = read(EXPORT)
    assert listing.format == "ris" and listing.author_order == "paper"
    first, second = listing.entries
    assert first.title == "Deep Nets for Everything"
    assert first.authors == ["Ann Lee", "Bo Chen", "Cy Diaz"]  # repeated AU, in the record's order
    assert first.abstract == "We study a problem of learning with many words that wraps onto a second line."
    assert first.texts == {"venue": "Journal of Machine Learning Research 2024", "entry_type": "article"}
    assert first.links == {"url": "https://example.org/paper", "doi": "https://doi.org/10.5555/12345"}
    assert first.keywords == ["deep learning", "nets"]
    assert (first.line, second.line) == (1, 16)
    assert second.texts == {"venue": "ICML 2023", "entry_type": "inproceedings"}
    assert second.links == {"openreview": "https://openreview.net/forum?id=Xy_1-z", "pdf": "https://openreview.net/pdf?id=Xy_1-z"}


def test_a_record_without_its_end_names_where_it_starts() -> None:
    with pytest.raises(PapersiteError) as error:
        read(EXPORT.replace("ER  - \n", "", 1))
    assert error.value.first.line == 1 and "'ER  -'" in error.value.first.message
    with pytest.raises(PapersiteError) as error:
        read("TY  - JOUR\nTI  - A\n")
    assert error.value.first.line == 1


def test_a_tag_outside_a_record_and_a_line_that_is_no_ris() -> None:
    with pytest.raises(PapersiteError) as error:
        read("TY  - JOUR\nTI  - A\nER  -\nTI  - B\n")
    assert error.value.first.line == 4
    with pytest.raises(PapersiteError) as error:
        read("TY  - JOUR\nTI  - A\nER  -\n\nnot a tag\n")
    assert error.value.first.line == 5


def test_unknown_types_are_cited_as_misc_and_empty_records_are_skipped() -> None:
    listing = read("TY  - ELEC\nTI  - A web page\nER  -\nTY  - GEN\nPY  - 2020\nER  -\n")
    assert [e.texts["entry_type"] for e in listing.entries] == ["misc"]
    assert any("export.txt:4:" in w for w in listing.warnings)


@given(st.lists(st.sampled_from(["TY  - JOUR\n", "TI  - x\n", "AU  - Lee, A\n", "ER  -\n", "AB  -\n", "  wrap\n", "\n", "KW  - a;b\n", "UR  - javascript:x\n"]), max_size=40).map("".join))
@settings(max_examples=200, deadline=None)
def test_any_export_is_read_or_refused_with_a_line(text: str) -> None:
    try:
        listing = read("TY  - JOUR\n" + text)
    except PapersiteError as error:
        assert error.first.line >= 1
        return
    assert all(not entry.links for entry in listing.entries)  # the only URL given is a script
