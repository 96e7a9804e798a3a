"""Untrusted input: the limits every reader enforces, and strict YAML / JSON / gzip readers.

In:  bytes or text from a listing, a paper page or ``papersite.yml``.
Out: parsed data, or ``InputError(line, message)`` raised *before* the costly
     work, which each caller turns into its own ``path:line: message`` error.

Pages and listings come from pull requests and downloads, so nothing here
trusts a size: a gzip stream is inflated through a cap, JSON nesting and number
length are bounded, YAML aliases (the "billion laughs" bomb) and anchors are
refused, and a key given twice is an error instead of silently keeping the last
value. The limits are stated in README.md ("Limits"); this module is the one
place that defines them.

It also says which files papersite may read at all (``readable_file``): a
project's pages, listings and settings come from pull requests, and git stores
symlinks, so a page linked to ``/proc/self/environ`` would otherwise be read
and published; a FIFO among them would hang the read. Papersite's own files (the build
folder's caches and staged data, the site it wrote) are opened through ``open_regular``,
which refuses a FIFO, device or socket put in their place without waiting on it.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import re
import stat
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from generator.problems import PapersiteError

# A listing (after gzip inflation). The 11,672-paper reference catalogue is ~20 MB
# inflated; the cap leaves room for corpora twenty times that size.
MAX_LISTING_BYTES = 512 * 1024 * 1024
# The paper count a listing's header announces: a 512 MiB listing holds fewer entries than this.
MAX_ANNOUNCED_PAPERS = 10_000_000
# Paper records are two or three levels deep; nothing legitimate nests 64 levels.
MAX_JSON_DEPTH = 64
# Digits in one JSON number: an entry number or a confidence, never a 5,000-digit integer.
MAX_NUMBER_CHARS = 100
# YAML nesting in a page or a setting file (pages are two levels deep).
MAX_YAML_DEPTH = 32

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class InputError(ValueError):
    """Input refused at ``line`` (1-based, relative to the text handed in)."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"{line}: {message}")

    def about(self, what: str) -> str:
        """The message with its subject: 'front matter is not valid YAML: ...', 'front matter: key ...'."""
        joiner = " is " if self.message.startswith("not valid") else ": "
        return f"{what}{joiner}{self.message}"


# --------------------------------------------------------------------------- files


def lies_inside(path: Path | str, root: Path) -> bool:
    """Whether ``path``, every symlink on the way followed, lies in the folder ``root`` (itself resolved)."""
    real = Path(os.path.realpath(path))
    return real == root or root in real.parents


def outside_problem(path: Path | str, root: Path) -> str | None:
    """Why ``path`` is not a place of the project at ``root`` (a symlink, or ``..``, leading out), or None."""
    if lies_inside(path, root):
        return None
    return f"leads outside the project (to {os.path.realpath(path)}); papersite reads and writes only inside {root}"


