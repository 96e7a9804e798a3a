"""What a reader does on the site, as small functions over a Playwright page.

The selectors of the site's widgets live here only, so a change of the site's
markup is fixed in one place rather than in every test.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# Header search: ours (a field in the header; below 60em a search button opens it full screen)
# or Zensical's (a button opens a dialog with a combobox).
HEADER_SEARCH_TOGGLE = "button.md-search__button:visible, [data-ps-search-open]:visible, label[for=__search]:visible"
HEADER_SEARCH_INPUT = "input.md-search__input:visible, input[role=combobox][aria-label=Search]:visible"
HEADER_SEARCH_RESULT = ".md-search-result__item, [role=listbox][aria-label='Search results'] [role=option]"

# Our header search as a combobox: the field, its listbox of links, the selected one.
SEARCH_OPTIONS = "[data-ps-search-results] [role=option]"
SEARCH_SELECTED = "[data-ps-search-results] [role=option][aria-selected=true]"
SEARCH_OPEN_BUTTON = "[data-ps-search-open]"
SKIP_LINK = "a.md-skip"

PAPER_HREF = re.compile(r"(?:^|/)papers/([^/?#]+)/?(?:[?#].*)?$")


def paper_slug_of(href: str | None) -> str | None:
    """The slug of a paper page link, or None for any other link."""
    if not href:
        return None
    match = PAPER_HREF.search(urlsplit(href).path)
    return match.group(1) if match else None


def header_search(page, query: str):
    """Type ``query`` into the header search; returns the result items once some are shown."""
    field = page.locator(HEADER_SEARCH_INPUT).first
    if not field.count():
        page.locator(HEADER_SEARCH_TOGGLE).first.click()
    field.fill(query)
    results = page.locator(HEADER_SEARCH_RESULT)
    try:
        results.first.wait_for(state="visible")
    except Exception as error:  # Playwright's TimeoutError: say what the reader sees instead
        status = page.locator("[data-ps-search-meta], .md-search-result__meta").first
        shown = status.inner_text() if status.count() else "(no status line)"
        raise AssertionError(f"{page.url}: header search for {query!r} shows no result; "
                             f"the search panel says {shown!r}") from error
    return results


def header_search_settled(page, query: str):
    """Type ``query`` into the header search and wait until every index has answered it (abstracts too).

    Returns (status line text, result items). Only for our own search box (MkDocs engine).
    """
    field = page.locator(HEADER_SEARCH_INPUT).first
    if not field.count():
        page.locator(HEADER_SEARCH_TOGGLE).first.click()
    field.fill(query)
    page.wait_for_function(
        "q => { const l = document.querySelector('[data-ps-search-results]');"
        " return l && l.getAttribute('data-ps-query') === q && l.getAttribute('data-ps-state') === 'full'; }",
        arg=query,
    )
    return page.locator("[data-ps-search-meta]").inner_text(), page.locator(HEADER_SEARCH_RESULT)


def result_hrefs(results) -> list[str]:
    """The link of every result item, in order (papers and author/keyword/topic pages)."""
    return results.evaluate_all("items => items.map(e => (e.closest('a[href]') || e.querySelector('a[href]') || {}).href || '')")


def result_paper_slugs(results, limit: int = 10) -> list[str | None]:
    """Paper slugs of the first ``limit`` search results, in order (None: not a paper)."""
    slugs = []
    for index in range(min(limit, results.count())):
        href = results.nth(index).evaluate("e => (e.closest('a[href]') || e.querySelector('a[href]') || {}).href")
        slugs.append(paper_slug_of(href))
    return slugs


def main_paper_slugs(page, container: str = "main") -> list[str]:
    """Slugs of the paper links shown in ``container``, in page order, without repeats."""
    hrefs = page.locator(f"{container} a[href]").evaluate_all("links => links.map(a => a.href)")
    return list(dict.fromkeys(s for s in map(paper_slug_of, hrefs) if s))


def click_link(page, name: str, within: str = "main") -> None:
    """Click the visible link whose text is exactly ``name`` and wait for the next page."""
    link = page.locator(within).get_by_role("link", name=name, exact=True).first
    with page.expect_navigation():
        link.click()


def horizontal_overflow(page) -> dict:
    """How wide the document is against the viewport, and the widest offending elements."""
    return page.evaluate(
        """() => {
            const width = window.innerWidth;
            const wide = [];
            for (const el of document.querySelectorAll('body *')) {
                const r = el.getBoundingClientRect();
                if (r.right > width + 1 && r.width > 0 && getComputedStyle(el).position !== 'fixed') {
                    wide.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}` +
                              `${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : ''}` +
                              ` right=${Math.round(r.right)}`);
                }
            }
            return {scrollWidth: document.documentElement.scrollWidth, innerWidth: width, wide: wide.slice(0, 8)};
        }"""
    )


def open_header_search(page) -> None:
    """Open the header search as a reader does: the field on a desktop, the search button on a phone."""
    button = page.locator(SEARCH_OPEN_BUTTON)
    if not button.is_visible():
        page.locator("[data-ps-search-input]").click()
        return
    button.click()
    page.wait_for_function("document.activeElement && document.activeElement.matches('[data-ps-search-input]')")


def wait_for_search_answer(page, query: str, state: str = "full") -> None:
    """Wait until header search shows its answer to ``query`` (``full``: every index has answered)."""
    page.wait_for_function(
        "([q, state]) => { const l = document.querySelector('[data-ps-search-results]');"
        " return l && l.getAttribute('data-ps-query') === q && (state !== 'full' || l.getAttribute('data-ps-state') === 'full'); }",
        arg=[query, state],
    )


def count_worker_questions(page, kind: str) -> None:
    """From the page's next load on, count the questions of ``kind`` ("texts", "exact", ...) the page sends its
    search workers (search-worker.js), in ``window.psAsked``."""
    page.add_init_script("(() => { window.psAsked = 0; const post = Worker.prototype.postMessage;"
                         " Worker.prototype.postMessage = function (message, ...rest) {"
                         f" if (message && message.type === {kind!r}) window.psAsked += 1;"
                         " return post.call(this, message, ...rest); }; })()")


def enter_query(page, query: str, key_ms: int = 0) -> None:
    """Put ``query`` into the header search of a page whose field shows (a desktop's): typed key by key,
    ``key_ms`` apart, or with ``key_ms`` 0 filled in whole, as a paste does."""
    field = page.locator(HEADER_SEARCH_INPUT).first
    if key_ms:
        field.press_sequentially(query, delay=key_ms)
    else:
        field.fill(query)


def option_hrefs(page) -> list[str]:
    """The links of header search's results, in order."""
    return page.locator(SEARCH_OPTIONS).evaluate_all("options => options.map(o => o.href)")


def citation_shown(page, selector: str, label: str) -> str:
    """The text a reader sees in a paper page's citation block (``#ps-bibtex``, ``#ps-ris``,
    ``#ps-text``): scrolled to, unfolded if folded (on a phone), and, for the formats papersite.js
    fetches from the citation shards, once its text is in."""
    block = page.locator(selector)
    block.locator("xpath=ancestor::div[contains(@class, 'ps-cite-item')]").scroll_into_view_if_needed()
    if not block.is_visible():
        page.locator(".ps-cite summary", has_text=re.compile(f"^{re.escape(label)}$")).click()
    block.wait_for(state="visible")
    page.wait_for_function("selector => document.querySelector(selector).textContent.length > 0", arg=selector, timeout=10_000)
    return block.inner_text()


# Where Material sizes its sidebars from the page's size (a ResizeObserver's answers): their inline heights.
SIDEBAR_HEIGHTS = "() => [...document.querySelectorAll('.md-sidebar__scrollwrap')].map(e => e.style.height)"


def without_resize_observer(visit) -> list[str]:  # noqa: ANN001 (a conftest.SitePage, before its first page)
    """Makes ``visit``'s browser one without ResizeObserver (before 2020), as the theme's script finds it; returns
    the list each ResizeObserver script the pages then request is added to."""
    requested: list[str] = []
    visit.page.context.add_init_script("delete window.ResizeObserver")
    visit.page.on("request", lambda request: requested.append(request.url) if "resize-observer" in request.url else None)
    return requested


def assert_sized_by_our_resize_observer(visit, requested: list[str]) -> None:  # noqa: ANN001
    """The page, in a browser without ResizeObserver, has the site's own (no request left the site: the harness
    fails the test on one), and the theme sizes its sidebars with it, as the window changes too."""
    page = visit.page
    assert page.evaluate("typeof ResizeObserver") == "function" and \
        "[native code]" not in page.evaluate("String(window.ResizeObserver)"), "the site's ResizeObserver is not there"
    assert requested and all(url.startswith(visit.site.base_url) and url.endswith("assets/papersite/resize-observer.js")
                             for url in requested), requested
    page.wait_for_function(f"({SIDEBAR_HEIGHTS})().length > 0 && ({SIDEBAR_HEIGHTS})().every(h => h.endsWith('px'))")
    tall = page.evaluate(SIDEBAR_HEIGHTS)
    page.set_viewport_size({"width": 1280, "height": 600})
    page.wait_for_function(f"({SIDEBAR_HEIGHTS})().join() !== {tall!r}.join()")
    assert not visit.log.page_errors, visit.log.page_errors
