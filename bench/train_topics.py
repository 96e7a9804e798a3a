"""Derive the topic model (generator/data/topic_model.npz) from labelled public data.

Offline, deterministic (fixed seeds), run by hand when the labelled data changes:
    python bench/train_topics.py [--iclr PATH] [--out PATH] [--grid] [--labels-dir DIR]

Data: ``TRAINING_FILES`` pooled: bench/labels/icml2025_{train,dev}.jsonl (ICML 2025 papers
with the conference's topic label; abstracts cut to their first 1-2 sentences) and
bench/labels/iclr2025_{train,dev}.jsonl (ICLR 2025 papers with the ICLR site's label mapped
to our taxonomy, full abstracts; built by bench/labels/build_iclr2025_topics.py). Every paper
of the bundled listings (corpus/*.txt) is left out (``bundled_papers``): the site shows
those, and the listed topics of corpus 003 are what ``papersite eval`` scores by leave-one-out.
The test splits are never read here.

Features: ``generator.enrich.topics.document_terms`` (title counted twice, word unigrams and
bigrams without stopwords), sublinear tf x idf, L2-normalised; abstracts cut to their first
2 sentences (``ABSTRACT_SENTENCES``), also at inference, so that full abstracts look like the
training text. Vocabulary and idf come from the labelled train texts plus the 11,672 ICLR 2025
titles + first 2 sentences (unlabelled; terms in >= 3 documents).

Model: two logistic-loss linear heads (SGD, multinomial via softmax of one-vs-rest scores):
a sub-area head over the 76 sub-areas (papers labelled with a sub-area) and a separate area
head over the 8 areas (every labelled paper, area-only labels included).

Selection and calibration use 5-fold cross-validation over the pooled papers (out-of-fold
predictions for all 2,576, each fold with its own vocabulary and idf): a single 303-paper dev
split had picked too strong a regularisation (its accuracy swung by 10 points from the test
split's). ``--grid`` prints the cross-validated accuracy of each regularisation pair and area mix
(how much of the area probability comes from the sub-area head's summed probabilities rather
than the area head); the defaults below are the best of it. Temperatures (NLL) and the sub-area threshold are fitted
on the out-of-fold scores, and so are the two calibration curves (isotonic regression: area
probability -> how often the area is right; sub-area probability -> how often area and
sub-area are both right) that make a shown confidence mean what it says. The exported model
is refitted on all pooled papers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.sparse import diags
from sklearn.feature_extraction import DictVectorizer
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import SGDClassifier

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.enrich.evaluate import confidence_bands  # noqa: E402
from generator.ingest.listing import read_listing  # noqa: E402
from generator.ingest.merge import SimilarityIndex  # noqa: E402
from generator.enrich.taxonomy import load_taxonomy  # noqa: E402
from generator.pages.record import parse_topic_label  # noqa: E402
from generator.enrich.topics import TopicModel, document_terms, first_sentences, save_model  # noqa: E402

DATA = ROOT / "generator" / "data"
LABELS = ROOT / "bench" / "labels"
ABSTRACT_SENTENCES = 2
MAX_WITHHELD_PRECISION = 0.10
FOLDS = 5
MIXES = (0.0, 0.3, 0.6, 0.8, 1.0)  # share of summed sub-area probabilities in the area
GRID = ((2e-4, 2e-5), (1e-4, 1e-5), (5e-5, 5e-6), (2e-5, 2e-6), (1e-5, 1e-6))  # (area, sub-area) alpha
# Labelled files pooled for training and CV; the test splits are never read here.
TRAINING_FILES = ("icml2025_train.jsonl", "icml2025_dev.jsonl", "iclr2025_train.jsonl", "iclr2025_dev.jsonl")
# A labelled paper is a paper of the bundled listings when it has the same normalised title
# as one, or when this share of the shorter abstract's word 3-shingles is in the other
# (the labelled abstracts may be cut to two sentences, so merge's Jaccard is too strict).
BUNDLED_CONTAINMENT = 0.5
MIN_BUNDLED_SHINGLES = 10


def read_iclr(path: Path) -> list[tuple[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        rows = [json.loads(line) for line in stream]
    return [(r.get("title") or "", r.get("abstract") or "") for r in rows]


def read_labelled(path: Path, labels, areas):
    """(title, abstract, area index, sub-area class index or -1) per row."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            area, sub = parse_topic_label(row["topic"])
            rows.append((row["title"], row.get("abstract") or "", areas.index(area), labels.index((area, sub)) if sub else -1))
    return rows


