"""The paper map (map page): drawn, hover titles, click to open, filters that highlight, a brushed
region's papers and keywords, every paper a link without JavaScript, axe; at 1280 and 390 px."""

from __future__ import annotations

import re

import pytest

from generator import layout
from generator.catalog import NO_TOPIC
from generator.pages.decisions import read_decision
from site_ui import paper_slug_of

pytestmark = pytest.mark.browser

MAP_PATH = layout.MAP.url()
LINKS = "[data-ps-map-list] ul a"
STATUS = "[data-ps-map-status]"
PANEL = "[data-ps-map-selection]"

# What of the canvas a reader sees: dots in an area's colour (saturated), faded ones (grey), and where a
# coloured dot's middle is (CSS pixels from the canvas's corner).
CANVAS_PIXELS = """() => {
  const c = document.querySelector('[data-ps-map] canvas'), ratio = c.width / c.clientWidth;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let coloured = 0, faded = 0, spots = [];
  const saturated = i => d[i + 3] > 200 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40;
  for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
    const i = (y * c.width + x) * 4;
    if (d[i + 3] < 200) continue;
    if (saturated(i)) {
      coloured++;
      const r = Math.round(ratio), step = c.width * 4 * r;
      if (spots.length < 400 && x % 7 === 0 && saturated(i - 4 * r) && saturated(i + 4 * r) && saturated(i - step) && saturated(i + step))
        spots.push([x / ratio, y / ratio]);
    } else if (Math.abs(d[i] - 0xd5) < 8 && Math.abs(d[i + 2] - 0xde) < 8) faded++;
  }
  return {coloured, faded, spots};
}"""


def _open_map(site_page):
    site_page.goto(MAP_PATH)
    page = site_page.page
    page.wait_for_selector("[data-ps-map][data-ps-map-drawn]")
    return page


def _pixels(page) -> dict:
    return page.evaluate(CANVAS_PIXELS)


def _canvas_point(page, spot) -> tuple[float, float]:
    box = page.locator("[data-ps-map] canvas").bounding_box()
    return box["x"] + spot[0], box["y"] + spot[1]


