"""generator/ingest/references.py: reference catalogues complete pages, never with another paper's data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.pages.check import check_pages
from generator.problems import errors_only
from generator.config import load_config
from generator.problems import PapersiteError
from generator.pipeline import import_listings
from generator.ingest.listing import parse_listing, read_listing
from generator.ingest.merge import merge_duplicates
from generator.pages.record import parse_page, render_page
from generator.ingest.references import complete_papers

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "corpus" / "references" / "iclr2025_openreview.jsonl.gz"

ABSTRACT_A = (
    "We study how sparse attention patterns emerge in transformers trained on synthetic copying tasks. "
    "Using a controlled family of datasets we show that heads specialise early, that the specialisation "
    "predicts generalisation to longer sequences, and that pruning the specialised heads destroys it. "
    "We release code and a benchmark of forty copying tasks with varied vocabulary sizes."
)
ABSTRACT_B = (  # same authors, same subject, another paper
    "We analyse the optimisation dynamics of sparse attention in transformers with a solvable model. "
    "Gradient flow on a two-layer attention network provably learns induction heads after a plateau "
    "whose length we characterise, and we verify the predicted plateau lengths on language data."
)
# ABSTRACT_A with two sentences rewritten, as a later version of the paper would be.
ABSTRACT_A_REWRITTEN = (
    "We study how sparse attention patterns emerge in transformers trained on synthetic copying tasks. "
    "With a controlled family of datasets, our experiments show that heads specialise very early in training, "
    "that the specialisation predicts generalisation to longer sequences, and that pruning the specialised heads destroys it. "
    "Code and a benchmark of forty copying tasks with varied vocabulary sizes are released."
)
AUTHORS = ["Ada Lovelace", "Charles Babbage"]


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def ref_record(title: str, abstract: str, forum: str, decision: str = "Accept (Poster)", authors=AUTHORS) -> dict:
    return {
        "title": title,
        "authors": list(authors),
        "abstract": abstract,
        "decision": decision,
        "openreview_url": f"https://openreview.net/forum?id={forum}",
    }


def complete(listing_text: str, reference_text: str):
    listing = parse_listing(listing_text.encode(), "listing.jsonl")
    reference = parse_listing(reference_text.encode(), "ref.jsonl")
    papers = merge_duplicates(listing.entries)
    return complete_papers(papers, [reference])


REFERENCE_TEXT = jsonl(
    ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "AAA"),
    ref_record("Induction Heads from Gradient Flow", ABSTRACT_B, "BBB", decision="Reject"),
)


# --------------------------------------------------------------------------- matching


def test_renamed_title_with_the_same_abstract_is_the_same_paper_and_the_listing_title_stays():
    papers, report = complete(jsonl({"title": "How Heads Specialise in Copying Transformers", "abstract": ABSTRACT_A}), REFERENCE_TEXT)
    (paper,) = papers
    assert paper.title == "How Heads Specialise in Copying Transformers"  # the listing's value wins
    assert paper.authors == AUTHORS and paper.decision == "Accept (Poster)"
    assert paper.links == {"openreview": "https://openreview.net/forum?id=AAA", "pdf": "https://openreview.net/pdf?id=AAA"}
    (match,) = report.matches
    assert match.record == 1 and match.differs["title"] == {
        "listing": "How Heads Specialise in Copying Transformers",
        "reference": "Sparse Attention Emerges Early",
    }
    assert "title" not in match.fields and paper.filled_from[0].fields == ("authors", "decision", "links.openreview", "links.pdf")


def test_rewritten_abstract_without_a_title_gets_the_real_title():
    papers, report = complete(jsonl({"abstract": ABSTRACT_A_REWRITTEN}), REFERENCE_TEXT)
    (paper,) = papers
    assert paper.title == "Sparse Attention Emerges Early"
    assert report.matches[0].judgement.strong and report.matches[0].fields[0] == "title"


def test_placeholder_abstract_matches_by_a_unique_title_and_gets_the_abstract():
    papers, report = complete(jsonl({"title": "Sparse attention emerges early", "abstract": "No abstract"}), REFERENCE_TEXT)
    (paper,) = papers
    assert paper.abstract == ABSTRACT_A and paper.authors == AUTHORS
    assert report.matches[0].judgement.kind == "title"


def test_same_authors_same_subject_is_another_paper():
    listing = jsonl({"title": "Induction Heads from Gradient Flow", "authors": AUTHORS, "abstract": ABSTRACT_B})
    papers, report = complete(listing, REFERENCE_TEXT)
    assert [m.record for m in report.matches] == [2]
    assert papers[0].decision == "Reject" and papers[0].links["openreview"].endswith("=BBB")
    assert not report.candidates


def test_two_close_reference_records_are_not_applied_but_reported():
    reference = jsonl(
        ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "AAA"),
        ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "CCC", authors=["Someone Else"]),
    )
    papers, report = complete(jsonl({"abstract": ABSTRACT_A}), reference)
    assert not report.matches and not papers[0].authors and papers[0].title is None
    assert sorted(c.record for c in report.candidates) == [1, 2]
    assert all("close" in c.reason for c in report.candidates)


def test_weak_evidence_is_a_candidate_not_a_match():
    weak = (
        "We study how sparse attention patterns emerge in transformers trained on synthetic copying tasks. "
        "Our analysis covers vision models, reinforcement learning agents and protein language models, where "
        "we measure calibration under distribution shift and propose a new regulariser for each domain."
    )
    papers, report = complete(jsonl({"title": "Calibration Across Domains", "abstract": weak}), REFERENCE_TEXT)
    assert not report.matches and not papers[0].authors
    assert [c.record for c in report.candidates] == [1] and "weak" in report.candidates[0].reason


def test_one_reference_record_fills_one_paper():
    listing = jsonl({"title": "Version One", "abstract": ABSTRACT_A}, {"title": "Version Two", "abstract": ABSTRACT_A_REWRITTEN})
    papers, report = complete(listing, REFERENCE_TEXT)
    assert len(report.matches) == 1 and sum(bool(p.authors) for p in papers) == 1
    assert any("matched to" in c.reason for c in report.candidates)


def test_bundled_pair_by_the_same_authors_gets_each_its_own_record():
    """Corpus 002 #261 and #429: one group, one subject, two papers (and two OpenReview forums)."""
    entries = [e for p in sorted((REPO / "corpus").glob("*.txt")) for e in read_listing(p).entries]
    papers, report = complete_papers(merge_duplicates(entries), [read_listing(REFERENCE)])
    by_label = {label: p for p in papers for label in (e.label() for e in p.entries)}
    brokerage = by_label["002_c9137dbc823dd331.txt #261"]
    volume = by_label["002_c9137dbc823dd331.txt #429"]
    assert brokerage is not volume
    assert brokerage.links["openreview"] != volume.links["openreview"]
    reference = {e.links["openreview"]: e for e in read_listing(REFERENCE).entries}
    assert reference[brokerage.links["openreview"]].title == "A Contextual Online Learning Theory of Brokerage"
    assert reference[volume.links["openreview"]].title == "An Online Learning Theory of Trading-Volume Maximization"
    # no page carries another paper's data: every filled forum is used once
    forums = [p.links["openreview"] for p in papers if "openreview" in p.links]
    assert len(forums) == len(set(forums)) >= 600


