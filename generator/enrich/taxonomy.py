"""Taxonomy: the two-level subject areas (Area -> Sub-areas) a site classifies papers into.

Project data, not code: the bundled scheme is ``generator/data/taxonomy.yaml``;
a site may point ``taxonomy_file`` in ``papersite.yml`` at its own file of the
same form (a YAML mapping of area name to a list of sub-area names).

In:  a taxonomy YAML file. Out: a validated ``Taxonomy``, which also says
whether a topic belongs to the scheme (listed topics outside it are kept, with
a warning: the listing wins, the taxonomy only advises).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from generator.inputs import InputError, load_yaml, readable_file

from generator.pages.record import Topic
from generator.problems import PapersiteError



@dataclass(frozen=True)
class Taxonomy:
    """Areas in file order, each with its sub-areas in file order."""

    areas: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def area_names(self) -> list[str]:
        return [area for area, _ in self.areas]

    def subareas(self, area: str) -> tuple[str, ...]:
        for name, subs in self.areas:
            if name == area:
                return subs
        return ()

    def labels(self) -> list[tuple[str, str]]:
        """Every (area, sub-area) pair, in file order."""
        return [(area, sub) for area, subs in self.areas for sub in subs]

    def contains(self, area: str, subarea: str | None = None) -> bool:
        if area not in self.area_names:
            return False
        return subarea is None or subarea in self.subareas(area)

    def resolve(self, area: str, subarea: str | None = None) -> tuple[str, str | None] | None:
        """The scheme's spelling of a topic, matching case and spacing loosely; None if absent."""
        area_key = _fold(area)
        for name, subs in self.areas:
            if _fold(name) != area_key:
                continue
            if not subarea:
                return name, None
            for sub in subs:
                if _fold(sub) == _fold(subarea):
                    return name, sub
            return None
        return None

    def topic_problem(self, topic: Topic) -> str | None:
        """Why a topic is outside the scheme (for warnings and ``papersite check``), or None."""
        if topic.area not in self.area_names:
            return f"topic area '{topic.area}' is not in the taxonomy; expected one of: {', '.join(self.area_names)}"
        if topic.subarea and topic.subarea not in self.subareas(topic.area):
            return (
                f"topic sub-area '{topic.subarea}' is not in area '{topic.area}' of the taxonomy; "
                f"expected one of: {', '.join(self.subareas(topic.area))}"
            )
        return None


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 1


def parse_taxonomy(text: str, path: str | Path = "<taxonomy>") -> Taxonomy:
    try:
        data = load_yaml(text)  # no aliases or duplicate areas, as for pages
    except InputError as error:
        raise PapersiteError.at(path, error.line, f"{error.about('taxonomy')}") from None
    if not isinstance(data, dict) or not data:
        raise PapersiteError.at(path, 1, "expected a mapping of area name to a list of sub-area names")
    areas: list[tuple[str, tuple[str, ...]]] = []
    for area, subs in data.items():
        line = _line_of(text, str(area))
        if not isinstance(area, str) or not area.strip():
            raise PapersiteError.at(path, line, f"area names must be non-empty strings, got {area!r}")
        if subs is None:
            subs = []
        if not isinstance(subs, list) or not all(isinstance(s, str) and s.strip() for s in subs):
            raise PapersiteError.at(path, line, f"area '{area}' must list its sub-areas as non-empty strings")
        duplicates = sorted({s for s in subs if subs.count(s) > 1})
        if duplicates:
            raise PapersiteError.at(path, line, f"area '{area}' lists sub-area '{duplicates[0]}' twice")
        if "·" in area or any("·" in s for s in subs):
            raise PapersiteError.at(path, line, "names may not contain '·', which separates area and sub-area")
        areas.append((area.strip(), tuple(s.strip() for s in subs)))
    return Taxonomy(tuple(areas))


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int) -> Taxonomy:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise PapersiteError.at(path, 1, f"cannot read taxonomy file ({error.strerror})") from None
    return parse_taxonomy(text, path)


def load_taxonomy(path: Path | str) -> Taxonomy:
    file = Path(path)
    try:
        mtime = file.stat().st_mtime_ns
    except OSError:
        raise PapersiteError.at(file, 1, "taxonomy file does not exist") from None
    readable_file(file, None)  # a FIFO would hang the read; config.py kept it inside the project
    return _load_cached(str(file), mtime)
