"""generator/site/render/stats.py: the corpus in bar tables whose labels are text and link where they count."""

from __future__ import annotations

import re

from generator.catalog import build_catalog
from generator.pages.record import PaperRecord, SourceRef, Topic
from generator.site.render.stats import bar_chart, stats_page
from site_fixtures import fixture_records


def _rows(html: str, chart: str) -> list[tuple[str, str]]:
    table = re.search(rf'<table class="ps-bars" id="chart-{chart}">(.*?)</table>', html, re.DOTALL)
    assert table, f"no chart {chart}"
    return re.findall(r'<th scope="row">(.*?)</th>.*?<span class="ps-bar-value">([\d,]+)</span>', table.group(1))


def test_a_chart_scales_bars_to_the_largest_value_and_links_relative_to_the_page():
    html = bar_chart("chart-x", "Title <b>", [("A <i>", 1200, "topics/a/"), ("B", 600, None), ("C", 0, None)], "stats/")
    assert '<caption class="ps-visually-hidden">Title &lt;b&gt;</caption>' in html
    assert '<th scope="row"><a href=../topics/a/>A &lt;i&gt;</a></th>' in html and '<th scope="row">B</th>' in html
    assert re.findall(r"--ps-share: ([\d.]+)", html) == ["1.000", "0.500", "0.000"]
    assert '<span class="ps-bar-value">1,200</span>' in html
    assert "--ps-share: 0.000" in bar_chart("c", "t", [("zero", 0, None)], "stats/")  # no division by zero


def test_the_page_counts_what_the_catalog_holds():
    records = fixture_records()
    html = stats_page(build_catalog(records))
    assert html.startswith('---\ntitle: "Stats"\nsearch:\n  exclude: true\n---\n')
    assert f"<p>{len(records)} papers, " in html
    areas = dict(_rows(html, "areas"))
    assert areas["<a href=../topics/deep-learning/>Deep Learning</a>"] == "3"
    assert areas["<a href=../topics/no-topic/>No topic</a>"] == "1"
    assert dict(_rows(html, "topic-sources")) == {
        "Given by a listing": "3", "Inferred from title and abstract": "2", "No topic": "1"}
    assert dict(_rows(html, "sources")) == {"000_a.txt": "2", "001_b.txt": "2", "002_c.txt": "1", "003_d.txt": "2"}
    assert dict(_rows(html, "authors"))["0 authors"] == "1"


def test_the_decisions_chart_is_left_out_when_no_paper_has_a_decision():
    records = [r.replace(decision=None) for r in fixture_records()]
    assert 'id="decisions"' not in stats_page(build_catalog(records))
    assert dict(_rows(stats_page(build_catalog(fixture_records())), "decisions")) == {"Poster": "1", "No decision": "5"}


def test_long_author_lists_share_one_bar_and_many_sub_areas_are_cut_to_forty():
    many = [PaperRecord(id=f"p{i}", slug=f"p{i}", title=f"Paper {i}", authors=[f"Author {j}" for j in range(20 + i)],
                        topic=Topic("Area", f"Sub-area {i:02d}", "listing"), sources=[SourceRef("l.txt", i, "numbered")])
            for i in range(45)]
    html = stats_page(build_catalog(many))
    assert _rows(html, "authors") == [("15+ authors", "45")]
    assert "Papers per sub-area (top 40 of 45)" in html and len(_rows(html, "subareas")) == 40


def test_the_counts_of_one_pass_are_those_of_each_pages_own_walk() -> None:
    """``paper_counts`` walks the papers once for the About, Stats, home, All papers and map pages: what it counts
    is what each page counted on its own walk (kept here as the pages wrote it)."""
    from collections import Counter
    from dataclasses import replace

    from generator.pages.decisions import decision_counts
    from generator.pages.record import Fill
    from generator.site.render.components import paper_venue
    from generator.site.render.stats import paper_counts

    records = fixture_records()
    records = [replace(r, venue=["ICLR 2025", "  ICLR   2025 ", "   ", None][n % 4],
                       sources=[*r.sources, SourceRef(file="b.csv", entry=n, format="csv")] if n % 3 == 0 else r.sources,
                       filled_from=[Fill(reference="ref.bib", record=1, match="forum", score=1.0, fields=("authors",))] if n % 5 == 0 else [],
                       title_derived=n % 7 == 0)
               for n, r in enumerate(records)]
    papers = build_catalog(records).papers
    counts = paper_counts(build_catalog(records))
    kinds = Counter((s.file, s.format) for p in papers for s in p.sources)
    assert counts.entries == Counter(s.file for p in papers for s in p.sources)
    assert counts.formats == {file: form for file, form in kinds}
    assert counts.fills == Counter(f.reference for p in papers for f in p.filled_from)
    assert counts.merged == sum(1 for p in papers if len(p.sources) > 1) > 0
    assert counts.derived == sum(1 for p in papers if p.title_derived) > 0
    assert counts.with_authors == sum(1 for p in papers if p.authors)
    assert counts.authors == Counter(min(len(p.authors), 15) for p in papers)
    assert counts.decisions == decision_counts(p.decision for p in papers)
    assert counts.topic_sources == Counter(p.topic.source if p.topic else "none" for p in papers)
    assert counts.venues == sorted({v for v in map(paper_venue, papers) if v}) == ["ICLR 2025"]