@pytest.mark.slow
def test_the_whole_export_matched_against_itself_never_takes_another_record():
    """11,672 real submissions, with their titles dropped: each finds its own record or none."""
    reference = read_listing(REFERENCE)
    own = [e.entry for e in reference.entries if e.abstract and len(e.abstract.split()) >= 30]
    by_number = {e.entry: e for e in reference.entries}
    untitled = "".join(json.dumps({"abstract": by_number[n].abstract}) + "\n" for n in own)
    listing = parse_listing(untitled.encode(), "untitled.jsonl")
    papers = merge_duplicates(listing.entries)
    completed, report = complete_papers(papers, [reference])
    for match in report.matches:
        numbers = {own[e.entry - 1] for e in papers[match.paper].entries}
        record = by_number[match.record]
        # its own record, or one with the very same abstract (one abstract pasted under two titles)
        assert match.record in numbers or record.abstract == completed[match.paper].abstract
    assert len(report.matches) >= 0.99 * len(papers)


# --------------------------------------------------------------------------- import: precedence, removal, provenance


def project(tmp_path: Path, listing: str, reference: str | None = REFERENCE_TEXT) -> Path:
    root = tmp_path / "site"
    (root / "corpus" / "refs").mkdir(parents=True)
    (root / "corpus" / "papers.jsonl").write_text(listing, encoding="utf-8")
    settings = "site_name: Test 2025 Papers\n"
    if reference is not None:
        (root / "corpus" / "refs" / "ref.jsonl").write_text(reference, encoding="utf-8")
        settings += "references:\n- corpus/refs/ref.jsonl\n"
    (root / "papersite.yml").write_text(settings, encoding="utf-8")
    return root


