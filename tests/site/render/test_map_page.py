"""generator/site/render/map_page.py: the map page's link lists and the data file, paper for paper in one order."""

from __future__ import annotations

import json
import re
from html import unescape

from generator import layout
from generator.catalog import build_catalog
from generator.pages.record import PaperRecord, Topic
from generator.catalog import NO_TOPIC
from generator.site.render.map_page import AREA_COLOURS, map_data, map_page
from site_fixtures import HOSTILE_TITLE, fixture_records


def _links(page_text: str) -> list[tuple[str, str]]:
    """(href, text) of every paper link in the page's lists, in page order."""
    lists = page_text[page_text.index("data-ps-map-list"):]
    return [(href, unescape(text)) for href, text in re.findall(r'<li><a href="?([^"\s>]+)"?>(.*?)</a></li>', lists)]


def _points(records: list[PaperRecord]) -> dict[str, tuple[int, int]]:
    return {r.slug: (i * 10, 4000 - i * 7) for i, r in enumerate(sorted(records, key=lambda r: r.slug))}


def test_the_data_file_follows_the_page_links_paper_for_paper() -> None:
    records = fixture_records()
    catalog = build_catalog(records)
    points = _points(records)
    text = map_page(catalog)
    data = json.loads(map_data(catalog, points, 4096))
    links = _links(text)
    by_slug = {r.slug: r for r in records}
    assert data["papers"] == len(links) == len(records)
    here = layout.MAP.url()
    for i, (href, title) in enumerate(links):
        slug = next(s for s in by_slug if layout.relative(here, layout.paper_url(s)) == href)
        paper = by_slug[slug]
        assert title == paper.title
        assert (data["x"][i], data["y"][i]) == points[slug]
        topic = data["topics"][data["topic"][i]]
        if paper.topic is None:
            assert topic[0] == NO_TOPIC
        else:
            assert topic[0].startswith(paper.topic.area) and data["areas"][topic[1]][0] == paper.topic.area
        names = {data["keyword_names"][k][0].casefold() for k in data["keywords"][i]}
        assert names <= {k.casefold() for k in paper.keywords}


def test_keywords_of_one_paper_stay_out_of_the_data_file() -> None:
    records = fixture_records()
    data = json.loads(map_data(build_catalog(records), _points(records), 4096))
    counts: dict[int, int] = {}
    for numbers in data["keywords"]:
        for k in numbers:
            counts[k] = counts.get(k, 0) + 1
    assert counts and all(n >= 2 for n in counts.values())
    assert len(data["keyword_names"]) == len(counts)


def test_every_paper_has_a_decision_from_the_filters_choices() -> None:
    records = fixture_records()
    data = json.loads(map_data(build_catalog(records), _points(records), 4096))
    assert "No decision" in data["decisions"] and all(0 <= d < len(data["decisions"]) for d in data["decision"])
    text = map_page(build_catalog(records))
    for label in data["decisions"]:
        assert f'<option value="{label}">' in text


def test_the_legend_gives_each_area_its_colour_and_count() -> None:
    records = fixture_records()
    catalog = build_catalog(records)
    text = map_page(catalog)
    data = json.loads(map_data(catalog, _points(records), 4096))
    legend = text[text.index("ps-map-legend"):text.index("</ul>", text.index("ps-map-legend"))]
    for name, colour in data["areas"]:
        count = sum(1 for r in records if (r.topic.area if r.topic else NO_TOPIC) == name)
        assert f"--ps-swatch: {colour}" in legend and f"{name} <span class=\"ps-count\">{count:,}</span>" in legend
    assert len({c for _, c in data["areas"]}) == len(data["areas"]) <= len(AREA_COLOURS) + 1
    assert any(r.topic is None for r in records) and NO_TOPIC in legend


def test_titles_and_names_are_escaped() -> None:
    records = [PaperRecord(id="h", slug="hostile", title=HOSTILE_TITLE, abstract="x",
                           topic=Topic('<b onmouseover="x()">Area</b>', None, "listing"), keywords=["<i>k</i>"])]
    text = map_page(build_catalog(records))
    assert "<script>" not in text and "<b onmouseover" not in text and "<i>k</i>" not in text
    assert _links(text)[0][1] == HOSTILE_TITLE
    data = map_data(build_catalog(records), {"hostile": (1, 2)}, 4096)
    assert json.loads(data)["areas"][0][0] == '<b onmouseover="x()">Area</b>'  # data, never HTML: the script sets text
