"""generator/site/engines.py: the same staged project builds with MkDocs and with Zensical."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.site import engines
from generator.site.engines import EngineError, build_with_engine, page_urls

needs_zensical = pytest.mark.skipif(
    importlib.util.find_spec("zensical") is None,
    reason="zensical is not installed (pip install -e '.[zensical]'); only the MkDocs half can run",
)

from site_fixtures import TINY_MKDOCS_YML as MKDOCS_YML  # noqa: E402

# Shaped like a generated paper page: plain-text title in front matter, listing
# text only in escaped raw HTML, MathML, a citation block, and raw links that
# are relative to the page's directory URL (hence papers/<slug>/index.md).
PAPER_MD = """\
---
title: Shortcut ‹Models› for One-Step Diffusion
description: One network, one step.
authors: [Ann O'Neil, Bo Zhang]
keywords: [diffusion models, distillation]
---

<h1>Shortcut &lt;Models&gt; for One-Step Diffusion</h1>
<p class="ps-authors"><a href="../../authors/ann-o-neil/">Ann O&#x27;Neil</a>, Bo Zhang</p>
<p class="ps-topic"><a href="../../topics/deep-learning/">Deep Learning</a></p>

## Abstract

<div class="ps-abstract"><p>We bound <math><msub><mi>x</mi><mn>0</mn></msub><mo>&lt;</mo><mn>1</mn></math> in one step &amp; keep *stars* literal.</p></div>

<pre class="ps-citation">@inproceedings{shortcut2025,
  title = {Shortcut &lt;Models&gt; for One-Step Diffusion}
}</pre>
"""

MAIN_HTML = """\
{% extends "base.html" %}
{% block extrahead %}
  {{ super() }}
  {% if page and page.meta and page.meta.authors %}
  <meta name="citation_title" content="{{ page.meta.title | e }}">
  {% for author in page.meta.authors %}<meta name="citation_author" content="{{ author | e }}">
  {% endfor %}
  {% endif %}
{% endblock %}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    staged = root / "staged"
    for folder in ("papers/shortcut-models", "authors/ann-o-neil", "topics/deep-learning", "assets"):
        (staged / folder).mkdir(parents=True)
    (root / "overrides").mkdir()
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "overrides" / "main.html").write_text(MAIN_HTML)
    (staged / "index.md").write_text("# Tiny papers\n\nSee [all papers](papers/index.md).\n")
    (staged / "papers" / "index.md").write_text("# Papers\n\n- [Shortcut](shortcut-models/index.md)\n")
    (staged / "papers" / "shortcut-models" / "index.md").write_text(PAPER_MD)
    (staged / "authors" / "ann-o-neil" / "index.md").write_text("# Ann O'Neil\n")
    (staged / "topics" / "deep-learning" / "index.md").write_text("# Deep Learning\n")
    (staged / "assets" / "site.css").write_text(".ps-authors { font-weight: bold }\n")
    (staged / "assets" / "site.js").write_text("window.papersite = {};\n")
    return root


class _PageText(HTMLParser):
    """What a reader sees of a page: <title>, the article's text, the citation meta tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.article: list[str] = []
        self.meta: list[tuple[str, str]] = []
        self._in_title = False
        self._article_depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title":
            self._in_title = True
        elif tag == "article":
            self._article_depth += 1
        elif tag == "meta" and (attrs.get("name") or "").startswith("citation_"):
            self.meta.append((attrs["name"], attrs.get("content") or ""))

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "article":
            self._article_depth -= 1

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        elif self._article_depth:
            self.article.append(data)

    @property
    def article_text(self) -> str:
        return " ".join(" ".join(self.article).split())


def read_page(site: Path, url: str) -> _PageText:
    parser = _PageText()
    parser.feed((site / url / "index.html").read_text(encoding="utf-8"))
    return parser


def raw_hrefs(site: Path, url: str) -> list[str]:
    text = (site / url / "index.html").read_text(encoding="utf-8")
    return re.findall(r'class="ps-(?:authors|topic)"><a href="([^"]+)"', text)


def search_locations(site: Path) -> set[str]:
    """Pages in the engine's search index (each engine has its own format)."""
    material = site / "search" / "search_index.json"
    if material.exists():
        docs = json.loads(material.read_text())["docs"]
    else:
        docs = json.loads((site / "search.json").read_text())["items"]
    return {doc["location"].split("#")[0] for doc in docs}


# -- errors a user can act on ---------------------------------------------------


def test_unknown_engine_is_named(project: Path):
    with pytest.raises(EngineError, match="unknown site engine 'hugo'"):
        build_with_engine("hugo", project / "mkdocs.yml")


def test_missing_zensical_says_what_to_install(project: Path, monkeypatch):
    monkeypatch.setattr(engines, "engine_available", lambda engine: engine != "zensical")
    with pytest.raises(EngineError) as error:
        build_with_engine("zensical", project / "mkdocs.yml")
    assert "zensical" in str(error.value)
    assert "pip install -e '.[zensical]'" in str(error.value)


# -- building --------------------------------------------------------------------


def test_mkdocs_builds_every_staged_page(project: Path, tmp_path: Path):
    result = build_with_engine("mkdocs", project / "mkdocs.yml", site_dir=tmp_path / "mk", quiet=True)
    assert result.ok and result.seconds > 0
    assert page_urls(result.site_dir) == {
        "", "papers/", "papers/shortcut-models/", "authors/ann-o-neil/", "topics/deep-learning/",
    }


