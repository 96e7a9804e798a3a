"""generator/pages/folder.py: every page of the papers folder read once, every problem found on the way."""

from __future__ import annotations

import os
from pathlib import Path

from generator.config import load_config
from generator.pages.folder import display_path, docs_files, page_files, page_paths, read_pages
from generator.pages.record import render_page
from site_fixtures import fixture_records, write_project


def _config(tmp_path: Path, count: int = 3):
    return load_config(write_project(tmp_path, fixture_records()[:count]))


def test_every_page_is_read_in_name_order_with_its_record(tmp_path):
    config = _config(tmp_path)
    pages = read_pages(config)
    assert [p.path.name for p in pages.pages] == sorted(p.name for p in config.papers_dir.glob("*.md"))
    assert {r.id for r in pages.records} == {"a1", "a2", "a3"} and pages.problems == []
    assert page_files(config) == [p.path for p in pages.pages] == page_paths(config)


def test_problems_of_unreadable_broken_and_invalid_pages_are_collected_and_sorted(tmp_path):
    config = _config(tmp_path)
    papers = config.papers_dir
    (papers / "b-broken.md").write_text("no front matter\n", encoding="utf-8")
    (papers / "c-latin1.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    (papers / "d-invalid.md").write_text("---\nid: zz\ntitle: 5\n---\n", encoding="utf-8")
    os.mkfifo(papers / "e-pipe.md")
    (papers / "notes.txt").write_text("not a page", encoding="utf-8")
    pages = read_pages(config)
    by_file = {p.path: p.message for p in pages.problems}
    assert "page must start with a '---' line" in by_file["site_src/papers/b-broken.md"]
    assert "not UTF-8 text" in by_file["site_src/papers/c-latin1.md"]
    assert "cannot read the page: it is a FIFO" in by_file["site_src/papers/e-pipe.md"]
    assert any(p.path == "site_src/papers/d-invalid.md" and p.is_error for p in pages.problems)
    assert pages.problems == sorted(pages.problems)
    assert [p.path.name for p in pages.pages if p.record is None] == ["d-invalid.md"]  # parsed, fields wrong
    assert len(pages.records) == 3 and "e-pipe.md" not in [p.name for p in page_paths(config)]


def test_a_shared_id_or_slug_is_reported_on_every_page_that_holds_it(tmp_path):
    one, two = fixture_records()[:2]
    config = load_config(write_project(tmp_path, [one, two.replace(id=one.id)]))
    messages = sorted((p.path, p.message) for p in read_pages(config).problems)
    assert len(messages) == 2 and all(f"duplicate id '{one.id}': also used by " in m for _, m in messages)
    assert messages[0][1].endswith(f"site_src/papers/{one.slug}.md:2")


def test_texts_stand_in_for_files_and_paths_limit_the_read(tmp_path):
    config = _config(tmp_path)
    first = page_files(config)[0]
    record = fixture_records()[0].replace(title="Changed in memory")
    pages = read_pages(config, paths=[first], texts={first: render_page(record)})
    assert [r.title for r in pages.records] == ["Changed in memory"]
    pages.raise_errors()  # no error: nothing raised


def test_no_papers_folder_is_no_pages(tmp_path):
    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    config = load_config(tmp_path)
    assert page_files(config) == [] and read_pages(config).pages == []


def test_docs_files_are_what_the_stage_copies_and_what_it_may_not_read_is_a_problem(tmp_path):
    config = _config(tmp_path)
    docs = config.docs_dir
    (docs / "about.md").write_text("# About\n", encoding="utf-8")
    (docs / "assets").mkdir()
    (docs / "assets" / "x.css").write_text("a{}", encoding="utf-8")
    (docs / ".hidden").write_text("", encoding="utf-8")
    (docs / "linked").symlink_to(docs / "assets")  # a folder linked from inside: followed, as MkDocs follows it
    (docs / "assets" / "loop").symlink_to(docs)  # a link to a parent: no loop
    outside = tmp_path.parent / f"{tmp_path.name}-secret"
    outside.mkdir()
    (docs / "escape").symlink_to(outside)
    files, problems = docs_files(config)
    assert sorted(files) == ["about.md", "assets/x.css", "linked/x.css"]
    assert not any(name.startswith("papers/") for name in files)
    assert [(p.path, p.line) for p in problems] == [("site_src/escape", 1)] and "leads outside the project" in problems[0].message
    assert docs_files(config, skip=[docs / "assets"])[0].keys() >= {"about.md"}
    assert "assets/x.css" not in docs_files(config, skip=[docs / "assets"])[0]


def test_display_paths_are_relative_to_the_project_when_inside_it(tmp_path):
    assert display_path(tmp_path / "site_src" / "a.md", tmp_path) == "site_src/a.md"
    assert display_path(Path("/elsewhere/a.md"), tmp_path) == "/elsewhere/a.md"
