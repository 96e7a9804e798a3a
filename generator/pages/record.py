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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from generator.inputs import InputError, load_yaml
from generator.problems import PapersiteError

FRONT_MATTER_FENCE = "---"

# listing: a topic line of a listing; conference: the conference's own label, from a
# reference catalogue; inferred: guessed by the enrichment stage; maintainer: set by hand.
TOPIC_SOURCES = ("listing", "conference", "inferred", "maintainer")
# Front-matter keys the record reads; any other key a maintainer adds is carried in
# ``PaperRecord.extra`` and written back unchanged, so a rewrite never loses it.
FRONT_MATTER_FIELDS = (
    "id",
    "slug",
    "title",
    "title_derived",
    "authors",
    "topic",
    "keywords",
    "decision",
    "links",
    "abstract",
    "abstract_missing",
    "sources",
    "filled_from",
)


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
    abstract: str | None = None  # None: no listing had a real abstract
    title_derived: bool = False  # True: no listing had a title; we made one
    topic: Topic | None = None
    keywords: list[str] = field(default_factory=list)
    decision: str | None = None
    links: dict[str, str] = field(default_factory=dict)  # openreview, pdf, code ...
    sources: list[SourceRef] = field(default_factory=list)
    filled_from: list[Fill] = field(default_factory=list)  # what reference catalogues filled
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
        for key in sorted(self.extra):
            if key not in FRONT_MATTER_FIELDS:  # the record's own fields are never shadowed
                data[key] = self.extra[key]
        return data

    @classmethod
    def from_front_matter(cls, data: Mapping[str, Any], body: str = "", path: str | Path = "<page>") -> "PaperRecord":
        """Build a record from parsed front matter; raises PapersiteError on a wrong type."""

        def text(key: str, required: bool = True) -> str | None:
            value = data.get(key)
            if value is None:
                if required:
                    raise PapersiteError.at(path, 1, f"missing required field '{key}'")
                return None
            if not isinstance(value, str):
                raise PapersiteError.at(path, 1, f"field '{key}' must be a string, got {type(value).__name__}")
            return value

        def string_list(key: str) -> list[str]:
            value = data.get(key) or []
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise PapersiteError.at(path, 1, f"field '{key}' must be a list of strings")
            return list(value)

        topic = None
        raw_topic = data.get("topic")
        if raw_topic is not None:
            if not isinstance(raw_topic, Mapping) or not isinstance(raw_topic.get("area"), str):
                raise PapersiteError.at(path, 1, "field 'topic' must be a mapping with a string 'area'")
            source = raw_topic.get("source", "maintainer")
            if source not in TOPIC_SOURCES:
                raise PapersiteError.at(path, 1, f"topic source must be one of {', '.join(TOPIC_SOURCES)}, got {source!r}")
            confidence, area_confidence = raw_topic.get("confidence"), raw_topic.get("area_confidence")
            for value in (confidence, area_confidence):
                if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
                    raise PapersiteError.at(path, 1, f"topic confidence must be a number from 0 to 1, got {value!r}")
            topic = Topic(
                area=raw_topic["area"],
                subarea=raw_topic.get("subarea") or None,
                source=source,
                confidence=float(confidence) if confidence is not None else None,
                area_confidence=float(area_confidence) if area_confidence is not None else None,
            )

        links = data.get("links") or {}
        if not isinstance(links, Mapping) or not all(isinstance(v, str) for v in links.values()):
            raise PapersiteError.at(path, 1, "field 'links' must map names to URL strings")

        sources = []
        for raw in data.get("sources") or []:
            try:
                entry = raw["entry"]
                if isinstance(entry, bool) or not isinstance(entry, int):
                    raise TypeError(entry)  # not 2.5, .inf or "3"
                sources.append(SourceRef(str(raw["file"]), entry, str(raw.get("format", ""))))
            except (KeyError, TypeError, ValueError):
                raise PapersiteError.at(path, 1, "each entry of 'sources' needs 'file' and an integer 'entry'") from None

        filled_from = []
        raw_fills = data.get("filled_from") or []
        if not isinstance(raw_fills, list):
            raise PapersiteError.at(path, 1, "field 'filled_from' must be a list of {reference, record, match, score, fields}")
        for raw in raw_fills:
            try:
                fields = raw.get("fields") or []
                if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
                    raise TypeError
                filled_from.append(
                    Fill(str(raw["reference"]), int(raw["record"]), str(raw.get("match", "")), float(raw.get("score", 0.0)), tuple(fields))
                )
            except (AttributeError, KeyError, TypeError, ValueError, OverflowError):
                raise PapersiteError.at(
                    path, 1, "each entry of 'filled_from' needs 'reference', an integer 'record', a number 'score' and a list of 'fields'"
                ) from None

        return cls(
            id=str(text("id")),
            slug=str(text("slug")),
            title=str(text("title")),
            title_derived=bool(data.get("title_derived", False)),
            authors=string_list("authors"),
            topic=topic,
            keywords=string_list("keywords"),
            decision=text("decision", required=False),
            links={str(k): v for k, v in links.items()},
            abstract=text("abstract", required=False) or None,
            sources=sources,
            filled_from=filled_from,
            body=body,
            extra={str(k): v for k, v in data.items() if str(k) not in FRONT_MATTER_FIELDS},
        )

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
    """The full page text: front matter, then the maintainers' body if any."""
    text = f"{FRONT_MATTER_FENCE}\n{dump_yaml(record.to_front_matter())}{FRONT_MATTER_FENCE}\n"
    body = record.body.strip("\n")
    if body:
        text += f"\n{body}\n"
    return text


