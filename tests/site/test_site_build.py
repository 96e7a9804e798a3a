"""The built site: real corpus pages and the fixture pages, checked as a reader would.

Builds once per session into tmp: the repository's paper pages (or, until they are
committed, the bundled corpus imported into a scratch project), plus a small
fixture project with hostile text. Marked slow: it runs MkDocs.
"""

from __future__ import annotations

import filecmp
import gzip
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from generator.cli import main as papersite
from generator.config import load_config
from generator.catalog import build_catalog
from generator.site import search
from generator.site.render.mathml import _ONLY_TEXT, latex_to_mathml, math_spans
from generator.site.stage import read_records
from site_fixtures import REPO_ROOT, html_attributes, links_run_script, lunr_index_of, search_json, shard_key, store_papers, write_project

pytestmark = pytest.mark.slow


def _project_from_repo(root: Path) -> Path:
    """A scratch copy of this project's inputs, with the theme overrides found by absolute path."""
    shutil.copytree(REPO_ROOT / "corpus", root / "corpus")
    shutil.copy(REPO_ROOT / "papersite.yml", root / "papersite.yml")
    papers = REPO_ROOT / "site_src" / "papers"
    shutil.copytree(REPO_ROOT / "site_src", root / "site_src")
    if (REPO_ROOT / ".papersite").is_dir():
        shutil.copytree(REPO_ROOT / ".papersite", root / ".papersite")
    mkdocs = yaml.safe_load((REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    mkdocs["theme"]["custom_dir"] = str(REPO_ROOT / "generator" / "site" / "templates")
    (root / "mkdocs.yml").write_text(yaml.safe_dump(mkdocs, sort_keys=False, allow_unicode=True), encoding="utf-8")
    if not any(papers.glob("*.md")):
        assert papersite(["--project", str(root), "import", "--quiet"]) == 0
    return root


@pytest.fixture(scope="session")
def real(tmp_path_factory):
    root = _project_from_repo(tmp_path_factory.mktemp("real"))
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    records, _ = read_records(config)
    return config, build_catalog(records)


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory):
    root = write_project(tmp_path_factory.mktemp("fixture"))
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    return load_config(root)


def _html(config, url: str) -> str:
    return (config.site_dir / url / "index.html").read_text(encoding="utf-8")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict]]:
    """Every start tag of a page with its attributes, however the page spells them (minified or not)."""
    reading = _Tags()
    reading.feed(html)
    return reading.tags


def _stylesheets(html: str) -> list[str]:
    return [attrs["href"] for tag, attrs in _tags(html) if tag == "link" and attrs.get("rel") == "stylesheet"]


def _classes(html: str) -> set[tuple[str, str]]:
    return {(tag, attrs["class"]) for tag, attrs in _tags(html) if attrs.get("class")}


def _article(html: str) -> str:
    return re.split(r'<article class="(?:md-content__inner md-typeset|md-typeset ps-page)">', html, maxsplit=1)[1].split("</article>", 1)[0]


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.refs.append((tag, name, value))


def _refs(path: Path) -> list[tuple[str, str, str]]:
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.refs


# --- paper pages -------------------------------------------------------------


def test_merged_paper_page_lists_every_source(real):
    config, catalog = real
    paper = next(p for p in catalog.papers if len(p.sources) > 1)
    article = _article(_html(config, f"papers/{paper.slug}"))
    assert f"merged from {len(paper.sources)} listing entries" in article
    for source in paper.sources:
        assert f"{source.file}</a> entry {source.entry}" in article


def test_derived_title_is_marked(real):
    config, catalog = real
    paper = next(p for p in catalog.papers if p.title_derived)
    h1 = re.search(r'<h1 class=ps-title>(.*?)</h1>', _article(_html(config, f"papers/{paper.slug}")), re.DOTALL).group(1)
    assert "derived title" in h1


def test_math_is_rendered_as_mathml(real):
    config, catalog = real

    def all_math_converts(text: str) -> bool:
        # "$\\textbf{Dis}$tribution" is text, not math: such papers do not count
        spans = [m for m in math_spans(text) if not _ONLY_TEXT.fullmatch(m.group(m.lastgroup or 0) or "")]
        return bool(spans) and all(
            latex_to_mathml(next(g for g in m.groups() if g)) is not None for m in spans
        )

    paper = next(p for p in catalog.papers if p.abstract and all_math_converts(p.abstract))
    abstract = _article(_html(config, f"papers/{paper.slug}")).split('<div class=ps-abstract>', 1)[1].split("</div>", 1)[0]
    assert "<math" in abstract
    assert not re.search(r"\$[^$<>]+\$", abstract)


