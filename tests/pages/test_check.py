"""papersite check: every problem, in every page, at the line a maintainer must fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.pages.check import check_pages
from generator.problems import Problem, Severity
from generator.cli import main
from generator.config import load_config
from generator.pages.record import PaperRecord, SourceRef, Topic, render_page

TAXONOMY = """\
"Deep Learning":
  - "Generative Models and Autoencoders"
  - "Theory"
"Applications":
  - "Computer Vision"
"""


def make_record(slug: str, **changes) -> PaperRecord:
    record = PaperRecord(
        id=f"id-{slug}",
        slug=slug,
        title=f"A paper called {slug}",
        authors=["Ada Lovelace", "Alan Turing"],
        abstract="We study things carefully and report what we found.",
        topic=Topic("Deep Learning", "Theory", "inferred", 0.8),
        keywords=["diffusion models", "theory"],
        links={"pdf": "https://example.org/paper.pdf"},
        sources=[SourceRef("listing.txt", 1, "numbered")],
    )
    return record.replace(**changes)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "papersite.yml").write_text("taxonomy_file: taxonomy.yaml\n", encoding="utf-8")
    (tmp_path / "taxonomy.yaml").write_text(TAXONOMY, encoding="utf-8")
    (tmp_path / "site_src" / "papers").mkdir(parents=True)
    return tmp_path


def write(project: Path, record: PaperRecord, name: str | None = None) -> Path:
    path = project / "site_src" / "papers" / f"{name or record.slug}.md"
    path.write_text(render_page(record), encoding="utf-8")
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture does not contain {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(path: Path, fragment: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if fragment in line:
            return number
    raise AssertionError(f"{fragment!r} not in {path}")


def problems(project: Path) -> list[Problem]:
    return check_pages(load_config(project))


def as_text(found: list[Problem]) -> list[str]:
    return [str(p) for p in found]


def test_clean_pages_have_no_problems(project: Path) -> None:
    write(project, make_record("first-paper"))
    write(project, make_record("second-paper", abstract=None, topic=None, keywords=[]))
    assert problems(project) == []


def test_yaml_that_does_not_parse_is_reported_at_its_line(project: Path) -> None:
    page = write(project, make_record("broken"))
    edit(page, "title: A paper called broken", "title: [A paper called broken")
    found = problems(project)
    assert len(found) == 1
    assert found[0].path == "site_src/papers/broken.md"
    assert "not valid YAML" in found[0].message
    # The parser notices the unclosed bracket at or after the title line.
    assert found[0].line >= line_of(page, "title: [")


def test_missing_and_mistyped_required_fields(project: Path) -> None:
    page = write(project, make_record("fields"))
    edit(page, "title: A paper called fields\n", "")
    edit(page, "authors:\n- Ada Lovelace\n- Alan Turing\n", "authors: Ada Lovelace and Alan Turing\n")
    edit(page, "id: id-fields", "id: 12")
    text = as_text(problems(project))
    assert "site_src/papers/fields.md:1: missing required field 'title'" in text
    assert f"site_src/papers/fields.md:{line_of(page, 'authors:')}: field 'authors' must be a list of names, got text" in text
    assert f"site_src/papers/fields.md:{line_of(page, 'id: 12')}: field 'id' must be text, got int" in text


def test_empty_title_and_abstract(project: Path) -> None:
    page = write(project, make_record("empty"))
    edit(page, "title: A paper called empty", "title: ''")
    edit(page, "abstract: We study things carefully and report what we found.", "abstract: '  '")
    text = as_text(problems(project))
    assert f"site_src/papers/empty.md:{line_of(page, 'title:')}: field 'title' is empty" in text
    assert f"site_src/papers/empty.md:{line_of(page, 'abstract:')}: field 'abstract' is empty" in text


def test_abstract_may_be_absent_only_when_flagged(project: Path) -> None:
    page = write(project, make_record("no-abstract", abstract=None))
    assert problems(project) == []
    edit(page, "abstract_missing: true\n", "")
    assert any("missing field 'abstract'" in p.message for p in problems(project))


def test_duplicate_ids_and_slugs_name_both_files(project: Path) -> None:
    write(project, make_record("original"))
    copy = write(project, make_record("original"), name="copy")
    text = as_text(problems(project))
    slug_line = line_of(copy, "slug:")
    assert f"site_src/papers/copy.md:{line_of(copy, 'id:')}: duplicate id 'id-original': also used by site_src/papers/original.md:2" in text
    assert f"site_src/papers/copy.md:{slug_line}: duplicate slug 'original': also used by site_src/papers/original.md:3" in text
    assert any(p.startswith(f"site_src/papers/copy.md:{slug_line}: slug 'original' differs from the file name") for p in text)
    assert "site_src/papers/original.md:2: duplicate id 'id-original': also used by site_src/papers/copy.md:2" in text


def test_topic_outside_taxonomy_is_an_error_unless_the_listing_said_so(project: Path) -> None:
    chosen = write(project, make_record("chosen", topic=Topic("Astrology", None, "maintainer")))
    listed = write(project, make_record("listed", topic=Topic("Deep Learning", "Quantum Vibes", "listing")))
    found = {p.path: p for p in problems(project)}
    error = found["site_src/papers/chosen.md"]
    assert error.severity is Severity.ERROR and error.line == line_of(chosen, "area: Astrology")
    assert "'Astrology' is not in the taxonomy" in error.message
    warning = found["site_src/papers/listed.md"]
    assert warning.severity is Severity.WARNING and warning.line == line_of(listed, "subarea: Quantum Vibes")
    assert str(warning).startswith(f"site_src/papers/listed.md:{warning.line}: warning: ")


def test_topic_with_bad_source_or_confidence(project: Path) -> None:
    page = write(project, make_record("topical"))
    edit(page, "source: inferred", "source: guessed")
    edit(page, "confidence: 0.8", "confidence: 3")
    messages = {p.line: p.message for p in problems(project)}
    assert "topic source must be one of" in messages[line_of(page, "source: guessed")]
    assert "confidence must be a number from 0 to 1" in messages[line_of(page, "confidence: 3")]


def test_malformed_keywords_point_at_the_item(project: Path) -> None:
    page = write(project, make_record("keywords", keywords=["Diffusion", "diffusion", " padded", "", "ok"]))
    edit(page, "- ok", "- 42")
    found = {(p.line, p.message) for p in problems(project)}
    lines = {p.line for p in problems(project)}
    assert (line_of(page, "- diffusion"), "keyword 'diffusion' repeats keyword #1 (keywords are compared ignoring case)") in found
    assert (line_of(page, "' padded'"), "keyword ' padded' has leading or trailing spaces") in found
    assert (line_of(page, "- ''"), "keyword is empty") in found
    assert (line_of(page, "- 42"), "keyword 42 must be text (quote it)") in found
    assert line_of(page, "- Diffusion") not in lines


def test_links_in_body_must_point_to_existing_pages(project: Path) -> None:
    write(project, make_record("target"))
    (project / "site_src" / "about.md").write_text("# About\n", encoding="utf-8")
    (project / "site_src" / "papers" / "figure.png").write_bytes(b"png")
    body = "\n".join(
        [
            "Notes from the maintainers.",
            "",
            "Good: [target](target.md), [target](/papers/target/), [sibling](../target/), [about](../about.md),",
            "[topic](/topics/deep-learning/theory/), [external](https://example.org/x.md), [anchor](#notes).",
            "Bad: [gone](gone.md) and [gone too](/papers/gone-too/).",
            "Files: ![figure](figure.png) is there, ![lost](lost.png) is not.",
            "Code is not checked: `[x](/papers/nowhere/)`",
            "",
            "[ref]: ../missing-ref/",
        ]
    )
    page = write(project, make_record("linker", body=body))
    found = {(p.line, p.message) for p in problems(project)}
    bad = line_of(page, "Bad:")
    assert found == {
        (bad, "link 'gone.md' points to a page that does not exist"),
        (bad, "link '/papers/gone-too/' points to a page that does not exist"),
        (line_of(page, "Files:"), "link 'lost.png' points to a page that does not exist"),
        (line_of(page, "[ref]:"), "link '../missing-ref/' points to a page that does not exist"),
    }


def test_unknown_field_is_a_warning(project: Path) -> None:
    page = write(project, make_record("typo"))
    edit(page, "keywords:", "keywrods:\n- misspelt\nkeywords:")
    (problem,) = problems(project)
    assert problem.severity is Severity.WARNING
    assert problem.line == line_of(page, "keywrods:")
    assert "unknown field 'keywrods'" in problem.message


def test_all_problems_of_all_pages_are_reported_at_once(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = write(project, make_record("one"))
    two = write(project, make_record("two"))
    write(project, make_record("fine"))
    edit(one, "title: A paper called one", "title: ''")
    edit(two, "area: Deep Learning", "area: Cooking")
    (project / "site_src" / "papers" / "three.md").write_text("no front matter\n", encoding="utf-8")
    assert main(["--project", str(project), "check"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"site_src/papers/one.md:{line_of(one, 'title:')}: field 'title' is empty",
        "site_src/papers/three.md:1: page must start with a '---' line opening the YAML front matter",
        f"site_src/papers/two.md:{line_of(two, 'area:')}: topic area 'Cooking' is not in the taxonomy; "
        "expected one of Applications, Deep Learning",
    ]
    assert "3 error(s)" in err and "in 3 file(s)" in err


def test_clean_check_exits_zero_with_one_summary_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(project, make_record("fine"))
    assert main(["--project", str(project), "check"]) == 0
    out, _ = capsys.readouterr()
    assert len(out.splitlines()) == 1 and out.startswith("papersite check: OK, 1 page(s)")


def test_checks_636_pages_with_cross_links_cleanly(project: Path) -> None:
    # How long it takes is measured by bench/, never asserted here (shared, noisy machines).
    slugs = [f"paper-{n}" for n in range(636)]
    for n, slug in enumerate(slugs):
        body = f"Compare [the previous paper](/papers/{slugs[n - 1]}/).\n" if n % 2 else ""
        write(project, make_record(slug, abstract="word " * 200 + "end", body=body))
    assert problems(project) == []


# --------------------------------------------------------------------------- hostile pages

BOMB = """a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
errata: [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


@pytest.mark.parametrize(
    "old, new, fragment, words",
    [
        ("keywords:", BOMB + "keywords:", "a: &a", "anchors (&name) are not allowed"),
        ("keywords:", "title: Second title\nkeywords:", "title: Second", "key 'title' appears twice"),
        ("source: inferred", "source: inferred\n  source: listing", "source: listing", "key 'source' appears twice"),
        ("confidence: 0.8", "confidence: high", "confidence: high", "must be a number from 0 to 1"),
        ("entry: 1", "entry: .inf", "- file: listing.txt", "needs a whole-number 'entry', got inf"),
        ("entry: 1", "entry: " + "9" * 5000, "entry: 999", "front matter: number 99999999999999999999… has more than 100"),
        ("keywords:", "description: [not, text]\nkeywords:", "description:", "field 'description' must be text"),
        ("slug: index", "slug: index", "slug: index", "slug 'index' is reserved"),
    ],
)
def test_hostile_front_matter_is_an_error_at_its_line(project: Path, old: str, new: str, fragment: str, words: str) -> None:
    page = write(project, make_record("index" if "index" in old else "hostile"))
    edit(page, old, new)
    found = errors_of(project)
    assert any(p.line == line_of(page, fragment) and words in p.message for p in found), as_text(found)


def errors_of(project: Path) -> list[Problem]:
    return [p for p in problems(project) if p.is_error]


def test_body_markup_is_an_error_at_its_line(project: Path) -> None:
    page = write(project, make_record("body", body="Notes.\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n\nnul\x00 and \u202e"))
    found = errors_of(project)
    assert {(p.line, p.message.split(" ")[0]) for p in found} >= {
        (line_of(page, "<script>"), "raw"),
        (line_of(page, "[x]"), "link"),
    }, as_text(found)
    assert len(found) == 5, as_text(found)  # + the script word, the control and the bidi character


def test_a_description_with_markup_is_text_and_no_error(project: Path) -> None:
    page = write(project, make_record("described"))
    edit(page, "keywords:", "description: '\"><script>alert(1)</script>'\nkeywords:")
    assert problems(project) == []


@pytest.mark.parametrize("kind", ["directory", "dangling symlink"])
def test_a_non_file_named_like_a_page_is_an_error(project: Path, kind: str) -> None:
    write(project, make_record("fine"))
    odd = project / "site_src" / "papers" / "odd.md"
    odd.mkdir() if kind == "directory" else odd.symlink_to(project / "nowhere.md")
    (problem,) = problems(project)
    assert problem.path == "site_src/papers/odd.md" and problem.line == 1 and "cannot read the page" in problem.message


def test_check_and_build_agree_on_an_alias_bomb_and_neither_hangs(project: Path) -> None:
    import subprocess
    import sys

    page = write(project, make_record("bomb"))
    edit(page, "keywords:", BOMB + "keywords:")
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "generator.cli", "--project", str(project), *args],
        capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[2],
    )
    check, build = run("check"), run("build", "--no-import", "--quiet")
    expected = f"site_src/papers/bomb.md:{line_of(page, 'a: &a')}: front matter: YAML anchors"
    assert check.returncode == 1 and expected in check.stdout, check.stdout + check.stderr
    assert build.returncode == 1 and expected in build.stderr, build.stderr
    assert "Traceback" not in check.stderr + build.stderr


