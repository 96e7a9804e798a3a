"""Evaluation (``papersite eval``): how far to trust inferred topics and keywords.

In:  the site's paper pages (or, before the first import, its listings) and any
     ``--labels`` JSONL files (title, abstract, topic ``Area · Sub-area``).
Out: one report (text, or one JSON object with ``--json``) with topic accuracy
     by leave-one-out on papers whose topic came from a listing and on each
     labels file, accuracy per confidence band, and keyword statistics.

Leave-one-out: the topic model is fixed data and never trained on the site's
papers, so predicting each listed paper from the model alone is a held-out
prediction; the paper's own label is never an input.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.config import ProjectConfig
from generator.enrich.keywords import extract_keywords
from generator.pages.folder import read_pages
from generator.enrich.taxonomy import Taxonomy, load_taxonomy
from generator.enrich.topics import infer_topics, load_topic_model
from generator.inputs import MAX_LISTING_BYTES, InputError, load_json, read_capped, readable_file
from generator.pages.record import Topic, parse_topic_label
from generator.pages.schema import topic_problem
from generator.problems import PapersiteError

CONFIDENCE_BANDS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.0001))


@dataclass(frozen=True)
class LabelledPaper:
    title: str
    abstract: str
    area: str
    subarea: str | None


def papers_from_pages(config: ProjectConfig) -> list[tuple[str, str, list[str], Any]]:
    """(title, abstract, keywords, topic) of every page whose fields are valid; the problems of the others are printed."""
    pages = read_pages(config)
    for problem in pages.errors():
        print(f"papersite eval: {problem}", file=sys.stderr)
    return [(r.title, r.abstract or "", list(r.keywords), r.topic) for r in pages.records]


def papers_from_listings(corpus_dir: Path) -> list[tuple[str, str, list[str], Any]]:
    """Papers straight from the listings, for a site that has not imported yet."""
    from generator.ingest.listing import read_listing

    found, seen = [], set()
    for path in sorted(corpus_dir.iterdir()) if corpus_dir.is_dir() else []:
        try:
            listing = read_listing(path)
        except PapersiteError:
            continue
        for entry in listing.entries:
            identity = ((entry.title or "").casefold(), (entry.abstract or "").casefold()[:200])
            if identity in seen:
                continue
            seen.add(identity)
            found.append((entry.title or "", entry.abstract or "", [], entry.topic))
    return found


LABELS_ROW = "expected a JSON object with title, abstract and topic ('Area · Sub-area')"


def read_labels(path: Path, taxonomy: Taxonomy) -> list[LabelledPaper]:
    """A ``--labels`` file (JSON Lines); ``PapersiteError`` at the line of the first row that is not
    a labelled paper of ``taxonomy``.

    Lines are split at ``\\n`` only (a ``\\r`` before it is dropped): JSON allows U+2028 and other
    characters ``str.splitlines`` breaks at inside a string, and a line number must be the one an
    editor shows. A label outside the taxonomy could never be predicted, so it is refused as a typo
    rather than counted as a miss; a file without one labelled paper measures nothing and is refused.
    """
    data = read_capped(readable_file(path, None), MAX_LISTING_BYTES, "labels file")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark, as listings allow
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise PapersiteError.at(path, line, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    labelled = [_labelled_row(path, number, line.removesuffix("\r"), taxonomy)
                for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not labelled:
        raise PapersiteError.at(path, 1, f"no labelled paper; {LABELS_ROW}, one per line")
    return labelled


def _labelled_row(path: Path, number: int, line: str, taxonomy: Taxonomy) -> LabelledPaper:
    try:
        row = load_json(line, number)
    except InputError as error:
        raise PapersiteError.at(path, number, f"{LABELS_ROW}: {error.message}") from None
    topic = row.get("topic") if isinstance(row, dict) else None
    if not isinstance(topic, str) or not all(isinstance(row.get(k, ""), str) for k in ("title", "abstract")):
        raise PapersiteError.at(path, number, LABELS_ROW)
    area, subarea = parse_topic_label(topic)
    problem = topic_problem(area, subarea) or taxonomy.topic_problem(Topic(area, subarea, "labels"))
    if problem:
        raise PapersiteError.at(path, number, f"{LABELS_ROW}: {problem}")
    return LabelledPaper(row.get("title") or "", row.get("abstract") or "", area, subarea)


def topic_accuracy(labelled: list[LabelledPaper], taxonomy: Taxonomy) -> dict[str, Any]:
    """Area and sub-area accuracy of the inferred topic, plus accuracy per confidence band.

    Sub-area accuracy is over papers labelled with a sub-area and counts an
    area-only answer as wrong, so abstaining is never rewarded. Calibration
    counts an answer right when it is right at the level it claims (area only,
    or area and sub-area); area calibration scores the area confidence alone.
    """
    model = load_topic_model()
    area_hits = sub_hits = sub_total = abstained = 0
    claimed: list[tuple[float, bool]] = []  # (confidence of the whole answer, right at the level it claims)
    areas: list[tuple[float, bool]] = []  # (confidence of the area alone, area right)
    topics = infer_topics([(paper.title, paper.abstract) for paper in labelled], taxonomy, model)
    for paper, topic in zip(labelled, topics):
        if topic is None:
            continue
        area_right = topic.area == paper.area
        area_hits += area_right
        if paper.subarea:
            sub_total += 1
            sub_hits += area_right and topic.subarea == paper.subarea
        abstained += topic.subarea is None
        confidence = topic.confidence or 0.0
        claimed.append((confidence, area_right and (topic.subarea is None or topic.subarea == paper.subarea)))
        areas.append((confidence if topic.area_confidence is None else topic.area_confidence, area_right))
    return {
        "papers": len(labelled),
        "area_accuracy": round(area_hits / len(labelled), 3) if labelled else None,
        "subarea_accuracy": round(sub_hits / sub_total, 3) if sub_total else None,
        "papers_with_subarea": sub_total,
        "area_only_answers": abstained,
        "calibration": confidence_bands(claimed),
        "area_calibration": confidence_bands(areas),
    }


def confidence_bands(answers: list[tuple[float, bool]]) -> list[dict[str, Any]]:
    """Accuracy and mean confidence of the answers in each confidence band."""
    bands = []
    for lo, hi in CONFIDENCE_BANDS:
        inside = [(c, right) for c, right in answers if lo <= c < hi]
        n = len(inside)
        bands.append(
            {
                "band": f"{lo:.1f}-{min(hi, 1.0):.1f}",
                "n": n,
                "accuracy": round(sum(right for _, right in inside) / n, 3) if n else None,
                "mean_confidence": round(sum(c for c, _ in inside) / n, 3) if n else None,
            }
        )
    return bands


def keyword_statistics(keyword_lists: list[list[str]]) -> dict[str, Any]:
    uses = Counter(k for keywords in keyword_lists for k in set(keywords))
    per_paper = Counter(len(keywords) for keywords in keyword_lists)
    return {
        "papers": len(keyword_lists),
        "keywords_per_paper": {str(n): per_paper[n] for n in sorted(per_paper)},
        "papers_with_fewer_than_3": sum(c for n, c in per_paper.items() if n < 3),
        "distinct_keywords": len(uses),
        "share_used_by_2_or_more": round(sum(1 for n in uses.values() if n >= 2) / len(uses), 3) if uses else None,
        "top_30": [[k, n] for k, n in sorted(uses.items(), key=lambda item: (-item[1], item[0]))[:30]],
    }


def build_report(config: ProjectConfig, label_files: list[Path]) -> dict[str, Any]:
    taxonomy = load_taxonomy(config.taxonomy_file)
    # every labels file is read before the pages: a typo in one ends the run at once
    labels = {str(path): read_labels(path, taxonomy) for path in label_files}
    papers = papers_from_pages(config)
    source = "pages"
    if not papers:
        papers = papers_from_listings(config.corpus_dir)
        source = "listings"
    listed = [
        LabelledPaper(title, abstract, topic.area, topic.subarea)
        for title, abstract, _, topic in papers
        if topic is not None and topic.source == "listing"
    ]
    keyword_lists = [keywords for _, _, keywords, _ in papers]
    if source == "listings" or not any(keyword_lists):
        # Nothing imported yet: measure what enrichment would propose.
        keyword_lists = extract_keywords([(title, abstract) for title, abstract, _, _ in papers])
    report: dict[str, Any] = {
        "source": source,
        "taxonomy": str(config.taxonomy_file),
        "topics_leave_one_out": topic_accuracy(listed, taxonomy),
        "topics_labels": {path: topic_accuracy(labelled, taxonomy) for path, labelled in labels.items()},
        "keywords": keyword_statistics(keyword_lists),
    }
    return report


def _format_topics(name: str, result: dict[str, Any]) -> list[str]:
    lines = [f"{name}: {result['papers']} papers"]
    if not result["papers"]:
        return lines
    lines.append(
        f"  area accuracy {result['area_accuracy']:.1%}; sub-area accuracy "
        + (f"{result['subarea_accuracy']:.1%}" if result["subarea_accuracy"] is not None else "n/a")
        + f" (of {result['papers_with_subarea']}); area-only answers {result['area_only_answers']}"
    )
    for title, key in (("confidence (whole answer)", "calibration"), ("area confidence", "area_calibration")):
        lines.append(f"  {title}:")
        for band in result[key]:
            if band["n"]:
                lines.append(f"    {band['band']}: {band['n']:4d} papers, accuracy {band['accuracy']:.1%}, mean confidence {band['mean_confidence']:.2f}")
    return lines


def format_report(report: dict[str, Any]) -> str:
    lines = [f"papersite eval (papers from {report['source']}; taxonomy {report['taxonomy']})", ""]
    lines += _format_topics("Topics, leave-one-out on listed topics", report["topics_leave_one_out"])
    for path, result in report["topics_labels"].items():
        lines += _format_topics(f"Topics, labels {path}", result)
    k = report["keywords"]
    lines += [
        "",
        f"Keywords: {k['papers']} papers, {k['distinct_keywords']} distinct keywords",
        "  per paper: " + ", ".join(f"{n}: {c}" for n, c in k["keywords_per_paper"].items()),
        f"  papers with fewer than 3: {k['papers_with_fewer_than_3']}",
        "  share of keywords used by >= 2 papers: " + (f"{k['share_used_by_2_or_more']:.1%}" if k["share_used_by_2_or_more"] is not None else "n/a"),
        "  top 30: " + ", ".join(f"{name} ({n})" for name, n in k["top_30"]),
    ]
    return "\n".join(lines)


def run_eval(args: Any, config: ProjectConfig) -> int:
    """``papersite eval``; a bad labels file raises ``PapersiteError`` (``path:line: message``, exit 2)."""
    report = build_report(config, list(args.labels))
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    return 0
