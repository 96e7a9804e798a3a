"""The rules a page's front-matter values meet: one function per kind of value.

In:  a ``Findings`` (the page's ``FrontMatter``, with the line of every value) and a key.
Out: errors and warnings appended to the findings.

Which field is checked by which rule is the field table's to say (``record.py``:
each field of ``PaperRecord`` names its rule); ``record.field_problems`` runs them.
The strict reader refuses a page with any error found here, and ``papersite check``
reports them all, so the two can never disagree about what a valid page is. Rules
that need more than one page (duplicate ids, links to other pages) or the taxonomy
live in ``check.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.ingest.authors import PAGE_ORDERS, is_alphabetical
from generator.layout import is_web_url
from generator.pages.frontmatter import FrontMatter
from generator.problems import Problem, Severity
from generator.text import code_points, invisible_characters

# listing: a topic line of a listing; conference: the conference's own label, from a
# reference catalogue; inferred: guessed by the enrichment stage; maintainer: set by hand.
TOPIC_SOURCES = ("listing", "conference", "inferred", "maintainer")
# The keys of a page's topic mapping.
TOPIC_FIELDS = ("area", "subarea", "source", "confidence", "area_confidence")


@dataclass
class Findings:
    """The problems found in one page so far."""

    front: FrontMatter
    listable: tuple[str, ...] = ()  # the fields ``listed`` may keep (the record's ``authority`` fields)
    fillable: tuple[str, ...] = ()  # the fields a reference may fill (``filled_from[].fields``)
    problems: list[Problem] = field(default_factory=list)

    def error(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.front.label, line, message))

    def warn(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.front.label, line, message, Severity.WARNING))


def _type_name(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false", type(None): "empty"}.get(
        type(value), type(value).__name__
    )


def _number_in_unit(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 <= value <= 1


def _visible_only(found: Findings, line: int, what: str, value: str) -> None:
    """A warning, not an error: listings bring such characters and the renderers neutralise the
    dangerous ones, but a reader cannot see them and a diff does not show them."""
    hidden = invisible_characters(value, "\t\n")
    if hidden:
        found.warn(line, f"{what} holds the invisible character(s) {code_points(hidden)}; delete them unless the script needs them")


# --- one rule per kind of value ---------------------------------------------------


def text_value(found: Findings, key: str) -> None:
    value, line = found.front.data[key], found.front.line(key)
    if not isinstance(value, str):
        found.error(line, f"field '{key}' must be text, got {_type_name(value)}")
    elif not value.strip():
        found.error(line, f"field '{key}' is empty")
    else:
        _visible_only(found, line, f"field '{key}'", value)


def flag_value(found: Findings, key: str) -> None:
    value = found.front.data[key]
    if not isinstance(value, bool):
        found.error(found.front.line(key), f"field '{key}' must be true or false, got {value!r}")


def name_list(found: Findings, key: str) -> None:
    names = found.front.data[key]
    if not isinstance(names, list):
        found.error(found.front.line(key), f"field '{key}' must be a list of names, got {_type_name(names)}")
        return
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            found.error(found.front.item_line(key, index), f"author #{index + 1} must be a non-empty name, got {name!r}")
        else:
            _visible_only(found, found.front.item_line(key, index), f"author #{index + 1}", name)


def order_value(found: Findings, key: str) -> None:
    value, line = found.front.data[key], found.front.line(key)
    if value not in PAGE_ORDERS:
        found.error(line, f"author_order must be one of {', '.join(PAGE_ORDERS)} (or absent: the paper's order), got {value!r}")
        return
    names = found.front.data.get("authors")
    if value == "alphabetical" and isinstance(names, list) and all(isinstance(n, str) for n in names) and len(names) > 1 and not is_alphabetical(names):
        found.warn(
            line,
            "author_order says the authors are only known in alphabetical order, but they are not in alphabetical order: "
            "if they are now in the paper's order, remove the 'author_order' line",
        )


def listed_values(found: Findings, key: str) -> None:
    """A listing's own values where an authoritative reference decided otherwise: written by the importer."""
    listed = found.front.data[key]
    if not isinstance(listed, dict):
        found.error(found.front.line(key), f"field 'listed' must be a mapping of some of {', '.join(found.listable)}, got {_type_name(listed)}")
        return
    for name, value in listed.items():
        line = found.front.line(key, str(name))
        if name not in found.listable:
            found.error(line, f"unknown listed field '{name}'; expected some of {', '.join(found.listable)}")
        elif name == "authors":
            if not isinstance(value, list) or not all(isinstance(n, str) and n.strip() for n in value):
                found.error(line, f"listed authors must be a list of names, got {value!r}")
        elif not isinstance(value, str) or not value.strip():
            found.error(line, f"listed {name} must be text, got {value!r}")


