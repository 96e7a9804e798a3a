"""generator/ingest/entry.py: the rules every reader shares (names, links, venues, abstracts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.ingest.entry import arxiv_url, clean_abstract, doi_url, first_last, link_name, venue_with_year, web_links


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Lee, Ann", "Ann Lee"),
        ("van der Berg,  Anna", "Anna van der Berg"),
        ("Smith, Jr., John", "John Smith Jr."),
        ("Ann  Lee", "Ann Lee"),
        ("Lee,", "Lee,"),  # nothing after the comma: not turned
        ("OpenAI", "OpenAI"),
    ],
)
def test_last_first_is_turned_around(name: str, shown: str) -> None:
    assert first_last(name) == shown


def test_dois_and_arxiv_ids_however_written() -> None:
    assert doi_url("10.5555/12345") == doi_url("doi: 10.5555/12345") == doi_url("https://dx.doi.org/10.5555/12345") == "https://doi.org/10.5555/12345"
    assert doi_url("not a doi") is None
    assert arxiv_url("2301.01234v2") == "https://arxiv.org/abs/2301.01234v2"
    assert arxiv_url("arXiv:hep-th/9901001") == "https://arxiv.org/abs/hep-th/9901001"
    assert arxiv_url("12345") is None


def test_a_venue_carries_its_year_once() -> None:
    assert venue_with_year("NeurIPS", "2023") == "NeurIPS 2023"
    assert venue_with_year("NeurIPS 2023", "2023") == "NeurIPS 2023"
    assert venue_with_year(None, "2023-05-01") == "2023"
    assert venue_with_year("  ICML  ", "n.d.") == "ICML"
    assert venue_with_year(None, None) is None


def test_links_a_browser_may_open_and_the_pdf_of_a_forum() -> None:
    warnings: list[str] = []
    links = web_links({"openreview": "https://openreview.net/forum?id=a1", "url": "javascript:alert(1)", "code": "HTTPS://x.org"}, Path("l.bib"), 3, warnings)
    assert links == {"openreview": "https://openreview.net/forum?id=a1", "code": "https://x.org", "pdf": "https://openreview.net/pdf?id=a1"}
    assert warnings and warnings[0].startswith("l.bib:3: link 'url'")
    assert link_name("https://openreview.net/forum?id=a1") == "openreview" and link_name("https://x.org") == "url"


def test_placeholders_are_no_abstract() -> None:
    assert clean_abstract("  N/A ") is None and clean_abstract(" Real text. ") == "Real text."
