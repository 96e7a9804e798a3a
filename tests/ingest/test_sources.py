"""generator/ingest/sources.py: which files an import reads, and that a listing name cites one file."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config import load_config
from generator.ingest.sources import complete_from_references, listing_orders, read_listings, source_files
from generator.problems import PapersiteError

ROW = '{"title": "Graph Transformers at Scale", "abstract": "Attention over millions of nodes.", "authors": ["Ann Zhou", "Bo Lee"]}\n'


def _project(tmp_path: Path, settings: str = "site_name: x\n") -> Path:
    (tmp_path / "papersite.yml").write_text(settings, encoding="utf-8")
    (tmp_path / "corpus").mkdir()
    return tmp_path


def test_named_listings_are_read_as_given_but_never_a_reference_catalogue(tmp_path):
    root = _project(tmp_path, "site_name: x\nreferences: [corpus/ref.jsonl]\n")
    (root / "corpus" / "ref.jsonl").write_text(ROW, encoding="utf-8")
    config = load_config(root)
    assert source_files([root / "elsewhere.jsonl"], config) == [root / "elsewhere.jsonl"]
    with pytest.raises(PapersiteError, match="this file is a reference catalogue"):
        source_files([root / "corpus" / "ref.jsonl"], config)


def test_no_corpus_or_an_empty_one_is_an_error_naming_the_folder(tmp_path):
    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match="the corpus directory does not exist"):
        source_files([], load_config(tmp_path))
    (tmp_path / "corpus").mkdir()
    with pytest.raises(PapersiteError, match="corpus directory holds no listing files"):
        source_files([], load_config(tmp_path))


def test_listings_are_read_and_every_bad_one_reported_together(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    good, twin, bad = tmp_path / "a" / "l.jsonl", tmp_path / "b" / "l.jsonl", tmp_path / "bad.jsonl"
    for path in (good, twin):
        path.write_text(ROW, encoding="utf-8")
    bad.write_text("{not json\n", encoding="utf-8")
    (listing,) = read_listings([good])
    assert listing.name == "l.jsonl" and listing.entries[0].title == "Graph Transformers at Scale"
    with pytest.raises(PapersiteError) as refused:
        read_listings([good, twin, bad])
    assert [p.path for p in refused.value.problems] == [str(bad), "l.jsonl"]
    assert "two listings share this file name" in refused.value.problems[1].message


def test_author_order_follows_the_settings_or_is_measured(tmp_path):
    root = _project(tmp_path, "site_name: x\nlistings:\n  l.jsonl: {author_order: alphabetical}\n")
    listing_path = root / "corpus" / "l.jsonl"
    listing_path.write_text(ROW, encoding="utf-8")
    (other := root / "corpus" / "m.jsonl").write_text(ROW, encoding="utf-8")
    orders = listing_orders(read_listings([listing_path, other]), load_config(root))
    assert orders["l.jsonl"].declared == "alphabetical" and orders["m.jsonl"].declared == "detect"


def test_without_references_the_papers_pass_through(tmp_path):
    root = _project(tmp_path)
    papers = [object()]
    completed, report = complete_from_references(papers, load_config(root))
    assert completed is papers and report.matches == [] and report.candidates == []


def test_a_sheet_is_read_with_its_column_map_and_a_bibliography_declares_its_order(tmp_path):
    root = _project(tmp_path, "site_name: x\nlistings:\n  s.csv: {columns: {title: Name of paper}}\n")
    sheet = root / "corpus" / "s.csv"
    sheet.write_text("Name of paper,Writers\nA Sheet Paper,x\n", encoding="utf-8")
    bib = root / "corpus" / "l.bib"
    bib.write_text("@misc{k, title={A Bib Paper}, author={C c and B b and A a}}\n", encoding="utf-8")
    config = load_config(root)
    listings = read_listings([sheet, bib], config)
    assert [listing.entries[0].title for listing in listings] == ["A Sheet Paper", "A Bib Paper"]
    with pytest.raises(PapersiteError, match="cannot read this sheet's header"):
        read_listings([sheet])  # without the settings the header names no known column
    orders = listing_orders(listings, config)
    assert orders["l.bib"].order == "paper" and orders["l.bib"].declared_by == "the bibtex format"
    assert orders["s.csv"].declared == "detect"