def _citation_row(config, slug: str) -> dict:
    """A paper's row of the citation shards, as papersite-saved.js reads it (exports.json)."""
    assets = config.site_dir / "assets" / "papersite"
    schema = json.loads((assets / "exports.json").read_text(encoding="utf-8"))
    key = shard_key(schema, slug)
    rows = json.loads(gzip.decompress((config.site_dir / schema["shard_path"].format(shard=key)).read_bytes()))
    return next(dict(zip(schema["columns"], row)) for row in rows if row[schema["columns"].index("slug")] == slug)


def _fix_link(config, slug: str) -> str:
    """The pre-filled "Fix this paper" link papersite.js puts on a paper page: its fix-shard row's, and the abstract it gives."""
    from urllib.parse import quote

    assets = config.site_dir / "assets" / "papersite"
    schema = json.loads((assets / "exports.json").read_text(encoding="utf-8"))
    key = shard_key(schema, slug)
    rows = json.loads(gzip.decompress((config.site_dir / schema["fix_path"].format(shard=key)).read_bytes()))
    row = next(dict(zip(schema["fix_columns"], r)) for r in rows if r[schema["fix_columns"].index("slug")] == slug)
    return row["url"] + "&abstract=" + quote(row["abstract"], safe="-_.!~*'()") if row["abstract"] else row["url"]


def test_paper_page_has_links_cite_meta_and_actions(real):
    config, catalog = real
    accepted = next(p for p in catalog.papers if (p.decision or "").startswith("Accept") and not p.title_derived)
    rejected = next(p for p in catalog.papers if p.decision == "Reject" and not p.title_derived)
    html = _html(config, f"papers/{accepted.slug}")
    names = {value for tag, name, value in html_attributes(html) if tag == "meta" and name == "name"}
    assert {"citation_title", "citation_conference_title"} <= names
    # links out of the project say nofollow, and none opens a new window (the one case rel=noopener would act in)
    attributes = html_attributes(_article(html))
    assert not [a for a in attributes if a[1] == "target"]
    outbound = [(i, value) for i, (tag, name, value) in enumerate(attributes)
                if tag == "a" and name == "href" and value.startswith("http") and "/blob/" not in value]  # not the listings
    assert outbound and all(("a", "rel", "nofollow") in attributes[i : i + 4] for i, _ in outbound)
    article = _article(html)
    has = lambda text: text in article  # noqa: E731  (plain bool: a failing `in` on a page is a huge diff)
    # the citations in the citation shards, which papersite.js draws them from: none on the page
    assert not has("@inproceedings{") and not has('<code id="ps-bibtex">') and has("<h2 id=cite hidden>Cite</h2>")
    assert _citation_row(config, accepted.slug)["bibtex"].startswith("@inproceedings{")
    assert "TY  - CONF" in _citation_row(config, accepted.slug)["ris"]
    assert has('class="ps-badge ps-decision ps-decision-')
    rejected_article = _article(_html(config, f"papers/{rejected.slug}"))
    assert _citation_row(config, rejected.slug)["bibtex"].startswith("@misc{")
    assert "Submitted to " in _citation_row(config, rejected.slug)["bibtex"] and ">Rejected</span>" in rejected_article
    paper = accepted
    assert has(f"/edit/{config.repo_branch}/site_src/papers/{paper.slug}.md")
    assert has("Fix this paper") and has(f"/issues/new?template=correct-paper.yml&amp;paper_id={paper.id}")
    assert has("Search by title") or has("openreview.net/forum")


def test_paper_pages_stay_small(real):
    config, catalog = real
    sizes = {p.slug: (config.site_dir / "papers" / p.slug / "index.html").stat().st_size for p in catalog.papers}
    assert max(sizes.values()) < 40_000, max(sizes.items(), key=lambda kv: kv[1])


# --- index pages -------------------------------------------------------------


