"""A paper's own venue, end to end: listing -> page -> paper page, citations, home page, correction form.

The field is declared once (``pages/record.py``); this test follows it through every stage
a reader or maintainer meets, on a site whose papers come from two venues.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.cli import main
from generator.corrections.form import FIELD_BY_ID, prefill_url
from generator.pages.record import read_page
from site_fixtures import citation_row

PAPERS = [
    {"title": "Sparse Attention for Long Robot Trajectories", "authors": ["Ana Lee", "Bo Chen", "Cy Diaz"],
     "abstract": "We sparsify attention over long robot trajectories and keep the accuracy of dense attention at a tenth of its cost.",
     "decision": "Accept (Poster)", "venue": "ICML 2025"},
    {"title": "Contact-Rich Manipulation from Few Demonstrations", "authors": ["Dee Park", "Eli Moss"],
     "abstract": "A policy learns contact-rich manipulation from five demonstrations by predicting forces before positions.",
     "decision": "Accept (Oral)", "venue": "CoRL  2024"},
    {"title": "A Benchmark of Household Tasks for Mobile Manipulators", "authors": ["Fay Wu"],
     "abstract": "We release a benchmark of household tasks for mobile manipulators with simulated and real homes to test them.",
     "decision": "Accept (Poster)"},
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venues") / "site"
    assert main(["init", str(root), "--site-name", "Robot Learning 2025"]) == 0
    for example in (root / "corpus").iterdir():
        example.unlink()
    (root / "corpus" / "papers.jsonl").write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    assert main(["--project", str(root), "import"]) == 0
    assert main(["--project", str(root), "build", "--no-import"]) == 0
    return root


def _page(site: Path, title: str):
    for path in sorted((site / "site_src" / "papers").glob("*.md")):
        record = read_page(path)
        if record.title == title:
            return record
    raise AssertionError(f"no page for {title!r}")


def _html(site: Path, slug: str) -> str:
    return (site / "site" / "papers" / slug / "index.html").read_text(encoding="utf-8")


def test_the_listing_venue_reaches_the_page_one_line(site: Path) -> None:
    assert _page(site, PAPERS[0]["title"]).venue == "ICML 2025"
    assert _page(site, PAPERS[1]["title"]).venue == "CoRL 2024"  # white space folded, as every one-line field
    assert _page(site, PAPERS[2]["title"]).venue is None
    text = (site / "site_src" / "papers" / f"{_page(site, PAPERS[0]['title']).slug}.md").read_text(encoding="utf-8")
    assert "\nvenue: ICML 2025\n" in text and text.index("decision:") < text.index("venue:") < text.index("abstract:")


def test_citations_use_the_papers_own_venue_and_fall_back_to_the_sites(site: Path) -> None:
    def cited(paper: dict) -> dict:  # the citations a paper page draws (the citation shards)
        return citation_row(site / "site", _page(site, paper["title"]).slug)

    own = cited(PAPERS[0])
    assert "booktitle = {ICML 2025}" in own["bibtex"] and "year = {2025}" in own["bibtex"]
    assert "T2  - ICML 2025" in own["ris"]
    assert "Accept (Poster) (ICML 2025)" in re.sub(r"<[^>]+>", "", _html(site, _page(site, PAPERS[0]["title"]).slug))
    corl = cited(PAPERS[1])["bibtex"]
    assert "booktitle = {CoRL 2024}" in corl and "year = {2024}" in corl
    fallback = cited(PAPERS[2])["bibtex"]
    assert "booktitle = {Robot Learning 2025}" in fallback and "ICML" not in fallback


def test_the_home_page_counts_papers_per_venue(site: Path) -> None:
    home = re.sub(r"\s+", " ", (site / "site" / "index.html").read_text(encoding="utf-8"))
    venues = re.search(r'<ul class="ps-columns ps-venues">(.*?)</ul>', home)
    assert venues, "no venue counts on the home page"
    items = re.findall(r"<li>(.*?) <span class=ps-count>(\d+)</span></li>", venues.group(1))
    assert sorted(items) == [("CoRL 2024", "1"), ("ICML 2025", "1"), ("Robot Learning 2025", "1")]


def test_the_correction_form_offers_and_prefills_the_venue(site: Path) -> None:
    assert FIELD_BY_ID["venue"].kind == "input"
    url = prefill_url("https://github.com/o/r", _page(site, PAPERS[0]["title"]), None)
    assert "&venue=ICML%202025" in url


def test_one_venue_everywhere_adds_nothing_to_the_home_page(tmp_path: Path) -> None:
    root = tmp_path / "one"
    assert main(["init", str(root), "--site-name", "Robot Learning 2025"]) == 0
    assert main(["--project", str(root), "import"]) == 0
    assert main(["--project", str(root), "build", "--no-import"]) == 0
    assert "ps-venues" not in (root / "site" / "index.html").read_text(encoding="utf-8")


def test_a_reference_fills_a_missing_venue_and_decides_one_it_is_the_authority_for(tmp_path: Path) -> None:
    root = tmp_path / "refs"
    assert main(["init", str(root), "--site-name", "Robot Learning 2025"]) == 0
    for example in (root / "corpus").iterdir():
        example.unlink()
    (root / "corpus" / "papers.jsonl").write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n", encoding="utf-8")
    (root / "refs").mkdir()
    reference = [{**PAPERS[0], "venue": "ICML 2025 (Spotlight track)"}, {**PAPERS[2], "venue": "RSS 2025"}]
    (root / "refs" / "proceedings.jsonl").write_text("\n".join(json.dumps(p) for p in reference) + "\n", encoding="utf-8")
    settings = root / "papersite.yml"
    settings.write_text(
        settings.read_text(encoding="utf-8") + "references:\n- file: refs/proceedings.jsonl\n  authority: [venue]\n",
        encoding="utf-8",
    )
    assert main(["--project", str(root), "import"]) == 0
    decided = _page(root, PAPERS[0]["title"])
    assert decided.venue == "ICML 2025 (Spotlight track)" and decided.listed == {"venue": "ICML 2025"}
    filled = _page(root, PAPERS[2]["title"])
    assert filled.venue == "RSS 2025" and any("venue" in fill.fields for fill in filled.filled_from)
    assert _page(root, PAPERS[1]["title"]).venue == "CoRL 2024"
