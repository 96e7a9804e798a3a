"""Incremental builds (generator/site/incremental.py, memo.py): after an edit, ``papersite build``
renders only what changed and ends with the site a clean build of the same pages gives.

Each edit a maintainer makes (a title, a keyword, a topic, an abstract, a deleted page) is
followed by an incremental build of the project and a clean build of a copy of
it; the two sites must be byte-identical, and a paper page the edit does not
touch must not have been written again.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.site_fixtures import keep_out_of_nav, write_project


def papersite(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "generator.cli", "--project", str(project), *args],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, f"papersite {' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result


def site_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def clean_build_of(project: Path, where: Path, *options: str) -> dict[str, bytes]:
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(project, where, ignore=shutil.ignore_patterns("site", "build", ".cache"))
    papersite(where, "build", "--no-import", "--clean", "--quiet", *options)
    return site_files(where / "site")


def edit_front_matter(page: Path, change) -> None:  # noqa: ANN001
    _, front, body = page.read_text(encoding="utf-8").split("---\n", 2)
    data = yaml.safe_load(front)
    change(data)
    page.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body, encoding="utf-8")


PAPERS = "site_src/papers"
UNTOUCHED = "site/papers/uncertainty-measures-derived/index.html"  # shares no author, keyword or topic with the edits
PAPER_PAGES_RENDERED = re.compile(r"; (\d+) paper, \d+ author and keyword pages rendered\)")


def _retitle(data: dict) -> None:
    data["title"] = "Graph Transformers at a Larger Scale"


def _add_keyword(data: dict) -> None:
    data["keywords"] = [*data["keywords"], "attention"]


def _change_topic(data: dict) -> None:
    data["topic"] = {"area": "Applications", "subarea": "Computer Vision", "source": "maintainer"}


def _rename_author(data: dict) -> None:
    data["authors"] = ["Mingyu Zhou" if name == "Ming-Zhou" else name for name in data["authors"]]


def _rewrite_abstract(data: dict) -> None:  # the abstracts' search index and texts change, the meta index does not
    data["abstract"] = data["abstract"].replace("attention", "sparse attention") + " A closing sentence on lattices."


def _describe(data: dict) -> None:  # a maintainer's own key: the paper text the related lists compare is unchanged
    data["description"] = "A maintainer's one-line summary."


def _add_coauthor(data: dict) -> None:  # Ana Lee's page gains a paper, Ming Zhou's a co-author
    data["authors"] = [*data["authors"], "Ana Lee"]


def _drop_keyword(data: dict) -> None:  # the keyword's page goes, and with it a related keyword of others
    data["keywords"] = [k for k in data["keywords"] if k != "transformers"]


def _retitle_like_another(data: dict) -> None:  # other papers' related lists change with it
    data["title"] = "Pointwise Risk and Uncertainty Measures of Normalizing Flows"


def _take_a_colliding_author_slug(data: dict) -> None:  # "(Ming) Zhou" sorts first: Ming Zhou's pages and links move to -2
    data["authors"] = [*data["authors"], "(Ming) Zhou"]


def _drop_a_shared_author(data: dict) -> None:  # Ming Zhou keeps a paper elsewhere; Ming-Zhou loses a co-author
    data["authors"] = [name for name in data["authors"] if name != "Ming Zhou"]


# (what, page, change, whether the UNTOUCHED page must stay as it was)
EDITS = [
    ("title changed", "graph-transformers", _retitle, True),
    ("keyword added", "graph-transformers", _add_keyword, True),
    ("topic changed", "calibrated-flows", _change_topic, True),
    ("author renamed", "graph-transformers", _rename_author, True),
    ("co-author added", "graph-transformers", _add_coauthor, True),
    ("keyword removed", "graph-transformers", _drop_keyword, True),
    ("abstract changed", "graph-transformers", _rewrite_abstract, True),
    ("description added", "one-step-diffusion-via-shortcut-models", _describe, True),
    ("related lists changed by a title", "calibrated-flows", _retitle_like_another, False),
    ("page deleted", "hostile-paper", None, True),
    ("author slug taken by a colliding name", "calibrated-flows", _take_a_colliding_author_slug, False),
    ("author dropped from one of their papers", "graph-transformers", _drop_a_shared_author, True),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("incremental") / "site")
    papersite(root, "build", "--no-import", "--quiet")
    return root


@pytest.mark.parametrize("what, slug, change, untouched", EDITS, ids=[e[0] for e in EDITS])
def test_incremental_build_equals_clean_build(project: Path, tmp_path: Path, what: str, slug: str, change, untouched: bool) -> None:  # noqa: ANN001
    page = project / PAPERS / f"{slug}.md"
    untouched_before = (project / UNTOUCHED).stat().st_mtime_ns
    if change is None:
        page.unlink()
    else:
        edit_front_matter(page, change)

    result = papersite(project, "build", "--no-import")

    assert "changed pages only" in result.stderr or "nothing for it to render" in result.stderr, result.stderr
    incremental = site_files(project / "site")
    clean = clean_build_of(project, tmp_path / "clean")
    assert sorted(incremental) == sorted(clean), f"{what}: other files than a clean build"
    differing = [name for name in clean if incremental[name] != clean[name]]
    assert not differing, f"{what}: these files differ from a clean build: {differing[:10]}"
    if untouched:
        assert (project / UNTOUCHED).stat().st_mtime_ns == untouched_before, f"{what}: an unrelated paper page was rendered again"
        # the papers shell's rows are kept by their renderer's arguments (memo.py): the edited page alone is
        # rendered again (no page shows another paper's title or topic: related lists are the browser's); the
        # deleted page took its spelling of "diffusion models" with it, and the two pages that show it change
        rendered = int(PAPER_PAGES_RENDERED.search(result.stderr).group(1))
        assert rendered <= (1 if change else 2), f"{what}: {rendered} paper pages rendered again\n{result.stderr}"
    if change is None:
        assert not (project / "site" / "papers" / slug).exists()


def test_an_edit_rewrites_the_search_files_of_its_terms_only(project: Path, tmp_path: Path) -> None:
    """Title, abstract, keywords and authors of two papers edited: the search files equal a clean build's,
    and only those whose bytes changed are written (the others keep their mtime)."""
    search_dir = project / "site" / "assets" / "papersite" / "search"
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in search_dir.iterdir()}
    for slug in ("graph-transformers", "calibrated-flows"):
        edit_front_matter(project / PAPERS / f"{slug}.md", lambda data: data.update(
            title=data["title"] + " Once More", abstract=data["abstract"] + " Lattices and quivers.",
            keywords=[*data["keywords"], "quivers"], authors=[*data["authors"], "Zeynep Quill"]))
    papersite(project, "build", "--no-import")
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in search_dir.iterdir()}
    clean = clean_build_of(project, tmp_path / "clean")
    assert {name: data for name, (_, data) in after.items()} == {
        rel.rsplit("/", 1)[1]: data for rel, data in clean.items() if rel.startswith("assets/papersite/search/")}
    rewritten = {name for name in after if name not in before or after[name][0] != before[name][0]}
    assert all(after[name][1] != before.get(name, (0, None))[1] for name in rewritten), "a file rewritten with its own bytes"
    assert "index-shards.json.gz" in rewritten and "abstracts-shards.json.gz" in rewritten
    # (which shards an edit changes is search_index's test: this project's indexes are a shard each)
    kept = set(after) - rewritten
    assert kept and all(after[name][1] == before[name][1] for name in kept), sorted(rewritten)


def test_a_page_added_builds_as_a_clean_build_does(project: Path, tmp_path: Path) -> None:
    """A maintainer's new page: a new author, a keyword other papers have, a topic page that grows and
    related lists that may now show it (the related shards). Only the new paper's page is rendered."""
    untouched_before = (project / UNTOUCHED).stat().st_mtime_ns
    added = project / PAPERS / "sparse-graph-transformers.md"
    added.write_text(
        "---\nid: b7\nslug: sparse-graph-transformers\ntitle: Sparse Graph Transformers for Millions of Nodes\n"
        "authors:\n- Ada Newcomer\n- Ming Zhou\n"
        "topic:\n  area: Deep Learning\n  subarea: Graph Neural Networks\n  source: maintainer\n"
        "keywords:\n- transformers\n- sparse attention\n"
        "abstract: Sparse attention lets graph transformers scale to millions of nodes.\n"
        "sources:\n- file: 003_d.txt\n  entry: 9\n  format: topic-lines\n---\n",
        encoding="utf-8",
    )

    result = papersite(project, "build", "--no-import")

    incremental = site_files(project / "site")
    clean = clean_build_of(project, tmp_path / "clean")
    assert sorted(incremental) == sorted(clean), "a page added: other files than a clean build"
    assert [name for name in clean if incremental[name] != clean[name]] == []
    assert "authors/ada-newcomer/index.html" in incremental
    assert b"Sparse Graph Transformers for Millions of Nodes" in incremental["papers/sparse-graph-transformers/index.html"]
    assert (project / UNTOUCHED).stat().st_mtime_ns == untouched_before, "an unrelated paper page was rendered again"
    rendered = int(PAPER_PAGES_RENDERED.search(result.stderr).group(1))
    assert rendered == 1, result.stderr  # no other page shows it: related lists are drawn from the related shards


