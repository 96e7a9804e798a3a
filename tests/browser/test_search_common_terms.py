"""Header search where the abstracts' common terms are shipped as their papers only (search_index.py
COMMON_PAPERS): the results a reader sees, and their order, are those of the full postings.

The bundled site has no term in 2,500 abstracts, so its abstracts shards are made again here with the
line at 12 papers and put in a copy of the site; the same queries are then typed into both.
"""

from __future__ import annotations

import json
import gzip
import shutil

import pytest

from conftest import serve
from site_ui import (HEADER_SEARCH_RESULT, count_worker_questions, enter_query, header_search_settled, result_paper_slugs,
                     wait_for_search_answer)

pytestmark = pytest.mark.browser

COMMON_LINE = 12  # papers: most content words of the bundled abstracts are over it


@pytest.fixture(scope="module")
def common_site(tmp_path_factory, site_project, site_dir):
    from generator.catalog import build_catalog
    from generator.config import load_config
    from generator.site import search
    from generator.site.stage import read_records

    copy = tmp_path_factory.mktemp("common") / "site"
    shutil.copytree(site_dir, copy)
    records, _ = read_records(load_config(site_project))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "COMMON_PAPERS", COMMON_LINE)
        files = search.search_files(build_catalog(records))
    shards = copy / search.SHARDS_DIR
    for old in shards.glob("abstracts-*"):
        old.unlink()
    membership = 0
    for name, data in files.items():
        if name.startswith(search.SHARDS_DIR + "/abstracts-"):
            (copy / name).write_bytes(data)
            if not name.endswith("shards.json.gz"):
                membership += sum(1 for t in json.loads(gzip.decompress(data))["terms"] if t[2] and t[2][0] == 0)
    assert membership > 100, "the line should make many terms common"
    return serve(copy)


QUERIES = ["learning models", "language model reasoning", "training data", "efficient neural networks",
           "large language models", "diffusion", "reinforcement learning policy"]


def test_common_terms_as_membership_show_the_same_results_in_the_same_order(page_factory, site, common_site):
    full = page_factory(site, viewport={"width": 1280, "height": 900})
    common = page_factory(common_site, viewport={"width": 1280, "height": 900})
    texts: list[str] = []
    common.page.on("request", lambda request: texts.append(request.url) if "/search/texts-" in request.url else None)
    full.goto("")
    common.goto("")
    for query in QUERIES:
        meta, results = header_search_settled(full.page, query)
        common_meta, common_results = header_search_settled(common.page, query)
        shown = result_paper_slugs(results)
        assert len([s for s in shown if s]) >= 5, f"{query!r}: the full index should show papers; got {shown}"
        assert result_paper_slugs(common_results) == shown, f"{query!r}: the order should be the full index's"
        assert common_meta == meta, f"{query!r}: the same count of papers"
    assert texts, "the undecided papers' weights come from their texts"


def test_a_query_typed_key_by_key_reads_common_weights_only_where_the_reader_paused(page_factory, common_site):
    """Typed key by key, each key's answer is shown in the order by what is known, and the texts that settle
    the order of the papers a common term leaves undecided are asked for only once the reader pauses
    (papersite-header.js TYPING_PAUSE_MS): at 100k papers each key's own ask fetched ~250 KB of chunks of a
    title typed at 200 ms a key. A pasted query asks at once. Both end in the same results."""
    query = "large language models"

    def asked(key_ms: int) -> tuple[int, list]:
        reader = page_factory(common_site, viewport={"width": 1280, "height": 900})
        count_worker_questions(reader.page, "exact")
        reader.goto("")
        enter_query(reader.page, query, key_ms)
        wait_for_search_answer(reader.page, query)
        shown = result_paper_slugs(reader.page.locator(HEADER_SEARCH_RESULT))
        reader.page.wait_for_timeout(400)
        assert reader.log.page_errors == []
        return reader.page.evaluate("window.psAsked"), shown

    pasted_asks, pasted = asked(0)
    typed_asks, typed = asked(200)  # closer than a pause, yet each key is answered
    assert typed == pasted and len([s for s in pasted if s]) >= 5, (typed, pasted)
    assert pasted_asks == 1, "the query's undecided papers are read once"
    # (before: one ask for each key whose answer left papers undecided, 7 here; a key a loaded machine holds
    # back past the pause may still ask its own)
    assert 1 <= typed_asks <= 3, typed_asks