def keyword_list(found: Findings, key: str) -> None:
    keywords = found.front.data[key]
    if keywords is None:
        return
    if not isinstance(keywords, list):
        found.error(found.front.line(key), f"field '{key}' must be a list, got {_type_name(keywords)}")
        return
    seen: dict[str, int] = {}
    for index, keyword in enumerate(keywords):
        line = found.front.item_line(key, index)
        if not isinstance(keyword, str):
            found.error(line, f"keyword {keyword!r} must be text (quote it)")
            continue
        if not keyword.strip():
            found.error(line, "keyword is empty")
            continue
        if keyword != keyword.strip():
            found.error(line, f"keyword {keyword!r} has leading or trailing spaces")
        _visible_only(found, line, f"keyword #{index + 1}", keyword)
        folded = keyword.strip().casefold()
        if folded in seen:
            found.error(line, f"keyword {keyword!r} repeats keyword #{seen[folded] + 1} (keywords are compared ignoring case)")
        else:
            seen[folded] = index


def topic_value(found: Findings, key: str) -> None:
    """The topic's shape; whether it is in the taxonomy is ``check.py``'s to say."""
    topic = found.front.data[key]
    if topic is None:
        return
    if not isinstance(topic, dict):
        found.error(found.front.line(key), f"field 'topic' must be a mapping with 'area' (and 'subarea', 'source'), got {_type_name(topic)}")
        return
    for sub in topic:
        if sub not in TOPIC_FIELDS:
            found.error(found.front.line(key, str(sub)), f"unknown topic field '{sub}'; expected some of {', '.join(TOPIC_FIELDS)}")
    source = topic.get("source", "maintainer")
    if source not in TOPIC_SOURCES:
        found.error(found.front.line(key, "source"), f"topic source must be one of {', '.join(TOPIC_SOURCES)}, got {source!r}")
    for sub in ("confidence", "area_confidence"):
        value = topic.get(sub)
        if value is not None and not _number_in_unit(value):
            found.error(found.front.line(key, sub), f"topic {sub.replace('_', ' ')} must be a number from 0 to 1, got {value!r}")
    area, subarea = topic.get("area"), topic.get("subarea")
    if not isinstance(area, str) or not area.strip():
        found.error(found.front.line(key, "area"), f"topic needs a non-empty 'area', got {area!r}")
    elif subarea is not None and not isinstance(subarea, str):
        found.error(found.front.line(key, "subarea"), f"topic subarea must be text, got {subarea!r}")
    else:
        problem = topic_problem(area, subarea or None)
        if problem:
            found.error(found.front.line(key, "subarea" if problem.startswith("topic sub-area") else "area"), problem)


TOPIC_SEPARATOR = "·"  # between area and sub-area in a listing's topic line ("Area · Sub-area")


def topic_problem(area: str, subarea: str | None) -> str | None:
    """What is wrong with a topic read from a file, if anything: the one rule for topic lines,
    JSON records and pages. A part that is empty, white space or only the separator names no
    subject; an area holding the separator could never be told from area and sub-area. A
    topic is a label: one line (eval and the index pages print it as one)."""
    if not area.strip() or TOPIC_SEPARATOR in area or _breaks_lines(area):
        return f"topic area must be a name on one line, without '{TOPIC_SEPARATOR}' (which separates area and sub-area), got {area!r}"
    if subarea is not None and (not all(part.strip() for part in subarea.split(TOPIC_SEPARATOR)) or _breaks_lines(subarea)):
        return f"topic sub-area must be a name on one line, with no empty part around '{TOPIC_SEPARATOR}', got {subarea!r}"
    return None