def test_a_title_edit_renders_only_the_author_and_keyword_pages_that_list_the_paper(project: Path) -> None:
    """Author and keyword pages are kept by their renderer's arguments (memo.py): a title shows on the
    pages of the paper's own authors and keywords, and on no other."""
    from generator.text import fold

    page = project / PAPERS / "one-step-diffusion-via-shortcut-models.md"
    edit_front_matter(page, lambda data: data.update(title="One Step Diffusion, Shortcut Edition"))
    data = yaml.safe_load(page.read_text(encoding="utf-8").split("---\n", 2)[1])
    expected = len({fold(a) for a in data["authors"]}) + len({fold(k) for k in data["keywords"]})
    result = papersite(project, "build", "--no-import")
    assert f" paper, {expected} author and keyword pages rendered)" in result.stderr, result.stderr


def test_a_maintainers_body_moves_a_page_to_the_engine_and_back(project: Path, tmp_path: Path) -> None:
    """A page with Markdown of a maintainer's own is rendered by the engine, the others come
    from the papers shell: adding the body and taking it away again both end as a clean build."""
    page = project / PAPERS / "calibrated-flows.md"
    original = page.read_text(encoding="utf-8")
    page.write_text(original.rstrip("\n") + "\n\n## Erratum\n\nThe *second* table is **wrong**; see [the code](https://example.org/c).\n",
                    encoding="utf-8")
    papersite(project, "build", "--no-import")
    html = (project / "site/papers/calibrated-flows/index.html").read_text(encoding="utf-8")
    assert '<h2 id="erratum">Erratum</h2>' in html and "<em>second</em>" in html
    assert (project / "build/docs/papers/calibrated-flows/index.md").is_file()
    assert not (project / "build/postbuild/papers/calibrated-flows.json").exists()
    incremental = site_files(project / "site")
    assert incremental == clean_build_of(project, tmp_path / "clean-body")

    page.write_text(original, encoding="utf-8")
    papersite(project, "build", "--no-import")
    assert "Erratum" not in (project / "site/papers/calibrated-flows/index.html").read_text(encoding="utf-8")
    assert not (project / "build/docs/papers/calibrated-flows").exists()
    assert site_files(project / "site") == clean_build_of(project, tmp_path / "clean-nobody")


