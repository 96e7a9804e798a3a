"""generator/site/postbuild.py: pages minified and shells filled, nothing a reader sees changes."""

from __future__ import annotations

from html.parser import HTMLParser

import dataclasses
import json
import os
import re

import pytest

from generator.problems import PapersiteError
from generator.site import postbuild, search
from generator.site.chrome import SharedChrome
from generator.site.memo import Memo, memo_dir
from generator.site.postbuild import minify_page, squeeze_html
from generator.site.render.html import esc, meta_text, plain_title
from site_fixtures import HOSTILE_ABSTRACT, HOSTILE_RAW_LINKS, HOSTILE_TITLE

HOSTILE = [HOSTILE_TITLE, HOSTILE_ABSTRACT, *HOSTILE_RAW_LINKS.values(), "a\u00a0 b \u2028 \"q\" 'r' &amp; ` = x"]
CONFIG = {"base": "../..", "features": ["navigation.tabs"], "translations": {"q": "</script> & \" ' <b>"}}


def test_indentation_becomes_one_line_break() -> None:
    assert squeeze_html("<ul>\n    <li>a</li>\n\n      <li>b</li>\n  </ul>") == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"


def test_words_stay_apart() -> None:
    assert squeeze_html("<p>one\n     two</p>") == "<p>one\ntwo</p>"  # a line break is a space in HTML


def test_preformatted_text_scripts_and_unicode_spaces_are_kept() -> None:
    pre = "<pre><code>@inproceedings{x,\n  title = {A},\n}</code></pre>"
    script = "<script>\n  var a = `x\n   y`;\n</script>"
    textarea = "<TEXTAREA>\n  keep\n</TEXTAREA>"
    text = f"<div>\n  {pre}\n  {script}\n {textarea}\n  a\u00a0\n  b</div>"
    assert squeeze_html(text) == f"<div>\n{pre}\n{script}\n{textarea}\na\u00a0\nb</div>"


def test_squeezing_twice_changes_nothing() -> None:
    text = "<div>\n  <pre> x\n  y</pre>\n   <p>z</p>\n</div>"
    assert squeeze_html(squeeze_html(text)) == squeeze_html(text)


def _page(body: str, title: str = "T", description: str = "D") -> str:
    """A page as the theme writes one: indented, every attribute quoted, closing tags written."""
    config = json.dumps(CONFIG).replace("</", "<\\/")
    return (
        '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8">\n'
        f'    <title>{esc(title)} - Site</title>\n    <meta name="description" content="{esc(description)}">\n  </head>\n'
        f'  <body dir="ltr">\n    <div class="md-content">\n      <article class="md-content__inner md-typeset">{body}</article>\n'
        f'    </div>\n    <script id="__config" type="application/json">{config}</script>\n  </body>\n</html>\n'
    )


def test_the_chrome_is_minified_and_the_content_kept_as_escaped() -> None:
    body = "\n      ".join(f'<p class="x" title="{esc(text)}">{esc(text)}</p>' for text in HOSTILE)
    body += '\n      <pre><code id="ps-bibtex">@inproceedings{x,&#10;  title = {A &lt;b&gt;},\n   }</code></pre>\n'
    page = _page(body, plain_title(HOSTILE_TITLE), meta_text(HOSTILE_ABSTRACT))
    small = minify_page(page)
    assert len(small) < len(page) and "\n" not in small.replace(squeeze_html(body).strip(), "")
    assert small.count(squeeze_html(body).strip()) == 1  # as escaped, the indentation aside
    assert _reading(small, ends=False) == _reading(page, ends=False)
    reading = _reading(small)
    assert [tag for tag in reading.tags if tag[0] == "script"] == [("script", (("id", "__config"), ("type", "application/json")))]
    assert not [tag for tag in reading.tags if any(name.startswith("on") for name, _ in tag[1])]
    assert json.loads(reading.script) == CONFIG  # the inline JSON as written
    assert ("meta", (("content", meta_text(HOSTILE_ABSTRACT)), ("name", "description"))) in reading.tags
    assert minify_page("<div>\n   <p>no article:  another theme</p>\n</div>") == "<div>\n<p>no article:  another theme</p>\n</div>"


def test_a_mark_stays_one_quoted_attribute_value() -> None:
    """minify-html writes attribute values without quotes where it can; a shell's marks are filled
    with titles and descriptions (spaces, escaped quotes), so they keep theirs."""
    page = _page(f"<h1>{postbuild.CONTENT_MARK}</h1>", postbuild.TITLE_MARK, postbuild.DESCRIPTION_MARK)
    page = page.replace("<title>", f'<meta property="og:title" content="{postbuild.TITLE_MARK}"><title>')
    shell = postbuild._read_shell(minify_page(page), "papers", "papers/_shell/index.html")
    title = 'It\'s "a" <b>title</b> & more'
    filled = shell.fill("papers/x/", title, "<p>body</p>", description=title)
    metas = [dict(tag[1]) for tag in _reading(filled).tags if tag[0] == "meta" and len(tag[1]) == 2]
    assert [meta["content"] for meta in metas] == [title, title]
    assert f"<title>{esc(title)} - Site</title>" in filled


