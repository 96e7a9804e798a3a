"""Problems: everything a user can act on, as ``path:line: message``.

One record for every complaint about a user's files (a listing, a paper page, the
taxonomy, the settings, a reference catalogue, the disk) and one exception that
carries a list of them. Stages raise ``PapersiteError``; the command line catches
that one class, prints each problem on its own line and exits non-zero, so nothing
a user can fix ends in a traceback. Warnings are problems too
(``Severity.WARNING``): ``papersite check`` prints them beside the errors.

Every message is printed through here (``Problem.__str__``, ``PapersiteError.lines``,
``github_annotation``), and most of them quote a user's file: a title, a page key, a
listing line. A line break in such text would let the file choose the next printed line,
and GitHub Actions executes a line starting with ``::`` as a workflow command
(``::warning file=...``, ``::add-mask::``). So line breaks are shown as escapes
(``\\n``), no printed line starts with ``::``, and ``--format github`` uses GitHub's
own escaping.

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


# Every character str.splitlines() (and so a terminal, a log viewer or a CI runner) may break a line at.
_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(text: str) -> str:
    """``text`` as one printed line: line breaks as visible escapes, and never a leading ``::``."""
    text = str(text).translate(_LINE_BREAKS)
    # the runner strips leading white space before it looks for a command
    return "\\" + text if text.lstrip().startswith("::") else text


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in one file, at one line (``line`` 0 and ``path`` "": no place).

    ``detail``: lines a tool printed (the engine's warnings, a worker's traceback), shown
    indented below the message, each line made safe as the message is."""

    path: str
    line: int
    message: str
    severity: Severity = Severity.ERROR
    detail: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        return "\n".join(self.printed_lines())

    def printed_lines(self) -> list[str]:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        place = f"{self.path}:{self.line}: " if self.path else ""
        return [one_line(f"{place}{prefix}{self.message}")] + [
            "    " + one_line(line) for line in self.detail.splitlines() if line.strip()
        ]

    def github_annotation(self) -> str:
        """The problem as a GitHub Actions workflow command: the pull request shows it on the page's line."""
        command = "error" if self.is_error else "warning"
        message = "\n".join([self.message, *self.detail.splitlines()]) if self.detail else self.message
        return f"::{command} file={_github_escape(self.path, True)},line={self.line}::{_github_escape(message)}"

    @classmethod
    def parse(cls, text: str) -> "Problem":
        """A ``path:line: message`` line as a problem; text without a place stays a message."""
        match = _LOCATED.match(text)
        if match is None:
            return cls("", 0, text)
        return cls(match["path"], int(match["line"]), match["message"])


def _github_escape(text: str, in_property: bool = False) -> str:
    # GitHub's own escaping (actions/toolkit, command.ts): the runner turns these back into the text
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if in_property else text


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
        return [line for problem in self.problems for line in problem.printed_lines()]


def errors_only(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.is_error]
