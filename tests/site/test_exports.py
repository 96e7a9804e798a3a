"""generator/site/exports.py: the citations the browser downloads, and the Saved page."""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest
from hypothesis import given, settings, strategies as st
import shutil
import re
from urllib.parse import quote

from generator import layout
from generator.catalog import build_catalog
from generator.pages.record import PaperRecord, SourceRef, Topic
from generator.site import exports
from generator.site.render import cite

SITE = cite.Venue.from_site_name("ICLR 2025 Papers")


def paper(**changes) -> PaperRecord:
    base = PaperRecord(
        id="a1b2c3d4e5f6", slug="one-step", title='One "Step", Diffusion\nModels', authors=["Kevin Frans", "Zoë Ångström"],
        keywords=["diffusion, fast", "distillation"], topic=Topic("Deep Learning", "Generative Models", "listing"),
        decision="Accept (Oral)", links={"openreview": "https://openreview.net/forum?id=x"},
        sources=[SourceRef("l.txt", 1, "numbered")],
    )
    return base.replace(**changes)


def _rows(files: dict[str, bytes], path: str = "shard_path", columns: str = "columns") -> dict[str, dict]:
    """slug -> {column: value} of a shard family, read as papersite-saved.js reads it (exports.json)."""
    schema = json.loads(files[exports.EXPORTS_FILE])
    found = {}
    for key in schema["shards"]:
        for row in json.loads(gzip.decompress(files[schema[path].format(shard=key)])):
            found[row[schema[columns].index("slug")]] = dict(zip(schema[columns], row))
    return found


def _fixes(files: dict[str, bytes]) -> dict[str, dict]:
    return _rows(files, "fix_path", "fix_columns")


def test_each_paper_has_its_citations_and_its_prefilled_fix_link(tmp_path) -> None:
    """The paper page's RIS and plain text, and its "Fix this paper" link as papersite.js completes it:
    the link as the page wrote it before (form.prefill_url without the abstract) and the abstract."""
    from generator.config import load_config
    from generator.corrections.form import prefill_url
    from generator.site.render.paper_pages import read_taxonomy
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path))
    papers = [paper(), paper(id="f" * 12, slug="9-lives", title="Nine $x^2$ lives", abstract="Line one, $x$.\n  Line   two."),
              paper(id="e" * 12, slug="derived", title="Derived", title_derived=True, abstract="Only this.")]
    files = exports.citation_files(build_catalog(papers), SITE, "X", config)
    rows, fixes = _rows(files), _fixes(files)
    schema = json.loads(files[exports.EXPORTS_FILE])
    assert schema["fix_path"] == "assets/papersite/fixes/{shard}.json.gz"
    for p in papers:
        assert rows[p.slug]["ris"] == cite.ris(p, SITE) and rows[p.slug]["text"] == cite.citation_line(p, SITE)
        assert fixes[p.slug]["url"] == prefill_url(config.repo_url, p, read_taxonomy(config), with_abstract=False)
    assert fixes["9-lives"]["abstract"] == "Line one, $x$. Line two."  # on one line, as the form takes it, formulas as written
    assert fixes["derived"]["abstract"] == ""  # as before: a page with a derived title had no Scholar tags to take it from
    # an abstract the link cannot hold whole is left out (the form leaves the page's as it is)
    long = paper(id="d" * 12, slug="long", title="Long", abstract="word " * 900)
    assert _fixes(exports.citation_files(build_catalog([long]), SITE, "X", config))["long"]["abstract"] == ""
    fitting = paper(id="c" * 12, slug="fitting", title="Fitting", abstract="Ünïcode & 'quotes' (*)! $x$ " * 20)
    row = exports.fix_row(fitting, config.repo_url, read_taxonomy(config))
    assert row[2] and len(row[1] + "&abstract=" + quote(row[2], safe="-_.!~*'()")) <= 4000
    # an abstract the page shows as it is: papersite.js reads it there (exports.ABSTRACT_ON_PAGE)
    shown = paper(id="b" * 12, slug="shown", title="Shown", abstract="Ünïcode & <tags> 'quotes'.\n\n  Second\tparagraph.")
    assert exports.fix_row(shown, config.repo_url, read_taxonomy(config))[2] is exports.ABSTRACT_ON_PAGE
    assert exports.fix_row(paper(id="a" * 12, slug="long-shown", title="L", abstract="word " * 900), config.repo_url, None)[2] == ""
    # no repository, no form to link to: the shards are there, empty
    bare = exports.citation_files(build_catalog(papers), SITE, "X")
    assert _fixes(bare) == {} and _rows(bare) == rows