def test_minifying_twice_changes_nothing() -> None:
    page = _page('<p class="a b" title="x y">one\n     two</p>\n<pre> x\n  y</pre>', postbuild.TITLE_MARK)
    assert minify_page(minify_page(page)) == minify_page(page)


class _Collect(HTMLParser):
    def __init__(self, ends: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.ends = ends
        self.tags: list[tuple] = []
        self.texts: list[str] = []
        self.sequence: list[tuple] = []
        self.script = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, tuple(sorted(attrs))))
        if self.ends or tag not in ("html", "head", "body") or attrs:
            self.sequence.append(self.tags[-1])
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False
        if self.ends:
            self.sequence.append(("/" + tag,))

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script += data
        elif data.strip():
            self.texts.append(" ".join(data.split()))
            self.sequence.append((self.texts[-1],))


def _reading(text: str, ends: bool = True):  # noqa: ANN202
    """The tags (attributes decoded), text and script of a page; ``ends=False``: without closing
    tags and bare <html>, <head>, <body>, which minifying leaves out where HTML implies them."""
    reading = _Collect(ends)
    reading.feed(text)
    return reading if ends else reading.sequence


class _Reading(HTMLParser):
    """What a page says: its head's tags as a multiset, its body as a sequence of
    tags (attributes decoded) and text, whatever the spelling of character references.
    The head is what comes before <body>: a minified page leaves out <head> and </head>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.head: list[tuple] = []
        self.body: list[tuple] = []
        self.in_head = True

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "body":
            self.in_head = False
        if tag not in ("html", "head"):
            (self.head if self.in_head else self.body).append((tag, tuple(sorted(attrs))))

    def handle_endtag(self, tag: str) -> None:
        if not self.in_head:
            self.body.append(("/" + tag,))

    def handle_data(self, data: str) -> None:
        if data.strip():
            (self.head if self.in_head else self.body).append((" ".join(data.split()),))


def _read(path, chrome: SharedChrome | None = None, url: str = "") -> tuple[list, list]:  # noqa: ANN001
    """What a page says, minified first: the post-build step minifies the chrome it fills bodies
    into, the engine (plugin.py) the whole of the pages it renders. ``chrome``: with the detail
    pages' shared chrome cut as the post-build step cuts it (``chrome.py``; the page at ``url``)."""
    reading = _Reading()
    text = minify_page(path.read_text(encoding="utf-8"))
    reading.feed(text if chrome is None else chrome.share(text, url))
    return sorted(reading.head), reading.body


def test_shell_pages_say_what_the_engine_says_of_each_page(tmp_path) -> None:
    """Paper, author and keyword pages poured into their section's shell, and index pages whose body
    went in after the engine, read as the pages the engine renders when it is handed each page
    whole (``shells=False``): same head tags, same body, character references, the order of
    head tags and white space between tags aside."""
    from generator.cli import main as papersite
    from generator.config import load_config
    from generator.site.engines import build_with_engine
    from generator.site.stage import stage_docs, staged_overrides_dir
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    shell_site = config.site_dir
    pages = sorted(p.relative_to(shell_site) for p in shell_site.rglob("*.html"))
    assert {rel.parts[0] for rel in pages} >= {"papers", "authors", "keywords", "topics", "index.html", "about"}
    assert not (shell_site / "papers" / "_shell").exists()
    assert not [rel for rel in pages if postbuild_marks(shell_site / rel)]

    engine_site = tmp_path / "engine-site"
    staged = stage_docs(config, shells=False)
    build_with_engine("mkdocs", root / "mkdocs.yml", docs_dir=staged.docs_dir, site_dir=engine_site,
                      overrides_dir=staged_overrides_dir(config), settings=config.engine_settings(), quiet=True)
    chrome = SharedChrome()
    differing = [str(rel) for rel in pages
                 if _read(shell_site / rel) != _read(engine_site / rel, chrome, f"{rel.parent.as_posix()}/".lstrip("./"))]
    assert not differing, differing[:5]
    paper = next(rel for rel in pages if rel.parts[0] == "papers")
    head, _ = _read(shell_site / paper)
    assert any(tag[0] == "meta" and ("name", "citation_title") in tag[1] for tag in head)


def postbuild_marks(path) -> list[str]:  # noqa: ANN001
    from generator.site import postbuild

    text = path.read_text(encoding="utf-8")
    marks = (postbuild.TITLE_MARK, postbuild.CONTENT_MARK, postbuild.DESCRIPTION_MARK, postbuild.HEAD_MARK)
    return [mark for mark in marks if mark in text]


