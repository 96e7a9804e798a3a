"""generator/ingest/pagestamp.py: a page edit the import would keep changes nothing the import reads;
the page edits that can change an import's result (a deleted page, one added by hand, an edited id
or slug) change the import stamp, so the import runs."""

from __future__ import annotations

import shutil
from argparse import Namespace
from pathlib import Path

import pytest

from generator.config import load_config
from generator.ingest.importer import run_import
from generator.site import filehashes, incremental
from tests.ingest.test_importer import edit, jsonl, paper, project, snapshot

PAPERS = Path("site_src") / "papers"


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs"), paper("Wave Things", "waves"))})
    assert run_import(Namespace(sources=[], report=None, quiet=True), load_config(root)) == 0
    return root


def stamp_matches(root: Path) -> bool:
    config = load_config(root)
    return incremental.stamp_matches(config, incremental.IMPORT_STAMP, incremental.import_inputs(config))


def test_the_import_leaves_the_stamp_a_build_trusts(imported: Path) -> None:
    assert stamp_matches(imported)


def test_an_import_after_a_page_edit_writes_nothing(imported: Path) -> None:
    page = imported / PAPERS / "graph-things.md"
    edit(page, title="Graph Things, Revisited", keywords=("graphs", "errata"), body="A maintainer's note.")
    assert stamp_matches(imported)  # `papersite build` skips the import
    before = snapshot(imported)
    shutil.rmtree(imported / "build")  # the import itself, with no stamp to trust
    assert run_import(Namespace(sources=[], report=None, quiet=True), load_config(imported)) == 0
    after = snapshot(imported)
    assert {name: data for name, data in after.items() if not name.startswith("build")} == {
        name: data for name, data in before.items() if not name.startswith("build")
    }


def _delete(page: Path) -> None:
    page.unlink()


def _add_by_hand(page: Path) -> None:
    copy = page.with_name("graph-things-by-hand.md")
    copy.write_text(page.read_text(encoding="utf-8").replace("slug: graph-things", "slug: graph-things-by-hand")
                    .replace("id: ", "id: hand-", 1), encoding="utf-8")


def _edit_id(page: Path) -> None:
    page.write_text(page.read_text(encoding="utf-8").replace("id: ", "id: x", 1), encoding="utf-8")


def _edit_slug(page: Path) -> None:
    page.write_text(page.read_text(encoding="utf-8").replace("slug: graph-things", "slug: graph-things-2"), encoding="utf-8")


def _rename(page: Path) -> None:
    page.rename(page.with_name("graph-things-2.md"))


@pytest.mark.parametrize("change", [_delete, _add_by_hand, _edit_id, _edit_slug, _rename])
def test_page_edits_that_can_change_the_import_change_its_stamp(imported: Path, change) -> None:  # noqa: ANN001
    change(imported / PAPERS / "graph-things.md")
    assert not stamp_matches(imported)


def test_a_changed_listing_changes_the_stamp(imported: Path) -> None:
    (imported / "corpus" / "a.jsonl").write_text(jsonl(paper("Graph Things", "graphs")), encoding="utf-8")
    assert not stamp_matches(imported)


def test_only_changed_files_are_read_again(imported: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filehashes, "RACY_NS", 0)  # the files were written just now
    config = load_config(imported)
    incremental.import_inputs(config)
    hashes = incremental.file_hashes(config)
    incremental.import_inputs(config, hashes)
    assert hashes.read == 0
    edit(imported / PAPERS / "graph-things.md", body="A maintainer's note.")
    hashes = incremental.file_hashes(config)
    incremental.import_inputs(config, hashes)
    assert hashes.read == 1