def test_each_paper_has_the_citations_of_its_page_in_the_shard_its_slug_names() -> None:
    papers = [paper(), paper(id="f" * 12, slug="zeta-paper", title="Zeta", decision=None, venue="ICML 2025")]
    files = exports.citation_files(build_catalog(papers), SITE, "ICLR 2025 Papers")
    schema = json.loads(files[exports.EXPORTS_FILE])
    assert schema["shards"] == exports.shard_starts([p.slug for p in papers]) and schema["urls"] == {
        "paper": layout.paper_url("{slug}"), "author": layout.author_url("{slug}"), "saved": layout.SAVED.url()}
    rows = _rows(files)
    for p in papers:
        venue = cite.venue_of(p, SITE)
        assert rows[p.slug]["bibtex"] == cite.bibtex(p, venue) and rows[p.slug]["ris"] == cite.ris(p, venue)
    assert rows["zeta-paper"]["bibtex"].startswith("@misc") and "ICML 2025" in rows["zeta-paper"]["csv"]
    assert schema["file_stem"] == "iclr-2025-papers"


def test_a_csv_row_is_quoted_and_reads_back_as_the_paper() -> None:
    p = paper(author_order="alphabetical")
    text = exports.csv_header() + exports.csv_record(p, SITE)
    assert text.endswith("\r\n")
    (row,) = list(csv.DictReader(io.StringIO(text, newline="")))
    assert row["title"] == 'One "Step", Diffusion Models' and row["authors"] == "Kevin Frans; Zoë Ångström"
    assert row["keywords"] == "diffusion, fast; distillation" and row["decision"] == "Accept (Oral)"
    assert "not known" in row["author_order"], "a CSV never passes alphabetical authors off as the paper's order"
    assert row["citation"] == cite.citation_line(p, SITE) and row["bibtex_key"] == cite.bibtex_key(p, SITE)
    assert exports.csv_record(paper(title_derived=True), SITE).startswith(",")  # a derived title is not the paper's


def test_the_files_do_not_depend_on_the_order_papers_come_in() -> None:
    papers = [paper(id=f"{i:012d}", slug=f"{c}-paper-{i}", title=f"{c} paper {i}") for i, c in enumerate("bazab1")]
    one = exports.citation_files(build_catalog(papers), SITE, "X")
    other = exports.citation_files(build_catalog(list(reversed(papers))), SITE, "X")
    assert one == other


def test_the_saved_page_says_what_it_needs_without_javascript() -> None:
    text = exports.saved_page()
    noscript = re.search(r"<noscript>(.*?)</noscript>", text, flags=re.S).group(1)
    assert "needs JavaScript" in noscript and 'href="../papers/"' in noscript
    assert re.search(r'<div class="ps-saved" data-ps-saved hidden>', text), "its controls stay hidden until the script runs"


def test_rows_kept_from_the_last_build_are_those_a_full_build_makes(tmp_path) -> None:
    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "project"))
    made = iter(range(100))

    def full(papers: list) -> dict:  # a build of another project, with nothing kept yet
        return exports.citation_files(build_catalog(papers), SITE, "X", load_config(write_project(tmp_path / f"fresh{next(made)}")))

    papers = [paper(), paper(id="f" * 12, slug="zeta-paper", title="Zeta")]
    first = exports.citation_files(build_catalog(papers), SITE, "X", config)
    assert first == full(papers)
    edited = [papers[0], papers[1].replace(title="Zeta, edited")]
    again = exports.citation_files(build_catalog(edited), SITE, "X", config)
    assert again == full(edited)
    assert "Zeta, edited" in _rows(again)["zeta-paper"]["bibtex"]
    assert "Zeta%2C%20edited" in _fixes(again)["zeta-paper"]["url"]