def test_hostile_records_stay_escaped_on_every_minified_page(tmp_path) -> None:
    """The fixture project's hostile paper (tests/site_fixtures.py) built: every page parses, runs no
    script but the site's own, and shows the hostile title as text wherever it shows it."""
    from generator.cli import main as papersite
    from generator.config import load_config
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    site = load_config(root).site_dir
    shown = 0
    for path in sorted(site.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        assert "<script>window.__pwned" not in text, path  # the title as markup (as text it is escaped)
        reading = _reading(text)
        assert "__pwned" not in reading.script and "alert(" not in reading.script, path  # no script of its text
        assert not [tag for tag in reading.tags if any(name.startswith("on") for name, _ in tag[1])], path
        if " ".join(HOSTILE_TITLE.split()) in " ".join(reading.texts):
            shown += 1
    # its own page shows the title with its *emphasis* drawn (render_text), its markup as text
    heading = " ".join(" ".join(_reading(paper_html(site)).texts).split())
    assert "<script>window.__pwned=1</script> bold {{ config.site_name }} {% if x %}" in heading
    assert shown >= 3  # as written: the papers index, its authors' and keywords' pages


def paper_html(site) -> str:  # noqa: ANN001
    return (site / "papers" / "hostile-paper" / "index.html").read_text(encoding="utf-8")


def _material_page(scripts: str) -> str:
    """A page as Material writes its chrome around an article, loading ``scripts``."""
    return (
        '<!doctype html>\n<html class="no-js" lang="en">\n<head><title>T</title></head>\n<body dir="ltr">\n'
        '  <input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer" autocomplete="off">\n'
        '  <input class="md-toggle" data-md-toggle="search" type="checkbox" id="__search" autocomplete="off">\n'
        '  <label class="md-overlay" for="__drawer"></label>\n  <div data-md-component="skip">\n  </div>\n'
        '  <div data-md-component="announce">\n  </div>\n'
        '  <header class="md-header" data-md-component="header"><label for="__search">S</label></header>\n'
        '  <div class="md-container" data-md-component="container"><main class="md-main" data-md-component="main">'
        '<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset">'
        '<p data-md-component="content">kept: the article is content</p><label for="__drawer">kept</label></article></div>'
        '<button type="button" class="md-top md-icon" data-md-component="top" hidden>Back to top</button></main></div>\n'
        '  <div class="md-dialog" data-md-component="dialog">\n    <div class="md-dialog__inner md-typeset"></div>\n  </div>\n'
        f"  {scripts}\n</body>\n</html>\n"
    )


def test_a_page_without_materials_script_loses_what_only_the_script_reads() -> None:
    light = minify_page(_material_page('<script src="../../assets/papersite/papersite.js"></script>'))
    for gone in ("__drawer\"", "md-overlay", "data-md-component=skip", "data-md-component=announce", "md-dialog",
                 "data-md-component=header", "data-md-component=container", "data-md-component=main", "data-md-component=top"):
        assert gone not in light.replace('<label for="__drawer">kept', ""), gone
    assert light.count("data-md-component") == 1 and '<p data-md-component="content">kept' in light  # the article's own
    assert "id=__search" in light and "for=__search" in light  # the header search opens with it
    assert "<header class=md-header>" in light and "<button class=\"md-top md-icon\" hidden type=button>" in light
    assert minify_page(light) == light


def test_a_page_with_materials_script_keeps_its_slots() -> None:
    page = _material_page('<script src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>')
    full = minify_page(page)
    for kept in ("id=__drawer", "md-overlay", "data-md-component=skip", "md-dialog", "data-md-component=top"):
        assert kept in full, kept
    assert _reading(full, ends=False) == _reading(page, ends=False)


def test_deferred_files_are_written_where_they_changed_and_removed_where_they_went(tmp_path) -> None:
    """copy_deferred: a file the site holds as it is stays untouched (its mtime), a changed one is
    written, and one the last build copied that this build does not write leaves the site."""
    import os

    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "project"))
    site = tmp_path / "site"

    def stage(files: dict[str, bytes]) -> None:  # as postbuild.write_deferred leaves them
        out = postbuild.data_dir(config) / "deferred"
        for rel, data in files.items():
            (out / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / "files" / rel).write_bytes(data)
        (out / "manifest.json").write_text(json.dumps(sorted(files)), encoding="utf-8")

    stage({"a/one.json.gz": b"1", "a/two.json.gz": b"2", "a/three.json.gz": b"3"})
    assert postbuild.copy_deferred(config, site) == 3
    os.utime(site / "a/one.json.gz", ns=(1, 1))
    stage({"a/one.json.gz": b"1", "a/two.json.gz": b"two"})
    (postbuild.data_dir(config) / "deferred" / "files" / "a/three.json.gz").unlink()
    assert postbuild.copy_deferred(config, site) == 1
    assert (site / "a/one.json.gz").stat().st_mtime_ns == 1, "an unchanged file is not written again"
    assert (site / "a/two.json.gz").read_bytes() == b"two"
    assert not (site / "a/three.json.gz").exists()

    # a damaged list of copied files removes nothing outside the site, through ".." or a linked folder
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.json.gz").write_bytes(b"k")
    (site / "linked").symlink_to(outside, target_is_directory=True)
    damaged = ["../outside/keep.json.gz", "linked/keep.json.gz", str(outside / "keep.json.gz"), 7]
    record = Memo(config, postbuild.DEFERRED_COPIED, versioned=False)
    record.put(postbuild.DEFERRED_COPIED, "", {"files": damaged, "stamps": {"linked/keep.json.gz": "damaged"}})
    record.save()
    postbuild.copy_deferred(config, site)
    assert (outside / "keep.json.gz").read_bytes() == b"k"
    # and so does the JSON record of builds before the memo, where the memo has none
    memo_dir(config).joinpath(f"{postbuild.DEFERRED_COPIED}.pickle").unlink()
    old = postbuild.data_dir(config) / postbuild.OLD_DEFERRED_COPIED
    old.write_text(json.dumps(damaged), encoding="utf-8")
    postbuild.copy_deferred(config, site)
    assert (outside / "keep.json.gz").read_bytes() == b"k" and not old.exists()  # read once, then the memo's