def test_a_damaged_cache_is_ignored(project: Path, tmp_path: Path) -> None:
    """Whatever the build dir's memo holds, the site is the one a clean build gives."""
    caches = project / "build" / "memo"
    assert {p.name for p in caches.iterdir()} >= {f"{kind}.pickle" for kind in (
        "related", "staged", "rows-authors", "rows-keywords", "rows-papers", "slugs", "stamps", "map")} | {
        "checked", "filled", "files", "index-lists", "search-terms", "search-shards", "citations"}  # folders: kept in shards
    assert not (caches / "page-views").exists()  # the import's view of the pages: a build with --no-import needs none
    for path in caches.rglob("*.pickle"):
        path.write_bytes(b"\x80not a cache")
    edit_front_matter(project / PAPERS / "calibrated-flows.md", _retitle_again)
    papersite(project, "build", "--no-import", "--quiet")
    assert site_files(project / "site") == clean_build_of(project, tmp_path / "clean")


def test_a_damaged_author_row_is_rendered_again(project: Path, tmp_path: Path) -> None:
    """A kept author or keyword row is reused only while its line is intact (memo.write_rows)."""
    papersite(project, "build", "--no-import", "--quiet")
    rows = project / "build" / "postbuild" / "authors.json"
    data = rows.read_bytes()
    # the row of an author the edit below does not touch: same size, other bytes, only the line's hash can tell
    at = data.index(b"<h1>", data.index(b'["authors/kevin-frans/"')) + 4
    rows.write_bytes(data[:at] + b"XXX" + data[at + 3 :])
    edit_front_matter(project / PAPERS / "calibrated-flows.md", lambda data: data.update(title="Calibrated Flows, Damaged Row"))
    papersite(project, "build", "--no-import", "--quiet")
    assert b"<h1>XXX" not in rows.read_bytes()
    assert site_files(project / "site") == clean_build_of(project, tmp_path / "clean-row")


