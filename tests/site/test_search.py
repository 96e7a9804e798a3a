"""generator/site/search.py: the store and its schema, read the way the browser reads them."""

from __future__ import annotations

import gzip
import json

import pytest

from generator.catalog import build_catalog
from generator.site import search
from site_fixtures import HOSTILE_TITLE, fixture_records, store_papers


def _store(records) -> dict:
    files = search.search_files(build_catalog(records))
    return json.loads(gzip.decompress(files[search.DOCS_FILE]))


def _rows(store: dict) -> list[dict]:
    columns = store["schema"]["columns"]
    return [dict(zip(columns, row)) for row in store["papers"]]


def test_rows_read_by_the_schemas_column_names() -> None:
    records = fixture_records()
    store = _store(records)
    rows = _rows(store)
    assert sorted(row["slug"] for row in rows) == sorted(r.slug for r in records)
    hostile = next(row for row in rows if row["slug"] == "hostile-paper")
    assert HOSTILE_TITLE.split()[0] in hostile["title"]  # text, as written: the browser escapes it
    assert store["schema"]["urls"]["paper"] == "papers/{slug}/"


def test_a_per_paper_field_is_a_column_only_where_papers_have_it() -> None:
    records = fixture_records()
    assert all("venue" not in row for row in _rows(_store(records)))
    with_venue = [r.replace(venue="ICML 2025") if r.slug == "calibrated-flows" else r for r in records]
    store = _store(with_venue)
    assert store["venues"] == ["ICML 2025"]
    row = next(row for row in _rows(store) if row["slug"] == "calibrated-flows")
    assert store["venues"][row["venue"]] == "ICML 2025"


def test_the_search_files_are_the_same_bytes_twice() -> None:
    assert search.search_files(build_catalog(fixture_records())) == search.search_files(build_catalog(fixture_records()[::-1]))


def test_explore_offers_decisions_in_filter_order_and_no_decision_last() -> None:
    import re

    records = fixture_records()
    decisions = ["Reject", "Accept (Poster)", "Accept (Oral)", "Under review <b>"]
    records = [r.replace(decision=decisions[i] if i < len(decisions) else None) for i, r in enumerate(records)]
    page = search.explore_page(build_catalog(records))
    menu = re.search(r'<select id="ps-decision" name="decision">(.*?)</select>', page).group(1)
    values = re.findall(r'value="([^"]*)"', menu)
    assert values == ["", "Accept (Oral)", "Accept (Poster)", "Reject", "Under review &lt;b&gt;", search.NO_DECISION]
    assert "data-ps-none" in menu and "<b>" not in menu
    every = search.explore_page(build_catalog([r.replace(decision="Reject") for r in records]))
    assert "data-ps-none" not in every, "no paper lacks a decision: no such choice"
    assert re.search(r'<select id="ps-sort" name="sort">', page)