def test_shards_kept_edit_after_edit_are_those_a_full_build_makes(tmp_path, monkeypatch) -> None:
    """A shard's bytes are kept by its rows' keys: papers retitled, added and removed, moving the
    shards' bounds, give the files a build with nothing kept gives."""
    import random

    from generator.config import load_config
    from site_fixtures import write_project

    monkeypatch.setattr(exports, "SHARD_PAPERS", 3)  # a few papers a shard: bounds that move
    config = load_config(write_project(tmp_path / "project"))
    rng = random.Random(7)
    papers = {f"p{n:02d}": paper(id=f"{n:012d}", slug=f"p{n:02d}", title=f"Paper {n}") for n in range(24)}
    for step in range(30):
        slug = rng.choice(sorted(papers))
        kind = rng.choice(["title", "title", "authors", "add", "remove"])
        if kind == "title":
            papers[slug] = papers[slug].replace(title=f"Paper {slug}, edit {step}")
        elif kind == "authors":
            papers[slug] = papers[slug].replace(authors=rng.sample(["Ada Lovelace", "Alan Turing", "Grace Hopper"], 2))
        elif kind == "add":
            papers[f"q{step:02d}"] = paper(id=f"{step + 100:012d}", slug=f"q{step:02d}", title=f"New {step}")
        elif len(papers) > 2:
            del papers[slug]
        kept = exports.citation_files(build_catalog(list(papers.values())), SITE, "X", config)
        fresh = exports.citation_files(build_catalog(list(papers.values())), SITE, "X",
                                       load_config(write_project(tmp_path / f"fresh{step}")))
        assert kept == fresh, (step, kind, slug)


def test_an_edit_makes_again_the_rows_of_its_papers_shard_and_of_no_other(tmp_path, monkeypatch) -> None:
    """A shard is kept by its papers' fingerprints: a retitled paper's shard has its rows made again, the
    others are taken as the last build compressed them, without a row made."""
    from generator.config import load_config
    from site_fixtures import write_project

    monkeypatch.setattr(exports, "SHARD_PAPERS", 3)
    config = load_config(write_project(tmp_path / "project"))
    papers = {f"p{n:02d}": paper(id=f"{n:012d}", slug=f"p{n:02d}", title=f"Paper {n}") for n in range(24)}
    exports.citation_files(build_catalog(list(papers.values())), SITE, "X", config)
    made: list[str] = []
    real = exports.citation_row
    monkeypatch.setattr(exports, "citation_row", lambda p, venue: made.append(p.slug) or real(p, venue))
    cut: list[int] = []
    real_cut = exports._papers_by_shard
    monkeypatch.setattr(exports, "_papers_by_shard", lambda shown: cut.append(len(shown)) or real_cut(shown))
    papers["p05"] = papers["p05"].replace(title="Paper 5, edited")
    exports.citation_files(build_catalog(list(papers.values())), SITE, "X", config)
    starts = exports.shard_starts(list(papers))
    shard = exports.shard_of("p05", starts)
    assert made == [slug for slug in sorted(papers) if exports.shard_of(slug, starts) == shard]
    assert "p05" in made and len(made) < len(papers) // 2
    assert cut == [], "the same slugs: the shards' layout kept, not cut again"
    papers["p99"] = paper(id="9" * 12, slug="p99", title="Paper 99")
    exports.citation_files(build_catalog(list(papers.values())), SITE, "X", config)
    assert cut == [len(papers)], "a paper added: cut again"


