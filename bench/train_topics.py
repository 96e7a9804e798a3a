"""Derive the topic model (generator/data/topic_model.npz) from public data.

Offline, deterministic, run by hand when the cue vocabulary or the data changes:
    python bench/train_topics.py [--iclr PATH] [--out PATH] [--cv]

1. Seed labels: score every ICLR 2025 submission (title + abstract, no topics)
   against the hand-written cue phrases of each sub-area
   (generator/data/topic_cues.yaml); keep papers whose best sub-area clearly wins.
2. Self-training: fit a multinomial logistic regression on TF-IDF features of the
   seeded papers plus the labelled ICML 2025 *train* split
   (bench/labels/icml2025_train.jsonl, weighted ``--label-weight`` times an ICLR
   paper), relabel every ICLR paper with it, keep confident ones and refit.
3. Prior shift: the ICLR pseudo-labels are not distributed like ICML topics; the
   class biases are moved towards the labelled class frequencies (``--prior``).
4. Export pruned term weights as compact arrays; the softmax temperature and the
   sub-area threshold are fitted on cross-validated predictions of the train split.
   ``--cv`` reports k-fold accuracy on the train split (for tuning).
   The held-out split (bench/labels/icml2025_heldout.jsonl) and corpus 003 are
   never read here.
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
from sklearn.linear_model import SGDClassifier

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.keywords import canonical_key, segments  # noqa: E402
from generator.taxonomy import LABEL_SEPARATOR, load_taxonomy, parse_topic_label  # noqa: E402
from generator.topics import document_terms, save_model, TopicModel  # noqa: E402

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



def read_labelled(path: Path, labels) -> list[tuple[str, str, int | None, str]]:
    """(title, abstract, class index or None for an area-only label, area) of each row."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        area, sub = parse_topic_label(row["topic"])
        index = labels.index((area, sub)) if (area, sub) in labels else None
        rows.append((row["title"], row.get("abstract") or "", index, area))
    return rows


def fit(X, y, weights, C, classes):
    # Logistic loss by SGD (one-vs-rest): seconds instead of minutes for lbfgs on 76
    # classes, and deterministic with a fixed seed. ``C`` maps to alpha = 1 / (C * n).
    classifier = SGDClassifier(loss="log_loss", alpha=1.0 / (C * X.shape[0]), max_iter=20, tol=None, random_state=0)
    classifier.fit(X, y, sample_weight=weights)
    coef = np.zeros((classes, X.shape[1]))
    bias = np.full(classes, -10.0)
    coef[classifier.classes_] = classifier.coef_
    bias[classifier.classes_] = classifier.intercept_
    return coef, bias


def self_train(X_u, seeded, best, X_l, y_l, args, classes, rounds):
    """Cue-seeded self-training on the unlabelled papers, anchored by the labelled ones."""
    from scipy.sparse import vstack

    y = best.copy()
    mask = seeded.copy()
    for round_ in range(rounds):
        X = vstack([X_u[mask], X_l]).tocsr()
        yy = np.concatenate([y[mask], y_l])
        w = np.concatenate([np.ones(mask.sum()), np.full(len(y_l), args.label_weight)])
        coef, bias = fit(X, yy, w, args.C, classes)
        scores = X_u @ coef.T + bias
        scores -= scores.max(axis=1, keepdims=True)
        proba = np.exp(scores)
        proba /= proba.sum(axis=1, keepdims=True)
        pred = proba.argmax(axis=1)
        y = np.where(seeded, best, pred)
        mask = seeded | (proba.max(axis=1) >= 0.5)
        print(f"  round {round_}: {mask.sum()} unlabelled + {len(y_l)} labelled papers", file=sys.stderr)
    return coef, bias


def shift_prior(coef, bias, X_u, y_l, strength, classes):
    """Move the biases so the mean predicted class mass on the unlabelled papers follows
    a mix of the labelled class frequencies (smoothed) and the model's own."""
    if strength <= 0:
        return bias
    counts = np.bincount(y_l, minlength=classes) + 0.1
    target = counts / counts.sum()
    bias = bias.copy()
    for _ in range(20):
        scores = X_u @ coef.T + bias
        scores -= scores.max(axis=1, keepdims=True)
        proba = np.exp(scores)
        proba /= proba.sum(axis=1, keepdims=True)
        current = proba.mean(axis=0)
        goal = np.exp((1 - strength) * np.log(current) + strength * np.log(target))
        goal /= goal.sum()
        bias += np.log(goal / current)
    return bias


def probabilities(X, coef, bias, temperature=1.0):
    scores = (X @ coef.T + bias) / temperature
    scores -= scores.max(axis=1, keepdims=True)
    proba = np.exp(scores)
    return proba / proba.sum(axis=1, keepdims=True)


def area_index(labels):
    areas = []
    for area, _ in labels:
        if area not in areas:
            areas.append(area)
    return areas, np.array([areas.index(a) for a, _ in labels])


def scores_for(proba, rows, labels):
    areas, of_class = area_index(labels)
    area_mass = np.zeros((proba.shape[0], len(areas)))
    for c in range(len(labels)):
        area_mass[:, of_class[c]] += proba[:, c]
    area_pred = area_mass.argmax(axis=1)
    area_hits = sub_hits = sub_total = 0
    for i, (_, _, cls, area) in enumerate(rows):
        area_hits += areas[area_pred[i]] == area
        if cls is not None:
            sub_total += 1
            within = np.where(of_class == area_pred[i], proba[i], -1)
            sub_hits += int(within.argmax()) == cls
    return area_hits / len(rows), sub_hits / max(sub_total, 1)


