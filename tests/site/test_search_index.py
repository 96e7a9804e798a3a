"""generator/site/search_index.py: the shards hold exactly what lunr.py's builder would have serialised."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict

from lunr.builder import Builder

from generator.site.search_index import LunrIndex, keyed_shards, shard_of, shards_of_prefix
from site_fixtures import shard_postings

FIELDS = [("t", 10), ("a", 6), ("k", 4)]


def _lunr_py(papers: list[dict[str, list[str]]]) -> dict:
    """lunr.py's builder fed the same terms (as search.py did before the shards): the oracle."""
    builder = Builder()
    builder.ref("id")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    for number, fields in enumerate(papers):
        ref = str(number)
        builder._documents[ref] = {}
        builder.document_count += 1
        for field_name in builder._fields:
            terms = fields.get(field_name, [])
            field_ref = f"{field_name}/{ref}"
            frequencies: dict[str, int] = defaultdict(int)
            builder.field_term_frequencies[field_ref] = frequencies
            builder.field_lengths[field_ref] = len(terms)
            for term in terms:
                frequencies[term] += 1
                posting = builder.inverted_index.get(term)
                if posting is None:
                    posting = {name: {} for name in builder._fields}
                    posting["_index"] = builder.term_index
                    builder.term_index += 1
                    builder.inverted_index[term] = posting
                posting[field_name].setdefault(ref, {})
    return builder.build().serialize()


def _weight(tf: int, length: int, frequency: int, manifest: dict, slot: int) -> float:
    """A posting's weight from what the shards hold, by lunr's expression (search-worker.js shardPart
    computes it so; test_browser_contract.py proves the two equal)."""
    k1, b, papers = manifest["k1"], manifest["b"], manifest["papers"]
    idf = math.log(1 + abs((papers - frequency + 0.5) / (frequency + 0.5)))
    score = idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / manifest["averages"][slot])) + tf)
    score *= manifest["boosts"][slot]
    return round(score, 3)


def _from_shards(files: dict[str, bytes]) -> tuple[dict, dict]:
    """Shards -> (term -> {field: sorted refs}), (field ref -> {term: weight}), as the worker rebuilds them."""
    manifest = json.loads(files["shards"])
    postings, vectors = {}, defaultdict(dict)
    for key, data in files.items():
        if key == "shards":
            continue
        for term, place, found in shard_postings(json.loads(data)):
            frequency = sum(len(docs) for docs in found)
            first = min(docs[0][0] for docs in found if docs)
            # lunr.py's term numbers are in order of first use: the first paper, its first field holding the term, the place there
            order = (first, next(slot for slot, docs in enumerate(found) if docs and docs[0][0] == first), place)
            postings[term] = [order, {name: [str(p) for p, _, _ in docs] for name, docs in zip(manifest["fields"], found)}]
            for slot, (name, docs) in enumerate(zip(manifest["fields"], found)):
                for paper, tf, length in docs:
                    vectors[f"{name}/{paper}"][term] = _weight(tf, length, frequency, manifest, slot)
    return postings, dict(vectors)


def _papers(seed: int, count: int) -> list[dict[str, list[str]]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(40)] + ["diffus", "model", "é", "ωmega", "1st", "_x", "zeta"]
    return [{name: [rng.choice(words[: rng.randint(3, len(words))]) for _ in range(rng.randint(0, 12 if name == "t" else 5))]
             for name, _ in FIELDS} for _ in range(count)]


def test_every_weight_is_lunr_pys() -> None:
    papers = _papers(7, 300)
    index = LunrIndex(FIELDS)
    for number, fields in enumerate(papers):
        index.add(number, fields)
    postings, vectors = _from_shards(index.shard_files(shard_bytes=500))  # many shards
    oracle = _lunr_py(papers)
    assert {term: refs for term, (_, refs) in postings.items()} == {term: {name: list(p[name]) for name, _ in FIELDS} for term, p in oracle["invertedIndex"]}
    in_order = sorted(postings, key=lambda term: postings[term][0])
    assert in_order == sorted(postings, key=lambda term: dict(oracle["invertedIndex"])[term]["_index"])
    number_of = {number: term for term, p in oracle["invertedIndex"] for number in [p["_index"]]}
    expected = {ref: {number_of[n]: w for n, w in zip(v[::2], v[1::2])} for ref, v in oracle["fieldVectors"] if v}
    assert vectors == expected  # the same doubles, not merely close


def _shards(files: dict[str, bytes]) -> tuple[list[str], list[list[str]]]:
    """(the manifest's first terms, each shard's terms in order)."""
    starts = json.loads(files["shards"])["starts"]
    return starts, [[t[0] for t in json.loads(files[str(n)])["terms"]] for n in range(len(starts))]


