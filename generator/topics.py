"""Topics: infer a paper's area and sub-area of the taxonomy from its title and abstract.

Part of the enrichment stage. The model is data, ``generator/data/topic_model.json.gz``:
TF-IDF term weights per sub-area of a linear classifier, derived offline by
``bench/train_topics.py`` (see ``generator/data/README.md`` for where its
training data came from). Inference is a sparse dot product: no training, no
randomness, no network, so the same text always gets the same topic.

In:  (title, abstract) texts and a ``Taxonomy``.
Out: ``Topic(source="inferred", confidence=...)`` per paper; when the model is
unsure of the sub-area it returns the area alone, with the area's confidence.
"""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

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


@dataclass(frozen=True)
class TopicModel:
    labels: tuple[tuple[str, str], ...]  # (area, sub-area) per class
    idf: dict[str, float]
    weights: dict[str, tuple[tuple[int, float], ...]]  # term -> ((class, weight), ...)
    bias: tuple[float, ...]
    temperature: float  # softmax temperature fitted on held-out data, for calibrated confidences
    subarea_threshold: float  # below this sub-area probability, report the area only

    def class_probabilities(self, title: str, abstract: str) -> list[float]:
        scores = list(self.bias)
        for term, value in tfidf_vector(document_terms(title, abstract), self.idf).items():
            for index, weight in self.weights.get(term, ()):
                scores[index] += value * weight
        top = max(scores)
        exps = [math.exp((s - top) / self.temperature) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]


def bundled_model_path() -> Path:
    return Path(str(resources.files("generator") / "data" / "topic_model.json.gz"))


def model_from_json(data: dict) -> TopicModel:
    labels = tuple(tuple(label.split(LABEL_SEPARATOR, 1)) for label in data["labels"])
    return TopicModel(
        labels=labels,  # type: ignore[arg-type]
        idf={term: float(v) for term, v in data["idf"].items()},
        weights={term: tuple((int(i), float(w)) for i, w in pairs) for term, pairs in data["weights"].items()},
        bias=tuple(float(b) for b in data["bias"]),
        temperature=float(data.get("temperature", 1.0)),
        subarea_threshold=float(data.get("subarea_threshold", 0.3)),
    )


@lru_cache(maxsize=2)
def load_topic_model(path: str | None = None) -> TopicModel:
    file = Path(path) if path else bundled_model_path()
    with gzip.open(file, "rt", encoding="utf-8") as stream:
        return model_from_json(json.load(stream))


def infer_topic(
    title: str,
    abstract: str,
    taxonomy: Taxonomy,
    model: TopicModel | None = None,
    subarea_threshold: float | None = None,
) -> Topic | None:
    """The most probable topic of the taxonomy, or None when the model knows none of its areas."""
    model = model or load_topic_model()
    threshold = model.subarea_threshold if subarea_threshold is None else subarea_threshold
    area_mass: Counter = Counter()
    sub_mass: dict[tuple[str, str], float] = {}
    for (area, sub), p in zip(model.labels, model.class_probabilities(title, abstract)):
        # A site's own taxonomy may lack some of the model's classes: their mass
        # still counts for the area when the area exists, else it is dropped.
        if not taxonomy.contains(area):
            continue
        area_mass[area] += p
        if taxonomy.contains(area, sub):
            sub_mass[(area, sub)] = p
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


def infer_topics(papers: Sequence[tuple[str, str]], taxonomy: Taxonomy, model: TopicModel | None = None) -> list[Topic | None]:
    model = model or load_topic_model()
    return [infer_topic(title, abstract, taxonomy, model) for title, abstract in papers]
