"""Saved papers, their downloads, and Explore's sort, decision values and downloads, as a reader uses them.

Save on a paper page and beside a paper in a list, reload, open the Saved page from the navigation,
download BibTeX, RIS and CSV (parsed: one entry per paper, the paper pages' own citations), reopen
the list from its link; Explore's sort orders, its "No decision" value and a filtered download; the
decision filter of topic and keyword lists. At 1280 px and at 390 px.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from generator.catalog import paper_sort_key
from generator.pages.decisions import KEY_ORDER, read_decision
from site_fixtures import html_attributes
from site_ui import main_paper_slugs

pytestmark = pytest.mark.browser

VIEWPORTS = ["site_page", "phone_page"]  # 1280 px and 390 px (conftest.py)
SAVED = "saved/"
RESULTS = "[data-ps-explore-results]"
COUNT = "[data-ps-explore-count]"
SHOTS = Path(os.environ.get("PAPERSITE_SCREENSHOTS", "build/screenshots"))


@pytest.fixture(params=VIEWPORTS)
def reader(request):
    return request.getfixturevalue(request.param)


def _save_button(page):
    return page.locator("main .ps-paper > button[data-ps-save]")


def _saved_items(page) -> list[str]:
    page.wait_for_function("() => { const c = document.querySelector('[data-ps-saved-count]');"
                           " return c && !/Loading/.test(c.textContent); }")
    return main_paper_slugs(page, "[data-ps-saved-list]")


def _download(page, fmt: str) -> tuple[str, str]:
    """Click the download button of ``fmt`` (BibTeX, RIS or CSV): the file's name and its text."""
    with page.expect_download() as info:
        page.locator("[data-ps-export]").get_by_role("button", name=fmt, exact=True).click()
    download = info.value
    return download.suggested_filename, Path(download.path()).read_bytes().decode("utf-8")


def _decisions(html: str) -> list[str]:
    """The decision each item of a list page's paper list carries (what its filter matches)."""
    return [value for tag, name, value in html_attributes(html) if tag == "li" and name == "data-decision"]


def _list_with_decisions(site_dir: Path, section: str) -> str:
    """A list page of ``section`` with the list controls and at least two kinds of decision (else skip)."""
    for index in sorted(site_dir.glob(f"{section}/**/index.html")):
        html = index.read_text(encoding="utf-8")
        if "data-ps-decision" in html and len(set(_decisions(html))) > 1:
            return index.parent.relative_to(site_dir).as_posix() + "/"
    pytest.skip(f"no {section} page of this site has a list with two kinds of decision")


@pytest.fixture(scope="module")
def two_papers(papers, site_dir):
    """A paper to save on its own page, and another to save from a topic list it is in."""
    for sub in sorted(site_dir.glob("topics/*/*/index.html")):
        slugs = [value.split("/")[4] for tag, name, value in html_attributes(sub.read_text(encoding="utf-8"))
                 if tag == "a" and name == "href" and value.startswith("../../../papers/")]
        if len(slugs) >= 2:
            return slugs[0], slugs[1], sub.parent.relative_to(site_dir).as_posix() + "/"
    pytest.skip("no sub-area page lists two papers")


def test_save_reload_saved_page_and_downloads(reader, two_papers, papers):
    page = reader.page
    first, second, topic_path = two_papers
    by_slug = {p.slug: p for p in papers}

    reader.goto(f"papers/{first}/")
    button = _save_button(page)
    button.wait_for(state="visible")
    assert button.inner_text() == "Save" and button.get_attribute("aria-pressed") == "false"
    button.click()
    assert button.inner_text() == "Saved" and button.get_attribute("aria-pressed") == "true"

    reader.goto(topic_path)
    beside = page.locator(f'main li:has(a[href$="papers/{second}/"]) button[data-ps-save]')
    beside.wait_for(state="visible")
    assert by_slug[second].title.split()[0] in beside.get_attribute("aria-label"), "each list button names its paper"
    beside.click()
    assert beside.get_attribute("aria-pressed") == "true"
    already = page.locator(f'main li:has(a[href$="papers/{first}/"]) button[data-ps-save]')
    assert already.get_attribute("aria-pressed") == "true", "a list shows a paper saved on its page as saved"

    reader.goto(f"papers/{first}/")
    page.reload(wait_until="load")
    assert _save_button(page).inner_text() == "Saved", "a saved paper stays saved after a reload"

    nav = page.locator("nav a", has_text=re.compile(r"^\s*Saved\s*$"))
    assert nav.count(), "the navigation links to the Saved page"
    href = nav.first.evaluate("a => a.href")
    assert href.rstrip("/").endswith("/saved")
    page.goto(href, wait_until="load")
    assert _saved_items(page) == [first, second], "the Saved page lists the saved papers in the order they were saved"
    count = page.locator("[data-ps-saved-count]").inner_text()
    assert "2 papers" in count, count

    name, bib = _download(page, "BibTeX")
    assert name.endswith("-saved.bib"), name
    entries = re.findall(r"^@\w+\{", bib, flags=re.M)
    assert len(entries) == 2, bib
    name, ris = _download(page, "RIS")
    assert name.endswith(".ris") and ris.count("TY  - ") == 2 and ris.count("ER  - ") == 2, ris
    name, text = _download(page, "CSV")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert name.endswith(".csv") and len(rows) == 2
    assert [r["title"] for r in rows] == [" ".join(by_slug[s].title.split()) for s in (first, second)]
    assert all(r["bibtex_key"] in bib for r in rows), "the CSV names each paper's BibTeX key"
    shot = SHOTS / f"saved-{'phone' if page.viewport_size['width'] < 500 else 'desktop'}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)

    # the same citations as the paper pages
    for slug in (first, second):
        page.goto(reader.site.url(f"papers/{slug}/"), wait_until="load")
        own_bib = page.locator(".ps-cite code").nth(0).text_content().strip()
        own_ris = page.locator(".ps-cite code").nth(1).text_content().strip()
        assert own_bib in bib, f"papers/{slug}/: the downloaded BibTeX differs from the page's"
        assert own_ris in ris, f"papers/{slug}/: the downloaded RIS differs from the page's"


