"""Grow the real ICLR 2025 dataset into a benchmark corpus of any size (100k and beyond).

What is real: the first 11,672 papers are the real submissions, unchanged
(/work/shared/datasets/iclr2025_submissions.jsonl.gz). Every word of a
synthetic paper comes from them too: its title is a real title's head joined
to another real title's tail at a connective ("... for ...", "... via ..."),
sometimes behind a third title's "Name:" prefix; its abstract is a sequence of
real sentences -- a real opening sentence, middle sentences and a closing
sentence, each from a different paper -- as many as a real abstract has; its
authors are real names.

What is not: the combination. The sentences of one synthetic abstract come
from papers that share a content word of the title's source paper, so a
synthetic paper reads as about one subject and our enrichment gives it a topic
and keywords as it would a real one (the dataset has no keywords: they are
derived by the import from the text, so their distribution follows). The author
list keeps one to three members of a real team (the team's co-author overlap
carries over: the same names meet again across papers) and is filled to a
length drawn from the real length distribution with names drawn by their real
frequency. The decision is drawn from the real decisions. The id
(``openreview_url``, ``id=SYN...``) is made up and unique; no such forum exists.

Deterministic: papers are drawn in order, each from a generator seeded with
``(seed, i)``, so every run gives the same corpus and the first 50k papers of
the 100k corpus are the 50k corpus. No two papers share a
title key (``generator.text.title_key``), and no abstract repeats another's
opening and closing together, so the importer's merge stage keeps every paper
apart (bench/run.py prints pages written beside papers listed; at 100k: equal).

    python bench/corpus.py 100000 > /tmp/corpus.jsonl    # the listing, one JSON per line
"""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.text import title_key  # noqa: E402  (the importer's own title equality)

DATASET = REPO.parent / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz"
SEED = 31
# Words that join a title's head to its tail ("X for Y", "X via Y"): where two titles are cut and rejoined.
CONNECTIVES = ("for", "via", "with", "through", "using", "in", "from", "under", "without", "by", "of", "on")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_CONTENT_WORD = re.compile(r"[A-Za-z][A-Za-z-]{5,}")
_STOP = frozenset({"learning", "models", "model", "neural", "networks", "network", "towards", "toward",
                   "through", "without", "understanding", "improving", "efficient", "language", "large"})
# A subject's neighbourhood must hold this many papers, else any paper may give a sentence.
_MIN_NEIGHBOURS = 8