def _edited(papers: list[dict[str, list[str]]], rng: random.Random) -> list[dict[str, list[str]]]:
    """Papers after a few edits: terms changed, added, dropped, a field emptied, a paper added or removed at the end."""
    words = ["w1", "w2", "new", "fresh", "model", "é", "zz", "w30"]
    edited = [dict(paper) for paper in papers]
    for _ in range(rng.randint(1, 4)):
        paper = edited[rng.randrange(len(edited))]
        name = rng.choice(FIELDS)[0]
        terms = list(paper[name])
        what = rng.randrange(4)
        if what == 0 and terms:
            terms[rng.randrange(len(terms))] = rng.choice(words)
        elif what == 1:
            terms += [rng.choice(words)] * rng.randint(1, 3)
        elif what == 2 and terms:
            terms.pop(rng.randrange(len(terms)))
        else:
            terms = []
        paper[name] = terms
    if rng.random() < 0.2:
        edited.append({name: [rng.choice(words)] for name, _ in FIELDS})
    elif rng.random() < 0.2:
        edited.pop()
    return edited


def test_an_update_writes_what_a_whole_build_writes() -> None:
    """IndexState.update after random edits == the index made from scratch, file for file, and only
    the shards holding the changed papers' terms (and the manifest) differ, while no cut moved."""
    from generator.site.search_index import index_state

    rng = random.Random(11)
    papers = _papers(5, 200)
    state = index_state(FIELDS, papers)
    for _ in range(60):
        edited = _edited(papers, rng)
        before = state.shard_files(shard_bytes=300)
        state = index_state(FIELDS, edited, state)
        whole = LunrIndex(FIELDS)
        for number, fields in enumerate(edited):
            whole.add(number, fields)
        after = state.shard_files(shard_bytes=300)
        assert after == whole.shard_files(shard_bytes=300)
        starts_before, starts_after = json.loads(before["shards"])["starts"], json.loads(after["shards"])["starts"]
        if starts_before == starts_after:
            changed = {n for n in range(min(len(papers), len(edited))) if papers[n] != edited[n]} | set(range(min(len(papers), len(edited)), max(len(papers), len(edited))))
            terms = {t for n in changed for version in (papers, edited) if n < len(version) for ts in version[n].values() for t in ts}
            holding = {str(shard_of(t, starts_after)) for t in terms}
            assert {k for k in after if after[k] != before.get(k)} <= holding | {"shards"}
        papers = edited


def test_an_edit_moves_the_cuts_of_its_own_shards_only() -> None:
    """A term added or dropped leaves every shard it is not in as it was (after the changed one the cuts
    resume where the keys say): the content-defined cut."""
    from generator.site.search_index import _cut

    rng = random.Random(3)
    keys = sorted({f"k{rng.randint(0, 10**6):07d}" for _ in range(3000)})
    data = [b"x" * rng.randint(5, 200) for _ in keys]
    cuts = _cut(keys, data, 2000)
    moved = []
    for _ in range(100):
        at = rng.randrange(len(keys))
        shorter = _cut(keys[:at] + keys[at + 1:], data[:at] + data[at + 1:], 2000)
        moved.append(len({tuple(shard) for shard in cuts} - {tuple(shard) for shard in shorter}))
    # the shard that lost the key, and now and then the next one or few until an anchor (of ~170)
    assert len(cuts) > 100 and max(moved) <= 8 and sum(moved) / len(moved) < 1.5, moved


def test_shards_are_runs_of_terms_in_utf16_order_within_their_bytes() -> None:
    papers = _papers(3, 400)
    index = LunrIndex(FIELDS)
    for number, fields in enumerate(papers):
        index.add(number, fields)
    files = index.shard_files(shard_bytes=400)
    starts, shards = _shards(files)
    sizes = [len(files[str(n)]) for n in range(len(shards))]
    assert 200 < sum(sizes) / len(sizes) < 800, sizes  # about the budget on average
    assert len(shards) > 5 and set(files) == {"shards", *map(str, range(len(shards)))}
    every = [t for shard in shards for t in shard]
    assert every == sorted(every, key=lambda t: t.encode("utf-16-be")) and len(every) == len(set(every))
    assert starts[0] == "" and starts[1:] == [shard[0] for shard in shards[1:]]
    for number, shard in enumerate(shards):
        assert all(shard_of(term, starts) == number for term in shard)
        # past twice the budget only where one term alone is
        assert len(files[str(number)]) <= 2 * 400 + 20 or len(shard) == 1, (number, len(files[str(number)]))


