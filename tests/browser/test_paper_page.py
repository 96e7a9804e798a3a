"""From the Topics index down to a paper page, and what that page shows."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import pytest

from generator.corrections.form import MAX_URL_BYTES

from site_ui import citation_shown, click_link, paper_slug_of

pytestmark = pytest.mark.browser

RAW_MATH = re.compile(r"\$[^$\s][^$]*\$")
# "$\\textbf{Dis}$tribution": a text command typed as math is shown as text, not math
TEXT_ONLY = re.compile(r"\$\s*(?:\\[a-z]+\s*\{[^{}$]*\}\s*)+\$")


@pytest.fixture(scope="module")
def math_paper(papers):
    """A paper with LaTeX math in its abstract; one with a full topic (area and sub-area) if any."""
    def has_math(abstract: str | None) -> bool:
        return any(not TEXT_ONLY.fullmatch(m) for m in RAW_MATH.findall(abstract or ""))

    with_math = sorted((p for p in papers if has_math(p.abstract)), key=lambda p: p.slug)
    assert with_math, "the bundled corpus should give a paper with $math$ in its abstract"
    return next((p for p in with_math if p.topic and p.topic.subarea), with_math[0])


def test_topics_area_subarea_paper_reaches_the_paper_page(site_page, math_paper):
    assert math_paper.topic and math_paper.topic.subarea, (
        f"papers/{math_paper.slug}/ (and every other paper with math) has no topic sub-area after enrichment")
    page = site_page.page
    site_page.goto("")
    with page.expect_navigation():
        page.get_by_role("link", name="Topics", exact=True).first.click()
    assert "/topics/" in page.url
    # An area's name can also be a sub-area's elsewhere ("Theory"): areas are the headings.
    click_link(page, math_paper.topic.area, within="main h2")
    click_link(page, math_paper.topic.subarea)
    title = " ".join(math_paper.title.split())
    link = page.locator("main a[href]").filter(has_text=title).first
    assert paper_slug_of(link.get_attribute("href")) == math_paper.slug
    with page.expect_navigation():
        link.click()
    assert page.url.rstrip("/").endswith(f"papers/{math_paper.slug}"), page.url
    heading = " ".join(page.locator("main h1").first.inner_text().split())
    assert heading.startswith(title[:40]), f"paper page heading {heading!r} should be the title {title!r}"


def test_paper_abstract_math_is_rendered(site_page, math_paper):
    site_page.goto(f"papers/{math_paper.slug}/")
    page = site_page.page
    abstract = page.locator(".ps-abstract")
    rendered = abstract.locator("math, mjx-container, .MathJax, .katex").count()
    assert rendered, f"papers/{math_paper.slug}/: abstract has $math$ in the source but no MathML/MathJax output"
    text = abstract.inner_text()
    leftover = RAW_MATH.findall(text)
    assert not leftover, f"papers/{math_paper.slug}/: raw LaTeX left in the shown abstract: {leftover[:3]}"


def test_paper_bibtex_copy_button_copies_the_citation(site_page, math_paper):
    site_page.goto(f"papers/{math_paper.slug}/")
    page = site_page.page
    button = page.get_by_role("button", name=re.compile("copy bibtex", re.I)).first
    shown = citation_shown(page, "#ps-bibtex", "BibTeX").strip()  # drawn from the citation shards
    assert shown.startswith("@"), f"the BibTeX block should show a BibTeX entry, got {shown[:60]!r}"
    page.evaluate("navigator.clipboard.writeText('')")
    button.click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).length > 0", timeout=5_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == shown, f"clipboard holds {copied[:80]!r}, expected the shown BibTeX {shown[:80]!r}"


@pytest.fixture(scope="module")
def plain_paper(papers):
    """A paper whose page shows its abstract as it is, so its fix row leaves the abstract to the page
    (exports.abstract_on_page); one of several paragraphs, or with a character HTML escapes, if any."""
    from generator.site.exports import abstract_on_page

    plain = sorted((p for p in papers if p.abstract and not p.title_derived and abstract_on_page(p.abstract)), key=lambda p: p.slug)
    assert plain, "the bundled corpus should give a paper whose abstract has no formula nor markup"
    return max(plain, key=lambda p: (re.search(r"\n\s*\n", p.abstract) is not None, any(c in p.abstract for c in "&<>"), -len(p.abstract)))


@pytest.mark.parametrize("viewport", ["site_page", "phone_page"])
@pytest.mark.parametrize("which", ["math_paper", "plain_paper"])
def test_fix_this_paper_link_offers_the_pre_filled_form(request, viewport, which, site_dir, site_project):
    """The form carries the abstract as written: from the fix shard where the page renders it (a
    formula), from the page's abstract section where it shows it as it is (the shard says null)."""
    import gzip
    import json
    from urllib.parse import parse_qs, urlsplit

    from generator.config import load_config
    from generator.corrections.form import form_url, prefill_url
    from generator.site import exports
    from generator.site.render.paper_pages import read_taxonomy

    math_paper = request.getfixturevalue(which)
    schema = json.loads((site_dir / exports.EXPORTS_FILE).read_text(encoding="utf-8"))
    shard = site_dir / exports.FIX_SHARD.format(exports.shard_of(math_paper.slug, schema["shards"]))
    row = next(r for r in json.loads(gzip.decompress(shard.read_bytes())) if r[0] == math_paper.slug)
    assert (row[2] is exports.ABSTRACT_ON_PAGE) == (which == "plain_paper"), row[2]
    site_page = request.getfixturevalue(viewport)
    site_page.goto(f"papers/{math_paper.slug}/")
    page = site_page.page
    link = page.get_by_role("link", name="Fix this paper", exact=True)
    link.scroll_into_view_if_needed()
    assert link.is_visible()
    box = link.bounding_box()
    width = page.viewport_size["width"]
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, f"link runs off a {width}px screen: {box}"
    # as built: the bare form on this paper (a reader without scripts reaches it); papersite.js puts the
    # pre-filled link in its place as the reader comes near it (the fix shards, site/exports.py)
    built = re.search(r'<a href="([^"]+)"[^>]*>Fix this paper</a>', (site_dir / "papers" / math_paper.slug / "index.html").read_text(encoding="utf-8"))
    assert html.unescape(built.group(1)) == form_url(load_config(site_project).repo_url, math_paper)
    link.hover()
    page.wait_for_function("() => document.querySelector('a[data-ps-fix]').href.includes('paper_title=')", timeout=10_000)
    href = link.get_attribute("href")
    parts = urlsplit(href)
    assert parts.netloc == "github.com" and parts.path.endswith("/issues/new"), href
    query = parse_qs(parts.query)
    assert query["template"] == ["correct-paper.yml"] and query["paper_id"] == [math_paper.id]
    assert query["paper_title"] == [" ".join(math_paper.title.split())]
    # the form as before: prefill_url's link without the abstract, and the abstract whole, formulas as written, where it fits
    config = load_config(site_project)
    without = prefill_url(config.repo_url, math_paper, read_taxonomy(config), with_abstract=False)
    flat = " ".join(math_paper.abstract.split())
    fits = len(without + "&abstract=" + quote(flat, safe="-_.!~*'()")) <= MAX_URL_BYTES
    assert parse_qs(urlsplit(without).query) == {k: v for k, v in query.items() if k != "abstract"}
    assert query.get("abstract") == ([flat] if fits else None)

    # followed from the keyboard on a fresh load, before anything pre-filled it: the form opens pre-filled
    # (GitHub answered here by a stand-in: the test browser may not leave the local site)
    page.route("https://github.com/**", lambda route: route.fulfill(status=200, content_type="text/html", body="<title>form</title>"))
    page.mouse.move(0, 0)  # (not over the link when the page comes back)
    site_page.goto(f"papers/{math_paper.slug}/")
    link = page.get_by_role("link", name="Fix this paper", exact=True)
    assert "paper_title=" not in link.get_attribute("href")
    link.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == href
    # Not followed: the test browser may not leave the local site.


