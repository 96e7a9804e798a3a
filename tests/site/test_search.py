"""generator/site/search.py: the store and its schema, read the way the browser reads them."""

from __future__ import annotations

import gzip
import json

from generator.catalog import build_catalog
from generator.site import search
from site_fixtures import HOSTILE_TITLE, fixture_records


def _store(records) -> dict:
    files = search.search_files(build_catalog(records))
    return json.loads(gzip.decompress(files[search.DOCS_FILE]))


def _rows(store: dict) -> list[dict]:
    columns = store["schema"]["columns"]
    return [dict(zip(columns, row)) for row in store["papers"]]


def test_rows_read_by_the_schemas_column_names() -> None:
    records = fixture_records()
    store = _store(records)
    rows = _rows(store)
    assert sorted(row["slug"] for row in rows) == sorted(r.slug for r in records)
    hostile = next(row for row in rows if row["slug"] == "hostile-paper")
    assert HOSTILE_TITLE.split()[0] in hostile["title"]  # text, as written: the browser escapes it
    assert store["schema"]["urls"]["paper"] == "papers/{slug}/"


def test_a_per_paper_field_is_a_column_only_where_papers_have_it() -> None:
    records = fixture_records()
    assert all("venue" not in row for row in _rows(_store(records)))
    with_venue = [r.replace(venue="ICML 2025") if r.slug == "calibrated-flows" else r for r in records]
    store = _store(with_venue)
    assert store["venues"] == ["ICML 2025"]
    row = next(row for row in _rows(store) if row["slug"] == "calibrated-flows")
    assert store["venues"][row["venue"]] == "ICML 2025"


def test_the_search_files_are_the_same_bytes_twice() -> None:
    assert search.search_files(build_catalog(fixture_records())) == search.search_files(build_catalog(fixture_records()[::-1]))


def test_explore_offers_decisions_in_filter_order_and_no_decision_last() -> None:
    import re

    records = fixture_records()
    decisions = ["Reject", "Accept (Poster)", "Accept (Oral)", "Under review <b>"]
    records = [r.replace(decision=decisions[i] if i < len(decisions) else None) for i, r in enumerate(records)]
    page = search.explore_page(build_catalog(records))
    menu = re.search(r'<select id="ps-decision" name="decision">(.*?)</select>', page).group(1)
    values = re.findall(r'value="([^"]*)"', menu)
    assert values == ["", "Accept (Oral)", "Accept (Poster)", "Reject", "Under review &lt;b&gt;", search.NO_DECISION]
    assert "data-ps-none" in menu and "<b>" not in menu
    every = search.explore_page(build_catalog([r.replace(decision="Reject") for r in records]))
    assert "data-ps-none" not in every, "no paper lacks a decision: no such choice"
    assert re.search(r'<select id="ps-sort" name="sort">', page)
def test_snippet_texts_are_in_chunks_of_the_schemas_size_in_paper_order(monkeypatch) -> None:
    monkeypatch.setattr(search, "TEXT_CHUNK", 3)  # several chunks of the small fixture
    records = fixture_records()
    files = search.search_files(build_catalog(records))
    store = json.loads(gzip.decompress(files[search.DOCS_FILE]))
    size = store["schema"]["text_chunk"]
    assert size == 3
    whole = json.loads(gzip.decompress(files[search.ABSTRACT_TEXT_FILE]))
    chunks = [json.loads(gzip.decompress(files[search.TEXT_CHUNK_FILE.format(n)])) for n in range(-(-len(whole) // size))]
    assert all(len(chunk) == size for chunk in chunks[:-1]) and 0 < len(chunks[-1]) <= size
    # paper n's text is item n % size of chunk n // size, as search-worker.js someTexts reads it
    assert [text for chunk in chunks for text in chunk] == whole and len(whole) == len(store["papers"])
    assert search.TEXT_CHUNK_FILE.format(len(chunks)) not in files
