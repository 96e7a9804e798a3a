"""generator/site/carried.py: a page key carried from the build that kept the catalog is the key the page's
arguments have now, or none is carried."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings, strategies as st

from generator.catalog import build_catalog, kept_catalog, update_catalog
from generator.site.carried import NO_KEYS, Carried, PageKeys, areas_digest
from generator.site.memo import Fingerprints
from generator.site.render.indices import _author_page, _keyword_page, related_keywords
from generator.site.render.paper_pages import paper_page
from generator.site.render.views import Views
from test_catalog import _paper, edited


def _page_keys(catalog, paths: dict[str, str], context: str) -> dict[str, str]:
    """Every author, keyword and paper page's key as a build computes it (the context stands in for ``SiteContext``)."""
    prints = Fingerprints()
    views = Views(catalog, prints)
    keys = {a.url: prints.of(_author_page, (a, views.memos)) for a in catalog.authors}
    keys.update((k.url, prints.of(_keyword_page, (k, views.memos, views.links(related_keywords(catalog, k))))) for k in catalog.keywords)
    for p in catalog.papers:
        keys[p.slug] = prints.of(paper_page, (p, views.paper(p), (context, paths.get(p.slug))))
    return keys


def _kept(catalog, paths, context) -> PageKeys:
    keys = _page_keys(catalog, paths, context)
    return PageKeys(context, areas_digest(catalog), {a.slug: keys[a.url] for a in catalog.authors},
                    {p.slug: (keys[p.slug], paths.get(p.slug)) for p in catalog.papers}, {k.slug: keys[k.url] for k in catalog.keywords})


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 2**32), st.integers(1, 12), st.lists(st.integers(1, 3), min_size=1, max_size=12))
def test_a_carried_key_is_the_key_the_page_has_now(seed, start, steps):
    rng = random.Random(seed)
    records = {}
    for number in range(start):
        edited(rng, records, number)
    paths = {slug: f"site_src/papers/{slug}.md" for slug in records}
    context = "settings"
    catalog = build_catalog(list(records.values()))
    kept, made, keys = kept_catalog(catalog), dict(records), _kept(catalog, paths, context)
    number = start
    for edits in steps:
        for _ in range(edits):
            number += 1
            edited(rng, records, number)
        for slug in records:
            paths.setdefault(slug, f"site_src/papers/{slug}.md")
        if records and rng.random() < 0.2:  # a page moved to another file, its bytes the same
            paths[rng.choice(sorted(records))] = f"site_src/papers/moved-{number}.md"
        if rng.random() < 0.1:
            context = f"settings {number}"
        now = list(records.values())
        update = update_catalog(kept, now, {slug for slug, record in records.items() if made.get(slug) is record})
        if update is None:
            catalog = build_catalog(now)
            kept, made, keys = kept_catalog(catalog), dict(records), _kept(catalog, paths, context)
            continue
        carried = Carried(keys, update, context, areas_digest(update.catalog))
        fresh = _page_keys(update.catalog, paths, context)
        for author in update.catalog.authors:
            key = carried.author(author)
            assert key is None or key == fresh[author.url], author.name
        for keyword in update.catalog.keywords:
            key = carried.keyword(keyword)
            assert key is None or key == fresh[keyword.url], keyword.name
        for paper in update.catalog.papers:
            key = carried.paper(paper, paths.get(paper.slug))
            assert key is None or key == fresh[paper.slug], paper.slug
        # the authors and keywords whose keys are carried are not made known; the others' keys are as a whole build's
        prints = Fingerprints()
        views = Views(update.catalog, prints, kept=carried.kept_slugs())
        for author in update.catalog.authors:
            if carried.author(author) is None:
                assert prints.of(_author_page, (author, views.memos)) == fresh[author.url]
        for keyword in update.catalog.keywords:
            if carried.keyword(keyword) is None:
                related = views.links(related_keywords(update.catalog, keyword))
                assert prints.of(_keyword_page, (keyword, views.memos, related)) == fresh[keyword.url]


def _corpus():
    return [_paper(f"p{i}", f"Title {i}", [f"Name {i % 7}", f"Name {(i * 3) % 11}", "Ada Lovelace"], [f"kw {i % 4}"])
            for i in range(30)]


