"""Unit tests of the site stage: escaping of hostile listing text, math, authors, related papers."""

from __future__ import annotations

import re

from generator.config import load_config
from generator import layout
from generator.catalog import build_catalog
from generator.text import fold
from generator.site.render.cite import Venue
from generator.site.render.html import out_link, plain_title
from generator.site.render.mathml import render_text, sanitize_mathml
from generator.site.render.components import DETAIL_TEMPLATE, author_line, first_author_key
from generator.site.render.paper_pages import SiteContext, render_paper_page
from generator.site.related import related_papers
from site_fixtures import HOSTILE_RAW_LINKS, HOSTILE_TITLE, fixture_records, links_run_script, write_project


def _hostile_page(tmp_path):
    config = load_config(write_project(tmp_path))
    # links check would refuse: the renderer is the last line of defence, so it gets them anyway
    records = [r.replace(links=HOSTILE_RAW_LINKS) if r.slug == "hostile-paper" else r for r in fixture_records()]
    catalog = build_catalog(records)
    paper = next(p for p in catalog.papers if p.slug == "hostile-paper")
    context = SiteContext(config, Venue.from_site_name(config.site_name), {p.slug: f"site_src/papers/{p.slug}.md" for p in records})
    return render_paper_page(paper, catalog, context)


def test_hostile_text_is_escaped_on_the_paper_page(tmp_path):
    text = _hostile_page(tmp_path)
    body = text.split("\n---\n", 1)[1]
    assert "<script" not in body and "<img" not in body and "<b " not in body
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in body
    assert "{{ config.site_name }}" in body  # template syntax shown as text, never evaluated
    # no handler and no javascript: link, quoted or not (the quote in the bad code URL is escaped: not linked)
    assert links_run_script(body) == []


def test_front_matter_title_is_inert_for_theme_templates(tmp_path):
    text = _hostile_page(tmp_path)
    front = text.split("\n---\n", 1)[0]
    title_line = next(line for line in front.splitlines() if line.startswith("title:"))
    assert "<" not in title_line and ">" not in title_line
    assert plain_title("a &lt;/title&gt; b") == "a ＆lt;/title＆gt; b"


def test_only_web_urls_become_links():
    assert out_link("javascript:alert(1)", "x") == "x"
    assert out_link(" JAVASCRIPT:alert(1)", "x") == "x"
    assert out_link("data:text/html,hi", "x") == "x"
    assert out_link('https://a.org/"onmouseover=x', "x") == "x"
    assert out_link("https://openreview.net/forum?id=1&b=2", "<x>").startswith('<a href="https://openreview.net/forum?id=1&amp;b=2"')
    assert layout.is_web_url("http://arxiv.org/abs/1") and not layout.is_web_url("https:///nohost")


def test_a_web_url_holds_no_space_control_or_attribute_ending_character_of_any_kind():
    """Every code point: one that is white space, not printable, or could end an attribute
    (quotes, <, >, backtick, backslash) makes a URL no web URL; any other leaves it one."""
    refused = [c for c in map(chr, range(0x110000)) if not layout.is_web_url(f"https://example.org/a{c}b")]
    expected = [c for c in map(chr, range(0x110000)) if c.isspace() or not c.isprintable() or c in "<>\"'`\\"]
    assert refused == expected
    assert {"\u00a0", "\u2028", "\u3000", "\x85", "\u200e", "\ufeff"} <= set(refused)


def test_math_becomes_mathml_and_bad_math_stays_literal():
    html, rendered = render_text(r"cost $O(n^2)$ and $$\sum_i x_i$$ but $\frac{$ and $5 or $10")
    assert rendered and html.count("<math") == 2
    assert r"$\frac{$" in html and "$5 or $10" in html


def test_mathml_allow_list_drops_markup_from_text_commands():
    html, _ = render_text(r"$\text{<script>alert(1)</script>}$")
    assert "<script" not in html
    assert sanitize_mathml('<math><mi onclick="x">a</mi><script>1</script></math>') == "<math><mi>a</mi>1</math>"