def _two_files_copied(tmp_path: Path) -> tuple:
    """A project whose stage wrote two deferred files, copied into its site once: (config, site, deferred folder)."""
    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "project"))
    site = tmp_path / "site"
    files = postbuild.data_dir(config) / "deferred"
    postbuild.write_deferred(files, {"s/a.json.gz": b"aaa", "s/b.json.gz": b"bbb"})
    assert postbuild.copy_deferred(config, site) == 2
    return config, site, files


def test_deferred_files_as_they_were_copied_are_not_read_again_and_a_changed_copy_is(tmp_path, monkeypatch) -> None:
    """copy_deferred keeps the stat of both copies of what it copied: a second build with nothing written
    compares nothing; a site file overwritten since (same size, other bytes) or a deferred file written
    again is compared and, where it differs, copied."""
    config, site, files = _two_files_copied(tmp_path)
    compared: list[Path] = []
    real = postbuild.write_if_changed
    monkeypatch.setattr(postbuild, "write_if_changed", lambda path, data, *rest: compared.append(path) or real(path, data, *rest))
    assert postbuild.copy_deferred(config, site) == 0 and compared == [], "files as they were copied were compared again"

    (site / "s/a.json.gz").write_bytes(b"xxx")  # damaged in the site
    postbuild.write_deferred(files, {"s/a.json.gz": b"aaa", "s/b.json.gz": b"BBB"})  # b written again
    assert postbuild.copy_deferred(config, site) == 2
    assert (site / "s/a.json.gz").read_bytes() == b"aaa" and (site / "s/b.json.gz").read_bytes() == b"BBB"


def test_a_build_that_ran_no_engine_stats_only_the_deferred_copies(tmp_path, monkeypatch) -> None:
    """``site_as_left`` (the engine skipped: nothing wrote the site since the last copy): the site's copies are
    taken as recorded, so only the deferred files are stat'ed; one written again is still copied. A build whose
    engine ran stats both, and finds a copy damaged in the site."""
    config, site, files = _two_files_copied(tmp_path)
    stamped: list[str] = []
    real = postbuild._stamp
    monkeypatch.setattr(postbuild, "_stamp", lambda path: stamped.append(str(path)) or real(path))

    (site / "s/a.json.gz").write_bytes(b"xxx")  # as only something outside papersite would
    postbuild.write_deferred(files, {"s/a.json.gz": b"aaa", "s/b.json.gz": b"BBB"})
    assert postbuild.copy_deferred(config, site, site_as_left=True) == 1
    assert (site / "s/b.json.gz").read_bytes() == b"BBB"
    assert [p for p in stamped if p.startswith(str(site))] == [str(site / "s/b.json.gz")], stamped  # the one copied
    assert postbuild.copy_deferred(config, site) == 1 and (site / "s/a.json.gz").read_bytes() == b"aaa"


def test_deferred_files_recorded_as_written_are_not_read_back_and_a_changed_one_is(tmp_path, monkeypatch) -> None:
    """write_deferred compares a file with its new bytes by reading it only when its stat or the bytes' hash
    differ from what it recorded (8,630 files an edit at 11,672 papers): a file changed since, or a link put
    in its place, is written again."""
    import time
    from pathlib import Path

    out = tmp_path / "deferred"
    files = {"s/a.json.gz": b"aaa", "s/b.json.gz": b"bbb", "c.json.gz": b"ccc"}
    postbuild.write_deferred(out, files)
    minute_ago = time.time_ns() - 60 * 10**9
    for rel in files:
        os.utime(out / "files" / rel, ns=(minute_ago, minute_ago))  # not written just now ("racy")
    postbuild.write_deferred(out, files)  # (stats moved since the record: compared, then recorded)
    read: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real(self))
    postbuild.write_deferred(out, files)
    assert not set(read) & {"a.json.gz", "b.json.gz", "c.json.gz"}, read
    (out / "files" / "s/a.json.gz").write_bytes(b"xyz")  # changed by hand, same size
    os.utime(out / "files" / "s/a.json.gz", ns=(minute_ago + 10**9, minute_ago + 10**9))
    (out / "files" / "c.json.gz").unlink()
    (out / "files" / "c.json.gz").symlink_to(out / "files" / "s/b.json.gz")
    postbuild.write_deferred(out, {**files, "s/b.json.gz": b"BBB"})
    assert [(out / "files" / rel).read_bytes() for rel in files] == [b"aaa", b"BBB", b"ccc"]
    assert not (out / "files" / "c.json.gz").is_symlink()
    record = out / "written-manifest.json"
    record.unlink()
    record.symlink_to("/dev/zero")  # a record that is no file of ours is not read (it would never end)
    postbuild.write_deferred(out, files)
    assert not record.is_symlink() and [(out / "files" / rel).read_bytes() for rel in files] == list(files.values())


