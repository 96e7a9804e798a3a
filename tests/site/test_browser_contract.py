"""The browser does what the build did: papersite-core.js, run under Node, against the Python it mirrors.

A reader's query must fold, split and stem as the build folded, split and stemmed the indexed
text (``generator/text.py`` fold, ``search.py`` split_words/trimmed_word/_Terms), and find its
words in the shard ``search_index.shard_of`` put them in; otherwise a query finds nothing
("Weiß" folded to "weiß" in the browser and "weiss" in the list's data). Fold is compared on
every code point both Unicodes assign, the rest on hostile strings.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path

import pytest

from generator import layout
from generator.site import search
from generator.catalog import build_catalog
from generator.pages.record import PaperRecord
from generator.site.render.cite import author_order_words
from generator.site.render.components import author_line
from generator.site.render.indices import papers_page
from generator.site.scripts import shipped_script
from generator.site.search_index import shard_of, shards_of_prefix
from generator.text import fold
from site_fixtures import fixture_records, store_papers

CORE_JS = Path(search.__file__).parent / "assets" / "papersite-core.js"


def shipped(source: Path, folder: Path) -> str:
    """The path of ``source`` as the site serves it (generator/site/scripts.py): the contract is the shipped bytes'."""
    path = folder / "shipped" / source.name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(shipped_script(source.read_bytes()))
    return str(path)

HOSTILE = [
    "", " ", "Weiß", "WEISS", "weiss", "Straße", "İstanbul", "ıi", "Iİ", "ﬁnite ﬂow", "ＧＰＴ－４ Ｔｕｒｂｏ",
    "José García", "Jose\u0301 Garci\u0301a", "Zoë", "Dvořák", "Ångström", "Łukasz", "Ødegaard", "Þór", "ǅemal",
    "ΣΊΣΥΦΟΣ", "ὈΔΥΣΣΕΎΣ", "Чебышёв", "ᏣᎳᎩ ꮳꮃꭹ", "日本語の論文", "한국어", "עִבְרִית", "العَرَبِيَّة", "हिन्दी", "ภาษาไทย",
    "emoji 🚀 rocket", "𝐁𝐨𝐥𝐝 math", "𝔉𝔯𝔞𝔨𝔱𝔲𝔯", "a\u200bb", "x\u00a0y\u2009z", "tab\there", "\x1cfs\x1d", "\u0085nel\ufeff",
    "J. Smith", "J.Smith", "Jean - Pierre", "O' Brien", "O’Brien", "self-supervised", "state-of-the-art models",
    "--flag", "re-", "(parenthesised)", "\"quoted phrase\"", "C++ and C#", "_under_score_", "3D point-clouds 2024",
    "running runs ran", "the and of a", "arrays survey cry", "generalization’s", "½ ⅔ ² ₃", "µ-law ſtyle",
    "ǰ ŉ ẞ", "Ǆ ǈ", "\u0345", "a\u0308\u0301", "i\u0307", "\U0001f1fa\U0001f1f8 flags", "x\U000e0041y",
]


def _node() -> str:
    node = shutil.which("node") or ("/usr/bin/node" if Path("/usr/bin/node").exists() else None)
    if node is None:
        message = "node is not installed: the browser contract (papersite-core.js against the Python it mirrors) needs it"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI installs it: apt-get install nodejs)")
        pytest.skip(message)
    return node


