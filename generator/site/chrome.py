"""The detail pages' shared chrome: the header's search toggle and button, the section tabs and
the back-to-top button, written once in ``assets/papersite/chrome.js`` instead of on each of ~48k pages (issue 31).

Why: on a generated detail page (paper, author, keyword, topic) drawn without Material's script
(``templates/partials/ps-light.html``) these parts are the same bytes on every page but for
their relative links and which tab is the page's own: ~0.75 KB of each page after minifying,
~35 MB of a 12k-paper site. The post-build step cuts them out of each page it fills
(``SharedChrome.share``) and puts one small blocking ``<script src=…/chrome.js>`` where the
tabs stood; the script writes the parts back where they were while the page is still being
parsed, before anything below it is laid out, so the page looks, reads and tabs through as
before. The script finds the site's root from its own ``src`` (right at any depth and under any
base path) and marks the tab of the section the page's URL is in, as ``partials/ps-tabs.html``
does. The back-to-top button (hidden until a script shows it: 65 B of each page, 3 MB at 12k
papers) goes back at the end of ``<main>``, where it stood, once the page is parsed and before
papersite.js looks for it. Without scripts a reader keeps the home link (the logo, named after
the site) and the breadcrumbs, and loses the tabs and the search button (the search needs scripts
anyway) and nothing else: the back-to-top button never showed without them.

What is cut is whatever the theme rendered there (a project's own ``ps-header.html`` or
``ps-tabs.html`` included), with its links made relative to the site's root: a page whose
parts differ from the site's (another template) keeps its own.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass

SCRIPT = "assets/papersite/chrome.js"  # from the site's root

# The parts, as minify_page writes them on a page drawn without Material's script.
_TOGGLE = re.compile(r"<input\b[^>]*\bdata-md-toggle=[\"']?search[\"']?[^>]*>(?=<header\b)")
_SEARCH = re.compile(r"<label\b[^>]*\bfor=[\"']?__search[\"']?[^>]*>.*?</label><div\b[^>]*\bdata-ps-search\b[^>]*></div>", re.DOTALL)
_TABS = re.compile(r"<nav\b[^>]*\bclass=[\"']?md-tabs ps-tabs[\"']?[^>]*>.*?</nav>", re.DOTALL)
# the back-to-top button: the last thing in the page's one <main> (Material's partials/top.html)
_TOP = re.compile(r"<button\b[^>]*\bclass=[\"']?md-top md-icon[\"']?[^>]*>.*?</button>(?=</main>)", re.DOTALL)
_MAIN = re.compile(r"<main\b[^>]*\bclass=[\"']?md-main[\"']?[^>]*>")
_TITLE = re.compile(r"<div\b[^>]*\bclass=[\"']?md-header__title ps-site[\"']?[^>]*>.*?</div>", re.DOTALL)
_MATERIAL_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=[\"']?[^\"'\s>]*assets/javascripts/bundle\.")
_LINK = re.compile(r"""(\b(?:href|src)=)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""")
_ON = re.compile(r"""<li class=["']?ps-on["']?>""")
ROOT_MARK = "\u0001"  # in the script's copy of the parts: where the site's root goes


@dataclass(frozen=True)
class Parts:
    toggle: str  # the search toggle (before <header>)
    search: str  # the search button and the search box's slot (after the site title)
    tabs: str  # the tabs (where the script stands)
    top: str = ""  # the back-to-top button (the end of <main>); none where the theme has none


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


def parts_of(text: str, page_url: str) -> tuple[Parts, list[tuple[int, int]]] | None:
    """The shared parts of a page at ``page_url`` (its links rooted, the tab mark taken out), and
    where they stand in ``text``; None where the page has not all of them, or loads Material's script."""
    if _MATERIAL_SCRIPT.search(text):
        return None
    found = [pattern.search(text) for pattern in (_TOGGLE, _SEARCH, _TABS)]
    if any(match is None for match in found) or not found[0].end() <= found[1].start() < found[2].start():
        return None
    # the search button goes back right after the site's title, where the header has it
    if not any(title.end() == found[1].start() for title in _TITLE.finditer(text, found[0].end(), found[1].start())):
        return None
    toggle, search, tabs = (match.group(0) for match in found)
    spans = [match.span() for match in found]
    top = _TOP.search(text, found[2].end())
    mains = list(_MAIN.finditer(text))
    if top and len(mains) == 1 and text.count("<main") == 1 and mains[0].end() <= top.start() and text.count("</main>") == 1:
        spans.append(top.span())
    else:
        top = None  # where the script could not tell where it stood, it stays
    parts = Parts(toggle, _rooted(search, page_url), _ON.sub("<li>", _rooted(tabs, page_url)), _rooted(top.group(0), page_url) if top else "")
    return parts, spans


def script_tag(page_url: str) -> str:
    depth = page_url.count("/")
    return f"<script src={'../' * depth}{SCRIPT}></script>"


def script_text(parts: Parts) -> str:
    """``chrome.js``: the parts written back where they stood, as the page is parsed."""
    data = json.dumps([parts.toggle, parts.search, parts.tabs, parts.top], ensure_ascii=True)
    return f"""/* papersite: the search toggle and button, the section tabs and the back-to-top button of the
   detail pages, written here once rather than on every page (generator/site/chrome.py). It runs
   where the tabs stand, while the page is parsed: the parts are in place before anything below
   them is laid out; the back-to-top button (hidden) once <main> is parsed, before papersite.js,
   which shows it, looks for it (its listener comes later). */
(function (me, parts) {{
  var src = me.getAttribute("src");
  var root = src.slice(0, src.length - {json.dumps(SCRIPT)}.length) || "./";
  var at = function (html) {{ return html.split({json.dumps(ROOT_MARK)}).join(root); }};
  var header = document.querySelector(".md-header");
  var title = header && header.querySelector(".ps-site");
  if (!title) return;
  header.insertAdjacentHTML("beforebegin", at(parts[0]));
  title.insertAdjacentHTML("afterend", at(parts[1]));
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
        parts, spans = found
        if self.parts is None:
            self.parts = parts
        elif parts != self.parts:
            return text
        (toggle_at, toggle_end), (search_at, search_end), (tabs_at, tabs_end) = spans[:3]
        rest = text[tabs_end:]
        if parts.top:
            top_at, top_end = spans[3]
            rest = text[tabs_end:top_at] + text[top_end:]
        return (text[:toggle_at] + text[toggle_end:search_at] + text[search_end:tabs_at]
                + script_tag(page_url) + rest)

    def script(self) -> bytes | None:
        return None if self.parts is None else script_text(self.parts).encode("utf-8")
