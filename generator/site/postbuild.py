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
import struct
import zlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import minify_html

from generator import layout
from generator.problems import PapersiteError
from generator.config import ProjectConfig
from generator.site.chrome import SCRIPT as CHROME_SCRIPT, SharedChrome
from generator.site.render.html import esc

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
DEFERRED_COPIED = "deferred-copied.json"  # under DATA_DIR: the deferred files the last build put in the site
OLD_PAPER_ROWS_DIR = "papers"  # under DATA_DIR: a row file per paper page, as builds before one data file kept them
BODIES = "bodies.json"  # under DATA_DIR: [page URL, body] of each index page staged with SHELL_BODY
RENDERED_DIR = "rendered"  # under DATA_DIR: the engine's own rendering of each page filled here
FILLED = "filled"  # memo.py's kind: url -> what each page was filled from, and its hash: rewrite only what changed


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
    small = _UNQUOTED_MARK.sub(r'="\1"', without_idle_slots(minify_html.minify(chrome)))
    return small.replace(_KEPT_MARK, squeeze_html(article.group(1)).strip(), 1)


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
_PALETTE_CSS = re.compile(r"<link\b[^>]*\bhref=[\"']?[^\"'\s>]*assets/stylesheets/palette\.[0-9a-f]+\.min\.css[\"']?[^>]*>")


def without_default_palette(text: str) -> str:
    """``text`` (a page without Material's script) without the names of Material's default colours
    and palette.css, if its body names those colours and nothing else on it names one."""
    body = _DEFAULT_PALETTE.search(text)
    if body is None or "data-md-color-" in text[body.end():] or "data-md-color-" in text[: body.start()]:
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
    """Replace each shell's <url> entry in the engine's sitemap.xml by one entry per page, in page order.

    The engine's sitemap is compacted first (a few hundred entries), then each shell's one-line entry is
    repeated per page: ~48k pages at 11,672 papers cost a join, not a regex pass over 7 MB. The gzipped
    copy is compressed again only when the text differs from the one it holds (its trailer's CRC and
    size, and the engine's header time): an edit that adds or removes no page compresses nothing."""
    sitemap = site_dir / "sitemap.xml"
    if not sitemap.exists():
        return
    kept_gz = data_dir(config) / RENDERED_DIR / "sitemap.xml.gz"
    fresh = f"/{SHELL_SLUG}/" in sitemap.read_text(encoding="utf-8") or not kept_gz.exists()
    text = compact_sitemap(_engine_output(config, sitemap, "sitemap.xml", f"/{SHELL_SLUG}/", unmarked=True))
    compressed = site_dir / "sitemap.xml.gz"
    if fresh and compressed.exists():
        kept_gz.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(compressed, kept_gz)  # the engine's, for its header time
    for section, urls in filled.items():
        shell = shell_url(section)
        entry = re.search(r"<url>(?:(?!</url>).)*?" + re.escape(shell) + r".*?</url>\n", text, re.DOTALL)
        if entry is None:
            continue  # an engine that left the shell out of its sitemap: nothing to stand in for
        before, after = entry.group(0).split(shell, 1)
        if shell in after:  # the URL twice in one entry (an image's location): each replaced, as it was
            text = text[: entry.start()] + "".join(entry.group(0).replace(shell, url) for url in urls) + text[entry.end() :]
        else:
            text = text[: entry.start()] + "".join(f"{before}{url}{after}" for url in urls) + text[entry.end() :]
    data = text.encode("utf-8")
    write_if_changed(sitemap, data)
    if kept_gz.exists():
        # As MkDocs writes it, with the engine's own header time (the build date,
        # from SOURCE_DATE_EPOCH): rebuilds stay byte-identical.
        mtime = struct.unpack("<I", kept_gz.read_bytes()[4:8])[0]
        if _gzip_holds(compressed, data, mtime):
            return
        buffer = io.BytesIO()
        with gzip.GzipFile(fileobj=buffer, filename="sitemap.xml", mode="wb", mtime=mtime) as gz:
            gz.write(data)
        write_if_changed(compressed, buffer.getvalue())