def test_a_link_reopens_the_list_elsewhere_and_saves_it(reader, two_papers, browser, site):
    page = reader.page
    first, second, _ = two_papers
    reader.goto(f"papers/{first}/")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [_storage_key(page), f'["{second}", "{first}"]'])
    reader.goto(SAVED)
    assert _saved_items(page) == [second, first]
    link = page.locator("[data-ps-list-link]").get_attribute("href")
    assert link and "papers=" in link

    other = browser.new_context(viewport=page.viewport_size)  # another reader: nothing saved
    try:
        fresh = other.new_page()
        fresh.goto(link, wait_until="load")
        assert _saved_items(fresh) == [second, first], "the link opens the same papers in the same order"
        assert "opened from a link" in fresh.locator("[data-ps-saved-shared]").inner_text()
        fresh.get_by_role("button", name=re.compile(r"^Save all 2 papers$")).click()
        fresh.goto(site.url(SAVED), wait_until="load")
        assert _saved_items(fresh) == [second, first], "saving a shared list keeps its papers"
    finally:
        other.close()


def _storage_key(page) -> str:
    return page.evaluate("() => 'papersite:saved:' + window.papersite.root.pathname")


@pytest.mark.parametrize("stored", ["{not json", '{"a": 1}', '"papers"', '[5, null, {"x": 1}, "<img src=x onerror=alert(1)>"]'])
def test_a_corrupt_or_foreign_stored_value_breaks_nothing(site_page, two_papers, stored):
    page = site_page.page
    first, _, _ = two_papers
    site_page.goto(f"papers/{first}/")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [_storage_key(page), stored])
    site_page.goto(SAVED)
    _saved_items(page)
    assert not page.locator("main img").count(), "a stored string is shown as text, never as markup"
    site_page.goto(f"papers/{first}/")
    _save_button(page).click()
    assert _save_button(page).inner_text() == "Saved"
    site_page.goto(SAVED)
    assert first in _saved_items(page)
    assert not site_page.log.page_errors, site_page.log.page_errors


def test_an_empty_saved_page_says_so(reader):
    reader.goto(SAVED)
    page = reader.page
    page.wait_for_function("() => /No saved papers/.test(document.querySelector('[data-ps-saved-count]').textContent)")
    assert not page.locator("[data-ps-export]").is_visible(), "nothing to download: no download buttons"
    assert not reader.log.page_errors


def test_without_javascript_the_saved_page_explains_and_shows_no_dead_controls(browser, site, two_papers):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site.url(SAVED), wait_until="load")
        text = page.locator("main").inner_text()
        assert "needs JavaScript" in text and "Loading" not in text
        assert not page.locator("main button:visible:not(.md-top)").count(), page.locator("main button:visible:not(.md-top)").evaluate_all("bs => bs.map(b => b.outerHTML)")
        page.goto(site.url(f"papers/{two_papers[0]}/"), wait_until="load")
        assert not page.locator("main button[data-ps-save]:visible").count(), "no Save button that cannot work"
    finally:
        context.close()