def real_records(dataset: Path = DATASET) -> list[dict[str, Any]]:
    with gzip.open(dataset, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _title_parts(title: str) -> tuple[str | None, str, str | None, str | None]:
    """(prefix before ': ', head, connective, tail); the cut is at the first connective after two words."""
    prefix, _, body = title.partition(": ") if ": " in title else (None, "", title)
    words = body.split()
    for position in range(2, len(words) - 1):
        if words[position].lower() in CONNECTIVES:
            return prefix, " ".join(words[:position]), words[position].lower(), " ".join(words[position + 1:])
    return prefix, body, None, None


def _sentences(abstract: str | None) -> list[str]:
    text = " ".join((abstract or "").split())
    return [s for s in _SENTENCE_END.split(text) if len(s) > 20] if text else []


class Grower:
    """Synthetic papers drawn from the real ones; ``paper(i)`` is the i-th, the same on every run."""

    def __init__(self, records: list[dict[str, Any]], seed: int = SEED) -> None:
        self.seed = seed
        self.records = records
        self.parts = [_title_parts(r["title"]) for r in records]
        self.with_tail = [i for i, p in enumerate(self.parts) if p[3]]
        self.prefixes = [p[0] for p in self.parts if p[0] and len(p[0].split()) <= 4]
        self.prefix_share = sum(1 for p in self.parts if p[0]) / len(records)
        self.sentences = [_sentences(r["abstract"]) for r in records]
        self.with_abstract = [i for i, s in enumerate(self.sentences) if len(s) >= 3]
        self.has_abstract = frozenset(self.with_abstract)
        self.neighbours: dict[str, list[int]] = defaultdict(list)
        for index, record in enumerate(records):
            for word in {w.lower() for w in _CONTENT_WORD.findall(record["title"])} - _STOP:
                self.neighbours[word].append(index)
        self.teams = [r["authors"] for r in records if r["authors"]]
        self.lengths = [len(team) for team in self.teams]
        self.decisions = [r.get("decision") for r in records]
        self.used_titles = {title_key(r["title"]) for r in records}
        self.used_ends: set[tuple[str, str]] = set()

    def _subject(self, rng: random.Random, anchor: int) -> list[int]:
        """The papers sharing a content word of the anchor's title (the anchor's subject), else all."""
        words = sorted({w.lower() for w in _CONTENT_WORD.findall(self.records[anchor]["title"])} - _STOP)
        rng.shuffle(words)
        for word in words:
            if len(self.neighbours[word]) >= _MIN_NEIGHBOURS:
                return self.neighbours[word]
        return self.with_abstract

    def _title(self, rng: random.Random, anchor: int, subject: list[int]) -> str:
        for _ in range(50):
            _, head, connective, _ = self.parts[anchor]
            tail_from = self.parts[rng.choice(subject)]
            if not tail_from[3]:
                tail_from = self.parts[rng.choice(self.with_tail)]
            title = f"{head} {connective or tail_from[2]} {tail_from[3]}"
            if rng.random() < self.prefix_share and self.prefixes:
                title = f"{rng.choice(self.prefixes)}: {title}"
            key = title_key(title)
            if key not in self.used_titles:
                self.used_titles.add(key)
                return title
            anchor = rng.choice(self.with_tail)
        raise RuntimeError("no unused title in 50 draws")  # never seen: the title space is ~10^8

    def _abstract(self, rng: random.Random, anchor: int, subject: list[int]) -> str:
        pool = [i for i in subject if i in self.has_abstract] or self.with_abstract
        opener = anchor if self.sentences[anchor] else rng.choice(pool)
        for _ in range(50):
            count = len(self.sentences[rng.choice(self.with_abstract)])
            first = self.sentences[opener][0]
            last = self.sentences[rng.choice(pool)][-1]
            if (first, last) in self.used_ends:
                opener = rng.choice(pool)
                continue
            self.used_ends.add((first, last))
            middle = []
            for _ in range(max(1, count - 2)):
                sentences = self.sentences[rng.choice(pool)]
                middle.append(sentences[rng.randrange(1, len(sentences) - 1)] if len(sentences) >= 3 else sentences[0])
            return " ".join([first, *dict.fromkeys(middle), last])
        raise RuntimeError("no unused opening and closing in 50 draws")

    def _authors(self, rng: random.Random) -> list[str]:
        team = rng.choice(self.teams)
        kept = rng.sample(team, min(len(team), rng.randint(1, 3)))
        length = max(len(kept), rng.choice(self.lengths))
        names = dict.fromkeys(kept)
        while len(names) < length:
            names[rng.choice(rng.choice(self.teams))] = None  # a name, weighted by how often it is listed
        return list(names)

    def paper(self, index: int) -> dict[str, Any]:
        rng = random.Random(f"{self.seed}:{index}")
        anchor = rng.choice(self.with_tail)
        subject = self._subject(rng, anchor)
        return {
            "title": self._title(rng, anchor, subject),
            "authors": self._authors(rng),
            "abstract": self._abstract(rng, anchor, subject),
            "decision": rng.choice(self.decisions),
            "openreview_url": f"https://openreview.net/forum?id=SYN{self.seed:02d}{index:08d}",
        }


def grow(records: list[dict[str, Any]], size: int, seed: int = SEED) -> list[dict[str, Any]]:
    """The first ``size`` papers: the real records in their order, then synthetic ones."""
    corpus = list(records[:size])
    if size > len(corpus):
        grower = Grower(records, seed)
        corpus += [grower.paper(i) for i in range(size - len(corpus))]
    return corpus


def lines(size: int) -> Iterator[str]:
    for record in grow(real_records(), size):
        yield json.dumps(record, ensure_ascii=False)


if __name__ == "__main__":
    for line in lines(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000):
        print(line)