_GZIP_HEADER = b"\x1f\x8b\x08\x08"  # what GzipFile writes before the header time: magic, deflate, a file name follows


def _gzip_holds(path: Path, data: bytes, mtime: int) -> bool:
    """Whether ``path`` is the gzip of ``data`` as ``_fill_sitemap`` writes it: the same header (magic,
    time, name) and, in its trailer, ``data``'s CRC-32 and size. Read from both ends, not decompressed."""
    head = _GZIP_HEADER + struct.pack("<I", mtime) + b"\x02\xff" + b"sitemap.xml\x00"
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    try:
        with path.open("rb") as file:
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


def write_if_changed(path: Path, data: bytes) -> int:
    """1 if ``path`` did not hold ``data`` and now does (a file, folder or link in its way is replaced)."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return 0
    except OSError:
        pass
    if path.is_symlink():  # replaced, never written through
        path.unlink()
    elif path.is_dir():
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
    try:
        if hashlib.sha1(target.read_bytes()).hexdigest() != digest:  # noqa: S324 - a change detector
            return
    except OSError:
        return
    target.unlink()
    parent = target.parent
    while parent != site_dir and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def fill_shells(config: ProjectConfig, site_dir: Path, chrome: SharedChrome | None = None) -> int:
    """Write every detail page of every staged section into ``site_dir``; returns how many changed.

    Each page is kept in the memo (``memo.py``) with what it was made from (a hash of its
    shell and its row) and the bytes written: a page made from the same shell and row
    that is still on disk is not filled again, and a page no longer staged is removed.
    An incremental build writes a handful of files and ends with the site a clean build gives.
    """
    from generator.site.memo import PAGE_SHARDS, Memo

    site_dir = Path(site_dir)
    written = 0
    filled: dict[str, list[str]] = {}
    # keyed on what each page is made of (its shell and row), not on the code; another site dir: nothing known
    memo = Memo(config, FILLED, scope=str(site_dir.resolve()), versioned=False, shards=PAGE_SHARDS)
    before = memo.old
    now = memo.new
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
        shell_key = hashlib.sha1(shell_text.encode("utf-8")).digest()  # noqa: S324 - a change detector
        made_dirs: set[Path] = set()
        urls = []
        root = f"{site_dir}{os.sep}"  # strings, not Paths, for the ~48k pages left as they are
        for url, source, row in _rows(config, section, data):
            urls.append(url)
            made_from = hashlib.sha1(shell_key + source).hexdigest()  # noqa: S324
            last = before.get(url)
            if isinstance(last, tuple) and last[0] == made_from and os.path.isfile(f"{root}{url}index.html"):
                now[url] = last
                continue
            target = site_dir / url / "index.html"
            page = shell.fill(*row()).encode("utf-8")
            digest = hashlib.sha1(page).hexdigest()  # noqa: S324 - a change detector, not security
            now[url] = (made_from, digest)
            if isinstance(last, tuple) and last[1] == digest and target.is_file():
                continue
            if target.parent not in made_dirs:
                target.parent.mkdir(parents=True, exist_ok=True)
                made_dirs.add(target.parent)
            target.write_bytes(page)
            written += 1
        filled[section] = urls
        shutil.rmtree(shell_dir, ignore_errors=True)
    for url in sorted(before.keys() - now.keys()):
        last = before[url]
        if isinstance(last, tuple) and len(last) == 2:
            _remove_page(site_dir, url, last[1])
    if filled:
        _fill_sitemap(config, site_dir, filled)
    memo.changed = True
    memo.save()
    return written


def _rows(config: ProjectConfig, section: str, data: Path):  # noqa: ANN202 - yields (url, line hash, () -> row)
    """The rows of a section's data file (one per line), each with its line's hash and a reader of
    the row itself, which reads and parses the line only if the page has to be filled again.

    The stage's memo says where each line is and its hash (``memo.kept_rows``): the file is not
    read whole (73 MB of lines at 11,672 papers) to find the handful of pages an edit changed."""
    from generator.site.memo import content_hash, kept_rows, mapped

    kept = kept_rows(config, section, data)
    if kept is not None:
        with mapped(data) as lines:
            for url, where in kept:
                yield url, where[2].encode(), partial(_kept_row_of, data, lines, where)
        return
    decoder = json.JSONDecoder()
    for line in data.read_bytes().splitlines(keepends=True):
        if not line.strip():
            continue
        try:
            url, _ = decoder.raw_decode(line.decode("utf-8", "surrogatepass"), 1)  # the URL only
        except ValueError as error:
            raise PapersiteError(f"{data}:1: staged page data unreadable ({error}); build again") from None
        yield url, content_hash(line).encode(), partial(_row_of, data, line)


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
    if not isinstance(row, list) or len(row) != len(PAGE_ROW):
        raise PapersiteError(f"{path}:1: staged page data is not a page row; build again")
    return row


def copy_deferred(config: ProjectConfig, site_dir: Path) -> int:
    """Copy the files the stage wrote after handing over to the engine (``deferred/``) into the site: those
    that differ from the site's (a title edit changes a few dozen of ~2,800 search files), and remove those
    the last build copied and this one does not write (an index with a shard fewer).

    What was copied is listed with the stat of both copies (``_stamp``): a file whose deferred copy and
    site copy are as they were when this step last made them equal is not read again (the stage writes a
    deferred file only where its bytes changed, ``write_deferred``), so an edit reads a few dozen files,
    not ~2,800 twice."""
    deferred = data_dir(config) / "deferred"
    names = [rel for manifest in sorted(deferred.glob("manifest*.json")) for rel in json.loads(manifest.read_text(encoding="utf-8"))]
    copied = data_dir(config) / DEFERRED_COPIED
    before, stamps = _copied_before(copied)
    site_dir = Path(site_dir)
    written = 0
    now: dict[str, list[int]] = {}
    for rel in names:
        source, target = deferred / "files" / rel, site_dir / rel
        stamp = _stamp(source) + _stamp(target)
        if len(stamp) == 6 and stamps.get(rel) == stamp:
            now[rel] = stamp
            continue
        written += write_if_changed(target, source.read_bytes())
        now[rel] = _stamp(source) + _stamp(target)
    for rel in sorted(before - set(names)):
        gone = _site_file(site_dir, rel)
        if gone is not None:
            gone.unlink(missing_ok=True)
    copied.write_text(json.dumps({"files": sorted(names), "stamps": dict(sorted(now.items()))}), encoding="utf-8")
    if names:
        _remove_other_shards(site_dir, set(names))
    return written


def _stamp(path: Path) -> list[int]:
    """What says a file was not written since: its size, mtime and ctime in nanoseconds ([] if none)."""
    try:
        stat = path.stat()
    except OSError:
        return []
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns] if path.is_file() else []


def _copied_before(copied: Path) -> tuple[set[str], dict[str, list[int]]]:
    """The files the last build copied, and their stamps (none from builds that kept a bare list, or a
    damaged file: every file is then compared byte for byte)."""
    try:
        listed = json.loads(copied.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set(), {}
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
        last = (out_dir / "files" / rel).read_bytes()
        if gzip.decompress(last) == data:
            return last
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
        pass
    return gzipped(data)


def write_deferred(out_dir: Path, files: dict[str, bytes], manifest: str = "manifest.json") -> None:
    """``files`` for ``copy_deferred`` to copy into the site, each written only where its bytes changed
    (its stat then tells ``copy_deferred`` it is as it was); each writer has its own ``manifest*.json``,
    so the search worker and the main process never share one."""
    for rel, data in files.items():
        write_if_changed(out_dir / "files" / rel, data)
    write_if_changed(out_dir / manifest, json.dumps(sorted(files)).encode("utf-8"))


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
        for path in sorted((site_dir / folder).glob("*")):
            if path.is_file() and f"{folder}/{path.name}" not in copied:
                path.unlink()




def own_shell(page_text: str) -> tuple[str, str]:
    """A generated index page (Markdown whose body is raw HTML) as (the page the engine renders:
    its front matter and SHELL_BODY in place of the body; the body).

    The engine then handles a few bytes instead of a whole list (the papers index is 7.9 MB at
    11,672 papers: 1.5 s of Python-Markdown alone), and an edit that changes only bodies leaves
    the engine nothing to do (``reuse_engine_output``)."""
    _, front, body = page_text.split("---\n", 2)
    return f"---\n{front}---\n\n{SHELL_BODY}\n", body.strip()


def _engine_output(config: ProjectConfig, site_file: Path, rel: str, mark: str, unmarked: bool = False) -> str:
    """What the engine rendered at ``rel``: the site's file while it holds ``mark`` (this build's
    engine run wrote it; a copy is kept under ``rendered/``), else the copy kept from the last run
    (the engine did not run, or did not render this page again). ``unmarked``: with no copy kept,
    the site's file is the engine's even without the mark (a sitemap without a site URL is empty)."""
    kept = data_dir(config) / RENDERED_DIR / rel
    try:
        text = site_file.read_text(encoding="utf-8")
    except OSError:
        text = None
    if text is not None and (mark in text or (unmarked and not kept.is_file())):
        kept.parent.mkdir(parents=True, exist_ok=True)
        if not kept.is_file() or kept.read_text(encoding="utf-8") != text:
            kept.write_text(text, encoding="utf-8")
        return text
    try:
        return kept.read_text(encoding="utf-8")
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
    try:
        needed += [f"{url}index.html" for url, _ in json.loads((data_dir(config) / BODIES).read_text(encoding="utf-8"))]
    except OSError:
        pass
    except ValueError:
        return False
    if (Path(site_dir) / "sitemap.xml").exists():
        needed += ["sitemap.xml", "sitemap.xml.gz"]
    return Path(site_dir).is_dir() and all((kept / rel).is_file() for rel in needed)


def fill_bodies(config: ProjectConfig, site_dir: Path, chrome: SharedChrome | None = None) -> int:
    """Put each index page's body in place of SHELL_BODY in the page the engine wrote for it."""
    data = data_dir(config) / BODIES
    if not data.exists():
        return 0
    filled = 0
    for url, body in json.loads(data.read_text(encoding="utf-8")):
        target = Path(site_dir) / url / "index.html"
        text = minify_page(_engine_output(config, target, f"{url}index.html", SHELL_BODY))
        if chrome is not None:
            text = chrome.share(text, url)
        marks = text.count(SHELL_BODY)
        if marks != 1:
            raise PapersiteError(f"{target}: the page holds its body's marker {SHELL_BODY!r} {marks} times; "
                                 "did the theme or a Markdown extension change how raw HTML is written?")
        page = text.replace(SHELL_BODY, body).encode("utf-8")
        if write_if_changed(target, page):
            filled += 1
    return filled


def run_postbuild(config: ProjectConfig, site_dir: Path, pending=None) -> int:  # noqa: ANN001 (stage.Pending)
    """The whole step: wait for the stage's worker (if any), copy its files, fill the shells and
    the index pages."""
    if pending is not None:
        pending.wait()
    copied = copy_deferred(config, site_dir)
    chrome = SharedChrome()
    written = fill_shells(config, site_dir, chrome) + fill_bodies(config, site_dir, chrome)
    return copied + written + write_chrome(site_dir, chrome)


def write_chrome(site_dir: Path, chrome: SharedChrome) -> int:
    """The detail pages' shared chrome script (``chrome.py``), or none where no page uses it."""
    target = Path(site_dir) / CHROME_SCRIPT
    script = chrome.script()
    if script is not None:
        return write_if_changed(target, script)
    if target.is_file():
        target.unlink()
    return 0
