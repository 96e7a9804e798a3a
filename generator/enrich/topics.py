"""Topics: infer a paper's area and sub-area of the taxonomy from its title and abstract.

Part of the enrichment stage. The model is data, ``generator/data/topic_model.npz``:
TF-IDF term weights per sub-area of a linear classifier (compact arrays), derived offline by
``bench/train_topics.py`` (see ``generator/data/README.md`` for where its
training data came from). Inference is a sparse dot product: no training, no
randomness, no network, so the same text always gets the same topic.

In:  (title, abstract) texts and a ``Taxonomy``.
Out: ``Topic(source="inferred", confidence=...)`` per paper; when the model is
unsure of the sub-area it returns the area alone, with the area's confidence.

The model has a sub-area head (one class per taxonomy sub-area) and, optionally, an area
head over the same features. With an area head, the area is chosen by the area head
(optionally mixed with the sub-area probabilities summed per area) and the sub-area
confidence is P(area) x P(sub-area | area); without one, the area is the summed
sub-area mass. The model may ask for only the first sentences of an abstract
(``abstract_sentences``) because it was trained on titles plus 1-2 sentences.

Confidences are calibrated (format version 4): two monotone curves fitted on out-of-fold
predictions (isotonic regression) map the model's area probability to how often the area is
right, and its sub-area probability to how often area and sub-area are both right, so that
a paper shown at 0.7 is right about seven times in ten. The sub-area threshold is compared
with the uncalibrated probability, the page shows the calibrated one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy.sparse import csr_matrix

from generator.enrich.features import STOPWORDS, segments
from generator.pages.record import Topic
from generator.enrich.taxonomy import Taxonomy

MODEL_LABEL_SEPARATOR = " · "  # between area and sub-area in topic_model.npz's label list: the file's format, not a display label
TITLE_WEIGHT = 2  # a title word says more about the subject than an abstract word
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def first_sentences(text: str, n: int) -> str:
    """The first ``n`` sentences of ``text`` (all of it when ``n`` <= 0)."""
    if n <= 0 or not text:
        return text or ""
    return " ".join(_SENTENCE_END.split(text.strip(), maxsplit=n)[:n])


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
    # Optional area head (format version 3): terms x areas weights of a separate classifier.
    area_labels: tuple[str, ...] = ()
    area_weights: "csr_matrix | None" = None
    area_bias: "np.ndarray | None" = None
    area_temperature: float = 1.0
    area_mix: float = 0.0  # share of the summed sub-area probabilities in the area probability
    abstract_sentences: int = 0  # use only the first n sentences of an abstract (0: all)
    # Calibration curves (format version 4): (probabilities, calibrated confidences), both
    # increasing; a confidence between two points is interpolated. Empty: not calibrated.
    area_calibration: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())
    subarea_calibration: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())

    @classmethod
    def from_dense(
        cls, labels, terms, idf, coef, bias, temperature, subarea_threshold,
        area_labels=(), area_coef=None, area_bias=None, area_temperature=1.0, area_mix=0.0, abstract_sentences=0,
        area_calibration=((), ()), subarea_calibration=((), ()),
    ) -> "TopicModel":
        """``coef`` is (terms x classes), ``area_coef`` (terms x areas); zeros are not stored."""
        matrix = csr_matrix(np.asarray(coef, dtype=np.float32))
        matrix.eliminate_zeros()
        area_matrix = None
        if area_coef is not None:
            area_matrix = csr_matrix(np.asarray(area_coef, dtype=np.float32))
            area_matrix.eliminate_zeros()
        return cls(
            labels=tuple(tuple(label) for label in labels),
            vocabulary={term: i for i, term in enumerate(terms)},
            idf=np.asarray(idf, dtype=np.float32),
            weights=matrix,
            bias=np.asarray(bias, dtype=np.float32),
            temperature=float(temperature),
            subarea_threshold=float(subarea_threshold),
            area_labels=tuple(area_labels),
            area_weights=area_matrix,
            area_bias=None if area_bias is None else np.asarray(area_bias, dtype=np.float32),
            area_temperature=float(area_temperature),
            area_mix=float(area_mix),
            abstract_sentences=int(abstract_sentences),
            area_calibration=_curve(area_calibration),
            subarea_calibration=_curve(subarea_calibration),
        )

    def features(self, papers: Sequence[tuple[str, str]]) -> "csr_matrix":
        """L2-normalised TF-IDF rows (sublinear tf) of the model's vocabulary, one per paper."""
        indptr, indices, data = [0], [], []
        vocabulary = self.vocabulary
        for title, abstract in papers:
            abstract = first_sentences(abstract, self.abstract_sentences)
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
        return self.all_probabilities(papers)[0]

    def all_probabilities(self, papers: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray | None]:
        """(sub-area class probabilities, area-head probabilities or None), one row per paper."""
        X = self.features(papers)
        sub = _softmax(np.asarray((X @ self.weights).todense(), dtype=np.float64) + self.bias, self.temperature)
        if self.area_weights is None:
            return sub, None
        area = _softmax(np.asarray((X @ self.area_weights).todense(), dtype=np.float64) + self.area_bias, self.area_temperature)
        return sub, area