def _highlighted(page) -> int:
    """The count the status line gives of the papers the filters keep."""
    page.wait_for_function(f"() => /highlighted|All/.test(document.querySelector('{STATUS}').textContent)")
    text = page.locator(STATUS).inner_text()
    found = re.match(r"([\d,]+) papers? of", text) or re.match(r"All ([\d,]+) papers?", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


@pytest.fixture(params=["desktop", "phone"])
def map_page(request, site_page, phone_page):
    return site_page if request.param == "desktop" else phone_page


def test_the_map_draws_every_paper_and_hover_names_one_that_a_click_opens(map_page, papers):
    page = _open_map(map_page)
    links = page.locator(LINKS)
    assert links.count() == len(papers)
    pixels = _pixels(page)
    assert pixels["coloured"] > len(papers) * 3 and pixels["spots"], "the canvas shows no dots"
    slug_of_title = dict(links.evaluate_all("links => links.map(a => [a.textContent, a.href])"))
    titles = set(slug_of_title)
    x, y = _canvas_point(page, pixels["spots"][len(pixels["spots"]) // 2])
    page.mouse.move(x, y)
    tip = page.locator("[data-ps-map-tip]")
    tip.wait_for(state="visible")
    title = tip.locator("strong").inner_text()
    assert title in titles
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert paper_slug_of(page.url) == paper_slug_of(slug_of_title[title])
    assert page.locator("h1").first.inner_text().startswith(title)
    assert not map_page.log.console_errors and not map_page.log.page_errors


def test_topic_decision_and_search_filters_highlight_their_papers(map_page, papers):
    page = _open_map(map_page)
    assert _highlighted(page) == len(papers)
    before = _pixels(page)
    assert before["faded"] == 0
    counts: dict[str, int] = {}
    for paper in papers:
        area = paper.topic.area if paper.topic else NO_TOPIC
        counts[area] = counts.get(area, 0) + 1
    area = sorted((a for a in counts if a != NO_TOPIC), key=lambda a: (counts[a], a))[len(counts) // 2]
    page.locator("#ps-map-topic").select_option(label=area)
    assert _highlighted(page) == counts[area]
    after = _pixels(page)
    assert after["faded"] > 0 and after["coloured"] < before["coloured"]

    page.locator("#ps-map-topic").select_option(value="")
    labels = page.locator("#ps-map-decision option").all_inner_texts()[1:]
    label = labels[0]
    name = label.rsplit(" (", 1)[0]
    wanted = sum(1 for p in papers if (read_decision(p.decision).label if read_decision(p.decision) else "No decision") == name
                 or (name == "Accepted" and read_decision(p.decision) and read_decision(p.decision).key == "accepted"))
    page.locator("#ps-map-decision").select_option(label=label)
    assert _highlighted(page) == wanted == int(label.rsplit("(", 1)[1].rstrip(")").replace(",", ""))

    page.locator("#ps-map-decision").select_option(value="")
    word = "diffusion"
    page.locator("#ps-map-q").fill(word)
    # the count once the abstracts are searched too (before, it says "so far")
    page.wait_for_function(f"() => / of [\\d,]+ highlighted\\.$/.test(document.querySelector('{STATUS}').textContent)", timeout=60_000)
    found = _highlighted(page)
    in_titles = sum(1 for p in papers if word in p.title.lower())
    assert in_titles <= found < len(papers)
    page.locator(".ps-map-filters button[type=reset]").click()
    page.wait_for_function(f"() => /^All/.test(document.querySelector('{STATUS}').textContent)")


def test_a_brushed_region_lists_its_papers_and_their_commonest_keywords(map_page, papers):
    page = _open_map(map_page)
    box = page.locator("[data-ps-map] canvas").bounding_box()
    page.mouse.move(box["x"] + 1, box["y"] + 1)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=4)
    page.mouse.move(box["x"] + box["width"] - 1, box["y"] + box["height"] - 1, steps=4)
    page.mouse.up()
    panel = page.locator(PANEL)
    panel.wait_for(state="visible")
    assert panel.locator("h2").inner_text().startswith(f"{len(papers):,} papers")
    chips = panel.locator(".ps-facet a")
    assert chips.count() > 0
    # the commonest keyword of all papers comes first, with its count
    keyword_counts: dict[str, int] = {}
    for paper in papers:
        for keyword in {k.casefold() for k in paper.keywords}:
            keyword_counts[keyword] = keyword_counts.get(keyword, 0) + 1
    first = chips.first.inner_text()
    name, count = first.rsplit(" (", 1)
    assert int(count.rstrip(")")) == max(keyword_counts.values()) == keyword_counts[name.casefold()]
    assert panel.locator("ol a").count() == min(100, len(papers))
    with page.expect_navigation():
        chips.first.click()
    assert layout.KEYWORD.match(page.url.split("/", 3)[3]) is not None


def test_every_paper_is_a_link_without_javascript(page_factory, site, papers, browser):
    visitor = page_factory(site, viewport={"width": 390, "height": 844}, java_script_enabled=False)
    visitor.goto(MAP_PATH)
    page = visitor.page
    assert page.locator("[data-ps-map]").is_hidden() and page.locator("[data-ps-map-filters]").is_hidden()
    slugs = [paper_slug_of(h) for h in page.locator(LINKS).evaluate_all("links => links.map(a => a.href)")]
    assert sorted(slugs) == sorted(p.slug for p in papers)
    page.locator("[data-ps-map-list] summary").first.click()
    link = page.locator(LINKS).first
    title = link.inner_text()
    with page.expect_navigation():
        link.click()
    assert page.locator("h1").first.inner_text().startswith(title)


def test_a_focused_link_rings_its_point(site_page):
    page = _open_map(site_page)
    page.locator("[data-ps-map-list] summary").first.click()
    before = _pixels(page)["coloured"]
    page.locator(LINKS).first.focus()
    page.wait_for_function("() => true")
    dark = page.evaluate("""() => { const c = document.querySelector('[data-ps-map] canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 200 && d[i] < 40 && d[i + 1] < 40 && d[i + 2] < 40) n++; return n; }""")
    assert dark > 20 and before > 0


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_the_map_page_has_no_serious_axe_violation(page_factory, site, size):
    from axe_playwright_python.sync_playwright import Axe

    visitor = page_factory(site, viewport={"width": size[0], "height": size[1]})
    visitor.goto(MAP_PATH)
    visitor.page.wait_for_selector("[data-ps-map][data-ps-map-drawn]")
    results = Axe().run(visitor.page)
    bad = [v for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]
    assert not bad, "\n".join(f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in bad)
    width = visitor.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= size[0]


def test_no_other_page_loads_the_map(site_page):
    asked: list[str] = []
    site_page.page.on("request", lambda request: asked.append(request.url))
    site_page.goto(layout.HOME.url())
    site_page.page.wait_for_load_state("networkidle")
    assert asked and not [url for url in asked if "papersite-map" in url or "map.json" in url]
    assert site_page.page.locator(f'nav a[href$="{MAP_PATH}"], .md-tabs a[href$="{MAP_PATH}"]').count() > 0
