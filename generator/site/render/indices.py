"""Index pages: home, all papers, topics, keywords, authors and about.

In: the catalog and the site context. Out: ``{path in the docs dir: page text}``.
These pages are derived from the paper records at every build and never committed,
so an edit to a paper page shows up in every index after the next build.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from itertools import groupby
from typing import NamedTuple

from generator.pages.decisions import read_decision
from generator.pages.record import PaperRecord, topic_label
from generator import layout
from generator.catalog import NO_TOPIC, Author, Catalog, Keyword
from generator.site.render import cite
from generator.text import fold
from generator.site.render.views import Views
from generator.site.render.html import DetailPage, attr, block, esc, link, out_link, page, plain_title
from generator.site.render.components import (
    DETAIL_TEMPLATE, Keep, author_line, controls_box, crumbs, decision_key, decision_menu, explore_link, first_author_data, is_uncertain, item_text,
    fresh, item_meta, kept_chunks, list_controls, paper_list, paper_venue,
)
from generator.site.render.paper_pages import SiteContext
from generator.site.render.stats import paper_counts

GENERATED = {"search": {"exclude": True}}
def _front(title: str, hide_toc: bool = True) -> dict:
    return {"title": plain_title(title), **({"hide": ["toc"]} if hide_toc else {}), **GENERATED}


def _detail_front(title: str) -> dict:
    """Front matter of a topic, keyword or author page: the lighter detail template."""
    return {**_front(title), "template": DETAIL_TEMPLATE}


def _letter(name: str) -> str:
    first = fold(name)[:1].upper()
    return first if "A" <= first <= "Z" else "#"


def _a_to_z(here: str, entries: list[tuple[str, str, int]]) -> str:
    """Entries (name, url, count) grouped by first letter, with a letter bar on top. What the count
    counts the page's lead says once: not a tooltip on each of 35k authors."""
    groups = [(letter, list(items)) for letter, items in groupby(entries, key=lambda e: _letter(e[0]))]
    bar = " ".join(f'<a href="#letter-{esc(letter.lower() if letter != "#" else "other")}">{esc(letter)}</a>' for letter, _ in groups)
    sections = []
    for letter, items in groups:
        anchor = letter.lower() if letter != "#" else "other"
        lis = "".join(
            f"<li>{link(layout.relative(here, url), name)} <span class=ps-count>{count}</span>"  # (no </li>: HTML ends it)
            for name, url, count in items
        )
        sections.append(f'<h2 id="letter-{anchor}">{esc(letter)}</h2><ul class=ps-columns>{lis}</ul>')
    return block(f'<nav class=ps-letters aria-label="Jump to letter">{bar}</nav>', *sections)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _decision_summary(counts: list[tuple[str, str, int]]) -> str:
    """'211 oral, 378 spotlight ... ; 12 without a decision' as HTML text (``counts``: the papers'
    ``decision_counts``), '' when no paper has one."""
    if all(key == "none" for key, _, _ in counts):
        return ""
    accepted = sum(n for key, _, n in counts if key in ("oral", "spotlight", "poster", "accepted"))
    parts = [f"{n:,} {esc(label.lower())}" for key, label, n in counts if key != "none"]
    none = sum(n for key, _, n in counts if key == "none")
    tail = f"; {none:,} without a decision" if none else ""
    return f"{accepted:,} accepted. By decision: {', '.join(parts)}{tail}."


def _authors_known(catalog: Catalog) -> str:
    return f"Authors are known for {paper_counts(catalog).with_authors:,} of {_plural(len(catalog.papers), 'paper')}."


def _venue_counts(papers: list[PaperRecord], site: cite.Venue) -> str:
    """Papers per venue, when the papers come from more than one (a paper without its own venue is the site's)."""
    counts = Counter(cite.venue_of(paper, site).short for paper in papers)
    if len(counts) < 2:
        return ""
    items = "".join(
        f"<li>{esc(venue)} <span class=ps-count>{n:,}</span></li>"
        for venue, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    )
    return f'<h2>Venues</h2><ul class="ps-columns ps-venues">{items}</ul>'


