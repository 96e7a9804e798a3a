"""generator/layout.py: routes give every page kind's URL, staged file and parse; slugs and links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator import layout

GENERATOR = Path(__file__).resolve().parents[1] / "generator"


@pytest.mark.parametrize("route", layout.DETAIL_ROUTES + layout.SECTION_ROUTES, ids=lambda r: r.kind)
def test_every_route_reads_back_the_urls_it_makes(route: layout.Route) -> None:
    values = tuple(f"v{n}-x" for n in range(len(route.holes)))
    url = route.url(*values)
    assert url == "" or url.endswith("/")
    assert layout.route_of(url) == (route, values)
    assert layout.route_of("/" + url) == (route, values)  # as check reads a link: from the site root
    assert route.staged(*values) == f"{url}index.md"


def test_a_route_refuses_the_wrong_number_of_values() -> None:
    with pytest.raises(TypeError):
        layout.SUBAREA.url("only-area")
    with pytest.raises(TypeError):
        layout.EXPLORE.url("x")


def test_urls_of_no_route_are_not_routed() -> None:
    for url in ("topics/a/b/c/", "papers/a/b/", "about/", "assets/papersite/x.js", "authorsx/y/"):
        assert layout.route_of(url) is None, url


def test_url_patterns_name_every_route_once() -> None:
    patterns = layout.url_patterns()
    assert len(patterns) == len(layout.DETAIL_ROUTES + layout.SECTION_ROUTES)
    assert patterns["paper"] == "papers/{slug}/" and patterns["subarea"] == "topics/{area}/{subarea}/"


def test_no_module_writes_a_section_url_by_hand() -> None:
    """The class of bug routes prevent: a URL scheme spelt out again somewhere else."""
    sections = "|".join(sorted({route.section for route in layout.DETAIL_ROUTES + layout.SECTION_ROUTES if route.section}))
    written = re.compile(rf"""["'/](?:{sections})/(?:["'{{]|index\.md)""")
    found = []
    for path in sorted(GENERATOR.rglob("*")):
        if path.suffix not in (".py", ".js", ".html") or path.name == "layout.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0] if path.suffix == ".py" else line
            if written.search(code) and not code.strip().startswith(("//", "*", '"""')):
                found.append(f"{path.relative_to(GENERATOR)}:{number}: {line.strip()}")
    assert not found, "URLs written by hand instead of through layout's routes:\n" + "\n".join(found)


def test_relative_links_between_directory_urls() -> None:
    assert layout.relative("authors/a/", "authors/b/") == "../b/"
    assert layout.relative("papers/x/", "topics/t/s/") == "../../topics/t/s/"
    assert layout.relative("", "papers/") == "papers/"
    assert layout.relative("papers/", "papers/") == "./"


def test_slugs_are_never_reserved_and_clashes_get_numbers() -> None:
    assert layout.paper_slug("Index") == "index-paper"
    assert layout.slug_of("CON") == "con-x"
    slugs = layout.Slugs()
    assert [slugs.take("a"), slugs.take("a"), slugs.take("a")] == ["a", "a-2", "a-3"]


def test_only_http_urls_with_a_host_are_web_urls() -> None:
    assert layout.is_web_url("https://openreview.net/forum?id=x")
    for bad in ("javascript:alert(1)", "https://", "http://x y", 'https://x"onclick', "ftp://x", None):
        assert not layout.is_web_url(bad), bad