def page_of(root: Path, slug: str):
    return parse_page((root / "site_src" / "papers" / f"{slug}.md").read_text(encoding="utf-8"))


def test_import_fills_pages_records_provenance_and_check_accepts_them(tmp_path):
    root = project(tmp_path, jsonl({"abstract": ABSTRACT_A_REWRITTEN}, {"title": "Induction Heads from Gradient Flow", "abstract": ABSTRACT_B, "authors": ["B. Only"]}))
    report = import_listings([], load_config(root))
    first = page_of(root, "sparse-attention-emerges-early")
    assert not first.title_derived and first.authors == AUTHORS and first.decision == "Accept (Poster)"
    (fill,) = first.filled_from
    assert (fill.reference, fill.record) == ("ref.jsonl", 1) and "title" in fill.fields and 0 < fill.score <= 1
    second = page_of(root, "induction-heads-from-gradient-flow")
    assert second.authors == ["B. Only"]  # listing > reference
    refs = report.to_json()["references"]
    assert [m["record"] for m in refs["matched"]] == [1, 2]
    assert refs["matched"][1]["differs"]["authors"] == {"listing": ["B. Only"], "reference": AUTHORS}
    assert not errors_only(check_pages(load_config(root)))
    # the round trip: the page text reads back to the same provenance
    text = (root / "site_src" / "papers" / "sparse-attention-emerges-early.md").read_text(encoding="utf-8")
    assert "filled_from:" in text and parse_page(render_page(first)).filled_from == first.filled_from


def test_maintainer_edit_wins_over_a_reference_and_provenance_follows(tmp_path):
    root = project(tmp_path, jsonl({"abstract": ABSTRACT_A_REWRITTEN}))
    config = load_config(root)
    import_listings([], config)
    path = root / "site_src" / "papers" / "sparse-attention-emerges-early.md"
    page = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(page.replace(authors=["Ada King"], links={**page.links, "code": "https://example.org/code"})), encoding="utf-8")
    report = import_listings([], config)
    again = page_of(root, "sparse-attention-emerges-early")
    assert again.authors == ["Ada King"] and not report.conflicts
    assert again.links["code"] == "https://example.org/code" and again.links["openreview"].endswith("AAA")
    assert "authors" not in again.filled_from[0].fields and "decision" in again.filled_from[0].fields
    assert import_listings([], config).updated == []  # stable


def test_removing_a_reference_takes_back_exactly_what_it_filled(tmp_path):
    root = project(tmp_path, jsonl({"title": "Sparse Attention Emerges Early", "abstract": ABSTRACT_A, "keywords": ["attention"]}))
    config = load_config(root)
    import_listings([], config)
    path = root / "site_src" / "papers" / "sparse-attention-emerges-early.md"
    page = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(page.replace(body="Maintainer note.", decision="Accept (Oral)")), encoding="utf-8")
    (root / "papersite.yml").write_text("site_name: Test 2025 Papers\n", encoding="utf-8")
    import_listings([], load_config(root))
    after = page_of(root, "sparse-attention-emerges-early")
    assert after.authors == [] and after.links == {} and after.filled_from == []
    assert after.decision == "Accept (Oral)" and after.body.strip() == "Maintainer note."  # the maintainer's stay
    assert (after.title, after.abstract, after.keywords) == (page.title, page.abstract, page.keywords)


def test_a_reference_adds_no_page_and_is_never_read_as_a_listing(tmp_path):
    root = project(tmp_path, jsonl({"title": "Induction Heads from Gradient Flow", "abstract": ABSTRACT_B}))
    shutil.copy(root / "corpus" / "refs" / "ref.jsonl", root / "corpus" / "ref2.jsonl")
    (root / "papersite.yml").write_text("site_name: T\nreferences:\n- corpus/ref2.jsonl\n", encoding="utf-8")
    shutil.rmtree(root / "corpus" / "refs")
    report = import_listings([], load_config(root))
    assert report.papers == 1 and [s["file"] for s in report.sources] == ["papers.jsonl"]
    assert len(list((root / "site_src" / "papers").glob("*.md"))) == 1


