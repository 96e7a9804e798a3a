"""generator/site/render/indices.py: the home, papers, topic, keyword and author pages."""

from __future__ import annotations

import re

import pytest

from generator import layout
from generator.catalog import build_catalog
from generator.config import load_config
from generator.site.render import indices
from generator.site.render.cite import Venue
from generator.site.render.paper_pages import SiteContext
from site_fixtures import fixture_records, write_project


@pytest.fixture()
def setup(tmp_path):
    config = load_config(write_project(tmp_path))
    records = fixture_records()
    return build_catalog(records), SiteContext(config, Venue.from_site_name(config.site_name), {})


def test_every_index_page_is_staged_at_its_route(setup) -> None:
    catalog, context = setup
    pages = indices.index_pages(catalog, context)
    for route in (layout.HOME, layout.PAPERS, layout.TOPICS, layout.KEYWORDS, layout.AUTHORS):
        assert route.staged() in pages, route.kind
    for area in catalog.areas:
        assert layout.AREA.staged(area.slug) in pages
        for sub in area.subareas:
            assert layout.SUBAREA.staged(area.slug, sub.slug) in pages


def test_the_home_page_counts_what_the_catalog_holds_and_links_each_section(setup) -> None:
    catalog, context = setup
    home = indices.home_page(catalog, context)
    assert f"<strong>{len(catalog.papers)}</strong> papers" in home
    assert f"<strong>{len(catalog.authors)}</strong> authors" in home
    for route in (layout.PAPERS, layout.TOPICS, layout.KEYWORDS, layout.AUTHORS, layout.EXPLORE, layout.STATS, layout.MAP):
        assert f'href="{route.url()}"' in home, route.kind
    assert "ps-venues" not in home  # one venue: nothing to count


def test_the_home_page_counts_papers_per_venue_when_there_are_several(setup) -> None:
    catalog, context = setup
    papers = [p.replace(venue="ICML 2025") if i < 2 else p for i, p in enumerate(catalog.papers)]
    home = indices.home_page(build_catalog(papers), context)
    counts = dict(re.findall(r"<li>([^<]+) <span class=ps-count>(\d+)</span></li>", home.split("ps-venues", 1)[1]))
    assert counts["ICML 2025"] == "2" and sum(map(int, counts.values())) == len(papers)


def test_topic_pages_count_the_papers_they_list(setup) -> None:
    catalog, _ = setup
    pages = indices.topics_pages(catalog)
    for area in catalog.areas:
        for sub in area.subareas:
            text = pages[layout.SUBAREA.staged(area.slug, sub.slug)]
            listed = len(re.findall(r'<li[^>]*><a href="?[^"\s>]*papers/', text))
            assert listed == len(sub.papers), (sub.name, listed)


def test_author_pages_list_each_paper_of_the_author_once(setup) -> None:
    catalog, _ = setup
    for author in catalog.authors:
        page = next(p for p in indices.author_pages(catalog) if p.url == author.url)
        links = re.findall(r'href="?\.\./\.\./papers/([^/]+)/[">]', page.body)
        assert sorted(set(links)) == sorted({p.slug for p in author.papers}), author.name


def test_an_area_page_counts_its_papers_without_a_sub_area_where_it_lists_them(setup) -> None:
    """An area with sub-areas lists only its papers without one: the list's controls count that list,
    and the Explore link (which opens the whole area) sits under the area's own count."""
    import dataclasses

    from generator.pages.record import Topic

    first = fixture_records()[0]
    records = fixture_records() + [
        dataclasses.replace(first, id=f"o{i}", slug=f"area-only-{i}", title=f"Area only {i}", topic=Topic("Deep Learning", None, "listing"))
        for i in range(12)
    ]
    catalog = build_catalog(records)
    area = next(a for a in catalog.areas if a.name == "Deep Learning")
    assert area.subareas and len(area.area_only) == 12 and len(area.papers) > 12
    text = indices.topics_pages(catalog)[layout.AREA.staged(area.slug)]
    lead, rest = text.split('<h2 id=subareas>', 1)
    assert f"{len(area.papers)} papers." in lead and f"Open these {len(area.papers)} papers in Explore" in lead
    only = rest.split('<h2 id=area-only>', 1)[1]
    listed = len(re.findall(r'<li[^>]*><a href="?[^"\s>]*papers/', only))
    assert listed == 12
    assert re.findall(r"(\d[\d,]*) papers?\b", re.sub(r"<[^>]+>", " ", only.split("<ul class=ps-papers", 1)[0])) == ["12"]


def test_an_author_page_lists_its_papers_as_every_list_does_and_leaves_its_co_authors_to_the_browser() -> None:
    from generator.pages.record import PaperRecord, SourceRef
    from generator.site import exports

    def paper(slug: str, authors: list[str], **more) -> PaperRecord:
        return PaperRecord(id=slug[:12].ljust(12, "0"), slug=slug, title=slug.title(), authors=authors,
                           sources=[SourceRef("l.txt", 1, "numbered")], **more)

    catalog = build_catalog([
        paper("first", ["Ada <Lovelace>", "Zoë Ångström", "Bob Ray", "Cy Dee"]),
        paper("second", ["Zoë Ångström", "Eve Fox"], author_order="alphabetical"),
    ])
    pages = {p.url: p.body for p in indices.author_pages(catalog)}
    ada = next(a for a in catalog.authors if a.name == "Ada <Lovelace>")
    body = pages[ada.url]
    line = re.search(r"<span class=ps-meta>(.*?)</span>\n", body, re.S).group(1)
    assert line.startswith("Ada &lt;Lovelace&gt;, Zoë Ångström, Bob Ray et al.")  # the paper's order: its first author
    # no co-author in the page: a place for them, with the author's slug, where the browser draws them
    assert f"<div {indices.COAUTHORS_PLACE}={ada.slug}></div>" in body and "id=coauthors" not in body and "<a href=../zoe-angstrom/" not in body
    eve = pages[layout.author_url("eve-fox")]  # an order that is not the paper's says so, as every list line does
    assert re.search(r"ps-meta>(.*?)</span>\n", eve, re.S).group(1).startswith("Zoë Ångström, Eve Fox (alphabetical order)")
    rows = {row[0]: row for row in (exports.coauthor_row(a) for a in catalog.authors)}
    assert rows[ada.slug] == [ada.slug, [["bob-ray", "Bob Ray", 1], ["cy-dee", "Cy Dee", 1], ["zoe-angstrom", "Zoë Ångström", 1]], 0]
    assert rows["zoe-angstrom"][1][-1] == ["eve-fox", "Eve Fox", 1]
