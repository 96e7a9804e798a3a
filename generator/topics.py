"""Topics: infer a paper's area and sub-area of the taxonomy from its title and abstract.

Part of the enrichment stage. The model is data, ``generator/data/topic_model.npz``:
TF-IDF term weights per sub-area of a linear classifier (compact arrays), derived offline by
``bench/train_topics.py`` (see ``generator/data/README.md`` for where its
training data came from). Inference is a sparse dot product: no training, no
randomness, no network, so the same text always gets the same topic.

In:  (title, abstract) texts and a ``Taxonomy``.
Out: ``Topic(source="inferred", confidence=...)`` per paper; when the model is
unsure of the sub-area it returns the area alone, with the area's confidence.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy.sparse import csr_matrix

from generator.keywords import STOPWORDS, segments
from generator.record import Topic
from generator.taxonomy import LABEL_SEPARATOR, Taxonomy

TITLE_WEIGHT = 2  # a title word says more about the subject than an abstract word


def document_terms(title: str, abstract: str) -> Counter:
    """Unigram and bigram counts of normalised tokens (the model's features)."""
    counts: Counter = Counter()
    for repeat, text in ((TITLE_WEIGHT, title or ""), (1, abstract or "")):
        for run in segments(text):
            keys = [t.key for t in run if not t.key.isdigit()]
            for i, key in enumerate(keys):
                if key in STOPWORDS:
                    continue
                counts[key] += repeat
                if i + 1 < len(keys) and keys[i + 1] not in STOPWORDS:
                    counts[f"{key} {keys[i + 1]}"] += repeat
    return counts


def tfidf_vector(counts: Counter, idf: dict[str, float]) -> dict[str, float]:
    vector = {term: (1.0 + math.log(n)) * idf[term] for term, n in counts.items() if term in idf}
    norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
    return {term: v / norm for term, v in vector.items()}


@dataclass(frozen=True, eq=False)
class TopicModel:
    """A linear classifier over TF-IDF features, stored as compact arrays.

    ``weights`` is a sparse (terms x classes) matrix: row ``vocabulary[term]`` holds the
    weights of that term for each class (pruned: most are zero).
    """

    labels: tuple[tuple[str, str], ...]  # (area, sub-area) per class
    vocabulary: dict[str, int]  # term -> row
    idf: np.ndarray  # float32 per row
    weights: "csr_matrix"  # terms x classes
    bias: np.ndarray  # float32 per class
    temperature: float  # softmax temperature fitted on held-out data, for calibrated confidences
    subarea_threshold: float  # below this sub-area probability, report the area only

    @classmethod
    def from_dense(cls, labels, terms, idf, coef, bias, temperature, subarea_threshold) -> "TopicModel":
        """``coef`` is (terms x classes); zeros are not stored."""
        matrix = csr_matrix(np.asarray(coef, dtype=np.float32))
        matrix.eliminate_zeros()
        return cls(
            labels=tuple(tuple(label) for label in labels),
            vocabulary={term: i for i, term in enumerate(terms)},
            idf=np.asarray(idf, dtype=np.float32),
            weights=matrix,
            bias=np.asarray(bias, dtype=np.float32),
            temperature=float(temperature),
            subarea_threshold=float(subarea_threshold),
        )

    def features(self, papers: Sequence[tuple[str, str]]) -> "csr_matrix":
        """L2-normalised TF-IDF rows (sublinear tf) of the model's vocabulary, one per paper."""
        indptr, indices, data = [0], [], []
        vocabulary = self.vocabulary
        for title, abstract in papers:
            row = {}
            for term, n in document_terms(title, abstract).items():
                j = vocabulary.get(term)
                if j is not None:
                    row[j] = n
            indices.extend(row.keys())
            data.extend(row.values())
            indptr.append(len(indices))
        X = csr_matrix(
            (np.asarray(data, dtype=np.float64), np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
            shape=(len(papers), len(self.idf)),
        )
        X.data = (1.0 + np.log(X.data)) * self.idf[X.indices]
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        X.data /= np.repeat(norms, np.diff(X.indptr))
        return X

    def probabilities(self, papers: Sequence[tuple[str, str]]) -> np.ndarray:
        """Class probabilities, one row per paper (softmax with the fitted temperature)."""
        scores = np.asarray((self.features(papers) @ self.weights).todense(), dtype=np.float64) + self.bias
        scores = (scores - scores.max(axis=1, keepdims=True)) / self.temperature
        exps = np.exp(scores)
        return exps / exps.sum(axis=1, keepdims=True)

    def class_probabilities(self, title: str, abstract: str) -> list[float]:
        return self.probabilities([(title, abstract)])[0].tolist()


def bundled_model_path() -> Path:
    return Path(str(resources.files("generator") / "data" / "topic_model.npz"))


def save_model(model: TopicModel, path: Path) -> None:
    """Write the model as one compressed npz (weights as float16 CSR, terms as one string)."""
    terms = sorted(model.vocabulary, key=model.vocabulary.get)
    weights = model.weights.tocsr()
    with open(path, "wb") as stream:
        np.savez_compressed(
            stream,
            version=np.array(2),
            labels=np.array("\n".join(f"{a}{LABEL_SEPARATOR}{s}" for a, s in model.labels)),
            terms=np.array("\n".join(terms)),
            idf=model.idf.astype(np.float16),
            indptr=weights.indptr.astype(np.int32),
            indices=weights.indices.astype(np.uint8),
            data=weights.data.astype(np.float16),
            bias=model.bias.astype(np.float32),
            temperature=np.array(model.temperature),
            subarea_threshold=np.array(model.subarea_threshold),
        )


def read_model(path: Path | str) -> TopicModel:
    with np.load(path, allow_pickle=False) as data:
        labels = tuple(tuple(label.split(LABEL_SEPARATOR, 1)) for label in str(data["labels"]).split("\n"))
        terms = str(data["terms"]).split("\n")
        weights = csr_matrix(
            (data["data"].astype(np.float32), data["indices"].astype(np.int32), data["indptr"]),
            shape=(len(terms), len(labels)),
        )
        return TopicModel(
            labels=labels,  # type: ignore[arg-type]
            vocabulary={term: i for i, term in enumerate(terms)},
            idf=data["idf"].astype(np.float32),
            weights=weights,
            bias=data["bias"].astype(np.float32),
            temperature=float(data["temperature"]),
            subarea_threshold=float(data["subarea_threshold"]),
        )


@lru_cache(maxsize=2)
def load_topic_model(path: str | None = None) -> TopicModel:
    return read_model(Path(path) if path else bundled_model_path())


def topic_from_probabilities(
    probabilities: Sequence[float], labels: Sequence[tuple[str, str]], taxonomy: Taxonomy, threshold: float
) -> Topic | None:
    """The most probable topic of the taxonomy, or None when the model knows none of its areas."""
    area_mass: dict[str, float] = {}
    sub_mass: dict[tuple[str, str], float] = {}
    for (area, sub), p in zip(labels, probabilities):
        # A site's own taxonomy may lack some of the model's classes: their mass
        # still counts for the area when the area exists, else it is dropped.
        if not taxonomy.contains(area):
            continue
        area_mass[area] = area_mass.get(area, 0.0) + float(p)
        if taxonomy.contains(area, sub):
            sub_mass[(area, sub)] = float(p)
    if not area_mass:
        return None
    total = sum(area_mass.values())
    # Ties go to the taxonomy's order, so the answer never depends on dict order.
    order = {name: i for i, name in enumerate(taxonomy.area_names)}
    area = min(area_mass, key=lambda a: (-area_mass[a], order[a]))
    area_confidence = area_mass[area] / total
    candidates = [(p / total, sub) for (a, sub), p in sub_mass.items() if a == area]
    if candidates:
        sub_order = {name: i for i, name in enumerate(taxonomy.subareas(area))}
        confidence, sub = min(candidates, key=lambda c: (-c[0], sub_order[c[1]]))
        if confidence >= threshold:
            return Topic(area=area, subarea=sub, source="inferred", confidence=round(confidence, 3))
    return Topic(area=area, subarea=None, source="inferred", confidence=round(area_confidence, 3))


def infer_topic(
    title: str,
    abstract: str,
    taxonomy: Taxonomy,
    model: TopicModel | None = None,
    subarea_threshold: float | None = None,
) -> Topic | None:
    """The most probable topic of the taxonomy, or None when the model knows none of its areas."""
    return infer_topics([(title, abstract)], taxonomy, model, subarea_threshold)[0]


def infer_topics(
    papers: Sequence[tuple[str, str]],
    taxonomy: Taxonomy,
    model: TopicModel | None = None,
    subarea_threshold: float | None = None,
) -> list[Topic | None]:
    """``infer_topic`` for many papers at once (one sparse product: much faster)."""
    model = model or load_topic_model()
    threshold = model.subarea_threshold if subarea_threshold is None else subarea_threshold
    if not papers:
        return []
    probabilities = model.probabilities(papers)
    return [topic_from_probabilities(row, model.labels, taxonomy, threshold) for row in probabilities]
