"""Paper pages: one display page per paper record, as Markdown for the engine.

In: a record, the catalog (for author/keyword/topic links) and the project
config. Out: the text of ``papers/<slug>.md`` in the staged docs
dir. The committed page holds data (front matter); the display page is raw HTML
built here with every listing string escaped, followed by the maintainers'
Markdown body. Google Scholar tags travel in front matter (``citation``) for the
template to put in <head>.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from generator.config import ProjectConfig
from generator.pages.decisions import read_decision
from generator.pages.record import AUTHORITY_FIELDS, FIELD_BY_NAME, Fill, PaperRecord
from generator import layout
from generator.site.render import cite
from generator.catalog import Catalog
from generator.text import fold
from generator.site.render.html import DetailPage, attr, block, clip, esc, link, meta_text, out_link, page, plain_chars, plain_title
from generator.site.render.components import (
    DETAIL_TEMPLATE, author_line, crumbs_nav, decision_badge, inferred_label,
)
from generator.site.render.mathml import render_abstract, render_text
from generator.pages.markup import safe_body, theme_meta
from generator.ingest.titles import plain_text, split_sentences
from generator.problems import PapersiteError
from generator.corrections.form import PREFILL_FROM_SITE, form_url

LINK_LABELS = {"openreview": "OpenReview", "pdf": "PDF", "code": "Code", "arxiv": "arXiv", "project": "Project page", "doi": "DOI", "url": "Web page"}

# On a paper page's own box (``<div class=ps-paper>``): the paper's slug, which papersite-saved.js draws the
# Save button with and papersite.js reads for the Fix link and the citations.
PAPER_SLUG = "data-ps-paper"
# Where papersite-saved.js draws the paper's related papers, from the related shards and the search's rows
# (``site/exports.py`` related_files): none are in the page, so an edit of one paper makes no other page again.
RELATED_PLACE = "data-ps-related"


@dataclass(frozen=True)
class SiteContext:
    """What every page renderer needs besides the catalog."""

    config: ProjectConfig
    venue: cite.Venue
    source_of: dict[str, str]  # slug -> page source path relative to the repo root
    # (the taxonomy,) or (None,) if it cannot be read, for the "Fix this paper" form; () to read it here
    taxonomy: tuple = ()

    def for_paper(self, slug: str) -> "SiteContext":
        """What one paper's page reads of the context, the taxonomy read once for all (``site/memo.py``
        keys the page on its arguments: a file it read itself would be no part of them)."""
        taxonomy = self.taxonomy or (read_taxonomy(self.config),)
        return SiteContext(self.config, self.venue, {slug: self.source_of[slug]} if slug in self.source_of else {}, taxonomy)

    def edit_url(self, slug: str) -> str | None:
        if not self.config.repo_url or slug not in self.source_of:
            return None
        return f"{self.config.repo_url}/edit/{self.config.repo_branch}/{quote(self.source_of[slug])}"

    def issue_url(self, paper: PaperRecord) -> str | None:
        """The "Fix this paper" issue form for this paper (papersite.js pre-fills it: ``form.PREFILL_FROM_SITE``)."""
        if not self.config.repo_url:
            return None
        return form_url(self.config.repo_url, paper)

    def reference_url(self, name: str) -> str | None:
        """The reference catalogue of this file name in the repository, if it is there."""
        if not self.config.repo_url:
            return None
        for path in self.config.references:
            if path.name == name:
                try:
                    relative = path.relative_to(self.config.root).as_posix()
                except ValueError:
                    return None
                return f"{self.config.repo_url}/blob/{self.config.repo_branch}/{quote(relative)}"
        return None

    def corpus_url(self, file: str) -> str | None:
        if not self.config.repo_url:
            return None
        try:
            corpus = self.config.corpus_dir.relative_to(self.config.root).as_posix()
        except ValueError:
            return None
        return f"{self.config.repo_url}/blob/{self.config.repo_branch}/{quote(corpus)}/{quote(file)}"


def read_taxonomy(config: ProjectConfig):  # noqa: ANN201 - a Taxonomy, or None
    from generator.enrich.taxonomy import load_taxonomy

    try:
        return load_taxonomy(config.taxonomy_file)
    except PapersiteError:
        return None  # the build reports it; the link just leaves the topic empty


# How a page names a listing's value that an authoritative reference replaced (``listed``).


def _listed_html(paper: PaperRecord) -> str:
    """The listings' own values where the venue's record decided otherwise; the abstract only said, not shown."""
    parts = []
    for name in AUTHORITY_FIELDS:
        value = paper.listed.get(name)
        if not value:
            continue
        label = "Listed as" if name == "title" else f"Listed {FIELD_BY_NAME[name].label.lower()}"
        if name == "title":
            shown = f"“{render_text(value)[0]}”"
        elif name == "authors":
            shown = esc(", ".join(" ".join(str(a).split()) for a in value))
        elif name == "abstract":
            shown = "a different version of the abstract"
        else:
            shown = esc(value)
        parts.append(f"{esc(label)}: {shown}")
    if not parts:
        return ""
    return '<p class="ps-listed ps-muted">' + " · ".join(parts) + "</p>"  # (all of it muted: the separators too)


def _topic_html(paper: PaperRecord, here: str, catalog: Catalog) -> str:
    if paper.topic is None:
        return '<span class=ps-muted>No topic yet</span>'
    area = catalog.paper_area(paper)
    parts = [link(layout.relative(here, area.url), area.name)] if area else [esc(paper.topic.area)]
    sub = catalog.paper_subarea(paper)
    if sub:
        parts.append(link(layout.relative(here, sub.url), sub.name))
    text = ' <span class=ps-sep>›</span> '.join(parts)
    if paper.topic.source == "inferred":
        label = inferred_label(paper.topic)
        note = "Guessed from the title and abstract, not given by a listing"
        text += f' <span class="ps-badge ps-inferred" title="{esc(note)}">{esc(label)}</span>'
    elif paper.topic.source == "maintainer":
        text += ' <span class=ps-badge>set by a maintainer</span>'
    elif paper.topic.source == "conference":
        note = "The conference's own label for this paper, from a reference catalogue"
        text += f' <span class="ps-badge ps-conference" title="{esc(note)}">conference label</span>'
    return text


# Between a paper's links, in a span papersite.css mutes: a fact's own text in the muted colour (as the crumbs'
# separators are) would leave its links told apart from a badge's words by colour alone (axe, link-in-text-block).
_SEP = ' <span class=ps-sep>·</span> '
# The paper's own record first, then its PDF and code, then anything else by name.
_LINK_ORDER = {name: i for i, name in enumerate(("openreview", "pdf", "code", "arxiv", "project"))}


def _search_links(paper: PaperRecord) -> str:
    title = " ".join(paper.title.split())
    return _SEP.join(
        (
            out_link(layout.query_url("https://openreview.net/search", term=title, group="all", content="all", source="all"), "OpenReview"),
            out_link(layout.query_url("https://arxiv.org/search/", query=title, searchtype="title"), "arXiv"),
            out_link(layout.query_url("https://scholar.google.com/scholar", q=title), "Google Scholar"),
        )
    )


def _links_html(paper: PaperRecord) -> str:
    known = [
        out_link(url, LINK_LABELS.get(name, name.replace("_", " ").capitalize()))
        for name, url in sorted(paper.links.items(), key=lambda item: (_LINK_ORDER.get(item[0], len(_LINK_ORDER)), item[0]))
        if layout.is_web_url(url)
    ]
    html = _SEP.join(known)
    if not any(name in paper.links and layout.is_web_url(paper.links[name]) for name in ("openreview", "pdf")):
        html += (_SEP if html else "") + "Search by title: " + _search_links(paper)
    return html


def _fill_fields(fill: Fill) -> str:
    names = []
    for name in fill.fields:
        if name.startswith("links."):
            link = name.split(".", 1)[1]
            names.append(f"{LINK_LABELS.get(link, link)} link")
        else:
            names.append(FIELD_BY_NAME[name].label.lower() if name in FIELD_BY_NAME else name)
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def _fills_html(paper: PaperRecord, context: SiteContext) -> str:
    """Which fields came from a reference catalogue, from which record, on what evidence."""
    if not paper.filled_from:
        return ""
    items = []
    for fill in paper.filled_from:
        url = context.reference_url(fill.reference)
        name = link(url, fill.reference) if url else esc(fill.reference)
        fields = _fill_fields(fill)
        items.append(
            f"<li>{esc(fields[:1].upper() + fields[1:])} from {name} record {esc(fill.record)} "
            f'<span class=ps-muted>(matched by {esc(fill.match)}, score {fill.score:.2f})</span></li>'
        )
    return (
        '<p class=ps-muted>Completed from a reference catalogue (no listing gave these fields):</p>'
        f'<ul class="ps-sources ps-fills">{"".join(items)}</ul>'
    )


DESCRIPTION_CHARS = 200  # what search results and link previews show of a page's description


def description(paper: PaperRecord) -> str:
    """The page's own description: the abstract's first sentence, as plain text, whole words."""
    first = split_sentences(plain_text(paper.abstract, asides=True))[:1] if paper.abstract else []
    text = first[0] if first else " ".join(paper.title.split())
    return meta_text(clip(text, DESCRIPTION_CHARS))


def paper_page(paper: PaperRecord, catalog: Catalog, context: SiteContext) -> DetailPage:
    """The generated part of a paper's page: everything but a maintainer's Markdown body."""
    here = layout.paper_url(paper.slug)
    crumbs = [link(layout.relative(here, layout.PAPERS.url()), "Papers")]
    area, sub = catalog.paper_area(paper), catalog.paper_subarea(paper)
    if area:
        crumbs.append(link(layout.relative(here, area.url), area.name))
    if sub:
        crumbs.append(link(layout.relative(here, sub.url), sub.name))

    derived = ""
    if paper.title_derived:
        derived = (
            ' <span class="ps-badge ps-derived" title="No listing gave this paper a title; '
            'it was derived from the abstract">derived title</span>'
        )
    authors = ", ".join(
        link(layout.relative(here, catalog.author_of[fold(name)].url), " ".join(name.split()))
        for name in paper.authors
        if fold(name)
    )
    if authors and not cite.order_known(paper):
        authors += f' <span class=ps-order-note>({esc(cite.order_words(paper))})</span>'
    keywords = "".join(
        f"<li>{link(layout.relative(here, kw.url), kw.name)}" for kw in catalog.paper_keywords(paper)  # (HTML ends each <li>)
    )
    facts = [f"<dt>Topic</dt><dd>{_topic_html(paper, here, catalog)}</dd>"]
    if keywords:
        facts.append(f'<dt>Keywords</dt><dd><ul class=ps-tags>{keywords}</ul></dd>')
    venue = cite.venue_of(paper, context.venue)
    decision = read_decision(paper.decision)
    if decision is not None:
        at = f" ({esc(venue.short)})" if venue.short else ""
        facts.append(f"<dt>Decision</dt><dd>{esc(decision.text)}{at}</dd>")
    elif paper.venue:
        facts.append(f"<dt>Venue</dt><dd>{esc(venue.short)}</dd>")
    facts.append(f"<dt>Links</dt><dd>{_links_html(paper)}</dd>")

    if paper.abstract:
        abstract = f'<div class=ps-abstract>{render_abstract(paper.abstract)}</div>'
    else:
        abstract = '<p class=ps-muted>No listing gave an abstract for this paper.</p>'

    sources = "".join(
        "<li>"
        + (link(context.corpus_url(s.file), s.file) if context.corpus_url(s.file) else esc(s.file))
        + f" entry {esc(s.entry)}"
        + (f' <span class=ps-muted>({esc(s.format)})</span>' if s.format else "")
        + "</li>"
        for s in sorted(paper.sources)
    )
    merged = f" (merged from {len(paper.sources)} listing entries)" if len(paper.sources) > 1 else ""

    actions = []
    edit_url, issue_url = context.edit_url(paper.slug), context.issue_url(paper)
    if edit_url:
        actions.append(out_link(edit_url, "Edit this page"))
    if issue_url:
        actions.append(out_link(issue_url, "Fix this paper", {PREFILL_FROM_SITE: ""}))

    body = block(
        # the paper's slug, which papersite-saved.js draws its Save button with (before the facts: nothing to
        # press without the script, so none in the page) and papersite.js the Fix link and citations
        f"<div class=ps-paper{attr(PAPER_SLUG, paper.slug)}>",
        crumbs_nav(crumbs),
        f'<h1 class=ps-title>{render_text(paper.title)[0]}{derived}{decision_badge(paper)}</h1>',
        _listed_html(paper),
        f'<p class=ps-authors>{authors}</p>'
        if authors
        else '<p class="ps-authors ps-muted">Authors unknown: neither the listings nor the reference catalogues give them. '
        f"Search by title: {_search_links(paper)}</p>",
        f'<dl class=ps-facts>{"".join(facts)}</dl>',
        '<h2 id=abstract>Abstract</h2>',
        abstract,
        # The citations are drawn by papersite.js from the citation shards (``site/exports.py``): BibTeX, RIS and
        # plain text were 0.6 KB of each page at 12k papers (4.9 MB), in the same markup as before. The heading
        # is shown by the script that fills the section: without scripts there is nothing under it.
        '<h2 id=cite hidden>Cite</h2>',
        '<div class=ps-cite></div>',
        f"<div {RELATED_PLACE}></div>",
        '<h2 id=sources>Sources</h2>',
        f'<p class=ps-muted>Listing entries this page was built from{esc(merged)}:</p>',
        f'<ul class=ps-sources>{sources}</ul>',
        _fills_html(paper, context),
        # (its separators are its own text, muted: papersite.css; it holds only links)
        f'<p class=ps-actions>{" · ".join(actions)}</p>' if actions else "",
        "</div>",
    )
    # a maintainer's own description wins, made plain text by theme_meta
    own = theme_meta(paper.extra).get("description")
    return DetailPage(here, plain_title(paper.title), body, own or description(paper), paper_head(paper, context))


def paper_head(paper: PaperRecord, context: SiteContext) -> str:
    """The page's own tags in <head>: Google Scholar's, and its authors for link previews."""
    scholar = [
        (name, value)
        for name, value in cite.scholar_meta(paper, cite.venue_of(paper, context.venue))
        if name != "citation_pdf_url" or layout.is_web_url(value)
    ]
    # No article:author copies of citation_author (0.3 KB a page): that Open Graph tag wants
    # a profile URL, and previews name the authors from twitter:data1 below.
    # Quoted as Google Scholar's guidelines write them (its reader is not documented; 0.3 MB at 11,672 papers
    # unquoted was not worth a paper missing from Scholar)
    tags = [f'<meta name="{name}" content="{esc(plain_chars(value))}">' for name, value in scholar]
    if paper.authors:
        tags.append('<meta name="twitter:label1" content="Authors">')
        tags.append(f'<meta name="twitter:data1" content="{esc(meta_text(author_line(paper)))}">')
    return "\n".join(tags)


def needs_engine(paper: PaperRecord) -> bool:
    """A page with a maintainer's Markdown body is rendered by the engine (its Markdown
    extensions); every other paper page is poured into the papers shell (postbuild.py)."""
    return bool(paper.body.strip())


def render_paper_page(paper: PaperRecord, catalog: Catalog, context: SiteContext) -> str:
    """The paper's page as a Markdown page of its own, for the engine."""
    parts = paper_page(paper, catalog, context)
    body, front = parts.body, detail_front(parts)
    if paper.body.strip():
        # `papersite check` rejects what safe_body neutralises; this is for builds that skip it
        body += "\n\n" + safe_body(paper.body.strip()) + "\n"
        # its Markdown may hold what Material's script serves (tables, tabs, code): the page keeps it
        front["ps_markdown_body"] = True
    return page(front, body)


def detail_front(parts: DetailPage) -> dict:
    """Front matter of a detail page handed to the engine (also each shell's, with marks for values)."""
    return {
        "template": DETAIL_TEMPLATE,
        **({"description": parts.description} if parts.description else {}),
        "title": parts.title,
        "hide": ["toc"],
        "search": {"exclude": True},
        **({"ps_head": parts.head} if parts.head else {}),
    }