def home_page(catalog: Catalog, context: SiteContext) -> str:
    name = context.config.site_name
    here = ""
    counts = [
        (len(catalog.papers), "papers", layout.PAPERS.url()),
        (len(catalog.authors), "authors", layout.AUTHORS.url()),
        (len(catalog.keywords), "keywords", layout.KEYWORDS.url()),
        (sum(len(a.subareas) for a in catalog.areas), "sub-areas", layout.TOPICS.url()),
    ]
    cards = "".join(
        f'<li><a href="{esc(url)}"><strong>{n:,}</strong> {esc(label)}</a></li>' for n, label, url in counts
    )
    areas = "".join(
        f"<li>{link(layout.relative(here, a.url), a.name)} <span class=ps-count>{len(a.papers)}</span></li>" for a in catalog.areas
    )
    body = block(
        '<div class=ps-home>',
        f"<h1>{esc(name)}</h1>",
        f'<p class=ps-lead>Every paper of {esc(context.venue.short)} that our listings mention, with its authors, '
        "topic, keywords, abstract and citation, in one searchable site. It works offline and sends no request "
        "to any other site.</p>",
        f'<form class=ps-home-search action="{esc(layout.EXPLORE.url())}" method=get role=search>'
        '<label for=ps-home-q class=ps-visually-hidden>Search papers</label>'
        '<input id=ps-home-q name=q type=search placeholder="Search titles, authors, keywords, abstracts" autocomplete=off>'
        '<button class="md-button md-button--primary" type=submit>Search</button></form>',
        f'<ul class=ps-cards>{cards}</ul>',
        f'<p class=ps-coverage>{_authors_known(catalog)} {_decision_summary(paper_counts(catalog).decisions)}</p>',
        _venue_counts(catalog.papers, context.venue),
        "<h2>Browse</h2>",
        '<ul class=ps-entry>'
        f'<li><a href="{esc(layout.PAPERS.url())}">All papers</a>: one list to filter and sort</li>'
        f'<li><a href="{esc(layout.TOPICS.url())}">Topics</a>: areas and their sub-areas</li>'
        f'<li><a href="{esc(layout.KEYWORDS.url())}">Keywords</a> and <a href="{esc(layout.AUTHORS.url())}">authors</a>, A to Z</li>'
        f'<li><a href="{esc(layout.EXPLORE.url())}">Explore</a>: full-text search with topic, keyword and author filters</li>'
        f'<li><a href="{esc(layout.STATS.url())}">Stats</a>: the corpus in charts</li>'
        f'<li><a href="{esc(layout.MAP.url())}">Map</a>: every paper placed by its subject</li>'
        "</ul>",
        "<h2>Areas</h2>",
        f'<ul class=ps-columns>{areas}</ul>',
        "</div>",
    )
    return page({"title": plain_title(name), "hide": ["toc"], **GENERATED}, body)


def papers_page(catalog: Catalog, keep: Keep = fresh) -> str:
    here = layout.PAPERS.url()
    options = "".join(f'<option value="{esc(a.name)}">{esc(a.name)}</option>' for a in catalog.areas)
    decision_select = decision_menu(paper_counts(catalog).decisions)
    venues = paper_counts(catalog).venues
    venue_select = ""
    if len(venues) > 1:  # one venue, or none of the papers' own, is the project's: nothing to choose
        choices = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in venues)
        venue_select = f'<label>Venue <select data-ps-venue><option value="">All venues</option>{choices}</select></label>'
    with_venue = bool(venue_select)
    rows = kept_chunks(keep, f"All papers\0{with_venue:d}", _papers_rows, catalog.papers, paper_slug, here, with_venue)
    area_select = f'<label>Area <select data-ps-area><option value="">All areas</option>{options}</select></label>'
    controls = controls_box("ps-all-papers", area_select + decision_select + venue_select, len(catalog.papers))
    body = block(
        "<h1>All papers</h1>",
        f"<p>{_plural(len(catalog.papers), 'paper')}, sorted by title. Type to filter; the list narrows as you type. "
        f"{_authors_known(catalog)}</p>",
        controls,
        '<ol class="ps-papers ps-all" id=ps-all-papers>',
        *rows,
        "</ol>",
    )
    return page(_front("All papers"), body)


