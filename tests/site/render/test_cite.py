"""generator/site/render/cite.py: citations a reader can use, honest about what is known."""

from __future__ import annotations

from generator.config import VenueSettings
from generator.pages.decisions import read_decision
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
    record = paper(title="Shortcut models: one network for any step count", title_derived=True, authors=[], links={})
    entry = cite.bibtex(record, ICLR)
    assert "title" not in fields(entry) and "Shortcut models" not in entry and "Title unknown" in entry
    assert entry.startswith("@inproceedings{anon2025_3f2a9c,")
    assert not any(l.startswith("TI") for l in cite.ris(record, ICLR).splitlines())
    assert cite.citation_line(record, ICLR).startswith("Unknown authors. [Title unknown]. In International Conference")
    assert cite.scholar_meta(record, ICLR) == []


def test_a_paper_without_an_accepting_decision_is_never_cited_as_published():
    for decision, said in ((None, "decision not known"), ("Under review", "decision: Under review")):
        record = paper(decision=decision)
        entry = cite.bibtex(record, ICLR)
        assert entry.startswith("@misc{frans2025step_3f2a9c,") and "booktitle" not in entry
        assert fields(entry)["note"] == f"Submitted to ICLR 2025; {said}"
        ris = cite.ris(record, ICLR).splitlines()
        assert ris[0] == "TY  - UNPB" and f"N1  - Submitted to ICLR 2025; {said}" in ris
        assert not any(l.startswith("T2") for l in ris)
        line = cite.citation_line(record, ICLR)
        assert f"Submitted to ICLR 2025; {said}" in line and "In International Conference" not in line
        assert "citation_conference_title" not in dict(cite.scholar_meta(record, ICLR))
    for decision in ("Accept (Oral)", "Accept (Spotlight)", "Accept (Poster)", "Accept (Talk)"):
        assert cite.bibtex(paper(decision=decision), ICLR).startswith("@inproceedings{")
        assert cite.ris(paper(decision=decision), ICLR).startswith("TY  - CONF")


def test_authors_in_an_unknown_order_never_name_a_first_author():
    names = ["Daniel M. Bikel", "Eric Michael Smith", "Yiming Zhang"]  # alphabetical: the export's order
    for order, said in (("alphabetical", "listed alphabetically"), ("unknown", "the order on the paper is not known")):
        record = paper(title="Backtracking Improves Generation Safety", authors=names, author_order=order)
        entry = cite.bibtex(record, ICLR)
        got = fields(entry)
        # the key comes from the title and year, never from the first listed name
        assert entry.startswith("@inproceedings{backtracking2025improves_3f2a9c,") and "bikel" not in entry.split(",")[0]
        assert "author" not in got and said in got["note"] and "Daniel M. Bikel, Eric Michael Smith, Yiming Zhang" in got["note"]
        ris = cite.ris(record, ICLR).splitlines()
        assert not any(l.startswith("AU") for l in ris) and any(l.startswith("N1") and said in l for l in ris)
        line = cite.citation_line(record, ICLR)
        assert line.startswith("[Authors, ") and said in line.split("]")[0]
        tags = cite.scholar_meta(record, ICLR)
        assert not any(name == "citation_author" for name, _ in tags) and ("citation_title", record.title) in tags
    known = paper(authors=names)  # an ordered source: the first author is the first name
    assert cite.bibtex(known, ICLR).startswith("@inproceedings{bikel2025step_3f2a9c,")
    assert [v for n, v in cite.scholar_meta(known, ICLR) if n == "citation_author"] == names


def test_venue_defaults_come_from_the_site_name():
    venue = cite.Venue.from_site_name("NeurIPS 2024 Papers")
    assert (venue.name, venue.short, venue.year) == ("NeurIPS 2024", "NeurIPS 2024", "2024")


