"""generator/site/render/views.py: a page is handed the values it shows, which key its memo entry."""

from __future__ import annotations

import pytest

from generator.catalog import build_catalog
from generator.site.memo import Fingerprints
from generator.site.render.views import Views
from site_fixtures import fixture_records


def _view(records, slug):
    catalog = build_catalog(records)
    paper = next(p for p in catalog.papers if p.slug == slug)
    return paper, Views(catalog).paper(paper)


def test_a_paper_view_holds_the_links_its_page_shows() -> None:
    paper, view = _view(fixture_records(), "one-step-diffusion-via-shortcut-models")
    assert [link.name for link in view.paper_keywords(paper)] == ["diffusion models", "generative models"]
    assert view.paper_area(paper).url == "topics/deep-learning/"
    assert view.paper_subarea(paper).name == "Generative Models and Autoencoders"
    assert {link.url for link in view.author_of.values()} == {
        "authors/kevin-frans/", "authors/danijar-hafner/", "authors/sergey-levine/", "authors/pieter-abbeel/"}


def test_a_view_changes_exactly_when_what_the_page_shows_changes() -> None:
    records = fixture_records()
    paper, before = _view(records, "one-step-diffusion-via-shortcut-models")
    prints = Fingerprints()
    unrelated = [r.replace(title="Another title") if r.slug == "graph-transformers" else r for r in records]
    assert prints.of(_view(unrelated, paper.slug)[1]) == prints.of(before)
    renamed = [r.replace(keywords=["diffusion models", "generative modelling"]) if r.slug == paper.slug else r for r in records]
    assert Fingerprints().of(_view(renamed, paper.slug)[1]) != prints.of(before)


def test_a_view_offers_nothing_of_the_catalog_beyond_the_page() -> None:
    _, view = _view(fixture_records(), "calibrated-flows")
    with pytest.raises(AttributeError):
        view.papers  # noqa: B018 (the whole corpus is no part of a paper page)


def _digests(records) -> dict[str, tuple[str, str]]:
    """Each author's, keyword's and paper view's digest as a build knows it (``Views(catalog, prints)``)
    beside the digest of its fields, hashed one by one as a key would hash it."""
    catalog = build_catalog(records)
    prints, fields = Fingerprints(), Fingerprints()
    views = Views(catalog, prints)
    found = {node.url: (prints.digest_of(node), fields.digest_of(node)) for node in [*catalog.authors, *catalog.keywords]}
    for paper in catalog.papers:
        view = views.paper(paper)
        found[f"view of {paper.slug}"] = (prints.digest_of(view), fields.digest_of(view))
    return found


def _edited(records, slug: str, **fields):
    return [r.replace(**fields) if r.slug == slug else r for r in records]


def _corpus():
    """Four papers whose authors overlap: Ann and Jose share p1; Jose also wrote p2 and p3."""
    base = fixture_records()[0]
    rows = {"p1": ["Ann Lee", "Jose Garcia", "Kim Park"], "p2": ["Jose Garcia", "Lu Chen"],
            "p3": ["Jose Garcia", "Max Roy"], "p4": ["Ann Lee", "Ola Berg"]}
    return [base.replace(slug=slug, id=f"id-{slug}", title=f"Title {slug}", authors=names,
                         keywords=["kw one", "kw two"] if slug in ("p1", "p2") else ["kw three"]) for slug, names in rows.items()]


EDITS = {
    "a title": lambda rs: _edited(rs, "p2", title="Another title"),
    "an author moved to another paper": lambda rs: _edited(_edited(rs, "p3", authors=["Max Roy"]), "p4", authors=["Ann Lee", "Ola Berg", "Jose Garcia"]),
    "a co-author renamed on papers the author did not write": lambda rs: _edited(_edited(rs, "p2", authors=["José García", "Lu Chen"]),
                                                                          "p3", authors=["José García", "Max Roy"]),
    "a colliding author slug taken first": lambda rs: _edited(rs, "p4", authors=["Ann Lee", "Ola Berg", "(Jose) Garcia"]),
    "a keyword moved": lambda rs: _edited(rs, "p3", keywords=["kw one"]),
    "an author dropped": lambda rs: _edited(rs, "p1", authors=["Ann Lee", "Jose Garcia"]),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_author_keyword_or_view_known_by_what_it_is_made_of_is_stale_never(edit: str) -> None:
    """Equal known digests before and after an edit are equal values (no stale page), and an edit
    that changes a value changes its known digest (the page is rendered again)."""
    records = _corpus()
    before, after = _digests(records), _digests(EDITS[edit](records))
    changed = 0
    for url in before.keys() & after.keys():
        (known_before, fields_before), (known_after, fields_after) = before[url], after[url]
        assert (known_before == known_after) == (fields_before == fields_after), url
        changed += fields_before != fields_after
    assert changed, "the edit changes some page"


def test_a_co_author_renamed_elsewhere_changes_the_author_pages_that_link_to_them() -> None:
    records = _corpus()
    before, after = _digests(records), _digests(EDITS["a co-author renamed on papers the author did not write"](records))
    assert before["authors/ann-lee/"][0] != after["authors/ann-lee/"][0]  # Ann's papers are as they were; Jose's name is not
    assert before["authors/kim-park/"][0] != after["authors/kim-park/"][0]
    assert before["authors/ola-berg/"][0] == after["authors/ola-berg/"][0]


def test_an_author_whose_co_author_lost_its_slug_to_a_colliding_name_is_rendered_again() -> None:
    records = _corpus()
    after_records = EDITS["a colliding author slug taken first"](records)
    assert {a.url for a in build_catalog(after_records).authors} >= {"authors/jose-garcia/", "authors/jose-garcia-2/"}
    before, after = _digests(records), _digests(after_records)
    assert before["authors/kim-park/"][0] != after["authors/kim-park/"][0]  # Kim's paper is as it was; Jose's slug is not