def bundled_papers(papers, corpus_dir: Path = ROOT / "corpus") -> set[int]:
    """Indices of the (title, abstract) papers that are papers of the bundled listings
    (``corpus_dir/*.txt``), found through merge.py's SimilarityIndex: the site shows those
    papers, so a model trained on their labels would be scored on its own training data."""
    index = SimilarityIndex()
    for path in sorted(corpus_dir.glob("*.txt")):
        for entry in read_listing(path).entries:
            index.add(entry.title, entry.abstract)
    listed = len(index.docs)
    for title, abstract in papers:
        index.add(title, abstract)
    found = set()
    for i in range(len(papers)):
        doc = index.docs[listed + i]
        for j in index.candidates(doc):
            if j >= listed:
                continue
            other = index.docs[j]
            if doc.title and doc.title == other.title:
                found.add(i)
                break
            smaller = min(len(doc.shingles), len(other.shingles))
            if smaller >= MIN_BUNDLED_SHINGLES and len(doc.shingles & other.shingles) >= BUNDLED_CONTAINMENT * smaller:
                found.add(i)
                break
    return found


def training_rows(labels, areas, labels_dir: Path = LABELS) -> tuple[list, int]:
    """The pooled labelled rows of TRAINING_FILES minus the papers of the bundled listings,
    and how many were left out."""
    rows = [row for name in TRAINING_FILES for row in read_labelled(labels_dir / name, labels, areas)]
    bundled = bundled_papers([(title, abstract) for title, abstract, _, _ in rows])
    return [row for i, row in enumerate(rows) if i not in bundled], len(bundled)


def term_counts(papers):
    return [document_terms(t, first_sentences(a, ABSTRACT_SENTENCES)) for t, a in papers]


def tfidf(counts, vectorizer, idf):
    X = vectorizer.transform(counts).tocsr().astype(np.float64)
    X.data = 1.0 + np.log(X.data)
    X = X.multiply(idf).tocsr()
    norms = np.sqrt(X.multiply(X).sum(axis=1)).A1
    norms[norms == 0] = 1.0
    return (diags(1.0 / norms) @ X).tocsr()


def fit(X, y, alpha, classes, weights=None):
    model = SGDClassifier(loss="log_loss", alpha=alpha, max_iter=30, tol=None, random_state=0)
    model.fit(X, y, sample_weight=weights)
    coef = np.zeros((classes, X.shape[1]))
    bias = np.full(classes, -30.0)
    coef[model.classes_] = model.coef_
    bias[model.classes_] = model.intercept_
    return coef, bias