def _curve(points) -> tuple[tuple[float, ...], tuple[float, ...]]:
    xs, ys = points
    return tuple(float(x) for x in xs), tuple(float(y) for y in ys)


def calibrate(probability: float, curve: tuple[tuple[float, ...], tuple[float, ...]]) -> float:
    """The calibrated confidence of a model probability (unchanged without a curve)."""
    xs, ys = curve
    if not xs:
        return probability
    return float(np.interp(probability, xs, ys))


def _softmax(scores: np.ndarray, temperature: float) -> np.ndarray:
    scores = (scores - scores.max(axis=1, keepdims=True)) / temperature
    exps = np.exp(scores)
    return exps / exps.sum(axis=1, keepdims=True)


def bundled_model_path() -> Path:
    return Path(str(resources.files("generator") / "data" / "topic_model.npz"))


def save_model(model: TopicModel, path: Path) -> None:
    """Write the model as one compressed npz (weights as float16 CSR, terms as one string)."""
    terms = sorted(model.vocabulary, key=model.vocabulary.get)
    weights = model.weights.tocsr()
    extra = {}
    if model.area_weights is not None:
        area_weights = model.area_weights.tocsr()
        extra = dict(
            area_labels=np.array("\n".join(model.area_labels)),
            area_indptr=area_weights.indptr.astype(np.int32),
            area_indices=area_weights.indices.astype(np.uint8),
            area_data=area_weights.data.astype(np.float16),
            area_bias=model.area_bias.astype(np.float32),
            area_temperature=np.array(model.area_temperature),
            area_mix=np.array(model.area_mix),
        )
    for name, (xs, ys) in (("area_calibration", model.area_calibration), ("subarea_calibration", model.subarea_calibration)):
        if xs:
            extra[name] = np.array([xs, ys], dtype=np.float64)
    with open(path, "wb") as stream:
        np.savez_compressed(
            stream,
            version=np.array(4 if model.area_calibration[0] or model.subarea_calibration[0] else 3),
            abstract_sentences=np.array(model.abstract_sentences),
            **extra,
            labels=np.array("\n".join(f"{a}{MODEL_LABEL_SEPARATOR}{s}" for a, s in model.labels)),
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
        labels = tuple(tuple(label.split(MODEL_LABEL_SEPARATOR, 1)) for label in str(data["labels"]).split("\n"))
        terms = str(data["terms"]).split("\n")
        weights = csr_matrix(
            (data["data"].astype(np.float32), data["indices"].astype(np.int32), data["indptr"]),
            shape=(len(terms), len(labels)),
        )
        area = {}
        if "area_labels" in data.files:
            area_labels = tuple(str(data["area_labels"]).split("\n"))
            area = dict(
                area_labels=area_labels,
                area_weights=csr_matrix(
                    (data["area_data"].astype(np.float32), data["area_indices"].astype(np.int32), data["area_indptr"]),
                    shape=(len(terms), len(area_labels)),
                ),
                area_bias=data["area_bias"].astype(np.float32),
                area_temperature=float(data["area_temperature"]),
                area_mix=float(data["area_mix"]),
            )
        if "abstract_sentences" in data.files:
            area["abstract_sentences"] = int(data["abstract_sentences"])
        for name in ("area_calibration", "subarea_calibration"):
            if name in data.files:
                area[name] = _curve(data[name])
        return TopicModel(
            labels=labels,  # type: ignore[arg-type]
            vocabulary={term: i for i, term in enumerate(terms)},
            idf=data["idf"].astype(np.float32),
            weights=weights,
            bias=data["bias"].astype(np.float32),
            temperature=float(data["temperature"]),
            subarea_threshold=float(data["subarea_threshold"]),
            **area,
        )


@lru_cache(maxsize=2)
def load_topic_model(path: str | None = None) -> TopicModel:
    return read_model(Path(path) if path else bundled_model_path())


def topic_from_probabilities(
    probabilities: Sequence[float],
    labels: Sequence[tuple[str, str]],
    taxonomy: Taxonomy,
    threshold: float,
    area_probabilities: Sequence[float] | None = None,
    area_labels: Sequence[str] = (),
    area_mix: float = 0.0,
    area_calibration: tuple[tuple[float, ...], tuple[float, ...]] = ((), ()),
    subarea_calibration: tuple[tuple[float, ...], tuple[float, ...]] = ((), ()),
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
    summed_total = sum(area_mass.values())
    area_prob = {a: m / summed_total for a, m in area_mass.items()}
    if area_probabilities is not None:
        head = {a: float(p) for a, p in zip(area_labels, area_probabilities) if taxonomy.contains(a)}
        head_total = sum(head.values())
        if head_total > 0:
            area_prob = {
                a: area_mix * area_prob.get(a, 0.0) + (1.0 - area_mix) * head.get(a, 0.0) / head_total
                for a in set(area_prob) | set(head)
            }
    # Ties go to the taxonomy's order, so the answer never depends on dict order.
    order = {name: i for i, name in enumerate(taxonomy.area_names)}
    area = min(area_prob, key=lambda a: (-area_prob[a], order[a]))
    area_confidence = area_prob[area]
    within = area_mass.get(area, 0.0)
    candidates = [(area_confidence * p / within, sub) for (a, sub), p in sub_mass.items() if a == area and within > 0]
    if candidates:
        sub_order = {name: i for i, name in enumerate(taxonomy.subareas(area))}
        confidence, sub = min(candidates, key=lambda c: (-c[0], sub_order[c[1]]))
        if confidence >= threshold:
            shown_area = calibrate(area_confidence, area_calibration)
            # Two curves fitted apart could cross; area and sub-area right is never likelier than area right.
            shown = min(calibrate(confidence, subarea_calibration), shown_area)
            return Topic(
                area=area, subarea=sub, source="inferred", confidence=round(shown, 3), area_confidence=round(shown_area, 3)
            )
    return Topic(area=area, subarea=None, source="inferred", confidence=round(calibrate(area_confidence, area_calibration), 3))


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
    probabilities, area_probabilities = model.all_probabilities(papers)
    curves = dict(area_calibration=model.area_calibration, subarea_calibration=model.subarea_calibration)
    if area_probabilities is None:
        return [topic_from_probabilities(row, model.labels, taxonomy, threshold, **curves) for row in probabilities]
    return [
        topic_from_probabilities(row, model.labels, taxonomy, threshold, area_row, model.area_labels, model.area_mix, **curves)
        for row, area_row in zip(probabilities, area_probabilities)
    ]
