"""The detail pages' shared chrome (site/chrome.py): what is cut from a page, what the script
writes back, and the pages left as they are. The browser tests (tests/browser/test_shared_chrome.py)
check what a reader sees."""

from __future__ import annotations

import json
import re

from generator.site.chrome import ROOT_MARK, SharedChrome, parts_of, script_tag


TOP = '<button class="md-top md-icon" hidden type=button>Back to top</button>'


def _page(depth: int, own: str, *, search_after_title: bool = True, bundle: bool = False, tabs: tuple[str, ...] = (),
          top: str = TOP, name: str = "Site &amp; Co", end: str = "") -> str:
    up = "../" * depth
    home = up.rstrip("/") or "."
    sections = tabs or ("papers", "authors", "about")
    own_href = "../" * (depth - 1) or "./"  # the section's page, from a page in it
    items = "".join(
        f"<li class=ps-on><a href={own_href}>{name.title()}</a>" if name == own else f"<li><a href={up}{name}/>{name.title()}</a>"
        for name in sections)
    title = f'<div class="md-header__title ps-site"><span class=md-ellipsis>{name}</span></div>'
    search = (f'<label class="md-header__button md-icon" for=__search><svg><use href={up}assets/papersite/icons.svg#magnify /></svg>'
              '</label><div aria-label=Search class=md-search data-ps-search role=dialog></div>')
    header = title + search if search_after_title else search + title
    script = f"<script src={up}assets/javascripts/bundle.1.min.js></script>" if bundle else ""
    return (f"<!doctype html><html><body><input class=md-toggle data-md-toggle=search id=__search type=checkbox>"
            f'<header class=md-header><nav class="md-header__inner md-grid" aria-label=Header>'
            f'<a aria-label="{name}" class="md-header__button md-logo" href={home}>L</a>{header}{end}</nav></header>'
            f'<div class=md-container><nav class="md-tabs ps-tabs" aria-label=Tabs><div class=md-grid><ul class=md-tabs__list>'
            f"<li><a href={home}>Home</a>{items}</ul></div></nav><main class=md-main><article>A <b>body</b></article>{top}</main></div>"
            f"<script src={up}assets/papersite/papersite.js></script>{script}")


SOURCE = '<div class=md-header__source><a class=md-source href=https://example.org/r>r</a></div>'


def test_a_detail_page_keeps_a_link_home_for_readers_without_scripts_and_loads_the_chrome_where_the_tabs_stood() -> None:
    chrome = SharedChrome()
    page = _page(2, "papers")
    cut = chrome.share(page, "papers/_shell/")
    assert "md-tabs" not in cut and "data-ps-search" not in cut and "__search" not in cut and "<header" not in cut
    assert cut.startswith("<!doctype html><html><body><noscript><a class=ps-homebar href=../..>Site &amp; Co</a></noscript>"
                          "<div class=md-container><script src=../../assets/papersite/chrome.js></script><main")
    assert cut.endswith("<main class=md-main><article>A <b>body</b></article></main></div>"
                        "<script src=../../assets/papersite/papersite.js></script>")
    assert len(cut) < len(page) - 500


BOXED = ('<main class=md-main><div class="md-main__inner md-grid"><div class=md-content>'
         '<article class="md-content__inner md-typeset">A <b>body</b></article></div></div>')


def test_a_detail_pages_article_leaves_materials_boxes_unless_they_hold_more_than_it() -> None:
    for top in (TOP, ""):
        page = _page(2, "papers", top=top).replace("<main class=md-main><article>A <b>body</b></article>", BOXED)
        cut = SharedChrome().share(page, "papers/_shell/")
        assert cut.endswith('<main class=md-main><article class="md-typeset ps-page">A <b>body</b></article></main></div>'
                            "<script src=../../assets/papersite/papersite.js></script>"), top
    # a sidebar beside the article (a project's template), or a page whose chrome is not the site's: kept boxed
    beside = BOXED.replace("<div class=md-content>", "<div class=md-sidebar>nav</div><div class=md-content>")
    sided = SharedChrome().share(_page(2, "papers").replace("<main class=md-main><article>A <b>body</b></article>", beside), "papers/_shell/")
    assert beside in sided and "ps-page" not in sided
    bundled = _page(2, "papers", bundle=True).replace("<main class=md-main><article>A <b>body</b></article>", BOXED)
    assert SharedChrome().share(bundled, "papers/_shell/") == bundled
    # text in the article that reads like the boxes' end is the article's
    quoted = BOXED.replace("A <b>body</b>", "<code>&lt;/article&gt;&lt;/div&gt;&lt;/div&gt;</code>")
    page = _page(2, "papers").replace("<main class=md-main><article>A <b>body</b></article>", quoted)
    assert '<article class="md-typeset ps-page"><code>&lt;/article&gt;&lt;/div&gt;&lt;/div&gt;</code></article></main>' in SharedChrome().share(page, "papers/_shell/")


