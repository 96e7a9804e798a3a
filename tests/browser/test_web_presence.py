"""How the site travels on the web: canonical links, sitemap, link previews, the 404 page,
and links in abstracts.

The bundled site is published at ``site_url`` (papersite.yml), a GitHub Pages project
path; the 404 test serves the built site as GitHub Pages does (under that path,
``404.html`` for any unknown address) so that its links are followed as a reader would.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import re
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from conftest import LocalSite, QuietServer, REPO
from site_fixtures import sitemap_locs

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site_url(site_project: Path) -> str:
    from generator.config import load_config

    url = load_config(site_project).site_url
    assert url, "the bundled papersite.yml should set site_url"
    return url


@pytest.fixture(scope="module")
def probe(papers):
    """A paper with authors and a long abstract: what a link preview shows."""
    return next(p for p in sorted(papers, key=lambda p: p.slug) if len(p.authors) >= 2 and p.abstract and len(p.abstract) > 600)


def test_paper_page_has_canonical_link_description_and_preview_tags(site_page, site_url, probe):
    site_page.goto(f"papers/{probe.slug}/")
    head = site_page.page

    def meta(selector: str) -> str | None:
        found = head.locator(selector)
        return found.first.get_attribute("content") if found.count() else None

    canonical = head.locator("link[rel=canonical]").get_attribute("href")
    assert canonical == f"{site_url}papers/{probe.slug}/"
    description = meta("meta[name=description]")
    # the abstract's first sentence, whole words, not the site's one description for every page
    first_words = " ".join(probe.abstract.split()[:4])
    assert description and description.startswith(first_words[:12]), (description, first_words)
    assert len(description) <= 201 and not description.endswith(" ")
    assert meta("meta[property='og:title']") == " ".join(probe.title.split())
    assert meta("meta[property='og:description']") == description
    # no og:url: a page without one is its own canonical URL to Facebook, as the canonical link says
    assert head.locator("meta[property='og:url']").count() == 0
    assert meta("meta[name='twitter:card']") == "summary"
    assert " ".join(probe.authors[0].split()) in (meta("meta[name='twitter:data1']") or "")
    authors = head.locator("meta[name='citation_author']").evaluate_all("ms => ms.map(m => m.content)")
    # Scholar takes the first citation_author as the first author: none where the order is not known
    assert authors == ([] if probe.author_order else [" ".join(a.split()) for a in probe.authors])
    # no citation_abstract: the abstract is on the page (issue 31: the tag repeated it, 1.3 KB a page)
    assert head.locator("meta[name=citation_abstract]").count() == 0


def test_each_paper_has_its_own_description(site_dir):
    descriptions = {}
    for page in sorted((site_dir / "papers").glob("*/index.html")):
        # the chrome is minified (postbuild.minify_page): attributes in any order, quoted or not
        found = re.search(r'<meta content="?([^">]*)"? name="?description"?>', page.read_text(encoding="utf-8"))
        descriptions[page.parent.name] = found.group(1) if found else None
    assert len(descriptions) > 500 and None not in descriptions.values()
    assert len(set(descriptions.values())) > 0.95 * len(descriptions)


def test_sitemap_lists_every_page_at_the_site_url(site_dir, site_url):
    # sitemap.xml, the URL a maintainer gives search engines, is an index of gzipped parts (the protocol's
    # 50,000 URLs a file would not hold ~48k pages at 12k papers much longer)
    index = (site_dir / "sitemap.xml").read_text(encoding="utf-8")
    assert index.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
    assert re.findall(r"<loc>([^<]+)</loc>", index) == [f"{site_url}sitemap-1.xml.gz"]
    assert gzip.decompress((site_dir / "sitemap.xml.gz").read_bytes()).decode("utf-8") == index
    part = gzip.decompress((site_dir / "sitemap-1.xml.gz").read_bytes()).decode("utf-8")
    locs = sitemap_locs(site_dir)
    pages = {p.parent.relative_to(site_dir).as_posix() for p in site_dir.rglob("index.html")}
    pages = {"" if p == "." else p + "/" for p in pages if not p.startswith("assets")}
    assert {loc.removeprefix(site_url) for loc in locs} == pages and len(locs) == len(pages)
    assert all(loc.startswith(site_url) for loc in locs) and "_shell" not in part
    # one line a page, no <lastmod> (the engine writes the build date there, 1980 in a reproducible build)
    assert part.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"')
    assert "<lastmod>" not in part and part.count("\n<url><loc>") == len(locs)


def test_one_repo_url_drives_the_header_link_and_the_edit_links(site_page, probe, site_project):
    from generator.config import load_config

    repo_url = load_config(site_project).repo_url
    assert "repo_url" not in yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8")), (
        "mkdocs.yml sets repo_url too: papersite.yml should be the one place")
    site_page.goto(f"papers/{probe.slug}/")
    page = site_page.page
    assert set(page.locator("a.md-source").evaluate_all("links => links.map(a => a.href)")) == {repo_url}
    assert page.get_by_role("link", name="Edit this page").get_attribute("href").startswith(f"{repo_url}/edit/")
    report = page.get_by_role("link", name="Fix this paper").get_attribute("href")
    assert report.startswith(f"{repo_url}/issues/new?template=correct-paper.yml") and f"paper_id={probe.id}" in report


class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    """GitHub Pages for a project site: files under the site path, 404.html for anything else."""

    prefix = "/"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def send_head(self):  # noqa: ANN201 - stdlib signature
        path = urlsplit(self.path).path
        if not path.startswith(self.prefix):
            return self._not_found()
        self.path = "/" + path[len(self.prefix):] + (("?" + urlsplit(self.path).query) if urlsplit(self.path).query else "")
        local = Path(self.translate_path(self.path))
        if not (local.is_file() or (local / "index.html").is_file()):
            return self._not_found()
        return super().send_head()

    def _not_found(self):  # noqa: ANN202
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        import io

        return io.BytesIO(body)


@pytest.fixture(scope="module")
def pages_site(site_dir, site_url):
    prefix = urlsplit(site_url).path
    handler = functools.partial(type("Handler", (_PagesHandler,), {"prefix": prefix}), directory=str(site_dir))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield LocalSite(root=site_dir, base_url=f"http://127.0.0.1:{server.server_address[1]}{prefix}")
    server.shutdown()
    server.server_close()


def _pages_server(site_dir: Path, prefix: str) -> tuple[QuietServer, LocalSite]:
    handler = functools.partial(type("Handler", (_PagesHandler,), {"prefix": prefix}), directory=str(site_dir))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, LocalSite(root=site_dir, base_url=f"http://127.0.0.1:{server.server_address[1]}{prefix}")


@pytest.fixture(scope="module")
def fork_site(site_dir):
    """The site as a fork's GitHub Pages would serve it: under a path that is not site_url's."""
    server, local = _pages_server(site_dir, "/someones-fork/")
    yield local
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("served", ["404.html opened from the site's root", "a fork's unknown address", "an unknown address"])
def test_the_404_page_is_styled_and_its_links_work_wherever_the_site_is_served(page_factory, site, fork_site, pages_site,
                                                                              served, width):
    local, address = {"404.html opened from the site's root": (site, "404.html"),
                      "a fork's unknown address": (fork_site, "papers/no-such-paper/"),
                      "an unknown address": (pages_site, "no/such/page/")}[served]
    options = {"viewport": {"width": width, "height": 900}}
    if width < 600:
        options.update(is_mobile=True, has_touch=True)
    visit = page_factory(local, **options)
    page = visit.page
    failed = []
    page.on("response", lambda r: failed.append((r.request.method, r.url)) if r.status >= 400 and r.url != local.url(address) else None)
    page.goto(local.url(address))
    page.wait_for_load_state("networkidle")
    if local is not pages_site:
        # served elsewhere than site_url says, the page finds the site's root (by asking for the site's
        # script folder by folder, HEAD) while the browser may already fetch from site_url's path
        published = urlsplit(pages_site.base_url).path
        failed = [(m, u) for m, u in failed if m != "HEAD" and not urlsplit(u).path.startswith(published)]
    assert not failed, f"{served}: requests failed: {failed}"
    # styled: Material's header is its primary colour, papersite.css hides the search field's label,
    # papersite.js filled the header's search box
    header = page.locator("header.md-header").evaluate("h => getComputedStyle(h).backgroundColor")
    assert header not in ("rgba(0, 0, 0, 0)", "transparent"), f"{served}: the header is unstyled"
    assert page.locator("label[for=ps-404-q]").evaluate("l => l.getBoundingClientRect().width") <= 1
    assert page.locator("[data-ps-search-input]").count() == 1, f"{served}: papersite.js did not run"
    assert page.get_by_role("heading", name="Page not found").is_visible()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert urlsplit(page.url).path == urlsplit(local.url(address)).path, f"{served}: the skip link left the page for {page.url}"
    link = page.locator("main article").get_by_role("link", name="Topics", exact=True)
    with page.expect_navigation():
        link.click()
    page.get_by_role("heading", name="Topics", exact=True).wait_for(state="visible")  # drawn after the load event at times
    assert page.url == local.url("topics/") and page.get_by_role("heading", name="Topics", exact=True).is_visible()


def test_unknown_address_shows_search_and_the_indexes(page_factory, pages_site):
    visit = page_factory(pages_site, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = visit.page
    response = page.goto(pages_site.url("papers/no-such-paper-here/"))
    assert response.status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()
    for name in ("All papers", "Topics", "Keywords", "Authors"):
        link = page.locator("main article").get_by_role("link", name=name, exact=True)
        with page.expect_navigation():
            link.click()
        assert page.title() and "not found" not in page.content().lower()[:3000], f"{name} from the 404 page: {page.url}"
        page.go_back()
    box = page.get_by_role("searchbox", name="Search papers")
    box.fill("diffusion")
    with page.expect_navigation():
        box.press("Enter")
    assert urlsplit(page.url).path.endswith("/explore/") and "q=diffusion" in page.url
    page.locator("main a[href*='/papers/']").first.wait_for()


def test_404_page_has_no_serious_axe_violation(page_factory, pages_site):
    from axe_playwright_python.sync_playwright import Axe

    visit = page_factory(pages_site, viewport={"width": 1280, "height": 900})
    visit.page.goto(pages_site.url("no/such/page/"))
    visit.page.wait_for_load_state("networkidle")
    bad = [v for v in Axe().run(visit.page).response["violations"] if v.get("impact") in ("serious", "critical")]
    assert not bad, [f"{v['id']}: {v['help']}" for v in bad]


LISTED = {
    "title": "Sparse Mixtures at Scale",
    "authors": ["Ada Lovelace", "Alan Turing"],
    "abstract": (
        "We \\emph{quantitatively} study $\\textbf{Dis}$tribution shift and bound it by $O(n^2)$ at worst.We propose "
        "SparseMix, a router for mixtures of experts. Code: https://github.com/example-lab/sparsemix. "
        "Project page: \\url{https://example-lab.github.io/sparsemix/}."
    ),
}
LISTED_WITH_CODE = {
    "title": "A Paper That Lists Its Code",
    "authors": ["Grace Hopper"],
    "abstract": "We release everything at https://github.com/other/not-this-one.",
    "code_url": "https://gitlab.com/listed/the-real-code",
}


@pytest.fixture(scope="module")
def abstract_site(tmp_path_factory):
    import json

    from conftest import build_project, new_project, serve

    project = new_project(tmp_path_factory.mktemp("abstracts") / "project")
    listing = "\n".join(json.dumps(entry) for entry in (LISTED, LISTED_WITH_CODE)) + "\n"
    (project / "corpus" / "listing.jsonl").write_text(listing, encoding="utf-8")
    return serve(build_project(project))


def _paper_path(site: LocalSite, title: str) -> str:
    from generator.layout import paper_slug as make_slug

    return f"papers/{make_slug(title)}/"


def test_abstract_shows_markup_links_and_a_code_link_from_its_repository(page_factory, abstract_site):
    visit = page_factory(abstract_site, viewport={"width": 1280, "height": 900})
    visit.goto(_paper_path(abstract_site, LISTED["title"]))
    page = visit.page
    abstract = page.locator(".ps-abstract")
    text = abstract.inner_text()
    assert "\\emph" not in text and "quantitatively" in abstract.locator("em").all_inner_texts()
    # "$\\textbf{Dis}$tribution" is one word in bold and plain text, not math
    assert abstract.locator("strong").all_inner_texts() == ["Dis"] and "Distribution" in text
    assert abstract.locator("math").count() == 1  # O(n^2) stays math
    assert "at worst. We propose" in text  # the listing's glued sentence, spaced for reading
    hrefs = abstract.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert hrefs == ["https://github.com/example-lab/sparsemix", "https://example-lab.github.io/sparsemix/"]
    code = page.locator("dl.ps-facts").get_by_role("link", name="Code", exact=True)
    assert code.get_attribute("href") == "https://github.com/example-lab/sparsemix"


def test_a_listed_code_link_is_never_replaced_by_one_from_the_abstract(page_factory, abstract_site):
    visit = page_factory(abstract_site, viewport={"width": 1280, "height": 900})
    visit.goto(_paper_path(abstract_site, LISTED_WITH_CODE["title"]))
    code = visit.page.locator("dl.ps-facts").get_by_role("link", name="Code", exact=True)
    assert code.get_attribute("href") == LISTED_WITH_CODE["code_url"]
