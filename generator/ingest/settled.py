"""Settled matches: a maintainer's word on a reference match the import could not decide.

In:  the settled-matches file (papersite.yml ``settled_matches``, default
     ``.papersite/settled_matches.yaml``, committed with the pages) and the known
     pages' slugs with their listing sources.
Out: ``Settled``: for one reference catalogue and the merged papers of this import,
     which (paper, record) pairings are right and which are wrong
     (``references.py`` applies the first and never applies nor reports the second).

The file is a YAML list; each item names the paper (``paper: SLUG``, or ``source:
"FILE #N"`` as the import report names its listing entries), the reference file
and its record number (``papersite import --report`` lists both for every
candidate), and ``match: right`` or ``match: wrong``. ``reference_title``, when
given, must still be the record's title: a reference file that changed under a
settlement is reported, not applied blindly.

    - paper: how-new-data-pollutes-llm-knowledge-and-how-to-dilute-it
      reference: iclr2025_openreview.jsonl.gz
      record: 4382
      match: right
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import yaml

from generator.inputs import InputError, check_anchor_free, compose_yaml, read_capped, readable_file
from generator.problems import PapersiteError
from generator.text import title_key

VERDICTS = {"right": True, "wrong": False}
_KEYS = ("paper", "source", "reference", "record", "match", "reference_title", "note")
_SOURCE = re.compile(r"^(?P<file>[^#]+?)\s+#(?P<entry>\d+)$")
MAX_SETTLED_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class SettledMatch:
    """One line of the file: a pairing and the maintainer's verdict."""

    line: int
    names: str  # what the file calls the paper ("paper: slug" or "source: file #n")
    sources: frozenset[tuple[str, int]]  # the listing entries that are this paper
    reference: str
    record: int  # 1-based, as the report numbers records
    right: bool
    reference_title: str | None = None


@dataclass
class Settled:
    """Every settled match, and what could not be applied (for the import's warnings)."""

    matches: list[SettledMatch] = field(default_factory=list)
    path: str = ""
    warnings: list[str] = field(default_factory=list)
    used: set[int] = field(default_factory=set)  # lines of the matches that named a paper of this import

    def for_reference(self, reference: str, titles: list[str | None], papers: Iterable[object]) -> dict[tuple[int, int], bool]:
        """(paper position, 0-based record) -> verdict, for one reference of ``len(titles)`` records."""
        mine = [m for m in self.matches if m.reference == reference]
        if not mine:
            return {}
        by_source: dict[tuple[str, int], int] = {}
        for position, paper in enumerate(papers):
            for source in paper.sources:  # type: ignore[attr-defined]
                by_source.setdefault((source.file, source.entry), position)
        settled: dict[tuple[int, int], bool] = {}
        for match in mine:
            where = f"{self.path}:{match.line}"
            if not 1 <= match.record <= len(titles):
                self.warnings.append(f"{where}: {reference} has no record {match.record} ({len(titles)} records); not applied")
                continue
            title = titles[match.record - 1]
            if match.reference_title is not None and title_key(match.reference_title) != title_key(title):
                self.warnings.append(
                    f"{where}: record {match.record} of {reference} is now titled {title!r}, not {match.reference_title!r}; "
                    "not applied (check the settlement)"
                )
                continue
            positions = sorted({by_source[s] for s in match.sources if s in by_source})
            if not positions:
                continue  # the paper is not in this import's listings (or the slug is unknown): said once, by unused()
            self.used.add(match.line)
            for position in positions:
                settled[(position, match.record - 1)] = match.right
        return settled

    def unused(self) -> list[str]:
        """Warnings for settlements that named no paper of the import."""
        return [
            f"{self.path}:{m.line}: {m.names} is not a paper of this import; settlement not applied"
            for m in self.matches
            if m.line not in self.used
        ]


def load_settled(path: Path | None, slug_sources: Mapping[str, Iterable[tuple[str, int]]], root: Path | None = None) -> Settled:
    """Read the file (absent: nothing settled); ``slug_sources``: each known page's listing entries by slug;
    ``root``: the project, which the file must lie in."""
    if path is None or not (path.exists() or path.is_symlink()):
        return Settled()
    label = str(path)
    readable_file(path, root)  # a regular file, inside the project
    try:
        text = read_capped(path, MAX_SETTLED_BYTES, "settled matches file").decode("utf-8")
        check_anchor_free(text)
        data, node = compose_yaml(text)
    except InputError as error:
        raise PapersiteError.at(label, error.line, error.about("settled matches file")) from None
    except (OSError, UnicodeDecodeError) as error:
        raise PapersiteError.at(label, 1, f"cannot read the settled matches ({error})") from None
    if data is None:
        return Settled(path=label)
    if not isinstance(data, list) or not isinstance(node, yaml.SequenceNode):
        raise PapersiteError.at(label, 1, "expected a list of settled matches (paper, reference, record, match)")
    errors: list[str] = []
    matches: list[SettledMatch] = []
    for item, item_node in zip(data, node.value):
        line = item_node.start_mark.line + 1
        problem, match = _settled_match(item, line, slug_sources)
        if problem:
            errors.append(f"{label}:{line}: {problem}")
        elif match is not None:
            matches.append(match)
    if errors:
        raise PapersiteError(*errors)
    return Settled(matches, label)


def _settled_match(
    item: object, line: int, slug_sources: Mapping[str, Iterable[tuple[str, int]]]
) -> tuple[str | None, SettledMatch | None]:
    if not isinstance(item, dict):
        return "each settled match is a mapping with paper (or source), reference, record and match", None
    unknown = sorted(set(map(str, item)) - set(_KEYS))
    if unknown:
        return f"unknown key(s) {', '.join(unknown)}; expected some of {', '.join(_KEYS)}", None
    verdict = item.get("match")
    if verdict not in VERDICTS:
        return f"match must be 'right' or 'wrong', got {verdict!r}", None
    reference, record = item.get("reference"), item.get("record")
    if not isinstance(reference, str) or not reference.strip() or "/" in reference:
        return f"reference must be the reference catalogue's file name, got {reference!r}", None
    if isinstance(record, bool) or not isinstance(record, int) or record < 1:
        return f"record must be the record's number (1 or more), as the import report gives it, got {record!r}", None
    title = item.get("reference_title")
    if title is not None and not isinstance(title, str):
        return f"reference_title must be text, got {title!r}", None
    paper, source = item.get("paper"), item.get("source")
    if (paper is None) == (source is None):
        return "name the paper with one of 'paper: SLUG' or 'source: \"FILE #N\"'", None
    if paper is not None:
        if not isinstance(paper, str) or paper not in slug_sources:
            return f"no paper page has the slug {paper!r}", None
        names, sources = f"paper {paper}", frozenset(slug_sources[paper])
    else:
        found = _SOURCE.match(source) if isinstance(source, str) else None
        if not found:
            return f"source must name a listing entry as the report does (\"FILE #N\"), got {source!r}", None
        names, sources = f"source {source}", frozenset({(found["file"].strip(), int(found["entry"]))})
    return None, SettledMatch(line, names, sources, reference, record, VERDICTS[verdict], title)
