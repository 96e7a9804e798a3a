"""generator/catalog.py: co-authors in memory linear in the names, whatever one paper's author count; the catalog
updated per changed record equals the whole build."""

from __future__ import annotations

import dataclasses
import random
import tracemalloc
from collections import Counter

from hypothesis import given, settings, strategies as st

from generator.pages.record import PaperRecord, SourceRef, Topic
from generator.catalog import MAX_COAUTHORS_SHOWN, Catalog, build_catalog, kept_catalog, update_catalog
from generator.text import fold


def updated_catalog(kept: bytes, records: list[PaperRecord], same: set[str]) -> Catalog | None:
    """The catalog ``update_catalog`` makes, or None where it builds none."""
    update = update_catalog(kept, records, same)
    return update.catalog if update is not None else None


def paper(slug: str, authors: list[str]) -> PaperRecord:
    return PaperRecord(id=slug, slug=slug, title=f"Paper {slug}", authors=authors, abstract="An abstract.",
                       sources=[SourceRef("l.txt", 1, "json")])


def collaboration(names: int) -> list[PaperRecord]:
    members = [f"Member {i:05d}" for i in range(names)]
    return [paper("atlas", members), paper("small", ["Member 00007", "Ada Lovelace"])]


def test_a_paper_with_5000_authors_keeps_the_catalog_small():
    records = collaboration(5000)
    tracemalloc.start()
    try:
        catalog = build_catalog(records)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # every pair would be 25 million entries (more than a gigabyte); a linear catalog is a few MB
    assert peak < 32 * 1024 * 1024, f"{peak / 2**20:.0f} MiB"
    member = catalog.author_of[fold("Member 00042")]
    assert member.coauthor_count == 4999 and len(member.coauthors) == MAX_COAUTHORS_SHOWN
    assert member.coauthors[0][0].name == "Member 00000" and all(n == 1 for _, n in member.coauthors)
    seven = catalog.author_of[fold("Member 00007")]  # two papers: the count of both, the list capped
    assert seven.coauthor_count == 5000 and len(seven.coauthors) == MAX_COAUTHORS_SHOWN
    assert all(other.slug != seven.slug for other, _ in seven.coauthors)


def test_the_author_page_lists_the_first_coauthors_and_counts_the_rest():
    from generator.site.exports import coauthor_row

    catalog = build_catalog(collaboration(300))
    slug, listed, more = coauthor_row(catalog.author_of[fold("Member 00042")])  # what the page draws
    assert len(listed) == MAX_COAUTHORS_SHOWN and more == 299 - MAX_COAUTHORS_SHOWN


def test_coauthors_are_the_most_shared_first_then_in_author_order():
    rng = random.Random(27)
    names = [f"Name {i}" for i in range(40)]
    records = [paper(f"p{i}", rng.sample(names, rng.randint(1, 12))) for i in range(60)]
    catalog = build_catalog(records)
    order = {id(a): i for i, a in enumerate(catalog.authors)}
    for author in catalog.authors:
        counts = Counter(fold(n) for p in author.papers for n in dict.fromkeys(map(fold, p.authors)))
        del counts[fold(author.name)]
        expected = sorted(((catalog.author_of[k], n) for k, n in counts.items()), key=lambda x: (-x[1], order[id(x[0])]))
        assert [(link.slug, n) for link, n in author.coauthors] == [(a.slug, n) for a, n in expected[:MAX_COAUTHORS_SHOWN]]
        assert author.coauthor_count == len(counts)


_NAMES = ["Ada Lovelace", "ada  lovelace", "ADA LOVELACE", "Adá Lovelace", "Ada\tLovelace", " Ada Lovelace\u2003",
          "Alan Turing", "alan turing", "Grace Hopper", "Grace-Hopper", "Émile Borel", "Emile Borel", "X", "x"]


@given(st.lists(st.lists(st.sampled_from(_NAMES + [f"Member {i}" for i in range(120)]), max_size=110),
                min_size=1, max_size=12))
def test_spellings_display_names_and_coauthors_equal_a_plain_count(author_lists):
    # an oracle counted the slow way: every spelling of a folded name, every pair of distinct authors
    records = [paper(f"p{i}", authors) for i, authors in enumerate(author_lists)]
    catalog = build_catalog(records)
    spellings: dict[str, Counter] = {}
    for record in records:
        for name in record.authors:
            spellings.setdefault(fold(name), Counter())[" ".join(name.split())] += 1
    assert set(catalog.author_of) == set(spellings)
    order = {id(a): i for i, a in enumerate(catalog.authors)}
    for key, seen in spellings.items():
        author = catalog.author_of[key]
        most = max(seen.values())
        assert seen[author.name] == most and sorted(author.variants) == sorted(seen)
        assert author.variants[0] == author.name and author.variants[1:] == sorted(author.variants[1:])
        shared = Counter(k for p in author.papers for k in {fold(n) for n in p.authors} if k != key)
        expected = sorted(shared.items(), key=lambda item: (-item[1], order[id(catalog.author_of[item[0]])]))
        assert [(link.slug, n) for link, n in author.coauthors] == [
            (catalog.author_of[k].slug, n) for k, n in expected[:MAX_COAUTHORS_SHOWN]]
        assert author.coauthor_count == len(shared)


