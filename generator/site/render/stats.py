"""Stats page: the corpus in charts, drawn at build time as HTML bar tables (no chart library).

In: the catalog. Out: the text of ``stats.md``. Each chart is a table of rows
(label, bar, count): the labels are real text at the page's font size, whole
(they wrap on a phone instead of being cut or shrunk with an SVG), and link
to the index page they count, where one exists. The bar is decoration
(``aria-hidden``); the count is read out beside its label.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from generator.pages.decisions import decision_counts
from generator.pages.record import PaperRecord, topic_label
from generator import layout
from generator.catalog import Catalog
from generator.site.render.components import paper_venue
from generator.site.render.html import block, esc, link, page


def bar_chart(chart_id: str, title: str, rows: list[tuple[str, int, str | None]], here: str) -> str:
    """One chart; rows are (label, value, link target URL or None)."""
    top = max((value for _, value, _ in rows), default=0) or 1
    body = []
    for label, value, target in rows:
        shown = link(layout.relative(here, target), label) if target else esc(label)
        # a share of the cell, in thousandths so the page text is the same on every build
        share = f"{value / top:.3f}"
        body.append(
            f'<tr><th scope="row">{shown}</th><td><span class="ps-bar" style="--ps-share: {share}" aria-hidden="true">'
            f'</span><span class="ps-bar-value">{value:,}</span></td></tr>'
        )
    return (
        f'<table class="ps-bars" id="{esc(chart_id)}"><caption class="ps-visually-hidden">{esc(title)}</caption>'
        '<thead class="ps-visually-hidden"><tr><th scope="col">What</th><th scope="col">Count</th></tr></thead>'
        f'<tbody>{"".join(body)}</tbody></table>'
    )


@dataclass(frozen=True)
class PaperCounts:
    """What the About and Stats pages count of the papers, made in one pass (``paper_counts``): each page's
    own passes over 11,672 papers were ~0.13 CPU s of every edit."""

    entries: Counter  # listing file -> the entries of it the pages were made from
    formats: dict[str, str]  # listing file -> its format (its last in the order the entries were met)
    fills: Counter  # reference catalogue -> pages it completed
    merged: int  # pages made of more than one entry
    derived: int  # titles derived (no listing had one)
    with_authors: int  # papers whose authors are known
    authors: Counter  # authors a paper (15 for 15 or more) -> papers
    decisions: list[tuple[str, str, int]]  # ``decision_counts`` of the papers
    topic_sources: Counter  # where a paper's topic comes from ("none": no topic) -> papers
    venues: list[str]  # the papers' own venues (``paper_venue``), sorted, but none


def paper_counts(catalog: Catalog) -> PaperCounts:
    """The papers' ``PaperCounts``, made once for the catalog (kept in its ``cache``)."""
    found = catalog.cache.get("paper counts")
    if found is None:
        found = catalog.cache["paper counts"] = _counted(catalog.papers)
    return found


def _counted(papers: list[PaperRecord]) -> PaperCounts:
    entries: Counter = Counter()
    kinds: Counter = Counter()  # (file, format)
    fills: Counter = Counter()
    authors: Counter = Counter()
    topic_sources: Counter = Counter()
    merged = derived = with_authors = 0
    venues: set[str] = set()
    for paper in papers:
        if paper.venue:
            venues.add(paper_venue(paper))
        sources = paper.sources
        for source in sources:
            entries[source.file] += 1
            kinds[(source.file, source.format)] += 1
        merged += len(sources) > 1
        for fill in paper.filled_from:
            fills[fill.reference] += 1
        derived += bool(paper.title_derived)
        with_authors += bool(paper.authors)
        authors[min(len(paper.authors), 15)] += 1
        topic_sources[paper.topic.source if paper.topic else "none"] += 1
    return PaperCounts(entries, {file: form for file, form in kinds}, fills, merged, derived, with_authors, authors,
                       decision_counts(paper.decision for paper in papers), topic_sources, sorted(venues - {""}))


def stats_page(catalog: Catalog) -> str:
    here = layout.STATS.url()
    areas = [(a.name, len(a.papers), a.url) for a in sorted(catalog.areas, key=lambda a: (-len(a.papers), a.name))]
    subareas = sorted(
        ((topic_label(s.area.name, s.name), len(s.papers), s.url) for a in catalog.areas for s in a.subareas),
        key=lambda r: (-r[1], r[0]),
    )
    keywords = sorted(((k.name, len(k.papers), k.url) for k in catalog.keywords), key=lambda r: (-r[1], r[0]))[:30]
    counts = paper_counts(catalog)
    per_paper = counts.authors
    authors_rows = [
        (f"{n}{'+' if n == 15 else ''} author{'s' if n != 1 else ''}", per_paper[n], None) for n in sorted(per_paper)
    ]
    decision_rows = [(label, n, None) for key, label, n in counts.decisions]
    if all(label == "No decision" for label, _, _ in decision_rows):
        decision_rows = []
    topic_sources = counts.topic_sources
    source_labels = {
        "listing": "Given by a listing",
        "conference": "The conference's label",
        "maintainer": "Set by a maintainer",
        "inferred": "Inferred from title and abstract",
        "none": "No topic",
    }
    topic_rows = [(source_labels[key], topic_sources[key], None) for key in source_labels if topic_sources[key]]
    source_rows = [(f, n, None) for f, n in sorted(counts.entries.items())]
    sections = [
        ("decisions", "Papers per decision", decision_rows),
        ("areas", "Papers per area", areas),
        ("subareas", "Papers per sub-area" + (f" (top 40 of {len(subareas)})" if len(subareas) > 40 else ""), subareas[:40]),
        ("keywords", "Top 30 keywords", keywords),
        ("topic-sources", "Where each paper's topic comes from", topic_rows),
        ("authors", "Authors per paper", authors_rows),
        ("sources", "Listing entries per source file", source_rows),
    ]
    body = block(
        "<h1>Stats</h1>",
        f"<p>{len(catalog.papers):,} papers, {len(catalog.authors):,} authors, {len(catalog.keywords):,} keywords; "
        f"authors are known for {counts.with_authors:,} of the papers. "
        "Labels link to the pages they count.</p>",
        *(f'<h2 id="{cid}">{esc(title)}</h2><figure class="ps-figure">{bar_chart("chart-" + cid, title, rows, here)}</figure>' for cid, title, rows in sections if rows),
    )
    return page({"title": "Stats", "search": {"exclude": True}}, body)