_HARNESS = r"""
const core = require(process.argv[1]);
const lunr = require(process.argv[2]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {};
out.fold = input.fold.map(t => core.fold(t));
out.assigned = input.codePoints.map(cp => !/\p{Cn}/u.test(String.fromCodePoint(cp)));
out.foldEach = input.codePoints.map(cp => core.fold(String.fromCodePoint(cp)));
out.words = input.texts.map(t => core.queryWords(t));
out.terms = input.texts.map(t => core.queryTerms(lunr, t));
out.wordsEach = input.codePoints.map(cp => core.queryWords("a" + String.fromCodePoint(cp) + " " + String.fromCodePoint(cp)));
out.keys = input.texts.map(t => [core.titleKey(t), core.foldedWords(t).trim().split(" "), core.normal(t).trim().split(" ")]);
out.keysEach = input.codePoints.map(cp => { const t = "a" + String.fromCodePoint(cp) + "b " + String.fromCodePoint(cp);
  return [core.titleKey(t), core.foldedWords(t).trim().split(" "), core.normal(t).trim().split(" ")]; });
out.shards = input.shardWords.map(w => core.shardOf(input.starts, w));
out.prefixShards = input.shardWords.map(w => core.shardsOfPrefix(input.starts, w.slice(0, 2)));
out.authorLines = input.authorLines.map(a => core.authorLine(a[0], a[1], a[2]));
out.crc = input.texts.map(t => core.crc32(t));
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def node_results(tmp_path_factory) -> dict:  # noqa: ANN001
    scripts = tmp_path_factory.mktemp("scripts")
    code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF and unicodedata.category(chr(cp)) != "Cn"]
    shard_words = [w for w in (search.trimmed_word(w) for t in HOSTILE for w in search.split_words(t)) if w]
    shard_words += [chr(cp) + "x" for cp in range(0x20, 0x250)]
    # shards beginning at some of those words (and at their first letters), as a manifest lists them
    starts = [""] + sorted({w[:k] for w in shard_words[::3] for k in (1, 3)}, key=lambda t: t.encode("utf-16-be"))
    orders = search.store_schema()["orders"]  # what the rows' order letter says, as the browser has it
    author_lines = [[[" ".join(a.split()) for a in p.authors[:3]], len(p.authors),
                     orders[search.STORE_ORDER.get(p.author_order, "u")] if p.author_order else None] for p in AUTHOR_LISTS]
    data = {"fold": HOSTILE, "texts": HOSTILE, "codePoints": code_points, "shardWords": shard_words, "starts": starts,
            "authorLines": author_lines}
    run = subprocess.run(
        [_node(), "-e", _HARNESS, shipped(CORE_JS, scripts), shipped(search.lunr_js_source(), scripts)],
        input=json.dumps(data), capture_output=True, text=True, encoding="utf-8", check=False,
    )
    assert run.returncode == 0, run.stderr
    return {"input": data, **json.loads(run.stdout)}


# papers with 0 to 5 authors, in their order, alphabetical, or in an order nobody knows (an unknown value too)
AUTHOR_LISTS = [
    PaperRecord(id=f"p{n}-{order}", slug=f"p{n}-{order}", title="t", authors=[f"Name  {i} Ünïcode" for i in range(n)], author_order=order)
    for n in range(6) for order in ("", "alphabetical", "unknown", "shuffled")
]


def test_a_lists_author_line_is_the_builds(node_results):
    """A paper page draws its related papers in the browser (papersite-saved.js): their lines must read as
    the build's lists do (components.author_line), "et al." only where the first author is known."""
    assert node_results["authorLines"] == [author_line(p) if p.authors else "" for p in AUTHOR_LISTS]
    assert "Name 0 Ünïcode, Name 1 Ünïcode, Name 2 Ünïcode and 2 more (alphabetical order)" in node_results["authorLines"]


def test_the_browser_finds_a_papers_related_file_and_an_authors_co_author_file_where_the_build_put_them(node_results):
    """exports.hashed_file: zlib's CRC-32 of the slug's UTF-8, which papersite-core.js computes alike."""
    from generator.site.exports import hashed_file

    assert node_results["crc"] == [zlib.crc32(t.encode("utf-8")) for t in node_results["input"]["texts"]]
    assert [c % 44 for c in node_results["crc"]] == [hashed_file(t, 44) for t in node_results["input"]["texts"]]


def test_fold_is_pythons_on_hostile_names(node_results):
    expected = [fold(t) for t in HOSTILE]
    assert node_results["fold"] == expected
    assert fold("Weiß") == fold("WEISS") == "weiss"  # the bug this contract was written for


def test_fold_is_pythons_on_every_code_point(node_results):
    # a code point only one of the two Unicode versions assigns may differ: not a rule that differs
    wrong = [
        (f"U+{cp:04X}", fold(chr(cp)), js)
        for cp, js, assigned in zip(node_results["input"]["codePoints"], node_results["foldEach"], node_results["assigned"])
        if assigned and fold(chr(cp)) != js
    ]
    assert not wrong[:20], f"{len(wrong)} code points fold differently in papersite-core.js"


def _words(text: str) -> list[str]:
    return [t for t in map(search.trimmed_word, search.split_words(text)) if t]


