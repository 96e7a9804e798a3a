"""generator/site/serve.py: each rebuild reads papersite.yml again; what cannot change live says "restart needed"."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from generator.cli import main
from generator.config import load_config
from generator.site import build
from generator.site.serve import Rebuilder


@pytest.fixture()
def rebuilder(tmp_path: Path, monkeypatch):
    project = tmp_path / "p"
    assert main(["init", str(project), "--site-name", "Old name"]) == 0
    used = []
    rebuild = Rebuilder(load_config(project), build=lambda config, edited=(): used.append(config) or 0)
    rebuild()  # the first build
    return project, rebuild, used


def edit_settings(project: Path, old: str, new: str) -> None:
    path = project / "papersite.yml"
    text = path.read_text(encoding="utf-8")
    assert old in text, text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_rebuild_uses_the_settings_as_now_edited(rebuilder, capsys):
    project, rebuild, used = rebuilder
    edit_settings(project, 'site_name: "Old name"', "site_name: New name\nsite_url: https://example.org/papers/")
    rebuild()
    assert used[-1].site_name == "New name" and used[-1].site_url == "https://example.org/papers/"
    err = capsys.readouterr().err
    assert "rebuilt in" in err and "papersite.yml changed" in err and "restart" not in err


def test_a_moved_site_or_docs_dir_needs_a_restart_and_the_rest_still_applies(rebuilder, capsys):
    project, rebuild, used = rebuilder
    first = used[-1]
    edit_settings(project, 'site_name: "Old name"', "site_name: New name\nsite_dir: public")
    edit_settings(project, "docs_dir: site_src\npapers_dir: site_src/papers", "docs_dir: pages\npapers_dir: pages/papers")
    (project / "pages" / "papers").mkdir(parents=True)
    rebuild()
    now = used[-1]
    assert now.site_name == "New name"
    assert (now.site_dir, now.docs_dir, now.papers_dir) == (first.site_dir, first.docs_dir, first.papers_dir)
    err = capsys.readouterr().err
    assert "papersite.yml changed site_dir to" in err and "papersite.yml changed docs_dir to" in err
    assert err.count("restart needed") == 2
    (project / "site_src" / "about.md").write_text("# About\n", encoding="utf-8")
    rebuild()  # said once per change, not on every rebuild
    assert "restart needed" not in capsys.readouterr().err and used[-1].site_dir == first.site_dir


def test_a_broken_papersite_yml_fails_the_rebuild_and_keeps_the_last_good_settings(rebuilder, capsys):
    project, rebuild, used = rebuilder
    edit_settings(project, "repo_branch: main", "repo_branch: main\nsite_nmae: typo")
    count = len(used)
    rebuild()
    assert len(used) == count  # nothing built with settings that do not load
    err = capsys.readouterr().err
    assert "papersite.yml:" in err and "site_nmae" in err and "still serving the last good site" in err
    edit_settings(project, "site_nmae: typo", "")
    rebuild()
    assert len(used) == count + 1 and used[-1].site_name == "Old name"


# --------------------------------------------------------------------------- what a rebuild says

from generator.site.serve import _sources, describe_changes, parse_dev_addr  # noqa: E402


def test_changes_are_named_three_at_a_time():
    before = {"a.md": (1, 1), "b.md": (1, 1), "c.md": (1, 1)}
    assert describe_changes(before, before) == "no source changed"
    assert describe_changes(before, {"a.md": (2, 1), "b.md": (1, 1), "d.md": (1, 1)}) == "a.md changed, d.md added, c.md removed"
    many = {f"{n}.md": (2, 2) for n in "abcdef"}
    assert describe_changes(before, many) == "a.md changed, b.md changed, c.md changed, 3 more"


def test_the_sources_are_settings_mkdocs_yml_and_the_docs_but_no_dot_files(rebuilder):
    project, rebuild, _ = rebuilder
    (project / "site_src" / ".cache").mkdir()
    (project / "site_src" / ".cache" / "x").write_text("", encoding="utf-8")
    (project / "site_src" / ".swap.md").write_text("", encoding="utf-8")
    found = _sources(rebuild.config)
    assert {"mkdocs.yml", "papersite.yml"} <= set(found)  # (a new project: its docs are still empty)
    assert not any("/." in name for name in found)
    (project / "site_src" / "about.md").write_text("# About\n", encoding="utf-8")
    assert describe_changes(found, _sources(rebuild.config)).startswith("site_src/about.md")
    (project / "site_src" / "notes" / "deep").mkdir(parents=True)
    (project / "site_src" / "notes" / "deep" / "page.md").write_text("# Deep\n", encoding="utf-8")
    assert _sources(rebuild.config)["site_src/notes/deep/page.md"] == (7, (project / "site_src/notes/deep/page.md").stat().st_mtime_ns)


def test_a_failed_rebuild_keeps_serving_and_says_so(rebuilder, capsys):
    project, rebuild, _ = rebuilder
    rebuild.build = lambda config, edited: 1
    capsys.readouterr()
    rebuild()
    assert rebuild.broken and "rebuild failed after" in capsys.readouterr().err
    rebuild.build = lambda config, edited: (_ for _ in ()).throw(RuntimeError("boom\n::error::x"))
    rebuild()
    err = capsys.readouterr().err
    assert "mkdocs.yml:1: rebuild failed: boom\\n::error::x" in err and "Traceback" not in err
    rebuild.build = lambda config, edited: 130  # Ctrl-C reached the build: the server is stopping, nothing failed
    rebuild()
    err = capsys.readouterr().err
    assert "rebuild interrupted after" in err and "failed" not in err
    rebuild.build = lambda config, edited: 0
    rebuild()
    assert not rebuild.broken and "rebuilt in " in capsys.readouterr().err


@pytest.mark.parametrize("text", ["8000", "host:", "host:0", "host:65536", "host:８０", "a b:80", "[::1]x:80", "h/x:80", "\x00:80"])
def test_a_dev_addr_that_is_no_host_and_port_is_refused_saying_what_is_wrong(text):
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        parse_dev_addr(text)


def test_an_edit_is_built_by_a_build_process_into_the_served_folders_and_gives_a_clean_builds_site(tmp_path, capsys):
    """Each rebuild is `papersite build` in a child process (it forks its workers, which the server's
    process must not); it builds into the folders the server serves, even once papersite.yml moves them."""
    import hashlib
    import shutil
    from dataclasses import replace

    import yaml

    from generator.site.serve import WarmBuilds

    from generator.site.render.map_page import MAP_DATA_FILE
    from site_fixtures import fixture_records, staged_rows, write_project

    records = fixture_records() + [
        replace(fixture_records()[0], id=f"x{i}", slug=f"extra-{i}", title=f"Diffusion shortcut flows {i}", keywords=[])
        for i in range(4)
    ]
    project = write_project(tmp_path / "p", records)
    heard: list[str] = []
    rebuild = Rebuilder(load_config(project), WarmBuilds(heard=heard.append))  # the real build, in processes started ahead
    rebuild()
    assert "rebuilt in" in capsys.readouterr().err and not rebuild.broken
    assert heard == []  # the first build writes nothing first
    waiting = rebuild.build.waiting  # the next edit's build process, its code loaded
    assert waiting is not None and waiting.poll() is None
    page = project / "site_src" / "papers" / "extra-2.md"
    _, front, body = page.read_text(encoding="utf-8").split("---\n", 2)
    data = yaml.safe_load(front)
    data["title"] = "Graph transformers for failure modeling"
    page.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body, encoding="utf-8")
    settings = project / "papersite.yml"
    settings.write_text(settings.read_text(encoding="utf-8") + "site_dir: elsewhere\n", encoding="utf-8")

    rebuild()
    said = capsys.readouterr().err
    assert "rebuilt in" in said and "restart needed" in said, said
    assert not (project / "elsewhere").exists()  # the server serves site/: the build went there
    assert waiting.returncode == 0 and rebuild.build.waiting is not waiting  # it built the edit; another waits
    rebuild.close()
    assert rebuild.build.waiting is None
    shown = (project / "site" / "papers" / "extra-2" / "index.html").read_text(encoding="utf-8")
    assert "Graph transformers for failure modeling" in shown
    # the edited page was written first, before anything else of the site, and said as it was: its final bytes
    digest = hashlib.sha1(shown.encode("utf-8")).hexdigest()
    assert heard == [f"shown papers/extra-2/ {digest}", "writing"], heard

    clean = tmp_path / "clean"
    shutil.copytree(project, clean, ignore=shutil.ignore_patterns("build", "site"))
    settings = clean / "papersite.yml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("site_dir: elsewhere\n", ""), encoding="utf-8")
    assert build.run_build(_build_args(), load_config(clean)) == 0
    for name in ("papers/extra-2/index.html", "papers/extra-1/index.html", MAP_DATA_FILE):
        assert (project / "site" / name).read_bytes() == (clean / "site" / name).read_bytes(), name
    assert staged_rows(project, "papers") == staged_rows(clean, "papers")


@pytest.mark.skipif(importlib.util.find_spec("zensical") is None, reason="zensical is not installed (pip install -e '.[zensical]')")
def test_under_zensical_an_edit_is_rebuilt_into_the_served_site_as_a_clean_build_makes_it(tmp_path, capsys):
    """`papersite serve --engine zensical` is this server over `papersite build --engine zensical` (it ran `zensical
    serve` on a docs dir staged once, so an edited page showed only after the next `papersite build`). The edited page
    is written first, as under MkDocs, also where Zensical then runs."""
    import hashlib
    import shutil

    import yaml

    from generator.site.serve import WarmBuilds
    from site_fixtures import keep_out_of_nav, write_project

    project = write_project(tmp_path / "p")
    keep_out_of_nav(project, "/note.md")  # the hand-written page added below
    heard: list[str] = []
    rebuild = Rebuilder(load_config(project), WarmBuilds(heard=heard.append, engine="zensical"))
    rebuild()
    assert "rebuilt in" in capsys.readouterr().err and not rebuild.broken
    page = project / "site_src" / "papers" / "graph-transformers.md"
    _, front, body = page.read_text(encoding="utf-8").split("---\n", 2)
    data = yaml.safe_load(front)
    data["title"] = "Graph transformers, served again"
    page.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body, encoding="utf-8")
    rebuild()
    assert "rebuilt in" in capsys.readouterr().err and not rebuild.broken
    shown = (project / "site" / "papers" / "graph-transformers" / "index.html").read_text(encoding="utf-8")
    assert "Graph transformers, served again" in shown
    assert "assets/stylesheets/classic/" in shown  # Zensical's rendering
    # written first, as under MkDocs: its final bytes
    assert heard == [f"shown papers/graph-transformers/ {hashlib.sha1(shown.encode('utf-8')).hexdigest()}", "writing"], heard
    # an edit the engine renders too: Zensical runs, its pages moved over the site as kept (the page written first stays)
    data["title"] = "Graph transformers, served a third time"
    page.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body, encoding="utf-8")
    (project / "site_src" / "note.md").write_text("# A note\n\nRendered by the engine.\n", encoding="utf-8")
    rebuild()
    rebuild.close()
    assert "rebuilt in" in capsys.readouterr().err and not rebuild.broken
    assert heard[2].startswith("shown papers/graph-transformers/ "), heard
    shown = (project / "site" / "papers" / "graph-transformers" / "index.html").read_text(encoding="utf-8")
    assert "Graph transformers, served a third time" in shown
    assert "Rendered by the engine." in (project / "site" / "note" / "index.html").read_text(encoding="utf-8")

    clean = tmp_path / "clean"
    shutil.copytree(project, clean, ignore=shutil.ignore_patterns("build", "site", ".cache"))
    assert build.run_build(_build_args("zensical"), load_config(clean)) == 0
    site, clean_site = project / "site", clean / "site"
    assert {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()} == \
        {p.relative_to(clean_site).as_posix(): p.read_bytes() for p in sorted(clean_site.rglob("*")) if p.is_file()}


def test_serve_with_an_engine_that_is_not_installed_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    from generator.site import engines

    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    monkeypatch.setattr(engines, "engine_available", lambda engine: engine != "zensical")
    assert main(["--project", str(project), "serve", "--engine", "zensical"]) == 1
    said = capsys.readouterr().err
    assert "the zensical site engine is not installed" in said and "pip install -e '.[zensical]'" in said, said
    assert "Traceback" not in said


def test_a_page_that_fails_the_check_fails_the_rebuild_and_names_its_line(tmp_path, capfd):
    from site_fixtures import fixture_records, write_project

    project = write_project(tmp_path / "p", fixture_records())
    rebuild = Rebuilder(load_config(project))
    rebuild()
    before = sorted(p.relative_to(project / "site") for p in (project / "site").rglob("*"))
    page = sorted((project / "site_src" / "papers").glob("*.md"))[0]
    page.write_text(page.read_text(encoding="utf-8").replace("title:", "title: [unclosed", 1), encoding="utf-8")
    capfd.readouterr()
    rebuild()
    err = capfd.readouterr().err
    assert rebuild.broken and f"papers/{page.name}:" in err and "still serving the last good site" in err and "Traceback" not in err
    assert sorted(p.relative_to(project / "site") for p in (project / "site").rglob("*")) == before
    rebuild.close()


def test_a_waiting_build_process_builds_when_told_and_ends_quietly_otherwise(tmp_path, monkeypatch):
    import gc
    import io

    from generator.site import memo
    from generator.site.serve import STALE, FirstPages, wait_until_asked
    from site_fixtures import fixture_records, write_project

    monkeypatch.setattr(gc, "freeze", lambda: None)  # (this test's process lives on: nothing of it is kept from the collector)
    project = write_project(tmp_path / "p", fixture_records())
    assert build.run_build(_build_args(), load_config(project)) == 0
    monkeypatch.setattr(memo, "READ_AHEAD", memo.ReadAhead())
    assert wait_until_asked(io.StringIO("go\n"), project) == FirstPages(frozenset())  # build now
    kept = sorted(memo.memo_dir(load_config(project)).rglob("*.pickle"))
    assert kept and all(memo.READ_AHEAD.take(path) is not None for path in kept)  # the last build's memo, read meanwhile
    reader, writer = os.pipe()
    os.write(writer, b"go\n")  # the edit came before the process had read anything ahead
    with open(reader, encoding="utf-8") as asked:
        assert wait_until_asked(asked, project) == FirstPages(frozenset())
    os.close(writer)
    assert not any(memo.READ_AHEAD.take(path) is not None for path in kept)  # it did not keep the edit waiting
    assert wait_until_asked(io.StringIO(""), tmp_path / "none") == 0  # the server stopped it: nothing built, nothing said
    (project / "papersite.yml").write_text("[unclosed\n", encoding="utf-8")
    assert wait_until_asked(io.StringIO("go\n"), project) == FirstPages(frozenset())  # settings the build will refuse: nothing read ahead
    assert not any(memo.READ_AHEAD.take(path) is not None for path in kept)
    loaded = memo.code_version()

    def edited_code() -> str:
        return loaded

    edited_code.__wrapped__ = lambda: "another version"  # papersite's code changed while it waited
    monkeypatch.setattr(memo, "code_version", edited_code)
    assert wait_until_asked(io.StringIO("go\n"), tmp_path) == STALE


def test_a_build_process_whose_code_went_stale_is_replaced_by_a_fresh_one(tmp_path, monkeypatch):
    import subprocess
    import sys

    from generator.site.serve import STALE, WarmBuilds

    statuses = iter([STALE, 0, 0])
    started = []

    def started_process(command):  # noqa: ANN001, ANN202 - a stand-in build process: waits for the word, ends with a status
        started.append(command)
        code = f"import sys; sys.stdin.readline(); sys.exit({next(statuses)})"
        return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE)

    monkeypatch.setattr(WarmBuilds, "_started", staticmethod(started_process))
    (tmp_path / "papersite.yml").write_text("", encoding="utf-8")
    builds = WarmBuilds()
    assert builds(load_config(tmp_path)) == 0  # the stale one, then a fresh one that built
    assert len(started) == 3 and builds.waiting is not None  # and the next edit's, waiting
    builds.close()


def test_served_folders_are_the_restart_settings_and_nothing_else(tmp_path):
    from generator.problems import PapersiteError
    from generator.site.serve import served_folders

    (tmp_path / "papersite.yml").write_text("", encoding="utf-8")
    config = load_config(tmp_path)
    moved = served_folders(config, json.dumps({"site_dir": str(tmp_path / "x"), "docs_dir": str(config.docs_dir),
                                               "papers_dir": str(config.papers_dir)}))
    assert moved.site_dir == tmp_path / "x" and moved.site_name == config.site_name
    for given in ("", "[]", '{"site_dir": "x"}', json.dumps({"site_dir": 1, "docs_dir": "d", "papers_dir": "p"}),
                  json.dumps({"site_dir": "s", "docs_dir": "d", "papers_dir": "p", "site_name": "n"})):
        with pytest.raises(PapersiteError, match="--served-folders"):
            served_folders(config, given)


def _build_args(engine: str = "mkdocs"):  # noqa: ANN202
    import argparse

    return argparse.Namespace(no_import=True, quiet=True, clean=False, engine=engine)


# --------------------------------------------------------------------------- what a rebuild wrote first

def test_a_page_written_first_is_sent_at_once_and_the_rest_until_the_build_writes_in_place(tmp_path):
    import hashlib

    from generator.site.serve import ShownEarly

    shown = ShownEarly()
    assert shown.epoch_of("papers/a/index.html", 5) is None  # no rebuild runs: MkDocs' server answers
    shown.begin(9)
    page = tmp_path / "papers" / "a" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_bytes(b"<h1>new</h1>")
    shown.heard(f"shown papers/a/ {hashlib.sha1(b'<h1>new</h1>').hexdigest()}")
    shown.heard("said by nobody")  # a line it does not know changes nothing
    assert shown.epoch_of("papers/a/index.html", 5) == 9  # its tab will not load it again when the rebuild ends
    assert shown.epoch_of("assets/x.css", 5) == 5  # the last build's, whole: sent as that build's
    assert shown.reloads("papers/a/index.html", 5) and not shown.reloads("papers/a/index.html", 9)
    assert not shown.reloads("papers/b/index.html", 5) and not shown.reloads(None, 5)
    shown.heard("writing")
    assert shown.epoch_of("assets/x.css", 5) is None  # written in place from now on: held until the rebuild ends
    assert shown.epoch_of("papers/a/index.html", 5) == 9  # put in place whole whenever it is written again
    assert not shown.changed(tmp_path)
    page.write_bytes(b"<h1>newer</h1>")  # the rest of the build wrote it otherwise (the engine's shell changed)
    assert shown.changed(tmp_path)
    page.unlink()
    assert shown.changed(tmp_path)
    shown.end()
    assert shown.epoch_of("papers/a/index.html", 5) is None and not shown.reloads("papers/a/index.html", 5)


@pytest.mark.parametrize(("path", "mount", "rel"), [
    ("/papers/a/", "/", "papers/a/index.html"), ("/papers/a/index.html", "/", "papers/a/index.html"),
    ("/", "/", "index.html"), ("/x/papers/a/", "/x/", "papers/a/index.html"), ("/y/a/", "/x/", None),
    ("/papers/../../etc/passwd", "/", "etc/passwd"),
])
def test_a_requests_path_names_the_file_mkdocs_server_would_send(path, mount, rel):
    from generator.site.serve import site_file

    assert site_file(path, mount) == rel