def test_author_variants_in_case_accents_spacing_are_one_author_others_stay_apart():
    catalog = build_catalog(fixture_records())
    garcia = catalog.author_of[fold("jose  garcia")]
    assert garcia is catalog.author_of[fold("José García")]
    assert garcia.name == "José García" and len(garcia.papers) == 2
    assert catalog.author_of[fold("Ming Zhou")] is not catalog.author_of[fold("Ming-Zhou")]
    slugs = {catalog.author_of[fold("Ming Zhou")].slug, catalog.author_of[fold("Ming-Zhou")].slug}
    assert slugs == {"ming-zhou", "ming-zhou-2"}
    assert len({a.slug for a in catalog.authors}) == len(catalog.authors)


def test_coauthors_are_counted():
    catalog = build_catalog(fixture_records())
    zhou = catalog.author_of[fold("Ming Zhou")]
    assert {(a.name, n) for a, n in zhou.coauthors} == {("José García", 1), ("Ming-Zhou", 1)}


def test_related_papers_are_deterministic_and_exclude_self():
    records = fixture_records()
    first = related_papers(records)
    second = related_papers(list(reversed(records)))
    assert first == second
    assert all(slug not in related for slug, related in first.items())
    assert "calibrated-flows" in first["one-step-diffusion-via-shortcut-models"]


def test_hostile_title_stays_text_in_cite_blocks(tmp_path):
    text = _hostile_page(tmp_path)
    assert "url = {javascript" not in text  # the citations are the shards' (exports.py): none on the page
    body = text.split("\n---\n", 1)[1]
    assert HOSTILE_TITLE not in body  # only its escaped form; the front matter copy is escaped by the template


# --- speed work that must not change meaning ------------------------------------------


def test_relative_links_match_posixpath_relpath():
    import posixpath
    import random

    def reference(here: str, there: str) -> str:
        base = "/" + here if here.endswith("/") or not here else posixpath.dirname("/" + here) + "/"
        rel = posixpath.relpath("/" + there, base)
        if ("/" + there).endswith("/") and not rel.endswith("/"):
            rel += "/"
        return "./" if rel in (".", "./") else rel

    # the original implementation, which layout.relative replaced for speed
    rng = random.Random(7)
    segments = ["a", "b", "ab", "papers", "authors"]
    cases = [("", ""), ("authors/x/", "authors/y/"), ("papers/x/", ""), ("topics/a/b/", "topics/a/")]
    for _ in range(5000):
        here = "/".join(rng.choice(segments) for _ in range(rng.randint(0, 3)))
        there = "/".join(rng.choice(segments) for _ in range(rng.randint(0, 3)))
        cases.append((here + "/" if here and rng.random() < 0.8 else here, there + "/" if there and rng.random() < 0.8 else there))
    assert [layout.relative(h, t) for h, t in cases] == [reference(h, t) for h, t in cases]


def test_front_matter_reads_back_exactly_for_any_text():
    import yaml

    from generator.site.render.html import front_matter

    nasty = "a: b # c 'q' \"d\" \\ \t\n\x00\x1f\x7f\x85\x9f\u2028\u2029\ufeff\ufffe😀 {{ x }} - ? yes ~ 007"
    data = {"title": nasty, "hide": ["toc"], "search": {"exclude": True}, "empty": [], "n": 3,
            "citation": [{"name": "citation_title", "content": nasty}, {"name": "x", "content": ""}]}
    assert yaml.safe_load(front_matter(data)) == data


