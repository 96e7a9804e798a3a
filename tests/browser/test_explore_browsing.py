"""Explore as a reader browses it: every result reachable, counts beside the filters, partial names answered.

Runs on the small site of search_corpus.py (141 papers, more than one page of results).
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest

from search_corpus import search_records, search_site  # noqa: F401 (fixture)
from site_ui import horizontal_overflow, main_paper_slugs

pytestmark = pytest.mark.browser

RESULTS = "[data-ps-explore-results]"
COUNT = "[data-ps-explore-count]"
MORE = "[data-ps-explore-more]"
NOTES = "[data-ps-explore-notes]"


def _settled(page) -> str:
    """The count line once the results for what is in the form are all in."""
    page.wait_for_function(
        f"() => {{ const c = document.querySelector('{COUNT}'); return c && c.textContent && !/loading/i.test(c.textContent)"
        " && !c.hasAttribute('aria-busy'); }"
    )
    return page.locator(COUNT).inner_text()


def _control(page, label: str):
    return page.locator("main").get_by_label(label, exact=True)


@pytest.fixture
def explore(page_factory, search_site):  # noqa: F811
    def open_(query: str = "", **options):
        visit = page_factory(search_site, **(options or {"viewport": {"width": 1280, "height": 900}}))
        visit.goto("explore/" + query)
        _settled(visit.page)
        return visit.page
    return open_


def test_every_result_is_reachable_with_show_more(explore):
    page = explore("?q=widgets")
    expected = {p.slug for p in search_records() if "widget" in (p.title + " " + (p.abstract or "")).lower()}
    assert len(expected) > 100, "the fixture must hold more results than one page"
    assert _settled(page).startswith(f"{len(expected)} papers")
    first = main_paper_slugs(page, RESULTS)
    assert len(first) < len(expected), "the first page shows part of the results"
    more = page.locator(MORE)
    assert re.search(rf"{len(expected) - len(first)} not shown", more.inner_text()), more.inner_text()
    more.click()
    page.wait_for_function(f"n => document.querySelectorAll('{RESULTS} > li').length > n", arg=len(first))
    assert set(main_paper_slugs(page, RESULTS)) == expected, "after 'Show more' every result is listed"
    assert not more.is_visible(), "nothing is left to show"


def test_each_filter_value_shows_how_many_papers_it_keeps(explore):
    page = explore()
    records = search_records()
    decisions = Counter(p.decision for p in records)
    options = _control(page, "Decision").locator("option").all_inner_texts()
    for decision, n in decisions.items():
        assert f"{decision} ({n})" in options, f"the Decision filter should show {decision} ({n}); shows {options}"
    areas = Counter(p.topic.area for p in records)
    topics = [o.strip() for o in _control(page, "Topic").locator("option").all_inner_texts()]
    for area, n in areas.items():
        assert f"{area} ({n})" in topics, f"the Topic filter should show {area} ({n}); shows {topics}"
    # picking a value keeps the number it showed, and the other filters' counts follow
    _control(page, "Decision").select_option(label=f"Withdrawn ({decisions['Withdrawn']})")
    assert _settled(page).startswith(f"{decisions['Withdrawn']} paper")
    assert set(main_paper_slugs(page, RESULTS)) == {p.slug for p in records if p.decision == "Withdrawn"}
    assert "decision=Withdrawn" in page.url
    topics = [o.strip() for o in _control(page, "Topic").locator("option").all_inner_texts()]
    assert "Deep Learning (1)" in topics, f"topic counts follow the decision filter; shows {topics}"
    facet = page.locator("[data-ps-explore-facets]").inner_text()
    assert "large language models (1)" in facet, f"keywords of the results are offered with counts: {facet!r}"


def test_a_partial_keyword_says_what_it_matched_and_offers_the_names(explore):
    page = explore()
    _control(page, "Keyword").fill("distillation")
    _settled(page)
    note = page.locator(NOTES).inner_text()
    assert "No keyword is exactly \u201cdistillation\u201d" in note, note
    assert set(main_paper_slugs(page, RESULTS)) == {"compressing-teachers", "condensing-datasets"}
    assert parse_qs(urlsplit(page.url).query)["keyword"] == ["distillation"]
    page.reload(wait_until="load")
    _settled(page)
    assert set(main_paper_slugs(page, RESULTS)) == {"compressing-teachers", "condensing-datasets"}, "the URL keeps it"
    page.locator(NOTES).get_by_role("button", name="knowledge distillation (1)").click()
    _settled(page)
    assert main_paper_slugs(page, RESULTS) == ["compressing-teachers"]
    assert parse_qs(urlsplit(page.url).query)["keyword"] == ["knowledge-distillation"]
    assert not page.locator(NOTES).inner_text().strip()


def test_a_surname_finds_every_author_of_that_name_and_a_stranger_says_so(explore):
    page = explore()
    _control(page, "Author").fill("Cesari")
    _settled(page)
    assert set(main_paper_slugs(page, RESULTS)) == {"compressing-teachers", "condensing-datasets"}
    assert "Ana Cesari (1)" in page.locator(NOTES).inner_text()
    _control(page, "Author").fill("Zyxwv")
    assert _settled(page).startswith("0 papers")
    assert "No author contains \u201cZyxwv\u201d" in page.locator(NOTES).inner_text()


def test_results_mark_what_matched_and_explore_fits_a_phone(explore):
    page = explore("?q=rainfall+kernel", viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
    first = page.locator(f"{RESULTS} > li").first
    assert first.locator("a mark").all_inner_texts() == ["Kernels"]
    first.locator(".ps-snippet mark").first.wait_for(state="visible")
    wide = horizontal_overflow(page)
    assert wide["scrollWidth"] <= wide["innerWidth"], wide