def test_github_format_annotates_each_problem_on_its_line(project: Path, capsys) -> None:
    page = write(project, make_record("annotated", topic=Topic("Alchemy", None, "maintainer")))
    edit(page, "title: A paper called annotated", "title: ''")
    write(project, make_record("listed", topic=Topic("Alchemy, 100%", None, "listing")))
    assert main(["--project", str(project), "check", "--format", "github"]) == 1
    out = capsys.readouterr().out.splitlines()
    rel = "site_src/papers/annotated.md"
    assert f"::error file={rel},line={line_of(page, 'title:')}::field 'title' is empty" in out
    assert any(l.startswith(f"::error file={rel},line={line_of(page, 'area: Alchemy')}::topic area 'Alchemy'") for l in out)
    # a listing's topic is a warning; '%' in a message is escaped as the runner expects
    (warning,) = [l for l in out if l.startswith("::warning ")]
    assert warning.startswith("::warning file=site_src/papers/listed.md,line=") and "Alchemy, 100%25" in warning
    assert all(l.startswith(("::error ", "::warning ")) for l in out)


def test_body_links_are_checked_against_the_slugs_the_catalogue_hands_out(project: Path) -> None:
    """'C++' and 'C#' slugify alike: the catalogue makes keywords/c/ and keywords/c-2/, and check agrees."""
    write(project, make_record("cpp", keywords=["C++", "C#"]))
    page = write(project, make_record("links", body="See [C#](../../keywords/c-2/) and [C++](../../keywords/c/)."))
    assert problems(project) == []
    edit(page, "../../keywords/c/", "../../keywords/c-3/")
    (problem,) = problems(project)
    assert problem.line == line_of(page, "keywords/c-3/") and "c-3" in problem.message