def test_an_edit_that_shows_only_in_bodies_runs_no_engine(project: Path, tmp_path: Path) -> None:
    """A title edit changes no page the engine renders (paper, author and index bodies come after
    it): the build fills from the engine's last rendering; without that rendering kept, it runs
    the engine again. Both end as a clean build."""
    edit_front_matter(project / PAPERS / "graph-transformers.md", lambda data: data.update(title="Graph Transformers, Once More"))
    result = papersite(project, "build", "--no-import")
    assert "nothing for it to render" in result.stderr, result.stderr
    assert "Graph Transformers, Once More" in (project / "site/papers/index.html").read_text(encoding="utf-8")
    assert site_files(project / "site") == clean_build_of(project, tmp_path / "clean-skip")

    shutil.rmtree(project / "build" / "postbuild" / "rendered")
    edit_front_matter(project / PAPERS / "graph-transformers.md", lambda data: data.update(title="Graph Transformers, Again"))
    result = papersite(project, "build", "--no-import")
    assert "changed pages only" in result.stderr, result.stderr
    assert site_files(project / "site") == clean_build_of(project, tmp_path / "clean-rendered-lost")


@pytest.mark.skipif(importlib.util.find_spec("zensical") is None, reason="zensical is not installed (pip install -e '.[zensical]')")
def test_under_zensical_an_edit_that_shows_only_in_bodies_runs_no_engine(tmp_path: Path) -> None:
    """Where nothing Zensical renders changed, it is not run; an edit it renders runs it, its pages moved over the
    site as kept (it empties the folder it builds into: the post-build step filled the whole site again after each
    edit, 35-52 s at 11,672 papers). Each ends as a clean build."""
    root = write_project(tmp_path / "site")
    keep_out_of_nav(root, "/note.md")  # the hand-written page added below
    papersite(root, "build", "--no-import", "--quiet", "--engine", "zensical")
    edit_front_matter(root / PAPERS / "graph-transformers.md", lambda data: data.update(title="Graph Transformers, Once More"))
    result = papersite(root, "build", "--no-import", "--engine", "zensical")
    assert "build: zensical (nothing for it to render)" in result.stderr, result.stderr
    assert "Graph Transformers, Once More" in (root / "site/papers/index.html").read_text(encoding="utf-8")
    assert site_files(root / "site") == clean_build_of(root, tmp_path / "clean-title", "--engine", "zensical")

    untouched = root / "site" / "papers" / "calibrated-flows" / "index.html"  # the post-build step's, from a row
    before = untouched.stat()
    (root / "site_src" / "note.md").write_text("# A note\n\nRendered by the engine.\n", encoding="utf-8")
    result = papersite(root, "build", "--no-import", "--engine", "zensical")
    assert "build: zensical (its pages, over the last site) ->" in result.stderr, result.stderr
    assert (untouched.stat().st_ino, untouched.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert "Rendered by the engine." in (root / "site/note/index.html").read_text(encoding="utf-8")
    assert site_files(root / "site") == clean_build_of(root, tmp_path / "clean-note", "--engine", "zensical")


def _retitle_again(data: dict) -> None:
    data["title"] = "Calibrated Flows, Retitled"


def test_a_settings_change_renders_every_paper_page(project: Path) -> None:
    """What every paper page shows of papersite.yml (here the edit links) is an input of each."""
    settings = project / "papersite.yml"
    before = settings.read_text(encoding="utf-8")
    try:
        settings.write_text(before.replace("example/papers", "example/other"), encoding="utf-8")
        papersite(project, "build", "--no-import", "--quiet")
        assert "github.com/example/other" in (project / UNTOUCHED).read_text(encoding="utf-8")
    finally:
        settings.write_text(before, encoding="utf-8")
    papersite(project, "build", "--no-import", "--quiet")
    assert "github.com/example/other" not in (project / UNTOUCHED).read_text(encoding="utf-8")


def test_clean_flag_renders_everything(project: Path) -> None:
    before = (project / UNTOUCHED).stat().st_mtime_ns
    result = papersite(project, "build", "--no-import", "--clean")
    assert "changed pages only" not in result.stderr
    assert (project / UNTOUCHED).stat().st_mtime_ns != before


def test_engine_notice_is_not_printed(project: Path) -> None:
    result = papersite(project, "build", "--no-import", "--clean")
    assert "end of life" not in result.stdout + result.stderr
    assert "NO_MKDOCS_2_WARNING" not in result.stdout + result.stderr


SKIPPED = "import: no listing, page, state or setting changed"
NOTHING = "build: nothing changed since the last build"


def _skeleton(tmp_path: Path) -> Path:
    root = tmp_path / "skeleton"
    init = subprocess.run([sys.executable, "-m", "generator.cli", "init", str(root)], capture_output=True, text=True, timeout=60)
    assert init.returncode == 0, init.stderr
    return root


def test_import_is_skipped_until_an_input_changes(tmp_path: Path) -> None:
    root = _skeleton(tmp_path)
    first = papersite(root, "build")
    assert SKIPPED not in first.stderr
    page = sorted((root / PAPERS).glob("*.md"))[0]
    page.write_text(page.read_text(encoding="utf-8") + "\nA maintainer's note.\n", encoding="utf-8")
    edited = papersite(root, "build")  # a page edit the import would keep: no import
    assert SKIPPED in edited.stderr and NOTHING not in edited.stderr
    listing = sorted((root / "corpus").iterdir())[0]
    listing.write_bytes(listing.read_bytes() + b"\n")
    changed = papersite(root, "build")
    assert SKIPPED not in changed.stderr
    forced = papersite(root, "build", "--clean")
    assert SKIPPED not in forced.stderr


def test_a_build_with_nothing_changed_does_nothing(tmp_path: Path) -> None:
    root = _skeleton(tmp_path)
    papersite(root, "build")
    before = {p: p.stat().st_mtime_ns for p in (root / "site").rglob("*")}
    again = papersite(root, "build")
    assert NOTHING in again.stderr
    page = sorted((root / PAPERS).glob("*.md"))[0]
    os.utime(page, ns=(1, 1))  # as a git checkout leaves it: other time, same bytes
    touched = papersite(root, "build")
    assert NOTHING in touched.stderr
    assert {p: p.stat().st_mtime_ns for p in (root / "site").rglob("*")} == before  # not one file written
    (root / "site" / "index.html").unlink()  # the output is gone: built again
    rebuilt = papersite(root, "build")
    assert NOTHING not in rebuilt.stderr and (root / "site" / "index.html").is_file()
    assert NOTHING not in papersite(root, "build", "--no-import").stderr  # another build: the import's stamp may be stale


def test_a_build_reads_no_file_whose_stat_is_unchanged_whatever_ran_before(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """The stamps' file hashes are one set a build saves once: each stamp saving its own kept only the files it
    covers, and every build read and hashed all 11,672 pages again (0.2 s of a build with nothing to do)."""
    from generator.cli import main
    from generator.site.filehashes import FileHashes

    root = _skeleton(tmp_path)
    papersite(root, "build")
    hour_ago = time.time_ns() - 3600 * 10**9
    for path in root.rglob("*"):
        if path.is_file() and "build" not in path.relative_to(root).parts:
            os.utime(path, ns=(hour_ago, hour_ago))  # no file is written as its hash is kept ("racy")
    read: list[int] = []
    real_save = FileHashes.save
    monkeypatch.setattr(FileHashes, "save", lambda self, *args, **kwargs: read.append(self.read) or real_save(self, *args, **kwargs))

    def files_read(*command: str) -> int:
        read.clear()
        assert main(["--project", str(root), *command, "--quiet"]) == 0
        return sum(read)

    assert files_read("build") > 0  # their stats moved: each read once
    assert files_read("build") == 0
    assert files_read("import") == 0  # its stamp's files alone: the others' hashes stay
    assert files_read("build") == 0
    page = sorted((root / PAPERS).glob("*.md"))[0]
    page.write_text(page.read_text(encoding="utf-8") + "\nA maintainer's note.\n", encoding="utf-8")
    os.utime(page, ns=(hour_ago + 10**9, hour_ago + 10**9))
    assert files_read("build", "--no-import") == 1  # the edited page, once for all the stamps
    assert files_read("build") == 0


def test_a_build_after_an_import_does_not_import_again(tmp_path: Path) -> None:
    root = _skeleton(tmp_path)
    papersite(root, "import", "--quiet")
    built = papersite(root, "build")
    assert SKIPPED in built.stderr


def test_incremental_build_still_fails_on_a_real_warning(project: Path) -> None:
    """Only MkDocs' notes about --dirty itself are dropped; a broken link still fails the strict build."""
    papersite(project, "build", "--no-import", "--quiet")
    note = project / "site_src" / "about" / "index.md"  # a hand-written About page (the nav's), in place of ours
    note.parent.mkdir()
    note.write_text("# About\n\nSee [the missing page](../missing.md).\n", encoding="utf-8")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "generator.cli", "--project", str(project), "build", "--no-import"],
            capture_output=True, text=True, timeout=600,
        )
        assert result.returncode != 0
        assert "missing.md" in result.stdout + result.stderr
        assert "Traceback" not in result.stdout + result.stderr
        assert "nav" not in result.stdout + result.stderr
    finally:
        note.unlink()
        note.parent.rmdir()