def test_shards_hold_consecutive_slugs_of_a_bounded_number_and_each_slug_is_found_by_its_start() -> None:
    import random

    rng = random.Random(31)
    words = ["learning", "con", "co", "a", "z", "0", "deep", "towards", "on", "le"]
    slugs = sorted({"-".join(rng.choice(words) for _ in range(rng.randint(1, 4))) + f"-{i}" for i in range(3000)}
                   | {"co", "con", "cont", "a"})
    starts = exports.shard_starts(slugs)
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    assert exports.shard_starts(list(reversed(slugs))) == starts, "the order papers come in changes nothing"
    held = {start: [] for start in starts}
    for slug in slugs:
        held[exports.shard_of(slug, starts)].append(slug)
    assert all(held.values()), "no shard is empty"
    assert max(len(v) for v in held.values()) <= 4 * exports.SHARD_PAPERS
    assert len(starts) >= len(slugs) // (4 * exports.SHARD_PAPERS)
    grouped = exports.papers_by_shard([paper(id=f"{n:012d}", slug=slug) for n, slug in enumerate(reversed(slugs))])
    assert {start: [p.slug for p in members] for start, members in grouped.items()} == held, "one walk places them as shard_of does"
    for start, members in held.items():  # a shard is a run of consecutive slugs at or after its start
        assert all(m >= start for m in members) and members == sorted(members)
    # a paper arriving moves no cut but perhaps the one at its own place: the other shards are as they were
    grown = exports.shard_starts(slugs + ["learning-on-a-new-paper"])
    assert len(set(grown) ^ set(starts)) <= 2


