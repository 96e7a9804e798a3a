"""What one build keeps for the next (generator/site/memo.py): one store, keyed on what the work reads."""

from __future__ import annotations

import itertools
import json
import marshal
import os
import pickle
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator import layout
from generator.config import load_config
from generator.pages.record import PaperRecord, Topic
from generator.site import memo
from generator.catalog import build_catalog
from generator.site.memo import Fingerprints, KnownSlugs, Memo, kept_line, kept_rows, mapped, write_rows
from generator.site.postbuild import page_row, row_line
from generator.site.render import components, paper_pages
from generator.site.render.html import DetailPage
from generator.site.render.indices import DetailSource, detail_sources
from tests.site_fixtures import fixture_records, staged_rows, write_project


@pytest.fixture
def config(tmp_path: Path):  # noqa: ANN201
    (tmp_path / "papersite.yml").write_text("{}\n", encoding="utf-8")
    return load_config(tmp_path)


def test_a_value_is_kept_for_its_key_and_digest_and_anything_unreadable_counts_as_empty(config, monkeypatch) -> None:  # noqa: ANN001
    kept = Memo(config, "things")
    assert kept.value("a", "d1", lambda: [1]) == [1]
    kept.save()
    again = Memo(config, "things")
    assert again.get("a", "d1") == [1] and again.get("a", "d2") is None and again.get("b", "d1") is None
    assert Memo(config, "things", scope="another taxonomy").get("a", "d1") is None
    monkeypatch.setattr(memo, "code_version", lambda: "other code")
    assert Memo(config, "things").get("a", "d1") is None  # papersite's code changed: nothing kept
    assert Memo(config, "unversioned", versioned=False).get("a", "d1") is None
    monkeypatch.undo()
    for damage in (b"\x80damaged", b"", b"not a pickle at all"):
        again.path.write_bytes(damage)
        assert Memo(config, "things").get("a", "d1") is None
    fresh = Memo(config, "things")
    assert fresh.value("a", "d1", lambda: [2]) == [2]  # computed again
    fresh.save()
    assert Memo(config, "things").get("a", "d1") == [2]


def test_a_sharded_kind_writes_only_the_files_whose_entries_changed(config) -> None:  # noqa: ANN001
    """An edit of one page must not rewrite the whole kind (35 MB of page checks at 11,672 papers)."""
    kept = Memo(config, "pages", shards=8)
    for n in range(200):
        kept.put(f"page-{n}", "d", [n])
    kept.save()
    files = sorted(kept.path.glob("*.pickle"))
    assert len(files) == 8
    for f in files:  # whatever the clock's grain, a rewritten file gets another time
        os.utime(f, ns=(1, 1))
    again = Memo(config, "pages", shards=8)
    assert all(again.get(f"page-{n}", "d") == [n] for n in range(200) if n != 7)
    again.put("page-7", "d2", ["seven"])  # one page changed
    again.save()
    rewritten = [f for f in files if f.stat().st_mtime_ns != 1]
    assert len(rewritten) == 1
    dropped = Memo(config, "pages", shards=8)  # a page deleted: its entry not used, its shard rewritten
    assert all(dropped.get(f"page-{n}", "d") == [n] for n in range(1, 200) if n != 7)
    assert dropped.get("page-7", "d2") == ["seven"]
    dropped.save()
    last = Memo(config, "pages", shards=8)
    assert last.get("page-0", "d") is None and last.get("page-7", "d2") == ["seven"] and last.get("page-199", "d") == [199]
    # a copy of a kept entry counts as a change (callers may fill ``new`` themselves: postbuild, pagestamp)
    last.new = {key: (digest, value) for key, (digest, value) in last.old.items()}
    last.new["page-9"] = ("d", ["nine again"])
    last.save()
    assert Memo(config, "pages", shards=8).get("page-9", "d") == ["nine again"]


