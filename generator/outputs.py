"""Files a user names for papersite to write: ``--report``, ``--timings``, ``correct --comment``.

In:  a path from the command line, and later the text to write there.
Out: ``check_output`` (a ``PapersiteError`` ``path:1: message``, raised before the
     command changes anything) and ``write_output`` (the file written whole).

Such a path is written only when it is a regular file or does not exist yet:
never through a symlink (``--report`` linked to a page or to ``~/.bashrc`` would
overwrite its target), never into a FIFO, a device or a folder. A command checks
its outputs first, so an output it could not write never leaves it half done
(``import --report some_dir/`` writes no page). The write itself goes to a fresh
temporary file beside the target, renamed over it: a reader sees the old file or
the new one, and a symlink put in the way meanwhile is replaced, not followed.

The project's own outputs (site_dir, build_dir, pages, the state folder) are
kept inside the project by ``config.py``, which refuses a setting that resolves
outside it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from generator.inputs import kind_of
from generator.problems import PapersiteError

if TYPE_CHECKING:
    from generator.config import ProjectConfig


def output_problem(path: Path | str) -> str | None:
    """Why papersite may not write the user-named ``path``, or None."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # not there (a file in its folders: said below)
        mode = None
    except OSError as error:
        return f"cannot be written ({error.strerror})"
    if mode is not None:
        if stat.S_ISLNK(mode):
            return "is a symlink; papersite never writes through one: name the file itself, or remove the link"
        if stat.S_ISDIR(mode):
            return "is a folder; name a file to write"
        if not stat.S_ISREG(mode):
            return "is a FIFO, device or socket, not a regular file; name a regular file to write"
        return None
    # missing: it will be made, and so will its missing folders, under the nearest existing one
    folder = Path(os.path.abspath(path)).parent
    while not os.path.lexists(folder):
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot be written: {folder} is not a folder"
    return None


def check_output(path: Path | str) -> Path:
    """``path`` if papersite may write it (a regular file or nothing yet); else ``PapersiteError``.

    For every output path a user names on the command line (``papersite correct --comment``
    too): call it before the command changes anything, then write with ``write_output``."""
    problem = output_problem(path)
    if problem is not None:
        raise PapersiteError.at(path, 1, problem)
    return Path(path)


def write_output(path: Path | str, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to the user-named ``path``, checked again, as a whole.

    Raises ``PapersiteError`` for a path ``check_output`` refuses and ``OSError`` for a
    full disk or a read-only folder (the caller says what was being written)."""
    replace_file(check_output(path), data)


def replace_file(path: Path | str, data: str | bytes) -> None:
    """``data`` (text as UTF-8) put at ``path`` as a new file, never written through what stood there (a
    symlink is replaced, a FIFO or device refused: ``clear_the_way``). For a file of papersite's own (the
    engine's derived config beside mkdocs.yml): a link committed in its place would otherwise have the build
    write into the link's target."""
    target = Path(path)
    clear_the_way(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp: a new name, created exclusively, so nothing already there is written through
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".papersite-tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(temporary, 0o666 & ~_umask())  # as open() would have made it (mkstemp: 0600)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def clear_the_way(path: Path | str) -> bool:
    """Before papersite writes a file of its own at ``path``: a symlink there is removed (True), never written
    through (it would write into its target); a FIFO, device or socket is refused, ``PapersiteError``
    ``path:1: message`` (opened for writing, a FIFO waits for a reader; papersite removes no special file)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    if stat.S_ISLNK(mode):
        os.unlink(path)
        return True
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise PapersiteError.at(path, 1, f"is {kind_of(mode)}, not a regular file; papersite writes a file of its own "
                                         "here: remove it")
    return False


def real_folder(base: Path | str, folder: Path | str, made: set[Path] | None = None) -> None:
    """``folder`` (inside ``base``, a folder papersite writes into: the site) made, every step from ``base`` a folder
    of its own. A symlink on the way is refused, ``PapersiteError`` ``path:1: message``: written through, it could
    lead out of the project or into its sources (``project_place_problems`` looks at the site's top only), and
    removed, the files an engine run put behind it would be gone from a site the next build takes as whole. A regular
    file in the way is removed (an earlier build's output), a FIFO or device refused (``clear_the_way``). ``made``:
    the folders already made so in this pass (not looked at again; those made now are added)."""
    folder = Path(folder)
    if made is not None and folder in made:
        return
    at = Path(base)
    for part in folder.relative_to(base).parts:
        at = at / part
        if made is not None and at in made:
            continue
        try:
            mode = os.lstat(at).st_mode
        except FileNotFoundError:
            break  # (nothing further on exists: made below)
        if stat.S_ISLNK(mode):
            raise PapersiteError.at(at, 1, f"is a symbolic link (to {os.readlink(at)}); papersite writes the site's own "
                                            "files in this folder and never through a link: remove the link")
        if not stat.S_ISDIR(mode):
            clear_the_way(at)  # (a FIFO or device: refused)
            os.unlink(at)
    folder.mkdir(parents=True, exist_ok=True)
    if made is not None:
        at = folder
        while at != Path(base) and at not in made:
            made.add(at)
            at = at.parent


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def project_place_problems(config: "ProjectConfig") -> list[str]:
    """Symlinks leading out of the project where papersite writes inside it, as ``path:1: message``.

    ``config.py`` keeps site_dir, build_dir, papers_dir and the state file inside the project;
    this looks one step further, where a committed link would make a build write outside it:
    anywhere in build_dir (small: staged docs, caches), the folders at the top of site_dir
    (deeper, the build's own writers replace a link where a file goes, ``clear_the_way``, and refuse one
    on a folder's way, ``real_folder``), and the entries of the state folder (the pages are refused
    when read: ``inputs.readable_file``)."""
    from generator.inputs import outside_problem

    links: list[Path] = []
    if config.build_dir.is_dir():
        links += map(Path, _links_under(str(config.build_dir)))
    for folder in (config.site_dir, config.state_file.parent):
        if folder.is_dir():
            links += [entry for entry in folder.iterdir() if entry.is_symlink()]
    problems = []
    for link in sorted(set(links)):
        problem = outside_problem(link, config.root)
        if problem is not None:
            problems.append(f"{link}:1: {problem}; papersite will not write through it: remove the link")
    return problems


def _links_under(folder: str) -> list[str]:
    """Every symlink under ``folder`` (links to folders are not followed). By the entries' types as the folder
    lists them: no stat a file, where build_dir holds ~11,000 files at 11,672 papers."""
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:  # gone or unreadable meanwhile: nothing to write through there
        return found
    for entry in entries:
        if entry.is_symlink():
            found.append(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            found += _links_under(entry.path)
    return found


def check_project_places(config: "ProjectConfig") -> None:
    """``PapersiteError`` listing ``project_place_problems``; called before a build or import writes."""
    problems = project_place_problems(config)
    if problems:
        raise PapersiteError(*problems)
