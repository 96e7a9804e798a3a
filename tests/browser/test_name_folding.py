"""A name typed with another spelling of the same letters finds it: the browser folds as the build did.

The All papers list matches what is typed against each item's text folded by the build
(``generator/text.py`` fold) and its title folded in the browser (``papersite-core.js``); the two
folds once differed on "ß" (Python: "ss", the browser: "ß"), so "Weiß" found no "Weiss".
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from conftest import _fail_on_error, papersite, serve
from site_ui import header_search_settled, result_hrefs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: site_fixtures

from generator.pages.record import PaperRecord, SourceRef, Topic  # noqa: E402
from site_fixtures import write_project  # noqa: E402

pytestmark = pytest.mark.browser

TOPIC = Topic("Deep Learning", None, "listing")


def _paper(slug: str, title: str, authors: list[str]) -> PaperRecord:
    return PaperRecord(id=hashlib.sha1(slug.encode()).hexdigest()[:12], slug=slug, title=title, abstract="An abstract.",
                       sources=[SourceRef("test.jsonl", len(slug), "jsonl")], authors=authors, topic=TOPIC, keywords=["folding"])


@pytest.fixture(scope="module")
def folding_site(tmp_path_factory: pytest.TempPathFactory):
    records = [
        _paper("weiss-flows", "Normalising Flows Revisited", ["Hans Weiss"]),
        _paper("strasse-maps", "Maps of the Große Straße", ["Ana Lopes"]),
        _paper("ligature-finds", "Efficient Search", ["Zoë Dvořák"]),
        _paper("other-paper", "Something Else Entirely", ["Bo Chen"]),
    ]
    project = write_project(tmp_path_factory.mktemp("folding") / "project", records, site_name="Folding test")
    _fail_on_error(papersite("--project", str(project), "build", "--no-import", "--quiet"), "papersite build of the folding site")
    return serve(project / "site")


def _shown(page) -> set[str]:
    hrefs = page.locator("#ps-all-papers > li:not([hidden]) > a").evaluate_all("links => links.map(a => a.href)")
    return {h.rstrip("/").rsplit("/", 1)[-1] for h in hrefs}


@pytest.mark.parametrize("typed, found", [
    ("Weiß", {"weiss-flows"}),          # ß folds to ss, as the build folded "Weiss"
    ("WEISS", {"weiss-flows"}),
    ("strasse", {"strasse-maps"}),      # in a title, folded in the browser
    ("ＧＲＯＳＳＥ", {"strasse-maps"}),  # full-width letters
    ("zoe dvorak", {"ligature-finds"}),  # accents
    ("ﬁcient", {"ligature-finds"}),     # a ligature
])
def test_the_all_papers_filter_finds_a_name_typed_in_another_spelling(page_factory, folding_site, typed, found):
    visit = page_factory(folding_site, viewport={"width": 1280, "height": 900})
    visit.goto("papers/")
    page = visit.page
    page.wait_for_function("() => window.papersite && window.papersite.lists")
    assert len(_shown(page)) == 4
    page.locator("main [data-ps-filter]").fill(typed)
    page.wait_for_function("n => document.querySelectorAll('#ps-all-papers > li:not([hidden])').length === n", arg=len(found))
    assert _shown(page) == found, typed


def test_explore_takes_an_author_typed_in_another_spelling_for_that_author(page_factory, folding_site):
    visit = page_factory(folding_site, viewport={"width": 1280, "height": 900})
    visit.goto("explore/?author=Wei%C3%9F")
    page = visit.page
    page.wait_for_function(
        "() => { const c = document.querySelector('[data-ps-explore-count]');"
        " return c && !c.hasAttribute('aria-busy') && !/loading/i.test(c.textContent); }"
    )
    assert page.locator("[data-ps-explore-count]").inner_text().startswith("1 paper")
    assert "weiss-flows" in page.locator("[data-ps-explore-results] a").first.get_attribute("href")
    assert page.locator("#ps-venue").is_hidden(), "no venue filter where no paper has a venue of its own"


@pytest.mark.parametrize("typed", ["Weiß", "weiss"])
def test_header_search_finds_a_name_typed_in_another_spelling(page_factory, folding_site, typed):
    # the index holds "Weiss" as typed and folded; the worker asks for "Weiß" as typed and folded
    visit = page_factory(folding_site, viewport={"width": 1280, "height": 900})
    visit.goto("")
    _, results = header_search_settled(visit.page, typed)
    assert any("/papers/weiss-flows/" in h for h in result_hrefs(results)), typed
