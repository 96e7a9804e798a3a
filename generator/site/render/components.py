"""Page components shared by paper, topic, keyword, author and section pages.

In: paper records (and the catalog for links). Out: escaped HTML fragments: the
paper list with its filter controls, author lines, breadcrumbs and badges. One
place each, so a paper looks the same in every list and a badge says the same
thing on every page.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from generator import layout
from generator.pages.decisions import decision_counts, read_decision
from generator.pages.record import PaperRecord, Topic
from generator.catalog import NO_TOPIC, Catalog
from generator.site.render import cite
from generator.site.render.html import attr, esc, link
from generator.text import fold, fold_joined

UNCERTAIN_BELOW = 0.5  # an inferred topic's confidence under which the page says so


def author_line(paper: PaperRecord, limit: int = 3) -> str:
    """The first ``limit`` names and "et al."; where the order is not known, no "et al."
    (it would name a first author) but how many more, and that the order is not the paper's."""
    names = [" ".join(a.split()) for a in paper.authors]
    if cite.order_known(paper):
        return ", ".join(names[:limit]) + (" et al." if len(names) > limit else "")
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more + f" ({cite.order_words(paper, short=True)})"


def first_author_key(paper: PaperRecord) -> str:
    """What "First author" sorts on (folded), or "" where the first author is not known (or the
    paper has no authors): papersite-lists.js puts those papers last."""
    return fold(paper.authors[0]) if paper.authors and cite.order_known(paper) else ""


def first_author_data(paper: PaperRecord) -> str:
    """An item's ``data-first`` attribute, none where the first author is not known (most of a
    bundled export's papers: 0.9 MB of the lists at 11,672 papers said only that)."""
    key = first_author_key(paper)
    return attr("data-first", key) if key else ""


# The lighter page template of every generated detail page (templates/ps-detail.html).
DETAIL_TEMPLATE = "ps-detail.html"
CONTROLS_FROM = 10  # papers a list needs before it gets a filter box and a sort menu


# keep(label, render, *args): ``render(*args)``, or what it gave the last build for equal arguments
# (the stage keeps the A to Z lists, the rows of All papers and the topic pages so, ``label`` naming
# the place: most of them unchanged by an edit).
Keep = Callable[..., str]


def fresh(label: str, render: Callable[..., str], *args: object) -> str:
    return render(*args)


CHUNK_CUT = 64  # a chunk of ``kept_chunks`` ends after an item whose key hashes to 0 modulo this: ~64 items a chunk


def kept_chunks(keep: Keep, label: str, render: Callable[..., str], items: list, key_of: Callable[[Any], str], *args: object) -> list[str]:
    """``render(chunk, *args)`` of consecutive runs of ``items`` (each a tuple), each kept by ``keep`` (``label``
    and the chunk's first key naming it). A chunk ends after an item whose key (``key_of``: unique, and the same
    whatever else changes) hashes to 0 modulo ``CHUNK_CUT``, so the cuts move with the items, not with their
    places: an edited item renders its chunk again, one that moves the chunk it left and the one it joins, and
    every other chunk is kept. One fingerprint and one memo entry a chunk rather than an item: keeping each of
    All papers' 11,672 rows was 0.12 CPU s of every edit."""
    chunks: list[str] = []
    start = 0
    for end, item in enumerate(items, 1):
        if end == len(items) or zlib.crc32(key_of(item).encode("utf-8", "surrogatepass")) % CHUNK_CUT == 0:
            run = tuple(items[start:end])
            chunks.append(keep(f"{label}\0{key_of(run[0])}", render, run, *args))
            start = end
    return chunks


def paper_list(
    papers: list[PaperRecord], here: str, catalog: Catalog | None, show_topic: bool = True, mark_guesses: bool = False,
    list_id: str | None = None, keep: Keep = fresh, common: str = "",
) -> str:
    """A list of papers linking to their pages, with authors (and topic) as context.

    ``mark_guesses``: on a topic's own page, say which papers are there by the model's guess.
    With ``list_id`` and ``CONTROLS_FROM`` papers or more, the items carry what the list
    controls of ``papersite-lists.js`` filter and sort on (see ``list_controls``).

    ``common``: a keyword every paper of the list carries (a keyword page's own): where each has
    it, its folded words are the list's ``data-text``, which the filter reads with each item's,
    instead of being in every item's (8% of the keyword pages' bytes at 12k papers).
    """
    # A paper appears in the lists of each of its authors and keywords (and as a
    # related paper): its item is built once per link and reused (for the life of ``catalog``).
    cache = catalog.cache.setdefault("paper_list", {}) if catalog is not None else {}
    # Only a list with controls reads the items' data (a third of an author page's own bytes).
    with_data = list_id is not None and len(papers) >= CONTROLS_FROM
    common = fold(common) if with_data and common and all(
        any(fold(k) == fold(common) for k in paper.keywords) for paper in papers) else ""
    items = []
    for paper in papers:
        href = layout.relative(here, layout.paper_url(paper.slug))
        key = (paper.slug, href, show_topic, mark_guesses, with_data, common)
        item = cache.get(key)
        if item is None:
            label = f"{paper.slug}\0{here}\0{show_topic:d}{mark_guesses:d}{with_data:d}\0{common}"
            item = cache[key] = keep(label, paper_item, paper, href, show_topic, mark_guesses, with_data, common)
        items.append(item)
    shared = attr("data-text", common) if common else ""
    opening = f"<ul class=ps-papers{attr('id', list_id)}{shared}>" if list_id is not None else "<ul class=ps-papers>"
    return opening + "\n" + "\n".join(items) + "\n</ul>"


