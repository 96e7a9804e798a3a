"""generator/layout.py: routes give every page kind's URL, staged file and parse; slugs and links."""

from __future__ import annotations

import posixpath
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



@pytest.mark.parametrize("name", ["index", "Index", "search", "assets", "404", "CON", "nul", "com1", "LPT9"])
def test_a_reserved_name_never_takes_a_section_page(name):
    assert layout.slug_of(name) == f"{name.lower()}-x"
    assert layout.paper_slug(name) == f"{name.lower()}-paper"


def test_slugs_are_never_empty():
    assert layout.slug_of("!!!") == "x" and layout.slug_of("李明") == "li-ming"
    assert layout.paper_slug("") == "paper" and layout.paper_slug("???") == "paper"


def test_a_paper_slug_is_cut_at_a_word_within_80_characters():
    slug = layout.paper_slug("Scaling " + "very " * 30 + "large models")
    assert len(slug) <= layout.PAPER_SLUG_MAX_LENGTH and slug.startswith("scaling-very-")
    assert set(slug.split("-")) == {"scaling", "very"}  # whole words only: no "ver" or "larg"


def test_slugs_are_handed_out_in_call_order_with_numbered_suffixes():
    slugs = layout.Slugs()
    assert [slugs.take(s) for s in ("ann", "ann", "ann", "index", "index")] == ["ann", "ann-2", "ann-3", "index-x", "index-x-2"]


def test_a_suffixed_paper_slug_stays_within_the_limit():
    base = "a" * 79 + "b"
    papers = layout.paper_slugs({base})
    slug = papers.take(base)
    assert slug == "a" * 78 + "-2" and len(slug) == layout.PAPER_SLUG_MAX_LENGTH
    assert papers.take("index") == "index-paper" and papers.take("index") == "index-paper-2"


def test_urls_of_each_page_kind_are_directory_urls_without_a_leading_slash():
    urls = [layout.paper_url("p"), layout.author_url("a"), layout.keyword_url("k"), layout.area_url("t"),
            layout.subarea_url("t", "s")]
    assert urls == ["papers/p/", "authors/a/", "keywords/k/", "topics/t/", "topics/t/s/"]


PAGES = ["", "papers/", "papers/p/", "authors/a/", "topics/t/", "topics/t/s/", "topics/u/s/", "search/", "papers/q/"]


@pytest.mark.parametrize("start", PAGES)
def test_relative_links_are_what_posixpath_relpath_gives(start):
    for target in PAGES + ["assets/site.css", "sitemap.xml"]:
        expected = posixpath.relpath(target or ".", start or ".")
        expected = "./" if expected == "." else expected + ("/" if target.endswith("/") or not target else "")
        assert layout.relative(start, target) == expected, (start, target)


@pytest.mark.parametrize(("url", "web"), [
    ("https://openreview.net/forum?id=x", True), ("http://example.org", True), ("HTTPS://EXAMPLE.ORG/", True),
    ("javascript:alert(1)", False), ("https://", False), ("ftp://example.org/x", False), ("//example.org", False),
    ("https://exa mple.org", False), ('https://x.org/"onmouseover=', False), ("https://x.org/\u200e", False),
    ("https://x.org/\n", False), ("https://[::1", False), (None, False), ("", False),
])
def test_only_http_urls_with_a_host_and_nothing_that_ends_an_attribute_are_web_links(url, web):
    assert layout.is_web_url(url) is web


def test_query_urls_escape_every_value():
    assert layout.query_url("https://github.com/o/r/issues/new", title="a&b=c", body="é /") == (
        "https://github.com/o/r/issues/new?title=a%26b%3Dc&body=%C3%A9%20%2F")


def test_the_slug_memo_is_the_one_slug_of_fills():
    layout.slug_of("A Name Only This Test Uses")
    assert layout.known_slugs()["A Name Only This Test Uses"] == "a-name-only-this-test-uses"
