"""BibTeX listings: a bibliography (Zotero, Google Scholar, DBLP, a lab's ``.bib``).

In:  the listing's lines.
Out: a ``Listing`` of format ``bibtex``: one entry per ``@article``, ``@inproceedings``,
     ... (not ``@string``, ``@preamble``, ``@comment``), its authors in the entry's
     order, which is the paper's (a bibliography cites them so).

Parsing is bibtexparser's (1.4: ``@string`` macros, ``#`` concatenation, the month
names); TeX in values (accents, braces, ``\\emph``, ``--``) becomes Unicode through
pylatexenc, which keeps ``$...$`` formulas as written for the site's MathML. Authors
are split on the ``and`` outside braces first, so ``{Johnson and Johnson}`` is one
corporate author, kept whole; "Last, First" becomes "First Last"; a trailing
``and others`` adds no name (the listing warns that the list is cut short).
``booktitle`` or ``journal`` with ``year`` is the paper's venue; ``url``, ``doi`` and
an arXiv ``eprint`` are its links; the entry type is kept for citations (``cite.py``).

Both libraries recurse, so the file is scanned first, without recursion
(``scan_entries``): braces nested deeper than ``MAX_BRACE_DEPTH`` and unbalanced braces
are ``path:line:`` errors naming the entry, before either library sees them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import bibtexparser
from bibtexparser.bparser import BibTexParser
from bibtexparser.customization import splitname
from pylatexenc.latex2text import LatexNodes2Text

from generator.ingest.entry import (
    Listing,
    ListingEntry,
    arxiv_url,
    clean_abstract,
    distinct_keywords,
    doi_url,
    link_name,
    one_line,
    venue_with_year,
    web_links,
)
from generator.problems import PapersiteError

FORMAT_BIBTEX = "bibtex"

# Real entries nest braces three or four deep ({\"{u}}); the parsers recurse per level.
MAX_BRACE_DEPTH = 32
# The parser is pure Python (pyparsing): 11,672 entries with abstracts (18 MB) took 70 s of CPU, so a
# bibliography past this size is refused at once rather than parsed for minutes.
MAX_BIBTEX_BYTES = 48 * 1024 * 1024
NOT_PAPERS = ("string", "preamble", "comment")

_ENTRY = r"[ \t]*@[ \t]*([A-Za-z]+)[ \t]*([{(])[ \t]*([^,\s{}()]*)"  # '@type{key': type, opener, key
_ENTRY_START = re.compile(_ENTRY)
_ENTRY_AT_LINE_START = re.compile("^" + _ENTRY, re.MULTILINE)
# What a line that opens the next entry looks like ('@article{key,' or '@string{'), as opposed to an '@' in a value.
_NEXT_ENTRY = re.compile(r"[ \t]*@[ \t]*(?:[A-Za-z]+[ \t]*[{(][ \t]*[^,\s{}()=]+[ \t]*,|(?:string|preamble)[ \t]*[{(])", re.IGNORECASE)
_TOKENS = re.compile(r"[{}()\n]")


@dataclass(frozen=True)
class ScannedEntry:
    line: int  # where its '@' is
    kind: str  # entry type, lower case
    key: str  # its citation key ("" for @string and the like)
    start: int = 0  # its text is text[start:end]
    end: int = 0


def looks_like_bibtex(lines: list[str]) -> bool:
    """The first line that is not blank or a '%' comment opens an entry ('@article{', '@string(' ...)."""
    first = next((line for line in lines if line.strip() and not line.lstrip().startswith("%")), "")
    return _ENTRY_START.match(first) is not None


def scan_entries(text: str, path: Path) -> list[ScannedEntry]:
    """Every entry's line, type and key; ``PapersiteError`` for braces nested too deep or not balanced.

    BibTeX ignores text between entries; an entry opened with '{' ends at its matching '}', one opened
    with '(' at a ')' outside braces. An entry still open where the next line starts with '@type{' has
    lost a brace: that is the mistake people make, and the message names the entry it happened in."""
    found: list[ScannedEntry] = []
    line = 1
    position = 0
    current: ScannedEntry | None = None
    opener, depth = "", 0

    while position < len(text):
        if current is None:
            match = _ENTRY_AT_LINE_START.search(text, position)  # one pass: '@' in the middle of a line is text
            if match is None:
                break
            line += text.count("\n", position, match.start(1))
            current = ScannedEntry(line, match.group(1).lower(), match.group(3), match.start())
            opener, depth = match.group(2), (1 if match.group(2) == "{" else 0)
            line += text.count("\n", match.start(1), match.end())
            position = match.end()
            continue
        token = _TOKENS.search(text, position)
        if token is None:
            break
        char = token.group(0)
        position = token.end()
        if char == "\n":
            line += 1
            nxt = _ENTRY_START.match(text, position)
            if nxt is not None and nxt.group(1).lower() != "comment" and _NEXT_ENTRY.match(text, position):
                raise PapersiteError.at(
                    path, current.line,
                    f"entry {_name(current)}: unbalanced braces: {depth} '{{' still open where "
                    f"the next entry (@{nxt.group(1)}) starts at line {line}",
                )
        elif char == "{":
            depth += 1
            if depth > MAX_BRACE_DEPTH:
                raise PapersiteError.at(path, line, f"entry {_name(current)} (line {current.line}): braces nested more than {MAX_BRACE_DEPTH} deep")
        elif char == "}":
            depth -= 1
            if depth < 0 or (depth == 0 and opener == "("):
                raise PapersiteError.at(path, line, f"entry {_name(current)} (line {current.line}): a '}}' closes no '{{'")
            if depth == 0:
                found.append(replace(current, end=position))
                current = None
        elif char == ")" and opener == "(" and depth == 0:
            found.append(replace(current, end=position))
            current = None
    if current is not None:
        raise PapersiteError.at(path, current.line, f"entry {_name(current)}: unbalanced braces: {max(depth, 1)} '{{' never closed before the file ends")
    return found


def _name(entry: ScannedEntry) -> str:
    return f"'{entry.key}'" if entry.key else f"@{entry.kind}"


def read_bibtex(lines: list[str], path: Path) -> Listing:
    text = "\n".join(lines)
    if len(text) > MAX_BIBTEX_BYTES:
        raise PapersiteError.at(path, 1, f"this bibliography is {len(text) / 2**20:.0f} MiB; a BibTeX listing may hold at most {MAX_BIBTEX_BYTES // 2**20} MiB (split it into several files)")
    every = scan_entries(text, path)
    scanned = [entry for entry in every if entry.kind not in NOT_PAPERS]
    parser = BibTexParser(common_strings=True, ignore_nonstandard_types=False, interpolate_strings=True)
    # The parser is handed the entries alone: what lies between them is ignored by BibTeX, and pyparsing
    # would try every '@' of it (minutes for a line of them).
    entries_text = "\n\n".join(text[entry.start : entry.end] for entry in every)
    try:
        parsed = bibtexparser.loads(entries_text, parser).entries
    except RecursionError:
        raise PapersiteError.at(path, 1, "this bibliography nests too deeply to read") from None
    except Exception as error:  # the parser's own exceptions name no line; ours does
        raise PapersiteError.at(path, 1, f"not readable as BibTeX ({type(error).__name__}: {str(error)[:120]})") from None
    listing = Listing(path, FORMAT_BIBTEX, [], author_order="paper")
    converter = LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)
    lines_of = _lines_by_key(scanned, parsed)
    for fields in parsed:
        line = lines_of.pop(0) if lines_of else 1
        entry = _entry(fields, converter, path, len(listing.entries) + 1, line, listing.warnings)
        if entry is not None:
            listing.entries.append(entry)
    if len(parsed) < len(scanned):
        listing.warnings.append(f"{path}:1: {len(scanned) - len(parsed)} of {len(scanned)} entries could not be parsed (no key?): skipped")
    return listing


def _lines_by_key(scanned: list[ScannedEntry], parsed: list[dict]) -> list[int]:
    """The line of each parsed entry: the next scanned entry with its key (the parser keeps file order, may skip some)."""
    lines, at = [], 0
    for fields in parsed:
        key = fields.get("ID", "")
        found = next((i for i in range(at, len(scanned)) if scanned[i].key == key), None)
        if found is None:
            lines.append(scanned[at].line if at < len(scanned) else 1)
        else:
            lines.append(scanned[found].line)
            at = found + 1
    return lines


# Only a value with one of these holds TeX to convert; the rest (most abstracts) are taken as they are,
# which spares pylatexenc's pure-Python tokenizer (a few ms per abstract).
_TEX = re.compile(r"[\\{}~$&^_]|--|``|''")
# A bare '%' starts a TeX comment (the rest of the line would be lost) and a bare '&' is a table's column
# separator (dropped); in a bibliography's text they mean per cent and "and", so they are read as escaped.
_BARE_PERCENT = re.compile(r"(?<!\\)([%&])")


def _text(converter: LatexNodes2Text, value: str | None, path: Path, line: int) -> str | None:
    if not value:
        return None
    if not _TEX.search(value):
        return one_line(value)
    try:
        return one_line(converter.latex_to_text(_BARE_PERCENT.sub(r"\\\1", value)))
    except RecursionError:
        raise PapersiteError.at(path, line, "a value nests TeX too deeply to read") from None


def split_authors(value: str) -> list[str]:
    """The names of an ``author`` field, split on the ``and`` outside braces (BibTeX's own rule), still in TeX."""
    names, depth, start = [], 0, 0
    for match in re.finditer(r"[{}]|\s+and\s+", value, re.IGNORECASE):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            names.append(value[start : match.start()])
            start = match.end()
    names.append(value[start:])
    return [name.strip() for name in names if name.strip()]


def _author(name: str, converter: LatexNodes2Text, path: Path, line: int) -> str | None:
    if name.startswith("{") and name.endswith("}") and _balanced(name[1:-1]):
        return _text(converter, name[1:-1], path, line)  # {Corporate Authors Inc}: one name, as written
    try:
        parts = splitname(name, strict_mode=False)
    except Exception:  # bibtexparser raises InvalidName for what it cannot split; keep the name as written
        return _text(converter, name, path, line)
    ordered = parts.get("first", []) + parts.get("von", []) + parts.get("last", []) + parts.get("jr", [])
    return _text(converter, " ".join(ordered), path, line)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _entry(fields: dict, converter: LatexNodes2Text, path: Path, number: int, line: int, warnings: list[str]) -> ListingEntry | None:
    def text(name: str) -> str | None:
        return _text(converter, fields.get(name), path, line)

    title, abstract = text("title"), clean_abstract(text("abstract"))
    if title is None and abstract is None:
        warnings.append(f"{path}:{line}: entry '{fields.get('ID', '')}' has neither title nor abstract: skipped")
        return None
    names = split_authors(fields.get("author", ""))
    if names and names[-1].casefold() == "others":
        names.pop()
        warnings.append(f"{path}:{line}: entry '{fields.get('ID', '')}' lists its authors as '... and others': only the named ones are kept")
    authors = [author for author in (_author(name, converter, path, line) for name in names) if author]
    links: dict[str, str] = {}
    url = one_line(fields.get("url"))
    if url:
        links[link_name(url)] = url
    doi = doi_url(fields.get("doi", ""))
    if doi:
        links["doi"] = doi
    eprint = fields.get("eprint", "")
    prefix = fields.get("archiveprefix", fields.get("eprinttype", "arxiv"))
    if eprint and prefix.strip().lower() == "arxiv" and arxiv_url(eprint):
        links["arxiv"] = arxiv_url(eprint)  # type: ignore[assignment]
    texts = {"entry_type": fields.get("ENTRYTYPE", "misc").lower()}
    venue = venue_with_year(text("booktitle") or text("journal"), fields.get("year", ""))
    if venue:
        texts["venue"] = venue
    keywords = [k.strip() for k in re.split(r"[,;]", text("keywords") or "") if k.strip()]
    return ListingEntry(
        path.name, number, line, FORMAT_BIBTEX,
        title=title,
        authors=authors,
        abstract=abstract,
        links=web_links(links, path, line, warnings),
        keywords=distinct_keywords(keywords),
        texts=texts,
    )
