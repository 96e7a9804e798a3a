"""generator/problems.py: every printed message is one safe line per problem, whatever text a file chose."""

from __future__ import annotations

from pathlib import Path

from generator.cli import main
from generator.pages.record import PaperRecord, SourceRef, render_page
from generator.problems import PapersiteError, Problem, Severity, one_line

HOSTILE_KEY = "note\n::warning file=README.md,line=1::pwned\r::add-mask::x"


def hostile_project(root: Path) -> Path:
    (root / "site_src" / "papers").mkdir(parents=True)
    record = PaperRecord(id="a1", slug="p", title="T", authors=["A"], abstract="An abstract.",
                         sources=[SourceRef("l.txt", 1, "numbered")])
    page = render_page(record).replace("\nsources:", f"\n{HOSTILE_KEY!r}: 1\nsources:".replace("'", '"'), 1)
    (root / "site_src" / "papers" / "p.md").write_text(page, encoding="utf-8")
    return root


def no_workflow_command(output: str) -> None:
    for line in output.splitlines():
        assert not line.lstrip().startswith("::"), line


def test_a_page_key_with_a_newline_cannot_print_a_workflow_command(tmp_path: Path, capsys) -> None:
    project = hostile_project(tmp_path)
    assert main(["--project", str(project), "check"]) == 0  # an unknown key is a warning
    out = capsys.readouterr()
    no_workflow_command(out.out + out.err)
    assert "note\\n::warning file=README.md" in out.out  # shown, as a visible escape
    assert "pwned\\r::add-mask" in out.out


def test_github_format_escapes_the_message_and_the_properties(tmp_path: Path, capsys) -> None:
    project = hostile_project(tmp_path)
    main(["--project", str(project), "check", "--format", "github"])
    lines = capsys.readouterr().out.splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    assert len(annotations) == 1 and annotations[0].startswith("::warning file=")
    assert "note%0A::warning file=README.md,line=1::pwned%0D::add-mask" in annotations[0]
    problem = Problem("a,b:c%\n.md", 3, "50% done\r\nnext")
    assert problem.github_annotation() == "::error file=a%2Cb%3Ac%25%0A.md,line=3::50%25 done%0D%0Anext"


def test_every_line_break_is_escaped_and_no_line_starts_with_two_colons() -> None:
    for brk in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029":
        printed = str(Problem("x.md", 1, f"a{brk}b"))
        assert len(printed.splitlines()) == 1, repr(brk)
    assert one_line("::error::x") == "\\::error::x"
    assert one_line("  ::error::x").startswith("\\")
    assert not str(Problem("", 0, "::set-output name=x::y")).startswith("::")
    assert str(Problem("p.md", 2, "m", Severity.WARNING)) == "p.md:2: warning: m"


def test_a_tools_own_lines_stay_lines_and_each_is_safe() -> None:
    error = PapersiteError(Problem("", 0, "worker failed:", detail="Traceback\n::warning::x\n  line"))
    assert error.lines() == ["worker failed:", "    Traceback", "    \\::warning::x", "      line"]
