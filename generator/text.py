"""Text normalisation: the one place that says when two spellings are the same text.

``normalize_text`` and ``title_key`` compare listing text (merge, identity,
references, titles): Unicode compatibility forms, typographic quotes, dashes
and spaces unified, lower case. ``fold`` compares names (authors, keywords,
topics in the catalog and on every page): case, accents and spacing ignored.
The keyword stage adds its own canonical key on top (singulars, hyphens as
spaces: ``enrich/keywords.py``), built from ``unicode_normal``.
"""

from __future__ import annotations

import re
import unicodedata
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


def unicode_normal(text: str) -> str:
    """Compatibility forms folded (ligatures, full-width letters, superscripts): NFKC."""
    return unicodedata.normalize("NFKC", text)


def normalize_text(text: str) -> str:
    """Lower-case text with typographic variants (quotes, dashes, spaces) unified."""
    text = unicode_normal(text).translate(_TYPOGRAPHY).lower()
    return " ".join(text.split())


def title_key(title: str | None) -> str:
    return " ".join(_WORD.findall(normalize_text(title))) if title else ""


def fold(text: str) -> str:
    """Key that ignores case, accents and spacing; nothing else."""
    # Every page renderer folds every author and keyword name it links (millions
    # of calls at 12k papers over a few tens of thousands of distinct names).
    return _fold(text)


_SPACES = re.compile(r"\s+")
_PUNCT_SPACING = re.compile(r"\s*([.\-'’])\s*")


@lru_cache(maxsize=1 << 17)
def _fold(text: str) -> str:
    if text.isascii():  # no ASCII character decomposes or combines: most names and titles, and the longest texts
        stripped = text
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    spaced = _SPACES.sub(" ", stripped).strip().casefold()
    # "J.Smith" and "J. Smith", "Jean - Pierre" and "Jean-Pierre" are spacing variants.
    return _PUNCT_SPACING.sub(r"\1", spaced)