def _breaks_lines(text: str) -> bool:
    return len(f"x{text}x".splitlines()) > 1


def link_map(found: Findings, key: str) -> None:
    links = found.front.data[key]
    if links is None:
        return
    if not isinstance(links, dict):
        found.error(found.front.line(key), f"field 'links' must map names to URLs, got {_type_name(links)}")
        return
    for name, url in links.items():
        problem = link_problem(name, url)
        if problem:
            found.error(found.front.line(key, str(name)), problem)


def link_problem(name: object, url: object) -> str | None:
    """What is wrong with one ``links`` entry, if anything: the one rule that both the page
    reader and ``render_page`` apply, so a record never writes a link its page would refuse."""
    if not is_web_url(url):
        return f"link '{name}' must be an http(s) URL, got {url!r}"
    return None


def source_list(found: Findings, key: str) -> None:
    sources = found.front.data[key]
    if not isinstance(sources, list):
        found.error(found.front.line(key), f"field 'sources' must be a list, got {_type_name(sources)}")
        return
    for index, source in enumerate(sources):
        line = found.front.item_line(key, index)
        if not isinstance(source, dict):
            found.error(line, f"source #{index + 1} must be a mapping with 'file', 'entry' and 'format'")
            continue
        if not isinstance(source.get("file"), str) or not source["file"].strip():
            found.error(line, f"source #{index + 1} needs a 'file' name")
        entry = source.get("entry")
        if isinstance(entry, bool) or not isinstance(entry, int) or entry < 0:
            found.error(line, f"source #{index + 1} needs a whole-number 'entry', got {entry!r}")
        if "format" in source and not isinstance(source["format"], str):
            found.error(line, f"source #{index + 1} 'format' must be text, got {source['format']!r}")


def fill_list(found: Findings, key: str) -> None:
    """Provenance of reference fills: written by the importer, but a page can be edited by hand."""
    fills = found.front.data[key]
    if not isinstance(fills, list):
        found.error(found.front.line(key), f"field 'filled_from' must be a list, got {_type_name(fills)}")
        return
    for index, fill in enumerate(fills):
        line = found.front.item_line(key, index)
        where = f"filled_from #{index + 1}"
        if not isinstance(fill, dict):
            found.error(line, f"{where} must be a mapping with 'reference', 'record', 'match', 'score' and 'fields'")
            continue
        if not isinstance(fill.get("reference"), str) or not fill["reference"].strip():
            found.error(line, f"{where} needs a 'reference' file name")
        record = fill.get("record")
        if isinstance(record, bool) or not isinstance(record, int) or record < 1:
            found.error(line, f"{where} needs a whole-number 'record' (1 or more), got {record!r}")
        if not _number_in_unit(fill.get("score")):
            found.error(line, f"{where} 'score' must be a number from 0 to 1, got {fill.get('score')!r}")
        if "match" in fill and not isinstance(fill["match"], str):
            found.error(line, f"{where} 'match' must be text, got {fill['match']!r}")
        names = fill.get("fields")
        if not isinstance(names, list) or not all(
            isinstance(name, str) and (name in found.fillable or name.startswith("links.")) for name in names
        ):
            found.error(line, f"{where} 'fields' must list field names ({', '.join(found.fillable)}, links.<name>), got {names!r}")


def abstract_or_flag(found: Findings) -> None:
    data = found.front.data
    flagged = data.get("abstract_missing") is True
    if "abstract" in data and flagged:
        found.error(found.front.line("abstract_missing"), "page has an abstract and 'abstract_missing: true'; remove one of them")
    elif "abstract" not in data and not flagged:
        found.error(1, "missing field 'abstract' (write 'abstract_missing: true' if no abstract is known)")