def shape(catalog: Catalog, records: list[PaperRecord]) -> tuple:
    """All a catalog says, as plain values, after checking it lists these very records (no stale one)."""
    current = {id(r) for r in records}
    listed = [catalog.papers, *(a.papers for a in catalog.authors), *(k.papers for k in catalog.keywords),
              *(a.papers for a in catalog.areas), *(s.papers for a in catalog.areas for s in a.subareas)]
    assert all(id(p) in current for papers in listed for p in papers)
    assert catalog.folded == {name: fold(name) for r in records for name in [*r.authors, *r.keywords]}
    slugs = lambda papers: [p.slug for p in papers]  # noqa: E731
    at = {id(node): i for i, node in enumerate([*catalog.authors, *catalog.keywords, *catalog.areas])}
    return (
        slugs(catalog.papers),
        [(a.name, a.slug, a.url, a.variants, slugs(a.papers), [(link.name, link.slug, link.url, n) for link, n in a.coauthors],
          a.coauthor_count) for a in catalog.authors],
        [(k.name, k.slug, k.url, slugs(k.papers)) for k in catalog.keywords],
        [(a.name, a.slug, a.url, slugs(a.papers), slugs(a.area_only),
          [(s.name, s.slug, s.url, slugs(s.papers), at[id(s.area)]) for s in a.subareas]) for a in catalog.areas],
        sorted((k, at[id(v)]) for k, v in catalog.author_of.items()),
        sorted((k, at[id(v)]) for k, v in catalog.keyword_of.items()),
        sorted((k, at[id(v)]) for k, v in catalog.area_of.items()),
        sorted((k, v.slug, at[id(v.area)]) for k, v in catalog.subarea_of.items()),
        sorted(catalog.folded.items()),  # every name the papers give, no other, each as fold has it
    )


# spelling variants of one person, names whose slugs collide ("J. Smith", "J Smith"; "J Smith 2" is
# what the second one is pushed to; "Index" is reserved), and plain names
# (and a name that folds to nothing, and a keyword spelt as an author: the catalog's folded names hold both)
_EDIT_NAMES = ["Ada Lovelace", "ada  lovelace", "Adá Lovelace", "ADA LOVELACE", "J. Smith", "J Smith", "J Smith 2",
               "j smith", "Index", "Index X", "Alan Turing", "Grace Hopper", "Émile Borel", "Emile Borel", "  "]
_KEYWORDS = ["ML", "ml", "M.L.", "M L", "Deep learning", "deep-learning", "Deep  Learning", "Graphs", "Search", "search-x",
             "Alan Turing"]
_TOPICS = [None, Topic("Deep Learning", None, "listing"), Topic("Deep Learning", "Graphs", "listing"),
           Topic("Deep Learning", "graphs", "listing"), Topic("Theory", "Graphs", "maintainer"), Topic("Index", None, "listing")]
_TITLES = ["Attention", "attention", "Zebra", "Ärger", "A study", "a Study", "Mid"]


def edited(rng: random.Random, records: dict[str, PaperRecord], number: int) -> None:
    """One edit as a maintainer makes them: a title, the authors, the keywords, the topic, a paper added or deleted."""
    kind = rng.choice(["title", "authors", "author", "keywords", "topic", "add", "delete"] if records else ["add"])
    if kind == "add":
        slug = f"p{number}"
        records[slug] = PaperRecord(
            id=slug, slug=slug, title=rng.choice(_TITLES), authors=rng.sample(_EDIT_NAMES, rng.randint(0, 4)),
            keywords=rng.sample(_KEYWORDS, rng.randint(0, 3)), topic=rng.choice(_TOPICS), abstract="An abstract.",
            sources=[SourceRef("l.txt", 1, "json")])
        return
    slug = rng.choice(sorted(records))
    record = records[slug]
    if kind == "delete":
        del records[slug]
    elif kind == "title":
        records[slug] = dataclasses.replace(record, title=rng.choice(_TITLES))
    elif kind == "authors":
        records[slug] = dataclasses.replace(record, authors=rng.sample(_EDIT_NAMES, rng.randint(0, 5)))
    elif kind == "author":  # one name added, removed or respelt
        authors = list(record.authors)
        if authors and rng.random() < 0.6:
            at = rng.randrange(len(authors))
            if rng.random() < 0.5:
                del authors[at]
            else:
                authors[at] = rng.choice(_EDIT_NAMES)
        else:
            authors.insert(rng.randint(0, len(authors)), rng.choice(_EDIT_NAMES))
        records[slug] = dataclasses.replace(record, authors=authors)
    elif kind == "keywords":
        records[slug] = dataclasses.replace(record, keywords=rng.sample(_KEYWORDS, rng.randint(0, 3)))
    else:
        records[slug] = dataclasses.replace(record, topic=rng.choice(_TOPICS))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 12), st.lists(st.integers(1, 3), min_size=1, max_size=20))
