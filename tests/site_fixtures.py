"""Small paper records and projects for the site tests (tests/site/test_site_*.py).

A handful of pages written with ``render_page`` that cover what the site must
show: a merged paper, a derived title, math, inferred topics, author spelling
variants, a paper with no topic, and hostile listing text.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import yaml

from generator.pages.record import PaperRecord, SourceRef, Topic, render_page

REPO_ROOT = Path(__file__).resolve().parent.parent

# Links the page model accepts that still need escaping in an attribute (& and template syntax).
HOSTILE_WEB_LINKS = {"openreview": "https://openreview.net/forum?id=x&noteId=y&{{config.site_name}}",
                     "code": "https://github.com/x/y?q=%22onclick%3D%22alert(1)"}
# Links only a hand-edited page can hold, which check refuses: renderers must still never link them.
HOSTILE_RAW_LINKS = {"openreview": "https://openreview.net/forum?id=x&<script>alert(1)</script>",
                     "code": "https://github.com/x/y\"onclick=\"alert(1)"}
HOSTILE_TITLE = '<script>window.__pwned=1</script> *bold* {{ config.site_name }} {% if x %} [link](javascript:alert(1))'
HOSTILE_ABSTRACT = (
    '<img src=x onerror="window.__pwned=2"> </title><script>alert(1)</script> &lt;b&gt; '
    "[click](javascript:alert(1)) {{ 7*7 }} `code` $\\text{<b>x</b>}$"
)


def fixture_records() -> list[PaperRecord]:
    src = lambda f, e, fmt="numbered": SourceRef(f, e, fmt)  # noqa: E731
    return [
        PaperRecord(
            id="a1", slug="one-step-diffusion-via-shortcut-models", title="One Step Diffusion via Shortcut Models",
            authors=["Kevin Frans", "Danijar Hafner", "Sergey Levine", "Pieter Abbeel"],
            topic=Topic("Deep Learning", "Generative Models and Autoencoders", "listing"),
            keywords=["diffusion models", "generative models"], decision="Accept (Poster)",
            links={"openreview": "https://openreview.net/forum?id=OlzB6LnXcS"},
            abstract="Diffusion models and flow-matching models have enabled generating diverse and realistic images.",
            sources=[src("000_a.txt", 3), src("001_b.txt", 17, "blocks")],
        ),
        PaperRecord(
            id="a2", slug="calibrated-flows", title="Calibrated Normalizing Flows for Failure Modeling",
            authors=["José García", "Ana Lee"], topic=Topic("Deep Learning", "Generative Models and Autoencoders", "inferred", 0.81),
            keywords=["normalizing flows", "Diffusion Models"],
            abstract="We bound the error by $O(n^2)$ and show $$\\sum_{i=1}^n x_i \\leq \\frac{a}{b}$$ holds. Bad math $\\frac{$ stays.",
            sources=[src("000_a.txt", 5)],
        ),
        PaperRecord(
            id="a3", slug="uncertainty-measures-derived", title="Uncertainty measures: a decomposition of pointwise risk",
            title_derived=True, authors=["jose  garcia", "Ming Zhou"], topic=Topic("Theory", None, "inferred", 0.4),
            keywords=["uncertainty"], abstract="There are various measures of predictive uncertainty in the literature.",
            sources=[src("002_c.txt", 12)],
        ),
        PaperRecord(
            id="a4", slug="graph-transformers", title="Graph Transformers at Scale",
            authors=["Ming Zhou", "Ming-Zhou"], topic=Topic("Deep Learning", "Graph Neural Networks", "listing"),
            keywords=["graph neural networks", "transformers"], links={"pdf": "https://example.org/paper.pdf"},
            abstract="Graph neural networks meet transformers; we scale attention to millions of nodes.",
            sources=[src("003_d.txt", 1, "topic-lines")],
        ),
        PaperRecord(
            id="a5", slug="hostile-paper", title=HOSTILE_TITLE,
            authors=['<b onmouseover="alert(1)">Mallory</b>', "Eve {{ x }}"],
            topic=Topic("Applications", "Computer Vision <i>", "listing"),
            keywords=["<script>kw</script>", "diffusion models"],
            links=HOSTILE_WEB_LINKS,
            abstract=HOSTILE_ABSTRACT, sources=[src("003_d.txt", 2)],
        ),
        PaperRecord(
            id="a6", slug="no-topic-paper", title="A Paper Without a Topic", authors=[],
            keywords=[], abstract=None, sources=[src("001_b.txt", 40, "blocks")],
        ),
    ]


def write_project(root: Path, records: list[PaperRecord] | None = None, site_name: str = "Test Papers 2025") -> Path:
    """A project dir with paper pages, papersite.yml and an mkdocs.yml like the repo's."""
    papers = root / "site_src" / "papers"
    papers.mkdir(parents=True, exist_ok=True)
    for record in records if records is not None else fixture_records():
        (papers / f"{record.slug}.md").write_text(render_page(record), encoding="utf-8")
    (root / "papersite.yml").write_text(
        yaml.safe_dump({"site_name": site_name, "repo_url": "https://github.com/example/papers"}), encoding="utf-8"
    )
    mkdocs = yaml.safe_load((REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    mkdocs["site_name"] = site_name
    mkdocs["repo_url"] = "https://github.com/example/papers"
    mkdocs["repo_name"] = "example/papers"
    mkdocs["theme"]["custom_dir"] = str(REPO_ROOT / "generator" / "site" / "templates")
    (root / "mkdocs.yml").write_text(yaml.safe_dump(mkdocs, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return root


def keep_out_of_nav(root: Path, *pages: str) -> None:
    """``pages`` (docs-dir paths, "/note.md") added to the project's ``not_in_nav``: a hand-written page no entry of
    the nav leads to is an error (``check.nav_problems``) unless named there."""
    path = root / "mkdocs.yml"
    mkdocs = yaml.safe_load(path.read_text(encoding="utf-8"))
    mkdocs["not_in_nav"] = (mkdocs.get("not_in_nav") or "") + "".join(f"{page}\n" for page in pages)
    path.write_text(yaml.safe_dump(mkdocs, sort_keys=False, allow_unicode=True), encoding="utf-8")


def search_json(path: Path):
    """A search file as the browser reads it: stored gzipped (generator/site/search.py), then JSON."""
    import gzip
    import json

    return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))


def store_papers(store: dict) -> list[dict]:
    """The store's paper rows by column name, as papersite-core.js reads them (a row ends at its last value)."""
    columns = store["schema"]["columns"]
    return [dict(zip(columns, row + [None] * (len(columns) - len(row)))) for row in store["papers"]]


def shard_postings(shard: dict) -> list[tuple[str, int, list[list[tuple[int, int, int]]]]]:
    """An index shard's terms, each with its place and, per field, its (paper, term frequency, field
    length) postings, decoded from search_index.py's gaps (``[gap, length]`` or ``[gap, -tf, length]``)."""
    decoded = []
    for term, place, *per_field in shard["terms"]:
        postings = []
        for flat in per_field:
            docs, paper, i = [], -1, 0
            while i < len(flat):
                paper += flat[i]
                tf, length = (-flat[i + 1], flat[i + 2]) if flat[i + 1] < 0 else (1, flat[i + 1])
                docs.append((paper, tf, length))
                i += 3 if tf > 1 else 2
            postings.append(docs)
        decoded.append((term, place, postings))
    return decoded


def shard_weights(manifest: dict, shard: dict) -> list[tuple[str, int, list[list[tuple[int, float]]]]]:
    """An index shard (generator/site/search_index.py) -> each term with its number and, per field, its
    papers and their weights, as search-worker.js shardPart computes them (lunr's BM25, rounded as
    lunr.py does; the number in lunr.py's order of first use)."""
    import math

    k1, b, papers = manifest["k1"], manifest["b"], manifest["papers"]
    found = []
    for term, place, postings in shard_postings(shard):
        frequency = sum(len(docs) for docs in postings)
        idf = math.log(1 + abs((papers - frequency + 0.5) / (frequency + 0.5)))
        weighted = []
        for slot, docs in enumerate(postings):
            average, boost = manifest["averages"][slot], manifest["boosts"][slot]
            weighted.append([(paper, round(idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / average)) + tf) * boost, 3))
                             for paper, tf, length in docs])
        first = min(docs[0][0] for docs in postings if docs)
        slot = next(slot for slot, docs in enumerate(postings) if docs and docs[0][0] == first)
        found.append((term, (first * 8 + slot) * 1048576 + place, weighted))
    return found