def test_bad_reference_settings_are_located_errors(tmp_path):
    root = project(tmp_path, jsonl({"title": "X", "abstract": ABSTRACT_B}), reference=None)
    (root / "papersite.yml").write_text("site_name: T\nreferences:\n- corpus/missing.jsonl\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match=r"papersite.yml:2: reference file corpus/missing.jsonl does not exist"):
        load_config(root)
    (root / "papersite.yml").write_text("site_name: T\nreferences: corpus\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match=r"papersite.yml:2: 'references' must be a list"):
        load_config(root)


# --------------------------------------------------------------------------- topics: listing > conference > inferred; maintainer always


def test_topic_precedence_listing_conference_inferred_and_maintainer(tmp_path):
    labelled = jsonl(
        {**ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "AAA"), "topic": "Deep Learning · Attention Mechanisms"},
        {**ref_record("Induction Heads from Gradient Flow", ABSTRACT_B, "BBB"), "topic": "Theory · Deep Learning"},
    )
    third = "We design a new scheduler for distributed training jobs on shared clusters and measure queueing delays."
    listing = jsonl(
        {"title": "Sparse Attention Emerges Early", "abstract": ABSTRACT_A},  # no topic: the conference's label
        {"title": "Induction Heads from Gradient Flow", "abstract": ABSTRACT_B, "topic": "Optimization · Non-Convex"},
        {"title": "Cluster Scheduling for Training", "abstract": third},  # not in the reference: inferred
    )
    root = project(tmp_path, listing, labelled)
    config = load_config(root)
    import_listings([], config)
    conference = page_of(root, "sparse-attention-emerges-early").topic
    assert (conference.area, conference.subarea, conference.source) == ("Deep Learning", "Attention Mechanisms", "conference")
    assert conference.confidence is None
    listed = page_of(root, "induction-heads-from-gradient-flow").topic
    assert (listed.area, listed.subarea, listed.source) == ("Optimization", "Non-Convex", "listing")
    assert page_of(root, "cluster-scheduling-for-training").topic.source == "inferred"
    # a maintainer's topic wins over the conference's on every later import
    path = root / "site_src" / "papers" / "sparse-attention-emerges-early.md"
    from generator.pages.record import Topic

    page = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(page.replace(topic=Topic("Theory", "Learning Theory", "maintainer"))), encoding="utf-8")
    import_listings([], config)
    kept = page_of(root, "sparse-attention-emerges-early")
    assert (kept.topic.area, kept.topic.source) == ("Theory", "maintainer")
    assert all("topic" not in fill.fields for fill in kept.filled_from)
    assert not errors_only(check_pages(config))


# --------------------------------------------------------------------------- authority, author order, settled matches

WEAK_ABSTRACT = (
    "We study how sparse attention patterns emerge in transformers trained on synthetic copying tasks. "
    "Our analysis covers vision models, reinforcement learning agents and protein language models, where "
    "we measure calibration under distribution shift and propose a new regulariser for each domain."
)


def with_settings(root: Path, text: str) -> None:
    (root / "papersite.yml").write_text("site_name: Test 2025 Papers\n" + text, encoding="utf-8")


def test_an_authoritative_reference_decides_the_title_and_the_listing_title_stays_on_the_page_and_in_search(tmp_path):
    root = project(tmp_path, jsonl({"title": "How Heads Specialise in Copying Transformers", "abstract": ABSTRACT_A, "decision": "Reject"}))
    import_listings([], load_config(root))  # first without the authority: the listing's title makes the slug
    with_settings(root, "references:\n- file: corpus/refs/ref.jsonl\n  authority: [title, decision]\n")
    report = import_listings([], load_config(root))
    assert [p.name for p in (root / "site_src" / "papers").iterdir()] == ["how-heads-specialise-in-copying-transformers.md"]
    page = page_of(root, "how-heads-specialise-in-copying-transformers")  # the slug stays the first title's
    assert page.title == "Sparse Attention Emerges Early" and page.decision == "Accept (Poster)"
    assert page.listed == {"title": "How Heads Specialise in Copying Transformers", "decision": "Reject"}
    assert "title" in page.filled_from[0].fields
    assert report.to_json()["references"]["matched"][0]["differs"]["title"]["listing"] == page.listed["title"]
    assert not errors_only(check_pages(load_config(root)))
    from generator.site.search import _paper_terms, _term_texts, _Terms

    title_terms = _paper_terms(_term_texts(page), _Terms())[0]
    assert {"spars", "specialis"} <= set(title_terms) or {"spars", "specialise"} <= set(title_terms)
    assert import_listings([], load_config(root)).updated == []  # stable on the next import