def test_the_catalog_updated_per_changed_record_is_the_whole_build(seed, start, steps):
    rng = random.Random(seed)
    records: dict[str, PaperRecord] = {}
    for number in range(start):
        edited(rng, records, number)
    catalog = build_catalog(list(records.values()))
    kept, made = kept_catalog(catalog), dict(records)
    number = start
    for edits in steps:
        for _ in range(edits):
            number += 1
            edited(rng, records, number)
        now = list(records.values())
        same = {slug for slug, record in records.items() if made.get(slug) is record}
        updated = updated_catalog(kept, now, same)
        whole = build_catalog(now)
        if updated is not None:
            assert shape(updated, now) == shape(whole, now)
            # kept from an update as from a whole build: the next step starts from either
            kept, made = kept_catalog(updated), dict(records)
        elif rng.random() < 0.5:
            kept, made = kept_catalog(whole), dict(records)


def test_an_updated_catalog_makes_the_coauthors_of_only_the_authors_asked_for():
    """Read from a kept catalog, an author's co-authors stay packed until asked for (an edit's pages ask for a few):
    an edit leaves the others packed, and each, once asked for, is what the whole build makes."""
    from generator.catalog import _KEPT_COAUTHORS
    from generator.site.exports import with_coauthors

    records = [_paper(f"p{i}", f"Title {i}", [f"Name {i % 7}", f"Name {(i * 3) % 11}", f"Solo {i}"]) for i in range(30)]
    now = [dataclasses.replace(records[3], title="Edited"), *records[:3], *records[4:]]
    updated = updated_catalog(kept_catalog(build_catalog(records)), now, {r.slug for r in records} - {"p3"})
    packed = [a for a in updated.authors if _KEPT_COAUTHORS in a.__dict__]
    assert len(packed) > len(updated.authors) / 2
    assert [a.slug for a in with_coauthors(updated)] == [a.slug for a in updated.authors]  # counted, not made
    assert all(_KEPT_COAUTHORS in a.__dict__ for a in packed)
    whole = build_catalog(now)
    for author in packed:
        assert author.coauthors == whole.author_of[fold(author.name)].coauthors and _KEPT_COAUTHORS not in author.__dict__
    assert shape(updated, now) == shape(whole, now)


def test_a_kept_catalog_keeps_a_coauthor_link_to_no_author_as_it_is():
    """Packing a co-author ranks it among the catalog's authors; a link to none of them (no update makes one) is kept
    unpacked rather than lost or refused."""
    from generator.catalog import Link

    records = [_paper(f"p{i}", f"Title {i}", [f"Name {i % 3}", f"Name {i % 5}"]) for i in range(6)]
    catalog = build_catalog(records)
    ghost = (Link("Ghost", "ghost", "authors/ghost/"), 1)
    catalog.authors[0].coauthors.append(ghost)
    updated = updated_catalog(kept_catalog(catalog), records, {r.slug for r in records})
    assert updated.authors[0].coauthors[-1] == ghost
    assert [a.coauthors for a in updated.authors[1:]] == [a.coauthors for a in catalog.authors[1:]]


def _step(records: list[PaperRecord], change: dict[str, PaperRecord | None]) -> tuple[Catalog | None, list[PaperRecord]]:
    """The update from ``records``' catalog by ``change`` (slug -> new record, None: deleted), and the new records."""
    kept = kept_catalog(build_catalog(records))
    now = [change.get(r.slug, r) for r in records if change.get(r.slug, r) is not None]
    now += [r for slug, r in change.items() if r is not None and slug not in {p.slug for p in records}]
    updated = updated_catalog(kept, now, {r.slug for r in records if r.slug not in change})
    if updated is not None:
        assert shape(updated, now) == shape(build_catalog(now), now)
    return updated, now


def _paper(slug: str, title: str, authors: list[str], keywords: list[str] = ()) -> PaperRecord:
    return dataclasses.replace(paper(slug, authors), title=title, keywords=list(keywords), topic=Topic("Deep Learning", "Graphs", "listing"))