def test_shell_page_is_filled_with_title_body_url_and_sitemap(tmp_path):
    import gzip

    from generator.site import postbuild

    config = load_config(write_project(tmp_path))
    site = tmp_path / "site"
    shell = site / "authors" / postbuild.SHELL_SLUG
    shell.mkdir(parents=True)
    (shell / "index.html").write_text(
        f'<title>{postbuild.TITLE_MARK} - Site</title><link rel="canonical" href="https://x.org/authors/_shell/">'
        f'<span class="md-ellipsis">{postbuild.TITLE_MARK}</span><article>{postbuild.SHELL_BODY}</article>',
        encoding="utf-8",
    )
    sitemap = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset>\n'
        "    <url>\n         <loc>https://x.org/</loc>\n    </url>\n"
        "    <url>\n         <loc>https://x.org/authors/_shell/</loc>\n    </url>\n</urlset>"
    )
    (site / "sitemap.xml").write_text(sitemap, encoding="utf-8")
    with gzip.GzipFile(site / "sitemap.xml.gz", "wb", mtime=315532800) as gz:
        gz.write(sitemap.encode())
    pages = [postbuild_page("authors/o-neil/", "O'Neil ‹b›", "<h1>O&#x27;Neil</h1>"), postbuild_page("authors/b/", "B", "<h1>B</h1>")]
    postbuild.data_dir(config).mkdir(parents=True)
    (postbuild.data_dir(config) / "authors.json").write_bytes(b"".join(postbuild.row_line(postbuild.page_row(p)) for p in pages))

    assert postbuild.run_postbuild(config, site) == 2
    html = (site / "authors/o-neil/index.html").read_text(encoding="utf-8")
    assert html == (  # the shell minified (postbuild.minify_page), then filled
        '<title>O&#x27;Neil ‹b› - Site</title><link href=https://x.org/authors/o-neil/ rel=canonical>'
        '<span class=md-ellipsis>O&#x27;Neil ‹b›</span><article><h1>O&#x27;Neil</h1></article>'
    )
    assert not shell.exists()
    text = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "_shell" not in text and text.index("authors/o-neil/") < text.index("authors/b/")
    assert text.count("<url>") == 3
    data = (site / "sitemap.xml.gz").read_bytes()
    assert gzip.decompress(data).decode() == text and data[4:8] == (315532800).to_bytes(4, "little")


def test_a_sitemap_past_the_protocols_urls_a_file_is_an_index_of_parts(tmp_path, monkeypatch):
    """Under a site URL, sitemap.xml names gzipped parts of at most SITEMAP_URLS pages each (50,000 in
    the protocol); fewer pages, fewer parts: a part no longer named is removed."""
    import gzip

    from generator.site import postbuild
    from site_fixtures import sitemap_locs

    project = write_project(tmp_path)
    with (project / "papersite.yml").open("a", encoding="utf-8") as settings:
        settings.write("site_url: https://x.org/a&b/\n")
    config = load_config(project)
    site = project / "site"
    shell = site / "authors" / postbuild.SHELL_SLUG
    monkeypatch.setattr(postbuild, "SITEMAP_URLS", 2)

    def build(names: list[str]) -> None:
        shell.mkdir(parents=True, exist_ok=True)
        (shell / "index.html").write_text(f"<title>{postbuild.TITLE_MARK}</title><article>{postbuild.SHELL_BODY}</article>", encoding="utf-8")
        (site / "sitemap.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            "<url><loc>https://x.org/a&amp;b/</loc></url>\n<url><loc>https://x.org/a&amp;b/authors/_shell/</loc></url>\n</urlset>",
            encoding="utf-8")
        with gzip.GzipFile(site / "sitemap.xml.gz", "wb", mtime=315532800) as gz:
            gz.write((site / "sitemap.xml").read_bytes())
        postbuild.data_dir(config).mkdir(parents=True, exist_ok=True)
        rows = [postbuild.row_line(postbuild.page_row(postbuild_page(f"authors/{n}/", n, f"<h1>{n}</h1>"))) for n in names]
        (postbuild.data_dir(config) / "authors.json").write_bytes(b"".join(rows))
        postbuild.run_postbuild(config, site)

    outside = tmp_path / "outside.gz"
    outside.write_bytes(b"not the site's")
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitemap-2.xml.gz").symlink_to(outside)  # a part's place holding a link: replaced, never written through
    build(["a", "b", "c", "d"])
    assert outside.read_bytes() == b"not the site's" and not (site / "sitemap-2.xml.gz").is_symlink()
    index = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert index == (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(f"<sitemap><loc>https://x.org/a&amp;b/sitemap-{n}.xml.gz</loc></sitemap>\n" for n in (1, 2, 3))
        + "</sitemapindex>\n")
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()).decode() == index
    assert sitemap_locs(site) == ["https://x.org/a&amp;b/"] + [f"https://x.org/a&amp;b/authors/{n}/" for n in "abcd"]
    part = (site / "sitemap-3.xml.gz").read_bytes()
    # the engine's header time (the build date), and the part's own name in its header
    assert part[4:8] == (315532800).to_bytes(4, "little") and part[10 : part.index(b"\0", 10)] == b"sitemap-3.xml"
    assert gzip.decompress(part).decode().endswith("<url><loc>https://x.org/a&amp;b/authors/d/</loc></url>\n</urlset>")

    (site / "sitemap-3.xml.gz").unlink()
    (site / "sitemap-3.xml.gz").symlink_to(outside)
    build(["a", "b"])  # a part no longer named goes; a link there goes, what it leads to stays
    assert outside.read_bytes() == b"not the site's"
    assert sitemap_locs(site) == ["https://x.org/a&amp;b/", "https://x.org/a&amp;b/authors/a/", "https://x.org/a&amp;b/authors/b/"]
    assert sorted(p.name for p in site.glob("sitemap*")) == ["sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap.xml", "sitemap.xml.gz"]


