"""Sub-area, keyword and author pages: their paper lists filter and sort, and open the same set in Explore.

Also the keyword index by use and each keyword's related keywords. Runs on the site of search_corpus.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from generator.site.render.cite import order_known
from generator.text import fold
from search_corpus import search_records, search_site  # noqa: F401 (fixture)
from site_ui import horizontal_overflow, main_paper_slugs

pytestmark = pytest.mark.browser


def _visible_slugs(page) -> list[str]:
    hrefs = page.locator("#ps-list > li:not([hidden]) > a").evaluate_all("links => links.map(a => a.href)")
    return [h.rstrip("/").rsplit("/", 1)[-1] for h in hrefs]


@pytest.mark.parametrize("path, member", [
    ("keywords/calibration/", lambda p: "calibration" in p.keywords),
    ("authors/filler-author0/", lambda p: "Filler Author0" in p.authors),
    ("topics/deep-learning/graph-neural-networks/", lambda p: p.topic.subarea == "Graph Neural Networks"),
])
def test_a_list_page_filters_sorts_and_opens_in_explore(page_factory, search_site, path, member):  # noqa: F811
    visit = page_factory(search_site, viewport={"width": 1280, "height": 900})
    visit.goto(path)
    page = visit.page
    expected = sorted((p for p in search_records() if member(p)), key=lambda p: p.title.lower())
    assert len(expected) >= 10, "the fixture should give this page enough papers for controls"
    slugs = _visible_slugs(page)
    assert set(slugs) == {p.slug for p in expected}

    page.locator("main [data-ps-sort]").select_option("title-desc")
    assert _visible_slugs(page) == list(reversed(slugs)), "Title Z–A reverses the list"
    # First author: papers by their known first author, then those without one in title order (a
    # collation sorts symbols first: a stand-in such as "~" put them first). This
    # fixture's orders are all known: the first two papers by title lose theirs as the build writes that
    # (no data-first: components.first_author_data), as papers without authors have none
    unknown = [s for s in slugs if s in slugs[:2] or not next(p for p in expected if p.slug == s).authors]
    page.evaluate("slugs => document.querySelectorAll('#ps-list > li').forEach(li => {"
                  " if (slugs.some(s => li.querySelector('a').href.endsWith('/' + s + '/'))) li.removeAttribute('data-first'); })", slugs[:2])
    page.locator("main [data-ps-sort]").select_option("author")
    by_first = _visible_slugs(page)
    known = {p.slug: fold(p.authors[0]) for p in expected if p.slug not in unknown}
    assert all(order_known(p) for p in expected) and by_first[len(known):] == unknown
    assert [known[s] for s in by_first[:len(known)]] == sorted(known.values())
    page.locator("main [data-ps-filter]").fill("study 12")
    # every word typed is in the title, authors or keywords
    text = {p.slug: " ".join([p.title, *p.authors, *p.keywords]).lower() for p in expected}
    wanted = {p.slug for p in expected if "study" in text[p.slug] and "12" in text[p.slug]}
    assert wanted and set(_visible_slugs(page)) == wanted
    assert page.locator("main [data-ps-shown]").inner_text() == f"{len(wanted)} paper{'s' if len(wanted) != 1 else ''}"

    link = page.locator("main").get_by_role("link", name=f"Open these {len(expected)} papers in Explore")
    with page.expect_navigation():
        link.click()
    page.wait_for_function(
        "() => { const c = document.querySelector('[data-ps-explore-count]');"
        " return c && !c.hasAttribute('aria-busy') && !/loading/i.test(c.textContent); }"
    )
    assert page.locator("[data-ps-explore-count]").inner_text().startswith(f"{len(expected)} papers")
    more = page.locator("[data-ps-explore-more]")
    while more.is_visible():
        shown = page.locator("[data-ps-explore-results] > li").count()
        more.click()
        page.wait_for_function("n => document.querySelectorAll('[data-ps-explore-results] > li').length > n", arg=shown)
    assert set(main_paper_slugs(page, "[data-ps-explore-results]")) == {p.slug for p in expected}


def test_keyword_index_lists_the_most_used_first_and_a_keyword_page_its_related_keywords(page_factory, search_site):  # noqa: F811
    visit = page_factory(search_site, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    visit.goto("keywords/")
    page = visit.page
    uses = Counter(k for p in search_records() for k in p.keywords)
    ranked = page.locator("main .ps-ranked > li > a").all_inner_texts()
    assert ranked[:2] == [k for k, _ in sorted(uses.items(), key=lambda kv: (-kv[1], kv[0]))[:2]], ranked[:5]
    assert page.locator("main #a-to-z").count() == 1, "the A to Z list is still there"
    wide = horizontal_overflow(page)
    assert wide["scrollWidth"] <= wide["innerWidth"], wide

    visit.goto("keywords/large-language-models/")
    related = page.locator("main #related + p + ul > li > a").all_inner_texts()
    together = Counter(k for p in search_records() if "large language models" in p.keywords for k in p.keywords)
    del together["large language models"]
    assert sorted(related) == sorted(together), f"related keywords are those on its papers: {related}"


def test_a_keyword_page_filters_on_its_own_keyword_held_once_by_the_list(page_factory, search_site):  # noqa: F811
    """Every paper of a keyword page carries its keyword: the list holds its words once
    (components.paper_list ``common``), and the filter matches them on every item as before."""
    visit = page_factory(search_site, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    visit.goto("keywords/calibration/")
    page = visit.page
    expected = [p for p in search_records() if "calibration" in p.keywords]
    assert page.locator("#ps-list").get_attribute("data-text") == "calibration"
    assert not page.locator("#ps-list > li[data-text='calibration'], #ps-list > li[data-text$=' calibration']").count()
    page.locator("main [data-ps-filter]").fill("CALIBR")
    assert set(_visible_slugs(page)) == {p.slug for p in expected}
    word = sorted(expected, key=lambda p: p.slug)[0].authors[0].split()[-1]  # an author's name narrows it
    page.locator("main [data-ps-filter]").fill(f"calibration {word}")
    text = {p.slug: " ".join([p.title, *p.authors, *p.keywords]).lower() for p in expected}
    wanted = {p.slug for p in expected if word.lower() in text[p.slug]}
    assert wanted and set(_visible_slugs(page)) == wanted and len(wanted) < len(expected)


@pytest.mark.parametrize("width", [1280, 390])
def test_an_item_shows_its_title_and_save_button_over_its_line(page_factory, search_site, width):  # noqa: F811
    """A list item is written lean (no <br>, no </li>, its separator plain text: components.item_meta):
    its line still starts under its title, the Save button sits after the title, and every item is its
    list's own child, as the HTML parser ends one item at the next."""
    visit = page_factory(search_site, viewport={"width": width, "height": 900})
    visit.goto("keywords/calibration/")
    page = visit.page
    page.wait_for_selector("#ps-list > li button[data-ps-save]")
    items = page.locator("#ps-list > li")
    assert items.count() == len([p for p in search_records() if "calibration" in p.keywords])
    for i in range(3):
        item = items.nth(i)
        title, line, save = item.locator("> a"), item.locator("> .ps-meta"), item.locator("button[data-ps-save]")
        title_box, save_box = title.bounding_box(), save.bounding_box()
        # where the line's first letter is drawn (the span itself starts where its drawn line break does)
        line_top = line.evaluate("""el => { const text = document.createTreeWalker(el, NodeFilter.SHOW_TEXT).nextNode();
            const range = document.createRange(); range.setStart(text, 0); range.setEnd(text, 1);
            return range.getBoundingClientRect().top; }""")
        assert line_top >= title_box["y"] + title_box["height"] - 1, "the line starts under the title"
        assert save_box["y"] < line_top and save_box["x"] > title_box["x"], "Save after the title, before the line"
        assert " · " in line.inner_text() and line.locator("li, ul").count() == 0
