"""generator/ingest/importer.py: pages written once, human edits kept, conflicts reported, nothing half-written."""

from __future__ import annotations

import json
import os
import shutil
from argparse import Namespace
from pathlib import Path

import pytest

from generator.config import load_config
from generator.ingest.importer import run_import
from generator.ingest.threeway import merge_fields
from generator.pipeline import import_listings
from generator.pages.record import parse_page, render_page

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "corpus"
PROSE = (
    "We present a careful study of {topic} with enough distinct words that no two fixtures look alike, "
    "measuring {topic} on several public benchmarks and reporting where {topic} helps and where it fails."
)


def project(tmp_path: Path, listings: dict[str, str] | None = None, corpus: bool = False, bundled: bool = False) -> Path:
    """A project folder; ``bundled``: the repository's own settings and reference catalogue too."""
    root = tmp_path / "site"
    (root / "corpus").mkdir(parents=True)
    if bundled:
        shutil.copy(REPO / "papersite.yml", root / "papersite.yml")
        shutil.copytree(CORPUS / "references", root / "corpus" / "references")
    if corpus:
        for path in CORPUS.iterdir():
            if path.is_file():  # corpus/references/ holds reference catalogues, not listings
                shutil.copy(path, root / "corpus" / path.name)
    for name, text in (listings or {}).items():
        (root / "corpus" / name).write_text(text, encoding="utf-8")
    return root


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def paper(title: str, topic: str, **extra) -> dict:
    return {"title": title, "authors": ["Ada Lovelace"], "abstract": PROSE.format(topic=topic), **extra}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file an import may write (the project lock is not one: it holds no data)."""
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "corpus" not in path.parts and path.name != "lock":
            files[str(path.relative_to(root))] = path.read_bytes()
    return files


def pages(root: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((root / "site_src" / "papers").glob("*.md"))}


def edit(path: Path, **changes) -> None:
    record = parse_page(path.read_text(encoding="utf-8"))
    path.write_text(render_page(record.replace(**changes)), encoding="utf-8")


# --------------------------------------------------------------------------- bundled corpus


@pytest.fixture(scope="module")
def corpus_import(tmp_path_factory):
    root = project(tmp_path_factory.mktemp("corpus"), corpus=True)
    report = import_listings([], load_config(root))
    return root, report


def test_bundled_corpus_gives_635_pages_with_sources_and_merges(corpus_import):
    root, report = corpus_import
    assert report.papers == 635 and len(pages(root)) == 635
    assert len(report.merges) == 10
    scores = sorted(e["score"] for m in report.merges for e in m["evidence"])
    assert scores[0] > 0.1 and scores[1] > 0.5  # one rewritten abstract matched by its opening
    formats = {s["file"][:3]: (s["format"], s["entries"], s["announced"]) for s in report.sources}
    assert formats["002"] == ("numbered", 598, 1000)
    assert any("announces 1000 papers, found 598" in w for w in report.warnings)
    state = (root / ".papersite" / "last_import.jsonl").read_text().splitlines()
    ids = [json.loads(line)["id"] for line in state]
    assert len(state) == 635 and ids == sorted(ids)
    derived = [parse_page(t) for t in pages(root).values()]
    assert sum(r.title_derived for r in derived) == 39
    cut = next(r for r in derived if r.title == "Imagine to Ensure Safety in Hierarchical Reinforcement Learning")
    assert cut.abstract is None


def test_reimport_and_other_order_are_byte_identical(corpus_import, tmp_path):
    root, _ = corpus_import
    before = snapshot(root)
    again = import_listings([], load_config(root))
    assert not again.written and not again.updated and snapshot(root) == before
    other = project(tmp_path, corpus=True)
    reversed_sources = sorted((other / "corpus").iterdir(), reverse=True)
    import_listings(reversed_sources, load_config(other))
    assert snapshot(other) == before


def test_importing_the_bundled_corpus_into_the_committed_pages_changes_nothing(tmp_path):
    committed = REPO / "site_src" / "papers"
    if not (REPO / ".papersite" / "last_import.jsonl").exists() or not any(committed.glob("*.md")):
        pytest.skip("no committed import yet")
    root = project(tmp_path, corpus=True, bundled=True)
    shutil.copytree(committed, root / "site_src" / "papers")
    shutil.copytree(REPO / ".papersite", root / ".papersite")
    before = snapshot(root)
    report = import_listings([], load_config(root))
    assert (report.written, report.updated, report.conflicts) == ([], [], [])
    assert snapshot(root) == before


# --------------------------------------------------------------------------- human edits


def test_edits_are_kept_untouched_fields_updated_and_conflicts_reported(tmp_path):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs", decision="Reject"), paper("Wave Things", "waves"))})
    config = load_config(root)
    import_listings([], config)
    graph = root / "site_src" / "papers" / "graph-things.md"
    wave = root / "site_src" / "papers" / "wave-things.md"
    edit(graph, title="Graph Things, Revisited", body="Maintainer note: see errata.")
    edit(wave, decision="Accept (Oral)")

    (root / "corpus" / "a.jsonl").write_text(
        jsonl(
            paper("Graph Things", "graphs", decision="Accept (Poster)", keywords=["graphs"]),
            paper("Wave Things Renamed", "waves", decision="Accept (Poster)"),
        ),
        encoding="utf-8",
    )
    report = import_listings([], config)
    graph_page, wave_page = parse_page(graph.read_text()), parse_page(wave.read_text())
    assert graph_page.title == "Graph Things, Revisited"  # human edit kept
    assert graph_page.body.strip() == "Maintainer note: see errata."
    assert graph_page.decision == "Accept (Poster)" and graph_page.keywords == ["graphs"]  # nobody touched these
    assert graph_page.slug == "graph-things"
    assert wave_page.title == "Wave Things Renamed" and wave_page.slug == "wave-things"
    assert wave_page.decision == "Accept (Oral)"  # both changed it: the human wins...
    assert [(c["slug"], c["field"], c["page"], c["listing"]) for c in report.conflicts] == [
        ("wave-things", "decision", "Accept (Oral)", "Accept (Poster)")  # ...and it is reported
    ]
    assert sorted(report.updated) == ["graph-things", "wave-things"]


def test_maintainer_fields_unknown_to_the_record_survive_a_rewrite(tmp_path):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs", decision="Reject"))})
    config = load_config(root)
    import_listings([], config)
    page = root / "site_src" / "papers" / "graph-things.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("---\n", "---\nerrata:\n- 'Table 2: wrong sign'\nstatus: new\n", 1), encoding="utf-8")

    (root / "corpus" / "a.jsonl").write_text(jsonl(paper("Graph Things", "graphs", decision="Accept (Poster)")), encoding="utf-8")
    report = import_listings([], config)
    assert report.updated == ["graph-things"]
    rewritten = parse_page(page.read_text(encoding="utf-8"))
    assert rewritten.decision == "Accept (Poster)"
    assert rewritten.extra == {"errata": ["Table 2: wrong sign"], "status": "new"}
    assert import_listings([], config).updated == []  # and a re-import leaves the page alone


def test_merge_fields_rules():
    base = {"title": "T", "decision": "A", "keywords": []}
    page = {"title": "Human", "decision": "A", "keywords": []}
    proposed = {"title": "T", "decision": "B", "keywords": ["k"]}
    merged, conflicts = merge_fields(base, page, proposed)
    assert merged == {"title": "Human", "decision": "B", "keywords": ["k"]} and conflicts == []
    merged, conflicts = merge_fields(base, {**page, "decision": "C"}, proposed)
    assert merged["decision"] == "C" and conflicts == ["decision"]


def test_paper_that_left_the_listings_is_reported_not_deleted(tmp_path):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs")), "b.jsonl": jsonl(paper("Wave Things", "waves"))})
    config = load_config(root)
    import_listings([], config)
    (root / "corpus" / "b.jsonl").unlink()
    report = import_listings([], config)
    assert report.departed == ["wave-things"]
    assert (root / "site_src" / "papers" / "wave-things.md").exists()


def test_new_paper_never_takes_an_existing_slug(tmp_path):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Same Naive", "graphs"))})
    config = load_config(root)
    import_listings([], config)
    first = pages(root)
    other = {"title": "Same Naïve", "abstract": "Ocean currents carry heat poleward; we model them with buoys, "
             "satellites and a coupled circulation simulator over forty years of observations."}
    (root / "corpus" / "b.jsonl").write_text(jsonl(other), encoding="utf-8")
    report = import_listings([], config)
    assert report.written == ["same-naive-2"]
    assert pages(root)["same-naive.md"] == first["same-naive.md"]


def test_paper_from_abstract_list_keeps_slug_when_a_titled_listing_arrives(tmp_path):
    abstracts = "Papers\n\n" + PROSE.format(topic="graph alignment") + "\n"
    root = project(tmp_path, {"a.txt": abstracts})
    config = load_config(root)
    import_listings([], config)
    (slug,) = [p[:-3] for p in pages(root)]
    (root / "corpus" / "b.jsonl").write_text(jsonl(paper("Graph Alignment", "graph alignment")), encoding="utf-8")
    report = import_listings([], config)
    assert report.updated == [slug] and len(pages(root)) == 1
    page = parse_page(pages(root)[slug + ".md"])
    assert page.title == "Graph Alignment" and not page.title_derived and len(page.sources) == 2


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize("bad", [b"", b"\x00\x01\x02binary", b"just one line\n"])
def test_bad_listing_aborts_and_writes_nothing(tmp_path, capsys, bad):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs"))})
    (root / "corpus" / "broken.txt").write_bytes(bad)
    code = run_import(Namespace(sources=[], report=None, quiet=False), load_config(root))
    assert code == 1
    assert "broken.txt:1:" in capsys.readouterr().err
    assert snapshot(root) == {}


def test_crash_mid_write_leaves_no_half_written_page(tmp_path, monkeypatch):
    root = project(tmp_path, {"a.jsonl": jsonl(*(paper(f"Paper {n}", f"topic{n}") for n in range(6)))})
    config = load_config(root)
    import_listings([], config)
    before = pages(root)
    (root / "corpus" / "a.jsonl").write_text(
        jsonl(*(paper(f"Paper {n}", f"topic{n}", decision="Accept") for n in range(6))), encoding="utf-8"
    )
    real_replace, calls = os.replace, []

    def crash_on_third(src, dst):
        calls.append(dst)
        if len(calls) == 3:
            raise KeyboardInterrupt("power cut")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_third)
    with pytest.raises(KeyboardInterrupt):
        import_listings([], config)
    monkeypatch.setattr(os, "replace", real_replace)
    after = pages(root)
    assert sorted(after) == sorted(before)
    for name, text in after.items():
        assert text == before[name] or "decision: Accept" in text  # old or new, never half
        parse_page(text)
    assert not [p for p in root.rglob("*.tmp")]
    # The next run finishes the job without inventing conflicts.
    report = import_listings([], config)
    assert report.conflicts == [] and all("decision: Accept" in t for t in pages(root).values())


# --------------------------------------------------------------------------- hostile text, report


def test_hostile_text_survives_as_text(tmp_path):
    hostile = "<script>alert(1)</script> {{ x }} ---\ntitle: owned # not a comment 'q' \"qq\""
    root = project(tmp_path, {"h.json": json.dumps([{"title": hostile, "authors": [hostile], "abstract": hostile + " " + PROSE.format(topic="x")}])})
    import_listings([], load_config(root))
    (text,) = pages(root).values()
    record = parse_page(text)
    assert record.title == hostile and record.authors == [hostile]
    assert record.body == ""


def test_report_file_and_summary(tmp_path, capsys):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs"), paper("Graph Things", "graphs"))})
    out = tmp_path / "report.json"
    assert run_import(Namespace(sources=[], report=out, quiet=False), load_config(root)) == 0
    report = json.loads(out.read_text())
    assert report["sources"] == [{"file": "a.jsonl", "format": "json", "entries": 2, "announced": None}]
    assert report["papers"]["written"] == 1 and report["merges"][0]["evidence"][0]["kind"] == "title+abstract"
    assert "1 papers from 2 entries" in capsys.readouterr().out


# --------------------------------------------------------------------------- import and check agree

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from generator.pages.check import check_pages  # noqa: E402
from generator.problems import PapersiteError, errors_only

_HOSTILE_TEXT = st.sampled_from(
    ["Graph", "graph", " GRAPH ", "·", " · ", "", "  ", "<script>x</script>", "---", "&a", "*b", "key: value", "\x1b[2J",
     "\u202eevil", "R&D", "{{ x }}", "[l](javascript:1)", "null", "true", "1e3", "~", "\t", "é", "\U0001f600"]
)
_HOSTILE_RECORD = st.fixed_dictionaries(
    {"title": st.lists(_HOSTILE_TEXT, min_size=1, max_size=4).map(" ".join)},
    optional={
        "authors": st.lists(_HOSTILE_TEXT, max_size=3),
        "keywords": st.lists(_HOSTILE_TEXT, max_size=5),
        "topic": _HOSTILE_TEXT | st.fixed_dictionaries({"area": _HOSTILE_TEXT}, optional={"subarea": _HOSTILE_TEXT | st.none()}),
        "links": st.dictionaries(st.sampled_from(["pdf", "code", "openreview", "x y"]),
                                 st.sampled_from(["HTTPS://example.org/a", "https://EXAMPLE.org/b", " http://example.org/c ",
                                                  "javascript:alert(1)", "HtTp://x.org/d", "ftp://x.org/e"]), max_size=3),
        "decision": _HOSTILE_TEXT,
    },
)


@given(st.lists(_HOSTILE_RECORD, min_size=1, max_size=5))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_whatever_the_import_writes_check_accepts(tmp_path_factory, records):
    for record in records:
        record["abstract"] = PROSE.format(topic=record["title"])
    root = project(tmp_path_factory.mktemp("agree"), {"hostile.jsonl": jsonl(*records)})
    config = load_config(root)
    try:
        import_listings([], config)
    except PapersiteError as error:  # a topic with an empty part around '·' is refused, not guessed at
        assert all("field 'topic': topic" in p.message for p in error.problems), error.lines()
        assert not any(config.papers_dir.glob("*.md"))
        return
    errors = errors_only(check_pages(config))
    assert not errors, [str(e) for e in errors]


@pytest.mark.parametrize("kind", ["directory", "dangling symlink", "duplicate key"])
def test_an_unreadable_page_stops_the_import_with_its_path(tmp_path, capsys, kind):
    root = project(tmp_path, {"a.jsonl": jsonl(paper("Graph Things", "graphs"))})
    config = load_config(root)
    assert run_import(Namespace(sources=[], report=None, quiet=True), config) == 0
    odd = config.papers_dir / "odd.md"
    if kind == "directory":
        odd.mkdir()
    elif kind == "dangling symlink":
        odd.symlink_to(root / "nowhere.md")
    else:
        page = next(config.papers_dir.glob("graph*.md"))
        page.write_text(page.read_text(encoding="utf-8").replace("title:", "title: Twice\ntitle:", 1), encoding="utf-8")
    before = snapshot(root)
    assert run_import(Namespace(sources=[], report=None, quiet=True), config) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("odd.md:1:" in err or "appears twice" in err), err
    assert snapshot(root) == before
