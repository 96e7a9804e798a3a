"""The paper map: every paper placed in two dimensions by what it is about, and the map's data file.

In: papers. Out: each paper's point on a square grid (``GRID`` cells a side), and
``map.json.gz``: what the map page's script draws and filters with.

How a paper is placed. Its title and abstract become a TF-IDF vector, reduced by a
truncated SVD to ``DIMENSIONS`` numbers (the LSA space, where cosine says how close two
papers' subjects are). The taxonomy's topics are the landmarks: each topic with papers
has the centroid of its papers, and the centroids alone are laid out in 2-D (metric MDS
on their cosine distances, started from their classical MDS, so the same input gives
the same picture). A paper then sits among the landmarks it is closest to (a softmax of
its similarity to its ``NEAREST`` nearest), moved by what it has that they lack (its
residual, on the residuals' two main directions): papers between two subjects land
between them, and papers of one subject spread into a cloud instead of a dot.

Why landmarks rather than t-SNE or UMAP of every paper: the 2-D step sees a hundred
centroids, not 11,672 papers, so it costs milliseconds, and a paper's point is a smooth
function of the corpus: editing one paper moves the centroids by a hair and that paper,
where t-SNE of all papers may redraw the whole picture. Papers are taken in slug order
and every random generator is seeded, so the points never depend on file order. The
TF-IDF is made from each text's term counts (``termcounts.py``), which a build keeps for
the next: an edit tokenises only the papers it changed and gives a clean build's points.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from typing import TYPE_CHECKING

from generator.pages.record import PaperRecord

if TYPE_CHECKING:
    from generator.site.termcounts import TermCounts

GRID = 4096  # cells a side: integer coordinates, a pixel each on a 4k screen
DIMENSIONS = 48  # the LSA space
NEAREST = 3  # landmarks a paper sits among
SHARPNESS = 20.0  # softmax of cosines: higher keeps papers nearer their closest landmark
SPREAD = 0.45  # a cloud's reach, in units of the median distance between neighbouring landmarks
RANGE_OVERSAMPLE = 10  # directions sought beyond DIMENSIONS: the range finder's margin
POWER_STEPS = 4  # the range finder's power iterations (BENCHMARKS.md, part 6: more moved no figure of the map)
SMACOF_STEPS = 200  # the landmark layout's iterations (it has settled well before)
MIN_LANDMARK_PAPERS = 2  # a topic with fewer papers is not a landmark (one paper is no centroid)


@dataclass(frozen=True)
class MapText:
    """All the layout reads of a paper (its key in the build's memo)."""

    slug: str
    text: str  # title and abstract
    topic: str  # "Area\0Sub-area", "Area\0" or "": the landmark it belongs to


def map_texts(papers: list[PaperRecord]) -> list[MapText]:
    """What ``layout_of_texts`` is given of the papers, in slug order; loads no numerical library."""
    return map_in_order([map_item(paper) for paper in papers])


def map_item(paper: PaperRecord) -> MapText:
    """What ``map_texts`` holds of one paper."""
    topic = f"{paper.topic.area}\0{paper.topic.subarea or ''}" if paper.topic else ""
    return MapText(paper.slug, f"{paper.title}\n{paper.abstract or ''}", topic)


def map_in_order(items: list[MapText]) -> list[MapText]:
    return sorted(items, key=lambda t: t.slug)


def paper_points(papers: list[PaperRecord]) -> dict[str, tuple[int, int]]:
    return layout_of_texts(map_texts(papers))


def layout_of_texts(texts: list[MapText]) -> dict[str, tuple[int, int]]:
    """Slug -> (x, y), integers in [0, GRID), x to the right and y downwards, for papers in slug order."""
    return layout_and_counts(texts, None)[0]


def layout_and_counts(texts: list[MapText], kept: "TermCounts | None") -> tuple[dict[str, tuple[int, int]], "TermCounts"]:
    """``layout_of_texts``, with the texts' term counts: ``kept`` (the last build's) spares the texts it counted."""
    from generator.site.termcounts import counted

    counts = counted([t.text for t in texts], kept)
    return layout_of_counts(texts, counts), counts


def layout_of_counts(texts: list[MapText], counts: "TermCounts") -> dict[str, tuple[int, int]]:
    """``layout_of_texts`` of texts whose words were counted into ``counts`` (row i: ``texts[i].text``)."""
    import numpy as np

    slugs = [t.slug for t in texts]
    if not slugs:
        return {}
    space = _lsa_space(counts)
    if space is None:
        points = np.zeros((len(slugs), 2))
    else:
        points = _placed(space, [t.topic for t in texts])
    return dict(zip(slugs, _on_grid(points)))


def _lsa_space(counts: "TermCounts"):  # noqa: ANN202 (numpy array or None)
    """Unit rows in the LSA space; None when the texts have too few words to compare."""
    from generator.site.termcounts import tfidf

    if len(counts) < 3:
        return None
    vectors = tfidf(counts, max_df=0.5, min_df=2 if len(counts) >= 50 else 1)
    if vectors is None:  # every text empty or stop words only
        return None
    dimensions = min(DIMENSIONS, vectors.shape[1] - 1, len(counts) - 1)
    if dimensions < 2:
        return None
    return _unit_rows(_truncated_svd(vectors, dimensions))


def _truncated_svd(matrix, dimensions: int):  # noqa: ANN001, ANN202
    """The rows on the matrix's ``dimensions`` main singular directions, scaled by their singular values
    (an LSA's document coordinates, ``U S``), by a randomised range finder with power steps.

    Written out (numpy alone) rather than scikit-learn's ``TruncatedSVD``: importing scikit-learn was
    ~0.8 CPU s of every edit that moves the map. The main directions are sought among the terms (the
    rows are then their projections, ``M V``), in float32: the products with the sparse matrix are
    nearly all the cost, and the points land on a 4096 grid. The start is seeded, so the same matrix
    gives the same points; a rotation of the space would not move them (``_placed`` reads cosines)."""
    import numpy as np

    papers = matrix.astype(np.float32)
    terms = papers.T.tocsr()
    width = min(dimensions + RANGE_OVERSAMPLE, *matrix.shape)
    start = np.random.default_rng(0).standard_normal((matrix.shape[0], width)).astype(np.float32)
    directions = _orthonormal(terms @ start)
    for _ in range(POWER_STEPS):
        back = _orthonormal(papers @ directions)
        directions = _orthonormal(terms @ back)
    projected = np.asarray(papers @ directions, dtype=np.float64)
    left, values, _ = np.linalg.svd(projected, full_matrices=False)
    return left[:, :dimensions] * values[:dimensions]


# The Cholesky factor's smallest diagonal to its largest below which the columns count as dependent
# (the Gram matrix's condition past 1e12: Q = A R^-1 would lose its orthogonality to rounding)
INDEPENDENT_COLUMNS = 1e-6


def _orthonormal(columns):  # noqa: ANN001, ANN202
    """An orthonormal basis of the columns' span (a few dozen columns of ~10^4 rows): by the Cholesky factor of
    their Gram matrix (``Q = A R^-1``, one matrix product), ~55% of Householder's QR's time here (the power steps
    were half of the map's time); by Householder's where the columns are (nearly) dependent, as for a corpus of
    few distinct texts."""
    import numpy as np

    wide = columns.astype(np.float64)
    try:
        factor = np.linalg.cholesky(wide.T @ wide)
    except np.linalg.LinAlgError:
        factor = None
    diagonal = np.abs(np.diag(factor)) if factor is not None else None
    if diagonal is None or diagonal.min() <= INDEPENDENT_COLUMNS * diagonal.max():
        return np.linalg.qr(wide)[0].astype(np.float32)
    return (wide @ np.linalg.inv(factor.T)).astype(np.float32)


def _unit_rows(matrix):  # noqa: ANN001, ANN202
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def _placed(space, topics: list[str]):  # noqa: ANN001, ANN202
    """Each paper's 2-D point (floats, any scale): among its nearest landmarks, moved by its residual."""
    import numpy as np

    members: dict[str, list[int]] = {}
    for row, topic in enumerate(topics):
        if topic:
            members.setdefault(topic, []).append(row)
    landmarks = [rows for _, rows in sorted(members.items()) if len(rows) >= MIN_LANDMARK_PAPERS]
    if len(landmarks) < 3:  # too few subjects to lay out: the space's own two main directions
        return _main_directions(space, 2)
    centroids = _unit_rows(np.vstack([space[rows].mean(axis=0) for rows in landmarks]))
    anchors = _landmark_layout(centroids)
    similarity = space @ centroids.T
    nearest = np.argsort(-similarity, axis=1, kind="stable")[:, :NEAREST]
    near_sim = np.take_along_axis(similarity, nearest, axis=1)
    weights = np.exp(SHARPNESS * (near_sim - near_sim[:, :1]))
    weights /= weights.sum(axis=1, keepdims=True)
    base = np.einsum("pk,pkd->pd", weights, anchors[nearest])
    residual = space - np.einsum("pk,pkd->pd", weights, centroids[nearest])
    cloud = _main_directions(residual, 2)
    # a cloud's reach follows how far apart neighbouring landmarks are drawn
    gaps = np.linalg.norm(anchors[:, None, :] - anchors[None, :, :], axis=2)
    np.fill_diagonal(gaps, np.inf)
    reach = float(np.median(gaps.min(axis=1))) * SPREAD
    scale = float(np.percentile(np.abs(cloud), 95)) or 1.0
    return base + cloud * (reach / scale)


def _landmark_layout(centroids):  # noqa: ANN001, ANN202
    """The landmarks' 2-D points: metric MDS of their cosine distances (SMACOF), from their classical MDS."""
    import numpy as np

    distances = np.clip(1.0 - centroids @ centroids.T, 0.0, 2.0)
    distances = (distances + distances.T) / 2
    np.fill_diagonal(distances, 0.0)
    points = _classical_mds(distances)
    n = len(points)
    # Guttman transforms, written out (a few lines) rather than sklearn's MDS, whose arguments
    # changed between the versions pyproject.toml accepts
    for _ in range(SMACOF_STEPS):
        drawn = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
        ratio = np.divide(distances, drawn, out=np.zeros_like(distances), where=drawn > 1e-12)
        b = -ratio
        np.fill_diagonal(b, 0.0)
        np.fill_diagonal(b, -b.sum(axis=1))
        points = b @ points / n
    return _fixed_signs(points)


def _classical_mds(distances):  # noqa: ANN001, ANN202
    import numpy as np

    n = len(distances)
    centre = np.eye(n) - 1.0 / n
    gram = -0.5 * centre @ (distances**2) @ centre
    values, vectors = np.linalg.eigh(gram)
    top = np.argsort(-values, kind="stable")[:2]
    return _fixed_signs(vectors[:, top] * np.sqrt(np.maximum(values[top], 1e-12)))


def _main_directions(matrix, count: int):  # noqa: ANN001, ANN202
    """The rows on the matrix's ``count`` principal directions (signs fixed: see ``_fixed_signs``)."""
    import numpy as np

    centred = matrix - matrix.mean(axis=0)
    _, _, directions = np.linalg.svd(centred, full_matrices=False)
    return _fixed_signs(centred @ directions[:count].T)


def _fixed_signs(points):  # noqa: ANN001, ANN202
    """Each axis turned so that its third moment is positive: an eigenvector's sign is arbitrary,
    and a map that flips on a rebuild would lose its readers."""
    import numpy as np

    skew = ((points - points.mean(axis=0)) ** 3).sum(axis=0)
    return points * np.where(skew < 0, -1.0, 1.0)


def _on_grid(points) -> list[tuple[int, int]]:  # noqa: ANN001
    """Points scaled into the grid, the same scale on both axes (a map is not stretched), y downwards."""
    import numpy as np

    low, high = points.min(axis=0), points.max(axis=0)
    span = float(max(high - low)) or 1.0
    margin = GRID * 0.02
    scaled = (points - low) / span * (GRID - 1 - 2 * margin) + margin
    scaled += ((GRID - 1 - 2 * margin) - (high - low) / span * (GRID - 1 - 2 * margin)) / 2  # centred on the short axis
    grid = np.clip(np.rint(scaled), 0, GRID - 1).astype(int)
    return [(int(x), int(GRID - 1 - y)) for x, y in grid]


def _json(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