def postbuild_page(url: str, title: str, body: str):
    from generator.site.render.indices import DetailPage

    return DetailPage(url, title, body)


def test_inferred_topic_shows_its_confidence_and_says_uncertain_when_low():
    from generator.pages.record import Topic
    from generator.site.render.paper_pages import _topic_html

    records = fixture_records()
    base = records[0]
    sure = base.replace(slug="sure", id="sure", topic=Topic("Theory", "Learning Theory", "inferred", 0.91))
    unsure = base.replace(slug="unsure", id="unsure", topic=Topic("Theory", "Learning Theory", "inferred", 0.36))
    area_only = base.replace(slug="area-only", id="area-only", topic=Topic("Theory", None, "inferred", 0.42))
    sure_area = base.replace(slug="sure-area", id="sure-area", topic=Topic("Theory", "Learning Theory", "inferred", 0.24, 0.78))
    unsure_area = base.replace(slug="unsure-area", id="unsure-area", topic=Topic("Theory", "Learning Theory", "inferred", 0.2, 0.45))
    catalog = build_catalog([sure, unsure, area_only, sure_area, unsure_area])
    by_slug = {p.slug: p for p in catalog.papers}
    html = {slug: _topic_html(by_slug[slug], f"papers/{slug}/", catalog) for slug in by_slug}
    assert "inferred, 91% confident" in html["sure"] and "uncertain" not in html["sure"]
    assert "inferred, uncertain, 36% confident" in html["unsure"]
    assert "inferred, uncertain, 42% confident; sub-area uncertain" in html["area-only"]
    # A sure area under a doubtful sub-area: the reader sees both numbers, and which one is in doubt.
    assert "inferred: area 78%, sub-area 24% confident; sub-area uncertain" in html["sure-area"]
    assert "inferred, uncertain: area 45%, sub-area 20% confident" in html["unsure-area"]


def test_maintainer_front_matter_keys_reach_the_theme_but_never_replace_ours(tmp_path):
    import yaml

    config = load_config(write_project(tmp_path))
    # links check would refuse: the renderer is the last line of defence, so it gets them anyway
    records = [r.replace(links=HOSTILE_RAW_LINKS) if r.slug == "hostile-paper" else r for r in fixture_records()]
    catalog = build_catalog(records)
    paper = catalog.papers[0]
    paper.extra.update({"description": "Errata: Table 2 sign", "title": "Hijacked", "hide": []})
    context = SiteContext(config, Venue.from_site_name(config.site_name), {p.slug: f"site_src/papers/{p.slug}.md" for p in records})
    front = yaml.safe_load(render_paper_page(paper, catalog, context).split("\n---\n", 1)[0].lstrip("-\n"))
    assert front["description"] == "Errata: Table 2 sign"
    assert front["title"] == plain_title(paper.title) and front["hide"] == ["toc"]


