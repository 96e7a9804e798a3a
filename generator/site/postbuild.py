"""Post-build: the pages and files the stage hands over after the engine has built.

Why: MkDocs + Material spends 3–5 ms on every page it renders, and at 12k papers
there are ~35k author pages and ~1k keyword pages whose chrome (header, tabs,
footer, assets) is the same on every page of a section. So the stage gives the
engine one *shell* page per section, ``authors/_shell/index.md``, at the same URL
depth as ``authors/<slug>/``: every relative link the theme writes into it
(CSS, JS, header search, tabs, footer) is right for every page of the section.
This step reads the rendered shell and writes ``site/authors/<slug>/index.html``
for each author by putting in the page's title, body and URL, then removes the
shell and lists the pages in ``sitemap.xml`` (and ``sitemap.xml.gz``).

It also writes the files the stage computed while the engine ran (the search
index: ``stage.py`` builds it in a worker process that overlaps the engine).

Both engines are covered: ``papersite build`` runs this after either engine
(``build.py``), and the MkDocs plugin runs it from ``on_post_build`` so a plain
``mkdocs build`` / ``mkdocs serve`` gives the same site. Zensical has no hooks,
which is why this is a step of our pipeline and not of the engine (issue 7,
docs/ZENSICAL.md). Everything here is a pure function of the rendered shell and
the staged data, so rebuilds stay byte-identical.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import shutil
import stat
import struct
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import minify_html

from generator import layout
from generator.inputs import open_regular, read_regular, read_regular_text
from generator.outputs import clear_the_way, real_folder, replace_file
from generator.problems import PapersiteError
from generator.config import ProjectConfig
from generator.site.chrome import SCRIPT as CHROME_SCRIPT, SharedChrome
from generator.site.render.html import esc

if TYPE_CHECKING:
    from generator.site.memo import RowsWritten

SHELL_SLUG = "_shell"  # python-slugify never yields a leading "_": no author or keyword can own it
TITLE_MARK = "PapersiteShellTitle4e1d"
CONTENT_MARK = "PapersiteShellContent4e1d"
DESCRIPTION_MARK = "PapersiteShellDescription4e1d"
HEAD_MARK = "PapersiteShellHead4e1d"
# The shell's body: a raw <h1> so that the theme adds no <h1> of its own (Material
# adds one when the content has none); the pages' bodies bring their own <h1>.
SHELL_BODY = f"<h1>{CONTENT_MARK}</h1>"
SHELL_SECTIONS = tuple(route.section for route in (layout.PAPER, layout.AUTHOR, layout.KEYWORD))
# Sections whose pages each have their own description and head tags (a paper's Google
# Scholar tags); the others show the site's description, as their shell does.
OWN_HEAD_SECTIONS = (layout.PAPER.section,)
DATA_DIR = "postbuild"  # under the build dir: {section}.json, deferred/, rendered/
DEFERRED_COPIED = "deferred-copied"  # memo.py's kind: the deferred files the last build put in the site, their stats
OLD_DEFERRED_COPIED = "deferred-copied.json"  # under DATA_DIR: the same, as builds before the memo kept it
OLD_PAPER_ROWS_DIR = "papers"  # under DATA_DIR: a row file per paper page, as builds before one data file kept them
BODIES = "index-bodies.html"  # under DATA_DIR: the body of each index page staged with SHELL_BODY (``bodies_files``)
BODIES_INDEX = "index-bodies.json"  # under DATA_DIR: where each of BODIES' bodies is, and its hash
RENDERED_DIR = "rendered"  # under DATA_DIR: the engine's own rendering of each page filled here
FILLED = "filled"  # memo.py's kind: what each section's pages were filled from, and their hashes: rewrite only what changed
FILLED_BODIES = "filled-bodies"  # memo.py's kind: url -> what each index page was filled from, and its stat then


# Every page the engine renders has its chrome minified once, as it leaves the engine
# (``plugin.py``'s on_post_page), and again where the post-build step reads a shell (a Zensical
# build has no hook; minifying is idempotent): the chrome of 48k pages at 12k papers is a
# shell's chrome, so it costs one call per section, not one per page. What the article holds
# (the bodies poured in afterwards, an engine page's own content) is left byte for byte as the
# renderers escaped it: minify-html writes ``<`` raw where HTML allows it (in attribute values,
# in a <title>), and minifying each body would cost ~20 s at 12k papers for ~5% of its bytes;
# of the content only the template's indentation is taken out (``squeeze_html``).
# Scripts and styles are not minified: the config JSON, Material's and ours stay as written.
_MARKS = (TITLE_MARK, DESCRIPTION_MARK, HEAD_MARK, CONTENT_MARK)
# minify-html writes an attribute value without quotes where it can; a mark filled with a
# title or description (spaces, quotes escaped by ``esc``) needs them back.
_UNQUOTED_MARK = re.compile(r"""=([^\s"'=<>`]*(?:%s)[^\s"'=<>`]*)(?=[\s>])""" % "|".join(_MARKS))
_ARTICLE = re.compile(r"<article\b[^>]*>(.*)</article>", re.DOTALL)  # the theme's one article: the content
_KEPT_MARK = "PapersiteKeptArticle4e1d"


def minify_page(text: str) -> str:
    """``text`` (a whole page) with everything but its article's content minified, and without
    the slots of Material's script where the page does not load it; a page without an article
    (another theme) only loses its indentation."""
    article = _ARTICLE.search(text)
    if article is None:
        return squeeze_html(text)
    chrome = f"{text[: article.start(1)]}{_KEPT_MARK}{text[article.end(1) :]}"
    small = _UNQUOTED_MARK.sub(r'="\1"', one_stylesheet(without_idle_slots(minify_html.minify(chrome))))
    return small.replace(_KEPT_MARK, squeeze_html(article.group(1)).strip(), 1)


# Material's stylesheet and ours, which every page the theme draws links one after the other (base.html,
# extra_css): one file of both (``write_stylesheet``) and one link instead, 71 B of each of ~48k pages at
# 12k papers, and a request fewer for a reader's first page. The file is named after Material's, whose
# name changes with its bytes. A page that loads Material's script keeps palette.css between the two:
# with Material's default colours (``_DEFAULT_PALETTE``) palette.css only names variables ours never
# sets, so it may follow both; with another palette its rules and ours can meet at equal weight and
# the page keeps its three links (as does any page whose links are not these).
_THEME_HASH = "[0-9a-f]+"  # what names a version of a theme's file: main.<hash>.min.css
_SHEET = rf"<link href=([^\s\"'=<>`]*?)assets/stylesheets/main\.({_THEME_HASH})\.min\.css rel=stylesheet>"
_PALETTE_SHEET = rf"(<link href=\1assets/stylesheets/palette\.{_THEME_HASH}\.min\.css rel=stylesheet>)"
_OUR_SHEET = r"<link href=\1assets/papersite/papersite\.css rel=stylesheet>"
_TWO_SHEETS = re.compile(_SHEET + _OUR_SHEET)
_THREE_SHEETS = re.compile(_SHEET + _PALETTE_SHEET + _OUR_SHEET)
OUR_STYLESHEET = "assets/papersite/papersite.css"  # from the site's root
SHEETS = "assets/papersite/site.{}.css"  # one file of Material's main.<hash>.min.css and ours


def one_stylesheet(text: str) -> str:
    """``text`` (a minified page's chrome) linking one file of Material's stylesheet and ours where it linked both."""
    def one(match: re.Match) -> str:
        palette = match.group(3) if match.re is _THREE_SHEETS else ""
        return f"<link href={match.group(1)}{SHEETS.format(match.group(2))} rel=stylesheet>{palette}"

    text, done = _TWO_SHEETS.subn(one, text, count=1)
    if done or not _default_palette_only(text):
        return text
    return _THREE_SHEETS.sub(one, text, count=1)


def write_stylesheet(site_dir: Path) -> int:
    """The one file of Material's stylesheet and ours (``one_stylesheet``) for each of Material's in the
    site (its source map's comment left out: the map is named relative to Material's), the last build's
    others removed."""
    site_dir = Path(site_dir)
    ours = site_dir / OUR_STYLESHEET
    wanted: dict[Path, bytes] = {}
    if ours.is_file():
        for material in sorted((site_dir / "assets" / "stylesheets").glob("main.*.min.css")):
            digest = material.name[len("main."):-len(".min.css")]
            if re.fullmatch(_THEME_HASH, digest) and material.is_file():
                text = _SOURCE_MAP.sub(b"", read_regular(material)).rstrip()
                wanted[site_dir / SHEETS.format(digest)] = text + b"\n" + read_regular(ours)
    for old in sorted(ours.parent.glob(SHEETS.rsplit("/", 1)[1].format("*"))):
        if old not in wanted and not clear_the_way(old) and old.is_file():  # (a link is removed, not followed)
            old.unlink()
    return sum(write_if_changed(path, data, site_dir) for path, data in wanted.items())


_SOURCE_MAP = re.compile(rb"/\*# sourceMappingURL=[^*]*\*/\s*$")

# The theme's script (Material's, Zensical's) loads a ResizeObserver from unpkg.com where the browser has none
# (before 2020): a third party's script, fetched by every page such a reader opens. ``write_bundles`` has it load
# ours from the site (assets/resize-observer.js), found beside the script itself: a page's own URL says nothing of
# where the site's root is.
THEME_BUNDLES = "assets/javascripts/bundle.*.min.js"  # from the site's root
RESIZE_OBSERVER = "assets/papersite/resize-observer.js"
_THIRD_PARTY_RESIZE_OBSERVER = re.compile(rb"([\"'`])https://unpkg\.com/resize-observer-polyfill/?\1")
_OUR_RESIZE_OBSERVER = (
    b"document.querySelector('script[src*=\"assets/javascripts/bundle.\"]').src"
    b".replace(/javascripts\\/bundle\\.[^\\/]*$/,\"" + RESIZE_OBSERVER.split("/", 1)[1].encode() + b"\")"
)


def write_bundles(site_dir: Path) -> int:
    """Each of the theme's scripts in the site loading our ResizeObserver where it loaded unpkg.com's (above);
    rewritten in place, as the engine copies them again only when it writes the whole site."""
    site_dir = Path(site_dir)
    written = 0
    for bundle in sorted(site_dir.glob(THEME_BUNDLES)):
        if clear_the_way(bundle) or not bundle.is_file():  # (a link is removed, not followed)
            continue
        script = read_regular(bundle)
        ours = _THIRD_PARTY_RESIZE_OBSERVER.sub(lambda _: _OUR_RESIZE_OBSERVER, script)
        if ours != script:
            written += write_if_changed(bundle, ours, site_dir)
    return written


# What the theme writes for its script alone: the drawer's toggle and overlay, the empty skip and
# announce slots, the dialog its clipboard speaks through, and the components' names it mounts.
# A page that does not load the script (templates/ps-detail.html leaves it out of the generated
# detail pages, where papersite.js does what it did: 0.5 KB of each of ~48k pages at 12k papers)
# has no use for them; CSS reads none of them. The search toggle stays: papersite-header.js and
# papersite.css open the header search with it.
_MATERIAL_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=[\"']?[^\"'\s>]*assets/javascripts/bundle\.")
_IDLE_SLOTS = re.compile(
    r"<input\b[^>]*\bid=[\"']?__drawer\b[^>]*>"
    r"|<label\b[^>]*\bfor=[\"']?__drawer\b[^>]*>\s*</label>"
    r"|<div data-md-component=[\"']?(?:skip|announce)[\"']?>\s*</div>"
    r"|<div\b[^>]*\bdata-md-component=[\"']?dialog\b[^>]*>\s*<div\b[^>]*>\s*</div>\s*</div>"
    r"|\s+data-md-component=[\"']?(?:container|main|content|header|top)[\"']?(?=[\s/>])"
)


def without_idle_slots(text: str) -> str:
    """``text`` (a page) without what only Material's script reads, if the page does not load it."""
    return text if _MATERIAL_SCRIPT.search(text) else without_default_palette(_IDLE_SLOTS.sub("", text))


# Material's own colours (main.css's :root holds them): a body that names exactly these, on a page
# whose palette no script switches, reads the same without the names and without palette.css,
# which only styles those names (screenshots and every element's computed colours compared: the
# same). 0.16 KB of each of ~48k detail pages at 12k papers. Another palette keeps both. (What
# such a page's article holds is generated and escaped: a maintainer's Markdown keeps the script.)
_DEFAULT_PALETTE = re.compile(
    r"<body\b(?=[^>]*\sdata-md-color-accent=[\"']?indigo[\"'\s>])(?=[^>]*\sdata-md-color-primary=[\"']?indigo[\"'\s>])"
    r"(?=[^>]*\sdata-md-color-scheme=[\"']?default[\"'\s>])[^>]*>")
_PALETTE_NAME = re.compile(r"\s+data-md-color-(?:accent|primary|scheme)=(?:\"[^\"]*\"|'[^']*'|[^\s>]*)")
_PALETTE_CSS = re.compile(rf"<link\b[^>]*\bhref=[\"']?[^\"'\s>]*assets/stylesheets/palette\.{_THEME_HASH}\.min\.css[\"']?[^>]*>")


def _default_palette_only(text: str) -> re.Match | None:
    """The page's body, if it names Material's default colours and nothing else on the page names one."""
    body = _DEFAULT_PALETTE.search(text)
    if body is None or "data-md-color-" in text[body.end():] or "data-md-color-" in text[: body.start()]:
        return None
    return body


def without_default_palette(text: str) -> str:
    """``text`` (a page without Material's script) without the names of Material's default colours
    and palette.css, if its body names those colours and nothing else on it names one."""
    body = _default_palette_only(text)
    if body is None:
        return text
    return _PALETTE_CSS.sub("", text[: body.start()], count=1) + _PALETTE_NAME.sub("", body.group(0)) + text[body.end():]


# A run of spaces holding a line break renders as one space outside preformatted text, so it
# becomes one line break; <pre>, <textarea>, <script> and <style> are copied as they are.
# (Not NBSP or other Unicode spaces: those are content.)
_KEEP_AS_IS = re.compile(r"<(pre|textarea|script|style)\b.*?</\1>", re.DOTALL | re.IGNORECASE)
_INDENT = re.compile(r"[ \t\r]*\n[ \t\r\n]*")


def squeeze_html(text: str) -> str:
    """``text`` with every whitespace run that holds a line break turned into one line break."""
    out: list[str] = []
    pos = 0
    for kept in _KEEP_AS_IS.finditer(text):
        out.append(_INDENT.sub("\n", text[pos : kept.start()]))
        out.append(kept.group(0))
        pos = kept.end()
    out.append(_INDENT.sub("\n", text[pos:]))
    return "".join(out)


def data_dir(config: ProjectConfig) -> Path:
    return config.build_dir / DATA_DIR


def shell_url(section: str) -> str:
    return f"{section}/{SHELL_SLUG}/"


def shell_markdown(section: str) -> str:
    """The shell page the engine renders for ``section`` (front matter as detail pages have it)."""
    from generator.site.render.html import DetailPage, page
    from generator.site.render.paper_pages import detail_front

    own = section in OWN_HEAD_SECTIONS
    marks = DetailPage(shell_url(section), TITLE_MARK, SHELL_BODY, DESCRIPTION_MARK if own else "", HEAD_MARK if own else "")
    return page(detail_front(marks), SHELL_BODY)


PAGE_ROW = ("url", "title", "body", "description", "head")  # what the post-build step needs of a page


def page_row(detail) -> list[str]:  # noqa: ANN001 (render.html.DetailPage)
    return [getattr(detail, name) for name in PAGE_ROW]


def row_line(row: list[str]) -> bytes:
    """A row of a section's data file: one line of JSON (``memo.write_rows`` copies lines it kept)."""
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


@dataclass
class _Shell:
    parts: list[str]  # the shell's text split at the marks
    marks: list[str]  # the mark between parts[i] and parts[i + 1]: "title", "content" or "url"

    def fill(self, url: str, title: str, body: str, description: str = "", head: str = "") -> str:
        # the description is text as meta_text makes it: escaped here like the title
        values = {"title": esc(title), "content": body, "url": url, "description": esc(description), "head": head}
        out = [self.parts[0]]
        for mark, part in zip(self.marks, self.parts[1:]):
            out.append(values[mark])
            out.append(part)
        return "".join(out)


def _read_shell(text: str, section: str, where: Path) -> _Shell:
    url = shell_url(section)
    if text.count(SHELL_BODY) != 1:
        raise PapersiteError(
            f"{where}: the rendered shell page should hold its marker {SHELL_BODY!r} exactly once; "
            "did the theme or a Markdown extension change how raw HTML is written?"
        )
    names = {SHELL_BODY: "content", TITLE_MARK: "title", url: "url", DESCRIPTION_MARK: "description", HEAD_MARK: "head"}
    pattern = re.compile("|".join(map(re.escape, names)))
    parts: list[str] = []
    marks: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        parts.append(text[pos : match.start()])
        marks.append(names[match.group(0)])
        pos = match.end()
    parts.append(text[pos:])
    return _Shell(parts, marks)


def _fill_sitemap(config: ProjectConfig, site_dir: Path, filled: dict[str, list[str]]) -> None:
    """Replace each shell's <url> entry in the engine's sitemap.xml by one entry per page, in page order,
    and write it as sitemap.xml and its parts (``sitemap_files``).

    The engine's sitemap is compacted first (a few hundred entries), then each shell's one-line entry is
    repeated per page: ~48k pages at 11,672 papers cost a join, not a regex pass over 7 MB. A gzipped
    file is compressed again only when the text differs from the one it holds (its trailer's CRC and
    size, and the engine's header time): an edit that adds or removes no page compresses nothing."""
    sitemap = site_dir / "sitemap.xml"
    if not sitemap.exists():
        return
    kept_gz = data_dir(config) / RENDERED_DIR / "sitemap.xml.gz"
    fresh = f"/{SHELL_SLUG}/" in read_regular_text(sitemap) or not kept_gz.exists()
    text = compact_sitemap(_engine_output(config, sitemap, "sitemap.xml", f"/{SHELL_SLUG}/", unmarked=True))
    compressed = site_dir / "sitemap.xml.gz"
    if fresh and compressed.exists():
        kept_gz.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(compressed, kept_gz)  # the engine's, for its header time
    # each shell's entry found in the engine's few hundred entries, not in a text already holding 48k
    found = []
    for section, urls in filled.items():
        shell = shell_url(section)
        entry = re.search(r"<url>(?:(?!</url>).)*?" + re.escape(shell) + r".*?</url>\n", text, re.DOTALL)
        if entry is not None:  # else an engine that left the shell out of its sitemap: nothing to stand in for
            found.append((entry.start(), entry.end(), shell, urls))
    parts, pos = [], 0
    for start, end, shell, urls in sorted(found):
        entry = text[start:end]
        before, after = entry.split(shell, 1)
        parts.append(text[pos:start])
        if shell in after:  # the URL twice in one entry (an image's location): each replaced, as it was
            parts.extend(entry.replace(shell, url) for url in urls)
        else:
            parts.extend(f"{before}{url}{after}" for url in urls)
        pos = end
    parts.append(text[pos:])
    text = "".join(parts)
    # The engine's own header time (the build date, from SOURCE_DATE_EPOCH): rebuilds stay byte-identical.
    mtime = struct.unpack("<I", read_regular(kept_gz)[4:8])[0] if kept_gz.exists() else None
    index, files = sitemap_files(text, config.site_url)
    for name, part in files:
        _write_gzip(site_dir / name, part.encode("utf-8"), mtime or 0, site_dir)
    named = {name for name, _ in files}
    for stale in site_dir.glob(SITEMAP_PART.format("*")):
        if _SITEMAP_PART_NAME.fullmatch(stale.name) and stale.name not in named:
            if not clear_the_way(stale) and stale.is_file():  # a link goes (never followed), a FIFO is refused
                stale.unlink()  # a part the sitemap no longer names (fewer pages)
    data = index.encode("utf-8")
    write_if_changed(sitemap, data, site_dir)
    if mtime is not None:  # as MkDocs writes it beside sitemap.xml
        _write_gzip(compressed, data, mtime, site_dir)


# The sitemap protocol (sitemaps.org) takes at most 50,000 URLs a file: ~48.5k pages at 11,672 papers, ~400k
# at 100k. Where the site has a URL, sitemap.xml is a sitemap index (the URL search engines are given
# stays the same) naming the parts, each a gzipped list of at most SITEMAP_URLS pages: the 4.6 MB of
# sitemap.xml at 11,672 papers become one 0.5 MB part and a few lines.
SITEMAP_URLS = 50_000
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_PART = "sitemap-{}.xml.gz"  # beside sitemap.xml, numbered from 1
_SITEMAP_PART_NAME = re.compile(r"sitemap-[1-9][0-9]*\.xml\.gz")


def sitemap_files(text: str, site_url: str | None, most: int | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The sitemap ``text`` (a urlset, an entry a line, as ``compact_sitemap`` leaves it) as sitemap.xml
    and its parts: (sitemap.xml's text, [(part's file name, its urlset)]). Without a site URL (no page
    has an absolute URL to list) or a page to list, sitemap.xml stays the urlset and has no parts."""
    count, most = text.count("<url>"), most or SITEMAP_URLS
    if site_url is None or not count:
        return text, []
    if count <= most:  # one part, the whole list (no pass over its ~48k entries at 11,672 papers)
        files = [(SITEMAP_PART.format(1), text)]
    else:
        entries = list(re.finditer(r"<url>.*?</url>\n", text))
        head, tail = text[: entries[0].start()], text[entries[-1].end() :]
        files = [(SITEMAP_PART.format(n), head + "".join(entry.group(0) for entry in entries[first : first + most]) + tail)
                 for n, first in enumerate(range(0, len(entries), most), start=1)]
    listed = "".join(f"<sitemap><loc>{esc(site_url + name)}</loc></sitemap>\n" for name, _ in files)
    index = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n{listed}</sitemapindex>\n'
    return index, files


def _write_gzip(path: Path, data: bytes, mtime: int, site_dir: Path) -> None:
    """``path``: the gzip of ``data`` named as ``path`` without ``.gz``, with header time ``mtime``;
    not compressed again when it already holds it (an edit that adds or removes no page)."""
    name = path.name.removesuffix(".gz")
    if _gzip_holds(path, data, mtime, name):
        return
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, filename=name, mode="wb", mtime=mtime) as gz:
        gz.write(data)
    write_if_changed(path, buffer.getvalue(), site_dir)


_GZIP_HEADER = b"\x1f\x8b\x08\x08"  # what GzipFile writes before the header time: magic, deflate, a file name follows


def _gzip_holds(path: Path, data: bytes, mtime: int, name: str) -> bool:
    """Whether ``path`` is the gzip of ``data`` as ``_write_gzip`` writes it: the same header (magic,
    time, ``name``) and, in its trailer, ``data``'s CRC-32 and size. Read from both ends, not decompressed."""
    head = _GZIP_HEADER + struct.pack("<I", mtime) + b"\x02\xff" + name.encode("latin-1") + b"\x00"
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    try:
        with open_regular(path) as file:
            if file.read(len(head)) != head:
                return False
            file.seek(-len(trailer), os.SEEK_END)
            return file.read() == trailer
    except OSError:
        return False


# An engine's sitemap entry: its URL, a <lastmod> and anything else, indented over four lines.
_SITEMAP_ENTRY = re.compile(r"[ \t]*<url>\s*<loc>([^<]*)</loc>\s*(?:<lastmod>[^<]*</lastmod>\s*)?((?:<(?!/url>)[^<]*</[a-z]+>\s*)*)</url>\n?")


def compact_sitemap(text: str) -> str:
    """Each entry on one line, without <lastmod>: the engine writes the build date there
    (1980-01-01 under SOURCE_DATE_EPOCH, for byte-identical rebuilds), which is no page's
    date, and the indentation and dates were half of a 7.4 MB sitemap at 12k papers."""
    def entry(match: re.Match) -> str:
        rest = re.sub(r"\s+", "", match.group(2))
        return f"<url><loc>{match.group(1)}</loc>{rest}</url>\n"

    return _SITEMAP_ENTRY.sub(entry, text)


def write_if_changed(path: Path, data: bytes, within: Path | None = None, made: set[Path] | None = None) -> int:
    """1 if ``path`` did not hold ``data`` and now does (a file, folder or link in its way is replaced; a FIFO
    or device refused: ``outputs.clear_the_way``). ``within``: the folder it is written in (the site), every step
    from it to ``path`` a folder of its own (``outputs.real_folder``, ``made`` its folders already made so)."""
    if within is not None:
        real_folder(within, path.parent, made)
    try:
        if path.stat().st_size == len(data) and read_regular(path) == data:
            return 0
    except OSError:
        pass
    if not clear_the_way(path) and path.is_dir():  # (a link is removed: never written through)
        shutil.rmtree(path)
    if path.parent.is_file() or path.parent.is_symlink():
        path.parent.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return 1


def _remove_page(site_dir: Path, url: str, digest: str) -> None:
    """Remove a page this step wrote last time, unless something else wrote there since
    (a hand-written page in site_src that the engine has just built at that URL)."""
    target = site_dir / url / "index.html"
    if target.parent.is_symlink():
        real_folder(site_dir, target.parent)  # refused: what a link leads to is not the site's to remove
    try:
        if hashlib.sha1(read_regular(target)).hexdigest() != digest:  # noqa: S324 - a change detector
            return
    except OSError:
        return
    target.unlink()
    parent = target.parent
    while parent != site_dir and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


SECTION_KEY = "\0section\0"  # FILLED's key of a section: its shell's hash -> the section's ``_Filled``


@dataclass(frozen=True)
class _Filled:
    """What ``fill_shells`` filled a section's pages from, page by page in the rows' order: each page's URL, its row's
    line hash and its page's hash; and the stat of each folder holding the pages' folders after the fill. Kept as
    columns (three lists and a dict, in ``marshal``'s form): as a dict of 48k (line hash, page hash) pairs at 11,672
    papers, reading, walking and writing it back was ~0.05 CPU s of every edit."""

    urls: list
    sources: list
    digests: list
    folders: dict

    def kept(self) -> tuple:
        return (self.urls, self.sources, self.digests, self.folders)

    @classmethod
    def from_kept(cls, value: object) -> "_Filled | None":
        if not (isinstance(value, tuple) and len(value) == 4 and all(isinstance(column, list) for column in value[:3])
                and isinstance(value[3], dict) and len(value[0]) == len(value[1]) == len(value[2])):
            return None
        return cls(*value)

    def pages(self) -> dict[str, str]:
        """URL -> the hash of the page written there."""
        return dict(zip(self.urls, self.digests))


_NOTHING_FILLED = _Filled([], [], [], {})


def fill_shells(config: ProjectConfig, site_dir: Path, chrome: SharedChrome | None = None, shown: dict[str, str] | None = None,
                rows: dict[str, RowsWritten] | None = None) -> int:
    """Write every detail page of every staged section into ``site_dir``; returns how many changed.

    What each section's pages were filled from is kept in the memo (``memo.py``): the shell's hash,
    and of each page the hash of its row's line (the stage's memo knows it without the line being
    read: ``memo.kept_rows``) and of the bytes written. With the same shell, a page is filled again
    only if its line changed or its folder is gone from the site (an engine run that cleaned it):
    a title edit fills a dozen of ~48k pages at 11,672 papers, with no stat of each page. The
    folders holding the pages' folders are listed only when their own stat moved since the last
    fill (an engine run, a page folder removed: ``_missing_folders``). As for the build stamp, a
    file deeper in a page's folder is the build's output and not watched (``--clean`` writes every
    page again). A page no longer staged is removed; an incremental build ends with the site a
    clean build gives. ``shown``: the pages this build wrote first (``write_first``) and their hashes: a page
    holding those bytes is not written again, and one that changes is put in place whole (a server sends it).
    ``rows``: what the stage of this process wrote into each section's data file (else its memo says).
    """
    from generator.site.memo import PAGE_SHARDS, Memo

    site_dir = Path(site_dir)
    shown = shown or {}
    written = 0
    filled: dict[str, list[str]] = {}
    # keyed on what each page is made of (its shell and row), not on the code; another site dir: nothing known
    memo = Memo(config, FILLED, scope=str(site_dir.resolve()), versioned=False, shards=PAGE_SHARDS)
    before, older = _filled_before(memo.old)
    memo.new = {}
    memo.forget()  # until this step completes
    for section in SHELL_SECTIONS:
        data = data_dir(config) / f"{section}.json"
        if not data.exists():
            continue
        shell_dir = site_dir / section / SHELL_SLUG
        shell_file = shell_dir / "index.html"
        shell_text = minify_page(_engine_output(config, shell_file, f"{shell_url(section)}index.html", SHELL_BODY))
        if chrome is not None:
            shell_text = chrome.share(shell_text, shell_url(section))
        shell = _read_shell(shell_text, section, shell_file)
        shell_key = hashlib.sha1(shell_text.encode("utf-8")).hexdigest()  # noqa: S324 - a change detector
        last_shell, last = before.pop(section, ("", _NOTHING_FILLED))
        same_shell = last_shell == shell_key
        made_dirs: set[Path] = set()
        with _section_rows(config, section, data, (rows or {}).get(section)) as (sources, row_of):
            urls = [url for url, _ in sources]
            lines = [source for _, source in sources]
            same_pages = urls == last.urls
            missing, parents = _missing_folders(site_dir, urls, last.folders if same_shell else None, same_pages)
            kept = _kept_fills(last, older, urls, same_pages)
            digests = [kept_digest for _, kept_digest in kept]
            if same_shell:  # the pages whose line changed, or whose folder is gone
                again: Iterable[int] = [n for n, (source, (kept_source, _)) in enumerate(zip(lines, kept)) if source != kept_source]
                if missing:
                    again = sorted({*again, *(n for n, url in enumerate(urls) if url in missing)})
            else:
                again = range(len(urls))
            for number in again:
                url, kept_digest = urls[number], kept[number][1]
                page = shell.fill(*row_of(number)).encode("utf-8")
                digest = digests[number] = hashlib.sha1(page).hexdigest()  # noqa: S324 - a change detector, not security
                target = site_dir / url / "index.html"
                if kept_digest == digest and target.is_file():
                    continue
                if url in shown and target.is_file():  # (else it went since it was written first: written again)
                    if shown[url] != digest:
                        replace_file(target, page)
                    written += 1
                    continue
                real_folder(site_dir, target.parent, made_dirs)  # never written through a link in the site
                clear_the_way(target)
                target.write_bytes(page)
                written += 1
        if not same_pages:
            staged = set(urls)
            for url, digest in sorted(last.pages().items()):
                if url not in staged:
                    _remove_page(site_dir, url, digest)
        filled[section] = urls
        shutil.rmtree(shell_dir, ignore_errors=True)
        now = _Filled(urls, lines, digests, {parent: _folder_stamp(site_dir / parent) for parent in parents})
        memo.put(f"{SECTION_KEY}{section}", shell_key, now.kept())
    gone = {url: digest for _, last in before.values() for url, digest in last.pages().items()}  # sections no longer staged
    if older:
        still = {url for _, kept in memo.new.values() for url in kept[0]}
        gone.update((url, digest) for url, digest in older.items() if url not in still)
    for url in sorted(gone):
        _remove_page(site_dir, url, gone[url])
    if filled:
        _fill_sitemap(config, site_dir, filled)
    memo.changed = True
    memo.save()
    return written


def _kept_fills(last: _Filled, older: dict[str, str], urls: list[str], same_pages: bool) -> list[tuple[str, str]]:
    """For each of ``urls``, (its row's line hash, its page's hash) when last filled; ("", its page's hash) for a page
    a build before section entries kept one by one; else ("", "")."""
    if same_pages:
        return list(zip(last.sources, last.digests))
    at = {url: n for n, url in enumerate(last.urls)}
    found = []
    for url in urls:
        n = at.get(url)
        found.append((last.sources[n], last.digests[n]) if n is not None else ("", older.get(url, "")))
    return found


def write_first(config: ProjectConfig, site_dir: Path, section: str, rows: list[list[str]]) -> dict[str, str]:
    """The pages of ``rows`` (``page_row``s of ``section``, the first of ``SHELL_SECTIONS``, whose shell gives the
    site's shared chrome) written into ``site_dir`` before the engine and this step run, filled as ``fill_shells``
    fills them from the shell the engine rendered last: URL -> the SHA-1 of the bytes written. Each is put in place
    whole (``replace_file``): a server sends it while the build goes on (``serve.ShownEarly``). None where no
    rendering of the shell is kept (no build filled it yet). If the engine renders the shell differently this build,
    ``fill_shells`` writes the pages again."""
    try:
        rendered = read_regular_text(data_dir(config) / RENDERED_DIR / f"{shell_url(section)}index.html")
    except OSError:
        return {}
    shell_file = Path(site_dir) / section / SHELL_SLUG / "index.html"
    shell = _read_shell(SharedChrome().share(minify_page(rendered), shell_url(section)), section, shell_file)
    written: dict[str, str] = {}
    for row in rows:
        real_folder(site_dir, Path(site_dir) / row[0])  # never written through a link in the site
        page = shell.fill(*row).encode("utf-8")
        replace_file(Path(site_dir) / row[0] / "index.html", page)
        written[row[0]] = hashlib.sha1(page).hexdigest()  # noqa: S324 - a change detector
    return written


def _filled_before(entries: dict) -> tuple[dict[str, tuple[str, _Filled]], dict[str, str]]:
    """What ``fill_shells`` kept: section -> (its shell's hash, ``_Filled``), and url -> page hash of the pages builds
    before section entries kept one by one (their pages are then filled again, written only if their bytes differ,
    and removed if no longer staged)."""
    sections: dict[str, tuple[str, _Filled]] = {}
    older: dict[str, str] = {}
    for key, entry in entries.items():
        if not (isinstance(key, str) and isinstance(entry, tuple) and len(entry) == 2):
            continue
        if key.startswith(SECTION_KEY):
            kept = _Filled.from_kept(entry[1])
            if kept is not None:
                sections[key[len(SECTION_KEY) :]] = (entry[0], kept)
        elif isinstance(entry[1], str):
            older[key] = entry[1]
    return sections, older


def _missing_folders(site_dir: Path, urls: list[str], folders: dict | None, same_pages: bool = False) -> tuple[set[str], list[str]]:
    """The URLs in ``urls`` whose folder is not in ``site_dir``, and the folders holding theirs.

    Each parent folder is listed once, and not at all while its stat is the one ``folders`` (None:
    none known) holds from the last fill: a page folder removed from it (by hand, or by an engine
    run that cleaned the site) changes its mtime and link count, and so does the engine writing
    the section's shell into it. ``same_pages``: ``urls`` are the pages ``folders`` was taken for, so their
    parents are its keys; the URLs are grouped by parent only where a parent's stat moved."""
    if same_pages and folders is not None:
        moved = [parent for parent in folders if not ((seen := _folder_stamp(site_dir / parent)) and folders[parent] == seen)]
        if not moved:
            return set(), list(folders)
    children: dict[str, dict[str, str]] = {}
    for url in urls:
        parent, _, name = url.rstrip("/").rpartition("/")
        children.setdefault(parent, {})[name] = url
    missing: set[str] = set()
    for parent, names in children.items():
        seen = _folder_stamp(site_dir / parent)
        if folders is not None and seen and folders.get(parent) == seen:
            continue
        try:
            with os.scandir(site_dir / parent) as entries:
                there = {entry.name for entry in entries if entry.is_dir(follow_symlinks=False)}
        except OSError:
            there = set()
        missing.update(names[name] for name in names.keys() - there)
    return missing, sorted(children)


def _folder_stamp(path: Path) -> list[int]:
    """What says no entry of a folder was added or removed since: its inode, mtime, ctime and link count ([] if none)."""
    try:
        seen = os.lstat(path)
    except OSError:
        return []
    return [seen.st_ino, seen.st_mtime_ns, seen.st_ctime_ns, seen.st_nlink] if stat.S_ISDIR(seen.st_mode) else []


@contextmanager
def _section_rows(config: ProjectConfig, section: str, data: Path, written: RowsWritten | None = None,
                  ) -> Iterator[tuple[list[tuple[str, str]], Callable[[int], list[str]]]]:
    """The rows of a section's data file (one per line): each row's URL and its line's hash, and a
    reader of the n-th row, which reads and parses its line only if the page has to be filled again.

    The stage's memo says where each line is and its hash (``memo.kept_rows``): the file is not
    read whole (73 MB of lines at 11,672 papers) to find the handful of pages an edit changed. ``written``: what
    the stage wrote into the file, as the memo would say it, while the file is that size."""
    from generator.site.memo import content_hash, kept_rows, mapped

    kept = written.rows if written is not None and _stamp(data)[:1] == [written.size] else kept_rows(config, section, data)
    if kept is not None:
        with mapped(data) as lines:
            yield [(url, where[2]) for url, where in kept], lambda number: _kept_row_of(data, lines, kept[number][1])
        return
    # No memo for the file: one written whole, line by line (``write_rows`` saves the memo of every file it appends
    # to, which alone says which of its lines the pages use; a file written by hand has no other lines).
    decoder = json.JSONDecoder()
    found: list[tuple[str, str]] = []
    raw: list[bytes] = []
    for line in read_regular(data).splitlines(keepends=True):
        if not line.strip():
            continue
        try:
            url, _ = decoder.raw_decode(line.decode("utf-8", "surrogatepass"), 1)  # the URL only
        except ValueError as error:
            raise PapersiteError(f"{data}:1: staged page data unreadable ({error}); build again") from None
        found.append((url, content_hash(line)))
        raw.append(line)
    yield found, lambda number: _row_of(data, raw[number])


def _kept_row_of(path: Path, lines, where: tuple[int, int, str]) -> list[str]:  # noqa: ANN001 (memo.mapped)
    from generator.site.memo import kept_line

    line = kept_line(lines, where)
    if line is None:
        raise PapersiteError(f"{path}:1: staged page data changed since the stage wrote it; build again")
    return _row_of(path, line)


def _row_of(path: Path, source: bytes) -> list[str]:
    try:
        row = json.loads(source)
    except ValueError as error:
        raise PapersiteError(f"{path}:1: staged page data unreadable ({error}); build again") from None
    if not isinstance(row, list) or len(row) != len(PAGE_ROW) or not all(isinstance(value, str) for value in row):
        raise PapersiteError(f"{path}:1: staged page data is not a page row; build again")
    return row


def copy_deferred(config: ProjectConfig, site_dir: Path, site_as_left: bool = False) -> int:
    """Copy the files the stage wrote after handing over to the engine (``deferred/``) into the site: those
    that differ from the site's (a title edit changes a few dozen of ~11,000 search, citation, related and
    co-author files), and remove those the last build copied and this one does not write (an index with a
    shard fewer).

    What was copied is listed with the stat of both copies (``_stamp``): a file whose deferred copy and
    site copy are as they were when this step last made them equal is not read again (the stage writes a
    deferred file only where its bytes changed, ``write_deferred``), so an edit reads a few dozen files,
    not ~11,000 twice. ``site_as_left``: no engine wrote the site since this step last copied into it (the
    build skipped it), so its copies are taken as they were recorded and only the deferred ones are stat'ed:
    files below the site's top level are the build's output, not watched (``incremental.build_stamp``), and
    22,000 stats were ~0.06 s at the very end of an edit at 11,672 papers."""
    from generator.site.memo import Memo

    deferred = data_dir(config) / "deferred"
    names = [rel for manifest in sorted(deferred.glob("manifest*.json")) for rel in json.loads(read_regular(manifest))]
    # a memo, not JSON: the ~11,000 names and stats were read and written again on every build (0.05 s at 11,672 papers)
    record = Memo(config, DEFERRED_COPIED, versioned=False)  # (it describes files, whatever code wrote them)
    kept = record.get(DEFERRED_COPIED, "")
    old_record = data_dir(config) / OLD_DEFERRED_COPIED
    before, stamps = _copied_before(kept if kept is not None else _read_json(old_record))
    site_dir = Path(site_dir)
    written = 0
    now: dict[str, list[int]] = {}
    sources, targets = f"{deferred / 'files'}{os.sep}", f"{site_dir}{os.sep}"  # strings: ~11,000 files, two stats each
    made: set[Path] = set()  # the site's folders the files go in, made (never through a link) once
    for rel in names:
        source, target = f"{sources}{rel}", f"{targets}{rel}"
        kept_stamp = stamps.get(rel)
        if site_as_left and kept_stamp is not None and len(kept_stamp) == 6:
            stamp = _stamp(source) + kept_stamp[3:]
        else:
            stamp = _stamp(source) + _stamp(target)
        if len(stamp) == 6 and kept_stamp == stamp:
            now[rel] = stamp
            continue
        written += write_if_changed(Path(target), read_regular(source), site_dir, made)
        now[rel] = _stamp(source) + _stamp(target)
    for rel in sorted(before - set(names)):
        gone = _site_file(site_dir, rel)
        if gone is not None:
            gone.unlink(missing_ok=True)
    record.put(DEFERRED_COPIED, "", {"files": sorted(names), "stamps": now})
    record.save()
    if old_record.exists() or old_record.is_symlink():
        clear_the_way(old_record)  # (a FIFO in its place is named, not removed)
        old_record.unlink(missing_ok=True)
    if names:
        _remove_other_shards(site_dir, set(names))
    return written


def _stamp(path: Path | str) -> list[int]:
    """What says a file was not written since: its size, mtime and ctime in nanoseconds ([] if none)."""
    try:
        seen = os.stat(path)
    except OSError:
        return []
    return [seen.st_size, seen.st_mtime_ns, seen.st_ctime_ns] if stat.S_ISREG(seen.st_mode) else []


def _read_json(path: Path) -> object:
    """What a JSON file of ours holds; None where it is missing, no regular file or damaged."""
    try:
        return json.loads(read_regular(path))
    except (OSError, ValueError):
        return None


def _copied_before(listed: object) -> tuple[set[str], dict[str, list[int]]]:
    """The files the last build copied, and their stamps, from its record (none from builds that kept a bare
    list, or a damaged record: every file is then compared byte for byte)."""
    if isinstance(listed, list):
        return {rel for rel in listed if isinstance(rel, str)}, {}
    if not isinstance(listed, dict):
        return set(), {}
    files, stamps = listed.get("files"), listed.get("stamps")
    names = {rel for rel in files if isinstance(rel, str)} if isinstance(files, list) else set()
    if not isinstance(stamps, dict):
        return names, {}
    return names, {rel: stamp for rel, stamp in stamps.items() if isinstance(stamp, list)}


def kept_gzip(out_dir: Path, rel: str, data: bytes) -> bytes:
    """``data`` gzipped as ``search.gzipped`` does it, taken from the deferred file the last build wrote
    at ``rel`` when that holds the same bytes: decompressing the map's data (~1 MB) to compare costs a
    fraction of compressing it again, and a title edit rarely moves a point."""
    from generator.site.search import gzipped

    try:
        last = read_regular(out_dir / "files" / rel)
        if gzip.decompress(last) == data:
            return last
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
        pass
    return gzipped(data)


def write_deferred(out_dir: Path, files: dict[str, bytes], manifest: str = "manifest.json") -> None:
    """``files`` for ``copy_deferred`` to copy into the site, each written only where its bytes changed
    (its stat then tells ``copy_deferred`` it is as it was); each writer has its own ``manifest*.json``,
    so the search worker and the main process never share one.

    A file whose stat and bytes' hash are those recorded when it was last written or compared
    (``written-<manifest>``) is not read back to be compared: 8,630 files at 11,672 papers, 0.15 -> 0.05 s
    of the search worker. A file changed within ``RACY_NS`` of the record is not recorded (as ``filehashes.py``)."""
    from generator.site.memo import RACY_NS

    record = out_dir / f"written-{manifest}"
    try:  # (only a file of ours: not read through a link, nor from a special file put in its place)
        last = json.loads(record.read_bytes()) if _regular_stat(str(record), "") is not None else None
    except (OSError, ValueError):
        last = None
    last = last if isinstance(last, dict) else {}
    now, folder, written = time.time_ns(), os.path.join(out_dir, "files"), {}
    for rel, data in files.items():
        path = os.path.join(folder, rel)
        digest = hashlib.sha1(data).hexdigest()  # noqa: S324 - a change detector
        seen = _regular_stat(path, digest)
        if seen is None or seen[0] != len(data) or last.get(rel) != seen:
            write_if_changed(Path(path), data)
            seen = _regular_stat(path, digest)
        if seen is not None and now - seen[1] > RACY_NS:
            written[rel] = seen
    write_if_changed(record, json.dumps(written, sort_keys=True).encode("utf-8"))
    write_if_changed(out_dir / manifest, json.dumps(sorted(files)).encode("utf-8"))


def _regular_stat(path: str, digest: str) -> list | None:
    """[size, mtime, inode, ``digest``] of the regular file at ``path`` (not through a link), else None."""
    try:
        seen = os.lstat(path)
    except OSError:
        return None
    return [seen.st_size, seen.st_mtime_ns, seen.st_ino, digest] if stat.S_ISREG(seen.st_mode) else None


def _site_file(site_dir: Path, rel: str) -> Path | None:
    """``site_dir / rel`` when that is a place inside the site (the list of copied files is read back
    from build/, which anyone can edit: a damaged one must not remove a file elsewhere, through
    ``..`` or a linked folder), else None."""
    if not rel or rel.startswith("/") or ".." in rel.split("/"):
        return None
    path = site_dir / rel
    return path if path.parent.resolve().is_relative_to(site_dir.resolve()) else None


def _remove_other_shards(site_dir: Path, copied: set[str]) -> None:
    """Citation and fix shards of an earlier build that this one did not write (their cuts follow
    the slugs: ``exports.shard_starts``): a build that reuses the engine's output keeps the site's
    files, and would otherwise keep them."""
    from generator.site.exports import EXPORTS_FILE, SHARD_DIRS

    if EXPORTS_FILE not in copied:
        return  # this build wrote no citations (a worker that did not run): nothing to judge by
    for folder in SHARD_DIRS:
        place = _site_file(site_dir, folder)
        if place is None or place.is_symlink():  # a folder linked out of the site is none of ours to empty
            continue
        try:  # the entries' types from the listing: no stat of each of ~2,800 files at 11,672 papers
            with os.scandir(place) as entries:
                stray = sorted(entry.path for entry in entries
                               if f"{folder}/{entry.name}" not in copied and entry.is_file())
        except OSError:  # no such folder (yet)
            continue
        for path in stray:
            os.unlink(path)




def own_shell(page_text: str) -> tuple[str, str]:
    """A generated index page (Markdown whose body is raw HTML) as (the page the engine renders:
    its front matter and SHELL_BODY in place of the body; the body).

    The engine then handles a few bytes instead of a whole list (the papers index is 7.9 MB at
    11,672 papers: 1.5 s of Python-Markdown alone), and an edit that changes only bodies leaves
    the engine nothing to do (``reuse_engine_output``)."""
    _, front, body = page_text.split("---\n", 2)
    return f"---\n{front}---\n\n{SHELL_BODY}\n", body.strip()


def bodies_files(bodies: list[list[str]]) -> tuple[bytes, bytes]:
    """BODIES and BODIES_INDEX of the index pages' ``[page URL, body]``: each body as it is (UTF-8) after a line
    naming its page and its length (``_whole_bodies`` reads the file without its index), and where each body lies
    with its hash, so that ``fill_bodies`` reads only the bodies of the pages it fills again. Not a line of JSON a
    page: encoding and decoding the 18 MB of the index pages' bodies so was ~0.1 CPU s of every edit at 11,672 papers."""
    from generator.site.memo import content_hash

    parts: list[bytes] = []
    rows = []
    offset = 0
    for url, body in bodies:
        data = body.encode("utf-8", "surrogatepass")
        head = json.dumps([url, len(data)], ensure_ascii=False).encode("utf-8") + b"\n"
        offset += len(head)
        parts += (head, data, b"\n")
        rows.append([url, offset, len(data), content_hash(data)])
        offset += len(data) + 1
    return b"".join(parts), json.dumps({"size": offset, "rows": rows}, ensure_ascii=False).encode("utf-8")


def _body_index(config: ProjectConfig) -> list[tuple[str, tuple[int, int, str]]] | None:
    """BODIES_INDEX's rows, (url, (offset, length, body hash)), if it describes BODIES as it is; else None."""
    folder = data_dir(config)
    try:
        index = json.loads(read_regular(folder / BODIES_INDEX))
        if index["size"] != (folder / BODIES).stat().st_size:
            return None
        rows = [(row[0], (row[1], row[2], row[3])) for row in index["rows"] if len(row) == 4]
        if len(rows) != len(index["rows"]):
            return None
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return None
    if not all(isinstance(u, str) and isinstance(s, int) and isinstance(n, int) and isinstance(d, str) for u, (s, n, d) in rows):
        return None
    return rows


def _whole_bodies(path: Path) -> list[tuple[str, str, str]]:
    """Every (url, body hash, body) of BODIES, read whole, each body after the line that names it."""
    from generator.site.memo import content_hash

    data = read_regular(path)
    found = []
    at = 0
    while at < len(data):
        end = data.find(b"\n", at)
        try:
            url, size = json.loads(data[at:end]) if end >= 0 else (None, None)
            if not (isinstance(url, str) and type(size) is int and size >= 0):
                raise ValueError("not a body's line")
            body = data[end + 1 : end + 1 + size]
            if len(body) != size or data[end + 1 + size : end + 2 + size] != b"\n":
                raise ValueError("not a body")
            found.append((url, content_hash(body), body.decode("utf-8", "surrogatepass")))
        except (ValueError, TypeError, RecursionError):
            line = data.count(b"\n", 0, at) + 1
            raise PapersiteError(f"{path}:{line}: staged page data is not a page body; build again") from None
        at = end + 2 + size
    return found


@contextmanager
def _bodies(config: ProjectConfig) -> Iterator[list[tuple[str, str, Callable[[], str]]]]:
    """Each index page's (url, its body's hash, a reader of its body): the body is read only if the page
    is filled again. A body that is not as the index says (a damaged build dir) falls back to reading
    BODIES whole."""
    from generator.site.memo import kept_line, mapped

    path = data_dir(config) / BODIES
    index = _body_index(config)
    if index is None:
        yield [(url, digest, partial(str, body)) for url, digest, body in _whole_bodies(path)]
        return
    whole: dict[str, str] = {}

    def body_of(kept, url: str, where: tuple[int, int, str]) -> str:  # noqa: ANN001 (memo.mapped)
        body = kept_line(kept, where)
        if body is not None:
            return body.decode("utf-8", "surrogatepass")
        if not whole:
            whole.update((u, body) for u, _, body in _whole_bodies(path))
        if url not in whole:
            raise PapersiteError(f"{path}:1: staged page data changed since the stage wrote it; build again")
        return whole[url]

    with mapped(path) as kept:
        yield [(url, where[2], partial(body_of, kept, url, where)) for url, where in index]


def _engine_output(config: ProjectConfig, site_file: Path, rel: str, mark: str, unmarked: bool = False, ours: bool = False) -> str:
    """What the engine rendered at ``rel``: the site's file while it holds ``mark`` (this build's
    engine run wrote it; a copy is kept under ``rendered/``), else the copy kept from the last run
    (the engine did not run, or did not render this page again). ``unmarked``: with no copy kept,
    the site's file is the engine's even without the mark (a sitemap without a site URL is empty).
    ``ours``: the site's file is as this step last wrote it (its stat), no rendering: not read."""
    kept = data_dir(config) / RENDERED_DIR / rel
    try:
        text = None if ours and kept.is_file() else read_regular_text(site_file)
    except OSError:
        text = None
    if text is not None and (mark in text or (unmarked and not kept.is_file())):
        kept.parent.mkdir(parents=True, exist_ok=True)
        if not kept.is_file() or read_regular_text(kept) != text:
            clear_the_way(kept)
            kept.write_text(text, encoding="utf-8")
        return text
    try:
        return read_regular_text(kept)
    except OSError:
        raise PapersiteError(
            f"{site_file}: the engine did not write this page and no earlier rendering of it is kept; "
            "is it excluded in mkdocs.yml? (`papersite build --clean` renders everything again)"
        ) from None


def reuse_engine_output(config: ProjectConfig, site_dir: Path) -> bool:
    """True when the post-build step holds the engine's rendering of every page it fills from
    (shells, index pages, the sitemap): a build whose docs dir is unchanged needs no engine run."""
    kept = data_dir(config) / RENDERED_DIR
    needed = [f"{shell_url(s)}index.html" for s in SHELL_SECTIONS if (data_dir(config) / f"{s}.json").exists()]
    index = _body_index(config)
    try:
        urls = [url for url, _ in index] if index is not None else [url for url, _, _ in _whole_bodies(data_dir(config) / BODIES)]
    except OSError:
        urls = []
    except PapersiteError:
        return False
    needed += [f"{url}index.html" for url in urls]
    if (Path(site_dir) / "sitemap.xml").exists():
        needed.append("sitemap.xml")
        if (Path(site_dir) / "sitemap.xml.gz").exists():  # MkDocs writes one; Zensical does not
            needed.append("sitemap.xml.gz")
    return Path(site_dir).is_dir() and all((kept / rel).is_file() for rel in needed)


def fill_bodies(config: ProjectConfig, site_dir: Path, chrome: SharedChrome | None = None) -> int:
    """Put each index page's body in place of SHELL_BODY in the page the engine wrote for it.

    A page whose site file is as this step last wrote it (its stat), filled from the same rendering
    (the kept copy's stat, ``_engine_output``), body (its hash) and shared chrome, is not
    read again: a build that runs no engine reads the bodies an edit changed, not the 20 MB of the
    index pages at 11,672 papers. The engine renders every index page it runs for (``incremental.py``),
    which changes the page's stat: each is then filled again."""
    from generator.site.memo import Memo

    if not (data_dir(config) / BODIES).exists():
        return 0
    site_dir = Path(site_dir)
    memo = Memo(config, FILLED_BODIES, scope=str(site_dir.resolve()), versioned=False)
    memo.forget()  # until this step completes
    filled = 0
    made: set[Path] = set()  # the site's folders the pages go in, made (never through a link) once
    with _bodies(config) as rows:
        for url, body_hash, body_of in rows:
            target = site_dir / url / "index.html"
            kept = data_dir(config) / RENDERED_DIR / f"{url}index.html"
            stamp = _stamp(target)
            if stamp and (chrome is None or chrome.parts is not None):  # else this page may give the site's shared parts
                if memo.get(url, _body_made_from(body_hash, kept, chrome)) == stamp:
                    continue
            last = memo.old.get(url)
            ours = bool(stamp) and isinstance(last, tuple) and len(last) == 2 and last[1] == stamp
            text = minify_page(_engine_output(config, target, f"{url}index.html", SHELL_BODY, ours=ours))
            if chrome is not None:
                text = chrome.share(text, url)
            marks = text.count(SHELL_BODY)
            if marks != 1:
                raise PapersiteError(f"{target}: the page holds its body's marker {SHELL_BODY!r} {marks} times; "
                                     "did the theme or a Markdown extension change how raw HTML is written?")
            page = text.replace(SHELL_BODY, body_of()).encode("utf-8")
            if write_if_changed(target, page, site_dir, made):
                filled += 1
            memo.put(url, _body_made_from(body_hash, kept, chrome), _stamp(target))
    memo.changed = True  # saved even if every page was kept: forget() removed the file
    memo.save()
    return filled


def _body_made_from(body_hash: str, kept: Path, chrome: SharedChrome | None) -> str:
    """What an index page is filled from: its body's hash, the engine's rendering kept, the shared chrome."""
    parts = "" if chrome is None else repr(chrome.parts)
    return hashlib.sha1(f"{body_hash}\0{_stamp(kept)}\0{parts}".encode("utf-8", "surrogatepass")).hexdigest()  # noqa: S324


def run_postbuild(config: ProjectConfig, site_dir: Path, pending=None, shown: dict[str, str] | None = None,  # noqa: ANN001 (stage.Pending)
                  rows: dict[str, RowsWritten] | None = None, engine_skipped: bool = False) -> int:
    """The whole step: fill the shells and the index pages, then wait for the stage's worker (if any)
    and copy its files. In that order: no page reads the worker's files, and an edit's search index
    is often still being made when the engine ends (the pages are filled meanwhile). ``shown``: the
    pages the stage wrote first (``write_first``). ``engine_skipped``: the build ran no engine (``copy_deferred``)."""
    chrome = SharedChrome()
    written = fill_shells(config, site_dir, chrome, shown, rows) + fill_bodies(config, site_dir, chrome)
    written += write_chrome(site_dir, chrome) + write_stylesheet(site_dir) + write_bundles(site_dir)
    if pending is not None:
        pending.wait()
    return written + copy_deferred(config, site_dir, site_as_left=engine_skipped)


def write_chrome(site_dir: Path, chrome: SharedChrome) -> int:
    """The detail pages' shared chrome script (``chrome.py``), or none where no page uses it."""
    target = Path(site_dir) / CHROME_SCRIPT
    script = chrome.script()
    if script is not None:
        return write_if_changed(target, script, Path(site_dir))
    if target.is_file():
        target.unlink()
    return 0