def test_a_sharded_kind_trusts_nothing_after_a_forget_without_a_save_and_ignores_a_damaged_file(config) -> None:  # noqa: ANN001
    kept = Memo(config, "pages", shards=4)
    for n in range(40):
        kept.put(f"p{n}", "d", n)
    kept.save()
    damaged = sorted(kept.path.glob("*.pickle"))[0]
    damaged.write_bytes(b"\x80damaged")
    partial = Memo(config, "pages", shards=4)
    held = [n for n in range(40) if partial.get(f"p{n}", "d") == n]
    assert 0 < len(held) < 40  # the other files are still read
    for n in range(40):
        partial.value(f"p{n}", "d", lambda n=n: n)
    partial.save()  # the damaged file is written again
    whole = Memo(config, "pages", shards=4)
    assert all(whole.get(f"p{n}", "d") == n for n in range(40))
    whole.forget()  # a step rewriting what the entries describe, then stopped before its save
    assert all(Memo(config, "pages", shards=4).get(f"p{n}", "d") is None for n in range(40))
    whole.save()
    assert all(Memo(config, "pages", shards=4).get(f"p{n}", "d") == n for n in range(40))
    memo.forget_all(config)  # build --clean
    assert not kept.path.exists()


@dataclass
class _Shown:
    title: str
    tags: list[str]
    memo: dict = field(default_factory=dict, compare=False)


def test_a_fingerprint_is_the_values_whatever_their_history() -> None:
    prints = Fingerprints()
    one = _Shown("A", ["x", "y"])
    assert prints.of(one) == Fingerprints().of(_Shown("A", ["x", "y"], {"ignored": 1}))  # compare=False: a memo
    assert prints.of(one) != Fingerprints().of(_Shown("A", ["x", "z"]))
    assert prints.of("a", 1) != prints.of("a", "1") != prints.of(("a", 1))
    # Equal sets may iterate in different orders (the hash seed, their history), so only unequal ones are pinned.
    assert prints.of({"a", "b"}) != prints.of({"a", "c"})
    record = fixture_records()[0]
    assert prints.of(record) == Fingerprints().of(replace(record))
    assert prints.of(record) != Fingerprints().of(replace(record, decision="Reject"))
    assert prints.of(paper_pages.paper_page) != prints.of(paper_pages.render_paper_page)  # work is named by its function
    # a renderer and its arguments: each dataclass by its digest and each function by its name, never as a
    # string or another value that spells the same
    key = prints.of(paper_pages.paper_page, (record, one), [record])
    assert key == Fingerprints().of(paper_pages.paper_page, (replace(record), _Shown("A", ["x", "y"])), [replace(record)])
    assert key != prints.of(paper_pages.paper_page, (replace(record, title="Other"), one), [record])
    digest = prints.digest_of(record)
    spelt = [f"dataclass {digest}", f"function {paper_pages.paper_page.__module__} {paper_pages.paper_page.__qualname__}"]
    assert prints.of(paper_pages.paper_page, record) != prints.of(paper_pages.paper_page, spelt[0])
    assert prints.of(paper_pages.paper_page) != prints.of(spelt[1]) != prints.of(record)
    assert prints.of(record, paper_pages.paper_page) != prints.of(record, spelt[1])
    with pytest.raises(TypeError):
        prints.of(paper_pages.paper_page, (lambda: 1,))  # no name to find it by
    catalog = build_catalog(fixture_records())
    with pytest.raises(TypeError):
        prints.of(catalog)  # links every node to every other: hand a renderer its view instead
    with pytest.raises(TypeError):
        prints.of(catalog.areas[0])
    assert prints.of(catalog.authors[0])  # an author is a value: its papers, and links to its co-authors
    with pytest.raises(TypeError):
        prints.of(object())