def test_the_deferred_stage_writes_only_changed_files_and_reuses_a_gzip_of_the_same_bytes(tmp_path) -> None:
    import gzip

    out = tmp_path / "deferred"
    postbuild.write_deferred(out, {"map.json.gz": postbuild.kept_gzip(out, "map.json.gz", b'{"x":[1]}')}, "manifest-map.json")
    written = out / "files" / "map.json.gz"
    os.utime(written, ns=(5, 5))
    same = postbuild.kept_gzip(out, "map.json.gz", b'{"x":[1]}')
    postbuild.write_deferred(out, {"map.json.gz": same}, "manifest-map.json")
    assert written.stat().st_mtime_ns == 5, "the same bytes written again"
    moved = postbuild.kept_gzip(out, "map.json.gz", b'{"x":[2]}')
    assert gzip.decompress(moved) == b'{"x":[2]}' and moved == search.gzipped(b'{"x":[2]}')
    written.write_bytes(b"not gzip")  # a damaged file is compressed again, never trusted
    assert postbuild.kept_gzip(out, "map.json.gz", b'{"x":[2]}') == search.gzipped(b'{"x":[2]}')
    assert json.loads((out / "manifest-map.json").read_text(encoding="utf-8")) == ["map.json.gz"]


def _palette_page(scripts: str, primary: str = "indigo") -> str:
    return (
        '<!doctype html><html lang="en"><head><title>T</title>'
        '<link rel="stylesheet" href="../../assets/stylesheets/main.57a0d79d.min.css">'
        '<link rel="stylesheet" href="../../assets/stylesheets/palette.fb2fffe2.min.css"></head>'
        f'<body dir="ltr" data-md-color-scheme="default" data-md-color-primary="{primary}" data-md-color-accent="indigo">'
        f'<main><article class="md-content__inner md-typeset"><p>kept</p></article></main>{scripts}</body></html>'
    )


def test_a_light_page_in_materials_own_colours_names_none_and_loads_no_palette() -> None:
    light = minify_page(_palette_page('<script src="../../assets/papersite/papersite.js"></script>'))
    assert "data-md-color" not in light and "palette." not in light and "main.57a0d79d.min.css" in light
    assert "<body dir=ltr>" in light and minify_page(light) == light
    for kept in (
        _palette_page('<script src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>'),  # the script switches palettes
        _palette_page("", primary="red"),  # not Material's default
    ):
        small = minify_page(kept)
        assert "palette.fb2fffe2.min.css" in small and "data-md-color-primary" in small


def _sheets_page(scripts: str, primary: str = "indigo", ours: str = "../../assets/papersite/papersite.css") -> str:
    return _palette_page(scripts, primary).replace("</head>", f'<link rel="stylesheet" href="{ours}"></head>')


def test_a_page_links_one_file_of_materials_stylesheet_and_ours_where_the_cascade_stays_the_same() -> None:
    # drawn without Material's script, in its default colours: palette.css goes, the two left are one file
    light = minify_page(_sheets_page('<script src="../../assets/papersite/papersite.js"></script>'))
    assert light.count("rel=stylesheet") == 1 and "<link href=../../assets/papersite/site.57a0d79d.css rel=stylesheet>" in light
    # with the script, in the default colours: palette.css only names variables ours never sets, and follows both
    scripted = minify_page(_sheets_page('<script src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>'))
    assert ("<link href=../../assets/papersite/site.57a0d79d.css rel=stylesheet>"
            "<link href=../../assets/stylesheets/palette.fb2fffe2.min.css rel=stylesheet>") in scripted
    assert scripted.count("rel=stylesheet") == 2 and minify_page(scripted) == scripted
    # another palette's rules may meet ours at equal weight; links of another site's files, or in another order: kept
    for kept in (_sheets_page("", primary="white"), _sheets_page("", ours="https://example.org/papersite.css"),
                 _sheets_page("").replace("main.57a0d79d.min.css", "main.min.css")):
        small = minify_page(kept)
        assert "papersite/site." not in small and "papersite.css rel=stylesheet" in small and "min.css rel=stylesheet" in small, small


def test_the_one_stylesheet_is_materials_and_ours_and_the_last_builds_other_goes(tmp_path) -> None:
    from generator.site.postbuild import write_stylesheet

    site = tmp_path / "site"
    (site / "assets" / "stylesheets").mkdir(parents=True)
    (site / "assets" / "papersite").mkdir(parents=True)
    assert write_stylesheet(site) == 0 and not list((site / "assets" / "papersite").iterdir())  # no stylesheet of ours: none
    (site / "assets" / "stylesheets" / "main.aa11.min.css").write_bytes(b":root{--a:1}\n/*# sourceMappingURL=main.aa11.min.css.map*/")
    (site / "assets" / "stylesheets" / "main.aa11.min.css.map").write_bytes(b"{}")
    (site / "assets" / "papersite" / "papersite.css").write_bytes(b".ps{color:red}\n")
    old = site / "assets" / "papersite" / "site.0f.css"
    old.write_bytes(b"last build's")
    outside = tmp_path / "outside.css"
    outside.write_bytes(b"not the site's")
    (site / "assets" / "papersite" / "site.aa11.css").symlink_to(outside)
    assert write_stylesheet(site) == 1
    one = site / "assets" / "papersite" / "site.aa11.css"
    assert not one.is_symlink() and one.read_bytes() == b":root{--a:1}\n.ps{color:red}\n"
    assert outside.read_bytes() == b"not the site's" and not old.exists()
    assert write_stylesheet(site) == 0  # the same bytes: not written again