def test_without_a_declared_authority_the_listing_title_stays(tmp_path):
    root = project(tmp_path, jsonl({"title": "How Heads Specialise in Copying Transformers", "abstract": ABSTRACT_A}))
    import_listings([], load_config(root))
    page = page_of(root, "how-heads-specialise-in-copying-transformers")
    assert page.title == "How Heads Specialise in Copying Transformers" and page.listed == {}


def test_a_maintainer_edit_wins_over_the_authority(tmp_path):
    root = project(tmp_path, jsonl({"title": "How Heads Specialise in Copying Transformers", "abstract": ABSTRACT_A}))
    with_settings(root, "references:\n- file: corpus/refs/ref.jsonl\n  authority: [title]\n")
    config = load_config(root)
    import_listings([], config)
    path = root / "site_src" / "papers" / "sparse-attention-emerges-early.md"  # a new paper: the official title's slug
    page = parse_page(path.read_text(encoding="utf-8"))
    assert page.title == "Sparse Attention Emerges Early" and page.listed["title"] == "How Heads Specialise in Copying Transformers"
    path.write_text(render_page(page.replace(title="Sparse Attention Emerges Early in Copying Transformers")), encoding="utf-8")
    report = import_listings([], config)
    again = page_of(root, "sparse-attention-emerges-early")
    assert again.title == "Sparse Attention Emerges Early in Copying Transformers" and not report.conflicts
    assert "title" not in again.filled_from[0].fields  # the reference no longer gave it


def test_an_ordered_reference_gives_the_order_of_people_a_listing_gave_sorted(tmp_path):
    people = ["Zoe Abe", "Kai Cruz", "Ada Bloom"]
    listing = jsonl({"title": "Sparse Attention Emerges Early", "abstract": ABSTRACT_A, "authors": sorted(people)})
    root = project(tmp_path, listing, reference=jsonl(ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "AAA", authors=people)))
    with_settings(root, "listings:\n  papers.jsonl: {author_order: alphabetical}\nreferences:\n- corpus/refs/ref.jsonl\n")
    report = import_listings([], load_config(root))
    page = page_of(root, "sparse-attention-emerges-early")
    assert page.authors == people and page.author_order is None and "authors" in page.filled_from[0].fields
    assert any("papers.jsonl: author order 'alphabetical' (papersite.yml)" in line for line in report.summary().splitlines())
    # the other way round: the listing keeps the papers' order, a sorted reference changes nothing
    root = project(tmp_path / "two", jsonl({"title": "Sparse Attention Emerges Early", "abstract": ABSTRACT_A, "authors": people}),
                   reference=jsonl(ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "AAA", authors=sorted(people))))
    with_settings(root, "references:\n- file: corpus/refs/ref.jsonl\n  author_order: alphabetical\n")
    import_listings([], load_config(root))
    page = page_of(root, "sparse-attention-emerges-early")
    assert page.authors == people and page.author_order is None


def test_authors_only_a_sorted_reference_gives_are_marked_and_a_maintainer_makes_the_order_known(tmp_path):
    people = ["Zoe Abe", "Kai Cruz", "Ada Bloom"]
    root = project(tmp_path, jsonl({"title": "Sparse Attention Emerges Early", "abstract": ABSTRACT_A}),
                   reference=jsonl(ref_record("Sparse Attention Emerges Early", ABSTRACT_A, "AAA", authors=sorted(people))))
    with_settings(root, "references:\n- file: corpus/refs/ref.jsonl\n  author_order: alphabetical\n")
    config = load_config(root)
    report = import_listings([], config)
    page = page_of(root, "sparse-attention-emerges-early")
    assert page.authors == sorted(people) and page.author_order == "alphabetical"
    assert report.order_unknown == {"sparse-attention-emerges-early"}
    assert report.to_json()["author_order"][-1]["order"] == "alphabetical"
    path = root / "site_src" / "papers" / "sparse-attention-emerges-early.md"
    # reordered but the line left: check warns that the page contradicts itself
    path.write_text(render_page(page.replace(authors=people)), encoding="utf-8")
    problems = check_pages(config)
    assert any("author_order" in p.message and p.severity.name == "WARNING" for p in problems)
    path.write_text(render_page(page.replace(authors=people, author_order=None)), encoding="utf-8")
    import_listings([], config)
    again = page_of(root, "sparse-attention-emerges-early")
    assert again.authors == people and again.author_order is None  # the maintainer's order stays known


