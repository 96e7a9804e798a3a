"""Header search on a large site (the store's head says ``answer_at_pauses``, search.py KEYS_ANSWERED_UP_TO): a
query typed key by key is answered where the reader pauses, fetching what the same query pasted fetches, and
ends on the same results; Enter does not wait for the pause.

Runs on a copy of search_corpus.py's small site whose head says so, as a site of more papers would.
"""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from conftest import serve
from search_corpus import search_site  # noqa: F401 (fixture)
from site_ui import (HEADER_SEARCH_INPUT, enter_query, header_search_settled, open_header_search, paper_slug_of, result_hrefs,
                     wait_for_search_answer)

pytestmark = pytest.mark.browser

HEAD = "assets/papersite/search/head.json.gz"
SEARCH_FILES = "/assets/papersite/search/"
# the text each list the header shows answers, and when each key came (ms)
_RECORD_LISTS = """() => {
  window.shownLists = []; window.keyTimes = [];
  document.addEventListener('input', () => window.keyTimes.push(performance.now()), true);
  new MutationObserver(() => {
    const l = document.querySelector('[data-ps-search-results]');
    if (l && l.hasAttribute('data-ps-query')) window.shownLists.push(l.getAttribute('data-ps-query'));
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-ps-query']});
}"""


@pytest.fixture(scope="module")
def large_site(search_site, tmp_path_factory):  # noqa: F811
    """The search site, its head saying what a head says above KEYS_ANSWERED_UP_TO papers."""
    root = tmp_path_factory.mktemp("at-pauses") / "site"
    shutil.copytree(search_site.root, root)
    head = json.loads(gzip.decompress((root / HEAD).read_bytes()))
    assert head["answer_at_pauses"] is False, "a small site answers each key"
    head["answer_at_pauses"] = True
    (root / HEAD).write_bytes(gzip.compress(json.dumps(head).encode()))
    return serve(root)


def _typed(page, query: str, key_ms: int) -> None:
    """``query`` typed key by key at the end of the header's field, opened first where it is not focused."""
    if not page.evaluate("() => !!document.activeElement && document.activeElement.matches('[data-ps-search-input]')"):
        open_header_search(page)
    enter_query(page, query, key_ms)


# A key this late after the one before is a pause of the reader's (papersite-header.js SHORTEST_PAUSE_MS: 120)
STALL_MS = 100


def _typed_without_stalls(page_factory, site, viewport: dict, parts: list[str], key_ms: int):  # noqa: ANN001, ANN202
    """A fresh page where each of ``parts`` was typed key by key, ``key_ms`` apart, and its answer settled, and the
    URLs it fetched. A machine busy enough to hold a key ``STALL_MS`` makes a pause the reader did not make: the
    page is tried again then (three pages at most)."""
    for _ in range(3):
        reader, asked = page_factory(site, viewport=viewport), []
        reader.page.on("request", lambda request, asked=asked: asked.append(request.url))
        reader.goto("")
        reader.page.evaluate(_RECORD_LISTS)
        text, stalled = "", False
        for part in parts:
            before = reader.page.evaluate("() => window.keyTimes.length")
            _typed(reader.page, part, key_ms)
            times = reader.page.evaluate("() => window.keyTimes")[before:]
            stalled = stalled or any(later - earlier >= STALL_MS for earlier, later in zip(times, times[1:]))
            text += part
            _settled(reader.page, text)
        if not stalled:
            return reader, asked
    pytest.fail(f"keys held {STALL_MS} ms or more on three pages: the machine is too busy for this test")


def _settled(page, query: str):
    wait_for_search_answer(page, query)
    page.wait_for_timeout(400)  # what the list asks once drawn (the snippets' texts) is its cost too
    return page.locator("[data-ps-search-meta]").inner_text(), page.locator(".md-search-result__item")


