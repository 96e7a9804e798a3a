"""generator/site/render/components.py: the pieces every list and page shares, the same everywhere."""

from __future__ import annotations

import re

from generator.pages.record import PaperRecord, SourceRef, Topic
from generator.site.render import components


def paper(**changes) -> PaperRecord:
    base = PaperRecord(
        id="a1", slug="shortcut", title="One <Step> Diffusion", authors=["Kevin Frans", "Danijar Hafner", "Sergey Levine", "Pieter Abbeel"],
        sources=[SourceRef("l.txt", 1, "numbered")],
    )
    return base.replace(**changes)


def test_author_line_says_et_al_only_where_the_first_author_is_known() -> None:
    assert components.author_line(paper()) == "Kevin Frans, Danijar Hafner, Sergey Levine et al."
    sorted_only = components.author_line(paper(author_order="alphabetical"))
    assert "et al." not in sorted_only and "and 1 more" in sorted_only and "alphabetical" in sorted_only
    assert components.author_line(paper(authors=["Ana Lee"])) == "Ana Lee"


def test_papers_without_a_known_first_author_sort_last() -> None:
    keys = sorted([components.first_author_key(paper(authors=["Zoe Z"])), components.first_author_key(paper(author_order="unknown")),
                   components.first_author_key(paper(authors=[]))])
    assert keys == ["", "", "zoe z"]  # "" is what papersite-lists.js puts last (no data-first)
    assert components.first_author_data(paper(authors=[])) == components.first_author_data(paper(author_order="unknown")) == ""
    assert components.first_author_data(paper(authors=["Zoe Z"])) == ' data-first="zoe z"'


def test_crumbs_link_relative_to_the_page_and_escape_names() -> None:
    html = components.crumbs("topics/a/b/", [("topics/", "Topics"), ("topics/a/", "A <&> B")])
    assert "href=../../>" in html and "href=../>" in html  # no quotes where HTML needs none
    assert "A &lt;&amp;&gt; B" in html and html.count(" › ") == 1  # the trail's own text: no span (papersite.css)


def test_badges_say_what_is_known() -> None:
    assert components.decision_badge(paper()) == ""
    assert "Oral" in components.decision_badge(paper(decision="Accept (Oral)"))
    unsure = Topic("Deep Learning", "Theory", "inferred", 0.3, 0.9)
    assert components.is_uncertain(unsure) and "uncertain" in components.guess_badge(unsure)
    sure = Topic("Deep Learning", "Theory", "inferred", 0.95, 0.952)
    assert not components.is_uncertain(sure) and components.inferred_label(sure) == "inferred, 95% confident"


def test_a_paper_list_escapes_titles_and_links_each_paper_once() -> None:
    from generator.catalog import build_catalog

    papers = [paper(), paper(id="a2", slug="other", title="Other", topic=Topic("Vision", None, "inferred", 0.2))]
    catalog = build_catalog(papers)
    html = components.paper_list(papers, "authors/kevin-frans/", catalog, show_topic=True, mark_guesses=True)
    assert "One &lt;Step&gt; Diffusion" in html and "<Step>" not in html
    assert re.findall(r"href=([^\s>]+)", html) == ["../../papers/shortcut/", "../../papers/other/"]
    assert "Vision" in html and "inferred" in html


def test_a_list_filters_by_decision_only_where_its_papers_have_one() -> None:
    from generator.catalog import build_catalog

    decided = [paper(id=f"d{i}", slug=f"p{i}", title=f"Paper {i}", decision=d)
               for i, d in enumerate(["Accept (Oral)", "Reject", None, "Accept (Oral)"] * 3)]
    controls = components.list_controls(decided, "keywords/k/", "ps-list", {"keyword": "k"})
    menu = re.search(r"<select data-ps-decision>(.*?)</select>", controls).group(1)
    assert re.findall(r'value="([^"]*)"', menu) == ["", "oral", "rejected", "none"], "kinds in filter order, no decision last"
    assert "Oral (6)" in menu and "No decision (3)" in menu
    items = components.paper_list(decided, "keywords/k/", build_catalog(decided), list_id="ps-list")
    assert sorted(re.findall(r"data-decision=([^\s>]+)", items)) == sorted(["oral", "rejected", "none", "oral"] * 3)
    undecided = [p.replace(decision=None) for p in decided]
    assert "data-ps-decision" not in components.list_controls(undecided, "keywords/k/", "ps-list", {"keyword": "k"})