def paper_item(
    paper: PaperRecord, href: str, show_topic: bool, mark_guesses: bool, with_data: bool, common: str = "",
) -> str:
    """One paper of a ``paper_list``, linked at ``href`` (``common``: see ``paper_list``)."""
    parts = [esc(author_line(paper))] if paper.authors else []
    if show_topic and paper.topic:
        parts.append(esc(paper.topic.label()))
    derived = ' <span class=ps-badge>derived title</span>' if paper.title_derived else ""
    if mark_guesses and paper.topic and paper.topic.source == "inferred":
        derived += " " + guess_badge(paper.topic)
    data = _item_data(paper, common) if with_data else ""
    return f"<li{data}>{link(href, paper.title)}{derived}{item_meta(parts)}"


def item_meta(parts: list[str]) -> str:
    """The line under a paper's link in a list (its parts escaped HTML), and the end of the item.

    A paper's item is the site's most repeated markup (~275k items at 11,672 papers), so it is
    written lean, and papersite.css draws the rest: the line break before the line (no ``<br>``),
    the separator plain text in the line's own muted colour (no span: 5.5 MB), and the item's
    ``</li>`` left to HTML, which ends an item at the next one or at its list's end (2.4 MB)."""
    return f"<span class=ps-meta>{LIST_SEP.join(parts)}</span>"


LIST_SEP = " · "  # between the parts of an item's line (``item_meta``)


def _item_data(paper: PaperRecord, common: str = "") -> str:
    """The attributes list controls filter and sort a paper's item on: area, first author, and the
    folded text of the authors and keywords (papersite-lists.js adds the title from the item's link:
    repeating it was a fifth of a keyword page), without the list's ``common`` keyword (folded)."""
    area = paper.topic.area if paper.topic else NO_TOPIC
    return (f"{attr('data-area', area)}{attr('data-decision', decision_key(paper))}{first_author_data(paper)}"
            f"{attr('data-text', item_text(paper, common))}")


def decision_key(paper: PaperRecord) -> str:
    """What a list's decision filter matches an item on: the decision's key, "none" without one."""
    decision = read_decision(paper.decision)
    return decision.key if decision else "none"


def decision_filter(papers: list[PaperRecord]) -> str:
    """The decision menu of a list's controls (each kind with its count, "No decision" last), or ''
    when no paper of the list has a decision: there would be nothing to choose."""
    return decision_menu(decision_counts(p.decision for p in papers))


def decision_menu(counts: list[tuple[str, str, int]]) -> str:
    """``decision_filter`` of papers whose ``decision_counts`` are ``counts``."""
    if not any(key != "none" for key, _, _ in counts):
        return ""
    choices = "".join(f'<option value="{esc(key)}">{esc(label)} ({n:,})</option>' for key, label, n in counts)
    return f'<label>Decision <select data-ps-decision><option value="">All decisions</option>{choices}</select></label>'


def item_text(paper: PaperRecord, common: str = "") -> str:
    """What a list's filter box matches besides the title, folded: its authors and keywords (but
    ``common``, folded, which the list holds once: see ``paper_list``)."""
    return fold_joined([*paper.authors, *(k for k in paper.keywords if not common or fold(k) != common)])


def paper_venue(paper: PaperRecord) -> str:
    """The paper's own venue ("" when its record has none: the project's venue is every paper's).
    Explore and the All papers list offer a venue filter where papers have more than one."""
    return " ".join((paper.venue or "").split())


def explore_link(papers: list[PaperRecord], here: str, explore: dict[str, str]) -> str:
    """A link opening ``papers`` in Explore (``explore``: the URL parameters that select exactly
    them), unless they are one paper: there is nothing to narrow."""
    if len(papers) < 2:
        return ""
    return (
        f'<p class=ps-explore-link><a href="{esc(layout.query_url(layout.relative(here, layout.EXPLORE.url()), **explore))}">'
        f"Open these {len(papers):,} papers in Explore</a>"
        " to search within them and narrow them further.</p>"
    )