@pytest.fixture(scope="module")
def related_expected(papers):
    """Each paper's related papers as the build found them, each as a list shows it: title and its line
    (the names and topic the catalog gives it: the search rows' words)."""
    from generator.catalog import build_catalog
    from generator.pages.record import topic_label
    from generator.site.related import related_papers
    from generator.site.render.components import LIST_SEP, author_line

    catalog = build_catalog(papers)
    by_slug = {p.slug: p for p in catalog.papers}

    def item(slug: str) -> tuple[str, str]:
        p = by_slug[slug]
        names = list(dict.fromkeys(a.name for a in catalog.paper_authors(p)))
        area, sub = catalog.paper_area(p), catalog.paper_subarea(p)
        parts = [author_line(p.replace(authors=names))] if names else []
        parts += [topic_label(area.name, sub.name if sub else None)] if area else []
        return " ".join(p.title.split()), LIST_SEP.join(parts)

    return {slug: [item(s) for s in others] for slug, others in related_papers(catalog.papers).items()}


@pytest.mark.parametrize("viewport", ["site_page", "phone_page"])
def test_related_papers_are_drawn_as_the_build_found_them_and_lead_to_their_pages(request, viewport, math_paper, related_expected):
    """No page holds its related papers (render/paper_pages.py RELATED_PLACE): papersite-saved.js draws them from
    the related shards and the search's rows. A reader sees the same list, line for line, and it works as a list."""
    site_page = request.getfixturevalue(viewport)
    page = site_page.page
    expected = related_expected[math_paper.slug]
    assert expected, f"papers/{math_paper.slug}/ has no related papers to show"
    site_page.goto(f"papers/{math_paper.slug}/")
    items = page.locator("main #related + ul.ps-papers > li")
    items.first.wait_for(timeout=10_000)
    shown = [(li.locator(":scope > a").inner_text().strip(), li.locator(".ps-meta").inner_text().strip()) for li in items.all()]
    assert shown == expected
    assert items.locator("button[data-ps-save]").count() == len(expected), "each related paper has its Save button"
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the list fits the screen"
    first = items.first.locator(":scope > a")
    with page.expect_navigation():
        first.click()
    heading = " ".join(page.locator("main h1").first.inner_text().split())
    assert heading.startswith(expected[0][0][:40]), heading