def test_query_words_and_terms_are_the_indexed_ones(node_results):
    assert node_results["words"] == [_words(t) for t in HOSTILE]
    terms = search._Terms()
    assert node_results["terms"] == [terms(t) for t in HOSTILE]


def _differing(node_results, column: str, python, template: str) -> list:
    """The assigned code points whose text (``template`` around the code point) Python and Node answer differently."""
    wrong = []
    for cp, js, assigned in zip(node_results["input"]["codePoints"], node_results[column], node_results["assigned"]):
        text = template.format(c=chr(cp))
        if assigned and python(text) != js:
            wrong.append((f"U+{cp:04X}", python(text), js))
    return wrong


def test_query_words_split_and_trim_every_code_point_as_python_does(node_results):
    wrong = _differing(node_results, "wordsEach", _words, "a{c} {c}")
    assert not wrong[:20], f"{len(wrong)} code points split or trim differently in papersite-core.js"


def _keys(text: str) -> list:
    """What the store's tables are keyed by (search.py), as papersite-core.js's titleKey, foldedWords and normal give them."""
    return [search.exact_title_key(text), search.folded_words(text) or [""], search.normal_words(text) or [""]]


def test_the_store_tables_keys_are_what_the_browser_looks_up(node_results):
    assert node_results["keys"] == [_keys(t) for t in HOSTILE]
    wrong = _differing(node_results, "keysEach", _keys, "a{c}b {c}")
    assert not wrong[:20], f"{len(wrong)} code points give other exact-title, name or typed-word keys in papersite-core.js"


def test_a_query_word_goes_to_the_shard_its_terms_are_in(node_results):
    words, starts = node_results["input"]["shardWords"], node_results["input"]["starts"]
    assert node_results["shards"] == [shard_of(w, starts) for w in words]
    assert len(set(node_results["shards"])) > 20  # the words fall in many shards, not all in one
    assert node_results["prefixShards"] == [shards_of_prefix(w[:2], starts) for w in words]


_SCHEMA_HARNESS = r"""
const core = require(process.argv[1]);
const schema = new core.Schema(JSON.parse(require("fs").readFileSync(0, "utf8")));
process.stdout.write(JSON.stringify({
  urls: ["paper", "author", "keyword", "topic", "explore", "papers"].map(k => schema.url(k, "some-slug")),
  col: schema.col, topicCol: schema.topicCol, nameCol: schema.nameCol, orders: schema.orders, bits: ["title", "authors", "keywords", "abstract"].map(n => schema.fieldBit(n)),
  worker: schema.forWorker(),
}));
"""


def test_the_schema_gives_the_browser_layouts_urls_and_the_builds_words(tmp_path):
    block = search.store_schema()
    run = subprocess.run([_node(), "-e", _SCHEMA_HARNESS, shipped(CORE_JS, tmp_path)], input=json.dumps(block), capture_output=True,
                         text=True, encoding="utf-8", check=False)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["urls"] == [layout.paper_url("some-slug"), layout.author_url("some-slug"), layout.keyword_url("some-slug"),
                           layout.area_url("some-slug"), layout.EXPLORE.url(), layout.PAPERS.url()]
    assert got["col"] == {name: i for i, name in enumerate(search.STORE_COLUMNS)}
    assert got["topicCol"] == {"label": 0, "path": 1, "area": 2} and got["nameCol"] == {"name": 0, "slug": 1}
    assert got["orders"] == {letter: author_order_words(order, short=True) for order, letter in search.STORE_ORDER.items()}
    assert got["bits"] == [1, 2, 4, 8]
    assert got["worker"] == {"fields": ["t", "a", "k", "b"], "textChunk": search.TEXT_CHUNK, "abstractWords": search.ABSTRACT_WORDS}
    # the letters the indexes are written with are the schema's, in its order
    assert [f["letter"] for f in block["fields"]] == [letter for letter, _ in search.META_FIELDS + search.ABSTRACT_FIELDS]


def _with_venue(paper, venue):
    paper.venue = venue  # (PaperRecord may not have the field yet: search reads it with getattr)
    return paper


def _store(records) -> dict:
    return json.loads(gzip.decompress(search.search_files(build_catalog(records))[search.DOCS_FILE]))


