"""Accessibility (axe-core) and a phone-width layout on each kind of page."""

from __future__ import annotations

import pytest

from site_ui import horizontal_overflow

pytestmark = pytest.mark.browser

PROBE_TITLE = "One Step Diffusion via Shortcut Models"


@pytest.fixture(scope="module")
def page_paths(papers, site_dir):
    probe = next(p for p in papers if " ".join(p.title.split()).lower() == PROBE_TITLE.lower())
    guessed = next(p for p in papers if p.topic and p.topic.source == "inferred" and p.topic.subarea)

    def first(section: str) -> str:  # a detail page of a section, e.g. one author's page
        folder = next(d for d in sorted((site_dir / section).iterdir()) if (d / "index.html").exists())
        return f"{section}/{folder.name}/"

    subarea = next(d for d in sorted((site_dir / "topics").glob("*/*")) if (d / "index.html").exists())
    return {
        "home": "", "paper": f"papers/{probe.slug}/", "inferred paper": f"papers/{guessed.slug}/",
        "index": "topics/", "explore": "explore/", "papers": "papers/", "stats": "stats/", "saved": "saved/", "about": "about/",
        "area": f"topics/{subarea.parent.name}/", "subarea": f"topics/{subarea.parent.name}/{subarea.name}/",
        "keyword": first("keywords"), "author": first("authors"), "keywords": "keywords/", "authors": "authors/",
    }


# every kind of page the site has (the 404 page, served as GitHub Pages does: test_web_presence.py)
PAGE_KINDS = ["home", "paper", "inferred paper", "index", "explore", "papers", "stats", "saved", "about", "area", "subarea",
              "keyword", "author", "keywords", "authors"]


# the kinds a reader meets most, checked at a phone's width too
PHONE_KINDS = ["home", "paper", "author", "keyword", "subarea", "explore", "stats", "about"]


def serious_axe_violations(page) -> list[str]:
    """What axe-core finds of serious or critical impact on the page as it is now, described."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -- e.g. {', '.join(str(n['target']) for n in v['nodes'][:3])}"
        for v in violations if v.get("impact") in ("serious", "critical")
    ]


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_no_serious_or_critical_axe_violation(site_page, page_paths, kind):
    site_page.goto(page_paths[kind])
    site_page.page.wait_for_load_state("networkidle")
    bad = serious_axe_violations(site_page.page)
    assert not bad, f"{page_paths[kind] or '/'}: axe finds\n" + "\n".join(bad)


@pytest.mark.parametrize("kind", PHONE_KINDS)
def test_no_serious_or_critical_axe_violation_on_a_phone(phone_page, page_paths, kind):
    phone_page.goto(page_paths[kind])
    phone_page.page.wait_for_load_state("networkidle")
    bad = serious_axe_violations(phone_page.page)
    assert not bad, f"{page_paths[kind] or '/'} at 390 px: axe finds\n" + "\n".join(bad)


@pytest.mark.parametrize("width", [1280, 390])
def test_no_serious_or_critical_axe_violation_with_the_search_open(page_factory, site, papers, width):
    """The open search: its status line, pages and papers with the query's words marked, abstract
    snippets, and a result selected by the arrow keys."""
    from site_ui import SEARCH_SELECTED, open_header_search, wait_for_search_answer

    options = {"viewport": {"width": width, "height": 900 if width > 600 else 844}}
    if width < 600:
        options.update(is_mobile=True, has_touch=True, device_scale_factor=3)
    page = page_factory(site, **options).page
    page.goto(site.url(""))
    query = max((k for p in papers for k in p.keywords), key=lambda k: (sum(k in p.keywords for p in papers), k))
    open_header_search(page)
    page.keyboard.type(query)
    wait_for_search_answer(page, query)
    page.locator(".ps-snippet").first.wait_for()
    page.keyboard.press("ArrowDown")
    page.locator(SEARCH_SELECTED).wait_for()
    bad = serious_axe_violations(page)
    assert not bad, f"search for {query!r} open at {width} px: axe finds\n" + "\n".join(bad)


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_phone_viewport_has_no_horizontal_overflow(phone_page, page_paths, kind):
    phone_page.goto(page_paths[kind])
    phone_page.page.wait_for_load_state("networkidle")
    found = horizontal_overflow(phone_page.page)
    assert found["scrollWidth"] <= found["innerWidth"], (
        f"{page_paths[kind] or '/'} at 390x844: document is {found['scrollWidth']}px wide for a "
        f"{found['innerWidth']}px viewport; wide elements: {found['wide']}"
    )


@pytest.mark.parametrize("viewport", ["phone_page", "site_page"])
@pytest.mark.parametrize("kind", ["paper", "subarea", "author", "papers"])
def test_back_to_top_appears_with_its_arrow_and_takes_the_reader_up(request, viewport, page_paths, site_dir, kind, tmp_path):
    """The detail pages write neither the button (chrome.js puts it back at the end of <main>: site/chrome.py)
    nor its arrow (papersite.js draws it, partials/top.html): scrolled down and a little back up, a
    reader sees the arrow and the label where Material puts them, and a tap goes to the top."""
    path = page_paths[kind]
    if kind == "author":  # the page of the author with the most papers: long enough to scroll on a phone
        path = "authors/" + max((site_dir / "authors").glob("*/index.html"), key=lambda f: f.stat().st_size).parent.name + "/"
    if kind != "papers":  # a generated detail page: the button comes with the shared chrome
        assert "md-top" not in (site_dir / path / "index.html").read_text(encoding="utf-8"), path
    site_page = request.getfixturevalue(viewport)
    page = site_page.page
    if viewport == "site_page":  # a short window: the shortest pages of another corpus scroll too
        page.set_viewport_size({"width": 1280, "height": 360})
    site_page.goto(path)
    page.wait_for_load_state("networkidle")
    height = page.evaluate("document.documentElement.scrollHeight - innerHeight")
    assert height > (900 if viewport == "phone_page" else 450), f"{path}: only {height}px to scroll"
    assert page.evaluate("document.querySelector('.md-main > .md-top:last-child') !== null"), f"{path}: the button is not the end of <main>"
    # down the page as a reader goes, so what loads as it comes into view (a paper's citations) is in
    # before the reader turns back (it would push the page down under a short window, and hide the button)
    page.evaluate("""async () => {
      for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
        scrollTo(0, y); await new Promise(done => setTimeout(done, 30));
      }
    }""")
    page.wait_for_load_state("networkidle")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_timeout(300)
    page.evaluate("window.scrollBy(0, -300)")
    button = page.get_by_role("button", name="Back to top")
    button.wait_for(state="visible", timeout=5_000)
    arrow = button.locator("svg use")
    assert arrow.count() == 1 and arrow.get_attribute("href").endswith("icons.svg#arrow-up"), path
    assert arrow.evaluate("use => use.getBoundingClientRect().width") > 0, f"{path}: the arrow is not drawn"
    box, width = button.bounding_box(), page.viewport_size["width"]
    assert box and box["y"] < 150 and abs(box["x"] + box["width"] / 2 - width / 2) < 2, f"{path}: not centred at the top: {box}"
    page.screenshot(path=str(tmp_path / f"top-{kind}-{width}.png"))
    button.click()
    page.wait_for_function("scrollY === 0", timeout=5_000)