def _carried_after(change, context="settings", areas=None, records=None):
    records = records or _corpus()
    paths = {r.slug: f"site_src/papers/{r.slug}.md" for r in records}
    catalog = build_catalog(records)
    keys = _kept(catalog, paths, "settings")
    now = [change.get(r.slug, r) for r in records]
    update = update_catalog(kept_catalog(catalog), now, {r.slug for r in records if r.slug not in change})
    assert update is not None
    carried = Carried(keys, update, context, areas or areas_digest(update.catalog))
    by_slug = {p.slug: p for p in update.catalog.papers}
    papers = {slug for slug, p in by_slug.items() if carried.paper(p, paths[slug]) is not None}
    authors = {a.name for a in update.catalog.authors if carried.author(a) is not None}
    keywords = {k.name for k in update.catalog.keywords if carried.keyword(k) is not None}
    return papers, authors, update.catalog, keywords


def test_a_title_edit_carries_every_key_but_the_pages_that_show_the_paper():
    records = _corpus()
    papers, authors, catalog, keywords = _carried_after({"p3": dataclasses.replace(records[3], title="Retitled")})
    # p3 alone: no paper page shows another's title (its related papers are drawn by the browser)
    assert {p.slug for p in catalog.papers} - papers == {"p3"}
    # its authors (their pages list it); every other author page's key is carried
    assert {a.name for a in catalog.authors} - authors == set(records[3].authors)
    # and its keywords (their pages list it); every other keyword page's key is carried
    assert {k.name for k in catalog.keywords} - keywords == set(records[3].keywords)


def test_a_keyword_whose_name_moved_carries_no_keyword_key():
    """A keyword page lists the keywords most on its papers, by name: one renamed may be on any of them."""
    records = _corpus()
    renamed = {"p2": dataclasses.replace(records[2], keywords=["a keyword of its own"])}
    _, _, catalog, keywords = _carried_after(renamed, records=records)
    assert keywords == set() and len(catalog.keywords) > 1


def test_an_author_whose_name_moved_drops_the_keys_of_the_pages_that_link_to_it():
    # Jose's name is spelt "José García" on two of his three papers now: p1, not edited, links to the new name
    rows = {"p1": ["Ann Lee", "Jose Garcia", "Kim Park"], "p2": ["Jose Garcia", "Lu Chen"], "p3": ["Jose Garcia", "Max Roy"],
            "p4": ["Ann Lee", "Ola Berg"], "p5": ["Ola Berg"]}
    records = [_paper(slug, f"Title {slug}", names) for slug, names in rows.items()]
    accented = {slug: dataclasses.replace(r, authors=["José García" if n == "Jose Garcia" else n for n in r.authors])
                for slug, r in zip(rows, records) if slug in ("p2", "p3")}
    papers, authors, _, _ = _carried_after(accented, records=records)
    assert papers == {"p4", "p5"}
    # Ann's and Kim's pages list their co-author by name: only Ola's page is made of nothing that moved
    assert authors == {"Ola Berg"}


def test_a_keyword_whose_name_moved_drops_the_keys_of_the_papers_that_show_it():
    # "ML" on p1 and p2, "ml" on p3: p2 respelt makes "ml" the keyword's name, which p1 (not edited) shows
    rows = {"p1": ["ML"], "p2": ["ML"], "p3": ["ml"], "p4": ["Graphs"]}
    records = [_paper(slug, f"Title {slug}", [f"Author {slug}"], words) for slug, words in rows.items()]
    respelt = {"p2": dataclasses.replace(records[1], keywords=["ml"])}
    papers, authors, catalog, _ = _carried_after(respelt, records=records)
    assert catalog.keyword_of["ml"].name == "ml"
    assert papers == {"p4"}
    assert authors == {"Author p1", "Author p3", "Author p4"}  # an author page shows no keyword


def test_other_settings_or_topics_carry_no_paper_key():
    records = _corpus()
    change = {"p3": dataclasses.replace(records[3], title="Retitled")}
    assert _carried_after(change, context="other settings")[0] == set()
    assert _carried_after(change, areas="other areas")[0] == set()
    assert _carried_after(change, context="other settings")[1]  # an author page shows no settings


def test_no_keys_carry_nothing():
    catalog = build_catalog(_corpus())
    assert NO_KEYS.author(catalog.authors[0]) is None
    assert NO_KEYS.paper(catalog.papers[0], None) is None