def test_snippet_texts_are_in_chunks_of_the_schemas_size_in_paper_order(monkeypatch) -> None:
    monkeypatch.setattr(search, "TEXT_CHUNK", 3)  # several chunks of the small fixture
    records = fixture_records()
    files = search.search_files(build_catalog(records))
    store = json.loads(gzip.decompress(files[search.DOCS_FILE]))
    size = store["schema"]["text_chunk"]
    assert size == 3
    whole = json.loads(gzip.decompress(files[search.ABSTRACT_TEXT_FILE]))
    chunks = [json.loads(gzip.decompress(files[search.TEXT_CHUNK_FILE.format(n)])) for n in range(-(-len(whole) // size))]
    assert all(len(chunk) == size for chunk in chunks[:-1]) and 0 < len(chunks[-1]) <= size
    # paper n's text is item n % size of chunk n // size, as search-worker.js someTexts reads it
    assert [text for chunk in chunks for text in chunk] == whole and len(whole) == len(store["papers"])
    assert search.TEXT_CHUNK_FILE.format(len(chunks)) not in files


@pytest.mark.parametrize("texts", [[], [""], ["a", "", 'quote " and \\ back', "Weiß ✓ \u2028 line"], [f"t{i}" for i in range(9)]])
def test_the_whole_texts_file_is_its_chunks_joined_byte_for_byte(texts) -> None:
    chunks = [search._json(texts[start:start + 4]) for start in range(0, max(1, len(texts)), 4)]
    assert search.joined_lists(chunks) == search._json(texts)


@pytest.mark.parametrize("parts", [[], [b""], [b"a"], [b"", b"x" * 70_000, b"", b"abc" * 30_000], [bytes([n % 251]) * n for n in range(0, 3000, 97)]])
def test_a_gzip_of_parts_is_any_readers_gzip_of_their_bytes(parts) -> None:
    import zlib

    made = search.gzip_of_parts(parts)
    assert gzip.decompress(made) == b"".join(parts) == zlib.decompress(made, wbits=31)
    kept = {n: search.deflated_part(part) for n, part in enumerate(parts)}  # as a build keeps them
    assert search.gzip_of_parts(parts, lambda n, part: kept[n]) == made


@pytest.mark.parametrize("per_part", [1, 2, 1000])
def test_the_stores_parts_are_the_store_byte_for_byte(per_part, monkeypatch) -> None:
    monkeypatch.setattr(search, "STORE_PART_PAPERS", per_part)
    files = search.search_files(build_catalog(fixture_records()))
    store = json.loads(gzip.decompress(files[search.DOCS_FILE]))
    assert b"".join(search.store_parts(store)) == search._json(store)
    for other in ({}, {"papers": []}, {"a": [1], "papers": [[1], [2], [3]]}, {"papers": [1], "later": 2},
                  {"title_order": [], "papers": []}, {"a": [1], "title_order": [2, 0, 1], "papers": [[1], [2], [3]]}):
        assert b"".join(search.store_parts(other)) == search._json(other)


def test_an_edit_compresses_again_only_the_parts_it_changed(tmp_path, monkeypatch) -> None:
    """The abstracts' texts and the whole store are gzipped in parts kept by their bytes (``gzip_of_parts``): an
    abstract edited compresses its part of the texts again, and nothing of the store (it holds no abstract)."""
    from generator.config import load_config
    from site_fixtures import write_project

    monkeypatch.setattr(search, "TEXTS_PART_PAPERS", 8)
    monkeypatch.setattr(search, "STORE_PART_PAPERS", 8)
    config = load_config(write_project(tmp_path / "site"))
    records = _many_records(40, 4)
    search.search_files(build_catalog(records), config)
    compressed: list[bytes] = []
    real = search.deflated_part
    monkeypatch.setattr(search, "deflated_part", lambda part: compressed.append(part) or real(part))
    n = 17
    records[n] = records[n].replace(abstract=f"{records[n].abstract} Edited once.")
    files = search.search_files(build_catalog(records), config)
    assert len(compressed) == 1 and b"Edited once." in compressed[0]
    assert files == search.search_files(build_catalog(records))


def test_papers_are_numbered_in_slug_order_and_the_store_carries_their_title_order() -> None:
    from generator.catalog import paper_sort_key

    records = _many_records(40, 6)
    store = _store(records)
    slugs = [row["slug"] for row in _rows(store)]
    assert slugs == sorted(r.slug for r in records)
    by_slug = {r.slug: r for r in records}
    assert [slugs[n] for n in store["title_order"]] == [r.slug for r in sorted(records, key=paper_sort_key)]


def test_a_title_moved_to_the_other_end_of_the_order_rewrites_the_files_of_its_paper_alone(monkeypatch) -> None:
    """A retitled paper keeps its number, and so does every other (slug order): of the rows and texts
    files, only its rows file differs; of the whole store's parts of rows, one."""
    from generator.catalog import paper_sort_key

    monkeypatch.setattr(search, "STORE_PART_PAPERS", 8)
    records = _many_records(60, 7)
    first = min(records, key=paper_sort_key)
    before = search.search_files(build_catalog(records))
    records = [r.replace(title="Zyzzyva at the end of the order") if r is first else r for r in records]
    after = search.search_files(build_catalog(records))
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    number = sorted(r.slug for r in records).index(first.slug)
    rows_and_texts = {name for name in changed if name.startswith((search.ROWS_FILE[:-10], search.TEXT_CHUNK_FILE[:-10]))}
    assert rows_and_texts == {search.ROWS_FILE.format(number // search.ROW_CHUNK)}
    rows = [search.store_parts({"papers": json.loads(gzip.decompress(files[search.DOCS_FILE]))["papers"]}) for files in (before, after)]
    assert len(rows[0]) == len(rows[1]) > 3 and sum(a != b for a, b in zip(*rows)) == 1


def test_an_edit_that_leaves_the_abstracts_as_they_were_does_not_read_their_index(tmp_path, monkeypatch) -> None:
    """The abstracts' index files are kept by a digest of the abstracts: a title edit neither reads nor updates
    their index's state; an abstract edit does, and either gives the files made from scratch."""
    from generator.config import load_config
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "site"))
    records = _many_records(30, 9)
    search.search_files(build_catalog(records), config)
    made: list[list] = []
    real = search.index_state
    monkeypatch.setattr(search, "index_state", lambda fields, *rest: made.append(fields) or real(fields, *rest))
    records[3] = records[3].replace(title=f"{records[3].title} retitled")
    assert search.search_files(build_catalog(records), config) == search.search_files(build_catalog(records))
    assert made[:1] == [search.META_FIELDS] and made[1:] == [search.META_FIELDS, search.ABSTRACT_FIELDS]  # kept, then from scratch
    made.clear()
    records[5] = records[5].replace(abstract="An abstract edited.")
    assert search.search_files(build_catalog(records), config) == search.search_files(build_catalog(records))
    assert made[:2] == [search.META_FIELDS, search.ABSTRACT_FIELDS]


# ---- the store in pieces: what a query fetches of it agrees with the store whole ----

_WORDS = ["graph", "Graph", "graphs", "diffusion", "Diffusion", "models", "modeling", "DRIVE", "driving", "Weiß", "weiss",
          "José", "jose", "self-supervised", "GPT-4o's", "ﬁnite", "日本語", "𝐁old", "_x_", "O’Brien", "a", "the"]
_NAMES = ["Kevin Frans", "José García", "jose  garcia", "Ming Zhou", "Ming-Zhou", "Weiß Anna", "O’Brien", "Li Wei", "Wei Li",
          "Łukasz K", "J. Smith", "<b>Mallory</b>"]


def _many_records(count: int, seed: int) -> list:
    """``count`` papers made of the fixture's, with titles, authors and keywords drawn from hostile words
    (some titles twice: the exact-title table names the first)."""
    import random

    rng = random.Random(seed)
    base = fixture_records()
    records = []
    for n in range(count):
        title = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6))) if n % 9 else "Graph Transformers at Scale"
        authors = rng.sample(_NAMES, rng.randint(0, 5))
        keywords = sorted({" ".join(rng.sample(_WORDS, rng.randint(1, 2))) for _ in range(rng.randint(0, 3))})
        records.append(base[n % len(base)].replace(id=f"p{n}", slug=f"paper-{n}", title=title, authors=authors, keywords=keywords))
    return records