def lunr_index_of(site_dir: Path, name: str = "index"):
    """A built site's search index shards (``assets/papersite/search/<name>-*.json.gz``) as one lunr.py index:
    the serialised lunr.js 2.3.9 index they stand for, loaded by lunr.py, to search it in a test."""
    from collections import defaultdict

    from lunr.index import Index

    folder = site_dir / "assets" / "papersite" / "search"
    manifest = search_json(folder / f"{name}-shards.json.gz")
    fields = manifest["fields"]
    inverted, vectors = [], defaultdict(list)
    for shard_number in range(len(manifest["starts"])):
        for term, number, weighted in shard_weights(manifest, search_json(folder / f"{name}-{shard_number}.json.gz")):
            posting = {"_index": number}
            for field, docs in zip(fields, weighted):
                posting[field] = {}
                for paper, weight in docs:
                    posting[field][str(paper)] = {}
                    vectors[f"{field}/{paper}"].append((number, weight))
            inverted.append([term, posting])
    inverted.sort(key=lambda entry: entry[0])
    field_vectors = [[ref, [x for pair in sorted(pairs) for x in pair]] for ref, pairs in vectors.items()]
    return Index.load({"version": "2.3.9", "fields": fields, "fieldVectors": field_vectors,
                       "invertedIndex": inverted, "pipeline": ["stemmer"]})


