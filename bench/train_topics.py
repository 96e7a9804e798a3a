"""Derive the topic model (generator/data/topic_model.json.gz) from public data.

Offline, deterministic, run by hand when the cue vocabulary or the data changes:
    python bench/train_topics.py [--iclr PATH] [--out PATH]

1. Seed labels: score every ICLR 2025 submission (title + abstract, no topics)
   against the hand-written cue phrases of each sub-area
   (generator/data/topic_cues.yaml); keep papers whose best sub-area clearly wins.
2. Fit a multinomial logistic regression on TF-IDF features of the seeded papers,
   relabel every paper with it, keep confident ones and refit (self-training).
3. Export pruned term weights; pick the softmax temperature and the sub-area
   threshold on the *dev* split of bench/labels/icml2025_sample.jsonl only.
   The *test* split and corpus 003 are never looked at here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import yaml
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.keywords import canonical_key, segments  # noqa: E402
from generator.taxonomy import LABEL_SEPARATOR, load_taxonomy, parse_topic_label  # noqa: E402
from generator.topics import document_terms, model_from_json  # noqa: E402

DATA = ROOT / "generator" / "data"


def read_iclr(path: Path) -> list[tuple[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        rows = [json.loads(line) for line in stream]
    return [(r.get("title") or "", r.get("abstract") or "") for r in rows]


def cue_scores(papers, labels, cues):
    """Per paper, per class: summed cue matches, each cue weighted by how specific it is."""
    cue_keys = defaultdict(set)
    for label, phrases in cues.items():
        area, sub = parse_topic_label(label)
        for phrase in [sub or "", *phrases]:
            key = canonical_key(phrase)
            if key and (area, sub) in labels:
                cue_keys[key].add(labels.index((area, sub)))
    grams_per_paper = []
    df = Counter()
    for title, abstract in papers:
        grams = Counter()
        for weight, text in ((3, title), (1, abstract)):
            for run in segments(text):
                keys = [t.key for t in run]
                for n in range(1, 5):
                    for i in range(len(keys) - n + 1):
                        gram = " ".join(keys[i : i + n])
                        if gram in cue_keys:
                            grams[gram] += weight
        grams_per_paper.append(grams)
        df.update(set(grams))
    n = len(papers)
    scores = np.zeros((n, len(labels)))
    for row, grams in enumerate(grams_per_paper):
        for gram, count in grams.items():
            idf = math.log(n / (1 + df[gram]))
            classes = cue_keys[gram]
            for c in classes:
                scores[row, c] += (1 + math.log(count)) * idf / len(classes)
    return scores


def tfidf_matrix(term_counts, vectorizer=None, idf=None):
    if vectorizer is None:
        vectorizer = DictVectorizer()
        counts = vectorizer.fit_transform(term_counts)
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        idf = np.log((1 + counts.shape[0]) / (1 + df)) + 1.0
    else:
        counts = vectorizer.transform(term_counts)
    counts = counts.tocsr().astype(np.float64)
    counts.data = 1.0 + np.log(counts.data)
    counts = counts.multiply(idf).tocsr()
    norms = np.sqrt(counts.multiply(counts).sum(axis=1)).A1
    norms[norms == 0] = 1.0
    from scipy.sparse import diags
    return diags(1.0 / norms) @ counts, vectorizer, idf


def accuracy(model, labelled, taxonomy, threshold=None):
    from generator.topics import infer_topic
    area_hits = sub_hits = sub_total = 0
    for title, abstract, (area, sub) in labelled:
        topic = infer_topic(title, abstract, taxonomy, model, subarea_threshold=threshold)
        area_hits += topic.area == area
        if sub:
            sub_total += 1
            sub_hits += topic.area == area and topic.subarea == sub
    return area_hits / len(labelled), sub_hits / max(sub_total, 1)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iclr", type=Path, default=Path("/work/shared/datasets/iclr2025_submissions.jsonl.gz"))
    parser.add_argument("--out", type=Path, default=DATA / "topic_model.json.gz")
    parser.add_argument("--min-df", type=int, default=5)
    parser.add_argument("--C", type=float, default=4.0)
    parser.add_argument("--balanced", action="store_true", help="weight classes equally (default: as seeded)")
    args = parser.parse_args()

    taxonomy = load_taxonomy(DATA / "taxonomy.yaml")
    labels = taxonomy.labels()
    cues = yaml.safe_load((DATA / "topic_cues.yaml").read_text(encoding="utf-8"))
    papers = read_iclr(args.iclr)
    print(f"{len(papers)} unlabelled papers, {len(labels)} classes", file=sys.stderr)

    scores = cue_scores(papers, labels, cues)
    ranked = np.sort(scores, axis=1)
    best = scores.argmax(axis=1)
    seeded = (ranked[:, -1] >= 2.0) & (ranked[:, -1] >= 1.3 * ranked[:, -2])
    print(f"seeded {seeded.sum()} papers; classes covered {len(set(best[seeded]))}", file=sys.stderr)

    term_counts = [document_terms(t, a) for t, a in papers]
    df = Counter()
    for counts in term_counts:
        df.update(counts.keys())
    kept = {term for term, n in df.items() if n >= args.min_df}
    term_counts = [{t: c for t, c in counts.items() if t in kept} for counts in term_counts]
    X, vectorizer, idf = tfidf_matrix(term_counts)

    y = best.copy()
    mask = seeded.copy()
    for round_ in range(3):
        classifier = LogisticRegression(C=args.C, max_iter=200, class_weight=("balanced" if args.balanced else None))
        classifier.fit(X[mask], y[mask])
        proba = classifier.predict_proba(X)
        pred = classifier.classes_[proba.argmax(axis=1)]
        confident = proba.max(axis=1) >= 0.5
        # Seeds keep their cue label; confident predictions join them.
        y = np.where(seeded, best, pred)
        mask = seeded | confident
        print(f"round {round_}: training on {mask.sum()} papers, {len(set(y[mask]))} classes", file=sys.stderr)

    coef = np.zeros((len(labels), X.shape[1]))
    bias = np.full(len(labels), -10.0)
    coef[classifier.classes_] = classifier.coef_
    bias[classifier.classes_] = classifier.intercept_
    names = vectorizer.get_feature_names_out()
    cutoff = np.quantile(np.abs(coef[coef != 0]), 0.80)
    weights = {}
    for j in range(coef.shape[1]):
        column = coef[:, j]
        pairs = [[int(i), round(float(column[i]), 3)] for i in np.nonzero(np.abs(column) >= cutoff)[0]]
        if pairs:
            weights[str(names[j])] = pairs
    model_json = {
        "version": 1,
        "labels": [f"{a}{LABEL_SEPARATOR}{s}" for a, s in labels],
        "idf": {str(names[j]): round(float(idf[j]), 4) for j in range(len(names)) if str(names[j]) in weights},
        "weights": weights,
        "bias": [round(float(b), 4) for b in bias],
        "temperature": 1.0,
        "subarea_threshold": 0.3,
    }

    dev = []
    for line in (ROOT / "bench" / "labels" / "icml2025_sample.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("split") == "dev":
            dev.append((row["title"], row["abstract"], parse_topic_label(row["topic"])))
    model = model_from_json(model_json)
    area_acc, sub_acc = accuracy(model, dev, taxonomy, threshold=0.0)
    print(f"dev ({len(dev)}): area {area_acc:.2f}, sub-area {sub_acc:.2f}", file=sys.stderr)

    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as stream:
        json.dump(model_json, stream, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB, {len(weights)} terms)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
