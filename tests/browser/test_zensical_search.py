"""Search really runs on a Zensical build: the reader types in the header search and on Explore.

tests/site/test_zensical_parity.py compares the files both engines publish; this drives Chromium on a
site that Zensical itself built, so a Zensical change that drops our scripts, breaks the relative
links to the index or hides the search box fails here.
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from playwright.sync_api import expect

from conftest import new_project, papersite, serve, _fail_on_error
from site_ui import header_search, main_paper_slugs, result_paper_slugs

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(importlib.util.find_spec("zensical") is None, reason="zensical is not installed"),
]

PAPERS = [
    {"title": "Tidal Gradient Flows for Sparse Molecules", "authors": ["Nadia Quill"],
     "abstract": "We propose tidal gradient flows, a generative model for sparse molecular graphs."},
    {"title": "Harbour Policies in Offline Reinforcement Learning", "authors": ["Otto Reef"],
     "abstract": "Offline reinforcement learning with harbour policies avoids distribution shift."},
    {"title": "Lantern Attention for Long Documents", "authors": ["Pia Lumen"],
     "abstract": "Lantern attention scales transformers to long documents with linear memory."},
]


@pytest.fixture(scope="module")
def zensical_site(tmp_path_factory):
    project = new_project(tmp_path_factory.mktemp("zensical-search") / "project")
    (project / "corpus" / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    _fail_on_error(papersite("--project", str(project), "build", "--engine", "zensical", "--quiet"),
                   "papersite build --engine zensical")
    from generator.config import load_config
    from generator.site.stage import read_records

    config = load_config(project)
    records, _ = read_records(config)
    assert (config.site_dir / "index.html").is_file()
    return serve(config.site_dir), {r.title: r.slug for r in records}


@pytest.mark.parametrize("title", [p["title"] for p in PAPERS])
def test_header_search_on_a_zensical_site_finds_the_paper_first(page_factory, zensical_site, title):
    local, slugs = zensical_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    visit.goto(f"papers/{slugs[title]}/")  # from a paper page: the index is found two folders up
    results = header_search(visit.page, title.split()[0])
    assert result_paper_slugs(results, limit=3)[0] == slugs[title], visit.page.url
    expect(results.first).to_contain_text(title)
    assert not visit.log.page_errors, visit.log.page_errors


def test_explore_on_a_zensical_site_answers_a_query_from_the_abstracts(page_factory, zensical_site):
    local, slugs = zensical_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    visit.goto("explore/")
    visit.page.locator("main").get_by_label("Search", exact=True).fill("distribution shift")
    count = visit.page.locator("[data-ps-explore-count]")
    expect(count).to_have_text("1 paper matches every word")
    assert main_paper_slugs(visit.page, "[data-ps-explore-results]") == [slugs[PAPERS[1]["title"]]]
    assert not visit.log.page_errors, visit.log.page_errors


def test_a_browser_without_resize_observer_gets_the_sites_own_under_zensical(page_factory, zensical_site):
    """zensical-ui's script, as Material's, fetched a ResizeObserver from unpkg.com in such a browser: now the site's."""
    from site_ui import assert_sized_by_our_resize_observer, without_resize_observer

    local, _ = zensical_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    requested = without_resize_observer(visit)
    visit.page.goto(local.url("topics/"), wait_until="networkidle")
    assert_sized_by_our_resize_observer(visit, requested)
