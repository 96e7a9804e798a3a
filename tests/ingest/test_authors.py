"""generator/ingest/authors.py: a source whose author lists are sorted is told apart from one in the papers' order."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from generator.ingest.authors import MAX_CHANCE, is_alphabetical, judge_order, list_order, same_people
from generator.ingest.listing import parse_listing
from generator.ingest.merge import merge_duplicates

REPO = Path(__file__).resolve().parents[2]
EXPORT = REPO / "corpus" / "references" / "iclr2025_openreview.jsonl.gz"
FIRST = "Ada Bea Cleo Dan Eve Finn Gus Hal Ivy Jon Kai Lea Max Ned Oda Pia Quin Rex Sol Tia Uma Vic Wes Xia Yan Zoe".split()
LAST = "Abe Bloom Cruz Diaz Ek Falk Gold Hahn Ito Jung Kent Lund Moss Nagy Ortiz Park Quist Ross Sato Toth".split()


def names(rng: random.Random, n: int) -> list[str]:
    people = set()
    while len(people) < n:
        people.add(f"{rng.choice(FIRST)} {rng.choice(LAST)}")
    return list(people)


def random_source(seed: int, papers: int = 400) -> list[list[str]]:
    rng = random.Random(seed)
    lists = []
    for _ in range(papers):
        people = names(rng, rng.randint(1, 9))
        rng.shuffle(people)
        lists.append(people)
    return lists


def test_alphabetical_by_the_whole_name_or_by_the_last_name():
    assert is_alphabetical(["Daniel M. Bikel", "Eric Michael Smith", "Yiming Zhang"])
    assert is_alphabetical(["Zoe Abe", "Ada Bloom", "Kai Cruz"])  # by last name
    assert is_alphabetical(["Élodie Durand", "emma Dupont"]) and not is_alphabetical(["Zoe Abe", "Ada Cruz", "Kai Bloom"])
    assert not is_alphabetical(["Only One"]) and not is_alphabetical([])


@pytest.mark.parametrize("seed", range(25))
def test_a_source_in_random_order_is_never_flagged(seed):
    """Shuffled lists are sorted now and then by chance: the bound and the excess share keep them the papers' order."""
    verdict = judge_order("random.jsonl", random_source(seed))
    assert verdict.lists > 200 and verdict.order == "paper" and not verdict.sorted_beyond_chance


def test_a_small_sorted_sample_is_not_enough_to_flag_a_source():
    rng = random.Random(7)
    few = [sorted(names(rng, 3)) for _ in range(6)]  # six lists of three, all sorted: 1 in 3**6 by chance
    verdict = judge_order("few.txt", few + [names(rng, 2) for _ in range(50)])
    assert verdict.sorted == verdict.lists == 6 and verdict.chance > MAX_CHANCE and verdict.order == "paper"


def test_a_source_that_sorts_most_lists_is_flagged_with_its_statistic():
    rng = random.Random(3)
    lists = random_source(11, 300)
    sorted_lists = [sorted(l, key=str.casefold) if rng.random() < 0.7 else l for l in lists]
    verdict = judge_order("export.jsonl", sorted_lists)
    assert verdict.order == "alphabetical" and verdict.sorted_beyond_chance
    said = verdict.describe()
    assert "export.jsonl" in said and f"{verdict.sorted:,} of {verdict.lists:,}" in said and "expected by chance" in said
    # a field whose papers really list authors alphabetically says so in papersite.yml
    assert judge_order("export.jsonl", sorted_lists, declared="paper").order == "paper"
    assert judge_order("shuffled.jsonl", lists, declared="unknown").order == "unknown"


def test_a_tenth_of_sorted_papers_in_a_large_listing_is_not_a_sorted_source():
    """A conference where some papers (theory) list their authors alphabetically keeps its order."""
    rng = random.Random(5)
    lists = [sorted(l) if rng.random() < 0.1 else l for l in random_source(12, 3000)]
    verdict = judge_order("big.txt", lists)
    assert verdict.chance < MAX_CHANCE and verdict.order == "paper"


def test_the_bundled_export_is_measured_as_sorted():
    with gzip.open(EXPORT, "rt", encoding="utf-8") as stream:
        lists = [json.loads(line)["authors"] for line in stream]
    verdict = judge_order(EXPORT.name, lists)
    assert verdict.order == "alphabetical" and verdict.sorted / verdict.lists > 0.6 and verdict.chance < 1e-100


def test_what_a_page_says_of_one_list():
    sorted_source = judge_order("s", [["A a", "B b", "C c"]] * 40)
    assert list_order(["Ada Abe", "Bea Bloom", "Cleo Cruz"], sorted_source) == "alphabetical"
    assert list_order(["Cleo Cruz", "Ada Abe", "Bea Bloom"], sorted_source) == "unknown"
    assert list_order(["Solo Author"], sorted_source) is None  # one name: its order is the paper's
    assert list_order(["Cleo Cruz", "Ada Abe"], judge_order("ordered", [])) is None
    assert same_people(["José García", "Ada Abe"], ["ada abe", "Jose Garcia"]) and not same_people(["A b"], ["A b", "C d"])


def test_an_ordered_listing_gives_the_order_of_the_same_paper_over_a_sorted_one():
    people = ["Zoe Abe", "Kai Cruz", "Ada Bloom", "Eve Diaz"]
    abstract = "We show that a paper read from two listings keeps the order the ordered listing gives. " * 3
    ordered = parse_listing(json.dumps([{"title": "One Paper", "abstract": abstract, "authors": people}]).encode(), "ordered.json")
    sorted_ = parse_listing(json.dumps([{"title": "One Paper", "abstract": abstract, "authors": sorted(people)}]).encode(), "a-sorted.json")
    orders = {
        "a-sorted.json": judge_order("a-sorted.json", [], declared="alphabetical"),
        "ordered.json": judge_order("ordered.json", []),
    }
    (paper,) = merge_duplicates(sorted_.entries + ordered.entries, orders=orders)
    assert paper.authors == people and paper.author_order is None
    (alone,) = merge_duplicates(sorted_.entries, orders=orders)
    assert alone.authors == sorted(people) and alone.author_order == "alphabetical"


def test_a_format_declares_its_order_unless_papersite_yml_does():
    from generator.ingest.authors import source_order

    assert source_order("detect", "paper", "bibtex") == ("paper", "the bibtex format")
    assert source_order("alphabetical", "paper", "bibtex") == ("alphabetical", "papersite.yml")
    assert source_order("detect", "detect", "csv") == ("detect", "papersite.yml")
    verdict = judge_order("lab.bib", [["A a", "B b", "C c"]] * 40, "paper", "the bibtex format")
    assert verdict.order == "paper" and "(the bibtex format)" in verdict.describe()
