"""Front matter: the one reader of a paper page's text, keeping the line of every value.

In:  page text and the path messages print.
Out: ``FrontMatter`` (the YAML mapping, the line of each key, of each list item and
     of each key of a nested mapping, the body and the line it starts on), or a
     ``PapersiteError`` (``path:line: message``) when the text is not a page.

The strict record reader (``record.py``), ``papersite check`` and every stage
read pages through here, so a page reads the same everywhere and every message
can point at the line a maintainer has to fix. The YAML is composed with the
strict reader of ``inputs.py`` (no aliases, anchors, duplicate keys or deep
nesting); its nodes give the lines for free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from generator.inputs import InputError, check_anchor_free, compose_yaml
from generator.problems import PapersiteError

FENCE = "---"
_CLOSING_FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)
YAML_FIRST_LINE = 2  # the YAML starts on the line after the opening fence


@dataclass(frozen=True)
class FrontMatter:
    """A page whose front matter parsed as a YAML mapping (its fields may still be wrong)."""

    label: str  # the path as messages print it
    data: dict[str, Any]
    body: str  # the maintainers' Markdown, without the blank lines after the fence
    body_line: int  # file line of the body's first character
    key_lines: dict[str, int] = field(default_factory=dict)  # top-level key -> line
    item_lines: dict[str, list[int]] = field(default_factory=dict)  # list field -> line of each item
    sub_lines: dict[str, dict[str, int]] = field(default_factory=dict)  # mapping field -> its key -> line

    def line(self, key: str, sub: str | None = None) -> int:
        """Line of a field (or of one key of a mapping field); line 1 when the field is absent."""
        line = self.key_lines.get(key, 1)
        return self.sub_lines.get(key, {}).get(sub, line) if sub is not None else line

    def item_line(self, key: str, index: int) -> int:
        items = self.item_lines.get(key, [])
        return items[index] if index < len(items) else self.line(key)

    @classmethod
    def of(cls, data: dict[str, Any], body: str = "", label: str | Path = "<page>") -> "FrontMatter":
        """Fields that never were a file (a merge's result, a correction): every line is 1."""
        return cls(str(label), dict(data), body, 1)


def read_text(path: Path, label: str) -> str:
    """A page file's text; not UTF-8 or not a file is a problem of the page."""
    try:
        data = path.read_bytes()
    except OSError as error:  # a directory or a dangling symlink named *.md
        raise PapersiteError.at(label, 1, f"cannot read the page ({error.strerror}); a paper page must be a file") from None
    return decode_text(data, label)


def decode_text(data: bytes, label: str) -> str:
    """A page's bytes as text, line ends as a text-mode read gives them."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PapersiteError.at(label, 1, f"not UTF-8 text ({error.reason}); save the file as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_front_matter(text: str, label: str | Path = "<page>") -> FrontMatter:
    label = str(label)
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith(FENCE + "\n"):
        raise PapersiteError.at(label, 1, "page must start with a '---' line opening the YAML front matter")
    closing = _CLOSING_FENCE.search(text, 4)
    if closing is None:
        raise PapersiteError.at(label, 1, "front matter is never closed: add a '---' line after the last field")
    yaml_text = text[4 : closing.start()]
    try:
        check_anchor_free(yaml_text, YAML_FIRST_LINE)
        data, node = compose_yaml(yaml_text, YAML_FIRST_LINE)
    except InputError as error:
        raise PapersiteError.at(label, error.line, error.about("front matter")) from None
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise PapersiteError.at(label, YAML_FIRST_LINE, "front matter must be a YAML mapping of 'field: value' lines")

    key_lines: dict[str, int] = {}
    item_lines: dict[str, list[int]] = {}
    sub_lines: dict[str, dict[str, int]] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        key_lines.setdefault(key, YAML_FIRST_LINE + key_node.start_mark.line)
        if isinstance(value_node, yaml.SequenceNode):
            item_lines[key] = [YAML_FIRST_LINE + item.start_mark.line for item in value_node.value]
        elif isinstance(value_node, yaml.MappingNode):
            sub_lines[key] = {str(sub.value): YAML_FIRST_LINE + sub.start_mark.line for sub, _ in value_node.value}

    after_fence = text[closing.end() :]
    body = after_fence.lstrip("\n")
    body_line = text.count("\n", 0, closing.end()) + 1 + (len(after_fence) - len(body))
    return FrontMatter(label, data, body, body_line, key_lines, item_lines, sub_lines)


def render_front_matter(yaml_text: str, body: str) -> str:
    """Page text from dumped YAML and a body: the inverse of ``parse_front_matter``."""
    text = f"{FENCE}\n{yaml_text}{FENCE}\n"
    body = body.strip("\n")
    return text + f"\n{body}\n" if body else text
