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
