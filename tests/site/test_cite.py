"""generator/site/render/cite.py and generator/pages/decisions.py: citations a reader can use, honest about what is known."""

from __future__ import annotations

from generator.config import VenueSettings
from generator.pages.decisions import decision_counts, read_decision
from generator.pages.record import PaperRecord
from generator.site.render import cite

ICLR = cite.Venue.from_settings(
    VenueSettings(name="International Conference on Learning Representations", short="ICLR 2025", year="2025"), "ICLR 2025 Papers"
)


def paper(**changes) -> PaperRecord:
    base = PaperRecord(
        id="3f2a9c0b1d4e", slug="shortcut", title="One Step Diffusion via Shortcut Models",
        authors=["Kevin Frans", "Danijar Hafner", "Sergey Levine", "Pieter Abbeel"], decision="Accept (Poster)",
        links={"openreview": "https://openreview.net/forum?id=OlzB6LnXcS", "pdf": "https://openreview.net/pdf?id=OlzB6LnXcS"},
        abstract="Diffusion models are slow; shortcut models are not.",
    )
    return base.replace(**changes)


def fields(entry: str) -> dict[str, str]:
    out = {}
    for line in entry.splitlines()[1:-1]:
        name, _, value = line.strip().partition(" = ")
        out[name] = value.rstrip(",").removeprefix("{").removesuffix("}")
    return out


def test_accepted_paper_is_inproceedings_with_authors_url_and_the_full_venue():
    entry = cite.bibtex(paper(), ICLR)
    assert entry.startswith("@inproceedings{frans2025step_3f2a9c,")
    got = fields(entry)
    assert got["author"] == "Kevin Frans and Danijar Hafner and Sergey Levine and Pieter Abbeel"
    assert got["booktitle"] == "International Conference on Learning Representations"
    assert got["url"] == "https://openreview.net/forum?id=OlzB6LnXcS" and got["year"] == "2025"
    assert "note" not in got
    ris = cite.ris(paper(), ICLR).splitlines()
    assert ris[0] == "TY  - CONF" and "T2  - International Conference on Learning Representations" in ris
    assert "UR  - https://openreview.net/forum?id=OlzB6LnXcS" in ris and ris.count("AU  - Kevin Frans") == 1
    line = cite.citation_line(paper(), ICLR)
    assert line == (
        "Kevin Frans, Danijar Hafner, Sergey Levine and Pieter Abbeel. One Step Diffusion via Shortcut Models. "
        "In International Conference on Learning Representations (ICLR 2025). https://openreview.net/forum?id=OlzB6LnXcS"
    )
    tags = dict(cite.scholar_meta(paper(), ICLR))
    assert tags["citation_conference_title"] == "International Conference on Learning Representations"


def test_rejected_and_withdrawn_submissions_are_not_cited_as_published():
    for decision, label in (("Reject", "rejected"), ("Withdrawn", "withdrawn"), ("Desk Rejected", "desk rejected")):
        record = paper(decision=decision)
        entry = cite.bibtex(record, ICLR)
        assert entry.startswith("@misc{") and "booktitle" not in entry
        assert fields(entry)["note"] == "Submitted to ICLR 2025"
        ris = cite.ris(record, ICLR).splitlines()
        assert ris[0] == "TY  - UNPB" and "N1  - Submitted to ICLR 2025" in ris and not any(l.startswith("T2") for l in ris)
        assert f"Submitted to ICLR 2025; {label}." in cite.citation_line(record, ICLR)
        assert "citation_conference_title" not in dict(cite.scholar_meta(record, ICLR))


def test_a_derived_title_is_never_exported_as_the_papers_own():
    record = paper(title="Shortcut models: one network for any step count", title_derived=True, authors=[], links={}, decision=None)
    entry = cite.bibtex(record, ICLR)
    assert "title" not in fields(entry) and "Shortcut models" not in entry and "Title unknown" in entry
    assert entry.startswith("@inproceedings{anon2025_3f2a9c,")
    assert not any(l.startswith("TI") for l in cite.ris(record, ICLR).splitlines())
    assert cite.citation_line(record, ICLR).startswith("Unknown authors. [Title unknown]. In International Conference")
    assert cite.scholar_meta(record, ICLR) == []


def test_venue_defaults_come_from_the_site_name():
    venue = cite.Venue.from_site_name("NeurIPS 2024 Papers")
    assert (venue.name, venue.short, venue.year) == ("NeurIPS 2024", "NeurIPS 2024", "2024")


def test_decisions_read_as_badges_and_count_in_filter_order():
    assert [read_decision(t).label for t in ("Accept (Oral)", "accept (spotlight)", "Accept (Poster)", "Reject", "Withdrawn", "Desk Rejected")] == [
        "Oral", "Spotlight", "Poster", "Rejected", "Withdrawn", "Desk rejected"]
    assert read_decision("Accept (Talk)").accepted is True and read_decision("Under review").accepted is None
    assert read_decision(None) is None and read_decision("  ") is None
    counts = decision_counts(["Reject", None, "Accept (Oral)", "Reject", "Under review"])
    assert counts == [("oral", "Oral", 1), ("rejected", "Rejected", 2), ("other", "Other decision", 1), ("none", "No decision", 1)]