def _pieces(files: dict[str, bytes], pattern: str) -> list:
    found, n = [], 0
    while pattern.format(n) in files:
        found.append(json.loads(gzip.decompress(files[pattern.format(n)])))
        n += 1
    return found


def _lookup(files: dict[str, bytes], pattern: str, key: str, prefix: bool = False) -> list[list]:
    """A table's rows of a key (or beginning with it), read as papersite-engine.js Table reads them: the manifest, then its shards."""
    from generator.site.search_index import shard_of, shards_of_prefix

    starts = json.loads(gzip.decompress(files[pattern.format("shards")]))["starts"]
    numbers = shards_of_prefix(key, starts) if prefix else [shard_of(key, starts)]
    rows = [row for n in numbers for row in json.loads(gzip.decompress(files[pattern.format(n)]))["rows"]]
    return [row for row in rows if (row[0].startswith(key) if prefix else row[0] == key)]


@pytest.fixture(scope="module")
def many(request) -> tuple[dict, dict]:
    patch = pytest.MonkeyPatch()
    patch.setattr(search, "ROW_CHUNK", 4)
    patch.setattr(search, "TABLE_SHARD_BYTES", 300)  # many shards of each table
    request.addfinalizer(patch.undo)
    files = search.search_files(build_catalog(_many_records(150, 1)))
    return files, json.loads(gzip.decompress(files[search.DOCS_FILE]))


