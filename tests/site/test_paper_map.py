"""generator/site/paper_map.py: every paper placed by content, the same whatever the order, stable under an edit."""

from __future__ import annotations

import math
import random

from generator.pages.record import PaperRecord, Topic
from generator.site import paper_map
from generator.site.paper_map import GRID, paper_points

# Three subjects with words of their own; each paper takes a few of its subject's words and a few shared ones.
SUBJECTS = {
    ("Deep Learning", "Graph Neural Networks"): "graph node edge message passing neighbourhood aggregation molecule graphs",
    ("Reinforcement Learning", "Deep RL"): "policy reward agent environment exploration value function episodes",
    ("Applications", "Computer Vision"): "image pixel segmentation detection camera object scenes convolution",
}
SHARED = "we propose method results experiments show benchmark improves"


def _papers(per_subject: int = 12, seed: int = 0) -> list[PaperRecord]:
    rng = random.Random(seed)
    papers = []
    for number, ((area, subarea), words) in enumerate(SUBJECTS.items()):
        vocabulary, shared = words.split(), SHARED.split()
        for i in range(per_subject):
            text = " ".join(rng.sample(vocabulary, 5) + rng.sample(shared, 3))
            papers.append(PaperRecord(
                id=f"{number}-{i}", slug=f"s{number}-paper-{i:02d}", title=" ".join(rng.sample(vocabulary, 3)),
                abstract=text, topic=Topic(area, subarea, "listing"),
            ))
    return papers


def _distance(a: tuple[int, int], b: tuple[int, int]) -> float:
    return math.dist(a, b)


def test_every_paper_gets_a_point_on_the_grid() -> None:
    papers = _papers()
    points = paper_points(papers)
    assert set(points) == {p.slug for p in papers}
    assert all(0 <= x < GRID and 0 <= y < GRID and isinstance(x, int) and isinstance(y, int) for x, y in points.values())
    assert len(set(points.values())) > len(papers) * 0.9  # a map, not a few dots


def test_papers_on_one_subject_are_closer_than_papers_on_different_subjects() -> None:
    papers = _papers()
    points = paper_points(papers)
    same, different = [], []
    for a in papers:
        for b in papers:
            if a.slug < b.slug:
                (same if a.topic == b.topic else different).append(_distance(points[a.slug], points[b.slug]))
    assert sum(same) / len(same) < 0.5 * sum(different) / len(different)


def test_the_points_do_not_depend_on_the_order_of_the_papers() -> None:
    papers = _papers()
    shuffled = papers[:]
    random.Random(7).shuffle(shuffled)
    assert paper_points(shuffled) == paper_points(papers)


def test_one_edited_paper_moves_the_others_little() -> None:
    papers = _papers(per_subject=20)
    before = paper_points(papers)
    edited = papers[:]
    edited[5] = PaperRecord(id=edited[5].id, slug=edited[5].slug, title=edited[5].title, topic=edited[5].topic,
                            abstract=edited[5].abstract + " entirely new words about proteins and folding")
    after = paper_points(edited)
    moved = sorted(_distance(before[s], after[s]) for s in before if s != edited[5].slug)
    assert moved[len(moved) // 2] < GRID * 0.03 and moved[-1] < GRID * 0.15, moved[-5:]


def test_papers_without_topics_or_words_are_still_placed() -> None:
    untopical = [PaperRecord(id=p.id, slug=p.slug, title=p.title, abstract=p.abstract) for p in _papers(per_subject=4)]
    assert len(paper_points(untopical)) == len(untopical)  # no landmarks: the space's own main directions
    empty = [PaperRecord(id=str(i), slug=f"p{i}", title="the and of") for i in range(4)]
    assert len(set(paper_points(empty).values())) == 1  # nothing to tell them apart: one spot, in the middle
    assert all(abs(x - GRID // 2) <= 1 and abs(y - GRID // 2) <= 1 for x, y in paper_points(empty).values())
    assert paper_points([]) == {}
    assert len(paper_points(_papers(per_subject=1)[:2])) == 2


def test_the_layout_reads_only_what_map_texts_gives() -> None:
    """The build keeps the points by the fingerprint of map_texts: a field the layout read beside them
    would leave a stale map."""
    papers = _papers(per_subject=3)
    renamed = [PaperRecord(id=p.id, slug=p.slug, title=p.title, abstract=p.abstract, topic=p.topic,
                           authors=["Someone Else"], keywords=["other"]) for p in papers]
    assert paper_map.map_texts(renamed) == paper_map.map_texts(papers)
    assert paper_points(renamed) == paper_points(papers)


def test_points_from_the_last_builds_counts_are_a_clean_builds() -> None:
    """An edit keeps the other papers' term counts (termcounts.py): its points are a clean build's."""
    papers = _papers(per_subject=20)
    _, kept = paper_map.layout_and_counts(paper_map.map_texts(papers), None)
    rng = random.Random(3)
    for _ in range(4):
        row = rng.randrange(len(papers))
        words = " ".join(rng.sample(" ".join(SUBJECTS.values()).split(), 4))
        papers[row] = PaperRecord(id=papers[row].id, slug=papers[row].slug, title=f"{words} proteins", topic=papers[row].topic,
                                  abstract=papers[row].abstract)
        texts = paper_map.map_texts(papers)
        points, kept = paper_map.layout_and_counts(texts, kept)
        assert points == paper_map.layout_of_texts(texts)


def test_the_power_steps_basis_is_orthonormal_and_spans_the_columns() -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    columns = rng.standard_normal((400, 12)).astype(np.float32) * np.linspace(1, 300, 12, dtype=np.float32)
    basis = paper_map._orthonormal(columns)
    assert basis.shape == columns.shape and basis.dtype == np.float32
    assert np.allclose(basis.T @ basis, np.eye(12), atol=1e-4)
    assert np.allclose(basis @ (basis.T @ columns), columns, rtol=1e-3, atol=1e-2)  # the same span


def test_dependent_columns_still_give_a_basis() -> None:
    import numpy as np

    rng = np.random.default_rng(4)
    columns = rng.standard_normal((50, 4)).astype(np.float32)
    columns = np.hstack([columns, columns[:, :2]])  # no Cholesky factor: Householder's QR instead
    basis = paper_map._orthonormal(columns)
    assert basis.shape == columns.shape and np.isfinite(basis).all()
    assert np.allclose(basis @ (basis.T @ columns), columns, atol=1e-4)


def test_papers_with_one_text_between_them_are_placed() -> None:
    papers = [PaperRecord(id=str(i), slug=f"copy-{i:02d}", title="graph message passing", abstract="node edge molecule graphs")
              for i in range(60)]
    points = paper_points(papers)
    assert set(points) == {p.slug for p in papers}
    assert all(0 <= x < GRID and 0 <= y < GRID for x, y in points.values())


def test_nearly_dependent_columns_are_not_taken_through_the_gram_matrix() -> None:
    import numpy as np

    rng = np.random.default_rng(5)
    columns = rng.standard_normal((80, 3))
    columns = np.hstack([columns, columns[:, :1] + 1e-7 * rng.standard_normal((80, 1))])  # a Cholesky factor, all but singular
    basis = paper_map._orthonormal(columns)
    assert np.isfinite(basis).all()
    assert np.allclose(basis.T @ basis, np.eye(4), atol=1e-5)  # Householder's Q: orthonormal whatever the rank
