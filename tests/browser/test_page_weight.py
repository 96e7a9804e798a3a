"""Minified pages (postbuild.minify_page) read and work as the theme wrote them: a reader with
scripts and one without, at 1280 and 390 px, on a paper page and the author page it links to."""

from __future__ import annotations

import re

import pytest

from site_ui import citation_shown, header_search

pytestmark = pytest.mark.browser

WIDTHS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
FORMATS = {"BibTeX": ("#ps-bibtex", "@"), "RIS": ("#ps-ris", "TY  - "), "Plain text": ("#ps-text", "")}
TABS = ("Home", "Papers", "Topics", "Keywords", "Authors", "Explore", "Stats", "About")


@pytest.fixture(scope="module")
def paper(papers):
    """A paper with three or more authors and an abstract (the first by slug)."""
    return next(p for p in sorted(papers, key=lambda p: p.slug) if len(p.authors) >= 3 and p.abstract)


def _shown_links(page) -> list[str]:  # noqa: ANN001
    return page.locator("main a[href]:visible, nav a[href]:visible").evaluate_all("as => as.map(a => a.textContent.trim())")


@pytest.mark.parametrize("width", WIDTHS)
def test_without_scripts_every_link_is_there_and_no_empty_section(page_factory, site, paper, width, tmp_path):
    plain = page_factory(site, java_script_enabled=False, **WIDTHS[width])
    plain.goto(f"papers/{paper.slug}/")
    page = plain.page
    title = " ".join(paper.title.split())
    assert " ".join(page.locator("main h1").inner_text().split()).startswith(title[:40])
    links = _shown_links(page)
    # the header and tabs come with the shared chrome script (site/chrome.py); a link home named
    # after the site stands where the header stood, and the breadcrumbs stay
    assert not page.locator("header, .md-tabs, label[for=__search]").count(), "header, tabs or a search button without scripts"
    home = page.locator("noscript a.ps-homebar")
    assert home.is_visible() and home.inner_text() and home.get_attribute("href") == "../.."
    assert page.locator(".ps-crumbs a", has_text="Papers").is_visible()
    for name in paper.authors:
        assert " ".join(name.split()) in links, f"no link to the author page of {name!r}"
    # the citations and related papers are drawn by papersite.js (the citation and related shards): without
    # it, no heading over nothing (a reference manager reads the page's Scholar tags)
    assert not page.locator("#cite").is_visible() and not page.locator(".ps-cite summary").count()
    assert not page.locator("#related").count()
    assert page.locator('meta[name="citation_title"]').get_attribute("content") == title

    with page.expect_navigation():
        page.locator(".ps-authors a").first.click()
    assert page.locator("main h1").inner_text().strip() == " ".join(paper.authors[0].split())
    # the author's papers link their pages; the co-authors are drawn by papersite.js: no empty section
    assert title[:40] in page.locator("main").inner_text()
    assert not page.locator("#coauthors").count() and not page.get_by_text("Co-authors").count()
    page.screenshot(path=str(tmp_path / f"author-no-scripts-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_each_citation_opens_shows_its_text_and_copies(page_factory, site, site_project, paper, width, tmp_path):
    from generator.config import load_config
    from generator.site.render import cite

    config = load_config(site_project)
    venue = cite.venue_of(paper, cite.Venue.from_settings(config.venue, config.site_name))
    written = {"BibTeX": cite.bibtex(paper, venue), "RIS": cite.ris(paper, venue), "Plain text": cite.citation_line(paper, venue)}
    scripted = page_factory(site, **WIDTHS[width])
    scripted.goto(f"papers/{paper.slug}/")
    page = scripted.page
    for label, (selector, start) in FORMATS.items():
        shown = citation_shown(page, selector, label)
        assert shown.startswith(start) and shown.strip()
        assert shown.strip() == written[label].strip(), f"{label}: the page shows {shown[:80]!r}, cite.py writes {written[label][:80]!r}"
        page.evaluate("navigator.clipboard.writeText('')")
        page.get_by_role("button", name=f"Copy {label}").click()
        page.wait_for_function("async () => (await navigator.clipboard.readText()).length > 0", timeout=5_000)
        assert page.evaluate("navigator.clipboard.readText()").strip() == shown.strip(), label
    # the chrome still works: the header's search finds the paper by its title
    results = header_search(page, " ".join(paper.title.split()))
    assert " ".join(paper.title.split())[:40] in results.first.inner_text()
    page.screenshot(path=str(tmp_path / f"paper-{width}.png"))


@pytest.mark.parametrize("width", WIDTHS)
def test_detail_pages_load_no_script_of_materials_and_still_do_what_it_did(page_factory, site, paper, width):
    """templates/partials/ps-light.html: the generated detail pages leave out Material's script and
    what only it reads; papersite.js does what it did there. A section page keeps it."""
    scripted = page_factory(site, **WIDTHS[width])
    page = scripted.page
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    scripted.goto("papers/")
    page.wait_for_load_state("networkidle")
    assert any("/assets/javascripts/bundle." in url for url in asked), "a section page loads Material's script"
    for path in (f"papers/{paper.slug}/", None):  # the paper page, then its first author's
        asked.clear()
        if path:
            scripted.goto(path)
        else:
            with page.expect_navigation():
                page.locator(".ps-authors a").first.click()
        page.wait_for_load_state("networkidle")
        where = page.url
        assert not [url for url in asked if "/assets/javascripts/" in url or url.endswith("/scope.js")], (where, asked)
        assert not page.locator("#__drawer, [data-md-component], #__config, .md-dialog").count(), where
        assert page.evaluate("document.documentElement.className") == "js", where  # the header search shows with it
        assert page.locator("[data-ps-search-input]").count() == 1, where

        # the header's shadow once the page is scrolled, none at the top
        shadow = "document.querySelector('.md-header').classList.contains('md-header--shadow')"
        assert not page.evaluate(shadow), where
        if page.evaluate("document.documentElement.scrollHeight - innerHeight") > 200:  # (a short author page does not scroll)
            page.evaluate("window.scrollTo(0, 200)")
            page.wait_for_function(shadow, timeout=5_000)
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_function(f"!({shadow})", timeout=5_000)
        else:
            assert path is None, "the paper page scrolls"

        # a keyboard's focus ring on the header's links and buttons (Material's CSS draws it on ".focus-visible" only)
        logo = page.locator(".md-header .md-header__button:visible").first  # the logo, on a phone the search button
        logo.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        assert logo.evaluate("el => el === document.activeElement"), where
        assert "focus-visible" in (logo.get_attribute("class") or "") and logo.evaluate("a => getComputedStyle(a).outlineStyle") != "none", where
        page.mouse.click(5, 400)
        assert "focus-visible" not in (logo.get_attribute("class") or ""), where

    # on the paper page: folded citations open for printing and close again; a citation wider than its box is reachable by Tab
    scripted.goto(f"papers/{paper.slug}/")
    page.wait_for_load_state("networkidle")
    folded = "document.querySelectorAll('article details:not([open])').length"
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = false)")
    before = page.evaluate(folded)
    assert before >= 1
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate(folded) == 0
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.evaluate(folded) == before
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    bibtex = page.locator("#ps-bibtex")
    assert bibtex.get_attribute("tabindex") is None, "a citation that wraps does not scroll: nothing for Tab to reach"
    bibtex.evaluate("code => { code.style.whiteSpace = 'pre'; code.parentElement.style.width = '12rem'; }")  # now it scrolls
    page.wait_for_function("document.getElementById('ps-bibtex').getAttribute('tabindex') === '0'", timeout=5_000)
    assert not scripted.log.page_errors and not scripted.log.console_errors, scripted.log