def _site_files(site) -> dict[str, bytes]:  # noqa: ANN001
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_an_edit_fills_only_what_it_changed_and_ends_as_a_clean_build(tmp_path, monkeypatch) -> None:
    """A title edit (no engine run): the post-build step fills the detail pages whose row changed and
    the index pages whose body changed, reads no other body, and the site is a clean build's. A page
    folder gone from the site is filled again; a damaged bodies index falls back to the whole file."""
    import re
    import shutil

    from generator.cli import main as papersite
    from generator.config import load_config
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    build = ["--project", str(root), "build", "--no-import", "--quiet"]
    assert papersite(build) == 0
    site = load_config(root).site_dir
    bodies = [url for url, _ in postbuild._body_index(load_config(root))]
    detail_pages = sum(len((postbuild.data_dir(load_config(root)) / f"{s}.json").read_bytes().splitlines())
                       for s in postbuild.SHELL_SECTIONS)
    filled: list[str] = []
    read: list[str] = []
    fill, engine_output = postbuild._Shell.fill, postbuild._engine_output
    monkeypatch.setattr(postbuild._Shell, "fill", lambda shell, url, *rest: filled.append(url) or fill(shell, url, *rest))
    monkeypatch.setattr(postbuild, "_engine_output", lambda config, file, rel, *rest, **named: read.append(rel) or engine_output(config, file, rel, *rest, **named))

    def clean_build(name: str) -> dict[str, bytes]:
        copy = tmp_path / name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns("site", "build"))
        assert papersite(["--project", str(copy), "build", "--no-import", "--quiet", "--clean"]) == 0
        return _site_files(copy / "site")

    def retitle(title: str) -> None:
        page = root / "site_src" / "papers" / "graph-transformers.md"
        page.write_text(re.sub(r"^title: .*$", f"title: {title}", page.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")
        filled.clear()
        read.clear()
        listed.clear()
        assert papersite(build) == 0

    listed: list[str] = []
    scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": listed.append(str(path)) or scandir(path))
    retitle("Graph Transformers, Edited")
    assert "papers/graph-transformers/" in filled and len(filled) < detail_pages / 2, filled
    sections = {os.fspath(site / section) for section in postbuild.SHELL_SECTIONS}
    assert not sections & set(listed), "a section's folder listed though nothing added or removed a page folder in it"
    read_bodies = [rel for rel in read if rel.removesuffix("index.html") in bodies]
    assert "papers/index.html" in read_bodies and len(read_bodies) < len(bodies) / 2, read_bodies
    assert "Graph Transformers, Edited" in (site / "papers/index.html").read_text(encoding="utf-8")
    assert _site_files(site) == clean_build("clean-edit")

    gone = next(p for p in sorted((site / "authors").iterdir()) if p.is_dir() and p.name != "_shell")
    shutil.rmtree(gone)
    retitle("Graph Transformers, Edited Again")
    assert f"authors/{gone.name}/" in filled and (gone / "index.html").is_file()
    assert os.fspath(site / "authors") in listed
    assert _site_files(site) == clean_build("clean-folder-gone")

    # the stage writes both files on every build; damaged after it, the post-build step reads the bodies whole
    built = _site_files(site)
    index = postbuild.data_dir(load_config(root)) / postbuild.BODIES_INDEX
    for damage in (lambda text: re.sub(r'"[0-9a-f]{40}"', '"' + "0" * 40 + '"', text), None):
        if damage is None:
            index.unlink()
        else:
            index.write_text(damage(index.read_text(encoding="utf-8")), encoding="utf-8")
        read.clear()
        postbuild.run_postbuild(load_config(root), site)
        assert sorted(rel.removesuffix("index.html") for rel in read if rel.removesuffix("index.html") in bodies) == sorted(bodies)
        assert _site_files(site) == built


def test_a_servers_edit_writes_its_page_first_whole_and_the_rest_of_the_build_leaves_it(tmp_path, monkeypatch) -> None:
    """``papersite serve`` tells its build the pages an edit changed (serve.FirstPages): each is written into the site
    as soon as it is rendered, whole, before anything else of the site is written; the post-build step does not
    write it again, and the site ends as a clean build's. A page written first that the rest of the build fills
    otherwise is put in place whole again."""
    import argparse
    import hashlib
    import re
    import shutil

    from generator.cli import main as papersite
    from generator.config import load_config
    from generator.site.build import run_build
    from generator.site.serve import FirstPages
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    site = config.site_dir
    target = site / "papers" / "graph-transformers" / "index.html"
    untouched = _site_files(site)
    said: list[tuple[str, bytes, dict[str, bytes], int]] = []

    @dataclasses.dataclass(frozen=True)
    class Heard(FirstPages):  # what the server hears, and the site as it stands at each word
        def _say(self, line: str) -> None:
            said.append((line, target.read_bytes(), _site_files(site), target.stat().st_ino))

    page = root / "site_src" / "papers" / "graph-transformers.md"
    page.write_text(re.sub(r"^title: .*$", "title: Graph Transformers, Shown First", page.read_text(encoding="utf-8"),
                           count=1, flags=re.M), encoding="utf-8")
    args = argparse.Namespace(no_import=True, quiet=True, clean=False, engine="mkdocs",
                              first_pages=Heard(frozenset({"site_src/papers/graph-transformers.md", "papersite.yml"})))
    assert run_build(args, config) == 0
    (shown, early, site_then, inode), (writing, _, _, _) = said
    digest = hashlib.sha1(early).hexdigest()
    assert shown == f"shown papers/graph-transformers/ {digest}" and writing == "writing"
    assert b"Graph Transformers, Shown First" in early
    # nothing else of the site was written before the word that the rest is being written
    assert {k: v for k, v in site_then.items() if k != "papers/graph-transformers/index.html"} == \
        {k: v for k, v in untouched.items() if k != "papers/graph-transformers/index.html"}
    assert target.read_bytes() == early and target.stat().st_ino == inode  # the page as shown is the build's: not written again
    copy = tmp_path / "clean"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("site", "build"))
    assert papersite(["--project", str(copy), "build", "--no-import", "--quiet", "--clean"]) == 0
    assert _site_files(site) == _site_files(copy / "site")

    # the rest of the build fills it otherwise (here: written first from a stale shell): put in place whole again
    from generator.site import stage

    def stale(config, site_dir, section, rows):  # noqa: ANN001, ANN202
        shown_first = postbuild.write_first(config, site_dir, section, rows)
        for url in shown_first:
            (site_dir / url / "index.html").write_bytes(b"from a stale shell")
        return {url: hashlib.sha1(b"from a stale shell").hexdigest() for url in shown_first}

    monkeypatch.setattr(stage, "write_first", stale)
    page.write_text(page.read_text(encoding="utf-8").replace("Shown First", "Shown Again"), encoding="utf-8")
    said.clear()
    inodes: list[int] = []
    monkeypatch.setattr(Heard, "_say", lambda self, line: inodes.append(target.stat().st_ino))
    assert run_build(args, config) == 0
    assert b"Graph Transformers, Shown Again" in target.read_bytes()
    assert len(inodes) == 2 and target.stat().st_ino != inodes[0]  # not written into: a server may be sending it


@pytest.mark.parametrize(("folder", "edit"), [
    ("papers/graph-transformers", "title"), ("topics/deep-learning", "title"), ("assets/papersite", "title"),
    ("topics/deep-learning", "body"),  # an engine run: the index pages' outputs removed for it to render them
])
def test_a_link_in_the_site_where_a_build_writes_is_named_never_written_through(tmp_path, folder, edit) -> None:
    """A folder of the site made a link (to a copy of itself outside the project): the edit's build writes a page, an
    index page or a search file there, or removes an index page for the engine to render; it names the link and
    neither writes nor removes anything through it; once the link is removed, the next build gives a clean build's
    site (the engine runs again in full: the build before it did not end well)."""
    import re
    import shutil

    from generator.cli import main as papersite
    from generator.config import load_config
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    build = ["--project", str(root), "build", "--no-import", "--quiet"]
    assert papersite(build) == 0
    site = load_config(root).site_dir
    outside = tmp_path / "outside"
    shutil.copytree(site / folder, outside)
    shutil.rmtree(site / folder)
    (site / folder).symlink_to(outside, target_is_directory=True)
    there = _site_files(outside)
    if edit == "title":
        page = root / "site_src" / "papers" / "graph-transformers.md"
        page.write_text(re.sub(r"^title: .*$", "title: Graph Transformers, Edited", page.read_text(encoding="utf-8"),
                               count=1, flags=re.M), encoding="utf-8")
    else:  # a maintainer's Markdown body: the engine renders the page
        page = root / "site_src" / "papers" / "graph-transformers.md"
        page.write_text(page.read_text(encoding="utf-8").rstrip("\n") + "\n\nA note *by hand*.\n", encoding="utf-8")
    with _stderr() as said:
        assert papersite(build) == 1
    assert f"{site / folder}:1: is a symbolic link" in said.getvalue() and "remove the link" in said.getvalue()
    assert _site_files(outside) == there
    (site / folder).unlink()
    assert papersite(build) == 0
    copy = tmp_path / "clean"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("site", "build"))
    assert papersite(["--project", str(copy), "build", "--no-import", "--quiet", "--clean"]) == 0
    assert _site_files(site) == _site_files(copy / "site")