def list_controls(papers: list[PaperRecord], here: str, list_id: str, explore: dict[str, str] | None) -> str:
    """Filter and sort controls for a paper list of ``list_id`` (at ``CONTROLS_FROM`` papers or more),
    and a link opening the same papers in Explore (``explore``: its URL parameters; None where no
    Explore filter selects exactly this list), unless the list holds one paper: there is nothing to
    narrow (26k of the 35k author pages at 11,672 papers). Every count they show is the list's."""
    if len(papers) < 2:
        return ""
    open_in = explore_link(papers, here, explore) if explore is not None else ""
    if len(papers) < CONTROLS_FROM:
        return open_in
    areas = sorted({p.topic.area if p.topic else NO_TOPIC for p in papers})
    area = (
        '<label>Area <select data-ps-area><option value="">All areas</option>'
        + "".join(f'<option value="{esc(a)}">{esc(a)}</option>' for a in areas)
        + "</select></label>"
        if len(areas) > 1
        else ""
    )
    return open_in + controls_box(list_id, area + decision_filter(papers), len(papers))


def controls_box(list_id: str, selects: str, count: int) -> str:
    """The controls papersite-lists.js drives for the list ``list_id`` of ``count`` papers: the filter box,
    ``selects`` (the list's own menus: area, decision, venue), the sort menu and the count shown."""
    return (
        f"<div class=ps-controls{attr('data-ps-list', list_id)}>"
        '<label>Filter <input type=search data-ps-filter placeholder="Words in title, authors or keywords"></label>'
        f"{selects}"
        '<label>Sort <select data-ps-sort><option value=title>Title A–Z</option>'
        '<option value=title-desc>Title Z–A</option><option value=area>Area</option>'
        '<option value=author>First author</option></select></label>'
        f"<output data-ps-shown aria-live=polite>{count:,} papers</output></div>"
    )


def crumbs_nav(links: list[str]) -> str:
    """A breadcrumb trail of links already made.

    The separators are the trail's own text, in its muted colour (papersite.css; the trail holds
    nothing else): a span around each was 26 B, ~0.9 MB of the paper pages at 12k papers."""
    return f'<nav class=ps-crumbs aria-label=Breadcrumb>{" › ".join(links)}</nav>'


def crumbs(here: str, trail: list[tuple[str, str]]) -> str:
    """A breadcrumb trail of (URL, name) pairs, linked relative to ``here``."""
    return crumbs_nav([link(layout.relative(here, url), text) for url, text in trail])


def is_uncertain(topic: Topic) -> bool:
    """Whether the page calls (part of) an inferred topic uncertain."""
    return "uncertain" in inferred_label(topic)


def guess_badge(topic: Topic) -> str:
    """The short marker of an inferred topic in a list; the full confidence is its tooltip."""
    short = "inferred, uncertain" if is_uncertain(topic) else "inferred"
    return f'<span class="ps-badge ps-inferred" title="{esc(inferred_label(topic))}">{short}</span>'


def inferred_label(topic: Topic) -> str:
    """'inferred, 91% confident', or area and sub-area apart when the page knows both.

    Below one half the model is wrong more often than right (see `papersite eval`), and the
    page says "uncertain" for that part of the answer.
    """

    def percent(value: float) -> str:
        return f"{round(value * 100)}%"

    def doubt(value: float) -> str:
        return "uncertain, " if value < UNCERTAIN_BELOW else ""

    confidence, area_confidence = topic.confidence, topic.area_confidence
    if confidence is None:
        return "inferred" if topic.subarea else "inferred; sub-area uncertain"
    if not topic.subarea:
        return f"inferred, {doubt(confidence)}{percent(confidence)} confident; sub-area uncertain"
    if area_confidence is None or area_confidence - confidence < 0.005:
        return f"inferred, {doubt(confidence)}{percent(confidence)} confident"
    both = f"area {percent(area_confidence)}, sub-area {percent(confidence)} confident"
    if area_confidence < UNCERTAIN_BELOW:
        return f"inferred, uncertain: {both}"
    return f"inferred: {both}" + ("; sub-area uncertain" if confidence < UNCERTAIN_BELOW else "")


def decision_badge(paper: PaperRecord) -> str:
    """The review decision as a badge ("Oral", "Rejected"); '' without one. (No tooltip with the
    decision in full: the page's facts give it a few lines below.)"""
    decision = read_decision(paper.decision)
    if decision is None:
        return ""
    return f' <span class="ps-badge ps-decision ps-decision-{decision.key}">{esc(decision.label)}</span>'


