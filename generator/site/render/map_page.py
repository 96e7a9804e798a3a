"""The map page: every paper as a point placed by content (``paper_map.py``), and as a link.

In: the catalog and each paper's point. Out: the page's Markdown (the filters, the canvas
and legend the script fills, and every paper as a link under its area and sub-area: what a
keyboard, a screen reader and a browser without JavaScript use) and ``map.json.gz``, what
``papersite-map.js`` draws with.

The data file holds numbers only, in columns: the i-th paper of each column is the i-th
link of the page's lists (``[data-ps-map-list] a``), whose text and address are the paper's title and
URL. The titles and slugs are on the page already (the link lists); repeating them would
double the map's bytes at 11,672 papers.
"""

from __future__ import annotations

import json
from collections import Counter

from generator import layout
from generator.catalog import NO_TOPIC, Catalog
from generator.pages.decisions import decision_counts, read_decision
from generator.pages.record import PaperRecord, topic_label
from generator.site.render.components import Keep, fresh
from generator.site.render.html import block, esc, link, page
from generator.site.render.stats import paper_counts

MAP_DATA_FILE = "assets/papersite/map.json.gz"
MAP_DATA_VERSION = 1

# One colour per area, in the catalog's area order (Tableau 10, its yellow darkened to show on white;
# grey is kept for papers without a topic). More areas than colours reuse them in order.
AREA_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#c9a100", "#9c755f",
                "#ff9da7", "#2f4b7c", "#8cd17d", "#a0cbe8")
NO_TOPIC_COLOUR = "#9a9a9a"
SELECTION_KEYWORDS_FROM = 2  # keywords of fewer papers are not in the data file (a brushed region's common ones are not)


def area_colours(catalog: Catalog) -> dict[str, str]:
    """Each area's colour: the palette in area order, grey for the papers without a topic."""
    named = [a.name for a in catalog.areas if a.name != NO_TOPIC]
    colours = {name: AREA_COLOURS[n % len(AREA_COLOURS)] for n, name in enumerate(named)}
    return {**colours, NO_TOPIC: NO_TOPIC_COLOUR}


def _area_of(paper: PaperRecord) -> str:
    return paper.topic.area if paper.topic else NO_TOPIC


def map_order(catalog: Catalog) -> list[tuple[str, str | None, list[PaperRecord]]]:
    """The page's groups, (area, sub-area or None, papers): each area's sub-areas, then its papers with
    the area alone, in the catalog's orders (papers without a topic are the catalog's last area). Both
    the link lists and the data file's columns follow it."""
    groups: list[tuple[str, str | None, list[PaperRecord]]] = []
    for area in catalog.areas:
        for sub in area.subareas:
            groups.append((area.name, sub.name, list(sub.papers)))
        alone = [p for p in area.papers if catalog.paper_subarea(p) is None]
        if alone:
            groups.append((area.name, None, alone))
    return groups


