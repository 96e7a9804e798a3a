"""Header search as a reader judges it: what comes first, what the panel says matched, what it offers besides papers.

Runs on the small site of search_corpus.py, whose papers were written for these cases.
"""

from __future__ import annotations

import pytest

from search_corpus import search_site  # noqa: F401 (fixture)
from site_ui import header_search_settled, horizontal_overflow, paper_slug_of, result_hrefs

pytestmark = pytest.mark.browser


@pytest.fixture
def desk(page_factory, search_site):  # noqa: F811
    page = page_factory(search_site, viewport={"width": 1280, "height": 900})
    page.goto("")
    return page


def _papers(results) -> list[str]:
    return [s for s in map(paper_slug_of, result_hrefs(results)) if s]


def test_papers_matching_every_word_come_first_and_are_counted(desk):
    meta, results = header_search_settled(desk.page, "graph safety")
    slugs = _papers(results)
    # the two papers with a word twice in their title score higher on words alone
    assert slugs[0] == "graph-control", f"the one paper holding both words should be first; got {slugs}"
    assert {"graph-partitioning", "safety-layers"} <= set(slugs[1:]), f"papers with one of the words follow; got {slugs}"
    assert meta.startswith("1 paper matches every word"), f"the panel should say how many match every word; says {meta!r}"


def test_a_quoted_phrase_finds_only_papers_holding_it(desk):
    _, results = header_search_settled(desk.page, '"reward model"')
    assert _papers(results) == ["human-feedback"], "only the abstract with the words side by side holds the phrase"
    _, results = header_search_settled(desk.page, "reward model")
    assert {"human-feedback", "reward-signals"} <= set(_papers(results)), "without quotes both papers match"


def test_a_word_being_typed_matches_as_a_prefix(desk):
    _, results = header_search_settled(desk.page, "long transfo")
    assert _papers(results)[0] == "sparse-transformers"


def test_one_typo_is_tolerated_in_long_words_only(desk):
    _, results = header_search_settled(desk.page, "sparse transfromers")
    assert _papers(results)[0] == "sparse-transformers", "one swapped pair of letters in a long word still finds the paper"
    meta, results = header_search_settled(desk.page, "lnog")
    assert not _papers(results), "a four-letter word is not corrected: 'lnog' is not 'long'"
    assert "no paper mentions \u201clnog\u201d" in meta.lower(), meta


def test_an_author_name_finds_the_author_page_then_their_paper(desk):
    # the decoy's abstract holds all three words of the name; the author's own paper must still come first
    _, results = header_search_settled(desk.page, "Angel Reyero Lobo")
    hrefs = result_hrefs(results)
    assert hrefs[0].endswith("/authors/angel-reyero-lobo/"), f"the author's page should be the first result; got {hrefs[:3]}"
    papers = _papers(results)
    assert papers[:2] == ["weather-kernels", "spectral-clustering"], f"title/author match above abstract-only match; got {papers}"
    assert "Author" in results.first.inner_text()


def test_keyword_and_topic_pages_are_offered(desk):
    _, results = header_search_settled(desk.page, "knowledge distillation")
    assert result_hrefs(results)[0].endswith("/keywords/knowledge-distillation/")
    _, results = header_search_settled(desk.page, "graph neural networks")
    hrefs = result_hrefs(results)
    assert any(h.endswith("/topics/deep-learning/graph-neural-networks/") for h in hrefs[:3]), hrefs[:4]
    assert any(h.endswith("/keywords/graph-neural-networks/") for h in hrefs[:3]), hrefs[:4]


def test_matched_words_are_highlighted_in_the_title_and_a_snippet(desk):
    page = desk.page
    _, results = header_search_settled(page, "kernel rainfall")
    first = results.first
    assert first.locator("h1 mark").all_inner_texts() == ["Kernels"], "the title's matched word is marked"
    snippet = first.locator(".ps-snippet")
    snippet.wait_for(state="visible")
    assert "rainfall" in [t.lower() for t in snippet.locator("mark").all_inner_texts()]
    assert "Kernel regression for rainfall" in snippet.inner_text()


def test_no_paper_mentions_a_word_that_matches_nothing(desk):
    meta, results = header_search_settled(desk.page, "graph jailbreak")
    assert "no paper mentions \u201cjailbreak\u201d" in meta, meta
    assert "graph-control" in _papers(results), "the other word's papers are still listed"


def test_listing_text_in_results_stays_text(desk):
    page = desk.page
    _, results = header_search_settled(page, "hostile widgets")
    page.locator(".ps-snippet").first.wait_for(state="visible")
    panel = page.locator("[data-ps-search-results]")
    assert panel.locator("img, script, b, i").count() == 0, "no element of the listing's markup is created"
    assert "<img src=x" in results.first.inner_text()
    assert page.evaluate("() => window.__pwned") is None


def test_phone_header_search_ranks_the_same_and_fits(page_factory, search_site):  # noqa: F811
    phone = page_factory(search_site, viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
    phone.goto("")
    meta, results = header_search_settled(phone.page, "graph safety")
    assert _papers(results)[0] == "graph-control"
    assert results.first.is_visible()
    wide = horizontal_overflow(phone.page)
    assert wide["scrollWidth"] <= wide["innerWidth"], wide


def test_a_listing_title_the_venue_replaced_still_finds_the_paper_whose_authors_name_no_first_author(desk):
    meta, results = header_search_settled(desk.page, "quadrimensional novel view")
    assert _papers(results)[0] == "quadrimensional-view-synthesis", "the title a listing gave is still searchable"
    first = results.first.inner_text()
    assert "Controlling Space and Time with Cascades" in first, "the result shows the venue's title"
    assert "(alphabetical order)" in first and "et al." not in first, f"no first author is named: {first!r}"