def test_known_slugs_are_kept_between_builds_and_a_damaged_file_counts_as_empty(config, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(layout, "_SLUG_OF", {})
    assert layout.slug_of("José García") == "jose-garcia"
    KnownSlugs(config).save()

    monkeypatch.setattr(layout, "_SLUG_OF", {})  # a new process
    KnownSlugs(config)
    assert layout.known_slugs() == {"José García": "jose-garcia"}

    (config.build_dir / "memo" / "slugs.pickle").write_bytes(b"\x80damaged")
    monkeypatch.setattr(layout, "_SLUG_OF", {})
    KnownSlugs(config)
    assert layout.known_slugs() == {}
    assert layout.slug_of("Index") == "index-x"  # reserved, as without the memo


def _render(calls: list[str], url: str, body: str) -> DetailPage:
    calls.append(url)
    return DetailPage(url, url.upper(), body)


def _line(page: DetailPage) -> bytes:
    return row_line(page_row(page))


def _rows(config, section: str, target: Path) -> bytes:  # noqa: ANN001
    """The lines ``write_rows`` left for ``section``, as the post-build step reads them (in page order)."""
    kept = kept_rows(config, section, target)
    assert kept is not None
    with mapped(target) as lines:
        return b"".join(kept_line(lines, where) for _, where in kept)


def test_a_row_is_rendered_only_when_its_arguments_change_and_the_rows_are_what_a_full_render_gives(config) -> None:  # noqa: ANN001
    target = config.build_dir / "postbuild" / "authors.json"
    bodies = {"authors/a/": "<h1>A</h1>", "authors/b/": "<h1>B ‹b›</h1>", "authors/c/": "<h1>C</h1>"}
    calls: list[str] = []

    def rows(section: str, into: Path) -> int:
        units = [DetailSource(url, _Renderer(calls), (url, body)) for url, body in bodies.items()]
        return write_rows(config, section, units, into, _line, Fingerprints())

    assert rows("authors", target) == 3
    full = target.read_bytes()
    assert [json.loads(line)[0] for line in full.splitlines()] == list(bodies)
    assert _rows(config, "authors", target) == full

    calls.clear()
    bodies["authors/b/"] = "<h1>B, renamed</h1>"
    assert rows("authors", target) == 1
    assert calls == ["authors/b/"]
    rendered_again = config.build_dir / "again.json"
    rows("other", rendered_again)
    assert _rows(config, "authors", target) == rendered_again.read_bytes()

    # a kept line whose bytes changed (same size) is rendered again; so is every row without the memo;
    # both leave the file written whole, as a full render writes it
    data = _rows(config, "authors", target)
    written = target.stat().st_mtime_ns
    target.write_bytes(target.read_bytes().replace(b"<h1>A</h1>", b"<h1>X</h1>"))
    os.utime(target, ns=(written, written + 1_000_000))  # a later time than the build's, whatever the clock's grain
    calls.clear()
    rows("authors", target)
    assert calls == ["authors/a/"] and target.read_bytes() == data
    (config.build_dir / "memo" / "rows-authors.pickle").write_text("not a pickle", encoding="utf-8")
    calls.clear()
    rows("authors", target)
    assert calls == list(bodies) and target.read_bytes() == data


def test_what_write_rows_says_it_wrote_is_what_its_memo_gives_back_whether_appended_or_whole(config) -> None:  # noqa: ANN001
    """``RowsWritten``, handed to the post-build step in the process that wrote the file, is ``kept_rows``' answer."""
    from generator.site.memo import RowsWritten

    target = config.build_dir / "postbuild" / "authors.json"
    bodies = {f"authors/{n}/": f"<h1>{n}</h1>" for n in range(40)}

    def rows(**more: str) -> RowsWritten:
        written = RowsWritten()
        units = [DetailSource(url, _Renderer([]), (url, more.get(url.split("/")[1], body))) for url, body in bodies.items()]
        write_rows(config, "authors", units, target, _line, Fingerprints(), written=written)
        assert written.size == target.stat().st_size
        assert written.rows == kept_rows(config, "authors", target)
        return written

    whole = rows()
    appended = rows(**{"7": "<h1>seven, renamed</h1>"})
    assert appended.size > whole.size and appended.rows[7][1][0] >= whole.size  # the edited row's line was appended
    rows(**{str(n): f"<h2>{n}</h2>" for n in range(40)})  # most rows changed: written whole


def test_an_interrupted_row_file_leaves_the_last_whole_file_and_nothing_beside_it(config) -> None:  # noqa: ANN001
    target = config.build_dir / "postbuild" / "authors.json"
    whole = [DetailSource(f"authors/{name}/", _Renderer([]), (f"authors/{name}/", f"<h1>{name}</h1>")) for name in "abc"]
    write_rows(config, "authors", whole, target, _line, Fingerprints())
    before = target.read_bytes()

    edited = [*whole[:2], DetailSource("authors/c/", _interrupted, ("authors/c/", "<h1>C, renamed</h1>"))]
    with pytest.raises(KeyboardInterrupt):
        write_rows(config, "authors", edited, target, _line, Fingerprints())
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["authors.json"]
    assert not list(config.build_dir.rglob("*.tmp"))


def _interrupted(url: str, body: str) -> DetailPage:
    raise KeyboardInterrupt  # Ctrl-C while a row is rendered


@dataclass(frozen=True)
class _Renderer:
    calls: list = field(compare=False)

    def __call__(self, url: str, body: str) -> DetailPage:
        return _render(self.calls, url, body)


def test_the_caches_of_builds_before_this_module_are_removed(config) -> None:  # noqa: ANN001
    old = config.build_dir
    (old / "cache").mkdir(parents=True)
    (old / "cache" / "staged.json").write_text("{}", encoding="utf-8")
    (old / "stamps").mkdir()
    (old / "stamps" / "build.json").write_text('{"inputs": "x"}', encoding="utf-8")
    (old / "postbuild").mkdir()
    (old / "postbuild" / "filled.json").write_text("[", encoding="utf-8")
    (old / "postbuild" / "authors.json").write_text("", encoding="utf-8")
    memo.remove_old_formats(config)
    assert sorted(p.relative_to(old).as_posix() for p in old.rglob("*")) == ["postbuild", "postbuild/authors.json"]
    memo.remove_old_formats(config)  # nothing left to remove: no error


# ---------------------------------------------------------------- the class of bug issue 28 removes


def _edit(page: Path, **fields: object) -> None:
    _, front, body = page.read_text(encoding="utf-8").split("---\n", 2)
    data = yaml.safe_load(front)
    data.update(fields)
    page.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body, encoding="utf-8")


