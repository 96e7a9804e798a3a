"""Author order: whether a source's author lists are in the papers' own order.

In:  one listing or reference catalogue (``Listing``) and what papersite.yml says
     of it (``author_order``: ``paper``, ``alphabetical``, ``unknown`` or ``detect``).
Out: an ``OrderVerdict`` per source, and for one author list the page's
     ``author_order`` value (``list_order``): None when the order is the paper's,
     ``alphabetical`` when the only order known is an alphabetical one,
     ``unknown`` when the source's order is not the paper's either way.

Some exports sort every author list (the ICLR 2025 OpenReview export: about 70%
of its lists with three or more names are in alphabetical order). Detection
counts the lists of three or more distinct names that are sorted, by the whole
name ("Daniel M. Bikel" under D) or by the last name. If a list's order were
the paper's and the paper's order unrelated to the alphabet, such a list would
be sorted by one of the two keys with probability at most 2/n!; summed over the
source's lists that is the count expected by chance, ``expected``. The chance of
seeing ``sorted`` or more is bounded by Chernoff's bound for a sum of
independent trials, ``exp(-expected) * (e * expected / sorted) ** sorted``. A
source is judged not to keep the papers' order when that bound is below
``MAX_CHANCE`` *and* the sorted lists exceed the expected ones by at least
``MIN_EXCESS_SHARE`` of all lists: the first alone would flag a large listing in
which a tenth of the papers (theory papers, say) really list their authors
alphabetically. A field whose papers all do (mathematics, economics) is flagged
too, which the settings correct with ``author_order: paper``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from generator.text import fold

# What a source's lists say of the papers' order, as papersite.yml may declare it.
SOURCE_ORDERS = ("detect", "paper", "alphabetical", "unknown")
# What a page says of its author list (``author_order``); absent means "the paper's order".
PAGE_ORDERS = ("paper", "alphabetical", "unknown")
MIN_NAMES = 3  # two names are sorted half the time by chance: no evidence either way
MAX_CHANCE = 1e-6  # the Chernoff bound on seeing this many sorted lists by chance
MIN_EXCESS_SHARE = 0.25  # (sorted - expected) / lists


def _last_name(name: str) -> str:
    parts = name.replace(",", " ").split()
    return parts[-1] if parts else ""


def is_alphabetical(names: Sequence[str]) -> bool:
    """True for two or more names sorted by the whole name or by the last name (case and accents ignored)."""
    if len(names) < 2:
        return False
    whole = [fold(n) for n in names]
    if whole == sorted(whole):
        return True
    last = [fold(_last_name(n)) for n in names]
    return last == sorted(last)


@dataclass(frozen=True)
class OrderVerdict:
    """One source's author order: declared or measured, with the measurement."""

    source: str  # file name
    declared: str  # one of SOURCE_ORDERS
    lists: int  # author lists of MIN_NAMES or more distinct names
    sorted: int  # ... of which are in alphabetical order
    expected: float  # ... expected sorted if the order were unrelated to the alphabet
    chance: float  # Chernoff bound on P(sorted or more by chance); 1.0 when not above expected
    declared_by: str = "papersite.yml"  # who declared ``declared``: the settings, or the format ("the bibtex format")

    @property
    def order(self) -> str:
        """``paper``, ``alphabetical`` or ``unknown``: what this source's lists are."""
        if self.declared != "detect":
            return self.declared
        return "alphabetical" if self.sorted_beyond_chance else "paper"

    @property
    def sorted_beyond_chance(self) -> bool:
        excess = (self.sorted - self.expected) / self.lists if self.lists else 0.0
        return self.chance < MAX_CHANCE and excess >= MIN_EXCESS_SHARE

    @property
    def in_paper_order(self) -> bool:
        return self.order == "paper"

    def statistic(self) -> str:
        """The measurement in words, for the import summary."""
        if not self.lists:
            return f"no author list of {MIN_NAMES}+ names"
        share = self.sorted / self.lists
        bound = "< 1e-300" if self.chance < 1e-300 else f"<= {self.chance:.2g}"
        return (
            f"{self.sorted:,} of {self.lists:,} author lists of {MIN_NAMES}+ names alphabetical ({share:.0%}; "
            f"{self.expected:,.1f} expected by chance, P {bound})"
        )

    def describe(self) -> str:
        measured = self.statistic()
        if self.declared != "detect":
            return f"{self.source}: author order '{self.declared}' ({self.declared_by}); {measured}"
        verdict = "not the papers' order (sorted far beyond chance)" if self.order != "paper" else "the papers' order"
        return f"{self.source}: author lists taken as {verdict}: {measured}"

    def to_json(self) -> dict:
        return {
            "source": self.source,
            "declared": self.declared,
            "order": self.order,
            "lists": self.lists,
            "alphabetical": self.sorted,
            "expected_by_chance": round(self.expected, 3),
            "chance_bound": float(f"{self.chance:.3g}"),
        }


def source_order(settings_order: str, format_order: str, format_name: str) -> tuple[str, str]:
    """What a source declares of its order, and who: papersite.yml's word, else its format's (a bibliography
    lists authors in the paper's order: ``Listing.author_order``), else ``detect``."""
    if settings_order == "detect" and format_order != "detect":
        return format_order, f"the {format_name} format"
    return settings_order, "papersite.yml"


def judge_order(source: str, author_lists: Iterable[Sequence[str]], declared: str = "detect", declared_by: str = "papersite.yml") -> OrderVerdict:
    """Count the sorted lists of one source and bound the chance of that many."""
    lists = sorted_count = 0
    expected = 0.0
    for names in author_lists:
        distinct = len({fold(n) for n in names})
        if distinct < MIN_NAMES or distinct != len(names):
            continue
        lists += 1
        expected += min(1.0, 2.0 / math.factorial(distinct))
        sorted_count += is_alphabetical(names)
    return OrderVerdict(source, declared, lists, sorted_count, expected, _chernoff(sorted_count, expected), declared_by)


def _chernoff(k: int, mean: float) -> float:
    """Upper bound on P(X >= k) for a sum X of independent trials with E[X] = mean."""
    if k <= mean or mean <= 0:
        return 1.0 if k <= mean or k == 0 else 0.0
    log_bound = -mean + k * (1 + math.log(mean / k))
    return math.exp(log_bound) if log_bound > -745 else 0.0


def list_order(names: Sequence[str], verdict: OrderVerdict | None) -> str | None:
    """The page's ``author_order`` for a list from a source with this verdict (None: the paper's order)."""
    if verdict is None or verdict.in_paper_order or len(names) < 2:
        return None
    return "alphabetical" if is_alphabetical(names) else "unknown"


def same_people(a: Sequence[str], b: Sequence[str]) -> bool:
    """The same names, in any order (case, accents and spacing ignored)."""
    return len(a) == len(b) and sorted(fold(n) for n in a) == sorted(fold(n) for n in b)