def test_a_link_committed_where_the_derived_config_goes_is_replaced_not_written_through(project: Path, tmp_path: Path):
    """MkDocs builds a staged docs dir through a two-line config beside mkdocs.yml: a symlink a pull request put
    in its place, pointing out of the project, is replaced; the file it points to keeps its bytes."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (project / ".mkdocs.mkdocs.yml").symlink_to(victim)
    result = build_with_engine("mkdocs", project / "mkdocs.yml", docs_dir=project / "staged", site_dir=tmp_path / "mk", quiet=True)
    assert result.ok and (result.site_dir / "papers" / "shortcut-models" / "index.html").is_file()
    assert victim.read_text(encoding="utf-8") == "precious\n"


@needs_zensical
def test_both_engines_build_the_same_site(project: Path, tmp_path: Path):
    mk = build_with_engine("mkdocs", project / "mkdocs.yml", site_dir=tmp_path / "mk", quiet=True)
    zs = build_with_engine("zensical", project / "mkdocs.yml", site_dir=tmp_path / "zs", quiet=True)

    assert page_urls(zs.site_dir) == page_urls(mk.site_dir)
    paper = "papers/shortcut-models/"
    mk_page, zs_page = read_page(mk.site_dir, paper), read_page(zs.site_dir, paper)
    assert zs_page.title == mk_page.title == "Shortcut ‹Models› for One-Step Diffusion - Tiny papers"
    assert zs_page.meta == mk_page.meta == [
        ("citation_title", "Shortcut ‹Models› for One-Step Diffusion"),
        ("citation_author", "Ann O'Neil"),
        ("citation_author", "Bo Zhang"),
    ]
    assert zs_page.article_text == mk_page.article_text
    assert "Shortcut <Models> for One-Step Diffusion" in zs_page.article_text
    assert "keep *stars* literal" in zs_page.article_text
    # Raw-HTML links relative to the page's URL must reach the same pages in both.
    assert raw_hrefs(zs.site_dir, paper) == raw_hrefs(mk.site_dir, paper) == [
        "../../authors/ann-o-neil/", "../../topics/deep-learning/",
    ]
    for engine_site in (mk.site_dir, zs.site_dir):
        assert (engine_site / "assets" / "site.css").is_file()
        assert "assets/site.js" in (engine_site / paper / "index.html").read_text()
    assert search_locations(zs.site_dir) == search_locations(mk.site_dir)
    assert paper in search_locations(zs.site_dir)


@needs_zensical
def test_zensical_build_leaves_no_derived_config_and_honours_site_dir(project: Path, tmp_path: Path):
    result = build_with_engine("zensical", project / "mkdocs.yml", site_dir=tmp_path / "elsewhere", quiet=True)
    assert result.site_dir == (tmp_path / "elsewhere").resolve()
    assert (result.site_dir / "index.html").is_file()
    assert not list(project.glob(".*.zensical.yml"))
    assert not (project / ".zensical-site").exists()


@needs_zensical
def test_a_dirty_zensical_build_moves_its_pages_over_the_site_and_keeps_the_rest(project: Path, tmp_path: Path):
    """Zensical empties the folder it builds into: kept (``dirty``), the site gets its pages moved over their last
    versions, and the files it did not write (the post-build step's) stay; a link on the way is never written through."""
    from generator.problems import PapersiteError

    site = tmp_path / "site"
    build_with_engine("zensical", project / "mkdocs.yml", site_dir=site, quiet=True)
    ours = site / "keywords" / "distillation" / "index.html"
    ours.parent.mkdir(parents=True)
    ours.write_text("the post-build step's page\n", encoding="utf-8")
    paper = site / "papers" / "shortcut-models" / "index.html"
    paper.write_text("an old rendering\n", encoding="utf-8")
    build_with_engine("zensical", project / "mkdocs.yml", site_dir=site, quiet=True, dirty=True)
    assert ours.read_text(encoding="utf-8") == "the post-build step's page\n"
    assert "Shortcut" in paper.read_text(encoding="utf-8")
    assert page_urls(site) >= page_urls(build_with_engine("zensical", project / "mkdocs.yml", site_dir=tmp_path / "whole",
                                                             quiet=True).site_dir)
    assert not (project / ".zensical-site").exists()

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".zensical-site").symlink_to(elsewhere, target_is_directory=True)  # where it builds aside: not followed
    build_with_engine("zensical", project / "mkdocs.yml", site_dir=site, quiet=True, dirty=True)
    assert not any(elsewhere.iterdir()) and not (project / ".zensical-site").exists()
    shutil.rmtree(site / "papers")
    (site / "papers").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(PapersiteError, match="symbolic link"):
        build_with_engine("zensical", project / "mkdocs.yml", site_dir=site, quiet=True, dirty=True)
    assert not any(elsewhere.iterdir())


@needs_zensical
def test_zensical_strict_build_fails_on_a_broken_link_naming_the_page(project: Path):
    paper = project / "staged" / "papers" / "shortcut-models" / "index.md"
    paper.write_text(paper.read_text() + "\nSee [nothing](../missing.md).\n")
    with pytest.raises(EngineError) as error:
        build_with_engine("zensical", project / "mkdocs.yml", quiet=True)
    message = str(error.value)
    assert message.startswith("zensical build of")
    assert "papers/shortcut-models/index.md" in message
    assert "Traceback" not in message
