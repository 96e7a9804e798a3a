"""The listings of the corpus folder: which of its files an import reads when none is named.

Apart from the readers (``sources.py``): the check names what it may not read of the corpus
folder on every build, which reads no listing.
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.config import ProjectConfig
from generator.inputs import lies_inside, readable_file
from generator.problems import PapersiteError, Problem


def corpus_files(config: ProjectConfig) -> tuple[list[Path], list[Problem]]:
    """The listings of ``corpus_dir`` an import reads by default, and the problem of each entry
    papersite may not read (``inputs.readable_file``: a link out of the project, a FIFO).

    Folders (``corpus/references/``) and dot-files are not listings; a reference catalogue is
    never a listing, even when it sits among them."""
    references = set(config.references)
    found: list[Path] = []
    problems: list[Problem] = []
    if not config.corpus_dir.is_dir():
        return found, problems
    for path in sorted(config.corpus_dir.iterdir()):
        if path.name.startswith(".") or (path.is_dir() and lies_inside(path, config.root)):
            continue
        try:
            readable_file(path, config.root, os.path.relpath(path))
        except PapersiteError as error:
            problems.extend(error.problems)
            continue
        if path.resolve() not in references:
            found.append(path)
    return found, problems