def read_capped(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the file ``path``, refused (``PapersiteError``, naming ``what``) past ``limit``.

    One byte past the limit is read, never more: a bigger file is refused before it fills memory."""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise PapersiteError.at(path, 1, f"cannot read the {what} ({error.strerror})") from None
    if len(data) > limit:
        raise PapersiteError.at(path, 1, f"the {what} is larger than {limit / (1024 * 1024):g} MiB")
    return data


def readable_file(path: Path | str, root: Path | None, label: str | None = None) -> Path:
    """``path``, if papersite may read it: the one guard every reader of a project's files goes through.

    A regular file (not a folder, FIFO, device or socket: a FIFO would hang the read),
    and with ``root`` (the resolved project folder) one whose real path, every symlink
    followed, lies inside it: a symlink that stays in the project is fine, one that
    leaves it is refused. ``root`` None: a file the user named on the command line,
    which may be anywhere. Raises ``PapersiteError`` ``label:1: message`` (``label``
    defaults to the path).
    """
    where = label if label is not None else str(path)
    problem = outside_problem(path, root) if root is not None else None
    if problem is None:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            problem = "does not exist" if not os.path.islink(path) else "is a symlink to nothing (a dangling symlink)"
        except OSError as error:
            problem = f"cannot be read ({error.strerror})"
        else:
            if not stat.S_ISREG(mode):
                problem = f"is {kind_of(mode)}, not a regular file; papersite reads only regular files"
    if problem is not None:
        raise PapersiteError.at(where, 1, problem)
    return Path(path)


def open_regular(path: Path | str) -> BinaryIO:
    """``path`` opened for reading if it is a regular file (a symlink followed); else ``OSError``, as for a
    missing file, which papersite's readers of their own files already take for "not there" (a cache to
    make again; its writer then names what is in the way: ``outputs.clear_the_way``). Opened without waiting
    (a FIFO's open waits for a writer) and judged by the open file, so nothing swapped in meanwhile is read:
    a FIFO or ``/dev/zero`` in the build folder or the site never hangs a build nor fills its memory."""
    return open(path, "rb", opener=_regular_opener)  # noqa: SIM115 - the caller closes it


def _regular_opener(path: str, _flags: int) -> int:
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"is {kind_of(mode)}, not a regular file", path)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_regular(path: Path | str) -> bytes:
    """The bytes of ``path`` if it is a regular file (``open_regular``); else ``OSError``."""
    with open_regular(path) as handle:
        return handle.read()


def read_regular_text(path: Path | str) -> str:
    """``Path.read_text(encoding="utf-8")`` (newlines as it reads them) of a regular file (``open_regular``)."""
    with io.TextIOWrapper(open_regular(path), encoding="utf-8") as text:
        return text.read()


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, for a message: "a folder", "a FIFO (named pipe)", ..."""
    for test, name in (
        (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a special file"


# --------------------------------------------------------------------------- gzip


_INFLATE_STEP = 1024 * 1024  # bytes inflated per step: the most held beyond what is kept
# Text compresses 3-10 times (the reference catalogue: 5); a file that inflates a hundred
# times is a bomb, so the cap is the smaller of the listing limit and this many times the
# file, never below GZIP_FLOOR_BYTES (small, very regular files compress far better).
MAX_GZIP_RATIO = 100
GZIP_FLOOR_BYTES = 64 * 1024 * 1024


def gzip_cap(compressed_bytes: int) -> int:
    """The most a gzip file of ``compressed_bytes`` may inflate to."""
    return min(MAX_LISTING_BYTES, max(GZIP_FLOOR_BYTES, MAX_GZIP_RATIO * compressed_bytes))


def gunzip_capped(data: bytes, limit: int | None = None) -> bytearray:
    """Inflate gzip data (all members) in one streaming pass, refused as soon as it passes the cap.

    Never holds more than the cap plus one step: a 254 KB file that would inflate to
    256 MiB costs the cap, not the 256 MiB (nor twice that, as ``gzip.decompress`` did).
    ``limit``: the cap itself (tests); by default ``gzip_cap`` of the file's size.
    A bytearray, not bytes: converting would copy the whole text once more.
    """
    limit = gzip_cap(len(data)) if limit is None else limit
    out = bytearray()
    while data:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            while True:
                chunk = inflater.decompress(data, _INFLATE_STEP)
                if len(out) + len(chunk) > limit:
                    raise InputError(1, f"gzip data inflates to more than {_mib(limit)} (the limit for this file)")
                out += chunk
                data = inflater.unconsumed_tail
                if inflater.eof or (not data and not chunk):
                    break
        except zlib.error as error:
            raise InputError(1, f"gzip data is corrupt ({error})") from None
        if not inflater.eof:
            raise InputError(1, "gzip data is corrupt (Compressed file ended before the end-of-stream marker was reached)")
        data = inflater.unused_data
        if data and data[:2] != b"\x1f\x8b":
            raise InputError(1, "gzip data is corrupt (trailing data after the last member)")
    return out


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB" if size >= 1024 * 1024 else f"{size} bytes"


# --------------------------------------------------------------------------- JSON

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNER_PAIR = re.compile(r"\[\]|\{\}")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (linear passes at C speed)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    for _ in range(limit):
        brackets, removed = _INNER_PAIR.subn("", brackets)
        if not brackets or not removed:
            return False  # balanced within the limit, or unbalanced: the parser will say where
    return bool(brackets)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


class _BadNumber(Exception):
    def __init__(self, text: str, why: str) -> None:
        self.text = text
        self.why = why


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _BadNumber(text, f"has more than {MAX_NUMBER_CHARS} characters")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _BadNumber(text, f"has more than {MAX_NUMBER_CHARS} characters")
    value = float(text)
    if math.isinf(value):
        raise _BadNumber(text, "is too large")
    return value


def _constant(text: str) -> Any:
    raise _BadNumber(text, "is not a JSON number (NaN and Infinity are not allowed)")


_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicates, parse_int=_int, parse_float=_float, parse_constant=_constant
)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    return False


def load_json(text: str, first_line: int = 1) -> Any:
    """One JSON value; ``InputError`` for bad syntax, duplicate keys, deep nesting, huge numbers."""
    if json_depth_exceeds(text):
        raise InputError(first_line, f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        value = _DECODER.decode(text)
        # \ud800 alone is valid JSON but no text: it could never be written as UTF-8.
        # Escapes of surrogates are rare, so only texts that have one are walked.
        if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(value):
            raise InputError(first_line, "a \\u escape gives a lone surrogate (half of a character), which is not text")
        return value
    except json.JSONDecodeError as error:
        raise InputError(first_line + error.lineno - 1, f"not valid JSON: {error.msg}") from None
    except _DuplicateKey as error:
        raise InputError(first_line, f"key {error.key!r} appears twice in one JSON object") from None
    except _BadNumber as error:
        raise InputError(first_line, f"number {error.text[:20]}{'…' if len(error.text) > 20 else ''} {error.why}") from None
    except RecursionError:
        raise InputError(first_line, f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from None


# --------------------------------------------------------------------------- YAML


_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


def _check_nodes(root: yaml.Node, first_line: int) -> None:
    """Refuse aliases, merge keys, duplicate keys and deep nesting, walking each node once."""
    seen: set[int] = set()
    # (node, depth, line of the place it is used: an alias's node is its anchor's, so the
    # line comes from the parent: the key of a mapping value, or the enclosing list)
    stack: list[tuple[yaml.Node, int, int]] = [(root, 1, first_line + root.start_mark.line)]
    while stack:
        node, depth, used_at = stack.pop()
        if id(node) in seen:  # an alias: the composer hands out the anchored node again
            raise InputError(used_at, "YAML aliases (*name) and anchors (&name) are not allowed; write the value out")
        seen.add(id(node))
        line = first_line + node.start_mark.line
        if depth > MAX_YAML_DEPTH:
            raise InputError(line, f"YAML nested more than {MAX_YAML_DEPTH} levels deep")
        # children are pushed last-first so they are visited in document order
        if isinstance(node, yaml.MappingNode):
            keys: dict[Any, int] = {}
            children: list[tuple[yaml.Node, int, int]] = []
            for key_node, value_node in node.value:
                key_line = first_line + key_node.start_mark.line
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise InputError(key_line, "YAML merge keys ('<<') are not allowed; write the fields out")
                if isinstance(key_node, yaml.ScalarNode):
                    key = key_node.value
                    if key in keys:
                        raise InputError(key_line, f"key {key!r} appears twice (first on line {keys[key]}); keep one")
                    keys[key] = key_line
                children += [(key_node, depth + 1, key_line), (value_node, depth + 1, key_line)]
            stack.extend(reversed(children))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1, line) for item in reversed(node.value))
        elif node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER_CHARS:
            raise InputError(line, f"number {node.value[:20]}… has more than {MAX_NUMBER_CHARS} characters")


_MAYBE_ANCHOR = re.compile(r"(?:^|[\s,\[{])&[^\s]")


def check_anchor_free(text: str, first_line: int = 1) -> None:
    """Refuse anchors even where no alias uses them: events carry them before any node is built."""
    # Only scanned when an '&' could start one: "R&D" or "A & B" in an abstract cannot.
    if not _MAYBE_ANCHOR.search(text):
        return
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if getattr(event, "anchor", None):
                raise InputError(first_line + event.start_mark.line, "YAML anchors (&name) are not allowed; write the value out")
    except yaml.YAMLError:
        return  # compose_yaml reports the syntax error with its line


_YAML_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]|\\U0000[dD][89a-fA-F]")


def compose_yaml(text: str, first_line: int = 1) -> tuple[Any, yaml.Node | None]:
    """(data, root node) of one YAML document, refusing what ``_check_nodes`` refuses.

    The node graph is composed first and checked before any Python object is
    built, so an alias bomb costs only its (small) text.
    """
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return None, None
            _check_nodes(node, first_line)
            data = loader.construct_document(node)
            if _YAML_SURROGATE_ESCAPE.search(text) and _lone_surrogate(data):
                raise InputError(first_line, "a \\u escape gives a lone surrogate (half of a character), which is not text")
            return data, node
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
            problem = getattr(error, "problem", None) or str(error).splitlines()[0]
            raise InputError(first_line + (mark.line if mark else 0), f"not valid YAML: {problem}") from None
        except (ValueError, OverflowError) as error:  # e.g. a 5,000-digit int (Python's int limit)
            if isinstance(error, InputError):
                raise
            raise InputError(first_line, f"not valid YAML: {str(error)[:120]}") from None
        except RecursionError:
            raise InputError(first_line, f"YAML nested more than {MAX_YAML_DEPTH} levels deep") from None
    finally:
        loader.dispose()


def load_yaml(text: str, first_line: int = 1) -> Any:
    check_anchor_free(text, first_line)
    return compose_yaml(text, first_line)[0]


def load_yaml_with_lines(text: str, first_line: int = 1) -> tuple[Any, dict[str, int]]:
    """(data, line of each top-level key) of a settings file."""
    check_anchor_free(text, first_line)
    data, node = compose_yaml(text, first_line)
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            lines.setdefault(str(key_node.value), first_line + key_node.start_mark.line)
    return data, lines