def test_check_and_import_read_the_taxonomy_alike(project: Path, tmp_path: Path) -> None:
    """A sub-area listed twice: both refuse the file at its line, neither with a traceback."""
    from generator.cli import main

    taxonomy = project / "taxonomy.yaml"  # the file the project's papersite.yml names
    taxonomy.write_text("Theory:\n- Learning Theory\n- Learning Theory\n", encoding="utf-8")
    write(project, make_record("one"))
    found = [p for p in problems(project) if p.path.endswith("taxonomy.yaml")]
    assert [(p.line, "lists sub-area 'Learning Theory' twice" in p.message) for p in found] == [(1, True)]
    (project / "corpus").mkdir(exist_ok=True)
    (project / "corpus" / "a.jsonl").write_text('{"title": "A paper on graphs", "abstract": "We study graphs and more graphs."}\n', encoding="utf-8")
    assert main(["--project", str(project), "import", "--quiet"]) == 1


@pytest.mark.parametrize(("area", "subarea", "at"), [("·", None, "area"), ("Deep Learning", "·", "subarea"),
                                                    ("Deep Learning", " · Theory", "subarea"), ("Deep · Learning", "Theory", "area"),
                                                    ("Deep\\nLearning", None, "area"), ("Deep Learning", "The\\u2028ory", "subarea")])