def map_data(catalog: Catalog, points: dict[str, tuple[int, int]], grid: int) -> bytes:
    """The JSON of the map's data file (module docstring): the points, each paper's topic, decision
    and common keywords as numbers, and the names those numbers stand for."""
    groups = map_order(catalog)
    colours = area_colours(catalog)
    area_number = {area.name: n for n, area in enumerate(catalog.areas)}
    topics: list[list] = []  # [label, area number]: the topic filter's choices and the points' colours
    topic_number: dict[tuple[str, str | None], int] = {}
    for area in catalog.areas:
        topic_number[(area.name, None)] = len(topics)
        topics.append([area.name, area_number[area.name]])
        for sub in area.subareas:
            topic_number[(area.name, sub.name)] = len(topics)
            topics.append([topic_label(area.name, sub.name), area_number[area.name]])
    papers = [p for _, _, group in groups for p in group]
    decisions = decision_counts(p.decision for p in papers)
    decision_number = {key: n for n, (key, _, _) in enumerate(decisions)}
    # each paper's keywords and decision looked up once (11,672 papers, a few dozen decision texts)
    keywords_of = [[k.name for k in catalog.paper_keywords(p)] for p in papers]
    keyword_papers = Counter([name for names in keywords_of for name in names])
    kept = [k for k in catalog.keywords if keyword_papers[k.name] >= SELECTION_KEYWORDS_FROM]
    keyword_number = {k.name: n for n, k in enumerate(kept)}
    decision_of: dict[str | None, int] = {}
    middle = (grid // 2, grid // 2)
    columns: dict[str, list] = {"x": [], "y": [], "topic": [], "decision": [], "keywords": []}
    for paper, names in zip(papers, keywords_of):
        x, y = points.get(paper.slug, middle)
        sub = catalog.paper_subarea(paper)
        if paper.decision not in decision_of:
            decision = read_decision(paper.decision)
            decision_of[paper.decision] = decision_number[decision.key if decision else "none"]
        columns["x"].append(x)
        columns["y"].append(y)
        columns["topic"].append(topic_number.get((_area_of(paper), sub.name if sub else None), -1))
        columns["decision"].append(decision_of[paper.decision])
        columns["keywords"].append([keyword_number[name] for name in names if name in keyword_number])
    data = {
        "version": MAP_DATA_VERSION,
        "grid": grid,
        "papers": len(papers),
        "areas": [[area.name, colours[area.name]] for area in catalog.areas],
        "no_topic": [NO_TOPIC, NO_TOPIC_COLOUR],
        "topics": topics,
        "decisions": [label for _, label, _ in decisions],
        "keyword_names": [[k.name, k.slug] for k in kept],
        "keyword_url": layout.KEYWORD.pattern,
        **columns,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _map_items(here: str, papers: tuple[PaperRecord, ...]) -> str:
    return "\n".join(f"<li>{link(layout.relative(here, layout.paper_url(p.slug)), p.title)}</li>" for p in papers)


def map_page(catalog: Catalog, keep: Keep = fresh) -> str:
    """The map page's Markdown (module docstring). ``keep``: each group's list kept by its papers (an edit
    renders the groups of the papers it changed, not 11,672 links)."""
    here = layout.MAP.url()
    groups = map_order(catalog)
    papers = sum(len(group) for _, _, group in groups)
    area_count = Counter(area for area, _, group in groups for _ in group)
    legend = "".join(
        f'<li><span class="ps-map-swatch" style="--ps-swatch: {colour}" aria-hidden="true"></span>'
        f'{esc(name)} <span class="ps-count">{area_count[name]:,}</span></li>'
        for name, colour in area_colours(catalog).items()
        if area_count[name]
    )
    topic_options = "".join(
        f'<option value="{esc(a.name)}">{esc(a.name)}</option>'
        + "".join(f'<option value="{esc(topic_label(a.name, s.name))}">\u2003{esc(s.name)}</option>' for s in a.subareas)
        for a in catalog.areas if a.name != NO_TOPIC
    )
    decisions = paper_counts(catalog).decisions  # (the groups hold every paper once)
    decision_options = "".join(f'<option value="{esc(label)}">{esc(label)} ({n:,})</option>' for _, label, n in decisions)
    lists = []
    for area in dict.fromkeys(area for area, _, _ in groups):
        parts = []
        for _, sub, group in (g for g in groups if g[0] == area and g[2]):
            heading = f"<h3>{esc(sub or ('No sub-area' if area != NO_TOPIC else NO_TOPIC))} <span class=ps-count>{len(group):,}</span></h3>"
            items = keep(f"map\0{area}\0{sub or ''}", _map_items, here, tuple(group))
            parts.append(f'{heading}<ul class="ps-map-papers">\n{items}\n</ul>')
        lists.append(f"<details><summary>{esc(area)} <span class=ps-count>{area_count[area]:,}</span></summary>{''.join(parts)}</details>")
    data_href = layout.relative(here, MAP_DATA_FILE)
    body = block(
        "<h1>Map</h1>",
        f"<p>All {papers:,} papers, placed by what their titles and abstracts say: papers close together are about "
        "similar things. The colour is the area.</p>",
        '<form class="ps-map-filters" data-ps-map-filters role="search" hidden>',
        '<div class="ps-explore-row"><label for="ps-map-q">Search</label>'
        '<input id="ps-map-q" name="q" type="search" placeholder="e.g. diffusion, graph neural networks" autocomplete="off"></div>',
        '<div class="ps-explore-row"><label for="ps-map-topic">Topic</label>'
        f'<select id="ps-map-topic" name="topic"><option value="">Any topic</option>{topic_options}</select></div>',
        '<div class="ps-explore-row"><label for="ps-map-decision">Decision</label>'
        f'<select id="ps-map-decision" name="decision"><option value="">Any decision</option>{decision_options}</select></div>',
        '<div class="ps-explore-row"><button type="reset" class="md-button">Clear</button></div>',
        "</form>",
        '<p class="ps-map-status" data-ps-map-status aria-live="polite"></p>',
        f'<div class="ps-map" data-ps-map="{esc(data_href)}" hidden>'
        f'<canvas class="ps-map-canvas" role="img" aria-label="Map of {papers:,} papers by content; every paper is '
        'listed by area below the map"></canvas>'
        '<div class="ps-map-tip" data-ps-map-tip hidden></div></div>',
        f'<ul class="ps-map-legend" aria-label="Colours: the areas">{legend}</ul>',
        '<p class="ps-map-help" data-ps-map-help hidden>Point at a paper for its title, click to open it, drag across a '
        "region to list its papers and their commonest keywords. Every paper is also listed by area below.</p>",
        '<section class="ps-map-selection" data-ps-map-selection aria-live="polite" hidden></section>',
        "<h2>Papers by area</h2>",
        f'<div class="ps-map-lists" data-ps-map-list>{"".join(lists)}</div>',
    )
    return page({"title": "Map", "hide": ["toc"], "search": {"exclude": True}}, body)