def test_rows_files_hold_every_paper_once_in_order_with_its_first_authors_names(many) -> None:
    files, store = many
    chunks = _pieces(files, search.ROWS_FILE)
    assert len(chunks) == -(-len(store["papers"]) // 4) and all(len(c["papers"]) == 4 for c in chunks[:-1])
    assert [row for chunk in chunks for row in chunk["papers"]] == store["papers"]
    authors = store_papers(store)
    for chunk, start in zip(chunks, range(0, len(store["papers"]), 4)):
        names = dict(chunk["authors"])
        for row in authors[start:start + 4]:
            assert {a: store["authors"][a][0] for a in row["authors"][:search.ROW_AUTHORS]}.items() <= names.items()
    head = json.loads(gzip.decompress(files[search.HEAD_FILE]))
    assert head["schema"] == store["schema"] and head["topics"] == store["topics"] and head["schema"]["row_chunk"] == 4
    assert head["paper_count"] == len(store["papers"])
    assert head["page_counts"] == [len(store["authors"]), len(store["keywords"]), len(store["topics"])]


@pytest.mark.parametrize("up_to, at_pauses", [(150, False), (149, True)])
def test_the_head_says_whether_a_query_typed_key_by_key_is_answered_each_key(monkeypatch, up_to, at_pauses) -> None:
    monkeypatch.setattr(search, "KEYS_ANSWERED_UP_TO", up_to)
    files = search.search_files(build_catalog(_many_records(150, 1)))
    assert json.loads(gzip.decompress(files[search.HEAD_FILE]))["answer_at_pauses"] is at_pauses


def test_the_exact_title_table_names_the_first_paper_of_each_title(many) -> None:
    files, store = many
    rows = store_papers(store)
    assert len(_pieces(files, search.TITLES_SHARD)) > 3
    for number, row in enumerate(rows):
        key = search.exact_title_key(row["title"])
        first = next(n for n, other in enumerate(rows) if search.exact_title_key(other["title"]) == key)
        assert _lookup(files, search.TITLES_SHARD, key) == [[key, first]], row["title"]
    assert _lookup(files, search.TITLES_SHARD, "no such title at all") == []
    assert search.exact_title_key("Graph  Transformers: at Scale!") == "graph transformers at scale"


def test_the_typed_words_table_names_the_papers_holding_each_word_as_written(many) -> None:
    files, store = many
    rows = store_papers(store)

    def text(row: dict) -> str:  # what papersite-ranking.js read of the store for "words as typed"
        return " | ".join([row["title"]] + [store["authors"][a][0] for a in row["authors"]] + [store["keywords"][k][0] for k in row["keywords"]])

    words = {word for row in rows for word in search.normal_words(text(row))}
    assert {"graph", "weiß", "jose", "josé", "4o", "日本語"} <= words and "GPT" not in words
    for word in sorted(words) + ["graphs", "nothing"]:
        found = _lookup(files, search.TYPED_SHARD, word)
        numbers, at = [], -1
        for gap in (found[0][1:] if found else []):
            numbers.append(at := at + gap)
        assert numbers == [n for n, row in enumerate(rows) if word in search.normal_words(text(row))], word


def test_the_names_table_finds_each_page_by_the_beginning_of_any_word_of_its_name(many) -> None:
    files, store = many
    rows = store_papers(store)
    pages = [(a[0], a[1], sum(n in r["authors"] for r in rows)) for n, a in enumerate(store["authors"])]
    pages += [(k[0], k[1], sum(n in r["keywords"] for r in rows)) for n, k in enumerate(store["keywords"])]
    areas = {t[2] for t in store["topics"]}
    pages += [(t[0], t[1], sum(r["topic"] == n or (n in areas and r["topic"] is not None and store["topics"][r["topic"]][2] == n)
                                for r in rows)) for n, t in enumerate(store["topics"])]
    for number, (name, slug, count) in enumerate(pages):
        for word in search.folded_words(name):
            for prefix in (word, word[:3]):
                found = {tuple(row[1:]) for row in _lookup(files, search.NAMES_SHARD, prefix, prefix=True)}
                assert (number, name, slug, count) in found, (name, prefix)
    assert search.folded_words("Weiß  O’Brien-Smith") == ["weiss", "o", "brien", "smith"]
    kevin = _lookup(files, search.NAMES_SHARD, "fra", prefix=True)
    assert [row[2] for row in kevin] == ["Kevin Frans"] and kevin[0][4] == sum("Kevin Frans" in [store["authors"][a][0] for a in r["authors"]] for r in rows)


def test_the_pieces_are_the_same_bytes_whatever_the_order_of_the_papers(many) -> None:
    import random

    files, _ = many
    records = _many_records(150, 1)
    random.Random(3).shuffle(records)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "ROW_CHUNK", 4)
        patch.setattr(search, "TABLE_SHARD_BYTES", 300)
        again = search.search_files(build_catalog(records))
    assert again == files


