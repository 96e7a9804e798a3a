"""What the reference catalogue gives a reader: authors, decisions, links and usable citations."""

from __future__ import annotations

import re

import pytest

from site_ui import citation_shown

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def oral(papers):
    """An accepted oral paper with authors filled from the reference catalogue."""
    found = sorted((p for p in papers if p.decision == "Accept (Oral)" and p.authors and p.filled_from), key=lambda p: p.slug)
    assert found, "the bundled site should have an oral paper completed from the OpenReview export"
    return found[0]


def test_paper_page_shows_decision_authors_links_and_where_they_came_from(site_page, oral):
    site_page.goto(f"papers/{oral.slug}/")
    page = site_page.page
    heading = page.locator("main h1").first
    assert heading.locator(".ps-decision").inner_text().strip() == "Oral"
    authors = [a.inner_text().strip() for a in page.locator("main .ps-authors a").all()]
    assert authors == [" ".join(a.split()) for a in oral.authors]
    forum = page.get_by_role("link", name="OpenReview", exact=True).first
    assert forum.get_attribute("href") == oral.links["openreview"]
    pdf = page.get_by_role("link", name="PDF", exact=True).first
    assert pdf.get_attribute("href") == oral.links["openreview"].replace("/forum?", "/pdf?")
    fills = page.locator("main .ps-fills").inner_text()
    assert "iclr2025_openreview.jsonl.gz" in fills and f"record {oral.filled_from[0].record}" in fills
    assert "Authors" in fills
    bibtex = citation_shown(page, "#ps-bibtex", "BibTeX")  # from the citation shards
    assert bibtex.startswith("@inproceedings{") and "booktitle = {International Conference on Learning Representations}" in bibtex
    assert "url = {https://openreview.net/forum?id=" in bibtex
    line = citation_shown(page, "#ps-text", "Plain text")  # from the citation shards
    assert "(ICLR 2025)" in line
    names = ", ".join(" ".join(a.split()) for a in oral.authors)
    if oral.author_order:  # the export sorts its lists: the page says so and names no first author
        note = page.locator("main .ps-authors .ps-order-note").inner_text()
        assert "the order on the paper is not known" in note
        assert "author = {" not in bibtex and names in " ".join(bibtex.split())
        assert line.startswith("[Authors, ") and names in line
        assert page.locator('meta[name="citation_author"]').count() == 0
    else:
        assert f"author = {{{' and '.join(oral.authors)}}}" in bibtex and line.startswith(oral.authors[0])


def test_rejected_submission_is_not_cited_as_published(site_page, papers):
    rejected = next(p for p in sorted(papers, key=lambda p: p.slug) if p.decision == "Reject" and not p.title_derived)
    site_page.goto(f"papers/{rejected.slug}/")
    page = site_page.page
    assert page.locator("main h1 .ps-decision").inner_text().strip() == "Rejected"
    bibtex = citation_shown(page, "#ps-bibtex", "BibTeX")  # from the citation shards
    assert bibtex.startswith("@misc{") and "note = {Submitted to ICLR 2025" in bibtex and "booktitle" not in bibtex
    assert page.locator('meta[name="citation_conference_title"]').count() == 0


def test_a_page_without_authors_says_why_and_offers_searches(site_page, papers):
    lost = next(p for p in sorted(papers, key=lambda p: p.slug) if not p.authors)
    site_page.goto(f"papers/{lost.slug}/")
    text = site_page.page.locator("main .ps-authors").inner_text()
    assert "neither the listings nor the reference catalogues give them" in text
    assert site_page.page.locator("main .ps-authors a", has_text="Google Scholar").count() == 1


def test_papers_page_filters_by_decision(site_page, papers):
    site_page.goto("papers/")
    page = site_page.page
    select = page.locator("select[data-ps-decision]")
    options = select.locator("option").all_inner_texts()
    orals = sum(1 for p in papers if p.decision == "Accept (Oral)")
    assert f"Oral ({orals})" in options
    select.select_option("oral")
    page.wait_for_function(f"document.querySelector('[data-ps-shown]').textContent.startsWith('{orals} ')")
    shown = page.locator("#ps-all-papers > li:not([hidden])")
    assert shown.count() == orals
    assert all(t.strip() == "Oral" for t in shown.locator(".ps-decision").all_inner_texts())


def test_home_and_stats_count_decisions_and_known_authors(site_page, papers):
    site_page.goto("")
    coverage = site_page.page.locator(".ps-coverage").inner_text()
    known = sum(1 for p in papers if p.authors)
    assert f"Authors are known for {known:,} of {len(papers):,} papers" in coverage
    rejected = sum(1 for p in papers if p.decision == "Reject")
    assert re.search(rf"\b{rejected:,} rejected\b", coverage)
    site_page.goto("stats/")
    chart = site_page.page.locator("#chart-decisions")
    assert chart.count() == 1 and "Rejected" in chart.text_content()