def test_a_state_row_with_a_line_separator_in_a_string_is_read_whole(tmp_path: Path) -> None:
    """The state is written with ensure_ascii=False; str.splitlines would cut this row at U+2028 and lose it."""
    import json

    from generator.config import load_config
    from generator.ingest.pagestamp import _state_rows

    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / ".papersite").mkdir()
    fields = {"abstract": "one\u2028two\x85three"}
    (tmp_path / ".papersite" / "last_import.jsonl").write_text(
        json.dumps({"id": "a1", "slug": "s", "fields": fields}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert _state_rows(load_config(tmp_path)) == {"a1": fields}


@pytest.mark.parametrize("wanted", [["a1"], ["q\"x/y"], ["a1", "b2", "q\"x/y", "gone"], [f"n{i}" for i in range(40)]])
def test_the_state_rows_of_a_few_ids_are_those_the_whole_state_gives(tmp_path: Path, wanted: list[str]) -> None:
    """An edit parses only the state lines that can hold its page's id: whatever escapes a line uses for it."""
    from generator.ingest.pagestamp import _state_rows

    config = _tricky_state(tmp_path)
    whole = _state_rows(config)
    assert whole["q\"x/y"] == {"title": "quoted again, the last row wins"} and whole["b2"] == {"title": "b2 escaped"}
    assert whole["n1"] == {"n": 1}  # (its last line has a key twice: refused)
    assert _state_rows(config, set(wanted)) == {i: whole[i] for i in wanted if i in whole}


def _tricky_state(tmp_path: Path):  # noqa: ANN202 - a ProjectConfig
    """A project whose state escapes ids, repeats them, and holds lines that are no row."""
    import json

    from generator.config import load_config

    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / ".papersite").mkdir()
    lines = [json.dumps({"id": "a1", "slug": "s", "fields": {"title": "first"}}, ensure_ascii=False),
             '{"id": "\\u0062\\u0032", "slug": "t", "fields": {"title": "b2 escaped"}}',
             json.dumps({"id": "q\"x/y", "slug": "u", "fields": {"title": "quoted"}}, ensure_ascii=False),
             '{"id": "q\\"x\\/y", "slug": "u", "fields": {"title": "quoted again, the last row wins"}}',
             "not json a1",
             json.dumps({"id": "c3", "slug": "v", "fields": {"abstract": "names a1 in its text"}}, ensure_ascii=False),
             *(json.dumps({"id": f"n{i}", "slug": f"n{i}", "fields": {"n": i}}) for i in range(50)),
             '{"id": "n1", "slug": "n1", "fields": {"n": 2}, "fields": {"n": 3}}']
    (tmp_path / ".papersite" / "last_import.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_config(tmp_path)


@pytest.mark.parametrize("wanted", [["a1"], ["q\"x/y"], ["n1"], ["a1", "b2", "q\"x/y", "gone"], [f"n{i}" for i in range(40)]])
def test_the_state_rows_read_where_the_page_views_say_are_those_a_search_finds(tmp_path: Path, wanted: list[str]) -> None:
    """An edit reads its page's state row from its line alone (``_state_rows_at``), as the page views kept it; a
    place that holds no such row (another file, a damaged memo) has the state searched instead."""
    from generator.ingest.pagestamp import _state_lines, _state_rows, _state_rows_at

    config = _tricky_state(tmp_path)
    searched = _state_rows(config, set(wanted))
    rows, where = _state_rows_at(config, set(wanted), None)  # none kept: searched, and the places made
    assert rows == searched and where == _state_lines(config.state_file.read_bytes())
    rows, kept = _state_rows_at(config, set(wanted), where)
    assert rows == searched and kept == where
    for damaged in ({i: (o + 1, n) for i, (o, n) in where.items()}, {i: "here" for i in where}, {i: (0, 10**9) for i in where}):
        assert _state_rows_at(config, set(wanted), damaged)[0] == searched


@pytest.mark.parametrize("tail", ["", "\n", "\n\n"])
def test_the_state_row_of_an_id_is_found_on_the_first_and_last_lines(tmp_path: Path, tail: str) -> None:
    """The lines holding an id are cut out of the file's bytes: the first line starts at 0, the last may end without a newline."""
    import json

    from generator.config import load_config
    from generator.ingest.pagestamp import _state_rows

    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / ".papersite").mkdir()
    rows = [json.dumps({"id": i, "slug": i, "fields": {"title": f"t\u00e9 {i}"}}, ensure_ascii=False) for i in ("a1", "b2", "c3")]
    (tmp_path / ".papersite" / "last_import.jsonl").write_text("\n".join(rows) + tail, encoding="utf-8")
    config = load_config(tmp_path)
    assert _state_rows(config, {"a1", "c3"}) == {"a1": {"title": "t\u00e9 a1"}, "c3": {"title": "t\u00e9 c3"}}


def test_a_state_that_is_not_utf8_gives_no_rows_for_a_few_ids_as_for_all(tmp_path: Path) -> None:
    from generator.config import load_config
    from generator.ingest.pagestamp import _state_rows

    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / ".papersite").mkdir()
    (tmp_path / ".papersite" / "last_import.jsonl").write_bytes(b'{"id": "a1", "slug": "s", "fields": {"t": "\xff"}}\n')
    config = load_config(tmp_path)
    assert _state_rows(config) == {} and _state_rows(config, {"a1"}) == {}


