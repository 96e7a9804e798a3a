"""A small site built for the search and browsing tests: each paper is there for one case.

The bundled corpus has almost no authors and no decisions, and its papers were not
written to tell a good ranking from a bad one; these are. The test modules import
the ``search_site`` fixture from here (one build per session).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

import pytest

from conftest import _fail_on_error, papersite, serve

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: site_fixtures

from generator.pages.record import PaperRecord, SourceRef, Topic  # noqa: E402
from site_fixtures import write_project  # noqa: E402

GNN = Topic("Deep Learning", "Graph Neural Networks", "listing")
LLM = Topic("Deep Learning", "Large Language Models", "listing")
PROB = Topic("Probabilistic Methods", None, "listing")
FILLERS = 130  # more than one page of Explore results (100)
HOSTILE_TITLE = '<img src=x onerror="window.__pwned=1"> Hostile widgets <b>bold</b>'


def _paper(slug: str, title: str, abstract: str, **fields) -> PaperRecord:
    return PaperRecord(id=hashlib.sha1(slug.encode()).hexdigest()[:12], slug=slug, title=title, abstract=abstract,
                       sources=[SourceRef("test.jsonl", len(slug), "jsonl")], **fields)


def search_records() -> list[PaperRecord]:
    papers = [
        # every word of "graph safety": one in the title, one in the abstract
        _paper("graph-control", "Graph Networks for Robust Control", "We study the safety of learned controllers on road networks.",
               authors=["Ada Quill"], topic=GNN, keywords=["graph neural networks"], decision="Accept (Poster)"),
        # one word each, in the title: they outrank the paper above if words are ORed
        _paper("graph-partitioning", "Graph Partitioning with Graph Embeddings at Graph Scale", "Partitioning large graphs quickly.",
               authors=["Ben Stone"], topic=GNN, keywords=["graph neural networks"], decision="Reject"),
        _paper("safety-layers", "Safety Layers for Safety Critical Agents", "Layers that keep agents within bounds.",
               authors=["Cy Park"], topic=LLM, keywords=["large language models"], decision="Withdrawn"),
        # the phrase "reward model" and a paper with both words apart
        _paper("human-feedback", "Learning from Human Preferences", "We train a reward model on pairwise preferences of annotators.",
               authors=["Dee Moss"], topic=LLM, keywords=["large language models", "reinforcement learning"], decision="Accept (Poster)"),
        _paper("reward-signals", "Sparse Signals in Control", "A model of the reward is fitted by regression; reward shaping follows.",
               authors=["Eli Ford"], topic=PROB, keywords=["reinforcement learning"], decision="Reject"),
        # typo and prefix targets
        _paper("sparse-transformers", "Sparse Transformers for Long Documents", "Attention over long inputs.",
               authors=["Fay Lin"], topic=LLM, keywords=["transformers", "large language models"], decision="Accept (Oral)"),
        # an author's own paper, and a decoy whose abstract holds every word of the author's name
        _paper("weather-kernels", "Weather Prediction with Kernels", "Kernel regression for rainfall.",
               authors=["Angel Reyero Lobo", "Mei Tanaka"], topic=PROB, keywords=["kernel methods"], decision="Accept (Poster)"),
        _paper("spectral-clustering", "Spectral Clustering Revisited",
               "Following Reyero and Lobo, the angel estimator of the Lobo family clusters graphs.",
               authors=["Gil Noor"], topic=PROB, keywords=["clustering"], decision="Reject"),
        # partial keyword and author names
        _paper("compressing-teachers", "Compressing Teachers into Students", "Students learn from teachers.",
               authors=["Tommaso Cesari", "Lin Wu"], topic=LLM, keywords=["knowledge distillation", "large language models"], decision="Accept (Poster)"),
        _paper("condensing-datasets", "Condensing Datasets to a Few Images", "A small synthetic set trains as well as the full one.",
               authors=["Ana Cesari"], topic=GNN, keywords=["dataset distillation"], decision="Reject"),
        # the venue's title replaced a listing's (still found), authors known only alphabetically
        _paper("quadrimensional-view-synthesis", "Controlling Space and Time with Cascades",
               "Cascaded generators for four-dimensional view synthesis.", listed={"title": "Quadrimensional Novel View Synthesis"},
               authors=["Ann Abel", "Bo Berg", "Cal Cole", "Dan Dorn"], author_order="alphabetical", topic=LLM,
               keywords=["large language models"], decision="Accept (Poster)"),
        _paper("hostile-widgets", HOSTILE_TITLE, '<script>window.__pwned=2</script> Hostile widgets need <i>escaping</i>.',
               authors=["Mallory <b>Bold</b>"], topic=PROB, keywords=["calibration"], decision="Reject"),
    ]
    for n in range(FILLERS):
        papers.append(_paper(f"widget-study-{n:03d}", f"Widget Calibration Study {n}", f"We calibrate widgets in setting {n}.",
                             authors=[f"Filler Author{n % 7}"], topic=PROB if n % 2 else GNN, keywords=["calibration"],
                             decision="Accept (Poster)" if n % 3 == 0 else "Reject"))
    return papers


@pytest.fixture(scope="session")
def search_records_fixture() -> list[PaperRecord]:
    return search_records()


@pytest.fixture(scope="session")
def search_site(tmp_path_factory: pytest.TempPathFactory):
    project = write_project(tmp_path_factory.mktemp("search") / "project", search_records(), site_name="Search test")
    _fail_on_error(papersite("--project", str(project), "build", "--no-import", "--quiet"), "papersite build of the search site")
    return serve(project / "site")


def shards_needed(site_root: Path, index: str, words: list[str]) -> tuple[set[str], int]:
    """The shard files a query of these words needs in a built site's index ("index", "abstracts"),
    by the build's rule (search_index.py: its stems' shards, and the last word's as a prefix), and
    how many shards the index has."""
    from generator.site import search
    from generator.site.search_index import shard_of, shards_of_prefix

    data = (site_root / search.SHARDS_DIR / f"{index}-shards.json.gz").read_bytes()
    starts = json.loads(gzip.decompress(data))["starts"]
    terms = search._Terms()
    keys: set[int] = set()
    for i, word in enumerate(words):
        keys |= {shard_of(term, starts) for term in terms(word)}
        if i == len(words) - 1 and len(word) >= 3:  # search-worker.js PREFIX_MIN
            keys |= set(shards_of_prefix(word, starts))
    return {f"{index}-{k}.json.gz" for k in keys}, len(starts)
