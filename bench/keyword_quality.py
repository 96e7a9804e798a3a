"""Keyword quality: precision and recall against authors' own OpenReview keywords, and an audit of a corpus.

In: ``bench/labels/openreview_keywords_iclr2018.jsonl`` (built by ``bench/labels/build_keyword_labels.py``
from public OpenReview metadata; each split is keyworded as a corpus of its own, as an import would), and
the paper pages of a project (``--project``, default this repository) for the audit.

Out (figures only):
- per split: micro precision (share of generated keywords that the authors also gave) and recall (share
  of the authors' keywords generated), and the same per paper averaged. A generated and an author's
  keyword match when they spell the same key (lower case, singular, hyphen = space) or when the author's
  is an acronym the vocabulary lists for the generated one ("GAN"). Authors' keywords are free text
  ("deep learning", "theory"), so absolute figures are low; what matters is before/after.
- audit of the project's corpus, keyworded afresh from its titles and abstracts: fragments and names
  (phrases with "et"/"al", a verb at either end), a broad term beside its narrower form ("diffusion" and
  "diffusion models"), papers tagged "image restoration" or "data augmentation" whose text never says
  restoration / augmentation, and papers whose keywords are all broad (used by more than 10% of papers).

    python bench/keyword_quality.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.config import load_config  # noqa: E402
from generator.enrich.keywords import extract_keywords  # noqa: E402
from generator.enrich.vocabulary import keyword_key, load_vocabulary  # noqa: E402
from generator.pages.record import read_page  # noqa: E402

LABELS = Path(__file__).resolve().parent / "labels" / "openreview_keywords_iclr2018.jsonl"
BROAD_SHARE = 0.10
# Fragments the issue (#15) found on the bundled site, and the verbs that made them.
KNOWN_FRAGMENTS = ("hsu et", "pcee offer", "condition hold", "contain noisy", "orientation ax", "ai assessor optimise")


def _key(keyword: str, vocabulary) -> str:
    stripped = keyword.strip()
    acronym = stripped[:-1] if stripped.endswith("s") and stripped[:-1].isupper() else stripped
    if acronym.upper() in vocabulary.by_acronym and len(acronym) <= 8 and " " not in acronym:
        return vocabulary.by_acronym[acronym.upper()]
    return vocabulary.canonical(keyword)


def reference_scores(rows: list[dict]) -> dict:
    vocabulary = load_vocabulary()
    generated = extract_keywords([(r["title"], r["abstract"]) for r in rows])
    hits_generated = hits_reference = n_generated = n_reference = 0
    per_paper_p, per_paper_r = [], []
    for row, keywords in zip(rows, generated):
        mine = {_key(k, vocabulary) for k in keywords}
        theirs = {_key(k, vocabulary) for k in row["keywords"]}
        both = mine & theirs
        hits_generated += len(both)
        hits_reference += len(both)
        n_generated += len(mine)
        n_reference += len(theirs)
        per_paper_p.append(len(both) / len(mine) if mine else 0.0)
        per_paper_r.append(len(both) / len(theirs) if theirs else 0.0)
    return {
        "papers": len(rows),
        "precision": round(hits_generated / max(n_generated, 1), 4),
        "recall": round(hits_reference / max(n_reference, 1), 4),
        "precision_per_paper": round(sum(per_paper_p) / len(rows), 4),
        "recall_per_paper": round(sum(per_paper_r) / len(rows), 4),
        "keywords_per_paper": round(n_generated / len(rows), 2),
    }


def audit(papers: list[tuple[str, str]]) -> dict:
    keyword_lists = extract_keywords(papers)
    uses = Counter(k for ks in keyword_lists for k in set(ks))
    broad = {k for k, n in uses.items() if n > BROAD_SHARE * len(papers)}
    names = {k for k in uses if re.search(r"\b(et|al)\b", k)}
    keys = {keyword_key(k): k for k in uses}
    beside = sorted(f"{k} / {keys[longer]}" for k in uses for longer in keys
                    if " " not in keyword_key(k) and longer.startswith(keyword_key(k) + " ") and uses[keys[longer]] >= 5)
    unfounded = {}
    for keyword, stem in (("image restoration", "restor"), ("data augmentation", "augment")):
        tagged = [i for i, ks in enumerate(keyword_lists) if keyword in ks]
        unfounded[keyword] = {"tagged": len(tagged),
                              "text_never_says_it": sum(stem not in (papers[i][0] + " " + papers[i][1]).lower() for i in tagged)}
    return {
        "papers": len(papers),
        "distinct_keywords": len(uses),
        "known_fragments_present": sorted(set(KNOWN_FRAGMENTS) & set(uses)),
        "name_fragments": sorted(names),
        "single_word_beside_longer": beside[:40],
        "single_word_beside_longer_count": len(beside),
        "unfounded": unfounded,
        "broad_keywords": sorted(broad),
        "papers_with_only_broad_keywords": sum(all(k in broad for k in ks) for ks in keyword_lists),
        "share_used_by_2_or_more": round(sum(n >= 2 for n in uses.values()) / max(len(uses), 1), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    figures = {split: reference_scores([r for r in rows if r["split"] == split]) for split in ("dev", "test")}
    pages = [read_page(path) for path in sorted(load_config(args.project).papers_dir.glob("*.md"))]
    figures["audit"] = audit([(p.title, p.abstract or "") for p in pages])
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
