"""Review decisions: what a paper's ``decision`` string means, in one place.

In:  the decision text a listing or reference gives (OpenReview's words:
     ``Accept (Oral)``, ``Reject``, ``Withdrawn``, ...).
Out: a ``Decision``: the short badge label readers see, whether the paper was
     accepted (citations cite only accepted papers as published), and a stable
     key for filters and CSS classes.

Pages store the decision as the source wrote it; this module only reads it, so
a venue with other words ("Accept (Talk)") still shows what it said, as an
accepted paper when it starts with "Accept".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Decision:
    text: str  # as stored on the page
    label: str  # badge text: "Oral", "Poster", "Rejected"
    key: str  # "oral", "spotlight", "poster", "accepted", "rejected", "withdrawn", "desk-rejected", "other"
    accepted: bool | None  # None: the words say neither (e.g. "Under review")


# Order is the order of the decision filter and of the Stats chart.
KNOWN: tuple[Decision, ...] = (
    Decision("Accept (Oral)", "Oral", "oral", True),
    Decision("Accept (Spotlight)", "Spotlight", "spotlight", True),
    Decision("Accept (Poster)", "Poster", "poster", True),
    Decision("Reject", "Rejected", "rejected", False),
    Decision("Withdrawn", "Withdrawn", "withdrawn", False),
    Decision("Desk Rejected", "Desk rejected", "desk-rejected", False),
)
_BY_TEXT = {d.text.casefold(): d for d in KNOWN}
KEY_ORDER = [d.key for d in KNOWN] + ["accepted", "other"]


def read_decision(text: str | None) -> Decision | None:
    """The meaning of a stored decision; None when the paper has none."""
    if not text or not text.strip():
        return None
    clean = " ".join(text.split())
    known = _BY_TEXT.get(clean.casefold())
    if known is not None:
        return known
    lowered = clean.casefold()
    if lowered.startswith("accept"):
        return Decision(clean, clean, "accepted", True)
    if lowered.startswith(("reject", "desk reject")):
        return Decision(clean, "Rejected", "rejected", False)
    if lowered.startswith("withdr"):
        return Decision(clean, "Withdrawn", "withdrawn", False)
    return Decision(clean, clean, "other", None)


def decision_counts(decisions: Iterable[str | None]) -> list[tuple[str, str, int]]:
    """(key, label, papers) per kind of decision, in filter order; "No decision" last."""
    counts: Counter[str] = Counter()
    labels: dict[str, str] = {}
    for text, papers in Counter(decisions).items():  # each way of writing one read once: a dozen in 11,672 papers
        decision = read_decision(text)
        key = decision.key if decision else "none"
        counts[key] += papers
        if decision is None:
            labels[key] = "No decision"
        elif key in ("other", "accepted"):
            labels[key] = "Other decision" if key == "other" else "Accepted"
        else:
            labels[key] = decision.label
    return [(key, labels[key], counts[key]) for key in KEY_ORDER + ["none"] if counts[key]]