def _stderr():  # noqa: ANN202
    import contextlib
    import io

    return contextlib.redirect_stderr(io.StringIO())


def test_a_page_written_first_is_never_written_through_a_link_in_the_site(tmp_path) -> None:
    import shutil

    from generator.cli import main as papersite
    from generator.config import load_config
    from generator.problems import PapersiteError
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = config.site_dir / "papers" / "graph-transformers"
    shutil.rmtree(folder)
    folder.symlink_to(outside, target_is_directory=True)
    row = ["papers/graph-transformers/", "T", "<p>body</p>", "", ""]
    with pytest.raises(PapersiteError, match="is a symbolic link"):
        postbuild.write_first(config, config.site_dir, "papers", [row])
    assert list(outside.iterdir()) == []



def test_the_index_pages_bodies_are_read_back_as_written_with_or_without_their_index(tmp_path) -> None:
    """``bodies_files`` writes each body as it is after a line naming it: read through the index, each page's body
    is the one given (any text: newlines, quotes, a line like the file's own, non-ASCII); read whole (no index, or
    one that does not match), the same; a file that is not what it wrote stops with its path and line."""
    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "project"))
    bodies = [[f"topics/t{n}/", f"<h1>Topic {n} “{n}”</h1>\n<p>body</p>"] for n in range(4)]
    bodies += [["topics/odd/", '["topics/t1/", 7]\n\n"quoted" \\ \u2028 end\n'], ["topics/empty/", ""]]
    folder = postbuild.data_dir(config)
    folder.mkdir(parents=True)

    def read_back() -> list[list[str]]:
        with postbuild._bodies(config) as rows:
            return [[url, body_of()] for url, _, body_of in rows]

    data, index = postbuild.bodies_files(bodies)
    (folder / postbuild.BODIES).write_bytes(data)
    (folder / postbuild.BODIES_INDEX).write_bytes(index)
    assert read_back() == bodies
    hashes = [where[2] for _, where in postbuild._body_index(config)]
    assert len(set(hashes)) == len(bodies)
    assert [(url, digest) for url, digest, _ in postbuild._whole_bodies(folder / postbuild.BODIES)] == [
        (url, digest) for (url, _), digest in zip(bodies, hashes)]

    # a body changed in place (its size kept): read whole, not taken as the index says
    (folder / postbuild.BODIES).write_bytes(data.replace(b"Topic 2", b"Topic X"))
    assert read_back()[2][1].startswith("<h1>Topic X")
    (folder / postbuild.BODIES).write_bytes(data)
    for damage in (b"{}", json.dumps({"size": len(data), "rows": [["topics/t0/", 0, 5]]}).encode()):
        (folder / postbuild.BODIES_INDEX).write_bytes(damage)
        assert postbuild._body_index(config) is None and read_back() == bodies
    (folder / postbuild.BODIES_INDEX).unlink()
    assert read_back() == bodies

    third = data.index(b'["topics/t2/"')
    cut = data.index(b"\n", third) + 5  # inside the third body
    line = data.count(b"\n", 0, third) + 1
    for broken, line in ((data[:cut], line), (data[:cut] + b"\n" + data[cut:], line), (b"not json\n" + data, 1), (b"[1, 2]\n", 1)):
        (folder / postbuild.BODIES).write_bytes(broken)
        with pytest.raises(PapersiteError, match=rf"^{re.escape(str(folder / postbuild.BODIES))}:{line}: staged page data is not a page body"):
            read_back()


