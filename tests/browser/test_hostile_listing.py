"""A listing full of markup and template syntax stays text on every page that shows it."""

from __future__ import annotations

import json

import pytest

from conftest import build_project, new_project, serve
from playwright.sync_api import expect
from site_ui import header_search, paper_slug_of

pytestmark = pytest.mark.browser

# Every payload that runs sets window.__pwned; the page starts with it undefined.
HOSTILE = [
    {
        "title": "<script>window.__pwned='title-script'</script>Scripted Title Paper",
        "authors": ["<b>Mallory</b> Bold", "Eve <img src=x onerror=\"window.__pwned='author-img'\">"],
        "abstract": "We study <img src=x onerror=\"window.__pwned='abstract-img'\"> images and "
                    "<a href=\"javascript:window.__pwned='abstract-href'\">a javascript link</a> and "
                    "[markdown link](javascript:window.__pwned='md-link') in diffusion models. "
                    "<svg onload=\"window.__pwned='svg'\"></svg> <iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
        "decision": "Accept (Poster)",
        "openreview_url": "https://openreview.net/forum?id=hostile1",
    },
    {
        "title": "{{ 7*7 }} Templated {% if true %}Jinja{% endif %} Title",
        "authors": ["Tom {{ config.site_name }} Plate"],
        "abstract": "Template syntax {{ config }} and {% raw %}raw{% endraw %} with **bold** and _emphasis_ and "
                    "![image](x\" onerror=\"window.__pwned='md-image') and <style>body{display:none}</style> "
                    "and a math-looking $<img src=x onerror=\"window.__pwned='math-img'\">$ span.",
        "decision": "Reject",
        "openreview_url": "https://openreview.net/forum?id=hostile2",
    },
    {
        "title": "<img src=x onerror=\"window.__pwned='title-img'\"> Image Title About Transformers",
        "authors": ["Alice Normal"],
        "abstract": "A plain abstract about transformers, attention and language models, "
                    "ending with ]]> --> </textarea></title><script>window.__pwned='breakout'</script>.",
        "decision": "Accept (Oral)",
        "openreview_url": "https://openreview.net/forum?id=hostile3",
    },
    {
        "title": "A Perfectly Ordinary Paper on Graph Neural Networks",
        "authors": ["Bob Ordinary", "Alice Normal"],
        "abstract": "Graph neural networks learn on graphs. We propose a simple message passing method.",
        "decision": "Accept (Poster)",
        "openreview_url": "https://openreview.net/forum?id=ordinary",
    },
]

# A link field that is not a web URL: the import must not turn it into a page the build rejects.
HOSTILE_LINK = {
    "title": "A Paper Whose OpenReview Link Is Hostile",
    "authors": ["Carol Link"],
    "abstract": "An ordinary abstract about reinforcement learning and planning.",
    "decision": "Reject",
    "openreview_url": "javascript:window.__pwned='openreview-url'",
}

LITERAL_TITLES = {
    "Scripted Title Paper": "<script>window.__pwned='title-script'</script>Scripted Title Paper",
    "Templated": "{{ 7*7 }} Templated {% if true %}Jinja{% endif %} Title",
    "Image Title": "<img src=x onerror=\"window.__pwned='title-img'\"> Image Title About Transformers",
}


def _hostile_project(tmp_path_factory, records: list[dict]):
    from conftest import _build_command_missing

    missing = _build_command_missing()
    if missing:
        pytest.skip(missing)
    project = new_project(tmp_path_factory.mktemp("hostile") / "project")
    with (project / "corpus" / "hostile.jsonl").open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
    return project


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    project = _hostile_project(tmp_path_factory, HOSTILE)
    site_dir = build_project(project)
    from generator.config import load_config
    from generator.pages.record import read_page

    pages = [read_page(p) for p in sorted(load_config(project).papers_dir.glob("*.md"))]
    return serve(site_dir), pages


def _watch(site_page):
    """Record (and dismiss) every dialog a payload might open."""
    page = site_page.page
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def _assert_not_run(site_page, where: str, dialogs) -> None:
    page = site_page.page
    pwned = page.evaluate("() => window.__pwned")
    assert pwned is None, f"{where}: hostile listing text ran as code (window.__pwned = {pwned!r})"
    assert not dialogs, f"{where}: hostile listing text opened dialogs {dialogs}"
    js_links = page.locator("a[href^='javascript:' i], [src^='javascript:' i]").count()
    assert js_links == 0, f"{where}: {js_links} javascript: URL(s) became links/sources"
    handlers = page.evaluate(
        "() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => /^on/i.test(a.name)).map(a => e.tagName + ' ' + a.name + '=' + a.value))"
        ".filter(s => s.includes('__pwned'))"
    )
    assert not handlers, f"{where}: listing text became event-handler attributes: {handlers[:5]}"


def _by_title(pages) -> dict:
    return {" ".join(p.title.split()): p for p in pages}


def test_hostile_titles_show_literally_on_paper_pages_and_never_run(page_factory, hostile_site):
    local, pages = hostile_site
    by_title = _by_title(pages)
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    page = visit.page
    for marker, literal in LITERAL_TITLES.items():
        paper = next((p for t, p in by_title.items() if marker in t), None)
        assert paper is not None, f"the import should keep a page for the title {literal!r}; titles: {list(by_title)}"
        assert " ".join(paper.title.split()) == literal, "the stored title should be the listing's text exactly"
        visit.goto(f"papers/{paper.slug}/")
        page.wait_for_load_state("networkidle")
        _assert_not_run(visit, f"papers/{paper.slug}/", dialogs)
        heading = " ".join(page.locator("main h1").first.inner_text().split())
        assert literal in heading, f"papers/{paper.slug}/: heading shows {heading!r}, expected the text {literal!r}"
        assert "49 Templated" not in page.locator("main").inner_text(), f"papers/{paper.slug}/: template syntax ran"


