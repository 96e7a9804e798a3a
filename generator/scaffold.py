"""Scaffolding: ``papersite init DIR`` writes a new, working site skeleton.

In:  a target directory (absent or empty), a site name, and optionally the user's
     own listing (``--from FILE``).
Out: papersite.yml, mkdocs.yml, corpus/ with a tiny example listing (or a copy of
     FILE, read first: a file that is no listing stops init before anything is
     written), an empty site_src/papers/ (home and about pages are generated), and a
     .gitignore. ``papersite build`` and ``papersite check`` work in it straight away.

The templates live in ``generator/scaffold/`` as plain files so that they can
be read and diffed like the real site's. ``mkdocs.yml`` there is kept in step
with the repository's own (tests/test_scaffold.py compares them), so a new
site gets the same theme and plugins as the bundled one.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from string import Template

from generator.config import bundled_taxonomy, site_name_problem
from generator.enrich.taxonomy import load_taxonomy
from generator.ingest.listing import Listing, ReadSettings, parse_listing
from generator.inputs import MAX_LISTING_BYTES, read_capped, readable_file
from generator.pages.markup import plain_meta_text

TEMPLATE_PACKAGE = "generator"
TEMPLATE_DIR = "scaffold"

# Template file -> path in the new site. Files that git or a shell would hide
# are stored under visible names so that packaging keeps them.
RENAMES = {"gitignore": ".gitignore"}
# Only these get $site_name substituted; the rest are copied byte for byte.
SUBSTITUTED = {"papersite.yml", "mkdocs.yml"}
EXAMPLE_LISTING = "corpus/example.jsonl"  # replaced by the user's own listing (``--from``)


def template_root() -> Traversable:
    return resources.files(TEMPLATE_PACKAGE) / TEMPLATE_DIR


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    files = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            if child.name != "__pycache__":
                files.extend(_walk(child, f"{rel}/"))
        else:
            files.append((rel, child))
    return files


def skeleton_files(site_name: str) -> dict[str, str]:
    """Relative path in the new site -> file text."""
    files = {}
    for rel, source in _walk(template_root()):
        text = source.read_text(encoding="utf-8")
        if rel in SUBSTITUTED:
            # The theme prints mkdocs.yml's site_name unescaped (header, aria-label):
            # it gets the plain-text form; papersite.yml keeps the name as typed (we escape it).
            name = plain_meta_text(site_name) if rel == "mkdocs.yml" else site_name
            # safe_substitute: a stray '$' in a template must not break init.
            text = Template(text).safe_substitute(site_name=_yaml_safe(name) if rel.endswith(".yml") else name)
        files[RENAMES.get(rel, rel)] = text
    return files


def _yaml_safe(value: str) -> str:
    """A site name as a YAML scalar: quoted, so 'Papers: 2025' stays one string."""
    return json.dumps(" ".join(value.split()), ensure_ascii=False)  # a JSON string is YAML; no raw newline


def create_site(directory: Path, site_name: str, listing: tuple[str, bytes, Listing] | None = None) -> list[Path]:
    """Write the skeleton into ``directory``; refuses to touch a non-empty one.

    ``listing``: (file name, bytes, what they read as) of the user's own listing, written to corpus/ instead of the example."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise FileExistsError(f"{directory} exists and is not an empty directory; choose a new one")
    files: dict[str, str | bytes] = dict(skeleton_files(site_name))
    if listing is not None:
        del files[EXAMPLE_LISTING]
        files[f"corpus/{listing[0]}"] = listing[1]
    written = []
    for rel, content in files.items():
        target = directory / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        written.append(target)
    (directory / "site_src" / "papers").mkdir(parents=True, exist_ok=True)
    return written


def run_init(args: argparse.Namespace) -> int:
    directory: Path = args.directory
    problem = site_name_problem(args.site_name)
    if problem:
        print(f"papersite init: --site-name {problem}", file=sys.stderr)
        return 2
    own = None
    if args.listing is not None:
        own = _own_listing(args.listing)  # PapersiteError (path:line: ...) before anything is written
    try:
        written = create_site(directory, args.site_name, own)
    except FileExistsError as error:
        print(f"papersite init: {error}", file=sys.stderr)
        return 2
    print(f"papersite init: created {len(written)} files in {directory}")
    if own is not None:
        count = len(own[2].entries)
        print(f"Your listing: corpus/{own[0]} ({own[2].format}, {count} paper{'' if count == 1 else 's'})")
    print("Next steps:")
    print(f"  cd {directory}")
    print("  papersite build      # import corpus/, write one page per paper, build site/")
    print("  papersite serve      # preview at http://127.0.0.1:8000/")
    print("  papersite check      # what CI runs on every pull request")
    if own is None:
        print("Replace corpus/example.jsonl with your own listings, then build again.")
    return 0


def _own_listing(path: Path) -> tuple[str, bytes, Listing]:
    """The file name, bytes and entries of the user's listing, once it reads as one (``PapersiteError`` if not).

    A dot-file would be skipped as a listing by the import (``sources.corpus_files``): its copy loses the dot."""
    path = readable_file(path, None)
    data = read_capped(path, MAX_LISTING_BYTES, "listing")
    listing = parse_listing(data, path, ReadSettings(taxonomy=load_taxonomy(bundled_taxonomy())))
    name = path.name.lstrip(".") or "listing"
    return name, data, listing
