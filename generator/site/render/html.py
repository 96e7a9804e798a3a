"""Small HTML builders shared by the page renderers; every text argument is escaped here.

Generated pages are Markdown files whose content is raw HTML blocks, so listing
text never meets the Markdown parser: ``*``, ``[x](y)``, ``{{ }}`` in a title stay
literal. A raw block must not contain a blank line (it would end the block), so
``block`` joins its parts with single newlines.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

from generator import layout
from generator.text import BIDI_CONTROL, C0_C1_CONTROL


# Never written raw into a page: C0/C1 controls (NUL, ESC...; tab and newline
# are kept) become U+FFFD, bidi controls (which reorder what a reader sees and
# hide text in the source) become character references. Both lists are text.py's.
_CONTROL = C0_C1_CONTROL
_BIDI = BIDI_CONTROL
_UNSAFE_CHAR = re.compile(f"{C0_C1_CONTROL.pattern}|{BIDI_CONTROL.pattern}")


def neutral_chars(text: str) -> str:
    if _UNSAFE_CHAR.search(text) is None:  # the common case: one scan at C speed
        return text
    return _BIDI.sub(lambda m: f"&#x{ord(m.group(0)):x};", _CONTROL.sub("\ufffd", text))


def plain_chars(text: str) -> str:
    """For values a template escapes itself (meta tags): controls become U+FFFD, bidi controls go."""
    if _UNSAFE_CHAR.search(text) is None:
        return text
    return _BIDI.sub("", _CONTROL.sub("\ufffd", text))


def esc(text: object) -> str:
    return neutral_chars(html.escape(str(text), quote=True))


# What an attribute value may hold without quotes (HTML's unquoted syntax): no ASCII space, no
# quote, ``=``, ``<``, ``>`` or backtick. Escaped first, so only spaces, ``=`` and backticks keep
# quotes; any other space (``\s`` also matches NBSP and the like) keeps them too, to be plain.
_BARE_VALUE = re.compile(r"[^\s\"'=<>`]+")


def attr(name: str, value: object) -> str:
    """`` name=value``, the value escaped and quoted only where HTML needs it: a paper's link
    appears in ~13 lists at 11,672 papers, so its quotes weigh ~1.6 MB across the site. An empty
    value is the name alone, which HTML reads as the same."""
    text = esc(value)
    if not text:
        return f" {name}"
    return f" {name}={text}" if _BARE_VALUE.fullmatch(text) else f' {name}="{text}"'


def link(href: str, text: str, cls: str | None = None, raw_text: bool = False) -> str:
    return f"<a{attr('href', href)}{attr('class', cls) if cls else ''}>{text if raw_text else esc(text)}</a>"


def out_link(url: str, text: str, attrs: dict[str, str] | None = None) -> str:
    """Outbound link, only for an http(s) URL; anything else is shown as text. ``rel=nofollow``, not
    ``noopener``: no link of the site opens a new window, the one case where noopener acts."""
    if not layout.is_web_url(url):
        return esc(text)
    more = "".join(attr(name, value) for name, value in (attrs or {}).items())
    return f"<a{attr('href', url.strip())}{more} rel=nofollow>{esc(text)}</a>"


def block(*parts: str) -> str:
    text = "\n".join(p for p in parts if p)
    return re.sub(r"\n\s*\n", "\n", text)


def plain_title(text: str) -> str:
    """A title safe to hand to the theme's own templates (page title, header, <title>).

    Themes print ``page.title`` unescaped, or after ``striptags`` which decodes
    entities; both would let markup in a listing title through. Lookalike
    characters keep the title readable there; the page's own <h1> shows it exactly.
    """
    text = " ".join(_BIDI.sub("", _CONTROL.sub("\ufffd", text)).split())
    text = text.replace("<", "‹").replace(">", "›")
    return re.sub(r"&(?=#?\w+;)", "＆", text)


def clip(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


def meta_text(text: str) -> str:
    """Plain text for a <meta> value that some theme template prints unescaped (Material's description).

    Like ``plain_title``, plus straight double quotes as typographic ones: nothing in it
    can end the attribute or open a tag, escaped or not.
    """
    return plain_title(text).replace('"', "”")


# What PyYAML refuses to read raw (outside its printable set), plus the BOM and
# the line separators YAML 1.1 treats as line breaks: written as \uXXXX escapes.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def _yaml_scalar(value: object) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # A JSON string is a YAML double-quoted scalar: JSON escapes are YAML escapes.
    text = json.dumps(str(value), ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _yaml_lines(value: object, indent: str) -> list[str]:
    """Block YAML of plain data (dicts, lists, strings, numbers, booleans)."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{indent}{key}:")
                lines.extend(_yaml_lines(item, indent + "  "))
            else:
                lines.append(f"{indent}{key}: {_yaml_scalar(item) if not isinstance(item, (dict, list)) else '{}' if isinstance(item, dict) else '[]'}")
    else:
        for item in value:  # a list
            if isinstance(item, (dict, list)) and item:
                inner = _yaml_lines(item, indent + "  ")
                lines.append(f"{indent}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
            else:
                lines.append(f"{indent}- {_yaml_scalar(item)}")
    return lines


def front_matter(data: dict) -> str:
    """YAML front matter for a generated page.

    Written directly rather than through PyYAML's representer, which took a
    quarter of the time of rendering a paper page (12k of them); strings are
    double-quoted with escapes so any text reads back exactly (tests check).
    """
    return "\n".join(_yaml_lines(data, "")) + "\n"


def page(front_matter_data: dict, body: str) -> str:
    return f"---\n{front_matter(front_matter_data)}---\n\n{body.strip()}\n"


@dataclass(frozen=True)
class DetailPage:
    """One paper, author or keyword page as the parts its shell is filled with.

    There are tens of thousands of these at 12k papers, so the stage does not
    hand each to the engine as Markdown: ``postbuild.py`` pours them into one
    page per section that the engine rendered (see docs/ARCHITECTURE.md).
    """

    url: str  # e.g. "authors/jane-doe/"
    title: str  # front-matter title: plain text, as ``plain_title`` makes it
    body: str  # HTML, every listing string escaped
    description: str = ""  # plain text as ``meta_text`` makes it; "" = the site's description
    head: str = ""  # the page's own <meta> tags, escaped (a paper's Google Scholar tags)
