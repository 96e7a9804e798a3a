"""generator/catalog.py: co-authors in memory linear in the names, whatever one paper's author count."""

from __future__ import annotations

import random
import tracemalloc
from collections import Counter

from hypothesis import given, strategies as st

from generator.pages.record import PaperRecord, SourceRef
from generator.catalog import MAX_COAUTHORS_SHOWN, build_catalog
from generator.site.render.indices import _author_page
from generator.text import fold


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
    catalog = build_catalog(collaboration(300))
    page = _author_page(catalog.author_of[fold("Member 00042")], catalog)
    assert page.body.count("<li>") - 1 == MAX_COAUTHORS_SHOWN  # and its one paper
    assert f"and {299 - MAX_COAUTHORS_SHOWN:,} more" in page.body


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
