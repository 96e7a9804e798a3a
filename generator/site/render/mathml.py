"""Abstract text to safe HTML: LaTeX math becomes MathML at build time, the rest is escaped.

In: plain listing text with ``$..$``, ``$$..$$``, ``\\(..\\)`` or ``\\[..\\]`` math.
Out: an HTML fragment. Math that latex2mathml cannot read stays as literal
(escaped) text. latex2mathml copies ``\\text{..}`` verbatim into its output, so its
MathML is re-serialised through an allow-list: only MathML elements and
presentational attributes survive, text is escaped.

Outside math, the TeX and Markdown that authors type into a listing's abstract
box (``\\emph{..}``, ``\\textbf{..}``, ``\\url{..}``, ``[text](url)``, ``**..**``)
become the inline markup they stand for, http(s) URLs become links, and a
missing space after a full stop ("it.We") is put back. All of this is display
only: the stored abstract stays as the listing gave it. A "formula" that is only
a text command (``$\\textbf{Dis}$tribution``) is text, not math.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from html.parser import HTMLParser

from generator.site.render.html import neutral_chars

# The four math delimiters, tried in this order at each position. A lazy ``.+?`` runs
# to the end of the text when its closing delimiter never comes, so an abstract with
# thousands of unclosed ``\[`` was quadratic: ``math_spans`` tries a display
# pattern only where its closer still occurs later in the text.
_DISPLAY_DOLLARS = re.compile(r"\$\$(?P<d1>.+?)\$\$", re.DOTALL)
_DISPLAY_BRACKETS = re.compile(r"\\\[(?P<d2>.+?)\\\]", re.DOTALL)
_INLINE_PARENS = re.compile(r"\\\((?P<i1>.+?)\\\)", re.DOTALL)
# bounded by the line and by the next '$': linear as it is
_INLINE_DOLLAR = re.compile(r"(?<![\\$\w])\$(?P<i2>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?![\d$])")
_OPENER = re.compile(r"\$|\\[\[(]")
_DELIMITED = ((_DISPLAY_DOLLARS, "$$", "$$"), (_DISPLAY_BRACKETS, "\\[", "\\]"), (_INLINE_PARENS, "\\(", "\\)"))


def math_spans(text: str):  # noqa: ANN201 - yields re.Match
    """The matches of the four patterns as one alternation would find them, in linear time."""
    last = {closer: text.rfind(closer) for _, _, closer in _DELIMITED}
    pos = 0
    while True:
        opener = _OPENER.search(text, pos)
        if opener is None:
            return
        at = opener.start()
        found = None
        for pattern, start, closer in _DELIMITED:
            # the content is at least one character, then the closer
            if text.startswith(start, at) and last[closer] >= at + len(start) + 1:
                found = pattern.match(text, at)
                if found:
                    break
        if found is None and text[at] == "$":
            found = _INLINE_DOLLAR.match(text, at)
        if found is None:
            pos = at + 1
            continue
        yield found
        pos = found.end()


from generator.ingest.abstract_links import URL, trim_url


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
    # imported here: ~25 ms (it loads urllib.request) of every build, which renders a formula only where a page with
    # one changed
    from latex2mathml.converter import convert

    try:
        markup = convert(latex.strip(), display="block" if display else "inline")
    except Exception:  # latex2mathml raises many unrelated types on bad input
        return None
    return sanitize_mathml(markup)


# Text commands and the inline element each becomes (``None``: the text alone).
_TEXT_COMMANDS = {
    "emph": "em", "textit": "em", "textsl": "em", "textbf": "strong", "texttt": "code", "textsc": "span",
    "underline": "u", "text": None, "textrm": None, "textsf": None, "textnormal": None, "mbox": None,
}
# the old switches, written ``{\bf bold}``
_SWITCHES = {"em": "em", "it": "em", "sl": "em", "bf": "strong", "tt": "code", "sc": "span"}
_CLASS = {"span": ' class="ps-sc"'}  # small caps

_PROSE = re.compile(
    r"\\href\{(?P<href>[^{}\s]+)\}\{"  # \href{url}{text...
    r"|\\url\{\s*(?P<url>[^{}\s]+)\s*\}"
    r"|\[(?P<mdtext>[^\[\]\n]{1,200})\]\((?P<mdurl>https?://[^()\s]+(?:\([^()\s]*\))?[^()\s]*)\)"
    r"|<(?P<angle>https?://[^<>\s]+)>"
    r"|(?P<bare>" + URL.pattern + r")"
    r"|\\(?P<cmd>" + "|".join(sorted(_TEXT_COMMANDS, key=len, reverse=True)) + r")\s*\{"
    r"|\{\\(?P<switch>" + "|".join(_SWITCHES) + r")\b\s*"
    r"|(?<![\w*])\*\*(?P<bold>\S(?:[^*\n]*?\S)?)\*\*(?![\w*])"
    r"|(?<![\w*\\])\*(?P<star>\S(?:[^*\n]*?\S)?)\*(?![\w*])",
    re.IGNORECASE,
)
# "it.We propose": a full stop the listing glued to the next sentence. Two lower-case
# letters before it keep "e.g.The" and "U.S." as they are.
_GLUED_SENTENCE = re.compile(r"(?:(?<=[a-z]{2}[.!?])|(?<=[%)\]][.!?]))(?=[A-Z][a-z])")
_ONLY_TEXT = re.compile(r"(?:\s*\\(?:" + "|".join(_TEXT_COMMANDS) + r")\s*\{[^{}$]*\}\s*)+")


def _closing_brace(text: str, start: int) -> int:
    """Index of the brace closing the group that starts before ``start``, or -1."""
    depth = 1
    for i in range(start, len(text)):
        char = text[i]
        if char == "\\":
            continue
        if char == "{" and text[i - 1 : i] != "\\":
            depth += 1
        elif char == "}" and text[i - 1 : i] != "\\":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _plain(text: str) -> str:
    text = text.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_").replace("\\#", "#")
    return html.escape(_GLUED_SENTENCE.sub(" ", text), quote=False)


def _web_link(url: str, text_html: str) -> str:
    return f'<a href="{html.escape(url, quote=True)}" rel=nofollow>{text_html}</a>'  # as html.out_link


def _wrap(tag: str | None, inner: str) -> str:
    return f"<{tag}{_CLASS.get(tag, '')}>{inner}</{tag}>" if tag else inner


def render_prose(text: str) -> str:
    """HTML of text outside math: text commands as inline markup, URLs as links, escaped."""
    text = text.replace("\\_", "_")  # an escaped underscore, inside a URL too
    out: list[str] = []
    pos = 0
    while True:
        match = _PROSE.search(text, pos)
        if match is None:
            break
        out.append(_plain(text[pos : match.start()]))
        kind = match.lastgroup
        end = match.end()
        if match.group("href") is not None or match.group("cmd") or match.group("switch"):
            close = _closing_brace(text, end)
            if close < 0:  # unbalanced: show what was written
                out.append(_plain(match.group(0)))
                pos = end
                continue
            inner = render_prose(text[end:close])
            if match.group("href") is not None:
                url = match.group("href")
                out.append(_web_link(url, inner) if URL.fullmatch(url) else inner)
            elif match.group("cmd"):
                out.append(_wrap(_TEXT_COMMANDS[match.group("cmd").lower()], inner))
            else:
                out.append(_wrap(_SWITCHES[match.group("switch").lower()], inner))
            end = close + 1
        elif match.group("url") is not None:
            url = match.group("url")
            out.append(_web_link(url, html.escape(url, quote=False)) if URL.fullmatch(url) else _plain(url))
        elif match.group("mdurl") is not None:
            out.append(_web_link(match.group("mdurl"), render_prose(match.group("mdtext"))))
        elif match.group("angle") is not None:
            url = match.group("angle")
            out.append(_web_link(url, html.escape(url, quote=False)))
        elif match.group("bare") is not None:
            url = trim_url(match.group("bare"))
            end = match.start() + len(url)
            out.append(_web_link(url, html.escape(url, quote=False)))
        elif kind == "bold":
            out.append(f"<strong>{render_prose(match.group('bold'))}</strong>")
        else:
            out.append(f"<em>{render_prose(match.group('star'))}</em>")
        pos = end
    out.append(_plain(text[pos:]))
    return "".join(out)


def render_text(text: str) -> tuple[str, bool]:
    """(HTML of text with its math rendered, whether any math was rendered)."""
    out: list[str] = []
    rendered = False
    pos = 0
    for match in math_spans(text):
        out.append(render_prose(_after_math(text[pos : match.start()], pos)))
        group = match.lastgroup or ""
        latex = match.group(group) or ""
        display = group in ("d1", "d2")
        if _ONLY_TEXT.fullmatch(latex):
            # "$\\textbf{Dis}$tribution": emphasis typed as math, part of a word
            out.append(render_prose(latex.strip()))
            pos = match.end()
            continue
        markup = latex_to_mathml(latex, display)
        if markup is None:
            out.append(html.escape(match.group(0), quote=False))
        else:
            out.append(markup)
            rendered = True
        pos = match.end()
    out.append(render_prose(_after_math(text[pos:], pos)))
    return neutral_chars("".join(out)), rendered


def _after_math(segment: str, pos: int) -> str:
    """"$O(n^2)$.We propose": the glued full stop right after a formula."""
    return re.sub(r"^([.!?])(?=[A-Z][a-z])", r"\1 ", segment) if pos else segment


def render_abstract(text: str) -> str:
    """Paragraphs of the abstract (blank lines separate them) as HTML."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if p.strip()]
    return "".join(f"<p>{render_text(p)[0]}</p>" for p in paragraphs)