# ---------------------------------------------------------------- a maintainer replaces a value a reference filled


@pytest.fixture
def authoritative(tmp_path: Path) -> Path:
    """One paper whose title an authoritative reference decided; the listing's title is kept as ``listed``."""
    from tests.ingest.test_references import ABSTRACT_A, project as reference_project, with_settings

    root = reference_project(tmp_path, jsonl({"title": "How Heads Specialise in Copying Transformers", "abstract": ABSTRACT_A}))
    with_settings(root, "references:\n- file: corpus/refs/ref.jsonl\n  authority: [title]\n")
    assert run_import(Namespace(sources=[], report=None, quiet=True), load_config(root)) == 0
    return root


def _retitle_to_listed(root: Path) -> Path:
    from generator.pages.record import parse_page

    (path,) = (root / PAPERS).glob("*.md")
    record = parse_page(path.read_text(encoding="utf-8"))
    assert "title" in record.filled_from[0].fields and record.listed["title"] != record.title
    edit(path, title=record.listed["title"])
    return path


def test_a_title_edited_back_to_its_listed_value_is_written_as_the_import_would_without_importing(
    authoritative: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import would only take "title" out of the reference's ``filled_from`` (the maintainer
    replaced it): ``papersite build`` writes that page itself and imports nothing (it imported every
    listing again before)."""
    from generator.ingest import importer
    from generator.site import build

    path = _retitle_to_listed(authoritative)
    imported = tmp_path / "imported"
    shutil.copytree(authoritative, imported)
    assert run_import(Namespace(sources=[], report=None, quiet=True), load_config(imported)) == 0  # what the import writes
    expected = snapshot(imported)

    def no_import(*_args, **_kwargs) -> int:
        raise AssertionError("the build imported the listings again")

    monkeypatch.setattr(importer, "run_import", no_import)
    monkeypatch.setattr(build, "_checked_stages", lambda *args, **kwargs: 0)  # the site is not what this is about
    args = Namespace(no_import=False, quiet=True, clean=False, engine="mkdocs", timings=None)
    assert build.run_build(args, load_config(authoritative)) == 0
    assert path.read_bytes() == (imported / PAPERS / path.name).read_bytes()
    assert stamp_matches(authoritative)
    kept = snapshot(authoritative)
    for name in (".papersite/last_import.jsonl", *(n for n in expected if n.startswith(str(PAPERS)))):
        assert kept[name] == expected[name], name


def test_a_page_to_settle_is_left_to_the_import_when_a_listing_changed_too(authoritative: Path) -> None:
    """The import's merge then differs (a new proposal): it runs, and the page is not written first."""
    from generator.site import build

    path = _retitle_to_listed(authoritative)
    edited = path.read_bytes()
    listing = authoritative / "corpus" / "papers.jsonl"
    listing.write_text(listing.read_text(encoding="utf-8").replace("Copying", "Copy"), encoding="utf-8")
    config = load_config(authoritative)
    settle: list = []
    imported = incremental.import_inputs(config, settle=settle)
    assert [p for p, _ in settle] == [path]
    build._settle_page_edits(config, True, settle, imported, incremental.file_hashes(config))
    assert path.read_bytes() == edited


