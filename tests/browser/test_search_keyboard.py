"""Header search driven from the keyboard alone, on a desktop (1280 px) and a phone (390 px):
Enter opens the first result whatever its kind, the arrow keys select a result and Enter opens
it, Tab reaches the results, Escape closes the search and gives focus back, and every page has a
skip link to its content. Screenshots of a selected result go to the test's tmp dir."""

from __future__ import annotations

from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest

from site_ui import (HEADER_SEARCH_INPUT, SEARCH_OPEN_BUTTON, SEARCH_OPTIONS, SEARCH_SELECTED, SKIP_LINK,
                     open_header_search, option_hrefs, wait_for_search_answer)

pytestmark = pytest.mark.browser

VIEWPORTS = ["desktop", "phone"]


@pytest.fixture(params=VIEWPORTS)
def reader(request, site_page, phone_page):
    """A page at 1280 px or at 390 px (a touch phone)."""
    return site_page if request.param == "desktop" else phone_page


@pytest.fixture(scope="module")
def busiest_author(papers) -> str:
    """The name of the author with the most papers (their page is a search result of its own)."""
    counts = Counter(" ".join(name.split()) for paper in papers for name in paper.authors)
    name, count = min(counts.items(), key=lambda item: (-item[1], item[0]))
    assert count > 1, "the site should have an author of several papers"
    return name


@pytest.fixture(scope="module")
def busiest_area(papers) -> str:
    counts = Counter(paper.topic.area for paper in papers if paper.topic)
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def path_of(url: str) -> str:
    return urlsplit(url).path


def field(page):
    return page.locator(HEADER_SEARCH_INPUT).first


def type_query(page, query: str) -> None:
    """Open the search and type ``query`` key by key, as a reader does."""
    open_header_search(page)
    page.keyboard.type(query)


def test_enter_on_an_author_name_opens_the_author_page(reader, busiest_author):
    """Enter pressed as soon as the name is typed (before any answer) waits for the answer and
    opens its first result: the author's page, not one of their papers."""
    reader.goto("")
    page = reader.page
    type_query(page, busiest_author)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/authors/" in path_of(page.url), f"Enter on {busiest_author!r} opened {page.url}"
    assert " ".join(page.locator("h1").first.inner_text().split()) == busiest_author


def test_enter_opens_the_first_result_whatever_its_kind(reader, busiest_area):
    """A topic's name lists pages (topic, keyword) before papers: Enter opens the first of them."""
    reader.goto("")
    page = reader.page
    type_query(page, busiest_area)
    wait_for_search_answer(page, busiest_area)
    shown = option_hrefs(page)
    assert shown and "/papers/" not in path_of(shown[0]), f"{busiest_area!r}: the first result should be a page, got {shown[:3]}"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == shown[0]


def test_arrow_keys_select_a_result_and_enter_opens_it(reader, busiest_author, tmp_path):
    reader.goto("")
    page = reader.page
    type_query(page, busiest_author)
    wait_for_search_answer(page, busiest_author)
    options = page.locator(SEARCH_OPTIONS)
    assert options.count() >= 3
    assert page.locator(SEARCH_SELECTED).count() == 0, "nothing is selected before an arrow key"
    for _ in range(2):
        page.keyboard.press("ArrowDown")
    second = options.nth(1)
    assert second.get_attribute("aria-selected") == "true" and page.locator(SEARCH_SELECTED).count() == 1
    assert field(page).get_attribute("aria-activedescendant") == second.get_attribute("id")
    assert page.evaluate("document.activeElement.getAttribute('role')") == "combobox", "typing goes on in the field"
    # the selection is seen: the selected row is tinted unlike its neighbours, and in view. The tint fades
    # in (a .25 s transition) whose first frame a loaded machine may not have drawn yet: read where it ends
    page.evaluate("document.getAnimations().forEach(a => a.finish())")
    backgrounds = [options.nth(i).evaluate("a => getComputedStyle(a).backgroundColor") for i in range(3)]
    assert backgrounds[1] != backgrounds[0] and backgrounds[1] != backgrounds[2], backgrounds
    assert second.is_visible() and second.bounding_box()["y"] < page.viewport_size["height"]
    page.screenshot(path=str(tmp_path / f"selected-{page.viewport_size['width']}.png"))
    page.keyboard.press("ArrowUp")
    assert options.nth(0).get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowDown")
    target = second.get_attribute("href")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == target