def _staged_rows(root: Path) -> dict[str, bytes]:
    from generator.site.stage import stage_docs

    stage_docs(load_config(root))
    return {name: staged_rows(root, name) for name in ("papers", "authors", "keywords")}


def test_a_renderer_that_shows_more_of_its_arguments_needs_no_key_edited(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """A paper list item made to show each paper's decision: nothing else is edited, and an
    incremental build after a decision changes shows it on every page that lists the paper (author
    and keyword pages: a paper page lists no other paper, its related papers are the browser's)."""
    shown = components.author_line
    monkeypatch.setattr(components, "author_line", lambda paper, limit=3: f"{shown(paper, limit)} [{paper.decision}]")
    root = write_project(tmp_path / "project")
    _staged_rows(root)
    _edit(root / "site_src" / "papers" / "calibrated-flows.md", decision="Accept (Oral)")
    incremental = _staged_rows(root)
    assert all(b"[Accept (Oral)]" in rows for name, rows in incremental.items() if name != "papers")

    clean = tmp_path / "clean"
    shutil.copytree(root, clean, ignore=shutil.ignore_patterns("build", "site"))
    assert incremental == _staged_rows(clean)


def test_a_renderer_cannot_read_past_what_it_is_handed() -> None:
    """An author page reads its co-authors as links: a renderer that reached for a co-author's papers
    (no part of its key) fails at once instead of leaving a stale page."""
    catalog = build_catalog(fixture_records() + [
        PaperRecord(id="z", slug="z", title="Z", authors=["Kevin Frans", "Ana Lee"], topic=Topic("Deep Learning", None, "listing")),
    ])
    source = next(s for s in detail_sources(catalog)["authors"] if s.url == "authors/kevin-frans/")
    author, _ = source.args
    assert author.coauthors and source.render(*source.args).url == "authors/kevin-frans/"
    with pytest.raises(AttributeError):
        author.coauthors[0][0].papers
    Fingerprints().of(source.render, source.args)  # values: a key


def test_a_record_known_by_its_page_bytes_keys_work_as_its_bytes_do(tmp_path: Path) -> None:
    """``stage.known_records``: a record read through the check cache stands for its page's bytes, so
    its fields are not hashed; equal bytes give the key they gave, other bytes another key."""
    from generator.pages.folder import read_pages
    from generator.site.stage import known_records

    root = write_project(tmp_path / "site")
    config = load_config(root)

    def keys() -> dict[str, str]:
        pages = Memo(config, "records")
        found = read_pages(config, cache=pages)
        prints = Fingerprints()
        known_records(prints, pages)
        pages.save()
        plain = Fingerprints()
        assert all(prints.of(r) != plain.of(r) for r in found.records)  # known, not hashed field by field
        return {record.slug: prints.of(paper_pages.paper_page, record) for record in found.records}

    before = keys()
    assert keys() == before  # read again (from the cache): the same keys
    page = root / "site_src" / "papers" / "graph-transformers.md"
    _edit(page, title="Graph Transformers, Revisited")
    after = keys()
    assert {slug for slug in before if after[slug] != before[slug]} == {"graph-transformers"}


def test_a_checked_page_is_not_read_again_while_its_stat_is_unchanged(config, monkeypatch) -> None:  # noqa: ANN001
    """11,672 page files read on every build only to learn their bytes did not change: the stat decides
    when to read (as for the stamps' file hashes), the bytes what changed."""
    page = config.root / "a.md"
    page.write_text("one", encoding="utf-8")
    old = time.time_ns() - 60 * 10**9
    os.utime(page, ns=(old, old))  # written a minute ago: not racy
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or real(self))
    first = memo.CheckedPages(config)
    assert first.page(page, "a.md", lambda data: data.decode()) == "one"
    first.save()
    reads.clear()
    second = memo.CheckedPages(config)
    assert second.page(page, "a.md", lambda data: pytest.fail("parsed again")) == "one"
    assert "a.md" not in reads
    second.save()
    page.write_text("two", encoding="utf-8")  # same size, a new mtime
    third = memo.CheckedPages(config)
    assert third.page(page, "a.md", lambda data: data.decode()) == "two"
    third.save()
    page.write_text("six", encoding="utf-8")  # just written: racy, its stat is not kept
    os.utime(page, ns=(time.time_ns(),) * 2)
    fourth = memo.CheckedPages(config)
    assert fourth.page(page, "a.md", lambda data: data.decode()) == "six"
    fourth.save()
    reads.clear()
    assert memo.CheckedPages(config).page(page, "a.md", lambda data: data.decode()) == "six"
    assert "a.md" in reads  # read again: its stat was not trusted