@pytest.mark.parametrize("listing_changed", [False, True], ids=["settled by the build", "imported"])
def test_the_check_reads_the_pages_a_build_wrote_before_it(authoritative: Path, monkeypatch: pytest.MonkeyPatch,
                                                            listing_changed: bool) -> None:
    """The build's stamps and check take each page's stat from one listing of the papers folder; a page the build
    wrote before its check (settled, or the import's) is looked at anew, not by the stat it had when listed: the
    check reads it as written, and the build's stamp is of it as written.
    Every stat trusted at once (no racy margin), as on a page written more than two seconds before the build."""
    from types import SimpleNamespace

    from generator.pages.record import parse_page
    from generator.site import build, memo, stage, textwork

    for module in (memo, filehashes, textwork):
        monkeypatch.setattr(module, "RACY_NS", 0)
    args = Namespace(no_import=False, quiet=True, clean=False, engine="mkdocs", timings=None)
    checked: list = []
    monkeypatch.setattr(stage, "stage_docs", lambda config, **kwargs: checked.append(kwargs["checked"]) or SimpleNamespace(pending=None))
    monkeypatch.setattr(build, "_engine_and_postbuild", lambda *args, **kwargs: 0)
    assert build.run_build(args, load_config(authoritative)) == 0  # keeps every page's stat with its check
    path = _retitle_to_listed(authoritative)
    if listing_changed:
        listing = authoritative / "corpus" / "papers.jsonl"
        listing.write_text(listing.read_text(encoding="utf-8").replace("Copying", "Copy"), encoding="utf-8")
    edited = path.read_bytes()
    assert build.run_build(args, load_config(authoritative)) == 0
    assert path.read_bytes() != edited  # the build (or its import) wrote the page
    (page,) = checked[-1].pages
    assert page.record == parse_page(path.read_text(encoding="utf-8"))
    staged = len(checked)
    assert build.run_build(args, load_config(authoritative)) == 0
    assert len(checked) == staged  # its stamp was of the pages as written: nothing changed since


def test_an_edit_after_an_import_reads_its_pages_state_row_from_its_line_alone(imported: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The import's stamp keeps where each state row lies beside the page views (it viewed every page); an edit then
    reads its page's row from there, not searching the state, and its stamp is the one a search gives."""
    from generator.ingest import pagestamp

    monkeypatch.setattr(filehashes, "RACY_NS", 0)  # the files were written just now
    searched: list = []
    real = pagestamp._state_rows
    monkeypatch.setattr(pagestamp, "_state_rows", lambda config, ids=None: searched.append(ids) or real(config, ids))
    edit(imported / PAPERS / "graph-things.md", title="Graph Things, Revisited")
    assert stamp_matches(imported) and searched == []
    edit(imported / PAPERS / "graph-things.md", title="Graph Things, Revisited Again", id="a-new-id")
    assert not stamp_matches(imported) and searched == []  # an id no row holds: as a search finds


@pytest.mark.parametrize("state_is", ["a FIFO", "a link out of the project"])
def test_a_state_file_put_in_place_after_the_settings_were_read_is_never_read_by_the_stamp(
        imported: Path, tmp_path: Path, state_is: str) -> None:
    """The settings refuse a state file that is no regular file in the project; one swapped in after they were read
    is not read either by the stamp of an edit, which reads the page's state row: a FIFO would hang that read, a link
    out of the project would read another folder's file. The stamp then differs, and the import says what is wrong."""
    import os
    import threading

    from generator.ingest.pagestamp import _state_rows

    config = load_config(imported)
    before = incremental.import_inputs(config)
    row_id = next(iter(_state_rows(config)))
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(config.state_file.read_bytes())
    config.state_file.unlink()
    if state_is == "a FIFO":
        os.mkfifo(config.state_file)
    else:
        config.state_file.symlink_to(outside)
    edit(imported / PAPERS / "graph-things.md", title="Graph Things, Revisited")
    done: list = []
    stamper = threading.Thread(target=lambda: done.append((incremental.import_inputs(config), _state_rows(config, {row_id}))),
                               daemon=True)
    stamper.start()
    stamper.join(30)
    assert done, f"the stamp hung on {state_is}"
    assert done[0][0] != before and done[0][1] == {}