def test_the_site_name_stays_escaped_in_the_link_home_and_the_script() -> None:
    name = "&lt;b&gt;Tom &amp; &quot;Jerry&quot;&#39;s&lt;/b&gt;"
    chrome = SharedChrome()
    cut = chrome.share(_page(3, "", name=name), "topics/a/b/")
    assert f"<noscript><a class=ps-homebar href=../../..>{name}</a></noscript>" in cut
    assert "<b>Tom" not in cut and '"Jerry"' not in cut
    header = json.loads(_data(chrome.script().decode("utf-8")))[0]
    assert f"<span class=md-ellipsis>{name}</span>" in header and f'aria-label="{name}"' in header


def test_the_header_end_goes_back_on_the_pages_that_had_it() -> None:
    """The repository link ends a paper page's header only (partials/ps-header.html): the page's
    script tag says so, and the script holds the link once."""
    chrome = SharedChrome()
    author = chrome.share(_page(2, "authors"), "authors/a-b/")
    paper = chrome.share(_page(2, "papers", end=SOURCE), "papers/_shell/")
    assert "<script src=../../assets/papersite/chrome.js></script>" in author
    assert "<script src=../../assets/papersite/chrome.js data-end></script>" in paper and "md-source" not in paper
    data = json.loads(_data(chrome.script().decode("utf-8")))
    assert data[4] == SOURCE and data[0][: data[1]].endswith("</div>") and data[0][data[1]:] == "</nav></header>"
    other = _page(2, "papers", end=SOURCE.replace("/r>", "/other>"))
    assert chrome.share(other, "papers/x/") == other, "another repository link is not the site's"


def test_the_parts_are_the_same_at_every_depth_and_section_with_links_from_the_root() -> None:
    found = [parts_of(_page(depth, own), url).parts
             for depth, own, url in ((2, "papers", "papers/some-paper/"), (2, "authors", "authors/a-b/"),
                                     (3, "", "topics/area/sub-area/"), (1, "about", "about/"))]
    assert all(parts == found[0] for parts in found)
    tabs = found[0].tabs
    assert "ps-on" not in tabs, "the script marks the page's own tab, not the copy"
    hrefs = re.findall(r'href="([^"]*)"', tabs)
    assert hrefs == [ROOT_MARK, f"{ROOT_MARK}papers/", f"{ROOT_MARK}authors/", f"{ROOT_MARK}about/"]
    assert f'href="{ROOT_MARK}assets/papersite/icons.svg#magnify"' in found[0].header
    assert f'href="{ROOT_MARK}">L</a>' in found[0].header, "the logo links to the root"



def _data(script: str) -> str:
    start = list(re.finditer(r"\(document\.currentScript,\s*", script))[-1].end()  # (shipped: without the space)
    return script[start: script.rindex(")")]


def test_the_script_tag_reaches_the_root_from_every_depth() -> None:
    assert script_tag("papers/x/") == "<script src=../../assets/papersite/chrome.js></script>"
    assert script_tag("topics/a/b/") == "<script src=../../../assets/papersite/chrome.js></script>"
    assert script_tag("about/") == "<script src=../assets/papersite/chrome.js></script>"


