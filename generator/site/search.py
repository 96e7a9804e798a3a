"""Search: a lunr index prebuilt with lunr.py, its document store, and the Explore page.

In: the catalog. Out: ``assets/papersite/search-index.json`` (a serialised
lunr.js 2.3.9 index: the browser only calls ``lunr.Index.load``, which is fast,
instead of indexing every page itself), ``assets/papersite/search-docs.json``
(what a result shows, and each paper's topic, keywords and authors for the
filters), ``lunr.js`` copied from the installed mkdocs package, and ``explore.md``.

Only papers are indexed, so index pages cannot crowd them out; field boosts make
a title match outrank an abstract match.
"""

from __future__ import annotations

import json
from pathlib import Path

import mkdocs
from lunr import lunr

from generator.site.catalog import Catalog, fold
from generator.site.html import block, page

INDEX_FILE = "assets/papersite/search-index.json"
DOCS_FILE = "assets/papersite/search-docs.json"
LUNR_FILE = "assets/papersite/lunr.js"

FIELDS = [
    {"field_name": "title", "boost": 10},
    {"field_name": "authors", "boost": 6},
    {"field_name": "keywords", "boost": 4},
    {"field_name": "topic", "boost": 2},
    {"field_name": "abstract", "boost": 1},
]


def lunr_js_source() -> Path:
    """lunr.js 2.3.9 as shipped by the installed mkdocs (we do not vendor a copy)."""
    path = Path(mkdocs.__file__).parent / "contrib" / "search" / "templates" / "search" / "lunr.js"
    if not path.exists():
        raise FileNotFoundError(f"{path}: lunr.js not found in the installed mkdocs package")
    return path


def _compact(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")


def search_files(catalog: Catalog) -> dict[str, bytes]:
    topics: list[list] = []  # [label, slug path, index of its area entry]
    topic_index: dict[tuple[str, str | None], int] = {}
    for area in catalog.areas:
        topic_index[(area.name, None)] = len(topics)
        topics.append([area.name, area.slug, len(topics)])
        for sub in area.subareas:
            topic_index[(area.name, sub.name)] = len(topics)
            topics.append([f"{area.name} › {sub.name}", f"{area.slug}/{sub.slug}", topic_index[(area.name, None)]])
    keyword_number = {id(k): i for i, k in enumerate(catalog.keywords)}
    author_number = {id(a): i for i, a in enumerate(catalog.authors)}

    papers = []
    documents = []
    for number, paper in enumerate(catalog.papers):
        area = catalog.paper_area(paper)
        sub = catalog.paper_subarea(paper)
        topic = topic_index.get((area.name, sub.name if sub else None)) if area else None
        authors = catalog.paper_authors(paper)
        keywords = catalog.paper_keywords(paper)
        papers.append(
            [
                paper.slug,
                " ".join(paper.title.split()),
                list(dict.fromkeys(author_number[id(a)] for a in authors)),
                topic,
                [keyword_number[id(k)] for k in keywords],
            ]
        )
        documents.append(
            {
                "id": str(number),
                "title": paper.title,
                # folded spellings too, so "Jose Garcia" finds "José García"
                "authors": " ".join(list(paper.authors) + [fold(a) for a in paper.authors]),
                "keywords": " ".join(paper.keywords),
                "topic": paper.topic.label() if paper.topic else "",
                "abstract": paper.abstract or "",
            }
        )
    if documents:
        index = lunr(ref="id", fields=FIELDS, documents=documents).serialize()
    else:  # lunr.py cannot build an empty index (it divides by the document count)
        index = {
            "version": "2.3.9",
            "fields": [f["field_name"] for f in FIELDS],
            "fieldVectors": [],
            "invertedIndex": [],
            "pipeline": ["stemmer"],
        }
    store = {
        "topics": topics,
        "keywords": [[k.name, k.slug] for k in catalog.keywords],
        "authors": [[a.name, a.slug] for a in catalog.authors],
        "papers": papers,
    }
    return {
        INDEX_FILE: _compact(index),
        DOCS_FILE: _compact(store),
        LUNR_FILE: lunr_js_source().read_bytes(),
    }


def explore_page() -> str:
    body = block(
        "<h1>Explore</h1>",
        "<p>Search the titles, authors, keywords and abstracts of every paper, and narrow the results by topic, "
        "keyword or author. The address bar keeps your search: copy it to share, reload to come back.</p>",
        '<form class="ps-explore" data-ps-explore role="search">',
        '<div class="ps-explore-row"><label for="ps-q">Search</label>'
        '<input id="ps-q" name="q" type="search" placeholder="e.g. diffusion, Yoshua Bengio, graph neural networks" autocomplete="off"></div>',
        '<div class="ps-explore-row"><label for="ps-topic">Topic</label>'
        '<select id="ps-topic" name="topic"><option value="">Any topic</option></select></div>',
        '<div class="ps-explore-row"><label for="ps-keyword">Keyword</label>'
        '<input id="ps-keyword" name="keyword" list="ps-keyword-list" placeholder="Any keyword" autocomplete="off">'
        '<datalist id="ps-keyword-list"></datalist></div>',
        '<div class="ps-explore-row"><label for="ps-author">Author</label>'
        '<input id="ps-author" name="author" list="ps-author-list" placeholder="Any author" autocomplete="off">'
        '<datalist id="ps-author-list"></datalist></div>',
        '<div class="ps-explore-row"><button type="reset" class="md-button">Clear</button></div>',
        "</form>",
        '<p class="ps-explore-count" data-ps-explore-count aria-live="polite">Loading the search index…</p>',
        '<ol class="ps-papers ps-explore-results" data-ps-explore-results></ol>',
        "<noscript><p>The Explore page needs JavaScript. Every paper is also listed on the "
        '<a href="../papers/">All papers</a> page.</p></noscript>',
    )
    return page({"title": "Explore", "hide": ["toc"], "search": {"exclude": True}}, body)
