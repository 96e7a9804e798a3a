"""The detail pages' shared chrome: the header (logo, site name, search toggle and button, and the
repository link of paper pages), the section tabs and the back-to-top button, written once in
``assets/papersite/chrome.js`` instead of on each of ~48k pages (issue 31).

Why: on a generated detail page (paper, author, keyword, topic) drawn without Material's script
(``templates/partials/ps-light.html``) these parts are the same bytes on every page but for
their relative links and which tab is the page's own: ~1 KB of each page after minifying (the
header alone 0.35 KB, 0.67 KB with a paper page's repository link), ~50 MB of a 12k-paper site.
The post-build step cuts them out of each page it fills (``SharedChrome.share``) and puts one
small blocking ``<script src=…/chrome.js>`` where the tabs stood, first in the page's container;
the script writes the header back before the container, where it stood, and the tabs where it
stands, while the page is still being parsed: nothing of the page has been parsed before it but
the container's opening, so nothing is laid out, let alone painted, before the chrome is in
place, and the page looks, reads and tabs through as before. The script finds the site's root
from its own ``src`` (right at any depth and under any base path) and marks the tab of the section
the page's URL is in, as ``partials/ps-tabs.html`` does; a ``data-end`` on its tag says the page's
header ends with the site's repository link (``partials/ps-header.html``: paper pages only). The
back-to-top button (hidden until a script shows it: 65 B of each page, 3 MB at 12k papers) goes
back at the end of ``<main>``, where it stood, once the page is parsed and before papersite.js
looks for it.

Without scripts a reader keeps, where the header stood, a ``<noscript>`` link home named after the
site as the header named it (still escaped: it is the header's own text), and the breadcrumbs;
the tabs, the search (which needs scripts anyway), and the repository link of paper pages (each
keeps its "Edit this page" link into the repository, and the home page has the link) are the
scripted reader's. A ``<noscript>`` rather than a crumb: with scripts on it is not rendered, so the
page looks as it did; a crumb would add a line to every page each reader sees.

What is cut is whatever the theme rendered there (a project's own ``ps-header.html`` or
``ps-tabs.html`` included), with its links made relative to the site's root: a page whose
parts differ from the site's (another template) keeps its own.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, replace

from generator.site.scripts import shipped_script

SCRIPT = "assets/papersite/chrome.js"  # from the site's root

# The parts, as minify_page writes them on a page drawn without Material's script.
_TOGGLE = re.compile(r"<input\b[^>]*\bdata-md-toggle=[\"']?search[\"']?[^>]*>(?=<header\b)")
_SEARCH = re.compile(r"<label\b[^>]*\bfor=[\"']?__search[\"']?[^>]*>.*?</label><div\b[^>]*\bdata-ps-search\b[^>]*></div>", re.DOTALL)
_TABS = re.compile(r"<nav\b[^>]*\bclass=[\"']?md-tabs ps-tabs[\"']?[^>]*>.*?</nav>", re.DOTALL)
# the back-to-top button: the last thing in the page's one <main> (Material's partials/top.html)
_TOP = re.compile(r"<button\b[^>]*\bclass=[\"']?md-top md-icon[\"']?[^>]*>.*?</button>(?=</main>)", re.DOTALL)
_HEADER = re.compile(r"<header\b[^>]*\bclass=[\"']?md-header[\"']?[^>]*>.*?(</nav></header>)", re.DOTALL)
_CONTAINER = re.compile(r"<div\b[^>]*\bclass=[\"']?md-container[\"']?[^>]*>")
_ICON = re.compile(r"<link\b[^>]*\brel=[\"']?icon[\"']?[^>]*>")  # the site's icon, in <head>
_LOGO = re.compile(r"<a\b[^>]*\bclass=[\"']?md-header__button md-logo[\"']?[^>]*>")
_MAIN = re.compile(r"<main\b[^>]*\bclass=[\"']?md-main[\"']?[^>]*>")
_TITLE = re.compile(r"<div\b[^>]*\bclass=[\"']?md-header__title ps-site[\"']?[^>]*>.*?</div>", re.DOTALL)
_MATERIAL_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=[\"']?[^\"'\s>]*assets/javascripts/bundle\.")
_LINK = re.compile(r"""(\b(?:href|src)=)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""")
_ON = re.compile(r"""<li class=["']?ps-on["']?>""")
ROOT_MARK = "\u0001"  # in the script's copy of the parts: where the site's root goes
# Material's three boxes around a page's article (base.html, as minify_page writes it): the grid, a
# flex row for sidebars these pages have none of, and the content's. A page whose chrome is shared
# keeps only its article, which papersite.css (.ps-page) lays out as the three did: 80 B of each
# of ~48k pages. A page whose template put anything else there (a sidebar) keeps them.
_WRAPPED = '<main class=md-main><div class="md-main__inner md-grid"><div class=md-content><article class="md-content__inner md-typeset">'
_UNWRAPPED = '<main class=md-main><article class="md-typeset ps-page">'
_WRAPPED_END = re.compile(r"</article></div></div>(?=(?:<button\b[^>]*>.*?</button>)?</main>)", re.DOTALL)


@dataclass(frozen=True)
class Parts:
    header: str  # the search toggle and the header after it, without its end part (below)
    end_at: int  # where in ``header`` a page's end part goes
    tabs: str  # the tabs (where the script stands)
    top: str = ""  # the back-to-top button (the end of <main>); none where the theme has none
    end: str = ""  # the header's end after the search (the repository link: paper pages only), or none
    icon: str = ""  # the site's icon link (in <head>: the script adds it there), or none


def _rooted(html: str, page_url: str) -> str:
    """``html`` with each relative link made relative to the site's root, after ROOT_MARK."""
    def link(match: re.Match) -> str:
        value = next(v for v in match.groups()[1:] if v is not None)
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|/|#", value):
            return match.group(0)  # absolute, rooted at the host, or on this page: the same everywhere
        path, hash_mark, fragment = value.partition("#")
        rooted = posixpath.normpath(posixpath.join("/", page_url, path)).lstrip("/")
        if rooted == ".":
            rooted = ""
        if rooted and (path.endswith("/") or path in ("", ".", "..") or path.endswith("/..")):
            rooted += "/"
        return f'{match.group(1)}"{ROOT_MARK}{rooted}{hash_mark}{fragment}"'

    return _LINK.sub(link, html)


@dataclass(frozen=True)
class Found:
    parts: Parts
    spans: list[tuple[int, int]]  # the header (with the toggle before it), the tabs, the button if cut
    home: str  # what stands where the header stood: the link home for readers without scripts
    icon: tuple[int, int] | None = None  # where the icon link stood, if cut


def parts_of(text: str, page_url: str) -> Found | None:
    """The shared parts of a page at ``page_url`` (its links rooted, the tab mark taken out), and
    where they stand in ``text``; None where the page has not all of them, or loads Material's script."""
    if _MATERIAL_SCRIPT.search(text):
        return None
    toggle, header, search, tabs = (pattern.search(text) for pattern in (_TOGGLE, _HEADER, _SEARCH, _TABS))
    if not (toggle and header and search and tabs) or text.count("<header") != 1:
        return None
    # the toggle, the header holding the search, and right after it the container the tabs begin
    if not (toggle.end() == header.start() < search.start() < search.end() <= header.start(1)
            and _CONTAINER.fullmatch(text, header.end(), tabs.start())):
        return None
    titles = [title for title in _TITLE.finditer(text, header.start(), search.start()) if title.end() == search.start()]
    if not titles:
        return None
    end = text[search.end():header.start(1)]  # between the search and </nav></header>
    lead = text[toggle.start():search.end()]
    parts = Parts(_rooted(lead + text[header.start(1):header.end()], page_url), len(_rooted(lead, page_url)),
                  _ON.sub("<li>", _rooted(tabs.group(0), page_url)), end=_rooted(end, page_url))
    spans = [(toggle.start(), header.end()), tabs.span()]
    top = _TOP.search(text, tabs.end())
    mains = list(_MAIN.finditer(text))
    if top and len(mains) == 1 and text.count("<main") == 1 and mains[0].end() <= top.start() and text.count("</main>") == 1:
        spans.append(top.span())
        parts = replace(parts, top=_rooted(top.group(0), page_url))
    # the site's name as the header shows it (still escaped), linked where the logo links
    name = re.sub(r"<[^>]*>", "", titles[-1].group(0)).strip()
    logo = _LOGO.search(text, header.start(), header.end())
    href = logo and _LINK.search(logo.group(0))
    home = f"<noscript><a class=ps-homebar {href.group(0) if href else 'href=' + ('../' * page_url.count('/') or './')}>{name}</a></noscript>"
    # the icon link (53 B of each of ~48k pages): a reader without scripts gets the host's /favicon.ico, if any
    icons = list(_ICON.finditer(text, 0, max(0, text.find("<body"))))
    if len(icons) == 1:
        return Found(replace(parts, icon=_rooted(icons[0].group(0), page_url)), spans, home, icons[0].span())
    return Found(parts, spans, home)


def script_tag(page_url: str, end: bool = False) -> str:
    """The script's tag on a page at ``page_url``; ``end``: the page's header has the site's end part."""
    depth = page_url.count("/")
    return f"<script src={'../' * depth}{SCRIPT}{' data-end' if end else ''}></script>"


def script_text(parts: Parts) -> str:
    """``chrome.js``: the parts written back where they stood, as the page is parsed."""
    data = json.dumps([parts.header, parts.end_at, parts.tabs, parts.top, parts.end, parts.icon], ensure_ascii=True)
    return f"""/* papersite: the header (with the search toggle and button), the section tabs and the
   back-to-top button of the detail pages, written here once rather than on every page
   (generator/site/chrome.py). It runs where the tabs stand, first in the page's container, while the
   page is parsed: the header goes back before the container, where it stood, and the tabs where the
   script stands, before anything below them is laid out; the site's icon into <head>; the back-to-top
   button (hidden) once <main> is parsed, before papersite.js, which shows it, looks for it (its
   listener comes later). */
(function (me, parts) {{
  var src = me.getAttribute("src");
  var root = src.slice(0, src.length - {json.dumps(SCRIPT)}.length) || "./";
  var at = function (html) {{ return html.split({json.dumps(ROOT_MARK)}).join(root); }};
  var box = me.parentNode;
  if (!box || document.querySelector(".md-header")) return;
  // the header's end part (the repository link) where the page's header had it
  var header = parts[0].slice(0, parts[1]) + (me.hasAttribute("data-end") ? parts[4] : "") + parts[0].slice(parts[1]);
  box.insertAdjacentHTML("beforebegin", at(header));
  if (parts[5] && document.head) document.head.insertAdjacentHTML("beforeend", at(parts[5]));
  me.insertAdjacentHTML("beforebegin", at(parts[2]));
  // the page's own section, as partials/ps-tabs.html marks it: the tab whose URL the page's is under
  var base = new URL(root, location.href).href;
  var here = location.href.slice(base.length);
  var tabs = me.previousElementSibling.querySelectorAll("li > a");
  for (var i = 0; i < tabs.length; i++) {{
    var section = tabs[i].href.slice(base.length);
    if (tabs[i].href.indexOf(base) === 0 && section && here.indexOf(section) === 0) tabs[i].parentNode.className = "ps-on";
  }}
  if (parts[3]) document.addEventListener("DOMContentLoaded", function () {{
    var main = document.querySelector(".md-main");
    if (main) main.insertAdjacentHTML("beforeend", at(parts[3]));
  }});
}})(document.currentScript, {data});
"""


def unwrapped(text: str) -> str:
    """``text`` with its article out of Material's boxes around it (``_WRAPPED``), where it has
    them once and they hold nothing but the article."""
    ends = list(_WRAPPED_END.finditer(text))
    if text.count(_WRAPPED) != 1 or text.count("<main") != 1 or len(ends) != 1 or ends[0].start() < text.index(_WRAPPED):
        return text
    end = ends[0]
    return text[:end.start()].replace(_WRAPPED, _UNWRAPPED) + "</article>" + text[end.end():]


class SharedChrome:
    """The site's shared parts: those of the first page offered (the post-build step offers the
    paper shell first), and every page whose parts are the same, cut."""

    def __init__(self) -> None:
        self.parts: Parts | None = None

    def share(self, text: str, page_url: str) -> str:
        """``text`` (the page at ``page_url``) with its shared parts cut, if it has the site's."""
        found = parts_of(text, page_url)
        if found is None:
            return text
        parts = found.parts
        if self.parts is None:
            self.parts = parts
        elif replace(parts, end="") != replace(self.parts, end=""):
            return text
        if parts.end:  # the site's end part: the first page's that has one (every paper page's)
            if not self.parts.end:
                self.parts = replace(self.parts, end=parts.end)
            elif parts.end != self.parts.end:
                return text
        (header_at, header_end), (tabs_at, tabs_end) = found.spans[:2]
        rest = text[tabs_end:]
        if parts.top:
            top_at, top_end = found.spans[2]
            rest = text[tabs_end:top_at] + text[top_end:]
        lead = text[:header_at]
        if found.icon is not None:
            lead = text[:found.icon[0]] + text[found.icon[1]:header_at]
        return (lead + found.home + text[header_end:tabs_at]
                + script_tag(page_url, bool(parts.end)) + unwrapped(rest))

    def script(self) -> bytes | None:
        return None if self.parts is None else shipped_script(script_text(self.parts).encode("utf-8"))