def test_a_prefix_names_every_shard_that_holds_a_term_it_begins() -> None:
    index = LunrIndex(FIELDS)
    words = [f"w{i}" for i in range(60)] + ["wa", "x1", "é", "ωmega", "1st"]
    index.add(0, {"t": words})
    files = index.shard_files(shard_bytes=60)
    starts, shards = _shards(files)
    for prefix in ("w", "w1", "w59", "x", "é", "ω", "1", "q", "zz", ""):
        holding = {n for n, shard in enumerate(shards) if any(t.startswith(prefix) for t in shard)}
        named = shards_of_prefix(prefix, starts)
        assert holding <= set(named), prefix
        assert named == list(range(named[0], named[-1] + 1)) and len(named) <= len(holding) + 1, prefix


def test_an_index_of_no_papers_has_one_empty_shard() -> None:
    files = LunrIndex(FIELDS).shard_files()
    assert json.loads(files["0"]) == {"terms": []}
    assert json.loads(files["shards"]) == {"fields": ["t", "a", "k"], "boosts": [10, 6, 4], "papers": 0, "averages": [0, 0, 0],
                                           "k1": 1.2, "b": 0.75, "starts": [""]} and len(files) == 2


def test_the_next_build_reuses_what_did_not_change(tmp_path, monkeypatch) -> None:
    """search_files with a project: a paper's terms and an index whose terms are unchanged come from build/memo."""
    import dataclasses

    from generator.config import load_config
    from generator.site import search, search_index
    from generator.catalog import build_catalog
    from generator.site.stage import read_records
    from site_fixtures import write_project

    config = load_config(write_project(tmp_path / "site"))
    records, _ = read_records(config)
    first = search.search_files(build_catalog(records), config)
    made, tokenised, texts, rows = [], [], [], []
    monkeypatch.setattr(search_index, "LunrIndex", lambda fields, *rest, real=search_index.LunrIndex: made.append(fields) or real(fields, *rest))
    monkeypatch.setattr(search, "_short_terms", lambda texts, terms, real=search._short_terms: tokenised.append(texts[0]) or real(texts, terms))
    monkeypatch.setattr(search, "_abstract_text", lambda paper, real=search._abstract_text: texts.append(paper.slug) or real(paper))
    # a paper's store row is the one thing that asks for its authors' nodes
    monkeypatch.setattr(search.Catalog, "paper_authors", lambda self, paper, real=search.Catalog.paper_authors: rows.append(paper.slug) or real(self, paper))
    assert search.search_files(build_catalog(records), config) == first
    assert made == [] and tokenised == [] and texts == [] and rows == []
    retitled = [dataclasses.replace(r, title=r.title + " Revisited") if i == 0 else r for i, r in enumerate(records)]
    again = search.search_files(build_catalog(retitled), config)
    assert made == [], "an index is updated by the changed paper, not made again"
    assert tokenised == [retitled[0].title + " "]  # its title's text (no listed title beside it)
    assert rows == [retitled[0].slug] and texts == []  # its row made again, no other paper's; no abstract changed
    assert again == search.search_files(build_catalog(retitled))  # the same bytes as without any cache
    changed = {name for name in again if again[name] != first.get(name)}
    assert not any(name.startswith(search.SHARDS_DIR + "/abstracts-") for name in changed)  # a title edit
    assert search.INDEX_SHARD.format("shards") in changed


def _table(files: dict[str, bytes]) -> tuple[list[str], list[list[list]]]:
    """(the manifest's starts, each shard's rows)."""
    starts = json.loads(files["shards"])["starts"]
    return starts, [json.loads(files[str(n)])["rows"] for n in range(len(starts))]


def test_a_keyed_table_holds_every_row_once_in_the_shard_its_key_is_looked_up_in() -> None:
    rng = random.Random(5)
    keys = ["", "a", "ab", "abc", "b", "é", "ω", "z", "𝐁old", "graph neural networks", "graph"] + [f"k{rng.randint(0, 300)}" for _ in range(300)]
    rows = [[key, number] for number, key in enumerate(keys)]
    files = keyed_shards(rows, shard_bytes=80)
    starts, shards = _table(files)
    assert len(shards) > 10 and set(files) == {"shards", *map(str, range(len(shards)))}
    held = [row for shard in shards for row in shard]
    assert sorted(map(tuple, held)) == sorted(map(tuple, rows))  # each row once
    utf16 = [row[0].encode("utf-16-be", "surrogatepass") for row in held]
    assert utf16 == sorted(utf16)
    for number, shard in enumerate(shards):
        for key, _ in shard:
            assert shard_of(key, starts) == number, key  # a key's rows are all in the shard it is looked up in
    # a start is a beginning of its shard's first key, after the key before it: short, and in order
    for number in range(1, len(shards)):
        first, before = shards[number][0][0], shards[number - 1][-1][0]
        assert first.startswith(starts[number]) and starts[number].encode("utf-16-be", "surrogatepass") > before.encode("utf-16-be", "surrogatepass")
    for prefix in ("k1", "k29", "g", "a", "é", "q"):
        holding = {n for n, shard in enumerate(shards) if any(key.startswith(prefix) for key, _ in shard)}
        assert holding <= set(shards_of_prefix(prefix, starts)), prefix


