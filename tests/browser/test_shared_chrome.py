"""The detail pages' shared chrome (generator/site/chrome.py): the search button and the tabs come
from one cached script, and a reader sees, clicks and tabs through them as when every page held
them: at 1280 and 390 px, at every depth, and with the site served under a sub-path."""

from __future__ import annotations

import shutil

import pytest

from conftest import serve
from site_ui import header_search

pytestmark = pytest.mark.browser

WIDTHS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
# layout shifts are recorded from the first paint on, whatever the page's own script does
# (what moved: the element of each source, and whether it is the chrome or what follows it)
RECORD_SHIFTS = ("window.__shifts = []; new PerformanceObserver(list => { for (const e of list.getEntries()) "
                 "if (!e.hadRecentInput) for (const s of e.sources || []) { const n = s.node && s.node.nodeType === 1 ? s.node : s.node && s.node.parentElement;"
                 " window.__shifts.push([n ? n.tagName + '.' + n.className : '?', s.previousRect.y, s.currentRect.y,"
                 " !!(n && n.closest('header, .md-tabs, .ps-crumbs, main h1'))]); } })"
                 ".observe({type: 'layout-shift', buffered: true});")


@pytest.fixture(scope="module")
def detail_paths(papers, site_dir) -> dict[str, tuple[str, str]]:
    """A page of each kind: (its path, the tab that should be marked)."""
    paper = sorted(papers, key=lambda p: p.slug)[0]
    author = sorted(p.name for p in (site_dir / "authors").iterdir() if (p / "index.html").is_file())[0]
    keyword = sorted(p.name for p in (site_dir / "keywords").iterdir() if (p / "index.html").is_file())[0]
    area = sorted(p for p in (site_dir / "topics").iterdir() if (p / "index.html").is_file())[0]
    subarea = sorted(p.name for p in area.iterdir() if (p / "index.html").is_file())[0]
    return {
        "paper": (f"papers/{paper.slug}/", "Papers"),
        "author": (f"authors/{author}/", "Authors"),
        "keyword": (f"keywords/{keyword}/", "Keywords"),
        "area": (f"topics/{area.name}/", "Topics"),
        "sub-area": (f"topics/{area.name}/{subarea}/", "Topics"),
    }


def _tabs(page) -> list[tuple[str, str, bool]]:  # noqa: ANN001
    return page.locator(".md-tabs li").evaluate_all(
        "lis => lis.map(li => [li.textContent.trim(), li.querySelector('a').href, li.classList.contains('ps-on')])")


def _check_chrome(scripted, path: str, own: str, root_url: str) -> None:  # noqa: ANN001
    page = scripted.page
    scripted.goto(path)
    page.wait_for_load_state("networkidle")
    assert page.locator("script[src$='assets/papersite/chrome.js']").count() == 1, f"{path}: not drawn by the shared script"
    tabs = _tabs(page)
    assert [name for name, _, _ in tabs][:2] == ["Home", "Papers"] and len(tabs) >= 8, (path, tabs)
    assert [name for name, _, on in tabs if on] == [own], f"{path}: marked {[n for n, _, on in tabs if on]}, not {own}"
    assert page.locator(".md-tabs").is_visible(), path
    for name, href, _ in tabs:  # every tab reaches its section under the site's root
        expected = root_url if name == "Home" else None
        assert href.startswith(root_url), (path, name, href)
        assert expected is None or href == expected, (path, name, href)
        response = page.request.get(href)
        assert response.ok, f"{path}: the {name} tab links to {href}, {response.status}"
    # nothing of the chrome, nor the breadcrumbs and title below it, moves once drawn (a paper's own
    # widgets further down may: the Save button, the citations loading)
    shifts = page.evaluate("window.__shifts")
    assert not [s for s in shifts if s[3]], f"{path}: the chrome or the page's top moved: {shifts}"
    # the search toggle stands before the header, the button in it after the site's title, as the template has them
    order = page.evaluate("""() => [document.querySelector('#__search').nextElementSibling.tagName,
        document.querySelector('.ps-site').nextElementSibling.matches('label[for=__search], [data-ps-search-open]'),
        document.querySelector('.md-tabs').nextElementSibling.tagName]""")
    assert order == ["HEADER", True, "SCRIPT"], (path, order)


@pytest.mark.parametrize("width", WIDTHS)
def test_tabs_are_drawn_marked_and_reach_every_section_at_every_depth(page_factory, site, detail_paths, width, tmp_path):
    scripted = page_factory(site, **WIDTHS[width])
    scripted.page.add_init_script(RECORD_SHIFTS)
    for kind, (path, own) in detail_paths.items():
        _check_chrome(scripted, path, own, site.url())
        if kind in ("paper", "sub-area"):
            scripted.page.screenshot(path=str(tmp_path / f"{kind}-{width}.png"))
    # a section page (depth 1) keeps Material's own tabs, which reach the same sections
    scripted.goto("papers/")
    sections = {name: href for name, href, _ in _tabs(scripted.page)}
    assert sections["Authors"] == site.url("authors/") and sections["Home"] == site.url()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_header_search_opens_and_finds_a_paper_from_a_detail_page(page_factory, site, papers, detail_paths, width):
    scripted = page_factory(site, **WIDTHS[width])
    scripted.goto(detail_paths["author"][0])
    paper = sorted(papers, key=lambda p: p.slug)[0]
    results = header_search(scripted.page, " ".join(paper.title.split()))
    assert " ".join(paper.title.split())[:40] in results.first.inner_text()


def test_a_keyboard_reaches_the_header_and_the_tabs_in_page_order(page_factory, site, detail_paths):
    scripted = page_factory(site, **WIDTHS["desktop"])
    scripted.goto(detail_paths["keyword"][0])
    page = scripted.page
    reached = []
    for _ in range(16):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(
            "(() => { const e = document.activeElement; return (e.closest('.md-tabs') ? 'tab:' : e.closest('header') ? 'header:' : 'main:')"
            " + (e.textContent.trim() || e.getAttribute('aria-label') || e.tagName); })()"))
        if reached[-1].startswith("main:") and "header:" in "".join(reached):
            break
    reached = [r for r in reached if r != "main:Skip to content"]  # papersite.js's skip link comes first
    kinds = [r.split(":")[0] for r in reached]
    assert kinds[0] == "header" and "tab" in kinds and kinds.index("tab") > kinds.index("header"), reached
    assert "tab:Home" in reached and reached.index("tab:Home") == kinds.index("tab"), reached
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert ring != "none", reached


def test_under_a_sub_path_the_script_finds_the_root(page_factory, site_dir, detail_paths, tmp_path):
    """A site published at https://host/project/ (GitHub Pages): the same files one level down."""
    holder = tmp_path / "served"
    shutil.copytree(site_dir, holder / "project", symlinks=True)
    local = serve(holder)
    scripted = page_factory(local, **WIDTHS["phone"])
    scripted.page.add_init_script(RECORD_SHIFTS)
    for path, own in (detail_paths["sub-area"], detail_paths["paper"]):
        _check_chrome(scripted, f"project/{path}", own, local.url("project/"))