def test_rows_are_read_by_column_name_and_end_at_their_last_value():
    records = fixture_records()
    store = _store(records)
    columns = store["schema"]["columns"]
    assert all(len(row) <= len(columns) and row[-1] is not None for row in store["papers"])
    rows = store_papers(store)
    by_slug = {r["slug"]: r for r in rows}
    for paper in records:
        row = by_slug[paper.slug]
        assert row["venue"] is None and store["venues"] == []
        assert row["order"] == (search.STORE_ORDER.get(paper.author_order, "u") if paper.author_order else None)


def test_a_venue_column_and_filter_only_where_papers_have_more_than_one_venue():
    records = fixture_records()
    one = [_with_venue(p, "ICLR 2025") for p in fixture_records()]
    assert 'data-ps-venue' not in papers_page(build_catalog(one)) and _store(one)["venues"] == ["ICLR 2025"]
    assert 'data-ps-venue' not in papers_page(build_catalog(records))
    two = fixture_records()
    _with_venue(two[0], "ICLR 2025 Workshop  on Things")
    _with_venue(two[1], "ICLR 2025")
    store = _store(two)
    assert store["venues"] == ["ICLR 2025", "ICLR 2025 Workshop on Things"]
    rows = {r["slug"]: r for r in store_papers(store)}
    assert store["venues"][rows[two[0].slug]["venue"]] == "ICLR 2025 Workshop on Things"
    assert rows[two[2].slug]["venue"] is None
    page = papers_page(build_catalog(two))
    assert 'data-ps-venue' in page and 'data-venue="ICLR 2025"' in page


_WORKER_PRELUDE = r"""
// search-worker.js as a page loads it where workers are unavailable, its files read from disk
const fs = require("fs"), path = require("path");
globalThis.self = globalThis;
globalThis.lunr = require(process.argv[2]);
globalThis.papersite = { core: require(process.argv[1]) };
const dir = process.argv[4];
globalThis.fetch = url => Promise.resolve(fs.existsSync(path.join(dir, url)) ? new Response(fs.readFileSync(path.join(dir, url))) : new Response("", { status: 404 }));
require(process.argv[3]);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
"""

_WORKER_HARNESS = _WORKER_PRELUDE + r"""
(async () => {
  const out = {};
  for (const [index, fields] of [["index", ["t", "a", "k"]], ["abstracts", ["b"]]]) {
    // the worker's own scoring (scoredHits), and lunr.Index.query's over the same shards (lunrQuery)
    for (const [name, lunrQuery] of [[index, false], [index + " lunr", true]]) {
      const state = self.papersiteIndex.open(index + "-", null, null);
      state.lunrQuery = lunrQuery;
      out[name] = [];
      for (const [word, prefix] of input.queries) {
        const got = await self.papersiteIndex.answer(state, { type: "query", id: 1, words: [word], prefix, phrases: [], schema: { fields } });
        out[name].push([Array.from(got.words[0].refs), Array.from(got.words[0].scores), Array.from(got.words[0].fields)]);
      }
    }
  }
  process.stdout.write(JSON.stringify(out));
})().catch(error => { process.stderr.write(String(error.stack)); process.exit(1); });
"""


def _lunr_py_index(papers: list[dict[str, list[str]]], fields: list[tuple[str, int]]):
    """lunr.py's own index of these terms (its Builder, its term numbers): what the site's search was
    before the shards, and the oracle of the worker's scores."""
    from lunr.builder import Builder

    builder = Builder()
    builder.pipeline.reset()  # the terms are tokenised and stemmed already, as lunr.js's would be
    builder.search_pipeline.reset()
    builder.ref("id")
    for name, boost in fields:
        builder.field(name, boost=boost)
    for number, paper in enumerate(papers):
        builder.add({"id": str(number), **{name: paper[name] for name, _ in fields}})
    return builder.build()