def _papers_rows(papers: tuple[PaperRecord, ...], here: str, with_venue: bool) -> str:
    return "\n".join(_papers_row(paper, here, with_venue) for paper in papers)


def paper_slug(paper: PaperRecord) -> str:
    return paper.slug


def _papers_row(paper: PaperRecord, here: str, with_venue: bool) -> str:
    """A paper's row of All papers: what its filters and sorts read, its link, badges and authors."""
    decision = read_decision(paper.decision)
    venue = attr("data-venue", paper_venue(paper)) if with_venue else ""
    area = paper.topic.area if paper.topic else NO_TOPIC
    sub = paper.topic.subarea if paper.topic and paper.topic.subarea else ""
    text = item_text(paper)
    return (
        f"<li{attr('data-area', area)}{attr('data-decision', decision_key(paper))}"
        f"{first_author_data(paper)}{attr('data-text', text)}{venue}>"
        f"{link(layout.relative(here, layout.paper_url(paper.slug)), paper.title)}"
        + (' <span class=ps-badge>derived title</span>' if paper.title_derived else "")
        + (f' <span class="ps-badge ps-decision ps-decision-{esc(decision.key)}">{esc(decision.label)}</span>' if decision else "")
        + item_meta(([esc(author_line(paper))] if paper.authors else []) + [esc(topic_label(area, sub))])
    )


def _guesses_note(papers: list[PaperRecord]) -> str:
    """How many of a topic's papers are there by the model's guess (marked in the list)."""
    guessed = [p for p in papers if p.topic and p.topic.source == "inferred"]
    conference = sum(1 for p in papers if p.topic and p.topic.source == "conference")
    said = f" {conference:,} carry the conference's own label." if conference else ""
    if not guessed:
        return said
    uncertain = sum(1 for p in guessed if is_uncertain(p.topic))
    return said + (
        f" {len(guessed):,} of them have a topic inferred from the title and abstract (marked"
        f" <em>inferred</em>), {uncertain:,} of those <em>uncertain</em>."
    )


def topics_pages(catalog: Catalog, keep: Keep = fresh) -> dict[str, str]:
    pages: dict[str, str] = {}
    here = layout.TOPICS.url()
    sections = []
    for area in catalog.areas:
        subs = "".join(
            f"<li>{link(layout.relative(here, s.url), s.name)} <span class=ps-count>{len(s.papers)}</span></li>"
            for s in area.subareas
        )
        only = len(area.area_only)
        if only and area.subareas:
            subs += f'<li><a href="{esc(layout.relative(here, area.url))}#area-only">Area only, no sub-area</a> <span class=ps-count>{only}</span></li>'
        sections.append(
            f'<h2 id="{esc(area.slug)}">{link(layout.relative(here, area.url), area.name)} <span class=ps-count>{len(area.papers)}</span></h2>'
            + (f'<ul class=ps-columns>{subs}</ul>' if subs else "")
        )
    total_sub = sum(len(a.subareas) for a in catalog.areas)
    pages[layout.TOPICS.staged()] = page(
        _front("Topics"),
        block(
            "<h1>Topics</h1>",
            f"<p>{_plural(len(catalog.areas), 'area')} and {_plural(total_sub, 'sub-area')}; the number is how many papers each holds. "
            "Topics marked inferred on a paper page were guessed from its title and abstract.</p>",
            *sections,
        ),
    )
    # each area and sub-area page kept whole by what it shows (``keep``): an edit renders again the pages of
    # the topics whose papers changed, where keeping each of their 11,672 list rows cost more
    for area in catalog.areas:
        subs = tuple((s.name, s.slug, len(s.papers)) for s in area.subareas)
        pages[layout.AREA.staged(area.slug)] = keep(area.url, area_page, area.name, area.slug, subs, tuple(area.papers))
        for sub in area.subareas:
            pages[layout.SUBAREA.staged(area.slug, sub.slug)] = keep(
                sub.url, subarea_page, area.name, area.slug, sub.name, sub.slug, tuple(sub.papers))
    return pages