def test_a_keyword_every_paper_carries_is_held_once_by_the_list_and_the_filter_reads_the_same_words() -> None:
    from generator.catalog import build_catalog

    papers = [paper(id=f"k{i}", slug=f"k{i}", title=f"Paper {i}", keywords=["Graph  Neural Networks", f"topic {i}"])
              for i in range(12)]
    catalog = build_catalog(papers)
    shared = components.paper_list(papers, "keywords/graph-neural-networks/", catalog, list_id="ps-list", common="graph neural networks")
    alone = components.paper_list(papers, "keywords/graph-neural-networks/", catalog, list_id="ps-list")
    assert shared.startswith('<ul class=ps-papers id=ps-list data-text="graph neural networks">')
    common = re.search(r'<ul [^>]*data-text="([^"]*)"', shared).group(1)
    items = re.findall(r'<li [^>]*data-text="([^"]*)"', shared)
    assert items and not any("graph" in text for text in items)
    # the words each item is filtered on (papersite-lists.js: the item's, then the list's) are the same set
    assert [set(f"{text} {common}".split()) for text in items] == [set(text.split()) for text in re.findall(r'<li [^>]*data-text="([^"]*)"', alone)]
    # a paper without it: every item keeps its own words
    mixed = papers + [paper(id="x", slug="x", title="Other", keywords=["other"])]
    kept = components.paper_list(mixed, "keywords/graph-neural-networks/", build_catalog(mixed), list_id="ps-list", common="graph neural networks")
    assert kept.startswith("<ul class=ps-papers id=ps-list>") and kept.count("graph neural networks") == 12



def _recording_keep(kept: dict[str, tuple], rendered: list[str]):  # noqa: ANN202
    """A ``keep`` over ``kept`` (label -> (args, text)), as the stage's keeps by the arguments; records the
    labels it rendered again."""
    def keep(label: str, render, *args):  # noqa: ANN001, ANN202
        if label in kept and kept[label][0] == args:
            return kept[label][1]
        rendered.append(label)
        kept[label] = (args, render(*args))
        return kept[label][1]
    return keep


def _rows(items: tuple[tuple[str, str], ...], suffix: str) -> str:
    return "\n".join(f"<li>{text}{suffix}</li>" for _, text in items)


def _key(item: tuple[str, str]) -> str:
    return item[0]


def test_kept_chunks_give_the_whole_list_and_an_edit_renders_only_the_chunks_it_touches() -> None:
    items = [(f"paper-{n:04d}", f"Title {n}") for n in range(2000)]
    kept: dict[str, tuple] = {}
    rendered: list[str] = []
    keep = _recording_keep(kept, rendered)
    whole = components.kept_chunks(keep, "list", _rows, items, _key, "!")
    assert "\n".join(whole) == _rows(tuple(items), "!")
    assert 10 < len(rendered) < 200  # runs of ~CHUNK_CUT items: not one an item, nor one in all

    rendered.clear()  # an edited item renders its own chunk again, and no other
    edited = [(key, "Retitled") if key == "paper-0777" else (key, text) for key, text in items]
    assert "\n".join(components.kept_chunks(keep, "list", _rows, edited, _key, "!")) == _rows(tuple(edited), "!")
    assert len(rendered) == 1

    rendered.clear()  # one that moves renders the chunk it left and the one it joins (one chunk if both are one)
    moved = [item for item in edited if item[0] != "paper-0100"]
    moved.insert(1500, edited[100])
    assert "\n".join(components.kept_chunks(keep, "list", _rows, moved, _key, "!")) == _rows(tuple(moved), "!")
    assert 1 <= len(rendered) <= 3

    # a short list, or none, is given whole
    assert "\n".join(components.kept_chunks(components.fresh, "list", _rows, items[:3], _key, "")) == _rows(tuple(items[:3]), "")
    assert components.kept_chunks(components.fresh, "list", _rows, [], _key, "") == []
