"""Abstract text to safe HTML: LaTeX math becomes MathML at build time, the rest is escaped.

In: plain listing text with ``$..$``, ``$$..$$``, ``\\(..\\)`` or ``\\[..\\]`` math.
Out: an HTML fragment. Math that latex2mathml cannot read stays as literal
(escaped) text. latex2mathml copies ``\\text{..}`` verbatim into its output, so its
MathML is re-serialised through an allow-list: only MathML elements and
presentational attributes survive, text is escaped.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from html.parser import HTMLParser

from latex2mathml.converter import convert

_MATH = re.compile(
    r"\$\$(?P<d1>.+?)\$\$|\\\[(?P<d2>.+?)\\\]|\\\((?P<i1>.+?)\\\)|(?<![\\$\w])\$(?P<i2>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?![\d$])",
    re.DOTALL,
)

_SIZES = re.compile(r"\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge)\b\s*")

_ELEMENTS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "mfrac", "msqrt", "mroot", "mstyle", "merror", "mpadded", "mphantom", "mfenced",
    "menclose", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mlabeledtr",
    "mmultiscripts", "mprescripts", "none", "semantics", "annotation",
}
_ATTRIBUTES = {
    "xmlns", "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace",
    "largeop", "movablelimits", "accent", "accentunder", "linethickness", "columnalign",
    "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "notation",
    "width", "height", "depth", "minsize", "maxsize", "symmetric", "form", "open", "close",
    "separators", "scriptlevel", "displaystyle", "align", "encoding", "columnspan", "rowspan",
}


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _ELEMENTS:
            return
        kept = "".join(
            f' {name}="{html.escape(value or "", quote=True)}"'
            for name, value in attrs
            if name in _ATTRIBUTES and (name != "xmlns" or value == "http://www.w3.org/1998/Math/MathML")
        )
        self.out.append(f"<{tag}{kept}>")
        self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _ELEMENTS and tag in self.stack:
            while self.stack:
                open_tag = self.stack.pop()
                self.out.append(f"</{open_tag}>")
                if open_tag == tag:
                    break

    def handle_data(self, data: str) -> None:
        self.out.append(html.escape(data, quote=False))


def sanitize_mathml(markup: str) -> str:
    parser = _Sanitizer()
    parser.feed(markup)
    parser.close()
    parser.out.extend(f"</{tag}>" for tag in reversed(parser.stack))
    return "".join(parser.out)


@lru_cache(maxsize=1 << 14)
def latex_to_mathml(latex: str, display: bool = False) -> str | None:
    """MathML for one formula, or None when latex2mathml cannot read it."""
    # cached: abstracts repeat formulas ($\epsilon$, $k$, $O(n)$) and a paper's
    # title is rendered on its page and again in every list that shows it
    # size switches only change font size; latex2mathml would print them as text
    latex = _SIZES.sub("", latex)
    if not latex.strip():
        return None
    try:
        markup = convert(latex.strip(), display="block" if display else "inline")
    except Exception:  # latex2mathml raises many unrelated types on bad input
        return None
    return sanitize_mathml(markup)


def render_text(text: str) -> tuple[str, bool]:
    """(HTML of text with its math rendered, whether any math was rendered)."""
    out: list[str] = []
    rendered = False
    pos = 0
    for match in _MATH.finditer(text):
        out.append(html.escape(text[pos : match.start()], quote=False))
        latex = match.group("d1") or match.group("d2") or match.group("i1") or match.group("i2") or ""
        display = bool(match.group("d1") or match.group("d2"))
        markup = latex_to_mathml(latex, display)
        if markup is None:
            out.append(html.escape(match.group(0), quote=False))
        else:
            out.append(markup)
            rendered = True
        pos = match.end()
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out), rendered


def render_abstract(text: str) -> str:
    """Paragraphs of the abstract (blank lines separate them) as HTML."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if p.strip()]
    return "".join(f"<p>{render_text(p)[0]}</p>" for p in paragraphs)