def test_only_plain_theme_keys_and_a_safe_body_reach_the_engine(tmp_path):
    import yaml

    config = load_config(write_project(tmp_path))
    # links check would refuse: the renderer is the last line of defence, so it gets them anyway
    records = [r.replace(links=HOSTILE_RAW_LINKS) if r.slug == "hostile-paper" else r for r in fixture_records()]
    catalog = build_catalog(records)
    paper = next(p for p in catalog.papers if p.slug == "graph-transformers")
    paper.extra.update({"description": '"><script>alert(1)</script><meta x="', "status": 'new" onclick="x', "template": "404.html"})
    paper.body = "Notes\n\n<script>alert(2)</script>\n\n[x](javascript:alert(3)) {: onclick=\"alert(4)\" }\n\nesc\x1b"
    context = SiteContext(config, Venue.from_site_name(config.site_name), {})
    text = render_paper_page(paper, catalog, context)
    front = yaml.safe_load(text.split("\n---\n", 1)[0].lstrip("-\n"))
    assert "status" not in front and front["template"] == DETAIL_TEMPLATE  # ours, not the maintainer's 404.html
    assert not re.search(r"[<>\"']", front["description"])
    body = text.split("\n---\n", 1)[1].rsplit("</div>", 1)[1]  # the maintainers' part
    assert body.strip().startswith("Notes") and "&lt;script>alert(2)" in body
    assert "<script>alert(2)" not in body and "javascript:" not in body and "{: onclick" not in body and "\x1b" not in body


def test_reserved_names_never_take_a_section_page():
    records = fixture_records()
    for record, name in zip(records, ["Index", "CON", "404"]):
        record.authors = [name]
        record.keywords = [name.lower()]
    catalog = build_catalog(records)
    slugs = {a.slug for a in catalog.authors} | {k.slug for k in catalog.keywords} | {a.slug for a in catalog.areas}
    assert not slugs & layout.RESERVED_SLUGS and {"index-x", "con-x", "404-x"} <= slugs


_ONE_PATTERN = re.compile(  # the single alternation math_spans replaces: quadratic on unclosed \[ \(
    r"\$\$(?P<d1>.+?)\$\$|\\\[(?P<d2>.+?)\\\]|\\\((?P<i1>.+?)\\\)|(?<![\\$\w])\$(?P<i2>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?![\d$])",
    re.DOTALL,
)


def test_math_spans_find_what_one_alternation_found():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from generator.site.render.mathml import math_spans

    pieces = ["$", "$$", "\\", "\\[", "\\]", "\\(", "\\)", "[", "]", "a", "1", " ", "\n", "x_i"]

    @given(st.lists(st.sampled_from(pieces), max_size=30).map("".join))
    @settings(max_examples=2000, deadline=None)
    def same(text):
        assert [(m.span(), m.lastgroup) for m in math_spans(text)] == [(m.span(), m.lastgroup) for m in _ONE_PATTERN.finditer(text)]

    same()


def test_topic_pages_mark_which_papers_are_there_by_a_guess():
    from generator.pages.record import Topic
    from generator.site.render.indices import topics_pages

    base = fixture_records()[0]
    listed = base.replace(slug="listed", id="listed", topic=Topic("Theory", "Learning Theory", "listing"))
    sure = base.replace(slug="sure", id="sure", topic=Topic("Theory", "Learning Theory", "inferred", 0.91))
    unsure = base.replace(slug="unsure", id="unsure", topic=Topic("Theory", "Learning Theory", "inferred", 0.36))
    pages = topics_pages(build_catalog([listed, sure, unsure]))
    sub = next(text for path, text in pages.items() if path.count("/") == 3)
    items = {m.group(1): m.group(0) for m in re.finditer(r'<li[^>]*><a href="?[^"\s>]*?(\w+)/"?>.*?(?=<li|</ul>)', sub, re.S)}  # no </li>: HTML ends an item
    assert "ps-inferred" not in items["listed"]
    assert ">inferred</span>" in items["sure"] and 'title="inferred, 91% confident"' in items["sure"]
    assert ">inferred, uncertain</span>" in items["unsure"]
    assert "2 of them have a topic inferred from the title and abstract" in sub and "1 of those <em>uncertain</em>" in sub


