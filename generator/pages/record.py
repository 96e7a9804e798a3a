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
from typing import Any, Callable, Mapping

import yaml

from generator.pages.frontmatter import FrontMatter, parse_front_matter, read_text, render_front_matter
from generator.pages import schema
from generator.pages.markup import THEME_FIELDS, theme_field_problem
from generator.pages.schema import link_problem, topic_problem
from generator.problems import PapersiteError, Problem, errors_only

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


TOPIC_LABEL_SEPARATOR = " › "  # a topic as readers see it, everywhere: "Deep Learning › Theory"


def topic_label(area: str, subarea: str | None) -> str:
    """The one label of a topic: in lists, Explore, Stats, search and the correction form's choices."""
    return f"{area}{TOPIC_LABEL_SEPARATOR}{subarea}" if subarea else area


# What may stand between area and sub-area where a person or a listing writes a topic as text:
# the label's own "›", listings' "·" (schema.TOPIC_SEPARATOR), and arrows.
_TOPIC_TEXT_SEPARATORS = re.compile(r"\s*(?:›|·|->|→)\s*")


def parse_topic_label(text: str) -> tuple[str, str | None]:
    """``(area, sub-area)`` of a topic written as text: the one parser of topic lines, labels and
    form choices. Splits at the first separator; white space in each part is folded; an empty part
    stays "" for the caller's rule (``schema.topic_problem``) to refuse."""
    parts = _TOPIC_TEXT_SEPARATORS.split(text.strip(), maxsplit=1)
    area = " ".join(parts[0].split())
    if len(parts) == 1:
        return area, None
    return area, " ".join(parts[1].split())


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
        return topic_label(self.area, self.subarea)


Rule = Callable[[schema.Findings, str], None]


@dataclass(frozen=True)
class FormSpec:
    """A field's place in the correction form (``corrections/form.py``): ``id`` keys the URL
    pre-fill (``title`` is GitHub's own key, hence ``paper_title``), ``label`` heads its section."""

    rank: int  # its place in the form, which people read top down (the abstract under the authors)
    id: str
    kind: str  # input | textarea | dropdown
    description: str


@dataclass(frozen=True)
class PaperField:
    """Everything the pipeline knows about one field of a paper, declared once beside it.

    The record type is ``PaperRecord``; each of its page fields carries one of these as
    metadata. From them come the page's keys and their order, each value's rule, how a
    value is written to and read from YAML, the three-way merge policy, what a reference
    may fill or decide, the correction form's fields and the search store's columns."""

    rule: Rule
    label: str = ""  # what readers call it: headings, the correction form, "Listed venue: ..."
    name: str = ""  # the attribute's name, which is also its front-matter key (set below)
    required: bool = False
    missing: str = ""  # what to write when a required field is absent
    always: bool = False  # written even when empty ([] for no authors)
    flag_when_empty: str = ""  # the key written instead of an empty value ("abstract_missing: true")
    write: Callable[[Any], Any] | None = None  # record value -> YAML value; None: the value as it is
    read: Callable[[Any], Any] | None = None  # YAML value -> record value; None: as read
    three_way: str = "merge"  # "page": the page's value always wins (identity); "keyed": merged key by key
    fill: bool = False  # a reference catalogue may fill it where the listings left it empty
    authority: bool = False  # papersite.yml may make a reference its authority (the listing's value is kept in ``listed``)
    form: FormSpec | None = None  # its field in the correction form
    per_paper: bool = False  # shown per paper in lists and the search store when the papers differ in it
    # A listing or reference may give it as one line of text under its own name ("venue": "ICML 2025"):
    # read, merged (JSON first), filled and decided by the ingest stage with no code of its own.
    listed_text: bool = False


def _paper_field(default: Any = dataclasses.MISSING, *, factory: Any = dataclasses.MISSING, **spec: Any) -> Any:
    return field(default=default, default_factory=factory, metadata={"page": PaperField(**spec)})


def _topic_yaml(topic: Topic) -> dict[str, Any]:
    data: dict[str, Any] = {"area": topic.area}
    if topic.subarea:
        data["subarea"] = topic.subarea
    data["source"] = topic.source
    if topic.confidence is not None:
        data["confidence"] = round(float(topic.confidence), 3)
    if topic.area_confidence is not None:
        data["area_confidence"] = round(float(topic.area_confidence), 3)
    return data


def _topic_read(raw: Mapping[str, Any]) -> Topic:
    confidence, area_confidence = raw.get("confidence"), raw.get("area_confidence")
    return Topic(
        area=raw["area"],
        subarea=raw.get("subarea") or None,
        source=raw.get("source", "maintainer"),
        confidence=float(confidence) if confidence is not None else None,
        area_confidence=float(area_confidence) if area_confidence is not None else None,
    )