def test_a_changed_reference_catalogue_is_imported_again() -> None:
    """The skip stamp covers every file papersite.yml names, reference catalogues included."""
    from generator.config import load_config
    from generator.site import incremental

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "corpus").mkdir()
        (root / "refs").mkdir()
        (root / "corpus" / "a.jsonl").write_text('{"title": "A paper on graphs", "abstract": "We study graphs."}\n', encoding="utf-8")
        reference = root / "refs" / "ref.jsonl"
        reference.write_text('{"title": "A paper on graphs", "authors": ["Ada Lovelace"]}\n', encoding="utf-8")
        (root / "papersite.yml").write_text("references:\n- refs/ref.jsonl\n", encoding="utf-8")
        before = incremental.import_inputs(load_config(root))
        reference.write_text('{"title": "A paper on graphs", "authors": ["Ada King"]}\n', encoding="utf-8")
        assert incremental.import_inputs(load_config(root)) != before


def test_the_engine_stamp_changes_with_the_engine_settings_papersite_yml_gives(tmp_path):
    # site_url and repo_url reach every page's chrome: a changed one must not leave a dirty build
    # re-rendering only the changed pages (`papersite serve` reloads papersite.yml between rebuilds)
    import dataclasses

    from generator.config import load_config
    from generator.site.incremental import engine_inputs

    (tmp_path / "papersite.yml").write_text("site_name: x\n", encoding="utf-8")
    config = load_config(tmp_path)
    moved = dataclasses.replace(config, site_url="https://example.org/elsewhere/")
    assert engine_inputs(config, "mkdocs", []) != engine_inputs(moved, "mkdocs", [])
    assert engine_inputs(config, "mkdocs", []) == engine_inputs(load_config(tmp_path), "mkdocs", [])