_FENCE_LINE = re.compile(r"^---[ \t]*$", re.MULTILINE)


def split_front_matter(text: str, path: str | Path = "<page>") -> tuple[str, str, int]:
    """Split page text into (yaml_text, body, line number where the YAML starts)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n") and text.strip() != "---":
        raise PapersiteError.at(path, 1, "page must start with a '---' front matter line")
    closing = _FENCE_LINE.search(text, 4)
    if closing is None:
        raise PapersiteError.at(path, 1, "front matter is not closed by a '---' line")
    yaml_text = text[4 : closing.start()]
    body = text[closing.end() :].lstrip("\n")
    return yaml_text, body, 2


def load_front_matter(text: str, path: str | Path = "<page>") -> tuple[dict[str, Any], str]:
    """Parse the front matter mapping and body; YAML errors carry the file line."""
    yaml_text, body, first_line = split_front_matter(text, path)
    try:
        data = load_yaml(yaml_text, first_line)  # no aliases, no duplicate keys
    except InputError as error:
        raise PapersiteError.at(path, error.line, error.about("front matter")) from None
    if not isinstance(data, dict):
        raise PapersiteError.at(path, first_line, "front matter must be a YAML mapping of field: value")
    return data, body


def parse_page(text: str, path: str | Path = "<page>") -> PaperRecord:
    data, body = load_front_matter(text, path)
    return PaperRecord.from_front_matter(data, body=body, path=path)


def read_page(path: Path) -> PaperRecord:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise PapersiteError.at(path, 1, f"not UTF-8 text ({error.reason})") from None
    except OSError as error:  # a directory or a dangling symlink named *.md
        raise PapersiteError.at(path, 1, f"cannot read the page ({error.strerror})") from None
    return parse_page(text, path)


def field_line(yaml_text: str, key: str, first_line: int = 2) -> int:
    """Line of a top-level key in the page (for error messages); the fence line if absent."""
    match = re.search(rf"^{re.escape(key)}\s*:", yaml_text, re.MULTILINE)
    if match is None:
        return first_line - 1
    return first_line + yaml_text.count("\n", 0, match.start())