def _listed_yaml(listed: Mapping[str, Any]) -> dict[str, Any]:
    return {key: listed[key] for key in AUTHORITY_FIELDS if key in listed}


@dataclass
class PaperRecord:
    """One paper, as stored on its page and passed between pipeline stages.

    The page fields are declared in the order pages are written; to add one, add it here
    (its rule in ``schema.py`` if no existing rule fits) and say where it is shown."""

    id: str = _paper_field(rule=schema.text_value, required=True, always=True, three_way="page")
    slug: str = _paper_field(rule=schema.text_value, required=True, always=True, three_way="page")
    title: str = _paper_field(
        rule=schema.text_value, required=True, always=True, fill=True, authority=True,
        label="Title", form=FormSpec(1, "paper_title", "input", "The paper's title as the paper itself gives it."),
    )
    title_derived: bool = _paper_field(False, rule=schema.flag_value, read=bool)  # True: no listing had a title; we made one
    authors: list[str] = _paper_field(
        rule=schema.name_list, required=True, always=True, missing="a list of names; [] if unknown", factory=list,
        write=list, read=list, fill=True, authority=True,
        label="Authors", form=FormSpec(2, "authors", "textarea",
            "One name per line, in the order the paper gives them: the order matters (it is the citation's)."),
    )
    # None: the authors are in the paper's order. "alphabetical": the only order known is the
    # alphabet's; "unknown": the source's order is not the paper's (ingest/authors.py).
    author_order: str | None = _paper_field(
        None, rule=schema.order_value, read=lambda value: value or None,
        label="Author order", form=FormSpec(3, "author_order", "dropdown",
            "Are the authors above in the order the paper gives them? Only then does the site name a first author."),
    )
    topic: Topic | None = _paper_field(
        None, rule=schema.topic_value, write=_topic_yaml, read=_topic_read, fill=True,
        label="Topic", form=FormSpec(5, "topic", "dropdown", "Pick the area and sub-area from the site's taxonomy."),
    )
    keywords: list[str] = _paper_field(
        rule=schema.keyword_list, always=True, factory=list, write=list, read=list,
        label="Keywords", form=FormSpec(8, "keywords", "textarea", "One keyword per line."),
    )
    decision: str | None = _paper_field(
        None, rule=schema.text_value, fill=True, authority=True,
        label="Decision", form=FormSpec(6, "decision", "dropdown",
            "The review decision the venue announced, or \"No decision\" if it announced none (yet)."),
    )
    # The venue this paper appeared at or was submitted to ("ICML 2025"); None: the site's venue setting.
    venue: str | None = _paper_field(
        None, rule=schema.text_value, fill=True, authority=True, per_paper=True, listed_text=True,
        label="Venue", form=FormSpec(7, "venue", "input",
            "Where the paper was published or submitted, e.g. `ICML 2025`. Left empty, the venue stays as it is."),
    )
    # What kind of publication a bibliography entry is (BibTeX's word: "article", "inproceedings",
    # "misc" ...; RIS and sheets are mapped to it): citations cite an article as an article.
    entry_type: str | None = _paper_field(None, rule=schema.text_value, fill=True, listed_text=True, label="Entry type")
    links: dict[str, str] = _paper_field(  # openreview, pdf, code ...
        rule=schema.link_map, factory=dict, three_way="keyed", fill=True,
        write=lambda links: {key: links[key] for key in sorted(links)},
        read=lambda links: {str(key): url for key, url in links.items()},
        label="Links", form=FormSpec(9, "links", "textarea",
            "One link per line as `name: URL`, e.g. `pdf: https://...` (openreview, pdf, code, arxiv, project)."),
    )
    abstract: str | None = _paper_field(  # None: no listing had a real abstract
        None, rule=schema.text_value, flag_when_empty="abstract_missing", read=lambda text: text or None,
        fill=True, authority=True,
        label="Abstract", form=FormSpec(4, "abstract", "textarea",
            "The whole abstract. Formulas may use `$...$`. Left empty, the abstract stays as it is."),
    )
    sources: list[SourceRef] = _paper_field(
        rule=schema.source_list, required=True, always=True, missing="the listing entries this paper was read from",
        factory=list, write=lambda sources: [{"file": s.file, "entry": s.entry, "format": s.format} for s in sorted(sources)],
        read=lambda raw: [SourceRef(s["file"], s["entry"], s.get("format", "")) for s in raw],
    )
    filled_from: list[Fill] = _paper_field(  # what reference catalogues filled
        rule=schema.fill_list, factory=list, write=lambda fills: [fill.to_json() for fill in fills],
        read=lambda raw: [Fill(f["reference"], f["record"], f.get("match", ""), float(f["score"]), tuple(f["fields"])) for f in raw],
    )
    # What the listings said where an authoritative reference decided otherwise: {"title": ...}
    listed: dict[str, Any] = _paper_field(rule=schema.listed_values, factory=dict, write=_listed_yaml, read=dict)
    body: str = ""  # maintainers' Markdown below the front matter
    extra: dict[str, Any] = field(default_factory=dict)  # maintainers' own front-matter keys

    @property
    def abstract_missing(self) -> bool:
        return not self.abstract

    def to_front_matter(self) -> dict[str, Any]:
        """Fields in the fixed order pages are written in."""
        data: dict[str, Any] = {}
        for spec in PAPER_FIELDS:
            value = getattr(self, spec.name)
            if value or spec.always:
                data[spec.name] = spec.write(value) if spec.write else value
            elif spec.flag_when_empty:
                data[spec.flag_when_empty] = True
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