def test_arrow_up_from_the_field_selects_all_results_and_enter_opens_explore(reader, busiest_area):
    reader.goto("")
    page = reader.page
    type_query(page, busiest_area)
    wait_for_search_answer(page, busiest_area)
    last = page.locator(SEARCH_OPTIONS).last
    assert "explore" in path_of(last.get_attribute("href")), "a query of many papers ends with a link to all of them"
    page.keyboard.press("ArrowUp")
    assert last.get_attribute("aria-selected") == "true"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert path_of(page.url).endswith("/explore/") and parse_qs(urlsplit(page.url).query)["q"] == [busiest_area]


def test_tab_reaches_the_results(reader, busiest_author):
    reader.goto("")
    page = reader.page
    type_query(page, busiest_author)
    wait_for_search_answer(page, busiest_author)
    shown = option_hrefs(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.href") == shown[0], "Tab from the field goes to the first result"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.href") == shown[1]
    assert page.locator(SEARCH_OPTIONS).nth(1).is_visible()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == shown[1]


def test_escape_closes_the_search_and_gives_focus_back(reader, busiest_author):
    reader.goto("")
    page = reader.page
    phone = page.viewport_size["width"] < 600
    if phone:  # a keyboard reader on a phone-sized window reaches the search button by Tab
        button = page.locator(SEARCH_OPEN_BUTTON)
        button.focus()
        page.keyboard.press("Enter")
        field(page).wait_for(state="visible")
        assert page.evaluate("document.activeElement.getAttribute('role')") == "combobox"
        page.keyboard.type(busiest_author)
    else:
        type_query(page, busiest_author)
    wait_for_search_answer(page, busiest_author)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    # the results are out of sight: the point where the first one was shows something else
    page.wait_for_function("""() => { const o = document.querySelector('[data-ps-search-results] [role=option]');
        const r = o.getBoundingClientRect(), at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return !r.width || !r.height || !at || !o.contains(at); }""")
    assert not page.locator("#__search").is_checked()
    focused = page.evaluate("document.activeElement.hasAttribute('data-ps-search-open') ? 'button' : document.activeElement.getAttribute('role')")
    assert focused == ("button" if phone else "combobox"), f"focus after Escape is on {focused!r}"
    assert page.locator(SEARCH_SELECTED).count() == 0


@pytest.mark.parametrize("kind", ["", "papers/", "explore/", "stats/", "about/", "author", "paper"])
def test_skip_link_is_the_first_stop_and_skips_the_header(reader, site_dir, kind):
    if kind in ("author", "paper"):  # a generated detail page (ps-detail.html)
        section = "authors" if kind == "author" else "papers"
        kind = f"{section}/" + next(d.name for d in sorted((site_dir / section).iterdir()) if (d / "index.html").is_file()) + "/"
    reader.goto(kind)
    page = reader.page
    page.keyboard.press("Tab")
    skip = page.locator(SKIP_LINK)
    assert skip.count() == 1, f"{kind or '/'}: {skip.count()} skip links"
    assert page.evaluate("document.activeElement.classList.contains('md-skip')"), f"{kind or '/'}: the first Tab stop is not the skip link"
    # Material fades the focused skip link in (a CSS transition): wait until it is fully shown
    page.wait_for_function("() => getComputedStyle(document.querySelector('.md-skip')).opacity === '1'", timeout=5000)
    box = skip.bounding_box()
    assert box and box["width"] > 20 and box["y"] >= 0
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    where = page.evaluate("document.activeElement.closest('header, .md-tabs, .md-sidebar') ? 'chrome' : "
                          "(document.activeElement.closest('.md-content, .ps-page') ? 'content' : document.activeElement.tagName)")
    assert where == "content", f"{kind or '/'}: after the skip link, Tab goes to {where!r}"
