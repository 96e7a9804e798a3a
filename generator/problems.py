"""Problems: everything a user can act on, as ``path:line: message``.

One record for every complaint about a user's files (a listing, a paper page, the
taxonomy, the settings, a reference catalogue, the disk) and one exception that
carries a list of them. Stages raise ``PapersiteError``; the command line catches
that one class, prints each problem on its own line and exits non-zero, so nothing
a user can fix ends in a traceback. Warnings are problems too
(``Severity.WARNING``): ``papersite check`` prints them beside the errors.

The strict readers of ``inputs.py`` raise ``InputError`` (a line and a message,
no path: they read text, not files); whoever knows the file turns it into a
problem here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Iterable


class Severity(str, Enum):
    """How a problem affects the build."""

    ERROR = "error"  # the command fails (non-zero exit); a build refuses to run
    WARNING = "warning"  # reported, but the file is usable as it is


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in one file, at one line (``line`` 0 and ``path`` "": no place)."""

    path: str
    line: int
    message: str
    severity: Severity = Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        if not self.path:
            return f"{prefix}{self.message}"
        return f"{self.path}:{self.line}: {prefix}{self.message}"

    @classmethod
    def parse(cls, text: str) -> "Problem":
        """A ``path:line: message`` line as a problem; text without a place stays a message."""
        match = _LOCATED.match(text)
        if match is None:
            return cls("", 0, text)
        return cls(match["path"], int(match["line"]), match["message"])


# The path may hold colons (Windows drives, odd names); the line is the last ":digits:" before the message.
_LOCATED = re.compile(r"(?P<path>.+?):(?P<line>\d+): (?P<message>.*)\Z", re.DOTALL)


class PapersiteError(Exception):
    """The one exception for user errors: a list of problems, at least one an error."""

    def __init__(self, *problems: Problem | str) -> None:
        self.problems = [p if isinstance(p, Problem) else Problem.parse(p) for p in problems]
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: str | Path, line: int, message: str) -> "PapersiteError":
        return cls(Problem(str(path), line, message))

    def noting(self, note: str) -> "PapersiteError":
        """The same problems, each message followed by ``note`` (where the file was named, what to do first)."""
        return PapersiteError(*(Problem(p.path, p.line, f"{p.message} {note}", p.severity) for p in self.problems))

    @property
    def first(self) -> Problem:
        return self.problems[0]

    def lines(self) -> list[str]:
        return [str(problem) for problem in self.problems]


def errors_only(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.is_error]
