"""generator/site/render/paper_pages.py: one paper's page, what it says and whom it cites."""

from __future__ import annotations

import re

import pytest

from generator.catalog import build_catalog
from generator.config import load_config
from generator.site.render.cite import Venue
from generator.site import exports
from generator.site.render.paper_pages import SiteContext, description, needs_engine, paper_page
from site_fixtures import fixture_records, write_project


@pytest.fixture()
def setup(tmp_path):
    config = load_config(write_project(tmp_path))
    records = fixture_records()
    catalog = build_catalog(records)
    context = SiteContext(config, Venue.from_site_name(config.site_name), {p.slug: f"site_src/papers/{p.slug}.md" for p in records})
    return catalog, context


def _page(setup, slug: str, **changes):
    catalog, context = setup
    paper = next(p for p in catalog.papers if p.slug == slug).replace(**changes)
    return paper_page(paper, catalog, context)


def test_the_page_lives_at_its_route_and_links_up_to_papers(setup) -> None:
    page = _page(setup, "one-step-diffusion-via-shortcut-models")
    assert page.url == "papers/one-step-diffusion-via-shortcut-models/"
    assert "<a href=../>Papers</a>" in page.body  # the crumb to All papers, relative to the page


def test_the_decision_names_the_papers_own_venue_else_the_sites(setup) -> None:
    site = _page(setup, "one-step-diffusion-via-shortcut-models").body
    assert f"Accept (Poster) ({setup[1].venue.short})" in re.sub(r"<[^>]+>", "", site)
    own = _page(setup, "one-step-diffusion-via-shortcut-models", venue="NeurIPS 2024").body
    assert "Accept (Poster) (NeurIPS 2024)" in re.sub(r"<[^>]+>", "", own)
    catalog, context = setup
    paper = next(p for p in catalog.papers if p.slug == "one-step-diffusion-via-shortcut-models").replace(venue="NeurIPS 2024")
    bibtex = exports.citation_row(paper, context.venue)[exports.CITATION_COLUMNS.index("bibtex")]  # what the page draws
    assert "booktitle = {NeurIPS 2024}" in bibtex and "year = {2024}" in bibtex
    no_decision = _page(setup, "calibrated-flows", venue="ICML 2025").body
    assert "<dt>Venue</dt><dd>ICML 2025</dd>" in no_decision


def test_a_listed_venue_the_reference_replaced_is_said_under_the_title(setup) -> None:
    body = _page(setup, "calibrated-flows", venue="ICML 2025", listed={"venue": "ICML 2025 Workshop"}).body
    assert "Listed venue: ICML 2025 Workshop" in body


def test_fills_name_the_fields_by_their_labels(setup) -> None:
    from generator.pages.record import Fill

    body = _page(setup, "calibrated-flows", filled_from=[Fill("ref.jsonl", 3, "forum", 1.0, ("venue", "links.pdf"))]).body
    assert "Venue and PDF link from ref.jsonl record 3" in re.sub(r"<[^>]+>", "", body)


def test_descriptions_are_plain_and_short(setup) -> None:
    catalog, _ = setup
    paper = next(p for p in catalog.papers if p.slug == "calibrated-flows")
    text = description(paper)
    assert len(text) <= 200 and "$" not in text and "<" not in text


def test_only_a_page_with_a_maintainers_body_needs_the_engine(setup) -> None:
    catalog, _ = setup
    paper = catalog.papers[0]
    assert not needs_engine(paper.replace(body=""))
    assert needs_engine(paper.replace(body="## Errata\n\nTable 2 is fixed."))


def test_a_page_with_a_maintainers_body_keeps_materials_script(setup) -> None:
    """Its Markdown may hold tables, tabs or code that Material's script serves (templates/partials/ps-light.html)."""
    from generator.site.render.paper_pages import render_paper_page

    catalog, context = setup
    paper = catalog.papers[0]
    assert "ps_markdown_body" not in render_paper_page(paper.replace(body=""), catalog, context)
    assert "ps_markdown_body: true" in render_paper_page(paper.replace(body="| a | b |\n|---|---|\n| 1 | 2 |"), catalog, context)


def test_the_citations_come_from_the_citation_shards_under_a_heading_the_script_shows(setup) -> None:
    from generator.site.render import cite

    page = _page(setup, "one-step-diffusion-via-shortcut-models")
    catalog, context = setup
    paper = next(p for p in catalog.papers if p.slug == "one-step-diffusion-via-shortcut-models")
    # papersite.js draws BibTeX, RIS and plain text in the section and fills them (site/exports.py); without
    # it the heading stays hidden: a Cite heading over nothing
    assert "<h2 id=cite hidden>Cite</h2>\n<div class=ps-cite></div>" in page.body
    assert "@" not in page.body.split("<h2 id=cite", 1)[1].split("<h2 id=sources", 1)[0]
    assert cite.bibtex(paper, context.venue).splitlines()[0] not in page.body
    assert cite.ris(paper, context.venue).splitlines()[0] not in page.body


def test_the_fix_link_is_the_bare_form_for_this_paper_and_names_it_for_the_script(setup) -> None:
    page = _page(setup, "one-step-diffusion-via-shortcut-models")
    catalog, context = setup
    paper = next(p for p in catalog.papers if p.slug == "one-step-diffusion-via-shortcut-models")
    link = re.search(r'<a href="([^"]+)"([^>]*)>Fix this paper</a>', page.body)
    assert link.group(1) == f"{context.config.repo_url}/issues/new?template=correct-paper.yml&amp;paper_id={paper.id}"
    # the script finds the link by its mark and the paper by the page's own box (PAPER_SLUG)
    assert link.group(2) == " data-ps-fix rel=nofollow"
    assert page.body.startswith(f"<div class=ps-paper data-ps-paper={paper.slug}>")
    assert "<button" not in page.body, "no Save button in the page: nothing to press without the script"
    assert "citation_abstract" not in page.head and "citation_title" in page.head