def _search_files(urls: list[str]) -> set[str]:
    return {url.split(SEARCH_FILES, 1)[1] for url in urls if SEARCH_FILES in url}


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_a_query_typed_fast_is_answered_once_where_the_reader_stops(page_factory, large_site, width, height, tmp_path):
    query = "widget calibration"
    pasted = page_factory(large_site, viewport={"width": width, "height": height})
    pasted_asked: list[str] = []
    pasted.page.on("request", lambda request: pasted_asked.append(request.url))
    pasted.goto("")
    pasted_meta, pasted_results = header_search_settled(pasted.page, query)
    pasted.page.wait_for_timeout(400)

    typed, typed_asked = _typed_without_stalls(page_factory, large_site, {"width": width, "height": height}, [query], 40)
    meta, results = _settled(typed.page, query)

    assert set(typed.page.evaluate("() => window.shownLists")) == {query}, "no list for a text the reader typed on from"
    assert result_hrefs(results) == result_hrefs(pasted_results) and meta == pasted_meta
    assert paper_slug_of(result_hrefs(results)[0])
    extra = _search_files(typed_asked) - _search_files(pasted_asked)
    assert not extra, f"typed, it fetched what the pasted query did not: {sorted(extra)}"
    assert any(name.startswith("index-") and name != "index-shards.json.gz" for name in _search_files(typed_asked))
    assert results.first.is_visible()
    typed.page.screenshot(path=str(tmp_path / f"typed-{width}.png"))
    assert typed.log.page_errors == [] and pasted.log.page_errors == []


def test_a_reader_who_pauses_between_keys_sees_an_answer_at_each_pause(page_factory, large_site):
    reader, _ = _typed_without_stalls(page_factory, large_site, {"width": 1280, "height": 900}, ["graph", " saf"], 30)
    meta, results = _settled(reader.page, "graph saf")
    assert set(reader.page.evaluate("() => window.shownLists")) == {"graph", "graph saf"}
    assert "graph-control" in [paper_slug_of(href) for href in result_hrefs(results)], "the word being typed as a prefix"
    assert reader.log.page_errors == []


def test_enter_right_after_the_last_key_opens_the_first_result_of_the_whole_query(page_factory, large_site):
    reader = page_factory(large_site, viewport={"width": 1280, "height": 900})
    reader.goto("")
    header_search_settled(reader.page, "graph safety")
    first = result_hrefs(reader.page.locator(".md-search-result__item"))[0]
    field = reader.page.locator(HEADER_SEARCH_INPUT).first
    field.fill("")
    reader.page.wait_for_timeout(300)
    field.press_sequentially("graph safety", delay=30)
    with reader.page.expect_navigation():
        field.press("Enter")
    assert reader.page.url == first
    assert reader.log.page_errors == []


def test_a_text_filled_in_whole_is_answered_at_once_and_a_key_only_after_the_pause(page_factory, large_site):
    """With the page's clock stopped, no pause ever ends: a text that came whole (a paste, a phone's suggested word,
    a field filled in) is answered all the same, over a text there before; a key typed after it is not."""
    reader = page_factory(large_site, viewport={"width": 1280, "height": 900})
    reader.goto("")
    header_search_settled(reader.page, "widget calibration")  # longer than the text filled in over it
    reader.page.clock.install()
    reader.page.clock.pause_at(reader.page.evaluate("() => Date.now()") + 1000)
    field = reader.page.locator(HEADER_SEARCH_INPUT).first
    field.fill("graph safety")
    reader.page.wait_for_function("() => document.querySelector('[data-ps-search-results]').getAttribute('data-ps-query')"
                                  " === 'graph safety'", polling=50)
    field.press("s")
    reader.page.wait_for_timeout(500)  # (the page's own clock stands still; this one does not)
    assert reader.page.locator("[data-ps-search-results]").get_attribute("data-ps-query") == "graph safety"
    reader.page.clock.run_for(300)
    reader.page.wait_for_function("() => document.querySelector('[data-ps-search-results]').getAttribute('data-ps-query')"
                                  " === 'graph safetys'", polling=50)
    assert reader.log.page_errors == []