def test_a_keyed_table_is_the_same_bytes_whatever_the_order_of_its_rows() -> None:
    rows = [[f"w{i % 37}", i] for i in range(200)]
    shuffled = rows[:]
    random.Random(2).shuffle(shuffled)
    assert keyed_shards(rows, shard_bytes=100) == keyed_shards(shuffled, shard_bytes=100)
    assert json.loads(keyed_shards([])["0"]) == {"rows": []}


def test_a_field_of_a_term_over_the_common_line_ships_its_papers_only() -> None:
    """A term's field held by more papers than the line is shipped as ``[0, gaps...]`` (the papers, no
    frequency or length); its other fields and every other term as before; and an update keeps to it."""
    from generator.site.search_index import index_state

    papers = _papers(3, 120)
    line = 25
    common = index_state(FIELDS, papers, common=line).shard_files(shard_bytes=400)
    plain = index_state(FIELDS, papers, common=10**9).shard_files(shard_bytes=400)
    shipped = {t[0]: t for key, data in common.items() if key != "shards" for t in json.loads(data)["terms"]}
    whole = {t[0]: t for key, data in plain.items() if key != "shards" for t in json.loads(data)["terms"]}
    assert shipped.keys() == whole.keys()
    marked = 0
    for term, entry in whole.items():
        for slot, (name, _) in enumerate(FIELDS):
            held = sorted(n for n, paper in enumerate(papers) if term in paper.get(name, []))
            flat = shipped[term][2 + slot]
            if len(held) > line:
                marked += 1
                assert flat[0] == 0 and [sum(flat[1:i + 2]) - 1 for i in range(len(held))] == held
            else:
                assert flat == entry[2 + slot]
    assert marked
    rng = random.Random(4)
    state = index_state(FIELDS, papers, common=line)
    for _ in range(30):
        papers = _edited(papers, rng)
        state = index_state(FIELDS, papers, state, common=line)
        assert state.shard_files(shard_bytes=400) == index_state(FIELDS, papers, common=line).shard_files(shard_bytes=400)


def test_a_keyed_table_updated_key_by_key_is_the_table_made_whole() -> None:
    """KeyedTable.update by the keys whose rows changed (a few, or most: sorted again) writes what
    keyed_shards writes of all the rows."""
    from generator.site.search_index import KeyedTable

    rng = random.Random(9)
    rows = {f"k{rng.randint(0, 999)}": [[f"k{n}", n]] for n in range(400)}
    rows = {key: [[key, *row[1:]] for row in held] for key, held in rows.items()}
    table = KeyedTable()
    table.update(rows)
    for step in range(40):
        changed = {}
        for _ in range(rng.choice([1, 3, 200])):
            key = f"k{rng.randint(0, 999)}" if rng.random() < 0.8 else rng.choice(["", "é", "ω", "𝐁"])
            changed[key] = [] if rng.random() < 0.3 else [[key, rng.randrange(50)] for _ in range(rng.randint(1, 3))]
        rows.update(changed)
        table.update(changed)
        assert table.shard_files(200) == keyed_shards([row for held in rows.values() for row in held], shard_bytes=200), step


def test_a_papers_kept_terms_give_back_its_terms_and_no_two_papers_share_them() -> None:
    """What IndexState keeps of a paper's terms (one string: ``_paper_key``) gives back each field's terms, and differs
    for any two papers whose terms differ, even where a term holds a separator or is empty (the search's own terms
    never do: the kept form then falls back to their repr)."""
    from generator.site.search_index import _key_terms, _paper_key

    fields = [("t", 10), ("a", 5), ("k", 1)]
    papers = [{}, {"t": []}, {"t": [""]}, {"t": ["", ""]}, {"t": ["a", "b"]}, {"t": ["a\x1fb"]}, {"t": ["ab"]},
              {"a": ["a\x1eb", "c"]}, {"a": ["a"], "k": ["b", "c"]}, {"t": ["\0x"]}, {"k": ["x"]}, {"a": ["x"]}]
    keys = [_paper_key(paper, fields) for paper in papers]
    for paper, key in zip(papers, keys):
        assert _key_terms(key) == [list(paper.get(name, ())) for name, _ in fields], paper
    distinct = {tuple(tuple(paper.get(name, ())) for name, _ in fields) for paper in papers}
    assert len(set(keys)) == len(distinct)
