"""Every page of the built bundled site on a 390 px phone, and the phone-only layouts.

Not a sample: each page the site has (paper, topic, keyword, author, index pages)
is opened at 390 px (a few browser pages side by side, a fresh context every few
hundred visits) and its document width is compared with the viewport's.
"""

from __future__ import annotations

import asyncio
import re
import threading

import pytest

from site_ui import citation_shown

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# What makes a page wider than the screen, if anything: the widest few elements.
WIDTH_PROBE = """() => {
    const root = document.documentElement, width = root.clientWidth, wide = [];
    if (root.scrollWidth > width) {
        for (const el of document.querySelectorAll('main *')) {
            const r = el.getBoundingClientRect();
            if (r.right > width + 1 && r.width > 0 && !el.closest('[data-ps-scroll-ok]')) {
                wide.push(`${el.tagName.toLowerCase()}.${String(el.className).trim().replace(/\\s+/g, '.')} right=${Math.round(r.right)}`);
                if (wide.length >= 3) break;
            }
        }
    }
    return {scrollWidth: root.scrollWidth, clientWidth: width, wide};
}"""


def site_pages(site_dir) -> list[str]:
    """The path of every HTML page of the built site, theme assets left out."""
    paths = []
    for index in sorted(site_dir.rglob("index.html")):
        rel = index.parent.relative_to(site_dir).as_posix()
        if rel == "assets" or rel.startswith("assets/"):
            continue
        paths.append("" if rel == "." else rel + "/")
    return paths


TABS = 3  # pages measured side by side: the server and the renderer overlap their waits
PAGES_PER_CONTEXT = 250  # a fresh context now and then: thousands of visits in one exhaust the renderer


def test_no_page_of_the_site_is_wider_than_a_phone(site, site_dir):
    paths = site_pages(site_dir)
    # the bundled corpus: several hundred papers plus their topic, keyword and author pages
    assert len(paths) > 1000, f"expected the whole bundled site, found {len(paths)} pages in {site_dir}"
    outcome: dict = {}
    # Playwright's async API in a thread of its own, beside the session's sync browser.
    worker = threading.Thread(target=lambda: outcome.update(asyncio.run(_measure(site, paths))))
    worker.start()
    worker.join()
    assert "error" not in outcome, outcome.get("error")
    assert outcome["measured"] == len(paths)
    assert not outcome["elsewhere"], f"pages requested other origins: {sorted(set(outcome['elsewhere']))[:10]}"
    too_wide = outcome["too_wide"]
    assert not too_wide, f"{len(too_wide)} of {len(paths)} pages scroll sideways at 390 px:\n" + "\n".join(sorted(too_wide)[:20])


async def _measure(site, paths: list[str]) -> dict:
    """Open every path at 390 px and report those wider than the screen (and any other-origin request)."""
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.async_api import async_playwright

    too_wide: list[str] = []
    elsewhere: list[str] = []
    measured = 0

    def watch(request) -> None:  # noqa: ANN001
        if not request.url.startswith((site.base_url, "data:", "blob:")):
            elsewhere.append(request.url)

    async def visit_all(browser, share: list[str]) -> None:
        nonlocal measured
        for start in range(0, len(share), PAGES_PER_CONTEXT):
            # Request routing (the harness's guard) turns the browser cache off: a thousand pages would
            # each fetch the theme again. Requests are watched instead, and any to another origin fails.
            context = await browser.new_context(**PHONE)
            try:
                page = await context.new_page()
                page.on("request", watch)
                for path in share[start : start + PAGES_PER_CONTEXT]:
                    # the stylesheets load before the page's scripts run: its layout is final at DOMContentLoaded
                    await page.goto(site.url(path), wait_until="domcontentloaded")
                    found = await page.evaluate(WIDTH_PROBE)
                    measured += 1
                    if found["scrollWidth"] > found["clientWidth"]:
                        too_wide.append(f"/{path}: {found['scrollWidth']}px for {found['clientWidth']}px ({', '.join(found['wide'])})")
            finally:
                await context.close()

    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            try:
                await asyncio.gather(*(visit_all(browser, paths[i::TABS]) for i in range(TABS)))
            finally:
                await browser.close()
    except Exception as error:  # reported by the test, in the main thread
        return {"error": f"{type(error).__name__}: {error}"}
    return {"too_wide": too_wide, "elsewhere": elsewhere, "measured": measured}