@pytest.mark.parametrize("quote", ['"', "'", "`"])
def test_the_theme_scripts_load_our_resize_observer_not_unpkgs(tmp_path, quote):
    """Material's and Zensical's bundles fetch a ResizeObserver from unpkg.com where the browser has none; after the
    post-build step they load the site's (the browser tests run it), each bundle rewritten once, a link not followed."""
    from generator.site.postbuild import RESIZE_OBSERVER, write_bundles

    site = tmp_path / "site"
    scripts = site / "assets" / "javascripts"
    scripts.mkdir(parents=True)
    assert write_bundles(site) == 0
    theme = f"var W=I(()=>typeof ResizeObserver==\"undefined\"?lt({quote}https://unpkg.com/resize-observer-polyfill{quote}):F(void 0));"
    (scripts / "bundle.3cb411a8.min.js").write_text(theme, encoding="utf-8")
    (scripts / "other.min.js").write_text(theme, encoding="utf-8")  # not the theme's bundle
    assert write_bundles(site) == 1
    ours = (scripts / "bundle.3cb411a8.min.js").read_text(encoding="utf-8")
    assert "unpkg" not in ours and ours.startswith("var W=I(()=>typeof ResizeObserver==\"undefined\"?lt(document.")
    assert RESIZE_OBSERVER.split("/", 1)[1] in ours and ours.endswith("):F(void 0));")
    assert "unpkg" in (scripts / "other.min.js").read_text(encoding="utf-8")
    assert write_bundles(site) == 0, "a bundle rewritten already is left as it is"
    elsewhere = tmp_path / "elsewhere.js"
    elsewhere.write_text(theme, encoding="utf-8")
    (scripts / "bundle.3cb411a8.min.js").unlink()
    (scripts / "bundle.3cb411a8.min.js").symlink_to(elsewhere)
    write_bundles(site)
    assert elsewhere.read_text(encoding="utf-8") == theme, "written through a link"


def test_the_resize_observer_the_bundles_load_is_one_of_the_sites_assets():
    from generator.site.postbuild import RESIZE_OBSERVER
    from generator.site.stage import ASSETS_DIR

    assert RESIZE_OBSERVER.startswith("assets/papersite/") and (ASSETS_DIR / RESIZE_OBSERVER.rsplit("/", 1)[1]).is_file()