def test_page_description_is_the_first_sentence_and_inert_in_any_template(tmp_path):
    import yaml

    from generator.site.render.paper_pages import description

    front = yaml.safe_load(_hostile_page(tmp_path).split("---")[1])
    # Material prints page.meta.description unescaped: nothing in it may open a tag or end the attribute
    assert not re.search(r'[<>"]', front["description"]) and "onerror" in front["description"]
    first = fixture_records()[0].replace(abstract="Short first sentence here. A second one follows.")
    assert description(first) == "Short first sentence here."
    long = first.replace(abstract="word " * 100 + "end.")
    assert description(long).endswith("word…") and len(description(long)) <= 201


def test_an_authors_co_authors_carry_the_papers_they_share():
    import dataclasses

    from generator.site.exports import coauthor_row

    records = fixture_records()
    second = dataclasses.replace(records[1], id="a9", slug="flows-again", title="Flows Again", authors=["José García", "Ana Lee"])
    catalog = build_catalog([*records, second])
    garcia = coauthor_row(catalog.author_of[fold("José García")])
    assert garcia[1][0] == ["ana-lee", "Ana Lee", 2], "the most shared first"
    assert [other for other in garcia[1] if other[1] == "Ming Zhou"][0][2] == 1 and garcia[2] == 0
    assert all(n == 1 for _, _, n in coauthor_row(catalog.author_of[fold("Ming Zhou")])[1])


def test_a_paper_page_says_what_the_listing_called_it_and_that_the_author_order_is_not_known(tmp_path):
    config = load_config(write_project(tmp_path))
    records = [
        r.replace(
            title="Shortcut Models", listed={"title": "One <b>Step</b> Diffusion", "decision": "Reject"},
            author_order="alphabetical", authors=sorted(r.authors),
        )
        if r.slug == "one-step-diffusion-via-shortcut-models" else r
        for r in fixture_records()
    ]
    catalog = build_catalog(records)
    paper = next(p for p in catalog.papers if p.slug == "one-step-diffusion-via-shortcut-models")
    context = SiteContext(config, Venue.from_site_name(config.site_name), {})
    body = render_paper_page(paper, catalog, context).split("\n---\n", 1)[1]
    assert "Listed as: “One &lt;b&gt;Step&lt;/b&gt; Diffusion”" in body and "Listed decision: Reject" in body
    assert "(listed alphabetically; the order on the paper is not known)" in body
    assert 'name="citation_author"' not in render_paper_page(paper, catalog, context)
    line = author_line(paper)
    assert "et al." not in line and line.endswith("and 1 more (alphabetical order)")
    assert first_author_key(paper) == "" and first_author_key(records[1]) == fold("José García")
    assert author_line(records[0].replace(author_order=None)).endswith(" et al.")


def test_write_tree_replaces_a_link_in_the_tree_instead_of_writing_through_it(tmp_path):
    from generator.site.stage import write_tree

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "docs"
    (target / "about").mkdir(parents=True)
    (target / "about" / "index.md").symlink_to(victim)
    (target / "papers").symlink_to(tmp_path / "elsewhere")
    write_tree(target, {"about/index.md": b"# About\n", "papers/x/index.md": b"# X\n"})
    assert victim.read_text(encoding="utf-8") == "keep me" and not any((tmp_path / "elsewhere").iterdir())
    assert not (target / "about" / "index.md").is_symlink() and (target / "papers" / "x" / "index.md").read_bytes() == b"# X\n"