def test_ordinary_edits_update_the_catalog_without_building_it_whole():
    records = [_paper(f"p{i}", f"Title {i}", [f"Name {i % 7}", f"Name {(i * 3) % 11}", "Ada Lovelace"], [f"kw {i % 4}"])
               for i in range(30)]
    p3 = records[3]
    for change in (
        {"p3": dataclasses.replace(p3, title="A title that sorts first")},
        {"p3": dataclasses.replace(p3, abstract="Another abstract.")},
        {"p3": dataclasses.replace(p3, keywords=["kw 9", "kw 1"])},
        {"p3": dataclasses.replace(p3, topic=Topic("Theory", None, "maintainer"))},
        {"p3": dataclasses.replace(p3, authors=p3.authors + ["Grace Hopper"])},  # a new author
        {"p3": dataclasses.replace(p3, authors=p3.authors[1:])},  # one removed
        {"p3": dataclasses.replace(p3, authors=["Adá Lovelace" if n == "Ada Lovelace" else n for n in p3.authors])},
        {"p3": dataclasses.replace(p3, authors=["Name 0 Renamed" if n == "Name 3" else n for n in p3.authors])},
        {"p3": None},
        {"new": _paper("new", "New", ["Ada Lovelace", "Someone New"], ["kw 0"])},
    ):
        updated, _ = _step(records, change)
        assert updated is not None, change


def test_an_update_keeps_the_folded_names_of_the_papers_it_holds_and_no_other():
    # a spelling only the edited paper gave goes; one another paper gives too, or as a keyword, stays
    records = [_paper("a", "A", ["Adá Lovelace", "Ada Lovelace", "Alan Turing"]), _paper("b", "B", ["Ada Lovelace"]),
               _paper("c", "C", ["Grace Hopper"], ["Alan Turing"])]
    for change in ({"a": dataclasses.replace(records[0], authors=["Ada Lovelace"])}, {"a": None},
                   {"c": dataclasses.replace(records[2], keywords=[])},
                   {"d": _paper("d", "D", ["  ", "Émile Borel"])}):  # a name that folds to nothing
        updated, now = _step(records, change)  # (its folded names checked there, with all the rest)
        assert updated is not None, change
    updated, now = _step(records, {"a": dataclasses.replace(records[0], authors=["Ada Lovelace"])})
    assert "Adá Lovelace" not in updated.folded and {"Ada Lovelace", "Alan Turing"} <= updated.folded.keys()
    with_blank = [*records, _paper("d", "D", ["  "])]
    updated, now = _step(with_blank, {"d": None})
    assert "  " not in updated.folded


def test_a_display_name_that_moves_gives_its_coauthors_the_new_link():
    # three papers spell her "Ada Lovelace", two "Adá Lovelace": a fourth accented one moves her name
    records = [_paper(f"p{i}", f"T{i}", ["Adá Lovelace" if i < 2 else "Ada Lovelace", f"Other {i}"]) for i in range(5)]
    records[0] = dataclasses.replace(records[0], authors=["Adá Lovelace", "Other 0", "Other 4"])
    updated, now = _step(records, {"p2": dataclasses.replace(records[2], authors=["Adá Lovelace", "Other 2"])})
    assert updated is not None and updated.author_of[fold("ada lovelace")].name == "Adá Lovelace"
    other = updated.author_of[fold("Other 4")]  # not on the edited paper, yet lists her under her new name
    assert [link.name for link, _ in other.coauthors] == ["Adá Lovelace", "Other 0"]


def test_a_slug_that_another_name_was_pushed_from_is_not_handed_out_again():
    # "J Smith" takes j-smith, "J Smith 2" j-smith-2, "J. Smith" is pushed to j-smith-3 (names in folded order)
    records = [_paper("a", "A", ["J Smith"]), _paper("b", "B", ["J Smith 2"]), _paper("c", "C", ["J. Smith"])]
    assert [a.slug for a in build_catalog(records).authors] == ["j-smith", "j-smith-2", "j-smith-3"]
    for change in ({"b": None}, {"a": None}, {"a": None, "b": None}, {"d": _paper("d", "D", ["J-Smith"])},
                   {"b": dataclasses.replace(records[1], authors=["J Smith"])}):
        _step(records, change)  # whole build or equal to it (checked there)


def test_a_kept_catalog_that_cannot_be_read_is_built_whole():
    records = [_paper("a", "A", ["Ada Lovelace"])]
    kept = kept_catalog(build_catalog(records))
    assert updated_catalog(kept[: len(kept) // 2], records, {"a"}) is None
    assert updated_catalog(b"not a pickle", records, {"a"}) is None
    assert updated_catalog(kept, records, set()) is not None  # every paper changed: still an update