def area_page(name: str, slug: str, subareas: tuple[tuple[str, str, int], ...], papers: tuple[PaperRecord, ...]) -> str:
    """An area's page: its sub-areas (name, slug, papers) and its papers without one."""
    here = layout.area_url(slug)
    subs = "".join(
        f"<li>{link(layout.relative(here, layout.subarea_url(slug, sub)), sub_name)} <span class=ps-count>{count}</span></li>"
        for sub_name, sub, count in subareas
    )
    only = [p for p in papers if not (p.topic and p.topic.subarea)]
    return page(
        _detail_front(name),
        block(
            crumbs(here, [(layout.TOPICS.url(), "Topics")]),
            f"<h1>{esc(name)}</h1>",
            f"<p>{_plural(len(papers), 'paper')}.{_guesses_note(list(papers))}</p>",
            # the area's papers in Explore; the list below is only those without a sub-area, and its
            # controls count those (they counted the whole area: "330 papers" above two)
            explore_link(list(papers), here, {"topic": slug}) if subs else "",
            f'<h2 id=subareas>Sub-areas</h2><ul class=ps-columns>{subs}</ul>' if subs else "",
            f'<h2 id=area-only>{"Papers without a sub-area" if subs else "Papers"}</h2>' if only else "",
            list_controls(only, here, "ps-list", None if subs else {"topic": slug}) if only else "",
            paper_list(only, here, None, show_topic=False, mark_guesses=True, list_id="ps-list") if only else "",
        ),
    )


def subarea_page(area_name: str, area_slug: str, name: str, slug: str, papers: tuple[PaperRecord, ...]) -> str:
    here, area_url = layout.subarea_url(area_slug, slug), layout.area_url(area_slug)
    return page(
        _detail_front(f"{name} ({area_name})"),
        block(
            crumbs(here, [(layout.TOPICS.url(), "Topics"), (area_url, area_name)]),
            f'<h1>{esc(name)}</h1>',
            f"<p>{_plural(len(papers), 'paper')} in {link(layout.relative(here, area_url), area_name)} › {esc(name)}."
            f"{_guesses_note(list(papers))}</p>",
            list_controls(list(papers), here, "ps-list", {"topic": f"{area_slug}/{slug}"}),
            paper_list(list(papers), here, None, show_topic=False, mark_guesses=True, list_id="ps-list"),
        ),
    )


def _a_to_z_index_page(title: str, here: str, named: list, intro: str, keep: Keep = fresh) -> str:
    """An index page listing ``named`` (keywords or authors) A to Z with their paper counts."""
    entries = [(item.name, item.url, len(item.papers)) for item in named]
    return page(_front(title), block(f"<h1>{title}</h1>", f"<p>{intro}</p>", keep(here, _a_to_z, here, entries)))


MOST_USED = 60  # keywords in the keyword index's "most used" list
RELATED_KEYWORDS = 12  # other keywords a keyword page shows: those on most of its papers