def test_the_caches_of_older_builds_are_removed_and_never_trusted(project: Path, tmp_path: Path) -> None:
    """Builds before memo.py kept five formats of their own; what a build dir holds of them is removed."""
    build = project / "build"
    (build / "cache").mkdir(exist_ok=True)
    (build / "cache" / "staged.json").write_text('{"version": "x", "pages": {}}', encoding="utf-8")
    (build / "cache" / "records.pickle").write_bytes(b"\x80not a cache")
    (build / "stamps").mkdir(exist_ok=True)
    (build / "stamps" / "build.json").write_text('{"inputs": "x"}', encoding="utf-8")
    (build / "postbuild" / "filled.json").write_text("{", encoding="utf-8")
    edit_front_matter(project / PAPERS / "calibrated-flows.md", lambda data: data.update(title="Calibrated Flows, Older Caches"))
    papersite(project, "build", "--no-import", "--quiet")
    assert not any((build / old).exists() for old in ("cache", "stamps", "postbuild/filled.json"))
    assert site_files(project / "site") == clean_build_of(project, tmp_path / "clean-old-caches")


def test_every_part_the_engine_stamp_hashes_exists() -> None:
    """A misspelt part hashes as missing, and a change to it would never invalidate the stamp."""
    from generator.site import incremental

    for part in incremental._ENGINE_PARTS:
        assert (incremental._PACKAGE_DIR / part).exists(), part