def test_a_memo_file_read_ahead_is_handed_out_once_and_only_while_it_is_the_file_read(config, monkeypatch) -> None:  # noqa: ANN001
    """A warm serve build reads the last build's memo files before the edit (``ReadAhead``): its build must get
    what reading each file then gives, never a value read from a file since replaced, nor one handed out before."""
    ahead = memo.ReadAhead()
    monkeypatch.setattr(memo, "READ_AHEAD", ahead)
    whole, sharded = Memo(config, "things"), Memo(config, "pages", shards=4)
    whole.put("a", "d", ["one"])
    for n in range(12):
        sharded.put(f"page-{n}", "d", [n])
    whole.save()
    sharded.save()
    assert ahead.read(memo.memo_dir(config)) == 5  # the whole kind's file and the sharded kind's four
    loads = []
    real_load = memo._load_file
    monkeypatch.setattr(memo, "_load_file", lambda handle: loads.append(handle.name) or real_load(handle))
    first = Memo(config, "things")
    assert first.get("a", "d") == ["one"] and not loads  # read ahead: not read again
    first.get("a", "d").append("changed by its reader")
    assert Memo(config, "things").get("a", "d") == ["one"] and len(loads) == 1  # once: the next reader reads the file
    pages = Memo(config, "pages", shards=4)
    assert [pages.get(f"page-{n}", "d") for n in range(12)] == [[n] for n in range(12)]
    assert len(loads) == 1

    ahead.read(memo.memo_dir(config))
    written = Memo(config, "things")
    written.put("a", "d", ["two"])
    written.save()  # replaced by a build after it was read ahead
    assert Memo(config, "things").get("a", "d") == ["two"]
    same_bytes = memo.memo_dir(config) / "pages" / "0.pickle"
    state = same_bytes.stat()
    copy = same_bytes.with_name("copy")
    copy.write_bytes(same_bytes.read_bytes())
    os.utime(copy, ns=(state.st_atime_ns, state.st_mtime_ns))
    os.replace(copy, same_bytes)  # the same bytes and times in another file: not the file read
    loads.clear()
    Memo(config, "pages", shards=4)
    assert loads == [str(same_bytes)]
    assert ahead.read(memo.memo_dir(config) / "none") == 0