def _edited(records: list, rng) -> list:
    """``records`` after one random edit a maintainer makes: a title (sometimes another paper's, so the
    exact-title table's first paper moves), an author, the keywords, an abstract, a paper added or removed,
    or an author renamed on every paper of theirs."""
    records = list(records)
    n = rng.randrange(len(records))
    paper = records[n]
    kind = rng.randrange(8)
    if kind == 7:
        records[n] = paper.replace(abstract=f"{paper.abstract or ''} {rng.choice(_WORDS)}")
    elif kind == 0:
        records[n] = paper.replace(title=f"{paper.title} {rng.choice(_WORDS)}")
    elif kind == 1:
        records[n] = paper.replace(title=records[rng.randrange(len(records))].title)
    elif kind == 2:
        authors = list(paper.authors)
        if authors and rng.random() < 0.5:
            authors.pop(rng.randrange(len(authors)))
        else:
            authors.insert(rng.randint(0, len(authors)), rng.choice(_NAMES + ["Nova Newcomer"]))
        records[n] = paper.replace(authors=list(dict.fromkeys(authors)))
    elif kind == 3:
        records[n] = paper.replace(keywords=sorted({" ".join(rng.sample(_WORDS, rng.randint(1, 2))) for _ in range(rng.randint(0, 3))}))
    elif kind == 4:
        number = max(int(r.id[1:]) for r in records) + 1
        records.insert(rng.randint(0, len(records)), paper.replace(id=f"p{number}", slug=f"paper-{number}", title=f"Fresh {rng.choice(_WORDS)}"))
    elif kind == 5 and len(records) > 2:
        records.pop(n)
    else:
        old = rng.choice([a for r in records for a in r.authors] or _NAMES)
        new = f"{old} Renamed{rng.randrange(100)}"
        records = [r.replace(authors=[new if a == old else a for a in r.authors]) for r in records]
    return records


def test_files_updated_edit_by_edit_are_those_made_from_scratch(tmp_path, monkeypatch) -> None:
    """search_files with a project keeps what it made for the next build and updates it by what changed
    (the store's pieces: ``StorePieces``; the indexes: ``IndexState``): after each of a random run of
    edits, its files are byte for byte those of search_files without a project (nothing kept)."""
    import random

    from generator.config import load_config
    from site_fixtures import write_project

    monkeypatch.setattr(search, "TABLE_SHARD_BYTES", 300)  # many shards of each table: cuts move and resume
    monkeypatch.setattr(search, "TEXTS_PART_PAPERS", 8)  # and gzip parts of the whole files (gzip_of_parts)
    monkeypatch.setattr(search, "STORE_PART_PAPERS", 16)
    config = load_config(write_project(tmp_path / "site"))
    rng = random.Random(8)
    records = _many_records(60, 2)
    kinds = set()
    for _ in range(40):
        records = _edited(records, rng)
        catalog = build_catalog(records)
        kept = search.search_files(catalog, config)
        assert kept == search.search_files(catalog), "an update differs from the files made from scratch"
        kinds.add(len(records))
    assert len(kinds) > 3  # papers came and went


def test_store_pieces_updated_by_the_changed_rows_are_those_of_the_whole_store(monkeypatch) -> None:
    """StorePieces.update on a store edited at random, row by row and name by name (with no catalog to keep
    it consistent: any store), writes what store_pieces makes of the store afresh."""
    import copy
    import random

    monkeypatch.setattr(search, "TABLE_SHARD_BYTES", 300)
    files = search.search_files(build_catalog(_many_records(80, 3)))
    store = json.loads(gzip.decompress(files[search.DOCS_FILE]))
    rng = random.Random(5)
    state = search.StorePieces()
    assert state.update(store) == search.store_pieces(store)
    title, authors_col, keywords_col = (store["schema"]["columns"].index(name) for name in ("title", "authors", "keywords"))
    for _ in range(60):
        store = copy.deepcopy(store)
        papers, names = store["papers"], store["authors"]
        row = papers[rng.randrange(len(papers))]
        kind = rng.randrange(7)
        if kind == 0:
            row[title] = rng.choice([f"{row[title]} {rng.choice(_WORDS)}", papers[rng.randrange(len(papers))][title], ""])
        elif kind == 1:
            row[authors_col] = list(dict.fromkeys(row[authors_col][1:] + [rng.randrange(len(names))]))
        elif kind == 2:
            row[keywords_col] = sorted({rng.randrange(len(store["keywords"])) for _ in range(rng.randint(0, 3))})
        elif kind == 3:
            names[rng.randrange(len(names))][0] = f"{rng.choice(_NAMES)} {rng.choice(_WORDS)}"
        elif kind == 4:
            papers.insert(rng.randrange(len(papers) + 1), copy.deepcopy(row))
        elif kind == 5:  # a keyword renamed: each paper's typed text that names it changes with no row changing
            keyword = store["keywords"][rng.randrange(len(store["keywords"]))]
            keyword[0] = f"{keyword[0]} {rng.choice(_WORDS)}"
        else:
            papers.pop(rng.randrange(len(papers)))
        assert state.update(store) == search.store_pieces(store)
        state = search.StorePieces.from_kept(state.kept())  # as the next build reads it back
    assert search.StorePieces.from_kept(state.kept()[:-1]) is None and search.StorePieces.from_kept(b"x") is None
    assert search.StorePieces.from_kept(("store-pieces 0", *state.kept()[1:])) is None