def test_a_page_topic_with_an_empty_part_or_the_separator_is_refused(project: Path, area, subarea, at) -> None:
    page = write(project, make_record("sep", topic=Topic("Deep Learning", "Theory", "maintainer")))
    edit(page, "area: Deep Learning", f'area: "{area}"')  # (YAML escapes: a line break spelt \n)
    if subarea is not None:
        edit(page, "subarea: Theory", f'subarea: "{subarea}"')
    problems = [p for p in check_pages(load_config(project)) if p.is_error]
    assert [(p.line, p.message.split(" on one line")[0]) for p in problems] == [
        (line_of(page, f"{at}:"), f"topic {'area' if at == 'area' else 'sub-area'} must be a name")]


def test_a_page_with_5000_authors_is_checked_in_bounded_memory(project: Path) -> None:
    # a physics collaboration: check builds the catalogue's author slugs, never every co-author pair
    import tracemalloc

    members = [f"Member {i:05d}" for i in range(5000)]
    write(project, make_record("atlas", authors=members))
    write(project, make_record("small", authors=members[:3]))
    tracemalloc.start()
    try:
        problems = check_pages(load_config(project))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not [p for p in problems if p.is_error]
    assert peak < 48 * 1024 * 1024, f"{peak / 2**20:.0f} MiB"  # every pair: more than a gigabyte


