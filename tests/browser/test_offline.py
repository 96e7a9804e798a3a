"""No request leaves the site's origin on any kind of page (fonts, scripts, images, analytics)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGE_PATHS = ["", "papers/", "topics/", "keywords/", "authors/", "explore/", "stats/", "about/"]


def test_every_kind_of_page_stays_on_its_origin(site_page, papers):
    # The harness aborts and fails the test on any request to another origin;
    # this test only makes sure each kind of page is visited once, fully loaded.
    paths = PAGE_PATHS + [f"papers/{sorted(papers, key=lambda p: p.slug)[0].slug}/"]
    missing = []
    for path in paths:
        response = site_page.page.goto(site_page.site.url(path), wait_until="networkidle")
        if response is None or response.status != 200:
            missing.append(f"{path or '/'} ({response.status if response else 'no response'})")
    assert not missing, f"pages the site should have: {missing}"


def test_a_browser_without_resize_observer_gets_the_sites_own_not_unpkgs(page_factory, site):
    """The theme's script fetched a ResizeObserver from unpkg.com in such a browser (before 2020): now the site's."""
    from site_ui import assert_sized_by_our_resize_observer, without_resize_observer

    visit = page_factory(site, viewport={"width": 1280, "height": 900})
    requested = without_resize_observer(visit)
    for path in ("", "topics/"):
        visit.page.goto(site.url(path), wait_until="networkidle")
        visit.page.set_viewport_size({"width": 1280, "height": 900})
        assert_sized_by_our_resize_observer(visit, requested)
