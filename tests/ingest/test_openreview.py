"""generator/ingest/openreview.py: API v2 notes of accepted, rejected, withdrawn and undecided submissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.config import bundled_taxonomy
from generator.enrich.taxonomy import load_taxonomy
from generator.ingest.listing import ReadSettings, parse_listing
from generator.ingest.openreview import venue_and_decision
from generator.problems import PapersiteError

ABSTRACT = "We study a problem of learning with many words so that this reads like the abstract of a paper."


def note(forum: str, title: str, venue: str, venueid: str = "ICLR.cc/2025/Conference", area: str | None = None, **more) -> dict:
    content = {
        "title": {"value": title},
        "authors": {"value": ["Zoe Zhang", "Adam Abel", "Mia Mo"]},
        "abstract": {"value": ABSTRACT},
        "keywords": {"value": ["diffusion", "Diffusion", "sampling"]},
        "venue": {"value": venue},
        "venueid": {"value": venueid},
        "pdf": {"value": f"/pdf/{forum}.pdf"},
        **({"primary_area": {"value": area}} if area else {}),
        **{key: {"value": value} for key, value in more.items()},
    }
    return {"id": forum, "forum": forum, "content": content}


NOTES = [
    note("acc1", "An Oral", "ICLR 2025 Oral", area="Reinforcement Learning"),
    note("acc2", "A Poster", "ICLR 2025 Poster", area="generative models"),
    note("rej1", "A Rejected One", "Submitted to ICLR 2025", "ICLR.cc/2025/Conference/Rejected_Submission", area="alignment, fairness, safety, privacy, and societal considerations"),
    note("wd1", "A Withdrawn One", "ICLR 2025 Conference Withdrawn Submission", "ICLR.cc/2025/Conference/Withdrawn_Submission"),
    note("new1", "Under Review", "Submitted to ICLR 2025", "ICLR.cc/2025/Conference/Submission"),
]


def read(data: str, name: str = "notes.json"):
    return parse_listing(data.encode("utf-8"), Path(name), ReadSettings(taxonomy=load_taxonomy(bundled_taxonomy())))


@pytest.mark.parametrize("shape", ["list", "object", "object-one-line", "lines"])
def test_every_shape_of_a_dump_is_read_alike(shape: str) -> None:
    data = {
        "list": json.dumps(NOTES, indent=2),
        "object": json.dumps({"notes": NOTES, "count": 5}, indent=2),
        "object-one-line": json.dumps({"notes": NOTES}),
        "lines": "\n".join(json.dumps(n) for n in NOTES),
    }[shape]
    listing = read(data)
    assert listing.format == "openreview" and listing.author_order == "paper"
    assert [e.title for e in listing.entries] == [n["content"]["title"]["value"] for n in NOTES]


def test_titles_authors_in_order_keywords_and_links() -> None:
    first = read(json.dumps(NOTES)).entries[0]
    assert first.authors == ["Zoe Zhang", "Adam Abel", "Mia Mo"]  # the submission's order, not the alphabet's
    assert first.abstract == ABSTRACT and first.keywords == ["diffusion", "sampling"]
    assert first.links == {"openreview": "https://openreview.net/forum?id=acc1", "pdf": "https://openreview.net/pdf?id=acc1"}


def test_venues_and_decisions_of_accepted_rejected_withdrawn_and_undecided_notes() -> None:
    entries = read(json.dumps(NOTES)).entries
    assert [(e.texts.get("venue"), e.decision) for e in entries] == [
        ("ICLR 2025", "Accept (Oral)"),
        ("ICLR 2025", "Accept (Poster)"),
        ("ICLR 2025", "Reject"),
        ("ICLR 2025", "Withdrawn"),
        ("ICLR 2025", None),
    ]
    assert venue_and_decision("ICLR 2025 Conference Desk Rejected Submission", None) == ("ICLR 2025", "Desk Rejected")
    assert venue_and_decision("ICLR 2025 Spotlight", None) == ("ICLR 2025", "Accept (Spotlight)")
    assert venue_and_decision("TMLR", "TMLR") == ("TMLR", None)
    assert venue_and_decision(None, None) == (None, None)


def test_a_primary_area_the_taxonomy_has_is_a_listed_topic_and_one_it_lacks_a_keyword_and_a_warning() -> None:
    listing = read(json.dumps(NOTES))
    oral, poster, rejected = listing.entries[:3]
    assert (oral.topic.area, oral.topic.subarea) == ("Reinforcement Learning", None)
    assert (poster.topic, rejected.topic) == (None, None)
    assert "generative models" in poster.keywords and rejected.keywords[-1].startswith("alignment, fairness")
    unmapped = [w for w in listing.warnings if "not in the site's taxonomy" in w]
    assert len(unmapped) == 2 and "'generative models'" in unmapped[0] and "'alignment, fairness" in unmapped[1]
    theory = read(json.dumps([note("t1", "T", "ICLR 2025 Poster", area="Theory")])).entries[0].topic
    assert (theory.area, theory.subarea) == ("Theory", None)  # an area's name before a sub-area's


def test_a_sub_area_of_one_area_maps_to_both() -> None:
    listing = read(json.dumps([note("s1", "T", "ICLR 2025 Poster", area="graph neural networks")]))
    topic = listing.entries[0].topic
    assert (topic.area, topic.subarea) == ("Deep Learning", "Graph Neural Networks")


def test_a_field_of_the_wrong_type_names_its_note() -> None:
    bad = note("x1", "T", "ICLR 2025 Poster")
    bad["content"]["authors"] = {"value": "Ann Lee, Bo Chen"}  # text: split on commas
    assert read(json.dumps([bad])).entries[0].authors == ["Ann Lee", "Bo Chen"]
    bad["content"]["title"] = {"value": 42}
    with pytest.raises(PapersiteError, match="content.title.value must be text"):
        read(json.dumps([bad]))


def test_a_hostile_forum_id_gives_no_link() -> None:
    entry = read(json.dumps([{**note("x", "T", "V"), "forum": "javascript:alert(1)"}])).entries[0]
    assert "openreview" not in entry.links and entry.links["pdf"] == "https://openreview.net/pdf/x.pdf"


def test_our_json_records_are_not_taken_for_notes() -> None:
    listing = read(json.dumps([{"title": "Plain", "abstract": ABSTRACT, "content": "text"}], indent=1))
    assert listing.format == "json"


def test_notes_of_the_older_api_hold_their_values_directly() -> None:
    old = {"id": "v1", "forum": "v1", "content": {"title": "Old API", "authors": ["Ann Lee", "Bo Chen"], "abstract": ABSTRACT, "venue": "ICLR 2023 poster"}}
    entry = read(json.dumps([old], indent=1)).entries[0]
    assert (entry.title, entry.authors, entry.decision, entry.texts) == ("Old API", ["Ann Lee", "Bo Chen"], "Accept (Poster)", {"venue": "ICLR 2023"})
