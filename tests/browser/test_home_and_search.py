"""Home page and header search, as a reader uses them."""

from __future__ import annotations

import pytest

from site_ui import header_search, result_paper_slugs

pytestmark = pytest.mark.browser

PROBE_TITLE = "One Step Diffusion via Shortcut Models"


@pytest.fixture(scope="module")
def probe(papers):
    """The record of the paper the searches look for."""
    matches = [p for p in papers if " ".join(p.title.split()).lower() == PROBE_TITLE.lower()]
    assert matches, f"the bundled corpus should give a page for {PROBE_TITLE!r}"
    return matches[0]


def test_home_loads_without_console_errors(site_page):
    site_page.goto("")
    page = site_page.page
    page.wait_for_load_state("networkidle")
    assert page.locator("h1").first.is_visible(), "the home page shows a heading"
    assert page.title(), "the home page has a <title>"
    assert not site_page.log.page_errors, f"uncaught errors on the home page: {site_page.log.page_errors}"
    assert not site_page.log.console_errors, f"console errors on the home page: {site_page.log.console_errors}"


def test_header_search_by_exact_title_shows_the_paper_first(site_page, probe):
    site_page.goto("")
    results = header_search(site_page.page, PROBE_TITLE)
    slugs = result_paper_slugs(results, limit=5)
    first_text = " ".join(results.first.inner_text().split())
    assert slugs[0] == probe.slug, (
        f"first header-search result for {PROBE_TITLE!r} should be papers/{probe.slug}/, "
        f"got {slugs[0]!r} ({first_text[:120]!r}); first results: {slugs}"
    )
    assert PROBE_TITLE.lower() in first_text.lower()


def test_header_search_by_author_finds_their_paper(site_page, papers):
    # An author with one paper: the search must find that paper, not only the author's page.
    counts: dict[str, int] = {}
    for paper in papers:
        for name in paper.authors:
            counts[name] = counts.get(name, 0) + 1
    paper = next((p for p in sorted(papers, key=lambda p: p.slug) if p.authors and counts[p.authors[0]] == 1), None)
    assert paper is not None, "the bundled corpus should give a paper with authors"
    author = " ".join(paper.authors[0].split())
    site_page.goto("")
    slugs = result_paper_slugs(header_search(site_page.page, author), limit=10)
    assert paper.slug in slugs, f"searching the author {author!r} should list papers/{paper.slug}/ in the first 10 results; got {slugs}"


def test_header_search_by_keyword_finds_its_papers(site_page, papers, probe):
    assert probe.keywords, f"papers/{probe.slug}/ should have keywords after enrichment"
    keyword = probe.keywords[0]
    by_slug = {p.slug: p for p in papers}
    site_page.goto("")
    slugs = [s for s in result_paper_slugs(header_search(site_page.page, keyword), limit=10) if s]
    assert slugs, f"searching the keyword {keyword!r} should list papers"
    tagged = [s for s in slugs if keyword in by_slug[s].keywords]
    assert tagged, f"the first results for the keyword {keyword!r} should include papers tagged with it; got {slugs}"