def keywords_index_page(catalog: Catalog, keep: Keep = fresh) -> str:
    count = _plural(len(catalog.keywords), "keyword")
    here = layout.KEYWORDS.url()
    used = sorted(catalog.keywords, key=lambda k: (-len(k.papers), fold(k.name)))[:MOST_USED]
    most = "".join(
        f"<li>{link(layout.relative(here, k.url), k.name)} <span class=ps-count>{len(k.papers)}</span>"
        for k in used
    )
    entries = [(k.name, k.url, len(k.papers)) for k in catalog.keywords]
    return page(
        _front("Keywords"),
        block(
            "<h1>Keywords</h1>",
            f'<p>{count}; the number is how many papers carry each. <a href=#most-used>Most used</a> first, then '
            '<a href=#a-to-z>A to Z</a>.</p>',
            '<h2 id=most-used>Most used</h2>',
            f'<ol class="ps-columns ps-ranked">{most}</ol>',
            '<h2 id=a-to-z>A to Z</h2>',
            keep(here, _a_to_z, here, entries),
        ),
    )


def related_keywords(catalog: Catalog, keyword: Keyword) -> list[tuple[Keyword, int]]:
    """The other keywords on ``keyword``'s papers, most shared papers first (ties by folded name). Made for one
    keyword at a time: an edit makes those of the keyword pages it renders again (``detail_sources``), not every
    keyword's (0.08 s at 11,672 papers)."""
    shared: dict[int, int] = {}
    others: dict[int, Keyword] = {}
    for paper in keyword.papers:
        for other in catalog.paper_keywords(paper):
            if other is not keyword:
                shared[id(other)] = shared.get(id(other), 0) + 1
                others[id(other)] = other
    ranked = sorted(shared.items(), key=lambda kv: (-kv[1], catalog.fold(others[kv[0]].name)))[:RELATED_KEYWORDS]
    return [(others[o], n) for o, n in ranked]


def _keyword_page(keyword, catalog: Catalog, related: list[tuple[object, int]]) -> DetailPage:  # noqa: ANN001
    """``related``: the other keywords on its papers, most shared papers first (``related_keywords``)."""
    here = keyword.url
    others = "".join(
        f'<li>{link(layout.relative(here, other.url), other.name)} <span class=ps-count>{n}</span></li>'
        for other, n in related
    )
    body = block(
        crumbs(here, [(layout.KEYWORDS.url(), "Keywords")]),
        f'<h1><span class=ps-muted>Keyword:</span> {esc(keyword.name)}</h1>',
        f"<p>{_plural(len(keyword.papers), 'paper')}.</p>",
        '<h2 id=related>Related keywords</h2>' if others else "",
        f'<p class=ps-muted>On the most papers that carry “{esc(keyword.name)}”; the number is how many they share.</p>' if others else "",
        f'<ul class=ps-columns>{others}</ul>' if others else "",
        '<h2 id=papers>Papers</h2>',
        list_controls(keyword.papers, here, "ps-list", {"keyword": keyword.slug}),
        paper_list(keyword.papers, here, catalog, list_id="ps-list", common=keyword.name),
    )
    return DetailPage(here, plain_title(f"Keyword: {keyword.name}"), body)


def keyword_pages(catalog: Catalog) -> list[DetailPage]:
    return [_keyword_page(keyword, catalog, related_keywords(catalog, keyword)) for keyword in catalog.keywords]


# Where papersite-saved.js draws an author's co-authors (with the author's slug), from the co-author shards
# (``site/exports.py`` coauthor_files): the lists were 14.5 MB of the author pages at 11,672 papers.
COAUTHORS_PLACE = "data-ps-coauthors"


def _author_page(author: Author, catalog: Catalog) -> DetailPage:
    here = author.url
    also = ""
    if len(author.variants) > 1:
        also = f'<p class=ps-muted>Also written as: {esc(", ".join(author.variants[1:]))}</p>'
    body = block(
        crumbs(here, [(layout.AUTHORS.url(), "Authors")]),
        f"<h1>{esc(author.name)}</h1>",
        also,
        f"<p>{_plural(len(author.papers), 'paper')}.</p>",
        '<h2 id=papers>Papers</h2>',
        list_controls(author.papers, here, "ps-list", {"author": author.slug}),
        paper_list(author.papers, here, catalog, list_id="ps-list"),
        # the co-authors, with how many papers each shares where more than one, are the browser's to draw
        f"<div{attr(COAUTHORS_PLACE, author.slug)}></div>" if author.coauthors else "",
    )
    return DetailPage(here, plain_title(author.name), body)