def test_invisible_characters_in_page_values_are_warnings_at_their_line(project: Path) -> None:
    page = write(project, make_record("hidden", title="A title\u200e with a mark",
                                      authors=["Ada Lovelace", "Alan\u200b Turing"], keywords=["diffusion\u2060 models"]))
    found = {(p.line, p.message, p.severity) for p in problems(project)}
    assert (line_of(page, "title:"), "field 'title' holds the invisible character(s) U+200E; delete them unless the script needs them",
            Severity.WARNING) in found
    assert any(line == 7 and "author #2 holds the invisible character(s) U+200B" in m for line, m, _ in found), found
    assert any("keyword #1 holds the invisible character(s) U+2060" in m for _, m, _ in found), found
    assert all(severity is Severity.WARNING for *_, severity in found)


def test_pages_checked_alone_through_the_builds_memo_give_the_checks_findings(project: Path) -> None:
    """A build reads pages through its memo of checked pages (``site/memo.CheckedPages``): each page checked alone as it
    is parsed (``check.own_checks``), its front matter kept only for the checks across pages. The build's findings, as
    it parses the pages and as it reads them back, are the plain check's, problem for problem."""
    from generator.pages.folder import read_pages
    from generator.site.memo import CheckedPages

    write(project, make_record("target"))
    write(project, make_record("astro", topic=Topic("Astrology", None, "maintainer")))
    write(project, make_record("listed", topic=Topic("Deep Learning", "Quantum Vibes", "listing")))
    write(project, make_record("original"))
    write(project, make_record("original"), name="copy")  # a duplicate id and slug, and a slug not its file's name
    write(project, make_record("noted", body="See [target](target.md) and [gone](gone.md).\n\n<script>alert(1)</script>"))
    (project / "site_src" / "papers" / "broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    config = load_config(project)
    plain = check_pages(config)
    assert len(plain) >= 8, as_text(plain)
    for _ in range(2):  # parsed, then read back from the memo
        memo = CheckedPages(config)
        found = read_pages(config, cache=memo)
        assert check_pages(config, cache=memo, found=found) == plain
        assert found.problems == read_pages(config).problems  # a reader of the pages sees their fields' problems only
        assert all(page.checked_alone and set(page.front.data) <= {"id", "slug"} for page in found.pages)
        memo.save()


def test_a_hand_written_page_no_nav_entry_leads_to_is_an_error_at_the_page(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """MkDocs' strict build refused it with words of its own (no path:line), Zensical built it unreachable, and
    `papersite check` said OK: the check now names it, under either engine."""
    write(project, make_record("first-paper"))
    settings = "site_name: t\nnav:\n  - Home: index.md\nvalidation:\n  nav:\n    omitted_files: warn\n"
    (project / "mkdocs.yml").write_text(settings, encoding="utf-8")
    (project / "site_src" / "guide").mkdir()
    (project / "site_src" / "guide" / "index.md").write_text("# Guide\n", encoding="utf-8")
    (project / "site_src" / "guide" / "figure.png").write_bytes(b"\x89PNG")
    capsys.readouterr()
    assert main(["--project", str(project), "check"]) == 1
    said = capsys.readouterr().out
    assert "site_src/guide/index.md:1: no entry of the nav in mkdocs.yml leads to this page" in said
    assert "/guide/index.md under not_in_nav:" in said and "figure.png" not in said
    (project / "mkdocs.yml").write_text(settings.replace("index.md\n", "index.md\n  - Guide: guide/index.md\n", 1), encoding="utf-8")
    assert main(["--project", str(project), "check"]) == 0
    (project / "mkdocs.yml").write_text(settings + "not_in_nav: |\n  /guide/\n", encoding="utf-8")
    assert main(["--project", str(project), "check"]) == 0