def test_index_counts_match_the_records(real):
    config, catalog = real
    home = _article(_html(config, ""))
    assert f"<strong>{len(catalog.papers):,}</strong> papers" in home
    assert f"<strong>{len(catalog.authors):,}</strong> authors" in home
    topics = _article(_html(config, "topics"))
    for area in catalog.areas:
        assert f'{area.name}</a> <span class=ps-count>{len(area.papers)}</span></h2>' in topics
        for sub in area.subareas:
            page = _article(_html(config, sub.url.rstrip("/")))
            assert len(re.findall(r'<li[^>]*><a href="?\.\./\.\./\.\./papers/', page)) == len(sub.papers)
    all_papers = _article(_html(config, "papers"))
    assert all_papers.count("<li data-area=") == len(catalog.papers)
    assert sum(len(a.papers) for a in catalog.areas) == len(catalog.papers)
    authors = _article(_html(config, "authors"))
    assert authors.count('<span class=ps-count') == len(catalog.authors)
    for author in catalog.authors[:20]:
        assert (config.site_dir / "authors" / author.slug / "index.html").exists()


def test_author_and_keyword_pages_come_whole_from_their_shell(real):
    """Post-build pages (postbuild.py) carry the theme, their own title, body and URL, and no shell is left."""
    config, catalog = real
    paper_html = _html(config, f"papers/{catalog.papers[0].slug}")
    theme_links = _stylesheets(paper_html)
    for url, title, heading in [
        (catalog.authors[0].url, catalog.authors[0].name, f"<h1>{catalog.authors[0].name}</h1>"),
        (catalog.keywords[0].url, f"Keyword: {catalog.keywords[0].name}", catalog.keywords[0].name),
    ]:
        html = _html(config, url.rstrip("/"))
        assert re.search(r"<title>(.*?)</title>", html).group(1).startswith(title.replace("'", "&#x27;"))
        assert heading.replace("'", "&#x27;") in _article(html)
        assert html.count("<h1") == 1
        assert 'class=ps-crumbs' in html  # breadcrumbs; the header search box comes with the shared chrome
        assert "<script src=../../assets/papersite/chrome.js></script>" in html
        assert _stylesheets(html) == theme_links  # same depth, same assets
    assert not (config.site_dir / "authors" / "_shell").exists()
    assert not (config.site_dir / "keywords" / "_shell").exists()
    for name in ("sitemap.xml", "search/search_index.json"):
        path = config.site_dir / name
        assert not path.exists() or "_shell" not in path.read_text(encoding="utf-8")
    assert len(list((config.site_dir / "authors").glob("*/index.html"))) == len(catalog.authors)
    assert len(list((config.site_dir / "keywords").glob("*/index.html"))) == len(catalog.keywords)


