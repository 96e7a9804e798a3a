"""Paper records: the typed form of one paper page, and its stored format.

A paper page (``site_src/papers/<slug>.md``) is YAML front matter holding every
field of the paper, followed by an optional Markdown body that belongs to the
maintainers (notes, errata); no stage ever writes listing text into the body.
Everything that came from a listing lives in YAML strings, so hostile text in
a listing stays text: the renderers escape it, and the YAML round-trips.

In:  page text (``parse_page``) or fields (``PaperRecord``).
Out: page text (``render_page``), byte-identical for identical records.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from generator.pages.frontmatter import FrontMatter, parse_front_matter, read_text, render_front_matter
from generator.pages.schema import FRONT_MATTER_FIELDS, LISTED_FIELDS, field_problems, link_problem, topic_problem
from generator.problems import PapersiteError, errors_only

@dataclass(frozen=True, order=True)
class SourceRef:
    """One listing entry a paper was read from: file name, entry number, format."""

    file: str
    entry: int
    format: str

    def label(self) -> str:
        return f"{self.file} #{self.entry}"


@dataclass(frozen=True)
class Fill:
    """Fields of a page that a reference catalogue filled, and the match that justified it.

    ``reference`` is the reference file's name and ``record`` its 1-based record
    number; ``match`` is the kind of evidence ("title+abstract", "forum", ...)
    and ``score`` its strength (word 3-shingle Jaccard of the abstracts, 1.0 for
    a forum-id or title-only match). ``fields`` are front-matter names, with
    ``links.<name>`` for one link.
    """

    reference: str
    record: int
    match: str
    score: float
    fields: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "record": self.record,
            "match": self.match,
            "score": round(float(self.score), 3),
            "fields": list(self.fields),
        }


@dataclass(frozen=True)
class Topic:
    """Area and optional sub-area of a paper, with where the value came from.

    ``source`` is ``listing`` (a topic line of a listing), ``inferred`` (the
    enrichment stage guessed it; ``confidence`` in [0, 1]) or ``maintainer``
    (set by hand; always wins). ``subarea`` is None for an area alone, which is
    also how a low-confidence inference is stored. An inferred sub-area's
    ``confidence`` is that of area and sub-area together; ``area_confidence`` is
    the area's alone (readers can trust a sure area under a doubtful sub-area).
    """

    area: str
    subarea: str | None = None
    source: str = "listing"
    confidence: float | None = None
    area_confidence: float | None = None

    def label(self) -> str:
        return f"{self.area} · {self.subarea}" if self.subarea else self.area


@dataclass
class PaperRecord:
    """One paper, as stored on its page and passed between pipeline stages."""

    id: str
    slug: str
    title: str
    authors: list[str] = field(default_factory=list)
    # None: the authors are in the paper's order. "alphabetical": the only order known is the
    # alphabet's; "unknown": the source's order is not the paper's (ingest/authors.py).
    author_order: str | None = None
    abstract: str | None = None  # None: no listing had a real abstract
    title_derived: bool = False  # True: no listing had a title; we made one
    topic: Topic | None = None
    keywords: list[str] = field(default_factory=list)
    decision: str | None = None
    links: dict[str, str] = field(default_factory=dict)  # openreview, pdf, code ...
    sources: list[SourceRef] = field(default_factory=list)
    filled_from: list[Fill] = field(default_factory=list)  # what reference catalogues filled
    # What the listings said where an authoritative reference decided otherwise: {"title": ...}
    listed: dict[str, Any] = field(default_factory=dict)
    body: str = ""  # maintainers' Markdown below the front matter
    extra: dict[str, Any] = field(default_factory=dict)  # maintainers' own front-matter keys

    @property
    def abstract_missing(self) -> bool:
        return not self.abstract

    def to_front_matter(self) -> dict[str, Any]:
        """Fields in the fixed order pages are written in."""
        data: dict[str, Any] = {
            "id": self.id,
            "slug": self.slug,
            "title": self.title,
        }
        if self.title_derived:
            data["title_derived"] = True
        data["authors"] = list(self.authors)
        if self.author_order:
            data["author_order"] = self.author_order
        if self.topic is not None:
            topic: dict[str, Any] = {"area": self.topic.area}
            if self.topic.subarea:
                topic["subarea"] = self.topic.subarea
            topic["source"] = self.topic.source
            if self.topic.confidence is not None:
                topic["confidence"] = round(float(self.topic.confidence), 3)
            if self.topic.area_confidence is not None:
                topic["area_confidence"] = round(float(self.topic.area_confidence), 3)
            data["topic"] = topic
        data["keywords"] = list(self.keywords)
        if self.decision:
            data["decision"] = self.decision
        if self.links:
            data["links"] = {key: self.links[key] for key in sorted(self.links)}
        if self.abstract:
            data["abstract"] = self.abstract
        else:
            data["abstract_missing"] = True
        data["sources"] = [
            {"file": s.file, "entry": s.entry, "format": s.format} for s in sorted(self.sources)
        ]
        if self.filled_from:
            data["filled_from"] = [fill.to_json() for fill in self.filled_from]
        if self.listed:
            data["listed"] = {key: self.listed[key] for key in LISTED_FIELDS if key in self.listed}
        for key in sorted(self.extra):
            if key not in FRONT_MATTER_FIELDS:  # the record's own fields are never shadowed
                data[key] = self.extra[key]
        return data

    @classmethod
    def from_front_matter(cls, data: Mapping[str, Any], body: str = "", path: str | Path = "<page>") -> "PaperRecord":
        """A record from front-matter fields that were never a file (a merge's result, a correction)."""
        return record_from(FrontMatter.of(dict(data), body, path))

    def replace(self, **changes: Any) -> "PaperRecord":
        return dataclasses.replace(self, **changes)


class _PurePageDumper(yaml.SafeDumper):
    """SafeDumper that never emits aliases (each page must read on its own)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


# libyaml's emitter writes the same bytes ~18x faster (tests/test_record.py checks
# the two agree); imports of 10k+ papers need it. Pure Python is the fallback.
if getattr(yaml, "__with_libyaml__", False):

    class _CPageDumper(yaml.CSafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    _PageDumper: type = _CPageDumper
else:
    _PageDumper = _PurePageDumper


def dump_yaml(data: Any, dumper: type | None = None) -> str:
    """Deterministic YAML: insertion order, Unicode kept, lines folded for diffs."""
    return yaml.dump(
        data,
        Dumper=dumper or _PageDumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )


def render_page(record: PaperRecord) -> str:
    """The full page text: front matter, then the maintainers' body if any.

    Raises ValueError for a link or a topic the page reader would refuse: a page that cannot
    be read back must never be written (every stage reads them with the same rules)."""
    problems = [link_problem(name, url) for name, url in record.links.items()]
    if record.topic is not None:
        problems.append(topic_problem(record.topic.area, record.topic.subarea or None))
    for problem in filter(None, problems):
        raise ValueError(f"page {record.slug!r}: {problem}")
    return render_front_matter(dump_yaml(record.to_front_matter()), record.body)


def record_from(front: FrontMatter) -> PaperRecord:
    """The record of a page; ``PapersiteError`` with every error the page model finds in its fields."""
    errors = errors_only(field_problems(front))
    if errors:
        raise PapersiteError(*errors)
    return valid_record(front)


def valid_record(front: FrontMatter) -> PaperRecord:
    """The record of front matter in which ``field_problems`` found no error."""
    data = front.data
    topic = None
    if data.get("topic") is not None:
        raw = data["topic"]
        confidence, area_confidence = raw.get("confidence"), raw.get("area_confidence")
        topic = Topic(
            area=raw["area"],
            subarea=raw.get("subarea") or None,
            source=raw.get("source", "maintainer"),
            confidence=float(confidence) if confidence is not None else None,
            area_confidence=float(area_confidence) if area_confidence is not None else None,
        )
    return PaperRecord(
        id=data["id"],
        slug=data["slug"],
        title=data["title"],
        title_derived=bool(data.get("title_derived", False)),
        authors=list(data["authors"]),
        author_order=data.get("author_order") or None,
        topic=topic,
        keywords=list(data.get("keywords") or []),
        decision=data.get("decision"),
        links={str(k): v for k, v in (data.get("links") or {}).items()},
        abstract=data.get("abstract") or None,
        sources=[SourceRef(s["file"], s["entry"], s.get("format", "")) for s in data["sources"]],
        filled_from=[
            Fill(f["reference"], f["record"], f.get("match", ""), float(f["score"]), tuple(f["fields"]))
            for f in data.get("filled_from") or []
        ],
        listed=dict(data.get("listed") or {}),
        body=front.body,
        extra={str(k): v for k, v in data.items() if str(k) not in FRONT_MATTER_FIELDS},
    )


def parse_page(text: str, path: str | Path = "<page>") -> PaperRecord:
    return record_from(parse_front_matter(text, path))


def read_page(path: Path, label: str | None = None) -> PaperRecord:
    label = str(path) if label is None else label
    return record_from(parse_front_matter(read_text(path, label), label))