def test_a_listing_edit_builds_as_a_clean_build_does(tmp_path: Path) -> None:
    """A listing retitles one paper and adds another: `papersite build` imports them, renders what
    shows them, and ends with the site a clean build of the imported pages gives."""
    from tests.ingest.test_importer import jsonl, paper

    root = write_project(tmp_path / "site", records=[])
    listing = root / "corpus" / "papers.jsonl"
    listing.parent.mkdir()
    listing.write_text(jsonl(paper("Graph Things", "graphs"), paper("Wave Things", "waves")), encoding="utf-8")
    papersite(root, "build", "--quiet")
    listing.write_text(jsonl(paper("Graph Things", "graphs", authors=["Ada Lovelace", "Grace Hopper"]),
                             paper("Wave Things", "waves"), paper("Lattice Things", "lattices")), encoding="utf-8")
    result = papersite(root, "build")
    assert "import: no listing" not in result.stderr, result.stderr
    incremental = site_files(root / "site")
    clean = clean_build_of(root, tmp_path / "clean")
    assert sorted(incremental) == sorted(clean)
    assert [name for name in clean if incremental[name] != clean[name]] == []
    assert "authors/grace-hopper/index.html" in incremental and "papers/lattice-things/index.html" in incremental


def test_another_checkout_of_the_same_code_builds_nothing_again(tmp_path: Path) -> None:
    """``python -m generator.cli`` from a folder whose ``generator`` is a link to this code (how the
    benchmark projects run a worktree) finds the bundled taxonomy at another path: the import's stamp
    and each page's key hold the taxonomy's bytes, not its path, so nothing is imported or rendered again."""
    import generator

    root = _skeleton(tmp_path)
    papersite(root, "build")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "generator").symlink_to(Path(generator.__file__).resolve().parent, target_is_directory=True)

    def build_from_checkout() -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [sys.executable, "-m", "generator.cli", "--project", str(root), "build"],
            capture_output=True, text=True, timeout=600, cwd=checkout,
        )
        assert result.returncode == 0, result.stderr
        return result

    assert NOTHING in build_from_checkout().stderr
    page = sorted((root / PAPERS).glob("*.md"))[0]
    edit_front_matter(page, lambda data: data.update(title="A Title Only This Test Gives"))
    edited = build_from_checkout()
    assert SKIPPED in edited.stderr, edited.stderr
    assert int(PAPER_PAGES_RENDERED.search(edited.stderr).group(1)) < len(list((root / PAPERS).glob("*.md"))), edited.stderr