def test_the_worker_scores_as_lunr_pys_index_of_every_paper(tmp_path):
    """The bundled corpus's search files: for each query word (whole, or a prefix being typed), the
    papers search-worker.js finds in the shards under Node and their scores are those of lunr.py's
    index of every paper built from the same terms; and its own scoring (scoredHits) answers as
    lunr.js's query over the same shards, order and matched fields included."""
    from lunr.query import Query

    from generator.config import load_config
    from generator.site.stage import read_records
    from site_fixtures import REPO_ROOT

    records, _ = read_records(load_config(REPO_ROOT))
    catalog = build_catalog(records)
    files = search.search_files(catalog)
    folder = tmp_path / "site"
    for name, data in files.items():
        if name.startswith(search.SHARDS_DIR + "/index-") or name.startswith(search.SHARDS_DIR + "/abstracts-"):
            (folder / Path(name).name).parent.mkdir(parents=True, exist_ok=True)
            (folder / Path(name).name).write_bytes(data)
    terms = search._Terms()
    per_paper = [search._paper_terms(search._term_texts(catalog.papers[n]), terms) for n in search.papers_in_slug_order(catalog.papers)]
    indexes = {"index": _lunr_py_index([{"t": t, "a": a, "k": k} for t, a, k, _ in per_paper], search.META_FIELDS),
               "abstracts": _lunr_py_index([{"b": b} for *_, b in per_paper], search.ABSTRACT_FIELDS)}
    words = sorted({w for p in catalog.papers[::9] for w in search.split_words(p.title)
                    if w.isascii() and w.isalpha() and terms.term(w) and not set(search.fold(w)) - set(w)})
    queries = [[w, False] for w in words] + [[w[:4], True] for w in words[::5] if len(w) >= 4 and terms.term(w[:4])]
    run = subprocess.run([_node(), "-e", _WORKER_HARNESS, shipped(CORE_JS, tmp_path), shipped(search.lunr_js_source(), tmp_path),
                          shipped(CORE_JS.parent / "search-worker.js", tmp_path), str(folder)],
                         input=json.dumps({"queries": queries}), capture_output=True, text=True, encoding="utf-8", check=False)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    compared = 0
    for name, index in indexes.items():
        # the worker's hits are lunr.js's, in lunr's order (ties too) and with the same fields matched
        assert got[name] == got[name + " lunr"], name
        for (word, prefix), (refs, scores, _) in zip(queries, got[name]):
            def query(q, word=word, prefix=prefix):
                q.term(terms.term(word), use_pipeline=False, boost=1)
                if prefix:
                    q.term(word, use_pipeline=False, wildcard=Query.WILDCARD_TRAILING, boost=0.3)
            expected = {int(hit["ref"]): hit["score"] for hit in index.query(_built(index, query))}
            assert dict(zip(refs, scores)) == expected, (name, word, prefix)
            compared += len(expected)
    assert len(queries) > 60 and compared > 5000  # many words, common and rare, and prefixes


def _built(index, build):
    query = index.create_query()
    build(query)
    return query


if __name__ == "__main__":  # the tables papersite-core.js carries, from this Python's Unicode
    ranges: list[list[int]] = []
    for cp in range(sys.maxunicode + 1):
        if unicodedata.combining(chr(cp)):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    js = (lambda cp: f"\\u{{{cp:x}}}" if cp > 0xFFFF else f"\\u{cp:04x}")
    print("COMBINING", "".join(js(a) if a == b else js(a) + ("" if b == a + 1 else "-") + js(b) for a, b in ranges))
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        if not 0xD800 <= cp <= 0xDFFF and unicodedata.normalize("NFKD", c) == c and c.lower() == c and c.casefold() != c:
            print("CASEFOLD", f"U+{cp:04X}", " ".join(f"U+{ord(x):04X}" for x in c.casefold()))


_EXACT_HARNESS = _WORKER_PRELUDE + r"""
(async () => {
  const out = [], schema = input.schema;
  for (const [word, prefix] of input.queries) {
    const state = self.papersiteIndex.open("abstracts-", null, "texts-");
    const asked = { id: 1, words: [word], prefix, phrases: [], schema };
    const got = (await self.papersiteIndex.answer(state, { type: "query", ...asked })).words[0];
    const refs = Array.from(got.refs);
    const exact = (await self.papersiteIndex.answer(state, { type: "exact", refs, ...asked })).words[0];
    out.push({ refs, scores: Array.from(got.scores), bounds: got.bounds ? Array.from(got.bounds) : null,
               exactRefs: Array.from(exact.refs), exact: Array.from(exact.scores), left: exact.bounds ? Array.from(exact.bounds) : null });
  }
  process.stdout.write(JSON.stringify(out));
})().catch(error => { process.stderr.write(String(error.stack)); process.exit(1); });
"""