def test_the_script_holds_the_parts_and_finds_the_root_from_its_own_src() -> None:
    chrome = SharedChrome()
    assert chrome.script() is None, "no page shared: no script"
    chrome.share(_page(2, "papers"), "papers/_shell/")
    script = chrome.script().decode("utf-8")
    data = json.loads(_data(script))
    parts = chrome.parts
    assert data == [parts.header, parts.end_at, parts.tabs, parts.top, parts.end, parts.icon]
    assert data[0].startswith("<input class=md-toggle data-md-toggle=search") and data[3] == TOP
    assert 'getAttribute("src")' in script and '"assets/papersite/chrome.js".length' in script


def test_pages_that_are_not_light_or_differ_keep_their_chrome() -> None:
    chrome = SharedChrome()
    chrome.share(_page(2, "papers"), "papers/_shell/")
    with_bundle = _page(2, "papers", bundle=True)
    assert chrome.share(with_bundle, "papers/x/") == with_bundle, "Material's script reads its own chrome"
    other_tabs = _page(2, "papers", tabs=("papers", "authors"))
    assert chrome.share(other_tabs, "papers/y/") == other_tabs, "another template's chrome is not the site's"
    moved = _page(2, "papers", search_after_title=False)
    assert chrome.share(moved, "papers/z/") == moved, "another header is not the site's"
    plain = "<!doctype html><p>no chrome</p>"
    assert chrome.share(plain, "about/") == plain


def test_sharing_twice_changes_nothing_and_the_first_page_decides() -> None:
    first, second = SharedChrome(), SharedChrome()
    once = first.share(_page(2, "papers"), "papers/_shell/")
    assert first.share(once, "papers/_shell/") == once
    second.share(_page(3, ""), "topics/a/b/")
    second.share(_page(2, "papers"), "papers/_shell/")
    assert second.script() == first.script(), "the same parts whichever page came first"


def test_the_back_to_top_button_is_cut_where_the_script_can_put_it_back() -> None:
    """It is hidden until a script shows it: the script puts it back at the end of the page's one <main>."""
    chrome = SharedChrome()
    cut = chrome.share(_page(2, "papers"), "papers/_shell/")
    assert "md-top" not in cut and "<article>A <b>body</b></article></main>" in cut
    assert chrome.parts.top == TOP
    script = chrome.script().decode("utf-8")
    assert 'querySelector(".md-main")' in script and '"beforeend"' in script and "DOMContentLoaded" in script
    # a page with two <main> (a project's own template): the script could not tell where it stood
    two = _page(2, "papers").replace("<article>A", "<main class=other></main><article>A")
    assert chrome.share(two, "papers/x/") == two
    # a theme without the button: nothing to cut, nothing written back; its pages are not the site's
    bare = SharedChrome()
    assert "md-top" not in bare.share(_page(2, "papers", top=""), "papers/_shell/") and bare.parts.top == ""
    assert bare.share(_page(2, "papers"), "papers/y/") == _page(2, "papers")


def test_the_sites_icon_leaves_the_head_for_the_script_which_puts_it_back_rooted() -> None:
    icon = "<link href=../../assets/images/favicon.png rel=icon>"
    chrome = SharedChrome()
    page = _page(2, "papers").replace("<html><body>", f"<html><meta charset=utf-8>{icon}<title>T</title><body>")
    cut = chrome.share(page, "papers/_shell/")
    assert "rel=icon" not in cut and cut.startswith("<!doctype html><html><meta charset=utf-8><title>T</title><body><noscript>")
    assert chrome.parts.icon == f'<link href="{ROOT_MARK}assets/images/favicon.png" rel=icon>'
    assert re.search(r"document\.head\.insertAdjacentHTML\(\s*\"beforeend\",\s*at\(parts\[5\]\)\)", chrome.script().decode("utf-8"))
    # a page of another section shares the same parts (the icon rooted alike); two icons: nothing is guessed
    other = _page(2, "authors").replace("<html><body>", f"<html><meta charset=utf-8>{icon}<title>T</title><body>")
    assert "rel=icon" not in chrome.share(other, "authors/_shell/")
    doubled = page.replace(icon, icon + icon.replace("favicon", "other"))
    assert SharedChrome().share(doubled, "papers/_shell/").count("rel=icon") == 2