# A small mkdocs.yml with what both engines must handle (a custom_dir, nav, not_in_nav, extensions).
TINY_MKDOCS_YML = """\
site_name: Tiny papers
site_url: https://example.org/tiny/
docs_dir: staged
theme:
  name: material
  custom_dir: overrides
nav:
  - Home: index.md
  - Papers: papers/index.md
not_in_nav: |
  /papers/*/index.md
extra_css: [assets/site.css]
extra_javascript: [assets/site.js]
markdown_extensions:
  - attr_list
  - md_in_html
  - toc:
      permalink: true
plugins:
  - search
"""


def shard_key(schema: dict, slug: str) -> str:
    """The citation and fix shard a slug is in, as papersite-saved.js finds it (papersite-core.js shardOf)."""
    from generator.site.search_index import shard_of

    return schema["shards"][shard_of(slug, schema["shards"])]


def citation_row(site: Path, slug: str) -> dict:
    """A paper's row of a built site's citation shards, read as papersite.js reads it (exports.json):
    the RIS and plain text a paper page shows come from here, not from its HTML."""
    schema = json.loads((site / "assets" / "papersite" / "exports.json").read_text(encoding="utf-8"))
    key = shard_key(schema, slug)
    rows = json.loads(gzip.decompress((site / schema["shard_path"].format(shard=key)).read_bytes()))
    return next(dict(zip(schema["columns"], row)) for row in rows if row[schema["columns"].index("slug")] == slug)


def staged_rows(root: Path, section: str) -> bytes:
    """A section's page rows as the post-build step reads them (``memo.kept_rows``: in page order, each line where
    the memo says it lies; the file itself may also hold lines an edit replaced), joined."""
    from generator.config import load_config
    from generator.site.memo import kept_line, kept_rows, mapped

    config = load_config(root)
    data = root / "build" / "postbuild" / f"{section}.json"
    kept = kept_rows(config, section, data)
    assert kept is not None, f"the rows memo does not describe {data}"
    with mapped(data) as lines:
        found = [kept_line(lines, where) for _, where in kept]
    assert None not in found
    return b"".join(found)


def sitemap_locs(site: Path) -> list[str]:
    """The pages a built site's sitemap lists, in order, as a crawler reads them: sitemap.xml, and where
    it is a sitemap index, each part it names (a file beside it, gzipped: postbuild.sitemap_files)."""
    import gzip
    import re

    text = (site / "sitemap.xml").read_text(encoding="utf-8")
    if "<sitemapindex" not in text:
        return re.findall(r"<url><loc>([^<]+)</loc>", text)
    locs = []
    for part in re.findall(r"<sitemap><loc>([^<]+)</loc></sitemap>", text):
        name = part.rsplit("/", 1)[1]
        locs += re.findall(r"<url><loc>([^<]+)</loc>", gzip.decompress((site / name).read_bytes()).decode("utf-8"))
    return locs


def html_attributes(html: str) -> list[tuple[str, str, str]]:
    """(tag, attribute, value) of every element, as an HTML parser reads them: quoted or not
    (the renderers leave out quotes HTML does not need), entities decoded."""
    from html.parser import HTMLParser

    found: list[tuple[str, str, str]] = []

    class Attributes(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend((tag, name, value or "") for name, value in attrs)

    parser = Attributes(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    return found


def links_run_script(html: str) -> list[str]:
    """Every attribute of ``html`` a browser would run: an event handler, or a javascript: URL."""
    return [f"<{tag} {name}={value!r}>" for tag, name, value in html_attributes(html)
            if name.startswith("on") or (name in ("href", "src", "action", "formaction")
                                          and value.strip().lower().startswith("javascript:"))]


def hold_search_worker_until_the_build_writes_the_data(tmp_path: Path, monkeypatch) -> int:  # noqa: ANN001
    """The build's main process writes the map's and related papers' data (``stage.Pending``): the search worker is
    held, before its own files, until the main process has done the jobs it shares with it. Returns its pid."""
    import os
    import time

    from generator import workers
    from generator.site import stage

    flag, main = tmp_path / "the build wrote them", os.getpid()
    real_browser_data, real_do = stage.browser_data, workers.SharedJobs.do_untaken

    def held(*args):  # noqa: ANN002, ANN202 - in the search worker
        while not flag.exists():
            time.sleep(0.02)
        return real_browser_data(*args)

    def do_untaken(jobs) -> None:  # noqa: ANN001
        real_do(jobs)
        if os.getpid() == main:
            flag.touch()

    monkeypatch.setattr(stage, "browser_data", held)
    monkeypatch.setattr(workers.SharedJobs, "do_untaken", do_untaken)
    return main
