"""The search code and data load on first use (papersite.js ps.searchCode), and a query fetches only
the index shards its words need (search-worker.js, generator/site/search_index.py).

Requests are counted, never timed. Runs on the small site of search_corpus.py.
"""

from __future__ import annotations

import gzip
import json
import re
from urllib.parse import urlsplit

import pytest

from search_corpus import search_records, search_site, shards_needed  # noqa: F401 (fixture)
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
    # what every query reads first: the manifests of the first index (its worker) and of the store's tables
    manifests = {f"{name}-shards.json.gz" for name in ("index", "titles", "typed", "names")}
    for _ in range(200):  # (the worker's request: not in the page's resource timing)
        if "index-shards.json.gz" in _names(asked):
            break
        desk.page.wait_for_timeout(50)
    desk.page.wait_for_function("() => ['titles', 'typed', 'names'].every(t => performance.getEntriesByType('resource')"
                                ".some(e => e.name.endsWith('/' + t + '-shards.json.gz') && e.responseEnd > 0))")
    assert manifests <= set(_names(asked)), sorted(_names(asked))
    assert not [n for n in _names(asked) if n.split("-")[0] in ("index", "titles", "typed", "names", "rows")
                and n not in manifests], "a shard fetched before any word was typed"


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


def _data_files(asked: list[str]) -> list[str]:
    """The search data files fetched (not the scripts): the indexes' shards, the store's pieces, the texts."""
    return [u for u in asked if "/assets/papersite/search" in u and u.endswith(".json.gz")]


def _table_shards(root, table: str, keys: list[str], prefix: bool = False) -> set[str]:
    """The files of a store table (search.py store_pieces) these keys are looked up in, by the build's rule."""
    from generator.site import search
    from generator.site.search_index import shard_of, shards_of_prefix

    starts = json.loads(gzip.decompress((root / search.SHARDS_DIR / f"{table}-shards.json.gz").read_bytes()))["starts"]
    numbers = {n for key in keys for n in (shards_of_prefix(key, starts) if prefix else [shard_of(key, starts)])}
    return {f"{table}-{n}.json.gz" for n in numbers} | {f"{table}-shards.json.gz"}


def _fetched(names: list[str], table: str) -> set[str]:
    return {n for n in names if n.startswith(table + "-")}


