"""Every listing format people have, end to end: a file -> ``papersite init --from`` / ``import`` -> pages -> site.

The same three papers are written as BibTeX, RIS, CSV, TSV and OpenReview notes; each file alone
must give pages whose titles, authors (in order), abstracts, links and venues are exactly those
papers'. All formats together build one site (one build for all: builds are slow), and the same
paper in a .bib and in our JSON becomes one page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.cli import main
from generator.pages.record import PaperRecord, read_page
from site_fixtures import citation_row

PAPERS = [
    {"title": "Learned Optimizers for Müller Flows", "authors": ["Jörg Müller", "Ann Lee", "Bo Chen"],
     "abstract": "We learn optimizers for Müller flows and show that they converge twice as fast as hand-made ones on every benchmark.",
     "venue": "NeurIPS 2023", "links": {"url": "https://example.org/muller"}},
    {"title": "Contact-Rich Manipulation, from Few \"Demos\"", "authors": ["Zoe Zhang", "Adam Abel"],
     "abstract": "A policy learns contact-rich manipulation from five demonstrations by predicting forces before positions.",
     "venue": "CoRL 2024", "links": {"doi": "https://doi.org/10.5555/777"}},
    {"title": "Graph Networks Under Distribution Shift", "authors": ["Corporate Labs Inc"],
     "abstract": "We measure how graph networks degrade under distribution shift and propose a cheap correction that recovers most of it.",
     "venue": "ICML 2025", "links": {"openreview": "https://openreview.net/forum?id=Gx7_k", "pdf": "https://openreview.net/pdf?id=Gx7_k"}},
]

BIBTEX = r"""@string{nips = "NeurIPS"}
@inproceedings{muller2023,
  title = {Learned Optimizers for M{\"u}ller Flows},
  author = {M{\"u}ller, J{\"o}rg and Lee, Ann and Bo Chen},
  booktitle = nips, year = 2023, url = {https://example.org/muller},
  abstract = {We learn optimizers for M\"{u}ller flows and show that they converge twice as fast as hand-made ones on every benchmark.},
}
@article{zhang2024,
  title = {Contact-Rich Manipulation, from Few "Demos"},
  author = {Zhang, Zoe and Abel, Adam}, journal = {CoRL}, year = {2024}, doi = {10.5555/777},
  abstract = {A policy learns contact-rich manipulation from five demonstrations by predicting forces before positions.},
}
@misc{labs2025,
  title = {Graph Networks Under Distribution Shift}, author = {{Corporate Labs Inc}}, howpublished = {ICML},
  booktitle = {ICML}, year = {2025}, url = {https://openreview.net/forum?id=Gx7_k},
  abstract = {We measure how graph networks degrade under distribution shift and propose a cheap correction that recovers most of it.},
}
"""

RIS = "\n".join(
    [
        "TY  - CONF", "TI  - Learned Optimizers for Müller Flows", "AU  - Müller, Jörg", "AU  - Lee, Ann", "AU  - Chen, Bo",
        f"AB  - {PAPERS[0]['abstract']}", "T2  - NeurIPS", "PY  - 2023", "UR  - https://example.org/muller", "ER  - ",
        "TY  - JOUR", f"TI  - {PAPERS[1]['title']}", "AU  - Zhang, Zoe", "AU  - Abel, Adam",
        f"AB  - {PAPERS[1]['abstract']}", "JO  - CoRL", "PY  - 2024", "DO  - 10.5555/777", "ER  - ",
        "TY  - GEN", f"TI  - {PAPERS[2]['title']}", "AU  - Corporate Labs Inc", f"AB  - {PAPERS[2]['abstract']}",
        "T2  - ICML", "PY  - 2025", "UR  - https://openreview.net/forum?id=Gx7_k", "ER  - ",
    ]
) + "\n"


def _sheet(separator: str) -> str:
    def cell(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    rows = [separator.join(["Paper Title", "Author(s)", "Abstract", "Venue", "Year", "URL", "DOI"])]
    rows.append(separator.join(map(cell, [PAPERS[0]["title"], "Müller, Jörg; Lee, Ann; Chen, Bo", PAPERS[0]["abstract"], "NeurIPS", "2023", "https://example.org/muller", ""])))
    rows.append(separator.join(map(cell, [PAPERS[1]["title"], "Zoe Zhang and Adam Abel", PAPERS[1]["abstract"], "CoRL", "2024", "", "10.5555/777"])))
    rows.append(separator.join(map(cell, [PAPERS[2]["title"], "Corporate Labs Inc", PAPERS[2]["abstract"], "ICML 2025", "2025", "https://openreview.net/forum?id=Gx7_k", ""])))
    return "\r\n".join(rows) + "\r\n"


def _notes() -> str:
    forums = ["m1", "z2", "Gx7_k"]
    notes = [
        {"id": forum, "forum": forum, "content": {
            "title": {"value": paper["title"]}, "authors": {"value": paper["authors"]}, "abstract": {"value": paper["abstract"]},
            "venue": {"value": f"{paper['venue']} Poster"}, "venueid": {"value": "x"}}}
        for forum, paper in zip(forums, PAPERS)
    ]
    return json.dumps({"notes": notes}, ensure_ascii=False, indent=2)


FORMATS = {
    "bibtex": ("lab-publications.txt", BIBTEX),
    "ris": ("export.ris", RIS),
    "csv": ("reading-list.csv", _sheet(",")),
    "tsv": ("reading-list.tsv", _sheet("\t")),
    "openreview": ("notes.json", _notes()),
}


def _pages(root: Path) -> dict[str, PaperRecord]:
    return {record.title: record for record in map(read_page, sorted((root / "site_src" / "papers").glob("*.md")))}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_each_format_alone_gives_exactly_its_papers(tmp_path: Path, fmt: str) -> None:
    name, text = FORMATS[fmt]
    listing = tmp_path / name
    listing.write_text(text, encoding="utf-8")
    root = tmp_path / "site"
    assert main(["init", str(root), "--from", str(listing)]) == 0
    assert sorted(p.name for p in (root / "corpus").iterdir()) == [name]
    assert main(["--project", str(root), "import"]) == 0
    pages = _pages(root)
    assert sorted(pages) == sorted(p["title"] for p in PAPERS)
    for paper in PAPERS:
        page = pages[paper["title"]]
        assert page.authors == paper["authors"] and page.author_order is None  # the paper's order, said so
        assert page.abstract == paper["abstract"]
        assert page.venue == paper["venue"]
        assert page.sources[0].format == ("csv" if fmt == "tsv" else fmt)
        if fmt == "openreview":
            forum = page.links["openreview"].split("=")[1]
            assert page.links == {"openreview": f"https://openreview.net/forum?id={forum}", "pdf": f"https://openreview.net/pdf?id={forum}"}
            assert page.decision == "Accept (Poster)"
        else:
            assert page.links == paper["links"]


def test_init_from_a_file_that_is_no_listing_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.bib"
    bad.write_text("@article{broken,\n  title = {Open brace\n}\n@article{next, title={B}}\n", encoding="utf-8")
    assert main(["init", str(tmp_path / "site"), "--from", str(bad)]) == 2
    assert not (tmp_path / "site").exists()
    assert f"{bad}:1: entry 'broken': unbalanced braces" in capsys.readouterr().err


def test_the_same_paper_in_a_bib_and_in_json_is_one_page_and_all_formats_build_one_site(tmp_path: Path) -> None:
    root = tmp_path / "site"
    assert main(["init", str(root), "--site-name", "Every format"]) == 0
    for example in (root / "corpus").iterdir():
        example.unlink()
    for fmt, (name, text) in FORMATS.items():
        (root / "corpus" / f"{fmt}-{name}").write_text(text, encoding="utf-8")
    ours = {"title": PAPERS[0]["title"], "abstract": PAPERS[0]["abstract"], "decision": "Accept (Oral)", "keywords": ["optimizers"]}
    (root / "corpus" / "ours.jsonl").write_text(json.dumps(ours) + "\n", encoding="utf-8")
    assert main(["--project", str(root), "import"]) == 0
    pages = _pages(root)
    assert len(pages) == 3  # five formats and our JSON, three papers
    muller = pages[PAPERS[0]["title"]]
    assert {s.file for s in muller.sources} == {f"{fmt}-{name}" for fmt, (name, _) in FORMATS.items()} | {"ours.jsonl"}
    assert muller.decision == "Accept (Oral)" and muller.keywords[0] == "optimizers"
    assert main(["--project", str(root), "build", "--no-import"]) == 0
    html = (root / "site" / "papers" / muller.slug / "index.html").read_text(encoding="utf-8")
    assert "Learned Optimizers for Müller Flows" in html and "Jörg Müller" in html
    zhang = pages[PAPERS[1]["title"]]
    assert zhang.entry_type == "article"  # the bibliography's word wins over the sheet's none
    zhang_html = (root / "site" / "papers" / zhang.slug / "index.html").read_text(encoding="utf-8")
    bibtex = citation_row(root / "site", zhang.slug)["bibtex"]  # what the page draws (the citation shards)
    assert bibtex.startswith("@article{") and "journal = {CoRL 2024}" in bibtex
    assert 'name="citation_journal_title" content="CoRL 2024"' in zhang_html


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("lab.bib", BIBTEX.replace("title = {Contact-Rich", "title = {{Contact-Rich"), "lab.bib:8: entry 'zhang2024': unbalanced braces"),
        ("export.ris", RIS.replace("ER  - \nTY  - JOUR", "TY  - JOUR"), "export.ris:1: record starting here has no 'ER  -'"),
        ("sheet.csv", "Name,Writers\nx,y\n", "sheet.csv:1: cannot read this sheet's header: found columns 'Name', 'Writers'"),
        ("notes.json", json.dumps([{"id": "a", "content": {"title": {"value": ["not text"]}}}], indent=1), "notes.json:1: content.title.value must be text"),
    ],
)
def test_a_broken_listing_of_any_format_stops_the_import_before_a_page_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, where: str
) -> None:
    root = tmp_path / "site"
    assert main(["init", str(root)]) == 0
    (root / "corpus" / name).write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["--project", str(root), "import"]) != 0
    err = capsys.readouterr().err
    assert f"corpus/{where}" in err and "nothing was written" in err, err
    assert "Traceback" not in err and list((root / "site_src" / "papers").glob("*.md")) == []