def authors_index_page(catalog: Catalog, keep: Keep = fresh) -> str:
    count = _plural(len(catalog.authors), "author")
    return _a_to_z_index_page(
        "Authors",
        layout.AUTHORS.url(),
        catalog.authors,
        f"{count}, A to Z; the number is how many papers each wrote. {_authors_known(catalog)} "
        "Spellings that differ only in case, accents or spacing are one author; any other difference stays a "
        "separate page.",
        keep,
    )


def author_pages(catalog: Catalog) -> list[DetailPage]:
    return [_author_page(author, catalog) for author in catalog.authors]


def detail_page_markdown(detail: DetailPage) -> str:
    """A detail page as a Markdown page of its own (a stage without shells: ``stage_docs(shells=False)``)."""
    return page(_detail_front(detail.title), detail.body)


def about_page(catalog: Catalog, context: SiteContext) -> str:
    config = context.config
    counts = paper_counts(catalog)
    files, formats = counts.entries, counts.formats
    rows = "".join(
        f"<tr><td>{out_link(context.corpus_url(f), f) if context.corpus_url(f) else esc(f)}</td>"
        f"<td>{esc(formats.get(f, ''))}</td><td>{n:,}</td></tr>"
        for f, n in sorted(files.items())
    )
    fills = counts.fills
    reference_rows = "".join(
        f"<tr><td>{out_link(context.reference_url(name), name) if context.reference_url(name) else esc(name)}</td>"
        f"<td>{n:,}</td></tr>"
        for name, n in sorted(fills.items())
    )
    references = (
        '<h2 id=references>Reference catalogues</h2>'
        "<p>Listings decide which papers the site has; reference catalogues complete what a page says (authors, "
        "the real title where a listing has none, OpenReview and PDF links, the decision). A reference adds no "
        "paper, a listing's value always wins, and each page says in its Sources part what was filled, from "
        "which record, and on what evidence.</p>"
        '<table class=ps-table><thead><tr><th>Reference file</th><th>Pages completed</th></tr></thead>'
        f"<tbody>{reference_rows}</tbody></table>"
        if reference_rows
        else ""
    )
    merged, derived, inferred = counts.merged, counts.derived, counts.topic_sources["inferred"]
    try:
        papers_dir = config.papers_dir.relative_to(config.root).as_posix()
    except ValueError:
        papers_dir = "site_src/papers"
    repo = (
        f"<p>The source is in {out_link(config.repo_url, config.repo_url)}. "
        f"{out_link(config.repo_url + '/issues/new', 'Report a problem')} if something is wrong.</p>"
        if config.repo_url
        else ""
    )
    body = block(
        "<h1>About this site</h1>",
        f"<p>{esc(config.site_name)} lists {_plural(len(catalog.papers), 'paper')}, read from the listing files below. "
        "Listings repeat papers and disagree with each other, so every paper is one merged page: "
        f"{merged:,} pages merge more than one listing entry, {derived:,} titles were derived because no listing "
        f"had one, and {inferred:,} topics were inferred from the title and abstract. Each paper page ends with "
        "the listing entries it came from.</p>",
        '<h2 id=sources>Sources</h2>',
        '<table class=ps-table><thead><tr><th>Listing file</th><th>Format</th><th>Entries used</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>",
        references,
        '<h2 id=edit>How to correct a page</h2>',
        f"<p>Each paper is one file, <code>{esc(papers_dir)}/&lt;slug&gt;.md</code>: YAML front matter with the title, "
        "authors, topic, keywords, links and abstract, and an optional Markdown body for notes. There are three "
        "ways to correct it:</p>",
        "<ol>"
        "<li><em>Fix this paper</em>, at the bottom of the paper page, opens a form that already holds what "
        "the page says: change the wrong fields and submit it. No git or YAML needed. A check answers on the "
        "issue with the exact change (or with what to fix in the form); once a maintainer adds the "
        "<code>approved</code> label, the correction joins one pull request with the others.</li>"
        "<li><em>Edit this page</em>, beside it, opens the page's file on GitHub: change a field and open a "
        "pull request; CI runs <code>papersite check</code> on it and marks any problem on its line.</li>"
        "<li>In a clone of the repository: edit the file, run <code>papersite check</code>, and open a pull "
        "request.</li>"
        "</ol>",
        "<p>Every way ends as the same edit of the page. A topic set by hand gets <code>source: maintainer</code>, and "
        "the next import keeps every field a person changed. Topic, keyword and author pages are rebuilt from the "
        "paper pages on every build: never edit them.</p>",
        "<p>To build locally: <code>pip install -e .</code>, then <code>papersite build</code> (or "
        "<code>mkdocs build</code>) writes the site to <code>site/</code>; <code>papersite serve</code> previews it.</p>",
        repo,
    )
    return page(_front("About", hide_toc=False), body)


