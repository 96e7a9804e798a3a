"""Text normalisation: the one place that says when two spellings are the same text.

``normalize_text`` and ``title_key`` compare listing text (merge, identity,
references, titles): Unicode compatibility forms, typographic quotes, dashes
and spaces unified, lower case. ``fold`` compares names (authors, keywords,
topics in the catalog and on every page): case, accents and spacing ignored.
The keyword stage adds its own canonical key on top (singulars, hyphens as
spaces: ``enrich/keywords.py``), built from ``unicode_normal``.

``is_invisible`` is the one rule for characters a reader cannot see; every
user of such a list (the correction form, ``papersite check`` for fields and
page bodies, the theme fields, the site name in the settings, the renderers)
takes it from here:

- invisible: Unicode categories Cc (controls), Cf (format: zero-width spaces
  and joiners, the soft hyphen, U+FEFF, the bidi controls U+061C, U+200E/F,
  U+202A..E, U+2066..9, tag characters), Cs (lone surrogates), Zl and Zp (line
  and paragraph separators), and the blank marks Unicode files elsewhere
  (variation selectors, fillers);
- but tab and line feed (``TEXT_WHITESPACE``): text may hold them, and a caller
  that wants one line refuses line feeds by its own rule;
- never private-use or unassigned code points (they show, as a box).

``BIDI_CONTROL`` and ``C0_C1_CONTROL`` are the two subsets the renderers
neutralise on their own (a bidi control reorders what a reader sees; a control
breaks HTML and YAML); both are derived from the same definitions here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'", "`": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"', "\u2033": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
        "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u200b": "",
    }
)
_WORD = re.compile(r"\w+")

# Bidi marks, embeddings, overrides and isolates: they reorder the text around them.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
BIDI_CONTROL = re.compile(f"[{BIDI_CONTROLS}]")
# The controls text may hold; every other control is invisible (a carriage return too: files are
# read with universal newlines, so one left in a value is a stray).
TEXT_WHITESPACE = "\t\n"
# C0 and C1 controls but TEXT_WHITESPACE.
C0_C1_CONTROL = re.compile(
    "[" + "".join(re.escape(chr(c)) for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in TEXT_WHITESPACE) + "]"
)
# Invisible, though Unicode does not file them under "Other": variation selectors, the combining
# grapheme joiner, Hangul and Khmer fillers and the Mongolian selectors render as nothing.
_BLANK_MARKS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef\u034f\u115f\u1160\u3164\uffa0\u17b4\u17b5\u180b-\u180f]")

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def is_invisible(c: str) -> bool:
    """A character that shows as nothing (or moves others): controls (Cc), format characters (Cf:
    U+200B..U+200D, U+2060, U+FEFF, the bidi controls, tag characters U+E0001..U+E007F, soft hyphen),
    lone surrogates, the line and paragraph separators, and ``_BLANK_MARKS``. Not private-use or
    unassigned code points: they show as a box, and a newer Unicode may assign them."""
    category = unicodedata.category(c)
    return category in _INVISIBLE_CATEGORIES or _BLANK_MARKS.match(c) is not None or 0xE0000 <= ord(c) <= 0xE007F


def invisible_characters(text: str, allowed: str = "") -> list[str]:
    """The distinct invisible characters of ``text`` but those in ``allowed``, in code point order.

    ``allowed``: ``TEXT_WHITESPACE`` for text, "" for a one-line name that may hold no tab either."""
    # isprintable() is False for every "Other" and separator but the space: one scan at C speed.
    if text.isprintable() and _BLANK_MARKS.search(text) is None:
        return []
    return sorted({c for c in text if c not in allowed and is_invisible(c)})


def code_points(characters: list[str]) -> str:
    """``U+200E, U+FEFF``: invisible characters named so a reader can find them."""
    return ", ".join(f"U+{ord(c):04X}" for c in characters)


def unicode_normal(text: str) -> str:
    """Compatibility forms folded (ligatures, full-width letters, superscripts): NFKC."""
    return unicodedata.normalize("NFKC", text)


def normalize_text(text: str) -> str:
    """Lower-case text with typographic variants (quotes, dashes, spaces) unified."""
    text = unicode_normal(text).translate(_TYPOGRAPHY).lower()
    return " ".join(text.split())


def title_key(title: str | None) -> str:
    return " ".join(_WORD.findall(normalize_text(title))) if title else ""


_SPACES = re.compile(r"\s+")
_PUNCTUATION = ".-'’"  # the spacing around these is folded away (``fold``)
_PUNCT_SPACING = re.compile(rf"\s*([{re.escape(_PUNCTUATION)}])\s*")


# Every page renderer folds every author and keyword name it links (millions of calls at 12k
# papers over a few tens of thousands of distinct names): the cache is the function itself, with
# no Python frame of its own before it (~0.9M calls an edit).
@lru_cache(maxsize=1 << 17)
def fold(text: str) -> str:
    """Key that ignores case, accents and spacing; nothing else."""
    if text.isascii():  # no ASCII character decomposes or combines: most names and titles, and the longest texts
        stripped = text
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    spaced = _SPACES.sub(" ", stripped).strip().casefold()
    # "J.Smith" and "J. Smith", "Jean - Pierre" and "Jean-Pierre" are spacing variants.
    return _PUNCT_SPACING.sub(r"\1", spaced)


def fold_joined(texts: Iterable[str]) -> str:
    """``fold(" ".join(texts))``, made of each text's own ``fold`` (cached: the same names are in many lists),
    the spacing around punctuation where two meet folded as ``fold`` folds it: a paper list's items fold their
    authors' and keywords' names joined (a long new text each, so never cached), half of rendering a keyword
    page of a thousand papers."""
    joined = ""
    for folded in map(fold, texts):
        if folded:  # joined by a space, but where punctuation meets it (as _PUNCT_SPACING folds it)
            joined += folded if not joined or joined[-1] in _PUNCTUATION or folded[0] in _PUNCTUATION else f" {folded}"
    return joined


# Greek letters that read as Latin ones (capitals and omicron); a word may mix μ or β with Latin (μP, β-VAE).
_GREEK_LOOKALIKES = frozenset("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοϲ")


def lookalike_words(text: str) -> list[str]:
    """The words of ``text`` that mix Latin letters with Cyrillic ones or with Greek letters that look Latin
    ("diffusiоn" with a Cyrillic о): spelt to look like a word they are not."""
    found = []
    for word in _WORD.findall(text):
        if word.isascii():
            continue
        scripts = {_script(c) for c in word if c.isalpha()}
        if "LATIN" in scripts and ("CYRILLIC" in scripts or any(c in _GREEK_LOOKALIKES for c in word)):
            found.append(word)
        elif "CYRILLIC" in scripts and "GREEK" in scripts:
            found.append(word)
    return found


def _script(c: str) -> str:
    return unicodedata.name(c, "").split(" ", 1)[0]