def test_hostile_abstracts_and_authors_show_literally(page_factory, hostile_site):
    local, pages = hostile_site
    by_title = _by_title(pages)
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    page = visit.page

    shown_as_text = {
        "Scripted Title Paper": ("<img src=x onerror=", "<a href=\"javascript:", "[markdown link](javascript:", "<svg onload=",
                                 "<b>Mallory</b> Bold"),
        # **bold** is the abstracts' own markup (render/mathml.py): shown bold, its marks gone
        "Templated": ("{{ config }}", "{% raw %}raw{% endraw %}", "with bold and _emphasis_", "<style>body{display:none}</style>",
                      "Tom {{ config.site_name }} Plate"),
    }
    for title_part, literals in shown_as_text.items():
        paper = next(p for t, p in by_title.items() if title_part in t)
        visit.goto(f"papers/{paper.slug}/")
        _assert_not_run(visit, f"papers/{paper.slug}/", dialogs)
        text = " ".join(page.locator("main").inner_text().split())
        for literal in literals:
            assert literal in text, f"papers/{paper.slug}/: the page should show {literal!r} as text"
    assert page.locator("main").is_visible(), "a <style> in an abstract must not hide the page"


@pytest.mark.parametrize("path", ["", "papers/", "topics/", "authors/", "keywords/", "explore/", "stats/"])
def test_hostile_listing_never_runs_on_index_pages(page_factory, hostile_site, path):
    local, _ = hostile_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    visit.goto(path)
    visit.page.wait_for_load_state("networkidle")
    _assert_not_run(visit, path or "/", dialogs)


def test_hostile_titles_in_header_search_results_stay_text(page_factory, hostile_site):
    local, _ = hostile_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    visit.goto("")
    results = header_search(visit.page, "Scripted Title Paper")
    expect(results.first).to_contain_text("<script>window.__pwned='title-script'</script>Scripted Title Paper")
    _assert_not_run(visit, "header search results", dialogs)
    shown = " ".join(results.first.inner_text().split())
    assert "<script>window.__pwned='title-script'</script>Scripted Title Paper" in shown, shown


def test_hostile_titles_in_explore_results_stay_text(page_factory, hostile_site):
    local, _ = hostile_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    visit.goto("explore/")
    visit.page.locator("main").get_by_label("Search", exact=True).fill("Image Title")
    expect(visit.page.locator("[data-ps-explore-results]")).to_contain_text("Image Title")
    _assert_not_run(visit, "explore results", dialogs)
    shown = " ".join(visit.page.locator("[data-ps-explore-results]").inner_text().split())
    assert "<img src=x onerror=\"window.__pwned='title-img'\"> Image Title" in shown, shown


def test_hostile_link_field_builds_and_never_becomes_a_link(page_factory, tmp_path_factory):
    project = _hostile_project(tmp_path_factory, [HOSTILE_LINK, HOSTILE[-1]])
    site_dir = build_project(project)  # fails the test if the build rejects what the import wrote
    from generator.config import load_config
    from generator.pages.record import read_page

    paper = next(read_page(p) for p in load_config(project).papers_dir.glob("*.md") if "Hostile" in read_page(p).title)
    visit = page_factory(serve(site_dir), viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    visit.goto(f"papers/{paper.slug}/")
    _assert_not_run(visit, f"papers/{paper.slug}/", dialogs)


# Real listings carry full-width punctuation and mathematical alphanumerics (outside the
# BMP: two UTF-16 code units in the browser). Search must load and find papers anyway.
UNICODE_LISTING = [
    {"title": "Energy Bounds for 𝐸(𝑧) in Score Models", "authors": ["Dana Unicode"],
     "abstract": "We bound the energy 𝐸(𝑧) of latent codes 𝑧 in diffusion models.",
     "decision": "Accept (Poster)", "openreview_url": "https://openreview.net/forum?id=unicode1"},
    {"title": "Full－Width Dashes in Tokenizers", "authors": ["Eli Fullwidth"],
     "abstract": "Tokenizers meet full－width punctuation （like this）, ＡＩ in full-width letters and the "
                 "ﬁ ligature of PDF text: we ﬁnd ﬁne-tuning helps, next to 𝐸 and 𝑧 as words of their own.",
     "decision": "Reject", "openreview_url": "https://openreview.net/forum?id=unicode2"},
    HOSTILE[-1],
]


def test_search_loads_with_astral_and_fullwidth_characters(page_factory, tmp_path_factory):
    project = _hostile_project(tmp_path_factory, UNICODE_LISTING)
    visit = page_factory(serve(build_project(project)), viewport={"width": 1280, "height": 900})
    visit.goto("")
    results = header_search(visit.page, "Graph Neural Networks")
    # keyword and topic pages of that name come first; the first paper result is the ordinary paper
    papers = [i for i in range(results.count()) if paper_slug_of(results.nth(i).evaluate("e => (e.querySelector('a[href]') || {}).href"))]
    assert papers, "header search should list papers"
    shown = " ".join(results.nth(papers[0]).inner_text().split())
    assert "Graph Neural Networks" in shown, f"header search should find the ordinary paper; first paper result: {shown!r}"
