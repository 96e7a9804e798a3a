"""Word features: the tokens and keys the topic model was trained on, shared with the keywords.

In:  title and abstract text. Out: runs of ``Token`` between punctuation
(``segments``) and the canonical key of a phrase (``canonical_key``: lower
case, singular, single spaces). The topic model (``topics.py``) was trained
on exactly these keys, so they change only with a retrained model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from generator.text import unicode_normal

# Words that never make a keyword: filler of abstracts, not subjects of papers.
STOPWORDS = frozenset(
    """a an the and or nor but of in on at to for from by with without within into onto over under via as is are was
    were be been being this that these those it its their our we us you they he she them his her which who whom whose
    what when where why how than then there here such so not no can could may might must shall should will would do
    does did done has have had having all any both each few more most other some same own very just only also too
    between among across through during before after above below up down out off again further once while whereas
    if else about against because until upon per i ii iii e g eg ie etc versus vs one two three four five six ten
    many much several whether either neither however thus hence therefore moreover furthermore although though
    yet still even since often usually always never""".split()
)
SEGMENT_SPLIT = re.compile(r"[.,;:!?()\[\]{}\"“”'‘’|/\\<>=+*]+|\s-\s|\s–\s|\s—\s")
_TOKEN = re.compile(r"[A-Za-z0-9]+")
LATEX = re.compile(r"\$[^$]*\$|\\[a-zA-Z]+")


@lru_cache(maxsize=200_000)
def singular(token: str) -> str:
    """English singular of a lower-case token, by suffix rules only (keys, not display)."""
    if len(token) <= 3 or token.isdigit():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is", "as", "os", "ys")):
        return token[:-1]
    return token


def _plain(text: str) -> str:
    text = unicode_normal(text)
    text = LATEX.sub(" ", text)
    # Hyphen and underscore join the same words a space does ("Q-learning", "q learning").
    return re.sub(r"[-_‐‑‒]+", " ", text)


def canonical_key(phrase: str) -> str:
    """The one key all spellings of a term share: lower case, singular, single spaces."""
    return " ".join(singular(t.lower()) for t in _TOKEN.findall(_plain(phrase)))


@dataclass(frozen=True)
class Token:
    surface: str  # as written
    key: str  # lower case, singular


def segments(text: str) -> list[list[Token]]:
    """Runs of tokens between punctuation: phrases never cross a comma or a full stop."""
    runs = []
    for part in SEGMENT_SPLIT.split(_plain(text)):
        tokens = [Token(t, singular(t.lower())) for t in _TOKEN.findall(part)]
        if tokens:
            runs.append(tokens)
    return runs