def test_the_sitemap_is_written_again_only_when_a_page_comes_or_goes(tmp_path: Path) -> None:
    """A title edit changes no URL: sitemap.xml and its gzip are left as they are (their mtimes). A page
    added and then deleted: each build's whole site equals a clean build's, sitemap and its gzip included.
    (A project of its own: the sitemap lists pages only under a site URL.)"""
    project = write_project(tmp_path / "published")
    settings = project / "papersite.yml"
    settings.write_text(settings.read_text(encoding="utf-8") + "site_url: https://example.org/published/\n", encoding="utf-8")
    papersite(project, "build", "--no-import", "--quiet")
    written = [project / "site" / name for name in ("sitemap.xml", "sitemap.xml.gz", "sitemap-1.xml.gz")]
    stamps = [path.stat().st_mtime_ns for path in written]
    edit_front_matter(project / PAPERS / "graph-transformers.md", lambda data: data.update(title="Graph Transformers, Retitled"))
    papersite(project, "build", "--no-import")
    assert [path.stat().st_mtime_ns for path in written] == stamps, "a title edit rewrote the sitemap"

    added = project / PAPERS / "a-paper-that-comes-and-goes.md"
    added.write_text(
        "---\nid: c9\nslug: a-paper-that-comes-and-goes\ntitle: A Paper That Comes and Goes\n"
        "authors:\n- Otto Transient\n"
        "keywords:\n- transformers\n"
        "abstract: Here for one build only.\n"
        "sources:\n- file: 003_d.txt\n  entry: 11\n  format: topic-lines\n---\n",
        encoding="utf-8",
    )
    for step in ("added", "deleted"):
        if step == "deleted":
            added.unlink()
        papersite(project, "build", "--no-import")
        incremental = site_files(project / "site")
        clean = clean_build_of(project, tmp_path / f"clean-{step}")
        assert sorted(incremental) == sorted(clean), f"a page {step}: other files than a clean build"
        assert [name for name in clean if incremental[name] != clean[name]] == [], f"a page {step}"
        listed = b"/papers/a-paper-that-comes-and-goes/" in gzip.decompress(incremental["sitemap-1.xml.gz"])
        assert listed == (step == "added"), f"a page {step}: the sitemap"
        assert gzip.decompress(incremental["sitemap.xml.gz"]) == incremental["sitemap.xml"]


# Files papersite reads and writes in its build folder and its site, each where an edit's build goes through it
IN_THE_WAY = (
    "build/postbuild/index-bodies.json", "build/memo/deferred-copied.pickle", "build/postbuild/deferred/manifest.json",
    "build/memo/catalog.pickle", "build/memo/rows-papers.pickle.tmp", "build/postbuild/rendered/papers/_shell/index.html",
    "site/papers/calibrated-flows/index.html",
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_where_papersite_keeps_a_file_of_its_own_is_named_never_waited_on(project: Path, tmp_path: Path) -> None:
    """A FIFO where papersite keeps a file (a cache, staged data, a page it wrote) is never opened as that file
    (its open would wait for a writer or a reader forever): read, it is no file; where the build writes the
    file, it stops with ``path:1: is a FIFO (named pipe), not a regular file`` and leaves it (papersite removes
    no special file). Once it is gone, the next build ends as a clean build does."""
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    for number, rel in enumerate(IN_THE_WAY):
        path = copy / rel
        assert path.is_file() or rel.endswith(".tmp"), f"{rel}: not kept by the last build"  # (a temporary: not yet there)
        path.unlink(missing_ok=True)
        os.mkfifo(path)
        edit_front_matter(copy / PAPERS / "calibrated-flows.md", lambda data: data.update(title=f"Calibrated Flows, FIFO {number}"))
        result = subprocess.run([sys.executable, "-m", "generator.cli", "--project", str(copy), "build", "--no-import", "--quiet"],
                                capture_output=True, text=True, timeout=120)
        if result.returncode:
            assert f"{path}:1: is a FIFO (named pipe), not a regular file" in result.stderr, (rel, result.stderr)
            assert path.is_fifo()
        path.unlink(missing_ok=True)
        papersite(copy, "build", "--no-import", "--quiet")  # the FIFO gone, the next build mends what the last left
    assert site_files(copy / "site") == clean_build_of(copy, tmp_path / "clean")


@pytest.mark.parametrize("where", ["site_src/papers/zz-not-a-page.md", "site_src/notes/pipe.md"])
def test_a_fifo_added_among_the_sources_is_an_input_the_build_names_never_opens(tmp_path, capfd, where) -> None:
    """The build's stamp of its inputs folds in every entry of the docs tree, a FIFO too (by its kind, never
    opened): a FIFO named like a page, added after a build, is not "nothing changed" but the check's error, as
    `papersite check` names it; once removed, the build goes on."""
    import threading

    from generator.cli import main as papersite

    root = write_project(tmp_path / "p")
    build = ["--project", str(root), "build", "--no-import", "--quiet"]
    assert papersite(build) == 0
    fifo = root / where
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    capfd.readouterr()
    status: list[int] = []
    runner = threading.Thread(target=lambda: status.append(papersite(build)), daemon=True)
    runner.start()
    runner.join(120)
    assert status == [1], "the build hung on the FIFO or took it as nothing changed"
    assert f"{where}:1:" in capfd.readouterr().err
    fifo.unlink()
    assert papersite(build) == 0