def test_each_papers_related_papers_are_in_its_shard_by_the_numbers_the_search_rows_have() -> None:
    """What papersite-saved.js reads: the paper's shard (exports.json's starts, the citations'), its row, and
    each number's row in the search's rows files, in the related list's order; derived titles are marked."""
    from generator.site import search

    papers = [paper(id=f"{n:012d}", slug=slug, title=f"Title {slug}", title_derived=slug == "beta")
              for n, slug in enumerate(["delta", "alpha", "gamma", "beta", "epsilon"])]
    catalog = build_catalog(papers)
    related = {"alpha": ["beta", "gamma"], "gamma": ["alpha"], "delta": ["epsilon", "beta", "alpha"], "epsilon": []}
    files = exports.related_files(catalog, related)
    schema = json.loads(exports.citation_files(catalog, SITE, "X")[exports.EXPORTS_FILE])
    store = search.search_files(catalog)
    head = json.loads(gzip.decompress(store[schema["search_head"]]))
    size = head["schema"]["row_chunk"]

    def row_slug(number: int) -> str:
        rows = json.loads(gzip.decompress(store[schema["search_rows"].format(n=number // size)]))
        return rows["papers"][number % size][head["schema"]["columns"].index("slug")]

    found, derived = {}, set()
    for n in range(schema["related_files"]):
        shard = json.loads(gzip.decompress(files[schema["related_path"].format(shard=n)]))
        assert all(exports.hashed_file(slug, schema["related_files"]) == n for slug, _ in shard["papers"])
        found.update({slug: [row_slug(n) for n in numbers] for slug, numbers in shard["papers"]})
        derived |= {row_slug(n) for n in shard["derived"]}
    assert found == {slug: others for slug, others in related.items() if others}, "a paper without related papers has no row"
    assert derived == {"beta"}
    assert set(files) == {schema["related_path"].format(shard=n) for n in range(schema["related_files"])}
    assert exports.related_files(build_catalog(list(reversed(papers))), related) == files, "the order papers come in changes nothing"


def test_each_authors_co_authors_are_in_the_file_its_slug_names_and_kept_while_its_pages_key_is(tmp_path, monkeypatch) -> None:
    from generator.config import load_config
    from site_fixtures import write_project

    papers = [paper(id=f"{n:012d}", slug=f"p{n}", authors=[f"Author {n % 97}", f"Author {(n * 7) % 97}", "Ada Lovelace"])
              for n in range(150)]
    catalog = build_catalog(papers)
    files = exports.coauthor_files(catalog)
    schema = json.loads(exports.citation_files(catalog, SITE, "X")[exports.EXPORTS_FILE])
    count = schema["coauthor_files"]
    assert count == len(files) == -(-sum(1 for a in catalog.authors if a.coauthors) // exports.COAUTHORS_A_FILE) > 1
    rows = {}
    for n in range(count):
        for row in json.loads(gzip.decompress(files[schema["coauthor_path"].format(shard=n)])):
            assert exports.hashed_file(row[0], count) == n
            rows[row[0]] = row
    assert rows == {a.slug: exports.coauthor_row(a) for a in catalog.authors if a.coauthors}
    # kept by the keys of its authors' pages: a key that moved makes its file again, the others are the memo's
    config = load_config(write_project(tmp_path / "project"))
    keys = {a.url: f"key of {a.slug}" for a in catalog.authors}
    assert exports.coauthor_files(catalog, config, keys) == files
    made: list[str] = []
    real_row = exports.coauthor_row
    monkeypatch.setattr(exports, "coauthor_row", lambda author: made.append(author.slug) or real_row(author))
    moved = next(a for a in catalog.authors if a.coauthors and a.slug != "ada-lovelace")
    assert exports.coauthor_files(catalog, config, {**keys, moved.url: "another key"}) == files
    assert moved.slug in made and {exports.hashed_file(slug, count) for slug in made} == {exports.hashed_file(moved.slug, count)}


def test_a_shard_a_paper_left_is_removed_from_the_site_when_the_next_build_copies_its_shards(tmp_path) -> None:
    from generator.site import postbuild
    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "project"))
    site = tmp_path / "site"
    for papers in ([paper(slug="zeta"), paper(id="f" * 12, slug="alpha")], [paper(slug="zeta")]):
        files = exports.citation_files(build_catalog(papers), SITE, "X", config)
        deferred = postbuild.data_dir(config) / "deferred"
        shutil.rmtree(deferred, ignore_errors=True)
        postbuild.write_deferred(deferred, files)
        postbuild.copy_deferred(config, site)
        on_site = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
        assert on_site == set(files), "the site holds this build's shards, and only those"
    schema = json.loads(files[exports.EXPORTS_FILE])
    assert schema["shards"] == ["z"]


def test_stray_shards_are_never_removed_through_a_folder_linked_out_of_the_site(tmp_path) -> None:
    from generator.site import postbuild
    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "project"))
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.json.gz").write_bytes(b"not the site's")
    (site / exports.CITATION_SHARD.rsplit("/", 2)[0]).mkdir(parents=True)
    (site / exports.CITATION_SHARD.rsplit("/", 1)[0]).symlink_to(elsewhere, target_is_directory=True)
    files = exports.citation_files(build_catalog([paper(slug="zeta")]), SITE, "X", config)
    deferred = postbuild.data_dir(config) / "deferred"
    postbuild.write_deferred(deferred, {name: data for name, data in files.items() if not name.startswith(exports.CITATION_SHARD.rsplit("/", 1)[0])})
    postbuild.copy_deferred(config, site)
    assert (elsewhere / "keep.json.gz").read_bytes() == b"not the site's"


@pytest.mark.parametrize(("abstract", "on_page"), [
    ("Plain & <simple> text.", True),
    ("Two\n\nparagraphs,  spaced\there.", True),
    ("Non\u00a0breaking space.", True),
    ("A formula $x^2$ here.", False),  # MathML: its text is not the TeX
    ("Up 50\\% better.", False),  # shown as "50%"
    ("A *starred* word.", False),  # emphasis: the stars are gone
    ("See [the code](https://example.org).", False),  # the link's address is not in the text
    ("See https://example.org now.", False),
    ("A\x00null and a\ufeffBOM.", False),  # the parser drops one; JavaScript's \\s and Python's split differ on the other
    ("", False),
])
def test_an_abstract_is_read_from_the_page_only_where_the_page_shows_it_as_written(abstract: str, on_page: bool) -> None:
    assert exports.abstract_on_page(abstract) is on_page


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
def test_where_an_abstract_is_read_from_the_page_its_text_there_is_the_abstract(abstract: str) -> None:
    """What papersite.js reads (the paragraphs' text joined by a space, whitespace runs as one space),
    here by Python's HTML parser from the page's markup, is the abstract the form takes."""
    from html.parser import HTMLParser

    from generator.site.render.mathml import render_abstract

    class Paragraphs(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.texts: list[str] = []

        def handle_starttag(self, tag: str, attrs: list) -> None:
            if tag == "p":
                self.texts.append("")

        def handle_data(self, data: str) -> None:
            self.texts[-1] += data

    if exports.abstract_on_page(abstract):
        parser = Paragraphs()
        parser.feed(render_abstract(abstract))
        assert " ".join(" ".join(parser.texts).split()) == " ".join(abstract.split())
