"""Accessibility (axe-core) and a phone-width layout on each kind of page."""

from __future__ import annotations

import pytest

from site_ui import horizontal_overflow

pytestmark = pytest.mark.browser

PROBE_TITLE = "One Step Diffusion via Shortcut Models"


@pytest.fixture(scope="module")
def page_paths(papers, site_dir):
    probe = next(p for p in papers if " ".join(p.title.split()).lower() == PROBE_TITLE.lower())
    guessed = next(p for p in papers if p.topic and p.topic.source == "inferred" and p.topic.subarea)

    def first(section: str) -> str:  # a detail page of a section, e.g. one author's page
        folder = next(d for d in sorted((site_dir / section).iterdir()) if (d / "index.html").exists())
        return f"{section}/{folder.name}/"

    subarea = next(d for d in sorted((site_dir / "topics").glob("*/*")) if (d / "index.html").exists())
    return {
        "home": "", "paper": f"papers/{probe.slug}/", "inferred paper": f"papers/{guessed.slug}/",
        "index": "topics/", "explore": "explore/", "papers": "papers/", "stats": "stats/", "about": "about/",
        "area": f"topics/{subarea.parent.name}/", "subarea": f"topics/{subarea.parent.name}/{subarea.name}/",
        "keyword": first("keywords"), "author": first("authors"), "keywords": "keywords/", "authors": "authors/",
    }


# every kind of page the site has (the 404 page, served as GitHub Pages does: test_web_presence.py)
PAGE_KINDS = ["home", "paper", "inferred paper", "index", "explore", "papers", "stats", "about", "area", "subarea",
              "keyword", "author", "keywords", "authors"]


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_no_serious_or_critical_axe_violation(site_page, page_paths, kind):
    from axe_playwright_python.sync_playwright import Axe

    site_page.goto(page_paths[kind])
    site_page.page.wait_for_load_state("networkidle")
    violations = Axe().run(site_page.page).response["violations"]
    bad = [v for v in violations if v.get("impact") in ("serious", "critical")]
    described = [
        f"{v['id']} ({v['impact']}): {v['help']} -- e.g. {', '.join(str(n['target']) for n in v['nodes'][:3])}"
        for v in bad
    ]
    assert not bad, f"{page_paths[kind] or '/'}: axe finds\n" + "\n".join(described)


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_phone_viewport_has_no_horizontal_overflow(phone_page, page_paths, kind):
    phone_page.goto(page_paths[kind])
    phone_page.page.wait_for_load_state("networkidle")
    found = horizontal_overflow(phone_page.page)
    assert found["scrollWidth"] <= found["innerWidth"], (
        f"{page_paths[kind] or '/'} at 390x844: document is {found['scrollWidth']}px wide for a "
        f"{found['innerWidth']}px viewport; wide elements: {found['wide']}"
    )
