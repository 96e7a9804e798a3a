"""What of a hand-edited paper page may reach HTML: its Markdown body and its theme keys.

In:  the maintainers' Markdown body of a page, and the front-matter keys papersite
     does not read (``PaperRecord.extra``).
Out: ``scan_body`` -> (the body made safe, the problems found in it), used by
     ``papersite check`` (which reports the problems as errors) and by the paper
     page renderer (which writes the safe text), so the two can never disagree;
     ``theme_meta`` -> the keys the theme may see, as plain text.

A pull request from anyone can edit a page, and a reviewer reading the diff may
not notice markup, so a body is Markdown without raw HTML, without attribute lists
carrying ``key=value`` (``{: onclick=...}``) and without links to script URLs.
Python-Markdown (both engines use it) treats HTML inside what looks like a code
block or a list as HTML, so the only code this scanner trusts is a backtick span
on one line; everything else is text. ``&#106;``-style references to ASCII letters
are decoded before looking, so an obfuscated ``javascript:`` is seen as one.
"""

from __future__ import annotations

import html
import re
from typing import Any

from generator.text import BIDI_CONTROL, C0_C1_CONTROL, TEXT_WHITESPACE, code_points, invisible_characters

# Front-matter keys the theme reads that a maintainer may set; each must be text.
# Any other key stays on the committed page but never reaches the theme, whose
# templates print page meta unescaped (``status`` lands in a class attribute).
THEME_FIELDS = ("description",)

SAFE_SCHEMES = ("http", "https", "mailto")

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_CHAR_REF = re.compile(r"&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,8};?|[A-Za-z][A-Za-z0-9]{1,31};)")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_AUTOLINK = re.compile(r"<(?:https?://[^\s<>]*|(?:mailto:)?[^<>!&\s]+@[^@<>\s]+)>", re.IGNORECASE)
_ATTR_LIST = re.compile(r"\{[^{}\n]*=[^{}\n]*\}")
# a destination may hold tabs: browsers drop them, so "java<TAB>script:" is a scheme
_INLINE_DEST = re.compile(r"\]\(\s*<?\s*((?:[^\s)>]|\t)*)")
_REFERENCE_DEST = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?\s*((?:[^\s>]|\t)*)")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_SCRIPT_WORD = re.compile(
    r"(?<![A-Za-z0-9+.\-])("
    + "|".join("[\t\r]*".join(word) for word in ("javascript", "vbscript", "livescript"))
    + r")(\s*):",
    re.IGNORECASE,
)
_CONTROL = C0_C1_CONTROL
_BIDI = BIDI_CONTROL


# Every markup rule needs one of these characters (a tag '<', '{', ']' or '[' of a link, ':' of a
# scheme, '&' of a reference); the character rules look only at lines that are not all printable.
_WORTH_A_LOOK = re.compile("[<{\\[\\]&:]")


def _decode_ascii_ref(match: re.Match) -> str:
    """``&#106;`` -> ``j``: references to letters, digits and ':' say the same in plain text."""
    decoded = html.unescape(match.group(0))
    if len(decoded) == 1 and (decoded.isascii() and (decoded.isalnum() or decoded == ":")):
        return decoded
    if decoded in ("\t", "\n", "\r"):
        return "\t"  # browsers drop it inside a URL: kept as a tab, which the patterns expect
    return match.group(0)


def _scheme(destination: str) -> str | None:
    cleaned = re.sub(r"[\x00-\x20]", "", destination)  # browsers drop these inside a URL
    match = _SCHEME.match(cleaned)
    return match.group(1).lower() if match else None