def test_the_bundled_pages_cite_the_official_title_an_honest_author_order_and_the_right_entry_type():
    from pathlib import Path

    from generator.config import load_config
    from generator.pages.record import read_page

    repo = Path(__file__).resolve().parents[3]
    config = load_config(repo)
    venue = cite.Venue.from_settings(config.venue, config.site_name)
    pages = [read_page(path) for path in sorted(config.papers_dir.glob("*.md"))]
    retitled = [p for p in pages if p.listed.get("title")]
    unordered = [p for p in pages if p.author_order]
    assert len(retitled) >= 25 and len(unordered) >= 375
    for record in pages:
        entry = cite.bibtex(record, venue)
        if record.listed.get("title"):
            assert record.title != record.listed["title"] and fields(entry)["title"] == " ".join(record.title.split())
        if record.author_order:
            key = entry.split("{", 1)[1].split(",", 1)[0]
            assert not key.startswith(cite._ascii_word(cite._last_name(record.authors[0])).lower() + venue.year)
            assert "author" not in fields(entry) and "citation_author" not in dict(cite.scholar_meta(record, venue))
        if any(s.file.startswith("003_") for s in record.sources) and not any("authors" in f.fields for f in record.filled_from):
            assert record.author_order is None  # corpus 003 gives authors in the papers' order
        decision = read_decision(record.decision)
        if decision is None or decision.accepted is not True:
            assert entry.startswith("@misc{") and cite.ris(record, venue).startswith("TY  - UNPB")


def test_a_bibliographys_entry_type_is_cited_as_that_kind_of_publication():
    article = paper(decision=None, entry_type="article", venue="Journal of Machine Learning Research 2024")
    entry = cite.bibtex(article, cite.venue_of(article, ICLR))
    assert entry.startswith("@article{") and fields(entry)["journal"] == "Journal of Machine Learning Research 2024"
    assert "booktitle" not in fields(entry) and "note" not in fields(entry)
    assert cite.ris(article, cite.venue_of(article, ICLR)).splitlines()[0] == "TY  - JOUR"
    tags = dict(cite.scholar_meta(article, cite.venue_of(article, ICLR)))
    assert tags["citation_journal_title"] == "Journal of Machine Learning Research 2024" and "citation_conference_title" not in tags
    phd = paper(decision=None, entry_type="PhDThesis", venue="MIT 2020")
    thesis = cite.bibtex(phd, cite.venue_of(phd, ICLR))
    assert thesis.startswith("@phdthesis{") and fields(thesis)["school"] == "MIT 2020"


def test_a_decision_outranks_the_entry_type_and_a_preprint_is_not_called_a_submission():
    rejected = cite.bibtex(paper(decision="Reject", entry_type="article"), ICLR)
    assert rejected.startswith("@misc{") and "Submitted to ICLR 2025" in fields(rejected)["note"]
    preprint = paper(decision=None, entry_type="misc", venue="arXiv 2023")
    arxiv = cite.venue_of(preprint, ICLR)
    assert cite.bibtex(preprint, arxiv).startswith("@misc{") and "note" not in fields(cite.bibtex(preprint, arxiv))
    assert not any(line.startswith("N1") for line in cite.ris(preprint, arxiv).splitlines())
    assert "Submitted" not in cite.citation_line(preprint, arxiv) and "arXiv 2023" in cite.citation_line(preprint, arxiv)
    assert cite.bibtex(paper(decision=None, entry_type="unknown-kind"), ICLR).startswith("@inproceedings{")


def test_a_doi_link_is_cited_as_a_doi_and_a_web_page_as_the_url():
    linked = paper(links={"doi": "https://doi.org/10.5555/12345", "url": "https://example.org/p"})
    got = fields(cite.bibtex(linked, ICLR))
    assert got["doi"] == "10.5555/12345" and got["url"] == "https://example.org/p"
    assert "DO  - 10.5555/12345" in cite.ris(linked, ICLR).splitlines()
    assert "doi" not in fields(cite.bibtex(paper(links={"doi": "javascript:x"}), ICLR))


def test_scholar_tags_do_not_repeat_the_abstract():
    """The abstract is on the page; the tag was 1.3 KB of each paper page (issue 31)."""
    names = [name for name, _ in cite.scholar_meta(paper(abstract="We show that x."), ICLR)]
    assert names[0] == "citation_title" and "citation_abstract" not in names