def softmax(scores, temperature=1.0):
    scores = scores / temperature
    scores = scores - scores.max(axis=1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(scores, y):
    best = (float("inf"), 1.0)
    for t in np.arange(0.3, 3.01, 0.05):
        p = softmax(scores, t)
        best = min(best, (-np.mean(np.log(p[np.arange(len(y)), y] + 1e-12)), float(t)))
    return best[1]


def predict(P_sub, P_area, of_class, mix):
    n_areas = of_class.max() + 1
    summed = np.zeros((len(P_sub), n_areas))
    for c in range(len(of_class)):
        summed[:, of_class[c]] += P_sub[:, c]
    area_p = summed if P_area is None else mix * summed + (1 - mix) * P_area
    area = area_p.argmax(axis=1)
    within = np.where(of_class[None, :] == area[:, None], P_sub, 0.0)
    sub = within.argmax(axis=1)
    sub_conf = area_p[np.arange(len(area)), area] * within.max(axis=1) / np.maximum(within.sum(axis=1), 1e-12)
    return area, area_p.max(axis=1), sub, sub_conf


def accuracy(area, sub, rows):
    ya = np.array([r[2] for r in rows])
    ys = np.array([r[3] for r in rows])
    m = ys >= 0
    return float((area == ya).mean()), float(((sub == ys) & m).sum() / m.sum())


def isotonic_curve(confidence: np.ndarray, right: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Monotone map from a probability to how often answers at that probability are right
    (fitted on out-of-fold answers): the breakpoints ``calibrate`` interpolates between."""
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(confidence, right.astype(float))
    return tuple(float(x) for x in fitted.X_thresholds_), tuple(float(y) for y in fitted.y_thresholds_)


def band_report(what: str, confidence: np.ndarray, right: np.ndarray) -> str:
    bands = confidence_bands(list(zip(confidence.tolist(), right.tolist())))
    return f"  {what}: " + "; ".join(
        f"{b['band']}: {b['n']} at mean {b['mean_confidence']:.2f}, {b['accuracy']:.1%} right" for b in bands if b["n"]
    )


def prune(coef, keep):
    if keep >= 1:
        return coef
    cutoff = np.quantile(np.abs(coef[coef != 0]), 1 - keep)
    return np.where(np.abs(coef) >= cutoff, coef, 0.0)


def fold_of(rows, folds: int) -> np.ndarray:
    """Fold per row: rows sorted by (area, title) and dealt round-robin, so every fold holds
    each area in proportion; deterministic and independent of file order."""
    order = sorted(range(len(rows)), key=lambda i: (rows[i][2], rows[i][0]))
    fold = np.zeros(len(rows), dtype=int)
    for rank, i in enumerate(order):
        fold[i] = rank % folds
    return fold


def vectorise(counts_fit, counts_unlabelled, min_df):
    """(DictVectorizer, idf) over the labelled fitting texts plus the unlabelled ones."""
    df = Counter()
    for counts in counts_fit + counts_unlabelled:
        df.update(counts.keys())
    vectorizer = DictVectorizer().fit([{t: 1 for t, n in df.items() if n >= min_df}])
    n_docs = len(counts_fit) + len(counts_unlabelled)
    idf = np.array([np.log((1 + n_docs) / (1 + df[t])) + 1.0 for t in vectorizer.get_feature_names_out()])
    return vectorizer, idf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iclr", type=Path, default=Path("/work/shared/datasets/iclr2025_submissions.jsonl.gz"))
    parser.add_argument("--out", type=Path, default=DATA / "topic_model.npz")
    parser.add_argument("--min-df", type=int, default=3)
    parser.add_argument("--area-alpha", type=float, default=5e-5)
    parser.add_argument("--sub-alpha", type=float, default=5e-6)
    parser.add_argument("--area-mix", type=float, default=0.6, help="share of summed sub-area probabilities in the area probability")
    parser.add_argument("--keep", type=float, default=0.3, help="share of the largest weights kept")
    parser.add_argument("--grid", action="store_true", help="print cross-validated accuracy per regularisation pair, do not export")
    parser.add_argument("--labels-dir", type=Path, default=LABELS, help="folder of the TRAINING_FILES")
    args = parser.parse_args(argv)

    taxonomy = load_taxonomy(DATA / "taxonomy.yaml")
    labels = taxonomy.labels()
    areas = list(taxonomy.area_names)
    of_class = np.array([areas.index(a) for a, _ in labels])
    rows, left_out = training_rows(labels, areas, args.labels_dir)
    iclr = read_iclr(args.iclr)
    print(
        f"{len(rows)} labelled ({left_out} papers of the bundled listings left out), {len(iclr)} ICLR (unlabelled), "
        f"{len(labels)} sub-areas, {FOLDS}-fold CV",
        file=sys.stderr,
    )

    counts = term_counts([(t, a) for t, a, _, _ in rows])
    c_iclr = term_counts(iclr)
    ya = np.array([r[2] for r in rows])
    ys = np.array([r[3] for r in rows])
    fold = fold_of(rows, FOLDS)

    def heads(X, ya, ys, area_alpha, sub_alpha):
        s = fit(X[ys >= 0], ys[ys >= 0], sub_alpha, len(labels))
        a = fit(X, ya, area_alpha, len(areas))
        return (prune(s[0], args.keep), s[1]), (prune(a[0], args.keep), a[1])

    def out_of_fold(area_alpha, sub_alpha):
        """Sub-area and area scores of every row from the model that never saw it."""
        S, SA = np.zeros((len(rows), len(labels))), np.zeros((len(rows), len(areas)))
        for k in range(FOLDS):
            fit_rows, held = np.nonzero(fold != k)[0], np.nonzero(fold == k)[0]
            vectorizer, idf = vectorise([counts[i] for i in fit_rows], c_iclr, args.min_df)
            X = tfidf([counts[i] for i in fit_rows], vectorizer, idf)
            Xh = tfidf([counts[i] for i in held], vectorizer, idf)
            (sc, sb), (ac, ab) = heads(X, ya[fit_rows], ys[fit_rows], area_alpha, sub_alpha)
            S[held], SA[held] = Xh @ sc.T + sb, Xh @ ac.T + ab
        return S, SA

    if args.grid:
        for area_alpha, sub_alpha in GRID:
            S, SA = out_of_fold(area_alpha, sub_alpha)
            for mix in MIXES:
                area, _, sub, _ = predict(softmax(S), softmax(SA), of_class, mix)
                a, s = accuracy(area, sub, rows)
                print(f"alpha area {area_alpha:g} sub-area {sub_alpha:g}, area mix {mix}: CV area {a:.3f} sub-area {s:.3f}")
        return 0

    S, SA = out_of_fold(args.area_alpha, args.sub_alpha)
    has_sub = ys >= 0
    t_sub = fit_temperature(S[has_sub], ys[has_sub])
    t_area = fit_temperature(SA, ya)
    area, area_conf, sub, sub_conf = predict(softmax(S, t_sub), softmax(SA, t_area), of_class, args.area_mix)
    acc = accuracy(area, sub, rows)
    print(f"CV (pruned as exported): area {acc[0]:.3f} sub-area {acc[1]:.3f}; temperatures {t_sub:.2f} / {t_area:.2f}", file=sys.stderr)
    print(band_report("area, uncalibrated", area_conf, area == ya), file=sys.stderr)
    # Threshold: withhold a sub-area only where the guesses withheld would be right less than
    # one time in ten (CV): below that a sub-area misleads more than it helps. Above it the
    # page shows the sub-area, with an "uncertain" marker at low confidence.
    threshold, withheld_right = 0.0, 0.0
    for candidate in np.arange(0.02, 0.61, 0.02):
        withheld = (sub_conf < candidate) & has_sub
        precision = float(((area == ya) & (sub == ys))[withheld].mean()) if withheld.any() else 0.0
        if precision >= MAX_WITHHELD_PRECISION:
            break
        threshold, withheld_right = float(round(candidate, 2)), precision
    full = sub_conf >= threshold
    sub_acc = float((full & (area == ya) & (sub == ys))[has_sub].mean())
    print(
        f"sub-area threshold {threshold:.2f} (CV: sub-area {sub_acc:.3f}; {int((~full).sum())} area-only answers of {len(rows)}, "
        f"their withheld guesses {withheld_right:.1%} right)",
        file=sys.stderr,
    )
    # Calibration curves on the out-of-fold answers: the area confidence against area right;
    # a sub-area answer's confidence against area and sub-area right (papers labelled with a
    # sub-area only: for the others a sub-area answer cannot be judged).
    area_curve = isotonic_curve(area_conf, area == ya)
    judged = full & has_sub
    sub_curve = isotonic_curve(sub_conf[judged], ((area == ya) & (sub == ys))[judged])
    shown = np.where(judged, np.interp(sub_conf, *sub_curve), np.interp(area_conf, *area_curve))
    answer_right = np.where(judged, (area == ya) & (sub == ys), area == ya)
    answered = judged | ~full
    print(band_report("area, calibrated", np.interp(area_conf, *area_curve), area == ya), file=sys.stderr)
    print(band_report("whole answer, calibrated", shown[answered], answer_right[answered]), file=sys.stderr)

    # Export: refit on every labelled paper with the chosen settings.
    vectorizer, idf = vectorise(counts, c_iclr, args.min_df)
    X = tfidf(counts, vectorizer, idf)
    (sc, sb), (ac, ab) = heads(X, ya, ys, args.area_alpha, args.sub_alpha)
    names = vectorizer.get_feature_names_out()
    used = np.nonzero((np.abs(sc).sum(axis=0) + np.abs(ac).sum(axis=0)) > 0)[0]
    model = TopicModel.from_dense(
        labels=tuple(labels), terms=tuple(str(names[j]) for j in used), idf=idf[used],
        coef=sc[:, used].T, bias=sb, temperature=t_sub, subarea_threshold=threshold,
        area_labels=tuple(areas), area_coef=ac[:, used].T, area_bias=ab, area_temperature=t_area,
        area_mix=args.area_mix, abstract_sentences=ABSTRACT_SENTENCES,
        area_calibration=area_curve, subarea_calibration=sub_curve,
    )
    save_model(model, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB, {len(used)} terms)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
