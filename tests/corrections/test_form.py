"""The "Fix this paper" form: the committed template, the pre-filled link and the body parser agree."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import yaml

from generator.cli import main
from generator.config import bundled_taxonomy
from generator.corrections.form import (
    ORDER_CHOICES,
    CUT_MARK,
    FIELDS,
    MAX_URL_BYTES,
    NO_DECISION,
    TEMPLATE_PATH,
    decision_choices,
    parse_issue_body,
    prefill_url,
    render_issue_form,
    topic_choices,
)
from generator.pages.decisions import KNOWN as KNOWN_DECISIONS
from generator.pages.record import PaperRecord, SourceRef, Topic
from generator.enrich.taxonomy import load_taxonomy
from site_fixtures import REPO_ROOT

TAXONOMY = load_taxonomy(bundled_taxonomy())
REPO = "https://github.com/example/papers"
# Query keys GitHub reads itself on /issues/new: a field with one of these ids could not be pre-filled.
GITHUB_QUERY_KEYS = {"title", "body", "labels", "template", "assignees", "milestone", "projects", "type"}


def paper(**changes) -> PaperRecord:
    record = PaperRecord(
        id="7f3a2c9e1b04", slug="shortcut", title="One Step Diffusion via Shortcut Models",
        authors=["Kevin Frans", "Danijar Hafner"], topic=Topic("Deep Learning", "Theory", "inferred", 0.7),
        keywords=["diffusion models"], links={"pdf": "https://example.org/a.pdf"},
        abstract="We introduce shortcut models.", sources=[SourceRef("l.txt", 1, "numbered")],
    )
    return record.replace(**changes)


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def test_the_committed_template_is_generated_from_the_taxonomy() -> None:
    committed = (REPO_ROOT / TEMPLATE_PATH).read_text(encoding="utf-8")
    assert committed == render_issue_form(TAXONOMY), "run 'papersite issue-form' and commit the result"
    assert main(["--project", str(REPO_ROOT), "issue-form", "--check"]) == 0


def test_the_template_is_a_valid_issue_form_whose_fields_are_the_parsers() -> None:
    form = yaml.safe_load(render_issue_form(TAXONOMY))
    assert {"name", "description", "body"} <= set(form) and form["labels"] == ["correction"]
    fields = [element for element in form["body"] if element["type"] != "markdown"]
    assert [(e["id"], e["attributes"]["label"], e["type"]) for e in fields] == [(f.id, f.label, f.kind) for f in FIELDS]
    ids = [e["id"] for e in fields]
    assert len(set(ids)) == len(ids) and not set(ids) & GITHUB_QUERY_KEYS
    order, topic, decision = [e for e in fields if e["type"] == "dropdown"]
    assert decision["id"] == "decision" and order["id"] == "author_order"
    assert order["attributes"]["options"] == list(ORDER_CHOICES)
    assert decision["attributes"]["options"] == [d.text for d in KNOWN_DECISIONS] + [NO_DECISION] == decision_choices()
    options = topic["attributes"]["options"]
    assert options == topic_choices(TAXONOMY) and len(set(options)) == len(options)
    assert "none" not in {o.casefold() for o in options}  # GitHub reserves it for "no choice"
    assert len(options) == len(TAXONOMY.areas) + len(TAXONOMY.labels())
    assert [e["id"] for e in fields if e.get("validations", {}).get("required")] == ["paper_id", "reason"]


def test_issue_form_command_writes_the_template_for_another_taxonomy(tmp_path: Path, capsys) -> None:
    (tmp_path / "papersite.yml").write_text("taxonomy_file: areas.yaml\n", encoding="utf-8")
    (tmp_path / "areas.yaml").write_text("Robotics:\n  - Manipulation\n  - Locomotion\nVision:\n", encoding="utf-8")
    assert main(["--project", str(tmp_path), "issue-form", "--check"]) == 1
    assert f"{TEMPLATE_PATH}:1: the correction form is out of date" in capsys.readouterr().err
    assert main(["--project", str(tmp_path), "issue-form"]) == 0
    form = yaml.safe_load((tmp_path / TEMPLATE_PATH).read_text(encoding="utf-8"))
    (topic,) = [e for e in form["body"] if e.get("id") == "topic"]
    assert topic["attributes"]["options"] == ["Robotics", "Robotics › Manipulation", "Robotics › Locomotion", "Vision"]
    assert main(["--project", str(tmp_path), "issue-form", "--check"]) == 0


def test_the_link_opens_the_form_holding_the_page_values() -> None:
    url = prefill_url(REPO, paper(), TAXONOMY)
    assert url.startswith(f"{REPO}/issues/new?template=correct-paper.yml&")
    values = query(url)
    assert values["title"] == "Correct: One Step Diffusion via Shortcut Models"
    assert values["paper_id"] == "7f3a2c9e1b04"
    assert values["paper_title"] == "One Step Diffusion via Shortcut Models"
    assert values["authors"] == "Kevin Frans\nDanijar Hafner"
    assert values["topic"] == "Deep Learning › Theory"
    assert values["keywords"] == "diffusion models" and values["links"] == "pdf: https://example.org/a.pdf"
    assert values["abstract"] == "We introduce shortcut models."
    assert values["decision"] == NO_DECISION  # the page has none
    assert query(prefill_url(REPO, paper(decision="Accept (Spotlight)"), TAXONOMY))["decision"] == "Accept (Spotlight)"
    assert "decision" not in query(prefill_url(REPO, paper(decision="Accept (Talk)"), TAXONOMY))  # no choice of the form
    assert "reason" not in values


def test_a_topic_outside_the_form_choices_is_not_pre_filled() -> None:
    values = query(prefill_url(REPO, paper(topic=Topic("Alchemy", None, "listing")), TAXONOMY))
    assert "topic" not in values


def test_a_long_abstract_is_cut_at_a_word_with_the_mark() -> None:
    abstract = " ".join(f"Ünïcode wörd{n} «quoted» & 100% encoded." for n in range(800))
    url = prefill_url(REPO, paper(abstract=abstract), TAXONOMY)
    assert len(url) <= MAX_URL_BYTES
    cut = query(url)["abstract"]
    assert cut.endswith(f" {CUT_MARK}")
    kept = cut[: -len(CUT_MARK) - 1]
    assert abstract.startswith(kept) and abstract[len(kept)] == " "
    assert len(url) > MAX_URL_BYTES - 200  # it uses the room it has


def test_even_an_absurd_page_gives_a_link_github_accepts() -> None:
    many = paper(
        title="T" * 3000, authors=[f"Author Number{n}" for n in range(400)], keywords=[f"k{n}" for n in range(300)],
        abstract="a" * 9000,
    )
    url = prefill_url(REPO, many, TAXONOMY)
    assert len(url) <= MAX_URL_BYTES
    assert query(url)["paper_id"] == many.id


def test_the_body_parser_reads_sections_in_form_order_only() -> None:
    body = (
        "### Paper id\n\na1\n\n### Title\n\n_No response_\n\n### Abstract\n\nFirst.\n\n### Title\n\nStill abstract.\n\n"
        "### Topic\n\nNone\n\n### Reason\n\nWhy."
    )
    found = parse_issue_body(body)
    assert set(found) == {"paper_id", "abstract", "reason"}
    assert found["abstract"].text == "First.\n\n### Title\n\nStill abstract."
    assert found["abstract"].line == 11 and found["paper_id"].line == 3