def test_a_common_terms_weights_are_bounded_then_read_from_the_texts_as_lunr_pys(tmp_path, monkeypatch):
    """With the common line low, the abstracts' frequent terms ship as their papers only: the worker's
    score of each paper is then at most lunr.py's and at least it minus the bound it reports, and once
    the papers' texts are read ("exact") every score is lunr.py's to the last bit, no bound left."""
    from lunr.query import Query

    from generator.config import load_config
    from generator.site.stage import read_records
    from site_fixtures import REPO_ROOT

    monkeypatch.setattr(search, "COMMON_PAPERS", 15)
    records, _ = read_records(load_config(REPO_ROOT))
    catalog = build_catalog(records)
    files = search.search_files(catalog)
    folder = tmp_path / "site"
    folder.mkdir()
    for name, data in files.items():
        if name.startswith(search.SHARDS_DIR + "/abstracts-") or name.startswith(search.SHARDS_DIR + "/texts-"):
            (folder / Path(name).name).write_bytes(data)
    common = [t for key, data in files.items() if key.startswith(search.SHARDS_DIR + "/abstracts-") and not key.endswith("shards.json.gz")
              for t in json.loads(gzip.decompress(data))["terms"] if t[2] and t[2][0] == 0]
    terms = search._Terms()
    per_paper = [search._paper_terms(search._term_texts(catalog.papers[n]), terms) for n in search.papers_in_slug_order(catalog.papers)]
    index = _lunr_py_index([{"b": b} for *_, b in per_paper], search.ABSTRACT_FIELDS)
    words = sorted({w for p in catalog.papers[::7] for w in search.split_words(p.title)
                    if w.isascii() and w.isalpha() and terms.term(w)})
    queries = [[w, False] for w in words] + [[w[:4], True] for w in words[::4] if len(w) >= 4 and terms.term(w[:4])]
    schema = {"fields": ["b"], "textChunk": search.TEXT_CHUNK, "abstractWords": search.ABSTRACT_WORDS}
    run = subprocess.run([_node(), "-e", _EXACT_HARNESS, shipped(CORE_JS, tmp_path), shipped(search.lunr_js_source(), tmp_path),
                          shipped(CORE_JS.parent / "search-worker.js", tmp_path), str(folder)],
                         input=json.dumps({"queries": queries, "schema": schema}), capture_output=True, text=True, encoding="utf-8", check=False)
    assert run.returncode == 0, run.stderr
    bounded = 0
    for (word, prefix), got in zip(queries, json.loads(run.stdout)):
        def query(q, word=word, prefix=prefix):
            q.term(terms.term(word), use_pipeline=False, boost=1)
            if prefix:
                q.term(word, use_pipeline=False, wildcard=Query.WILDCARD_TRAILING, boost=0.3)
        expected = {int(hit["ref"]): hit["score"] for hit in index.query(_built(index, query))}
        assert set(got["refs"]) == set(expected), word  # membership alone says which papers match
        for ref, score, bound in zip(got["refs"], got["scores"], got["bounds"] or [0] * len(got["refs"])):
            assert score - 1e-9 <= expected[ref] <= score + bound + 1e-9, (word, ref)
            bounded += bound > 0
        assert dict(zip(got["exactRefs"], got["exact"])) == expected, word
        assert not any(got["left"] or [])
    assert common and bounded > 100


def test_a_texts_indexed_terms_are_the_builds_up_to_the_limit(tmp_path):
    """core.indexedTerms(text, limit) == search._Terms()(text, limit): the first words split (hyphens
    too, empty pieces not counted), then trimmed, stop words and non-BMP words left out, stemmed."""
    texts = ["Self-supervised learning -- of the  models' (robust) re-ranking: a study; ωmega 𝔸x state-of-the-art " * 60,
             "- -- — 'quoted' words, and the, of", "", "Diffusion-based 1st-order methods 𝟙 ﬁne-tuning"]
    script = ("const core = require(process.argv[1]); const lunr = require(process.argv[2]);"
              "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(input.map(([t, n]) => core.indexedTerms(lunr, t, n))));")
    cases = [[t, n] for t in texts for n in (search.ABSTRACT_WORDS, 7, 1)]
    run = subprocess.run([_node(), "-e", script, shipped(CORE_JS, tmp_path), shipped(search.lunr_js_source(), tmp_path)],
                         input=json.dumps(cases), capture_output=True, text=True, encoding="utf-8", check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [search._Terms()(t, n) for t, n in cases]