def test_nav_holds_sections_only(real):
    config, catalog = real
    html = _html(config, f"papers/{catalog.papers[0].slug}")
    # a paper page's tabs are the detail pages' shared chrome (site/chrome.py); the browser tests mark its own
    shared = (config.site_dir / "assets" / "papersite" / "chrome.js").read_text(encoding="utf-8")
    tabs = re.search(r'<nav class=\\"md-tabs ps-tabs\\".*?</nav>', shared, re.DOTALL)
    sections = len(yaml.safe_load((config.root / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    assert "assets/papersite/chrome.js" in html and "md-tabs" not in html
    assert tabs and tabs.group(0).count("<li") == sections, "a paper page's tabs are the sections"
    assert re.search(r'<li><a href=\\"\\u0001papers/\\">Papers</a>', tabs.group(0)), "the tabs link from the site's root"
    assert len(re.findall(r'class="?md-nav__link', html)) < 30
    home = _html(config, "")
    assert len(re.findall(r'class="?md-tabs__item\b(?!-)', home)) == sections, "other pages keep Material's tabs"


# --- whole site --------------------------------------------------------------


def _html_files(site: Path):
    return sorted(site.rglob("*.html"))


def test_no_broken_internal_links(real):
    config, _ = real
    assert not _broken_links(config)


def test_a_custom_papers_dir_keeps_paper_urls_and_every_link(tmp_path):
    """papers_dir is where the source pages sit; the paper URLs stay papers/<slug>/ and links agree."""
    root = write_project(tmp_path / "custom")
    (root / "site_src" / "papers").rename(root / "site_src" / "library")
    with open(root / "papersite.yml", "a", encoding="utf-8") as settings:
        settings.write("papers_dir: site_src/library\n")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    records, _ = read_records(config)
    assert records and all((config.site_dir / "papers" / r.slug / "index.html").is_file() for r in records)
    assert not (config.site_dir / "library").exists()
    assert not _broken_links(config)


def _broken_links(config) -> list[str]:  # noqa: ANN001
    site = config.site_dir
    # 404.html links from the root of the published site: site_url's path (/iclr2025/)
    root_path = urlsplit(config.site_url or "/").path
    broken = []
    for path in _html_files(site):
        for tag, _, value in _refs(path):
            parts = urlsplit(value)
            if parts.scheme or value.startswith(("#", "//", "mailto:")):
                continue
            base = site if parts.path.startswith("/") else path.parent
            target = (base / parts.path.removeprefix(root_path).lstrip("/")).resolve()
            if parts.path == "":
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)} -> {value}")
    return broken[:20]


def test_no_third_party_resources(real):
    config, _ = real
    site = config.site_dir
    outside = []
    for path in _html_files(site):
        for tag, attr, value in _refs(path):
            external = urlsplit(value).scheme in ("http", "https") or value.startswith("//")
            # the site's own published address (rel=canonical) is not a third party
            own = bool(config.site_url) and value.startswith(config.site_url)
            if external and not own and not (tag == "a" and attr == "href"):
                outside.append(f"{path.relative_to(site)}: <{tag} {attr}={value}>")
    for path in list(site.rglob("*.css")) + list(site.rglob("*.js")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"url\(\s*['\"]?(https?:)?//", text) or "fonts.googleapis" in text:
            outside.append(str(path.relative_to(site)))
    assert not outside, outside[:20]


def test_the_site_holds_no_theme_file_no_page_loads_and_one_stylesheet_a_page(real):
    """Material's search worker and its languages (the site has its own search) and the source maps
    are not in the site; a generated page links one stylesheet, Material's and ours in one file."""
    from generator.site.plugin import UNLOADED_THEME_FILES

    config, catalog = real
    site = config.site_dir
    assert not [p for pattern in UNLOADED_THEME_FILES for p in site.glob(pattern)]
    assert list(site.glob("assets/javascripts/bundle.*.min.js"))  # what the section pages load stays
    paper = (site / "papers" / catalog.papers[0].slug / "index.html").read_text(encoding="utf-8")
    sheets = re.findall(r"<link\b[^>]*\brel=\"?stylesheet\b[^>]*>", paper)
    assert len(sheets) == 1 and "assets/papersite/site." in sheets[0], sheets
    one = next(site.glob("assets/papersite/site.*.css")).read_bytes()
    material = next(site.glob("assets/stylesheets/main.*.min.css")).read_bytes()
    assert one.endswith((site / "assets/papersite/papersite.css").read_bytes()) and material.split(b"/*# sourceMappingURL")[0].rstrip() in one


def test_rebuild_is_byte_identical(real, tmp_path):
    config, _ = real
    first = tmp_path / "first"
    shutil.copytree(config.site_dir, first)
    shutil.rmtree(config.build_dir)
    assert papersite(["--project", str(config.root), "build", "--no-import", "--quiet"]) == 0
    comparison = filecmp.dircmp(first, config.site_dir)

    def differences(cmp) -> list[str]:
        found = cmp.left_only + cmp.right_only + cmp.diff_files
        for sub in cmp.subdirs.values():
            found += differences(sub)
        return found

    assert not differences(comparison)
    for a in sorted(first.rglob("*")):
        if a.is_file():
            assert a.read_bytes() == (config.site_dir / a.relative_to(first)).read_bytes(), a


# --- search ------------------------------------------------------------------


def _search(config):
    index = lunr_index_of(config.site_dir)
    store = search_json(config.site_dir / "assets/papersite/search-docs.json.gz")
    return index, store


def test_search_index_is_prebuilt_for_lunr_js(real):
    config, catalog = real
    folder = config.site_dir / "assets/papersite/search"
    starts = json.loads(gzip.decompress((folder / "index-shards.json.gz").read_bytes()))["starts"]
    shards = {p.name for p in folder.glob("index-*.json.gz")}
    assert shards == {"index-shards.json.gz", *(f"index-{n}.json.gz" for n in range(len(starts)))}
    assert (config.site_dir / "assets/papersite/lunr.js").read_text("utf-8").count("2.3.9") >= 1
    index, store = _search(config)
    assert len(store["papers"]) == len(catalog.papers)
    assert index.fields == ["t", "a", "k"]
    assert lunr_index_of(config.site_dir, "abstracts").fields == ["b"]


def test_exact_title_and_author_find_the_paper(real):
    config, catalog = real
    index, store = _search(config)
    titles = [p["title"] for p in store_papers(store)]
    for paper in catalog.papers[:: max(1, len(catalog.papers) // 15)]:
        if paper.title_derived:
            continue
        hits = index.search(re.sub(r"[:*^~+\-]", " ", paper.title))
        top = [titles[int(h["ref"])] for h in hits[:5]]
        assert " ".join(paper.title.split()) in top, (paper.title, top)
    with_authors = next(p for p in catalog.papers if p.authors)
    surname = with_authors.authors[0].split()[-1]
    hits = index.search(surname)
    assert " ".join(with_authors.title.split()) in [titles[int(h["ref"])] for h in hits]


def test_search_store_carries_decisions_and_the_abstracts_text(fixture_site):
    records, _ = read_records(fixture_site)
    catalog = build_catalog(records)
    store = search_json(fixture_site.site_dir / "assets/papersite/search-docs.json.gz")
    texts = search_json(fixture_site.site_dir / "assets/papersite/search-abstracts.json.gz")
    assert len(texts) == len(store["papers"]) == len(catalog.papers)
    assert store["decisions"] == sorted({p.decision for p in catalog.papers if p.decision})
    numbered = [catalog.papers[n] for n in search.papers_in_slug_order(catalog.papers)]
    for paper, entry, text in zip(numbered, store_papers(store), texts):
        assert entry["slug"] == paper.slug
        assert (store["decisions"][entry["decision"]] if entry["decision"] is not None else None) == paper.decision
        assert text == " ".join((paper.abstract or "").split())


# --- both entry points, hostile text --------------------------------------------


def test_plain_mkdocs_build_gives_the_same_site(fixture_site, tmp_path):
    root = fixture_site.root
    out = tmp_path / "mkdocs-site"
    shutil.rmtree(root / "build", ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(root / "mkdocs.yml"), "-d", str(out)],
        cwd=root, check=True,
    )
    ours = sorted(p.relative_to(fixture_site.site_dir).as_posix() for p in fixture_site.site_dir.rglob("*.html"))
    theirs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    assert ours == theirs
    page = "papers/calibrated-flows/index.html"
    assert (out / page).read_bytes() == (fixture_site.site_dir / page).read_bytes()


def test_hostile_listing_text_is_shown_not_run(fixture_site):
    html = _html(fixture_site, "papers/hostile-paper")
    assert "<script>window.__pwned" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=" in html
    assert links_run_script(html) == []  # quoted or not
    title = re.search(r"<title>(.*?)</title>", html, re.DOTALL).group(1)
    assert "<" not in title
    for page in ("authors", "keywords", "topics", "papers", ""):
        assert "<script>window.__pwned" not in _html(fixture_site, page)


def test_fix_this_paper_opens_the_form_holding_the_page_values(fixture_site):
    from urllib.parse import parse_qs

    from generator.corrections.form import form_url
    from generator.pages.record import read_page

    for slug in ("one-step-diffusion-via-shortcut-models", "hostile-paper"):
        record = read_page(fixture_site.papers_dir / f"{slug}.md")
        links = [(tag, value) for tag, attr, value in _refs(fixture_site.site_dir / "papers" / slug / "index.html")
                 if tag == "a" and "/issues/new?" in value]
        assert len(links) == 1, links
        # the page links to the bare form on the paper; papersite.js puts the pre-filled link of the fix shards in its place
        assert links[0][1] == form_url("https://github.com/example/papers", record)  # (the parser decodes, as a browser does)
        url = _fix_link(fixture_site, slug)
        parts = urlsplit(url)
        assert (parts.scheme, parts.netloc, parts.path) == ("https", "github.com", "/example/papers/issues/new")
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        assert query["template"] == "correct-paper.yml" and query["paper_id"] == record.id
        assert query["paper_title"] == " ".join(record.title.split())
        assert query["authors"].split("\n") == record.authors
        assert len(url) <= 4000
    article = _article(_html(fixture_site, "papers/hostile-paper"))
    assert ">Fix this paper</a>" in article and "Report a problem" not in article


def test_hostile_keyword_author_and_topic_are_shown_escaped_on_every_page_that_names_them(fixture_site):
    from slugify import slugify

    keyword, author, subarea = "<script>kw</script>", '<b onmouseover="alert(1)">Mallory</b>', "Computer Vision <i>"
    escaped = {keyword: "&lt;script&gt;kw&lt;/script&gt;", author: "&lt;b onmouseover=", subarea: "Computer Vision &lt;i&gt;"}
    pages = {
        keyword: ["papers/hostile-paper", "keywords", f"keywords/{slugify(keyword)}"],
        author: ["papers/hostile-paper", "authors", f"authors/{slugify(author)}"],
        subarea: ["papers/hostile-paper", "topics"],
    }
    for text, urls in pages.items():
        for url in urls:
            html = _html(fixture_site, url)
            assert escaped[text] in _article(html), f"{url}/ should show {text!r} as text"
            assert text not in html, f"{url}/ carries {text!r} as markup"
            title = re.search(r"<title>(.*?)</title>", html, re.DOTALL).group(1)
            assert "<" not in title, f"{url}/: {title!r}"
    # the keyword's own page is titled with the escaped keyword
    own = _html(fixture_site, f"keywords/{slugify(keyword)}")
    assert re.search(r"<h1[^>]*>.*?</span> &lt;script&gt;kw&lt;/script&gt;</h1>", own), _article(own)[:400]


# --- page weight: what every page repeats -------------------------------------


def _chrome_bytes(html: str) -> int:
    """Bytes of a page's body outside its article: the theme's chrome, the same on every page of a kind
    (the head is left out: a paper page's holds its own citation tags)."""
    body = html.split("<body", 1)[1]  # a minified page leaves out <head> and </head>
    return len(body.encode("utf-8")) - len(_article(html).encode("utf-8"))


def test_detail_pages_carry_a_light_chrome(real):
    """Author pages are most of the site (35k of 48k pages at 11,672 papers): what they repeat stays small.

    0.38 KB on every detail page since the header, tabs and search come from the shared chrome script
    (0.66 and 0.97 KB before the header did, 2.14 and 2.46 KB before any did, 5.8 KB before the detail
    pages' own header and tabs); the bound fails on any one of: the header back on the page (0.28 KB,
    0.59 KB with a paper page's repository link), the chrome not minified, Material's header or tabs
    (0.45 and 0.33 KB more), Material's credit line (0.25 KB),
    the navigation drawer (2.2 KB), the icons inline again (2.6 KB: the repository icon with its
    licence comment, twice), the empty palette form and its script (1.2 KB), the back-to-top arrow
    or the clipboard's words in the config (0.1 KB each)."""
    config, catalog = real
    made = [catalog.authors[0].url, catalog.keywords[0].url, catalog.areas[0].url]
    paper = f"papers/{catalog.papers[0].slug}/"
    del catalog  # a failing assertion would print it whole
    for url in [*made, paper]:
        html = _html(config, url.rstrip("/"))
        assert _chrome_bytes(html) < 450, url
        assert "Font Awesome" not in html and not [a for _, a in _tags(html) if a.get("data-md-component") == "palette"], url
        assert not [a for _, a in _tags(html) if a.get("data-md-type") == "navigation"], url  # no drawer: the tabs are the navigation
        assert '"clipboard.copy"' not in html, url  # papersite.js makes the citation blocks' Copy buttons
        # the header comes from chrome.js (site/chrome.py), which links to the repository where the
        # page's tag says its header did: on the pages that are files in it
        assert ("a", "md-source") not in _classes(html) and ("chrome.js data-end>" in html) == (url == paper), url
    assert ("a", "md-source") in _classes(_html(config, "papers"))  # and the section pages
    chrome = (config.site_dir / "assets" / "papersite" / "chrome.js").read_text(encoding="utf-8")
    assert "assets/papersite/icons.svg#" in chrome and chrome.count("class=md-source ") == 1
    sprite = (config.site_dir / "assets" / "papersite" / "icons.svg").read_text(encoding="utf-8")
    assert "Font Awesome Free" in sprite  # the icon's licence notice travels with it, once


def test_the_sprite_draws_the_themes_own_icons():
    """assets/papersite/icons.svg holds exactly the installed Material's drawings of the icons it stands in for."""
    import material

    icons = Path(material.__file__).parent / "templates" / ".icons"
    sprite = (REPO_ROOT / "generator" / "site" / "assets" / "icons.svg").read_text(encoding="utf-8")
    ours = REPO_ROOT / "generator" / "site" / "templates" / ".icons"
    stand_ins = sorted(ours.rglob("*.svg"))
    assert stand_ins
    for stand_in in stand_ins:
        name = stand_in.relative_to(ours)
        original = (icons / name).read_text(encoding="utf-8").strip()
        box, drawing = re.fullmatch(r'<svg xmlns="http://www.w3.org/2000/svg" viewBox="([^"]+)">(.*)</svg>', original, re.S).groups()
        ident = re.search(r"#([\w-]+)\"", stand_in.read_text(encoding="utf-8")).group(1)
        assert f'<symbol id="{ident}" viewBox="{box}">{drawing}</symbol>' in sprite, name
        assert f'viewBox="{box}"' in stand_in.read_text(encoding="utf-8"), name


def test_a_projects_theme_override_reaches_every_page_kind(tmp_path):
    """A block of the project's own main.html (custom_dir) and its extra CSS reach the pages rendered from
    the lighter detail template and from the section shells as well as the others."""
    root = write_project(tmp_path / "themed")
    (root / "overrides").mkdir()
    (root / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}\n{% block extrahead %}<meta name="project-theme" content="main.html">{% endblock %}\n',
        encoding="utf-8")
    (root / "site_src" / "project.css").write_text(".md-header { outline: 1px solid red; }\n", encoding="utf-8")
    mkdocs = yaml.safe_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    mkdocs["theme"]["custom_dir"] = "overrides"
    mkdocs["extra_css"] = [*mkdocs.get("extra_css", []), "project.css"]
    (root / "mkdocs.yml").write_text(yaml.safe_dump(mkdocs, sort_keys=False, allow_unicode=True), encoding="utf-8")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    catalog = build_catalog(read_records(config)[0])
    for url in ("", "papers/", f"papers/{catalog.papers[0].slug}/", catalog.authors[0].url, catalog.keywords[0].url,
                catalog.areas[0].url):
        html = _html(config, url.rstrip("/"))
        assert ("meta", {"name": "project-theme", "content": "main.html"}) in _tags(html), url
        assert [href for href in _stylesheets(html) if re.fullmatch(r"[./]*project\.css", href)], url


class _StatedCounts(HTMLParser):
    """What a built page says it counts, and what it lists: its lead's "N papers", the paper items of
    each list (by id), list controls' "N papers" (by the list they control), Explore links' "Open
    these N papers", count badges beside links, and the home page's cards."""

    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.lead: int | None = None
        self.items: dict[str, int] = {}      # paper list id -> its items
        self.shown: dict[str, int] = {}      # list id -> what its controls' output says
        self.explore: list[int] = []
        self.badges: list[tuple[str, int]] = []  # (href, count): badges that count a linked page's papers
        self.cards: dict[str, int] = {}      # href -> number, on the home page
        self.entries: set[str] = set()       # the pages an index lists (authors, keywords, sub-areas)
        self._text: list[str] | None = None
        self._href: str | None = None
        self._sibling_link: tuple[str | None, int] | None = None
        self._section: str | None = None  # the id of the last <h2>

    # sections whose counts are papers shared with the page's own subject, not the linked page's papers
    SHARED = {"coauthors", "related"}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "h2":
            self._section = attrs.get("id")
        if tag == "li":  # as HTML does: an item still open in this list ends where the next begins (no </li>)
            tags = [t for t, _ in self.stack]
            item, lists = max((i for i, t in enumerate(tags) if t == "li"), default=-1), max(
                (i for i, t in enumerate(tags) if t in ("ul", "ol")), default=-1)
            if item > lists:
                del self.stack[item:]
        parent = self.stack[-1] if self.stack else ("", {})
        if tag == "li" and parent[0] in ("ul", "ol") and "ps-papers" in (parent[1].get("class") or "").split():
            list_id = parent[1].get("id", "")
            self.items[list_id] = self.items.get(list_id, 0) + 1
        if tag in ("ul", "ol") and "ps-papers" in classes:
            self.items.setdefault(attrs.get("id", ""), 0)
        if tag == "a":
            self._href = attrs.get("href")
            self._sibling_link = (self._href, len(self.stack))  # a count badge counts a link beside it
            if self._in("ps-columns") and "#" not in (self._href or "#"):
                self.entries.add(self._href)
        if (tag == "p" and self.lead is None and any(t == "article" for t, _ in self.stack)
                and not classes) or tag == "output" or (tag == "span" and "ps-count" in classes
                and self._section not in self.SHARED) or (tag == "a" and self._in("ps-cards")):
            self._text = []
            beside = self._sibling_link if self._sibling_link and self._sibling_link[1] == len(self.stack) else None
            self._what = (tag, attrs, beside[0] if tag == "span" and beside else None)
        if tag not in self.VOID:
            self.stack.append((tag, attrs))

    def _in(self, cls: str) -> bool:
        return any(cls in (a.get("class") or "").split() for _, a in self.stack)

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)
        if self._href and "Open these" in data:
            self.explore.append(int(re.search(r"Open these ([\d,]+) papers", data).group(1).replace(",", "")))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass
        if self._sibling_link and len(self.stack) < self._sibling_link[1]:
            self._sibling_link = None  # the link's parent closed: a later count is not beside it
        if self._text is None or tag != self._what[0]:
            return
        text, (kind, attrs, href) = " ".join("".join(self._text).split()), self._what
        self._text = None
        number = re.match(r"([\d,]+)(?: papers?\b|$| )", text)
        if not number:
            return
        count = int(number.group(1).replace(",", ""))
        if kind == "p" and re.match(r"[\d,]+ papers?\b", text):
            self.lead = count
        elif kind == "output":
            self.shown[self._list_of(attrs)] = count
        elif kind == "span" and href:
            self.badges.append((href, count))
        elif kind == "a":
            self.cards[attrs.get("href", "")] = count

    def _list_of(self, attrs) -> str:
        for _, a in reversed(self.stack):
            if "data-ps-list" in a:
                return a["data-ps-list"]
        return ""