def _settle(root: Path, verdict: str, record: int = 1, **paper: str) -> None:
    named = "".join(f"  {key}: {value}\n" for key, value in paper.items())
    (root / ".papersite").mkdir(exist_ok=True)
    (root / ".papersite" / "settled_matches.yaml").write_text(
        f"- {named.lstrip()}  reference: ref.jsonl\n  record: {record}\n  match: {verdict}\n", encoding="utf-8"
    )


def test_a_candidate_confirmed_by_a_maintainer_is_applied_and_one_rejected_is_dropped_across_imports(tmp_path):
    root = project(tmp_path, jsonl({"title": "Calibration Across Domains", "abstract": WEAK_ABSTRACT}))
    config = load_config(root)
    report = import_listings([], config)
    (candidate,) = report.to_json()["references"]["candidates"]
    assert candidate["slug"] == "calibration-across-domains" and candidate["record"] == 1
    assert "settle them in .papersite/settled_matches.yaml" in report.summary()
    _settle(root, "right", paper="calibration-across-domains")
    report = import_listings([], load_config(root))
    page = page_of(root, "calibration-across-domains")
    assert page.authors == AUTHORS and page.filled_from[0].match == "confirmed by a maintainer"
    assert report.to_json()["references"]["candidates"] == []
    _settle(root, "wrong", source='"papers.jsonl #1"')
    report = import_listings([], load_config(root))
    page = page_of(root, "calibration-across-domains")
    assert page.authors == [] and page.filled_from == []  # the reference's fill is taken back
    refs = report.to_json()["references"]
    assert refs["candidates"] == [] and [r["record"] for r in refs["rejected_by_maintainer"]] == [1]
    assert import_listings([], load_config(root)).updated == []


def test_bad_settled_matches_are_located_errors_and_a_changed_record_is_not_applied(tmp_path):
    root = project(tmp_path, jsonl({"title": "Calibration Across Domains", "abstract": WEAK_ABSTRACT}))
    import_listings([], load_config(root))
    settled = root / ".papersite" / "settled_matches.yaml"
    settled.write_text("- paper: no-such-page\n  reference: ref.jsonl\n  record: 1\n  match: right\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match=r"settled_matches.yaml:1: no paper page has the slug 'no-such-page'"):
        import_listings([], load_config(root))
    settled.write_text("- paper: calibration-across-domains\n  reference: ref.jsonl\n  record: 1\n  match: maybe\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match=r"settled_matches.yaml:1: match must be 'right' or 'wrong'"):
        import_listings([], load_config(root))
    settled.write_text(
        "- paper: calibration-across-domains\n  reference: ref.jsonl\n  record: 1\n  match: right\n"
        "  reference_title: Another Title Altogether\n",
        encoding="utf-8",
    )
    report = import_listings([], load_config(root))
    assert page_of(root, "calibration-across-domains").authors == []
    assert any("now titled 'Sparse Attention Emerges Early'" in w for w in report.warnings)


def test_source_settings_are_checked_where_they_are_written(tmp_path):
    root = project(tmp_path, jsonl({"title": "X", "abstract": ABSTRACT_B}))
    with_settings(root, "references:\n- file: corpus/refs/ref.jsonl\n  authority: [keywords]\n")
    with pytest.raises(PapersiteError, match=r"papersite.yml:2: reference .*authority must list some of title, authors"):
        load_config(root)
    with_settings(root, "listings:\n  papers.jsonl: {author_order: sorted}\n")
    with pytest.raises(PapersiteError, match=r"papersite.yml:2: listing 'papers.jsonl': author_order must be one of"):
        load_config(root)