# The table: every page field of a paper, in the order pages are written.
PAPER_FIELDS: tuple[PaperField, ...] = tuple(
    dataclasses.replace(f.metadata["page"], name=f.name) for f in dataclasses.fields(PaperRecord) if "page" in f.metadata
)
FIELD_BY_NAME = {spec.name: spec for spec in PAPER_FIELDS}
# Every front-matter key a paper page may hold, in page order ("abstract_missing" after "abstract").
FRONT_MATTER_FIELDS = tuple(
    key for spec in PAPER_FIELDS for key in (spec.name, spec.flag_when_empty) if key
)
# A paper's identity: fixed at first import, unique among pages, never changed by a merge.
IDENTITY_FIELDS = tuple(spec.name for spec in PAPER_FIELDS if spec.three_way == "page")
# What papersite.yml may make a reference the authority for; what ``listed`` may keep.
AUTHORITY_FIELDS = tuple(spec.name for spec in PAPER_FIELDS if spec.authority)
# What a reference catalogue may fill (``filled_from[].fields``), besides ``links.<name>``.
FILL_FIELDS = tuple(spec.name for spec in PAPER_FIELDS if spec.fill and spec.three_way != "keyed")
# Fields that listings give as one line of text under their own name (``listed_text``).
LISTED_TEXT_FIELDS = tuple(spec.name for spec in PAPER_FIELDS if spec.listed_text)
# Fields shown per paper only where the papers differ in them (the venue).
PER_PAPER_FIELDS = tuple(spec.name for spec in PAPER_FIELDS if spec.per_paper)


def field_problems(front: FrontMatter) -> list[Problem]:
    """Every problem of the page's fields, in table order: errors, and warnings for unknown keys."""
    found = schema.Findings(front, listable=AUTHORITY_FIELDS, fillable=FILL_FIELDS)
    for key, value in front.data.items():
        name = str(key)
        if name in THEME_FIELDS:
            problem = theme_field_problem(name, value)
            if problem:
                found.error(front.line(name), problem)
        elif name not in FRONT_MATTER_FIELDS:
            found.warn(front.line(name), f"unknown field '{key}' (kept on the page, not shown on the site); known fields: {', '.join(FRONT_MATTER_FIELDS)}")
    for spec in PAPER_FIELDS:
        if spec.name in front.data:
            spec.rule(found, spec.name)
        elif spec.required:
            hint = f" ({spec.missing})" if spec.missing else ""
            found.error(1, f"missing required field '{spec.name}'{hint}")
        if spec.flag_when_empty and spec.flag_when_empty in front.data:
            schema.flag_value(found, spec.flag_when_empty)
    schema.abstract_or_flag(found)
    return found.problems


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
    values: dict[str, Any] = {}
    for spec in PAPER_FIELDS:
        raw = data.get(spec.name)
        if raw is not None:
            values[spec.name] = spec.read(raw) if spec.read else raw
    extra = {str(k): v for k, v in data.items() if str(k) not in FRONT_MATTER_FIELDS}
    return PaperRecord(**values, body=front.body, extra=extra)


def parse_page(text: str, path: str | Path = "<page>") -> PaperRecord:
    return record_from(parse_front_matter(text, path))


def read_page(path: Path, label: str | None = None) -> PaperRecord:
    label = str(path) if label is None else label
    return record_from(parse_front_matter(read_text(path, label), label))