def test_an_edit_appends_the_rows_it_renders_and_leaves_the_kept_ones_unread_where_they_lie(config, monkeypatch) -> None:  # noqa: ANN001
    """An edit keeps almost every line: while the file's stat is the one recorded when it was written, the
    lines rendered again are appended to it and the kept ones stay where they lie, neither copied nor hashed
    again. Once the lines no page points to would pass a quarter of the file, it is written whole again."""
    from generator.site import memo as memo_module

    target = config.build_dir / "postbuild" / "authors.json"
    bodies = {f"authors/{n}/": f"<h1>{n}</h1>" for n in range(200)}
    calls: list[str] = []

    def rows() -> int:
        units = [DetailSource(url, _Renderer(calls), (url, body)) for url, body in bodies.items()]
        return write_rows(config, "authors", units, target, _line, Fingerprints())

    renders = itertools.count()

    def full_render() -> bytes:  # into a file of its own, with no memo
        again = config.build_dir / "again.json"
        again.unlink(missing_ok=True)
        units = [DetailSource(url, _Renderer([]), (url, body)) for url, body in bodies.items()]
        write_rows(config, f"again-{next(renders)}", units, again, _line, Fingerprints())
        return again.read_bytes()

    rows()
    before = target.read_bytes()
    bodies["authors/7/"] = "<h1>seven, edited</h1>"
    bodies.pop("authors/150/")
    hashed: list[bytes] = []
    real_hash = memo_module.content_hash
    monkeypatch.setattr(memo_module, "content_hash", lambda data: hashed.append(data) or real_hash(data))
    calls.clear()
    assert rows() == 1 and calls == ["authors/7/"]
    edited_line = _line(_render([], "authors/7/", bodies["authors/7/"]))
    assert [data for data in hashed if data.startswith(b'["authors/')] == [edited_line]
    monkeypatch.setattr(memo_module, "content_hash", real_hash)
    assert target.read_bytes() == before + edited_line  # nothing but the edited line written
    assert _rows(config, "authors", target) == full_render()

    # edits go on appending until the unused lines pass a quarter of the file: then it is written whole
    for n in range(200):
        if n == 150:
            continue
        bodies[f"authors/{n}/"] = f"<h1>{n}, edited</h1>"
        rows()
        if target.read_bytes() == full_render():
            break
    else:
        raise AssertionError("the file was never written whole again")
    assert 60 <= n <= 90, n  # the unused lines a quarter of the file: ~75 of 199 lines replaced, not 1 nor never
    assert _rows(config, "authors", target) == full_render()


def test_what_a_memo_file_held_is_kept_out_of_the_collectors_walks(tmp_path) -> None:
    """Read with collection paused and frozen before it resumes (``_collector_paused``): no collection walks it."""
    import gc

    from generator.config import load_config
    from generator.site.memo import Memo
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path))
    memo = Memo(config, "probe")
    memo.put("k", "d", [("x", n) for n in range(1000)])
    memo.save()
    gc.unfreeze()
    try:
        read = Memo(config, "probe").get("k", "d")
        assert len(read) == 1000 and gc.get_freeze_count() >= 1000 and gc.isenabled()  # the list's tuples among them
    finally:
        gc.unfreeze()


