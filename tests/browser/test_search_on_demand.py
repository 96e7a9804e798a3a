"""The search code and data load on first use (papersite.js ps.searchCode), and a query fetches only
the index shards its words need (search-worker.js, generator/site/search_index.py).

Requests are counted, never timed. Runs on the small site of search_corpus.py.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from search_corpus import search_site, shards_needed  # noqa: F401 (fixture)
from site_ui import HEADER_SEARCH_INPUT, header_search_settled, paper_slug_of, result_hrefs

pytestmark = pytest.mark.browser

# what a page must not fetch before anyone searches: the search code, lunr, its worker, any index or store
SEARCH_CODE = ("papersite-core.js", "papersite-engine.js", "papersite-ranking.js", "papersite-results.js",
               "lunr.js", "search-worker.js")


def _names(urls: list[str]) -> list[str]:
    return [urlsplit(url).path.rsplit("/", 1)[-1] for url in urls]


def _search_fetches(urls: list[str]) -> list[str]:
    return [name for name in _names(urls) if name in SEARCH_CODE or name.startswith("search") or "/search/" in name]


def _watched(site_page) -> list[str]:
    asked: list[str] = []
    site_page.page.on("request", lambda request: asked.append(request.url))
    return asked


@pytest.mark.parametrize("width", [1280, 390])
def test_a_page_fetches_no_search_code_until_the_reader_uses_search(page_factory, search_site, width):  # noqa: F811
    desk = page_factory(search_site, viewport={"width": width, "height": 900})
    asked = _watched(desk)
    desk.goto("")
    desk.page.wait_for_timeout(1500)  # idle callbacks have run: nothing of search may come now either
    assert not [n for n in _names(asked) if n in SEARCH_CODE], _names(asked)
    assert not [u for u in asked if "/assets/papersite/search" in u], _names(asked)
    assert "papersite-header.js" in _names(asked), "the header's box is filled at once"

    _, results = header_search_settled(desk.page, "graph safety")
    assert paper_slug_of(result_hrefs(results)[0]) == "graph-control"
    assert {"papersite-engine.js", "papersite-ranking.js", "lunr.js", "search-worker.js"} <= set(_names(asked))


def test_focusing_the_search_box_starts_loading_before_a_word_is_typed(page_factory, search_site):  # noqa: F811
    desk = page_factory(search_site, viewport={"width": 1280, "height": 900})
    asked = _watched(desk)
    desk.goto("")
    desk.page.locator(HEADER_SEARCH_INPUT).first.focus()
    desk.page.wait_for_function("() => !!(window.papersite && window.papersite.engine)")
    assert "papersite-engine.js" in _names(asked)


def test_explore_loads_the_search_code_itself(page_factory, search_site):  # noqa: F811
    desk = page_factory(search_site, viewport={"width": 1280, "height": 900})
    asked = _watched(desk)
    desk.goto("explore/?q=graph+safety")
    # the abstracts answer last: then the paper with both words (one in its abstract) comes first
    desk.page.wait_for_function("() => { const a = document.querySelector('[data-ps-explore-results] li a');"
                                " return a && /graph-control/.test(a.getAttribute('href')); }")
    assert "papersite-engine.js" in _names(asked) and "papersite-explore.js" in _names(asked)


def test_a_query_fetches_only_the_shards_its_words_are_in(page_factory, search_site):  # noqa: F811
    desk = page_factory(search_site, viewport={"width": 1280, "height": 900})
    asked = _watched(desk)
    desk.goto("")
    _, results = header_search_settled(desk.page, "partitioning")
    assert paper_slug_of(result_hrefs(results)[0]) == "graph-partitioning"
    desk.page.wait_for_timeout(1000)  # no shard is fetched afterwards for words nobody typed
    fetched, counts = {}, {}
    for index in ("index", "abstracts"):
        needed, counts[index] = shards_needed(search_site.root, index, ["partitioning"])
        fetched[index] = {n for n in _names(asked) if n.startswith(index + "-") and n != f"{index}-shards.json.gz"}
        assert fetched[index] == needed, (index, sorted(fetched[index]), sorted(needed))
    # (this small site's abstracts fit in one shard; its titles, authors and keywords do not)
    assert len(fetched["index"]) < counts["index"], f"all {counts['index']} shards of the index were fetched"
