"""generator/titles.py: derived titles, slugs and ids."""

from __future__ import annotations

from generator.record import PaperRecord, SourceRef
from generator.titles import assign_identity, derive_title, make_slug, unique_slug

CALNF = (
    "Increased deployment of autonomous systems has seen a corresponding increase in failures. "
    "We address this challenge with CalNF, or calibrated normalizing flows, a self-regularized framework for "
    "posterior learning from limited data. CalNF achieves state-of-the-art performance."
)
REFINER = (
    "Masked image models learn strong features. We introduce MIM-Refiner, a contrastive learning boost for "
    "pre-trained MIM models. MIM-Refiner improves linear probing."
)
PLAIN = (
    "There are various measures of predictive uncertainty in the literature, but their relationships to each "
    "other remain unclear and nobody has written them down in one place for practitioners to compare."
)


def test_named_method_leads_the_title():
    assert derive_title(CALNF) == "CalNF: Calibrated normalizing flows"
    assert derive_title(REFINER).startswith("MIM-Refiner: ")


def test_fallback_title_is_readable_and_not_cut_mid_word():
    title = derive_title(PLAIN)
    assert title.startswith("There are various measures of predictive uncertainty")
    assert len(title) <= 90
    assert PLAIN.startswith(title) or title in PLAIN
    assert not title.endswith((" in", " the", " but", ","))


def test_long_sentence_is_cut_at_a_word_boundary():
    words = " ".join(f"word{n}" for n in range(60))
    title = derive_title(words + ".")
    assert len(title) <= 90 and ("w" + title[1:]) == words[: len(title)] and words[len(title)] == " "


def test_slugs_are_short_unique_and_word_bounded():
    slug = make_slug("A very long title " * 10)
    assert len(slug) <= 80 and not slug.endswith("-")
    assert unique_slug("paper", {"paper", "paper-2"}) == "paper-3"
    assert make_slug("<script>alert(1)</script>") == "script-alert-1-script"
    assert make_slug("!!!") == "paper"


def test_identity_is_stable_and_unique():
    def record(title):
        return PaperRecord(id="", slug="", title=title, sources=[SourceRef("f", 1, "numbered")])

    first = [record("Same"), record("Same"), record("Other")]
    second = [record("Same"), record("Same"), record("Other")]
    assign_identity(first, set(), set())
    assign_identity(second, set(), set())
    assert [(r.id, r.slug) for r in first] == [(r.id, r.slug) for r in second]
    assert len({r.id for r in first}) == 3
    assert [r.slug for r in first] == ["same", "same-2", "other"]


RESERVED_TITLES = ["Index", "Search", "Assets", "404", "sitemap", "CON", "prn", "Aux", "NUL", "COM1", "com9", "LPT1", "Lpt9"]


def test_reserved_names_never_become_a_paper_slug():
    from generator.site.urls import RESERVED_SLUGS

    records = [PaperRecord(id="", slug="", title=title, sources=[SourceRef("x.txt", n, "numbered")]) for n, title in enumerate(RESERVED_TITLES)]
    assign_identity(records, taken_ids=set(), taken_slugs={"index-paper"})
    slugs = [r.slug for r in records]
    assert not set(slugs) & RESERVED_SLUGS and len(set(slugs)) == len(slugs)
    assert slugs[0] == "index-paper-2" and slugs[5] == "con-paper"
    assert unique_slug("nul", set()) == "nul-paper" and make_slug("  ") == "paper"