def stated_count_mismatches(site: Path) -> list[str]:
    """Every count a built site states that differs from the list it stands for."""
    pages: dict[str, _StatedCounts] = {}
    for path in sorted(site.rglob("index.html")):
        url = path.parent.relative_to(site).as_posix()
        url = "" if url == "." else url + "/"
        if url.startswith(("assets/", "search/")) or "/_shell/" in url:
            continue
        parser = _StatedCounts()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[url] = parser

    def papers_of(url: str) -> int | None:
        """How many papers the page at ``url`` lists as its own (an area: its sub-areas' and the rest)."""
        page = pages.get(url)
        if page is None or not (page.items or page.badges):
            return None
        own = sum(page.items.values())
        if url.startswith("topics/") and url.count("/") == 2:  # an area page: its sub-areas count too
            own += sum(c for href, c in page.badges if not href.startswith(("..", "#")))
        return own

    wrong = []
    for url, page in pages.items():
        for list_id, said in page.shown.items():
            if said != page.items.get(list_id):
                wrong.append(f"{url or '/'}: the list's controls say {said} papers, list {list_id!r} holds {page.items.get(list_id)}")
        listed = papers_of(url)
        if page.lead is not None and listed is not None and page.lead != listed:
            wrong.append(f"{url}: says {page.lead} papers, lists {listed}")
        for said in page.explore:
            if said != (page.lead if page.lead is not None else listed):
                wrong.append(f"{url}: an Explore link opens {said} papers, the page has {page.lead}")
        for href, said in page.cards.items():  # "635 papers", "2,818 authors": what the section lists
            target_page = pages.get(urlsplit(urljoin(f"http://site/{url}", href)).path.lstrip("/"))
            counted = (sum(target_page.items.values()) if target_page.items else len(target_page.entries)) if target_page else None
            if said != counted:
                wrong.append(f"{url or '/'}: the card {href} says {said}, its page lists {counted}")
        for href, said in page.badges:
            target = urlsplit(urljoin(f"http://site/{url}", href))
            if target.fragment:
                continue
            target_url = target.path.lstrip("/")
            target_page = pages.get(target_url)
            if target_page is None:
                continue
            counted = target_page.lead if target_page.lead is not None else papers_of(target_url)
            if counted is not None and said != counted:
                wrong.append(f"{url or '/'}: {href} is counted {said}, its page has {counted}")
    return wrong


def test_every_stated_count_matches_the_list_under_it(real, fixture_site):
    """A page that says "N papers" lists N (an area: in its sub-areas and its own list); a list's
    controls and its Explore link count that list; a count beside a link is the linked page's."""
    for config in (real[0], fixture_site):
        wrong = stated_count_mismatches(config.site_dir)
        assert not wrong, f"{config.site_dir}: {len(wrong)} counts differ from their lists:\n" + "\n".join(wrong[:20])