def _safe_text(text: str, at_line_start: bool, problems: list[str]) -> str:
    """One stretch of body text outside code, made safe; what was wrong goes to ``problems``."""
    text = _CHAR_REF.sub(_decode_ascii_ref, text)

    def tag(match: re.Match) -> str:
        if _AUTOLINK.match(text, match.start()):
            return "<"
        snippet = text[match.start() : match.start() + 20].split(">")[0]
        problems.append(f"raw HTML ({snippet}...) is not allowed in a page body; use Markdown, or put it in `backticks`")
        return "&lt;"

    text = _TAG_START.sub(tag, text)

    def attributes(match: re.Match) -> str:
        problems.append(f"attribute list {match.group(0)[:40]!r} is not allowed in a page body (it can add event handlers)")
        return "&#123;" + match.group(0)[1:]

    text = _ATTR_LIST.sub(attributes, text)

    def destination(match: re.Match) -> str:
        scheme = _scheme(match.group(1))
        if scheme is None or scheme in SAFE_SCHEMES:
            return match.group(0)
        problems.append(f"link to a '{scheme}:' URL is not allowed; links must be http(s), mailto or pages of the site")
        return match.group(0)[: match.start(1) - match.start()] + "#"

    text = _INLINE_DEST.sub(destination, text)
    if at_line_start:
        text = _REFERENCE_DEST.sub(destination, text)

    def script(match: re.Match) -> str:
        word = re.sub(r"[\t\r]", "", match.group(1))
        problems.append(f"'{word}:' is not allowed in a page body (a script URL)")
        return f"{word}\u200b{match.group(2)}:"  # no longer a scheme

    return _SCRIPT_WORD.sub(script, text)


def _safe_characters(line: str, problems: list[str]) -> str:
    if _CONTROL.search(line):
        problems.append("control character (such as NUL or ESC) in the page body; delete it")
        line = _CONTROL.sub("\ufffd", line)
    if _BIDI.search(line):
        problems.append("bidirectional control character (it can reorder what readers see) in the page body; delete it")
        line = _BIDI.sub(lambda m: f"&#x{ord(m.group(0)):x};", line)
    hidden = invisible_characters(line, TEXT_WHITESPACE)  # those the two above leave
    if hidden:
        problems.append(f"invisible character(s) {code_points(hidden)} in the page body (readers cannot see them); delete them")
        line = "".join(f"&#x{ord(c):x};" if c in hidden else c for c in line)
    return line


def scan_body(body: str) -> tuple[str, list[tuple[int, str]]]:
    """(safe body, [(0-based line of the body, problem)]); the safe body equals ``body`` when no problem is found."""
    problems: list[tuple[int, str]] = []
    out: list[str] = []
    for number, line in enumerate(body.split("\n")):
        if not _WORTH_A_LOOK.search(line) and not invisible_characters(line, TEXT_WHITESPACE):  # (C speed when none)
            # most lines: prose with nothing any rule looks for
            out.append(line)
            continue
        found: list[str] = []
        line = _safe_characters(line, found)
        parts: list[str] = []
        pos = 0
        for span in _CODE_SPAN.finditer(line):
            parts.append(_safe_text(line[pos : span.start()], pos == 0, found))
            parts.append(span.group(0))
            pos = span.end()
        parts.append(_safe_text(line[pos:], pos == 0, found))
        safe = "".join(parts)
        out.append(safe if found else line)
        problems.extend((number, message) for message in found)
    return "\n".join(out), problems


def safe_body(body: str) -> str:
    return scan_body(body)[0]


def plain_meta_text(text: str) -> str:
    """Text that stays text in a theme attribute whether or not the engine escapes it."""
    text = " ".join(_BIDI.sub("", _CONTROL.sub(" ", text)).split())
    text = text.replace("<", "‹").replace(">", "›").replace('"', "”").replace("'", "’")
    return text.replace("&", "＆")


def theme_meta(extra: dict[str, Any]) -> dict[str, str]:
    """The maintainer's keys the theme may read, as plain text; anything else stays out."""
    return {key: plain_meta_text(extra[key]) for key in THEME_FIELDS if isinstance(extra.get(key), str) and extra[key].strip()}


def theme_field_problem(key: str, value: Any) -> str | None:
    """Why a theme key's value cannot be used, or None."""
    if not isinstance(value, str):
        return f"field '{key}' must be text, got {type(value).__name__}"
    hidden = invisible_characters(value, TEXT_WHITESPACE)
    if hidden:
        return f"field '{key}' holds the invisible or control character(s) {code_points(hidden)}; delete them"
    return None
