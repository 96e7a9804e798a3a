"""Header search on an index in shards (generator/site/search_index.py): a query loads the shards its
words need, shows results before the abstracts are in, and ranks as one index would.

Runs on the small site of search_corpus.py.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from search_corpus import search_site, shards_needed  # noqa: F401 (fixture)
from site_ui import (HEADER_SEARCH_INPUT, HEADER_SEARCH_TOGGLE, count_worker_questions, enter_query, header_search_settled,
                     paper_slug_of, result_hrefs)

pytestmark = pytest.mark.browser


@pytest.fixture
def desk(page_factory, search_site):  # noqa: F811
    return page_factory(search_site, viewport={"width": 1280, "height": 900})


def _papers(results) -> list[str]:
    return [s for s in map(paper_slug_of, result_hrefs(results)) if s]


def _shards_asked(requests: list[str], index: str) -> list[str]:
    return [url.rsplit("/", 1)[1] for url in requests if f"/assets/papersite/search/{index}-" in url]


def test_a_query_loads_the_shards_of_its_words(desk, search_site):  # noqa: F811
    asked: list[str] = []
    desk.page.on("request", lambda request: asked.append(request.url))
    desk.goto("")
    _, results = header_search_settled(desk.page, "graph safety")
    assert _papers(results)[0] == "graph-control", "the paper holding both words (in two shards) comes first"
    for index in ("index", "abstracts"):
        needed, _ = shards_needed(search_site.root, index, ["graph", "safety"])
        shards = [name for name in _shards_asked(asked, index) if name != f"{index}-shards.json.gz"]
        assert set(shards) == needed, (index, shards)


def test_first_results_are_shown_while_the_abstracts_still_load(desk):
    page, held, release = desk.page, [], []

    def hold(route):  # noqa: ANN001
        if release:
            route.continue_()
        else:
            held.append(route)

    page.route("**/assets/papersite/search/abstracts-*.json.gz", hold)
    desk.goto("")
    page.locator(HEADER_SEARCH_INPUT).first.fill("graph safety")
    page.wait_for_function("() => { const l = document.querySelector('[data-ps-search-results]');"
                           " return l && l.getAttribute('data-ps-state') === 'partial' && l.children.length > 0; }")
    meta = page.locator("[data-ps-search-meta]").inner_text()
    assert "searching the abstracts too" in meta, meta
    partial = _papers(page.locator(".md-search-result__item"))
    assert {"graph-control", "safety-layers", "graph-partitioning"} <= set(partial), partial
    for _ in range(200):  # the abstracts are asked for once the first results are drawn
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the abstracts' shards were never asked for"
    page.wait_for_timeout(300)
    state = page.locator("[data-ps-search-results]").get_attribute("data-ps-state")
    assert state == "partial" and _papers(page.locator(".md-search-result__item")) == partial, "the first results stay"

    release.append(True)
    for route in held:
        route.continue_()
    meta, results = header_search_settled(page, "graph safety")
    assert _papers(results)[0] == "graph-control", "with the abstracts in, the paper with both words comes first"
    assert meta.startswith("1 paper matches every word"), meta


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_a_query_after_others_shows_what_it_shows_in_a_fresh_page(page_factory, search_site, width, height, tmp_path):  # noqa: F811
    """The worker keeps the shards and the postings it weighed for earlier queries (search-worker.js
    shardPart): a query typed after others, key by key, shows the same results, in the same order and
    with the same status line, as that query typed first in a page of its own."""
    query = "widget calibration"  # most papers hold one of its words: a broad query
    fresh = page_factory(search_site, viewport={"width": width, "height": height})
    fresh.goto("")
    fresh_meta, fresh_results = header_search_settled(fresh.page, query)
    expected = result_hrefs(fresh_results)

    reader = page_factory(search_site, viewport={"width": width, "height": height})
    reader.goto("")
    for earlier in ("graph safety", "calibration", "rtansformers", "widget cal"):
        header_search_settled(reader.page, earlier)
    field = reader.page.locator(HEADER_SEARCH_INPUT).first
    field.fill("")
    field.press_sequentially(query, delay=20)  # warmed and asked as a prefix at each key
    meta, results = header_search_settled(reader.page, query)
    assert len(expected) >= 10 and "widget-study-" in expected[0], expected
    assert result_hrefs(results) == expected
    assert meta == fresh_meta
    assert results.first.is_visible()
    reader.page.screenshot(path=str(tmp_path / f"after-others-{width}.png"))
    assert reader.log.page_errors == [] and fresh.log.page_errors == []


def test_a_typo_in_a_words_first_letter_is_found_in_another_shard(desk):
    desk.goto("")
    _, results = header_search_settled(desk.page, "rtansformers")
    assert _papers(results)[0] == "sparse-transformers", "one swapped pair of letters, the first one included"


def test_search_works_where_web_workers_do_not(desk):
    desk.page.add_init_script("window.Worker = undefined;")
    desk.goto("")
    meta, results = header_search_settled(desk.page, "graph safety")
    assert _papers(results)[0] == "graph-control"
    assert meta.startswith("1 paper matches every word"), meta


def test_the_first_indexs_results_stand_when_the_abstracts_cannot_load(desk):
    page = desk.page
    page.route("**/assets/papersite/search/abstracts-*.json.gz", lambda route: route.abort())
    desk.goto("")
    meta, results = header_search_settled(page, "graph safety")
    assert {"graph-control", "safety-layers", "graph-partitioning"} <= set(_papers(results)), _papers(results)
    assert "could not be loaded" not in meta, meta
    assert desk.log.page_errors == []


def _unavailable(page, query: str) -> str:
    """Type ``query`` into the header search; the status line once it says the search failed (it must, not hang)."""
    field = page.locator(HEADER_SEARCH_INPUT).first
    if not field.count():
        page.locator(HEADER_SEARCH_TOGGLE).first.click()
    field.fill(query)
    page.wait_for_function("() => /unavailable/.test((document.querySelector('[data-ps-search-meta]') || {}).textContent || '')",
                           timeout=10_000)
    return page.locator("[data-ps-search-meta]").inner_text()


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
@pytest.mark.parametrize("broken", ["worker 404", "shard 404", "shard garbled", "manifest 404"])
def test_a_search_file_that_fails_says_search_is_unavailable(page_factory, search_site, broken, width, height, tmp_path):  # noqa: F811
    """search-worker.js, an index shard or its manifest answering 404, or a shard that is not gzipped JSON:
    the header search says search is unavailable instead of "searching…" for ever."""
    desk = page_factory(search_site, viewport={"width": width, "height": height})
    page = desk.page
    if broken == "worker 404":
        def late_404(route):  # noqa: ANN001 - after the first question was handed to the worker starting
            time.sleep(1.5)
            route.fulfill(status=404, body="not found")

        page.route("**/assets/papersite/search-worker.js*", late_404)
    elif broken == "shard 404":
        page.route(re.compile(r"/assets/papersite/search/index-\d+\.json\.gz"), lambda route: route.fulfill(status=404, body="not found"))
    elif broken == "manifest 404":
        page.route("**/assets/papersite/search/index-shards.json.gz", lambda route: route.fulfill(status=404, body="not found"))
    else:
        page.route(re.compile(r"/assets/papersite/search/index-\d+\.json\.gz"), lambda route: route.fulfill(status=200, body=b"\x1f\x8b not gzip"))
    desk.goto("")
    meta = _unavailable(page, "graph safety")
    assert meta.startswith("Search is unavailable"), meta
    assert page.locator("[data-ps-search-meta]").is_visible()
    assert "searching" not in meta.lower()
    if broken == "worker 404":
        page.screenshot(path=str(tmp_path / f"unavailable-{width}.png"))
        shots = Path(__file__).resolve().parents[2] / "build" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / f"search-unavailable-{width}.png"))


def test_a_query_typed_key_by_key_asks_snippets_only_for_where_the_reader_stopped(page_factory, search_site):  # noqa: F811
    """Each key's answer is shown as it comes, but the abstracts' texts (fetched in chunks, for the snippets)
    are asked only for the query the reader stopped at: typed, a query asks for no more texts than pasted
    (at 11,672 papers each key's own ask fetched ~200 KB of chunks for lists gone before their snippets)."""
    query = "graph calibration safety"

    def texts_asked(typed: bool) -> tuple[int, object]:
        reader = page_factory(search_site, viewport={"width": 1280, "height": 900})
        count_worker_questions(reader.page, "texts")
        reader.goto("")
        enter_query(reader.page, query, 60 if typed else 0)  # 60 ms: closer than a pause, each key answered and shown
        _, results = header_search_settled(reader.page, query)
        reader.page.locator("[data-ps-search-results] .ps-snippet").first.wait_for(state="visible")
        reader.page.wait_for_timeout(400)
        assert reader.log.page_errors == []
        return reader.page.evaluate("window.psAsked"), results

    pasted, pasted_results = texts_asked(typed=False)
    typed, typed_results = texts_asked(typed=True)
    assert result_hrefs(typed_results) == result_hrefs(pasted_results)
    # (before: one ask a key, 13 here; a key a loaded machine holds back past the pause may still ask its own)
    assert 1 <= typed <= pasted + 2, (typed, pasted)
