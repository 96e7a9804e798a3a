"""Tests written for mutants bench/mutation.py found alive: each pins one behaviour a flipped
comparison, a swapped constant or a dropped return left unnoticed."""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.pages.check import check_pages
from generator.cli import main as papersite
from generator.config import load_config
from generator.ingest.threeway import merge_fields
from generator.ingest.listing import ListingEntry
from generator.ingest.merge import merge_duplicates
from generator.site.render.html import clip, front_matter

PROSE_A = ("We introduce a contrastive objective for protein structure prediction that aligns sequence "
           "embeddings with predicted contact maps and improves accuracy on three benchmarks by a wide margin.")
PROSE_B = ("Reinforcement learning agents in sparse reward mazes explore better when an intrinsic curiosity "
           "bonus is annealed on a schedule tied to the episode return of the last hundred episodes.")


def test_clip_cuts_at_a_word_boundary_and_only_when_too_long():
    assert clip("alpha beta gamma", 12) == "alpha beta…"
    assert clip("alphabetagamma", 5) == "alpha…"  # no space to cut at: the hard cut
    assert clip("  short   text ", 10) == "short text"  # whitespace folded, nothing cut


def test_generated_front_matter_writes_both_booleans_as_yaml_reads_them():
    data = {"search": {"exclude": True}, "hide": False, "n": 3, "title": "x: y"}
    assert yaml.safe_load(front_matter(data)) == data


def test_check_reports_a_front_matter_that_is_never_closed(tmp_path: Path):
    (tmp_path / "site_src" / "papers").mkdir(parents=True)
    (tmp_path / "site_src" / "papers" / "open.md").write_text("---\nid: a\nslug: open\ntitle: Open\n", encoding="utf-8")
    (problem,) = check_pages(load_config(tmp_path))
    assert str(problem) == "site_src/papers/open.md:1: front matter is never closed: add a '---' line after the last field"


def test_check_of_a_project_without_papers_is_clean(tmp_path: Path, capsys):
    (tmp_path / "papersite.yml").write_text("site_name: Empty\n", encoding="utf-8")
    (tmp_path / "site_src" / "papers").mkdir(parents=True)  # no folder at all is an error (a false green otherwise)
    assert check_pages(load_config(tmp_path)) == []
    assert papersite(["--project", str(tmp_path), "check"]) == 0


def test_the_listing_never_changes_a_page_s_id_or_slug():
    base = {"id": "a1", "slug": "first-title", "title": "First title"}
    page = dict(base)
    proposed = {"id": "a1", "slug": "second-title", "title": "Second title"}
    merged, conflicts = merge_fields(base, page, proposed)
    assert merged["slug"] == "first-title" and merged["title"] == "Second title" and conflicts == []


def test_the_same_title_over_unrelated_abstracts_is_two_papers():
    entries = [
        ListingEntry(file="a.txt", entry=1, line=1, format="numbered", title="Scaling Laws Revisited", abstract=PROSE_A),
        ListingEntry(file="b.txt", entry=1, line=1, format="numbered", title="Scaling Laws Revisited", abstract=PROSE_B),
    ]
    assert len(merge_duplicates(entries)) == 2


def test_only_well_formed_web_urls_become_links():
    from generator.layout import is_web_url

    assert is_web_url("https://example.org/a") and is_web_url("HTTP://example.org")
    for url in ("http://[::1/x", "javascript:alert(1)", "http:///no-host", "https://a.org/x y", "//example.org/x", "ftp://a.org/f"):
        assert not is_web_url(url), url


def test_a_retitled_paper_with_the_same_abstract_is_one_paper_and_a_shared_opening_is_not_enough():
    retitled = [
        ListingEntry(file="a.txt", entry=1, line=1, format="numbered", title="Contrastive Folding", abstract=PROSE_A),
        ListingEntry(file="b.txt", entry=1, line=1, format="numbered", title="Aligning Contacts and Sequences", abstract=PROSE_A),
    ]
    (paper,) = merge_duplicates(retitled)
    assert len(paper.sources) == 2
    opening = PROSE_A.split(" that ")[0]
    apart = [
        ListingEntry(file="a.txt", entry=1, line=1, format="numbered", title="Contrastive Folding", abstract=PROSE_A),
        ListingEntry(file="b.txt", entry=1, line=1, format="numbered", title="Curious Mazes",
                     abstract=opening + " that " + PROSE_B),
    ]
    assert len(merge_duplicates(apart)) == 2
