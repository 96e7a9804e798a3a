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
