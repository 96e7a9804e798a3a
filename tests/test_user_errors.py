"""Every user error is ``path:line: message`` and a non-zero exit, never a traceback.

One bad input of each kind a user can hand papersite (a listing, a paper page,
the taxonomy, papersite.yml, mkdocs.yml), each through every command that reads
it, run as the user runs them: ``papersite ...`` and ``mkdocs build``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from site_fixtures import fixture_records, write_project

GOOD_LISTING = '{"title": "Graphs at Scale", "abstract": "We study graphs with a new method for very many nodes and edges."}\n'


def _project(root: Path) -> Path:
    project = write_project(root, [r for r in fixture_records() if r.slug != "hostile-paper"])
    (project / "corpus").mkdir()
    (project / "corpus" / "a.jsonl").write_text(GOOD_LISTING, encoding="utf-8")
    return project


def _settings(project: Path, **changes: object) -> None:
    path = project / "papersite.yml"
    settings = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**settings, **changes}), encoding="utf-8")


def bad_listing(project: Path) -> str:
    (project / "corpus" / "b.jsonl").write_text(GOOD_LISTING + '{"title": 5, "abstract": "x"}\n', encoding="utf-8")
    return "corpus/b.jsonl:2"


def bad_page(project: Path) -> str:
    page = next((project / "site_src" / "papers").glob("*.md"))
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("title: ", "title: [unclosed ", 1), encoding="utf-8")
    return f"site_src/papers/{page.name}:"


def bad_taxonomy(project: Path) -> str:
    (project / "taxonomy.yaml").write_text("Deep Learning:\n- Generative Models\n- Generative Models\n", encoding="utf-8")
    _settings(project, taxonomy_file="taxonomy.yaml")
    return "taxonomy.yaml:1"


def bad_settings(project: Path) -> str:
    _settings(project, site_url="javascript:alert(1)")
    return "papersite.yml:"


def bad_reference(project: Path) -> str:
    (project / "corpus" / "ref.jsonl").write_text('{"title": "x"\n', encoding="utf-8")
    _settings(project, references=["corpus/ref.jsonl"])
    return "corpus/ref.jsonl:1"


INPUTS = [bad_listing, bad_page, bad_taxonomy, bad_settings, bad_reference]
# (command, which inputs it must refuse); for the others it must simply not crash
COMMANDS = {
    "import": {bad_listing, bad_page, bad_taxonomy, bad_settings, bad_reference},
    "build": {bad_listing, bad_page, bad_taxonomy, bad_settings, bad_reference},
    "check": {bad_page, bad_taxonomy, bad_settings},
    "eval": {bad_settings},
}


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator.cli", *args], cwd=project, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("make_bad", INPUTS, ids=lambda f: f.__name__)
def test_no_bad_input_ends_in_a_traceback(tmp_path: Path, make_bad) -> None:
    project = _project(tmp_path)
    where = make_bad(project)
    for command, refused in COMMANDS.items():
        result = _run(project, command)
        output = result.stdout + result.stderr
        assert "Traceback" not in output, f"papersite {command} with {make_bad.__name__}:\n{output}"
        if make_bad in refused:
            assert result.returncode != 0, f"papersite {command} accepted {make_bad.__name__}:\n{output}"
            lines = [re.sub(r"^(papersite|warning): ", "", line) for line in output.splitlines()]
            assert any(where in line and re.match(r"^[^:]+:\d+: \S", line) for line in lines), (
                f"papersite {command}: no '{where}...: message' line for {make_bad.__name__}:\n{result.stderr}"
            )


@pytest.mark.slow
@pytest.mark.parametrize("make_bad", [bad_page, bad_settings], ids=lambda f: f.__name__)
def test_mkdocs_build_reports_a_bad_page_or_setting_without_a_traceback(tmp_path: Path, make_bad) -> None:
    project = _project(tmp_path)
    where = make_bad(project)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet"], cwd=project, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert where in result.stderr, result.stderr


def test_a_bad_mkdocs_yml_is_a_located_problem(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "mkdocs.yml").write_text("site_name: [unclosed\n", encoding="utf-8")
    result = _run(project, "build", "--no-import", "--quiet")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert re.search(r"mkdocs\.yml", result.stderr), result.stderr


# --------------------------------------------------------------------------- files a project may hand papersite
# Every input place (a page, a hand-written page or folder of docs_dir, a listing, a reference
# catalogue, the taxonomy, the state file, papersite.yml itself) holding each kind of thing: a
# link out of the project (to a file holding SECRET), a link that stays inside, a FIFO, a folder.
# Every command that reads the place refuses what leaves the project or is no regular file, with
# `place:line: message`, a non-zero exit and nothing of SECRET written; a link inside is fine.

SECRET = "SECRET-5f1e-not-for-the-site"
KINDS = ("link outside", "link inside", "fifo", "folder")


def _secret_copy(project: Path, text: str) -> Path:
    outside = project.parent / "elsewhere" / "secret.txt"
    outside.parent.mkdir(exist_ok=True)
    outside.write_text(text, encoding="utf-8")
    return outside


def _put(project: Path, rel: str, kind: str, text: str) -> None:
    """``rel`` becomes ``kind``; ``text``: what a good file there holds (the secret file holds it too)."""
    import os

    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "link outside":
        path.symlink_to(_secret_copy(project, text))
    elif kind == "link inside":
        kept = project / "kept" / rel
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(text, encoding="utf-8")
        path.symlink_to(os.path.relpath(kept, path.parent))
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()


def _page(project: Path, kind: str) -> str:
    page = sorted((project / "site_src" / "papers").glob("*.md"))[0]
    text = page.read_text(encoding="utf-8").replace("\nabstract: ", f"\nabstract: {SECRET} ", 1)
    _put(project, f"site_src/papers/{page.name}", kind, text)
    return f"site_src/papers/{page.name}"


def _docs_page(project: Path, kind: str) -> str:
    _put(project, "site_src/about/index.md", kind, f"# About\n\n{SECRET}\n")  # in the nav: strict MkDocs builds it
    return "site_src/about/index.md"


def _docs_folder(project: Path, kind: str) -> str:
    import os

    folder = project / "site_src" / "about"  # its page in the nav: strict MkDocs builds it
    target = project.parent / "elsewhere" if kind == "link outside" else project / "kept" / "about"
    target.mkdir(parents=True, exist_ok=True)
    (target / "index.md").write_text(f"# About\n\n{SECRET}\n", encoding="utf-8")
    folder.symlink_to(os.path.relpath(target, folder.parent))
    return "site_src/about"


def _listing(project: Path, kind: str) -> str:
    _put(project, "corpus/b.jsonl", kind, '{"title": "%s", "abstract": "We study graphs with a new method for many nodes."}\n' % SECRET)
    return "corpus/b.jsonl"


def _reference(project: Path, kind: str) -> str:
    _put(project, "refs/ref.jsonl", kind, '{"title": "Graphs at Scale", "abstract": "%s"}\n' % SECRET)
    _settings(project, references=["refs/ref.jsonl"])
    return "refs/ref.jsonl"


def _taxonomy(project: Path, kind: str) -> str:
    from generator.config import bundled_taxonomy

    _put(project, "tax.yaml", kind, bundled_taxonomy().read_text(encoding="utf-8") + f"# {SECRET}\n")
    _settings(project, taxonomy_file="tax.yaml")
    return "tax.yaml"


def _state(project: Path, kind: str) -> str:
    _put(project, ".papersite/last_import.jsonl", kind, "")
    return ".papersite/last_import.jsonl"


def _settings_file(project: Path, kind: str) -> str:
    _put(project, "papersite.yml", kind, (project / "papersite.yml").read_text(encoding="utf-8") + f"# {SECRET}\n")
    return "papersite.yml"


def _mkdocs_file(project: Path, kind: str) -> str:
    _put(project, "mkdocs.yml", kind, (project / "mkdocs.yml").read_text(encoding="utf-8") + f"# {SECRET}\n")
    return "mkdocs.yml"


# place -> (the commands that read it, the kinds that are fine there besides a link inside)
PLACES = {
    _page: ({"check", "import", "build"}, set()),
    _docs_page: ({"check", "build"}, {"folder"}),  # a folder in docs_dir is just a folder
    _docs_folder: ({"check", "build"}, {"fifo", "folder"}),  # (always a linked folder)
    _listing: ({"check", "import", "build"}, {"folder"}),  # corpus/references/ is a folder of catalogues
    _reference: ({"check", "import", "build"}, set()),
    _taxonomy: ({"check", "import", "build"}, set()),
    _state: ({"check", "import", "build"}, set()),
    _settings_file: ({"check", "import", "build"}, set()),
    _mkdocs_file: ({"check", "build"}, set()),  # (a FIFO there hung both, before they read it as every other input)
}


@pytest.fixture
def no_hang():
    """A read of a FIFO blocks forever: fail instead (a safety net, not a measure of speed)."""
    import signal

    def hung(*_):
        raise AssertionError("papersite hung: it opened a FIFO")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _written(project: Path) -> str:
    """Everything in the project a command may have written (pages, state, site, build)."""
    parts = []
    for path in sorted(project.rglob("*")):
        if path.is_file() and not path.is_symlink() and "kept" not in path.relative_to(project).parts:
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("place", list(PLACES), ids=lambda f: f.__name__.strip("_"))
def test_every_input_is_a_regular_file_inside_the_project(tmp_path: Path, capsys, no_hang, place, kind) -> None:
    from generator.cli import main

    readers, fine = PLACES[place]
    for command in ("check", "import", "build"):
        project = _project(tmp_path / command)
        where = place(project, kind)
        args = ["--project", str(project), command] + (["--quiet"] if command != "check" else [])
        refuse = command in readers and kind != "link inside" and kind not in fine
        if not refuse and command == "build":
            continue  # a whole site per case is too slow: test_a_link_inside_docs_dir_is_published builds one
        status = main(args)
        captured = capsys.readouterr()
        output = captured.out + captured.err
        if refuse:
            assert status != 0, f"papersite {command} accepted {kind} at {where}:\n{output}"
            lines = [re.sub(r"^papersite: ", "", line) for line in output.splitlines()]
            assert any(where in line and re.match(r"^[^\n]+:\d+: \S", line) for line in lines), (
                f"papersite {command}: no '{where}...:line: message' for {kind}:\n{output}"
            )
            assert "OK" not in captured.out, output
        else:
            assert status == 0, f"papersite {command} refused {kind} at {where}:\n{output}"
        if kind == "link outside" and command != "build":
            assert SECRET not in _written(project), f"papersite {command} copied the secret of {where} into the project"


@pytest.mark.slow
def test_a_link_inside_docs_dir_is_published_and_one_outside_never_is(tmp_path: Path, capsys) -> None:
    from generator.cli import main

    project = _project(tmp_path / "linked-in")
    _docs_page(project, "link inside")
    assert main(["--project", str(project), "build", "--quiet"]) == 0, capsys.readouterr().err
    assert SECRET in (project / "site" / "about" / "index.html").read_text(encoding="utf-8")
    project = _project(tmp_path / "linked-out")
    _docs_page(project, "link outside")
    assert main(["--project", str(project), "build", "--quiet"]) != 0
    assert "site_src/about/index.md:1: leads outside the project" in capsys.readouterr().err
    assert SECRET not in _written(project) and not (project / "site").exists()


@pytest.mark.parametrize("command", ["check", "import", "build", "eval", "issue-form"])
def test_a_missing_project_folder_is_an_error_and_is_not_created(tmp_path: Path, capsys, command) -> None:
    from generator.cli import main

    missing = tmp_path / "no-such-project"
    assert main(["--project", str(missing), command]) != 0
    captured = capsys.readouterr()
    assert f"{missing}:1: the project folder (--project) does not exist" in captured.err and "OK" not in captured.out
    assert not missing.exists()


def test_check_of_a_folder_without_paper_pages_is_no_ok(tmp_path: Path, capsys) -> None:
    from generator.cli import main

    assert main(["--project", str(tmp_path), "check"]) == 1
    captured = capsys.readouterr()
    assert "site_src/papers:1: the papers folder (papers_dir) does not exist" in captured.out and "OK" not in captured.out


@pytest.mark.parametrize("kind", ["folder", "folder with a slash", "fifo", "symlink", "under a file"])
@pytest.mark.parametrize("option", ["import --report", "import --timings", "build --timings", "correct --comment"])
def test_an_output_that_is_no_regular_file_fails_before_anything_changes(tmp_path: Path, capsys, no_hang, option, kind) -> None:
    import os

    from generator.cli import main

    project = _project(tmp_path / "project")
    (project / "corpus" / "c.jsonl").write_text(
        '{"title": "Trees at Scale", "abstract": "We study trees with a new method for very many leaves."}\n', encoding="utf-8"
    )
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    out = tmp_path / "out.json"
    if kind.startswith("folder"):
        out.mkdir()
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "symlink":
        out.symlink_to(victim)
    else:
        out = victim / "out.json"
    named = str(out) + ("/" if kind == "folder with a slash" else "")
    before = {p: p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}
    command, flag = option.split()
    extra = [str(tmp_path / "issue.md")] if command == "correct" else ["--quiet"]
    assert main(["--project", str(project), command, *extra, flag, named]) != 0
    err = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(out))}/?:1: ", err), err
    after = {p: p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}
    assert after == before, "the command changed the project although its output could not be written"
    assert victim.read_text(encoding="utf-8") == "keep me" and (kind != "symlink" or out.is_symlink())
    assert kind != "fifo" or os.path.exists(out) and not out.is_file()