# (a build's operations on 20 kept entries and a few new ones: "skip" leaves an entry out, as a deleted page's)
_OPERATIONS = st.lists(st.tuples(st.sampled_from(["get", "put", "put", "copy"]), st.integers(0, 19)), min_size=2, max_size=12) | \
    st.lists(st.tuples(st.sampled_from(["get", "put", "skip", "copy", "new whole"]), st.integers(0, 24)), max_size=30)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(builds=st.lists(_OPERATIONS, min_size=1, max_size=4))
@example(builds=[[("put", 3), ("put", 4), ("put", 5), ("put", 9)], [("skip", 4), ("put", 22)], [("put", 1), ("copy", 2)]])
def test_a_sharded_kind_saved_after_any_builds_reads_back_as_what_each_build_kept(config, builds) -> None:  # noqa: ANN001
    """Whatever each build gets, puts, leaves out (``skip``: a deleted page's entry), copies back as read (as
    CheckedPages and the early worker do) or fills ``new`` with itself: the files then hold exactly what it kept,
    and a file is rewritten only where one of its entries differs from what it held."""
    shutil.rmtree(config.root / "build", ignore_errors=True)
    first = Memo(config, "pages", shards=4)
    for n in range(20):
        first.put(f"p{n}", "d", n)
    first.save()
    version = 0
    for operations in builds:
        memo_ = Memo(config, "pages", shards=4)
        skipped = {n for op, n in operations if op == "skip"}
        for op, n in operations:
            key, version = f"p{n}", version + 1
            if op == "get":
                memo_.get(key, "d")
            elif op == "put":
                memo_.put(key, "d", (n, version))
            elif op == "copy" and key in memo_.old:
                memo_.new[key] = memo_.old[key]
            elif op == "new whole":
                memo_.new = dict(memo_.new)
        for key in memo_.old:  # every other entry kept as read, as a build reads every page
            if int(key[1:]) not in skipped:
                memo_.new.setdefault(key, memo_.old[key])
        expected = dict(memo_.new)
        held = {f: f.read_bytes() for f in memo_.path.glob("*.pickle")}
        memo_.save()
        assert Memo(config, "pages", shards=4).old == expected
        for path, data in held.items():
            shard = {key: entry for key, entry in expected.items() if memo_._shard_of(key) == int(path.stem)}
            if path.read_bytes() != data:  # rewritten: it held other entries
                head = memo._MARSHAL_HEAD
                before = (marshal.loads(data[len(head):]) if data.startswith(head) else pickle.loads(data))[2]
                assert shard != before or shard.keys() != before.keys()


def test_a_memo_of_builtin_values_is_marshalled_and_one_of_objects_pickled(config, monkeypatch) -> None:  # noqa: ANN001
    """A memo file is in marshal's form when every entry is of builtin types, else pickled; each reads back as it
    was written, and a marshalled file of another Python version is no memo (its form may differ)."""
    plain, objects = Memo(config, "plain"), Memo(config, "objects")
    plain.put("k", "d", {"rows": [(1, 2, "h")], "set": {3}, "bytes": b"\0", "none": None})
    objects.put("k", "d", memo.RowsWritten(3, [("u", (0, 3, "h"))]))
    plain.save()
    objects.save()
    assert plain.path.read_bytes().startswith(memo._MARSHAL_HEAD)
    assert not objects.path.read_bytes().startswith(memo._MARSHAL_HEAD)
    assert Memo(config, "plain").get("k", "d") == {"rows": [(1, 2, "h")], "set": {3}, "bytes": b"\0", "none": None}
    assert Memo(config, "objects").get("k", "d") == memo.RowsWritten(3, [("u", (0, 3, "h"))])
    monkeypatch.setattr(memo, "_MARSHAL_HEAD", b"papersite-marshal 3.99\n")
    assert Memo(config, "plain").get("k", "d") is None and Memo(config, "plain").changed