def test_long_formula_scrolls_in_its_own_box_on_a_phone(page_factory, site, site_dir):
    # the paper with the longest inline formula of the built site (a \\text{...} sentence, say)
    def longest_formula(page):
        return max(map(len, re.findall(r'<math[^>]*display="inline".*?</math>', page.read_text(encoding="utf-8"))), default=0)

    longest = max(sorted((site_dir / "papers").glob("*/index.html")), key=longest_formula)
    assert longest_formula(longest) > 300, "the bundled corpus should have a long inline formula"
    paper = type("Paper", (), {"slug": longest.parent.name})
    phone = page_factory(site, **PHONE)
    phone.goto(f"papers/{paper.slug}/")
    boxes = phone.page.locator(".ps-abstract math").evaluate_all(
        "ms => ms.map(m => ({width: m.getBoundingClientRect().width, scroll: m.scrollWidth,"
        " overflow: getComputedStyle(m).overflowX, main: m.closest('article').clientWidth}))"
    )
    assert boxes, f"/papers/{paper.slug}/ shows no MathML"
    widest = max(boxes, key=lambda b: b["scroll"])
    assert widest["width"] <= widest["main"], f"a formula is wider than the text column: {widest}"
    if widest["scroll"] > widest["width"] + 1:
        assert widest["overflow"] in ("auto", "scroll"), f"a formula wider than its box cannot be scrolled: {widest}"


def test_citation_blocks_are_collapsed_on_a_phone_and_open_on_a_desktop(page_factory, site, papers):
    paper = next(p for p in papers if p.abstract and len(p.abstract) > 800)
    phone = page_factory(site, **PHONE)
    phone.goto(f"papers/{paper.slug}/")
    ris = phone.page.locator("#ps-ris")
    assert not ris.is_visible(), "the RIS block (the whole abstract again) is open on a phone"
    phone.page.get_by_text("RIS", exact=True).click()
    ris.wait_for(state="visible")
    # a folded block still copies: the Copy button is outside the fold
    assert phone.page.get_by_role("button", name="Copy BibTeX").is_visible()

    desktop = page_factory(site, viewport={"width": 1280, "height": 900})
    desktop.goto(f"papers/{paper.slug}/")
    for selector, label in (("#ps-bibtex", "BibTeX"), ("#ps-ris", "RIS")):  # open, once the citation shards' text is in
        assert citation_shown(desktop.page, selector, label) and desktop.page.locator(selector).is_visible()


def test_stats_charts_are_readable_on_a_phone(page_factory, site):
    phone = page_factory(site, **PHONE)
    phone.goto("stats/")
    labels = phone.page.locator("table.ps-bars tbody th")
    assert labels.count() > 20
    sizes = labels.evaluate_all(
        "ths => ths.map(th => ({text: th.innerText, font: parseFloat(getComputedStyle(th).fontSize),"
        " clipped: th.scrollWidth > th.clientWidth + 1}))"
    )
    small = [s for s in sizes if s["font"] < 12]
    assert not small, f"chart labels under 12 px on a phone: {small[:3]}"
    assert not [s for s in sizes if s["clipped"]], "a chart label is cut off"
    # whole labels: the longest sub-area name is shown in full, not with an ellipsis
    longest = max(sizes, key=lambda s: len(s["text"]))["text"]
    assert "…" not in longest and len(longest) > 30, longest