def test_a_page_without_scripts_shows_no_empty_related_section(page_factory, site, math_paper):  # noqa: ANN001
    visit = page_factory(site, viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    visit.goto(f"papers/{math_paper.slug}/")
    page = visit.page
    assert page.locator("main h1").count() == 1 and page.locator("main .ps-abstract").count() == 1
    assert page.locator("#related").count() == 0 and page.get_by_text("Related papers").count() == 0


@pytest.mark.parametrize("viewport", ["site_page", "phone_page"])
def test_an_author_page_draws_its_co_authors_as_the_build_counts_them(request, viewport, papers, site_project):
    """An author page holds no co-author (render/indices.py COAUTHORS_PLACE): papersite-saved.js draws them from
    the co-author files, each a link to their page, with the papers they share where more than one."""
    from generator.catalog import build_catalog
    from generator.site.exports import coauthor_row

    catalog = build_catalog(papers)
    shared = [a for a in sorted(catalog.authors, key=lambda a: a.slug) if any(n > 1 for _, n in a.coauthors)]
    assert shared, "the bundled corpus should give two authors who share two papers"
    author = shared[0]
    site_page = request.getfixturevalue(viewport)
    page = site_page.page
    site_page.goto(author.url)
    items = page.locator("main #coauthors ~ ul.ps-columns > li")
    items.first.wait_for(timeout=10_000)
    _, listed, more = coauthor_row(author)
    expected = [f"{name} {n}" if n > 1 else name for _, name, n in listed]
    assert [" ".join(li.inner_text().split()) for li in items.all()] == expected
    assert page.get_by_text("The number is how many papers they wrote together").is_visible()
    assert not more and not page.get_by_text("(see the papers above)").count()
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the list fits the screen"
    with page.expect_navigation():
        items.first.locator("a").click()
    assert " ".join(page.locator("main h1").first.inner_text().split()) == listed[0][1]