def prune(coef, keep):
    if keep >= 1:
        return coef
    cutoff = np.quantile(np.abs(coef[coef != 0]), 1 - keep)
    return np.where(np.abs(coef) >= cutoff, coef, 0.0)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iclr", type=Path, default=Path("/work/shared/datasets/iclr2025_submissions.jsonl.gz"))
    parser.add_argument("--labels", type=Path, default=ROOT / "bench" / "labels" / "icml2025_train.jsonl")
    parser.add_argument("--out", type=Path, default=DATA / "topic_model.npz")
    parser.add_argument("--min-df", type=int, default=3)
    parser.add_argument("--C", type=float, default=4.0)
    parser.add_argument("--label-weight", type=float, default=60.0)
    parser.add_argument("--prior", type=float, default=0.0, help="0: ICLR pseudo-label prior, 1: labelled class frequencies")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=float, default=0.25, help="share of the largest weights kept")
    parser.add_argument("--cv", type=int, default=0, help="k-fold CV on the train split instead of exporting")
    args = parser.parse_args()

    taxonomy = load_taxonomy(DATA / "taxonomy.yaml")
    labels = taxonomy.labels()
    classes = len(labels)
    cues = yaml.safe_load((DATA / "topic_cues.yaml").read_text(encoding="utf-8"))
    papers = read_iclr(args.iclr)
    labelled = read_labelled(args.labels, labels)
    print(f"{len(papers)} unlabelled papers, {len(labelled)} labelled, {classes} classes", file=sys.stderr)

    scores = cue_scores(papers, labels, cues)
    ranked = np.sort(scores, axis=1)
    best = scores.argmax(axis=1)
    seeded = (ranked[:, -1] >= 2.0) & (ranked[:, -1] >= 1.3 * ranked[:, -2])
    print(f"seeded {seeded.sum()} papers; classes covered {len(set(best[seeded]))}", file=sys.stderr)

    counts_u = [document_terms(t, a) for t, a in papers]
    counts_l = [document_terms(t, a) for t, a, _, _ in labelled]
    df = Counter()
    for counts in counts_u + counts_l:
        df.update(counts.keys())
    kept = {term for term, n in df.items() if n >= args.min_df}
    counts_u = [{t: c for t, c in counts.items() if t in kept} for counts in counts_u]
    counts_l = [{t: c for t, c in counts.items() if t in kept} for counts in counts_l]
    X_u, vectorizer, idf = tfidf_matrix(counts_u)
    X_l, _, _ = tfidf_matrix(counts_l, vectorizer, idf)
    y_all = np.array([-1 if cls is None else cls for _, _, cls, _ in labelled])
    with_sub = y_all >= 0

    # Pseudo-labels of the unlabelled papers: cue seeds, then self-training (once).
    coef, bias = self_train(X_u, seeded, best, X_l[:0], y_all[:0], args, classes, args.rounds)
    proba_u = probabilities(X_u, coef, bias)
    y_u = np.where(seeded, best, proba_u.argmax(axis=1))
    mask_u = seeded | (proba_u.max(axis=1) >= 0.5)
    from scipy.sparse import vstack

    def train(train_idx):
        """One fit on the pseudo-labelled papers plus the labelled ones (weighted)."""
        idx = np.array([i for i in train_idx if with_sub[i]], dtype=int)
        X = vstack([X_u[mask_u], X_l[idx]]).tocsr()
        y = np.concatenate([y_u[mask_u], y_all[idx]])
        w = np.concatenate([np.ones(mask_u.sum()), np.full(len(idx), args.label_weight)])
        coef, bias = fit(X, y, w, args.C, classes)
        bias = shift_prior(coef, bias, X_u, y_all[idx], args.prior, classes)
        return prune(coef, args.keep), bias

    # Out-of-fold predictions of the train split: for --cv reports and for the temperature.
    folds = max(args.cv, 4)
    order = np.arange(len(labelled))
    fold_of = order % folds
    oof = np.zeros((len(labelled), classes))
    for k in range(folds):
        coef, bias = train(order[fold_of != k])
        oof[fold_of == k] = probabilities(X_l[fold_of == k], coef, bias)
    area_acc, sub_acc = scores_for(oof, labelled, labels)
    print(f"{folds}-fold CV on train ({len(labelled)}): area {area_acc:.3f}, sub-area {sub_acc:.3f}", file=sys.stderr)
    if args.cv:
        return 0
    # Temperature: minimise the negative log-likelihood of the out-of-fold scores.
    logits = np.log(np.clip(oof, 1e-12, 1))
    best_t, best_nll = 1.0, float("inf")
    for t in np.arange(0.5, 3.01, 0.1):
        p = probabilities(logits[with_sub], np.eye(classes), np.zeros(classes), t)
        nll = -np.mean(np.log(p[np.arange(with_sub.sum()), y_all[with_sub]] + 1e-12))
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    print(f"temperature {best_t:.1f}", file=sys.stderr)

    coef, bias = train(order)
    names = vectorizer.get_feature_names_out()
    used = np.nonzero(np.abs(coef).sum(axis=0) > 0)[0]
    model = TopicModel.from_dense(
        labels=tuple(labels),
        terms=tuple(str(names[j]) for j in used),
        idf=idf[used],
        coef=coef[:, used].T,
        bias=bias,
        temperature=best_t,
        subarea_threshold=0.3,
    )
    save_model(model, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB, {len(used)} terms)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