@pytest.mark.parametrize("width", [1280, 390])
def test_a_first_and_a_next_query_fetch_pieces_of_the_store_never_the_whole(page_factory, search_site, width):  # noqa: F811
    from generator.site import search

    root = search_site.root
    desk = page_factory(search_site, viewport={"width": width, "height": 900})
    asked = _watched(desk)
    desk.goto("")
    # a known item: its exact title finds it first
    title = "Weather Prediction with Kernels"
    _, results = header_search_settled(desk.page, title)
    assert paper_slug_of(result_hrefs(results)[0]) == "weather-kernels"
    assert results.first.is_visible()
    first = _names(_data_files(asked))
    assert "search-docs.json.gz" not in _names(asked), "the whole store is Explore's, not a query's"
    assert "head.json.gz" in first
    rows = _fetched(first, "rows")
    shown = len([h for h in result_hrefs(results) if paper_slug_of(h)])
    # the rows of the papers shown and of the ten most likely to be, asked before the answer (likelyRows)
    assert 1 <= len(rows) <= max(shown, 10), (rows, shown)
    assert len(rows) < -(-len(search_records()) // search.ROW_CHUNK), "every rows file was fetched"
    words = [w for w in title.lower().split()]
    assert _fetched(first, "titles") == _table_shards(root, "titles", [search.exact_title_key(title)])
    assert _fetched(first, "typed") == _table_shards(root, "typed", words)
    assert _fetched(first, "names") == _table_shards(root, "names", ["prediction"], prefix=True)  # its longest word

    # an author's name: the author's page first, then the author's paper before the decoy whose abstract names them
    _, results = header_search_settled(desk.page, "Angel Reyero Lobo")
    hrefs = result_hrefs(results)
    assert urlsplit(hrefs[0]).path.endswith("/authors/angel-reyero-lobo/"), hrefs[:3]
    papers = [s for s in map(paper_slug_of, hrefs) if s]
    assert papers.index("weather-kernels") < papers.index("spectral-clustering")
    assert results.first.is_visible()
    every = _names(_data_files(asked))
    assert len(set(every)) == len(every), "a file fetched twice: what the first query fetched is kept"
    assert "search-docs.json.gz" not in _names(asked)
    assert _fetched(every, "names") == _table_shards(root, "names", ["prediction"], prefix=True) | _table_shards(root, "names", ["reyero"], prefix=True)
    # counted, not timed: the store's pieces both queries fetched, against all of them (on this small site
    # each table is one shard, so what is left is mostly the rows of papers not shown)
    pieces = [n for n in every if n.split("-")[0] in ("head.json.gz", "rows", "titles", "typed", "names")]
    stored = [f for f in (root / search.SHARDS_DIR).iterdir() if f.name.split("-")[0] in ("head.json.gz", "rows", "titles", "typed", "names")]
    fetched_bytes = sum((root / search.SHARDS_DIR / n).stat().st_size for n in pieces)
    assert len(pieces) < len(stored) and fetched_bytes < sum(f.stat().st_size for f in stored), (fetched_bytes, pieces)


def _rows_file_of(root, slug: str) -> str:
    """The rows file (search.py store_pieces) holding this paper's row."""
    from generator.site import search

    for path in sorted((root / search.SHARDS_DIR).glob("rows-*.json.gz")):
        papers = json.loads(gzip.decompress(path.read_bytes()))["papers"]
        if any(row[search.STORE_COLUMNS.index("slug")] == slug for row in papers):
            return path.name
    raise AssertionError(f"no rows file holds {slug}")


def test_a_next_query_asks_for_its_likely_rows_before_the_index_answers(page_factory, search_site):  # noqa: F811
    """The rows of the papers holding the query's words as typed are asked beside the index shards: while every
    index shard the query needs is held unanswered, the rows file of its paper is requested; nothing fetched
    for the first query is fetched again. (Order of requests, not time.)"""
    root = search_site.root
    desk = page_factory(search_site, viewport={"width": 1280, "height": 900})
    asked = _watched(desk)
    query = "study 42 widget"  # not a title: its paper is the only one holding all three words
    # a first query that leaves an index shard of the next one unfetched (the cuts follow the index's terms)
    needed, _ = shards_needed(root, "index", query.split())
    opening = next((words for words in ("graph control", "sparse transformers", "weather kernels", "reward model")
                    if not needed <= shards_needed(root, "index", words.split())[0]), None)
    assert opening, f"every first query fetches all of {sorted(needed)}: this test shows nothing"
    desk.goto("")
    header_search_settled(desk.page, opening)
    first = set(_names(_data_files(asked)))
    wanted = _rows_file_of(root, "widget-study-042")
    assert wanted not in first, "the next query's paper must need a rows file the first query did not fetch"

    held = []
    index_shard = re.compile(r"/search/index-\d+\.json\.gz$")
    desk.page.context.route(index_shard, lambda route: held.append(route))
    field = desk.page.locator(HEADER_SEARCH_INPUT).first
    with desk.page.expect_request(lambda request: request.url.endswith("/" + wanted)):
        field.fill(query)
    # The rows are asked beside the shards, so they may go out just before them (2 runs in 12 at load 5):
    # wait for the shards' requests too; while they are held, the index cannot have answered.
    for _ in range(400):
        if held:
            break
        desk.page.wait_for_timeout(25)
    assert held, "the query's index shards were fetched before this page asked for them: nothing was held"
    assert desk.page.locator("[data-ps-search-results]").get_attribute("data-ps-query") != query
    desk.page.context.unroute(index_shard)
    for route in held:
        route.fallback()
    _, results = header_search_settled(desk.page, query)
    papers = [s for s in map(paper_slug_of, result_hrefs(results)) if s]
    assert papers[0] == "widget-study-042", papers
    every = _names(_data_files(asked))
    assert len(set(every)) == len(every), "a file fetched twice: what the first query fetched is kept"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_first_papers_show_while_the_rows_of_the_others_still_come(page_factory, search_site, width):  # noqa: F811
    """The paper holding every word as typed is shown as soon as the index has answered, while the rows files of
    the papers after it (which no table could name before the answer) are still held."""
    root = search_site.root
    desk = page_factory(search_site, viewport={"width": width, "height": 900})
    desk.goto("")
    wanted = _rows_file_of(root, "widget-study-042")
    held = []
    rows_file = re.compile(r"/search/rows-\d+\.json\.gz$")
    desk.page.context.route(rows_file, lambda route: route.fallback() if route.request.url.endswith("/" + wanted)
                            else held.append(route))
    query = "calibration 42 study widget"  # the other widget studies hold three of its words
    field = desk.page.locator(HEADER_SEARCH_INPUT).first
    if not field.is_visible():
        desk.page.locator("[data-ps-search-open]").first.click()
    field.fill(query)
    desk.page.wait_for_function("q => { const l = document.querySelector('[data-ps-search-results]');"
                                " return l && l.getAttribute('data-ps-query') === q && l.children.length > 0; }", arg=query)
    shown = [s for s in map(paper_slug_of, result_hrefs(desk.page.locator("#ps-search-results [role=option]"))) if s]
    assert shown and shown[0] == "widget-study-042", shown
    assert held, "the other papers' rows were all in the same file: this test shows nothing"
    assert len(shown) < 10 and desk.page.locator("#ps-search-results [role=option]").first.is_visible()
    assert desk.page.locator("[data-ps-search-results]").get_attribute("data-ps-state") == "rows"
    desk.page.context.unroute(rows_file)
    for route in held:
        route.fallback()
    _, results = header_search_settled(desk.page, query)
    papers = [s for s in map(paper_slug_of, result_hrefs(results)) if s]
    assert papers[0] == "widget-study-042" and len(papers) == 10, papers


def test_a_pasted_title_shows_its_paper_before_the_index_answers(page_factory, search_site):  # noqa: F811
    """A reader pastes a paper's title as a next query (the index is loaded): while every index shard the title
    needs is held unanswered, the paper the titles table names is shown alone, said to be the title's paper;
    the index's answer then lists it first. (Order of answers, not time.)"""
    root = search_site.root
    desk = page_factory(search_site, viewport={"width": 1280, "height": 900})
    title, slug = "Spectral Clustering Revisited", "spectral-clustering"
    needed, _ = shards_needed(root, "index", title.lower().split())
    # a word of the corpus's titles (no typo search, which reads far) whose shards are not the title's
    words = sorted({w for r in search_records() for w in r.title.lower().split() if w.isalpha() and len(w) > 3})
    opening = next((w for w in words if not needed & shards_needed(root, "index", [w])[0]), None)
    assert opening, f"every first query fetches all of {sorted(needed)}: this test shows nothing"
    desk.goto("")
    header_search_settled(desk.page, opening)

    held = []
    shard = re.compile(r"/search/(index|abstracts)-\d+\.json\.gz$")
    desk.page.context.route(shard, lambda route: held.append(route))
    desk.page.locator(HEADER_SEARCH_INPUT).first.fill(title)
    desk.page.wait_for_function("q => { const l = document.querySelector('[data-ps-search-results]');"
                                " return l && l.getAttribute('data-ps-query') === q && l.children.length > 0; }", arg=title)
    for _ in range(400):  # the shards are asked beside the title: wait until one is held
        if held:
            break
        desk.page.wait_for_timeout(25)
    assert held, "the title's index shards were fetched before: nothing was held, the answer may be the index's"
    options = desk.page.locator("#ps-search-results [role=option]")
    assert [paper_slug_of(href) for href in result_hrefs(options)] == [slug]
    assert "A paper with this title" in desk.page.locator("[data-ps-search-meta]").inner_text()
    desk.page.context.unroute(shard)
    for route in held:
        route.fallback()
    _, results = header_search_settled(desk.page, title)
    papers = [s for s in map(paper_slug_of, result_hrefs(results)) if s]
    assert papers[0] == slug, papers