def index_pages(catalog: Catalog, context: SiteContext, keep: Keep = fresh) -> dict[str, str]:
    """Every index page the engine renders one by one (author and keyword pages are separate)."""
    pages = {layout.HOME.staged(): home_page(catalog, context), layout.PAPERS.staged(): papers_page(catalog, keep)}
    pages.update(topics_pages(catalog, keep))
    pages[layout.KEYWORDS.staged()] = keywords_index_page(catalog, keep)
    pages[layout.AUTHORS.staged()] = authors_index_page(catalog, keep)
    pages["about.md"] = about_page(catalog, context)
    return pages


class DetailSource(NamedTuple):
    """An author or keyword page before it is rendered: ``render(*args)`` gives it. ``args`` are values
    (the author or keyword, links to other pages, the catalog's memo: ``views.py``), all the page can
    show: an incremental build keeps the page while their fingerprint is unchanged (``site/memo.write_rows``).
    A named tuple: 35k are made every build at 11,672 papers, at half a frozen dataclass's cost."""

    url: str
    render: Callable[..., DetailPage]
    args: tuple
    key: str | None = None  # the fingerprint of ``render`` and ``args`` where it is known already (``site/carried.py``)


class _KeywordSource:
    """A keyword page as a ``DetailSource``, whose arguments (its related keywords' links among them) are made when
    first asked for: never for a page whose key is carried and whose row is kept."""

    render = staticmethod(_keyword_page)

    def __init__(self, keyword: Keyword, catalog: Catalog, views: Views, key: str | None) -> None:
        self.url, self.key = keyword.url, key
        self._made = (keyword, catalog, views)

    @cached_property
    def args(self) -> tuple:
        keyword, catalog, views = self._made
        return (keyword, views.memos, views.links(related_keywords(catalog, keyword)))


def detail_sources(catalog: Catalog, views: Views | None = None,
                   author_key: Callable[[Author], str | None] | None = None,
                   keyword_key: Callable[[Keyword], str | None] | None = None) -> dict[str, list]:
    """Author and keyword pages by section (the folder they live in), not rendered yet (``DetailSource``s).
    ``views``: the build's views of ``catalog`` (their links are made once a build); ``author_key``, ``keyword_key``:
    an author's or keyword's page key carried from the last kept build, or None."""
    views = views or Views(catalog)
    author_key = author_key or (lambda author: None)
    keyword_key = keyword_key or (lambda keyword: None)
    return {
        "authors": [DetailSource(a.url, _author_page, (a, views.memos), author_key(a)) for a in catalog.authors],
        "keywords": [_KeywordSource(k, catalog, views, keyword_key(k)) for k in catalog.keywords],
    }


def detail_pages(catalog: Catalog) -> dict[str, list[DetailPage]]:
    """Author and keyword pages by section (the folder they live in)."""
    return {section: [source.render(*source.args) for source in sources] for section, sources in detail_sources(catalog).items()}