def test_saved_page_has_no_serious_axe_violation(reader, two_papers):
    from axe_playwright_python.sync_playwright import Axe

    page = reader.page
    reader.goto(f"papers/{two_papers[0]}/")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [_storage_key(page), f'["{two_papers[0]}", "{two_papers[1]}"]'])
    reader.goto(SAVED)
    _saved_items(page)
    page.wait_for_load_state("networkidle")
    bad = [v for v in Axe().run(page).response["violations"] if v.get("impact") in ("serious", "critical")]
    assert not bad, [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the Saved page is wider than the screen: {width}"


# ---------------------------------------------------------------- Explore


def _results(page) -> list[str]:
    page.wait_for_function(
        f"() => {{ const c = document.querySelector('{COUNT}'); return c && !/loading/i.test(c.textContent)"
        f" && !c.hasAttribute('aria-busy') && !document.querySelector('{RESULTS} li[data-ps-seen]'); }}")
    more = page.locator("[data-ps-explore-more]")
    while more.is_visible():
        shown = page.locator(f"{RESULTS} > li").count()
        more.click()
        page.wait_for_function(f"n => document.querySelectorAll('{RESULTS} > li').length > n", arg=shown)
    return main_paper_slugs(page, RESULTS)


def _mark(page) -> None:
    page.evaluate(f"() => document.querySelectorAll('{RESULTS} li').forEach(li => li.dataset.psSeen = '1')")


def _select(page, label: str, option_label: str) -> None:
    _mark(page)
    control = page.locator("main").get_by_label(label, exact=True)
    options = control.locator("option").all_inner_texts()
    chosen = next((o for o in options if o.startswith(option_label)), None)
    assert chosen, f"the {label} menu should offer {option_label!r}; it offers {options}"
    control.select_option(label=chosen)


def _rank(paper) -> int:
    decision = read_decision(paper.decision)
    return KEY_ORDER.index(decision.key) if decision else len(KEY_ORDER)


def test_explore_sorts_by_relevance_title_and_decision(reader, papers):
    page = reader.page
    by_slug = {p.slug: p for p in papers}
    reader.goto("explore/?q=diffusion")
    relevance = _results(page)
    assert len(relevance) > 5
    _select(page, "Sort", "Title")
    by_title = _results(page)
    assert by_title == sorted(relevance, key=lambda s: paper_sort_key(by_slug[s])), "Title A–Z sorts the same papers by title"
    assert "sort=title" in page.url
    _select(page, "Sort", "Decision")
    by_decision = _results(page)
    assert sorted(by_decision) == sorted(relevance)
    ranks = [_rank(by_slug[s]) for s in by_decision]
    assert ranks == sorted(ranks), "Decision sorts orals, spotlights, posters, then the rest, papers without one last"
    within = [s for s in by_decision if _rank(by_slug[s]) == ranks[0]]
    assert within == [s for s in relevance if s in within], "within a decision, the most relevant first"
    _select(page, "Sort", "Relevance")
    assert _results(page) == relevance


def test_explore_no_decision_value_and_a_filtered_download(reader, papers):
    page = reader.page
    undecided = {p.slug for p in papers if not read_decision(p.decision)}
    decided = Counter(read_decision(p.decision).key for p in papers if read_decision(p.decision))
    reader.goto("explore/")
    _results(page)
    options = page.locator("main").get_by_label("Decision", exact=True).locator("option").all_inner_texts()
    if not undecided:
        assert not any(o.startswith("No decision") for o in options), "no paper lacks a decision: no such value"
    else:
        _select(page, "Decision", "No decision")
        assert set(_results(page)) == undecided
        assert "decision=none" in page.url
    _select(page, "Decision", "Accept (Oral)" if decided["oral"] else options[1])
    shown = _results(page)
    assert shown and len(shown) < len(papers)
    name, text = _download(page, "CSV")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert name.endswith("-explore.csv") and len(rows) == len(shown), "one CSV row for each paper shown"
    name, bib = _download(page, "BibTeX")
    assert len(re.findall(r"^@\w+\{", bib, flags=re.M)) == len(shown)
    link = page.locator("[data-ps-list-link]")
    if len(shown) <= 200:
        page.goto(link.get_attribute("href"), wait_until="load")
        assert _saved_items(page) == shown, "the results' link opens the same papers on the Saved page"


@pytest.mark.parametrize("section", ["topics", "keywords"])
def test_topic_and_keyword_lists_filter_by_decision(reader, site_dir, section):
    path = _list_with_decisions(site_dir, section)
    html = (site_dir / path / "index.html").read_text(encoding="utf-8")
    keys = Counter(_decisions(html))
    key, n = min(keys.items(), key=lambda kv: (kv[1], kv[0]))
    page = reader.page
    reader.goto(path)
    menu = page.locator("main select[data-ps-decision]")
    menu.wait_for(state="visible")
    label = next(o for o in menu.locator("option").all() if o.get_attribute("value") == key).inner_text()
    assert label.endswith(f"({n})"), f"{path}: the menu's count {label!r} should be {n}"
    menu.select_option(value=key)
    shown = page.locator("#ps-list > li:visible")
    assert shown.count() == n
    assert page.locator("[data-ps-shown]").inner_text().startswith(f"{n} paper")
