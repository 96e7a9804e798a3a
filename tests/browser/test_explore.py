"""The Explore page: full-text query plus topic and keyword filters, kept in the URL."""

from __future__ import annotations

import pytest

from site_ui import main_paper_slugs

pytestmark = pytest.mark.browser

QUERY = "diffusion"
RESULTS = "[data-ps-explore-results]"
COUNT = "[data-ps-explore-count]"
MORE = "[data-ps-explore-more]"


def _query_box(page):
    return page.locator("main").get_by_label("Search", exact=True)


def _mark_shown(page) -> None:
    """Mark the results on screen, so that _results waits for the list the next action shows."""
    page.evaluate(f"() => document.querySelectorAll('{RESULTS} li').forEach(li => li.dataset.psSeen = '1')")


def _results(page) -> list[str]:
    """The results once the page has finished answering: a new list (none marked) and a final count."""
    page.wait_for_function(
        f"() => {{ const c = document.querySelector('{COUNT}'); return c && c.textContent && !/loading/i.test(c.textContent)"
        " && !c.hasAttribute('aria-busy')"
        f" && !document.querySelector('{RESULTS} li[data-ps-seen]'); }}"
    )
    more = page.locator(MORE)
    while more.is_visible():  # every result is reachable: draw them all
        shown = page.locator(f"{RESULTS} > li").count()
        more.click()
        page.wait_for_function(f"n => document.querySelectorAll('{RESULTS} > li').length > n", arg=shown)
    return main_paper_slugs(page, RESULTS)


def _choose(page, kind: str, value: str) -> None:
    """Pick ``value`` in the filter labelled ``kind`` (a select, or a text box with suggestions)."""
    control = page.locator("main").get_by_label(kind, exact=True)
    tag = control.evaluate("e => e.tagName.toLowerCase()")
    if tag == "select":
        options = control.locator("option").all_inner_texts()
        label = next((o for o in options if o.strip().lower().startswith(value.lower())), None)
        assert label, f"the {kind} filter should offer {value!r}; it offers {options[:15]}"
        control.select_option(label=label)
    else:
        control.fill(value)


@pytest.fixture(scope="module")
def target(papers):
    """A paper about diffusion with a topic and keywords: the filters the test picks are its own."""
    for paper in sorted(papers, key=lambda p: p.slug):
        text = f"{paper.title} {paper.abstract or ''}".lower()
        if QUERY in paper.title.lower() and paper.topic and paper.keywords and QUERY in text:
            return paper
    pytest.fail("the bundled corpus should give a diffusion paper with a topic and keywords")


def test_query_topic_and_keyword_narrow_results_and_survive_reload(site_page, papers, target):
    page = site_page.page
    by_slug = {p.slug: p for p in papers}
    site_page.goto("explore/")
    _mark_shown(page)
    _query_box(page).fill(QUERY)
    after_query = _results(page)
    assert after_query, f"explore/: the query {QUERY!r} should show papers"

    _mark_shown(page)
    _choose(page, "Topic", target.topic.area)
    after_topic = _results(page)
    _mark_shown(page)
    _choose(page, "Keyword", target.keywords[0])
    after_keyword = _results(page)

    assert target.slug in after_keyword, f"papers/{target.slug}/ matches query, topic and keyword and should stay"
    assert len(after_query) >= len(after_topic) >= len(after_keyword)
    assert len(after_keyword) < len(after_query), (
        f"filters should narrow the results: {len(after_query)} after the query, {len(after_topic)} after topic "
        f"{target.topic.area!r}, {len(after_keyword)} after keyword {target.keywords[0]!r}"
    )
    for slug in after_keyword:
        paper = by_slug[slug]
        assert paper.topic and paper.topic.area == target.topic.area, f"{slug} is not in {target.topic.area!r}"
        assert target.keywords[0] in paper.keywords, f"{slug} lacks the keyword {target.keywords[0]!r}"

    url = page.url
    assert QUERY in url, f"the query should be in the URL to share it; URL is {url}"
    page.reload(wait_until="load")
    assert page.url == url
    assert _query_box(page).input_value() == QUERY, "reloading should keep the query in the search box"
    topic = page.locator("main").get_by_label("Topic", exact=True)
    shown_topic = topic.evaluate("s => s.selectedOptions.length ? s.selectedOptions[0].textContent : s.value")
    assert shown_topic.strip().startswith(target.topic.area), f"reloading should keep the topic filter; shows {shown_topic!r}"
    shown_keyword = page.locator("main").get_by_label("Keyword", exact=True).input_value()
    assert shown_keyword.strip().lower() == target.keywords[0].lower(), f"reloading should keep the keyword; shows {shown_keyword!r}"
    assert _results(page) == after_keyword, "reloading the URL should show the same results"

    fresh = page.context.new_page()
    fresh.goto(url, wait_until="load")
    assert _results(fresh) == after_keyword, "opening the shared URL should show the same results"
