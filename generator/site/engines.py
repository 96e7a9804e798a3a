"""Site engines: run MkDocs + Material or Zensical on a staged project.

In: an engine name and an ``mkdocs.yml``-style config file whose docs dir has
already been staged (every page and asset exists as a file). Out: the built
site in ``site_dir`` and an :class:`EngineResult` with timing and the engine's
output; a failure is an :class:`EngineError` whose message names the engine and
what to do.

Both engines run as subprocesses of this interpreter (``python -m mkdocs`` /
``python -m zensical``): the build's output can be captured and timed the same
way, and one engine's global state (MkDocs plugins, Zensical's Rust runtime)
never leaks into the next build in the same process (tests build with both).

Zensical reads ``mkdocs.yml`` itself, but not quite as MkDocs does, so it gets a
config derived from the project's (``zensical_config.py``), written beside the
original for the run and removed after it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from generator import layout
from generator.outputs import clear_the_way, real_folder, replace_file
from generator.problems import PapersiteError, Problem, one_line
from generator.site.zensical_config import read_config, zensical_config

ENGINES = ("mkdocs", "zensical")

INSTALL_HINT = {
    "mkdocs": "pip install -e .",
    "zensical": "pip install -e '.[zensical]'",
}

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class EngineError(PapersiteError):
    """A build that could not run or did not succeed; the message says what to do."""

    def __init__(self, message: str, result: EngineResult | None = None):
        # the engine's own lines (warnings that quote pages) follow the first line as detail
        first, _, rest = message.partition("\n")
        problem = Problem.parse(first)
        super().__init__(Problem(problem.path, problem.line, problem.message, detail=rest))
        self.result = result


@dataclass(frozen=True)
class EngineResult:
    """One engine run: where the site went, how long it took, what the engine said."""

    engine: str
    config_file: Path
    site_dir: Path
    seconds: float
    returncode: int
    output: str
    notes: list[str] = field(default_factory=list)  # what the adapter changed or skipped

    @property
    def ok(self) -> bool:
        return self.returncode == 0


# -- running -----------------------------------------------------------------


def engine_available(engine: str) -> bool:
    module = {"mkdocs": "material", "zensical": "zensical"}[engine]
    return importlib.util.find_spec(module) is not None and importlib.util.find_spec(engine) is not None


def require_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise EngineError(f"unknown site engine {engine!r}; expected one of: {', '.join(ENGINES)}")
    if not engine_available(engine):
        raise EngineError(
            f"the {engine} site engine is not installed in this Python ({sys.executable}); "
            f"install it with: {INSTALL_HINT[engine]}"
        )


def _site_dir_of(config: dict, config_file: Path) -> Path:
    site = config.get("site_dir") or "site"
    return (config_file.parent / str(site)).resolve()


def _is_within(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _engine_env() -> dict[str, str]:
    env = dict(os.environ)
    # Material prints an end-of-life notice for its theme on every run (not a
    # warning about the site; it never reaches MkDocs' logger or strict mode).
    # This variable is the theme's own switch for exactly that notice.
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def _run(command: list[str], cwd: Path, quiet: bool) -> tuple[int, str]:
    env = _engine_env()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, encoding="utf-8", errors="replace",
    )
    lines = []
    assert process.stdout is not None
    try:
        for line in process.stdout:
            lines.append(line)
            if not quiet:  # a page's text may be quoted: one printed line per line, made safe
                sys.stdout.write(one_line(line.rstrip("\n")) + "\n")
        return process.wait(), "".join(lines)
    except BaseException:  # Ctrl-C (to us alone, or the group): the engine must not go on writing the site
        process.kill()
        process.wait()
        raise


def _failure(engine: str, config_file: Path, returncode: int, output: str) -> str:
    lines = [line for line in _ANSI.sub("", output).splitlines() if line.strip()]
    # Zensical ends a failed build with a traceback of its own CLI; what a user
    # can act on is the warnings above it and the exception's last line.
    if "Traceback (most recent call last):" in lines:
        cut = lines.index("Traceback (most recent call last):")
        lines = lines[:cut] + lines[-1:]
    shown = "\n".join(lines[-30:])
    return f"{engine} build of {config_file} failed (exit {returncode}):\n{shown}"


def build_with_engine(
    engine: str,
    config_file: Path,
    *,
    docs_dir: Path | None = None,
    site_dir: Path | None = None,
    overrides_dir: Path | None = None,
    settings: dict[str, str] | None = None,
    strict: bool = True,
    quiet: bool = False,
    dirty: bool = False,
) -> EngineResult:
    """Build the site described by ``config_file`` with ``engine``.

    ``dirty``: keep ``site_dir``: MkDocs renders only the pages whose source is newer
    than their output (its ``--dirty``); Zensical, which always empties the folder it
    builds into, renders every page into a folder of its own, then moved over their
    last versions (the site's other files, the post-build step's, stay). The caller
    owns deciding when that gives the same site as a clean build (``incremental.py``).

    ``docs_dir`` (the staged docs dir) and ``site_dir`` override the config's;
    ``overrides_dir`` is the theme custom_dir Zensical uses when the config has none.
    Raises :class:`EngineError` when the engine is missing or the build fails
    (in strict mode, on any warning).
    """
    require_engine(engine)
    config_file = Path(config_file).resolve()
    if not config_file.is_file():
        raise EngineError(f"{config_file}: no such config file")
    text = config_file.read_text(encoding="utf-8")
    target = Path(site_dir).resolve() if site_dir is not None else _site_dir_of(read_config(text, config_file), config_file)
    docs = _config_path(Path(docs_dir), config_file.parent) if docs_dir is not None else None
    if engine == "mkdocs":
        return _build_mkdocs(config_file, docs, target, strict, quiet, dirty)
    overrides = _config_path(Path(overrides_dir), config_file.parent) if overrides_dir is not None else None
    return _build_zensical(config_file, text, docs, target, strict, quiet, overrides, settings, dirty)


def _config_path(path: Path, root: Path) -> str:
    """How a derived config beside the original names ``path``."""
    path = path.resolve()
    return path.relative_to(root).as_posix() if _is_within(path, root) else str(path)


def _build_mkdocs(config_file: Path, docs: str | None, target: Path, strict: bool, quiet: bool, dirty: bool = False) -> EngineResult:
    used = config_file
    if docs is not None:
        # MkDocs' command line cannot move docs_dir; a two-line config that
        # inherits the project's can, and keeps every relative path meaning the same.
        used = config_file.with_name(f".{config_file.stem}.mkdocs.yml")
        replace_file(used, f"INHERIT: {config_file.name}\ndocs_dir: {json.dumps(docs)}\n")
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(used), "-d", str(target)]
    if dirty:
        command[1:3] = ["-m", "generator.site.engines"]  # MkDocs' CLI with the --dirty notice filtered
        command.append("--dirty")
    if strict:
        command.append("--strict")
    # Never MkDocs' own --quiet: it silences warnings before strict mode counts them, so a
    # quiet build would pass on a warning. Quiet here only means its output is not echoed.
    start = time.perf_counter()
    try:
        code, output = _run(command, config_file.parent, quiet)
    finally:
        if used != config_file:
            used.unlink(missing_ok=True)
    result = EngineResult("mkdocs", config_file, target, time.perf_counter() - start, code, output)
    if not result.ok:
        raise EngineError(_failure("mkdocs", config_file, code, output), result)
    return result


def _move_over(built: Path, site: Path) -> None:
    """Every file of ``built`` moved into ``site`` over the one of its name, and ``built`` removed. Each folder on
    the way is the site's own (``outputs.real_folder``: a link is refused, never written through)."""
    made: set[Path] = set()
    for dirpath, _, names in os.walk(built):
        here = Path(dirpath)
        folder = site / here.relative_to(built)
        for name in names:
            real_folder(site, folder, made)
            into = folder / name
            if into.is_dir() and not into.is_symlink():
                shutil.rmtree(into)  # a folder an earlier output left where the engine writes a file now
            else:
                clear_the_way(into)
            os.replace(here / name, into)
    shutil.rmtree(built)


def _derived_config_path(config_file: Path) -> Path:
    # Beside the original: Zensical resolves docs_dir, custom_dir and site_dir
    # against the config file's folder and refuses paths outside it.
    return config_file.with_name(f".{config_file.stem}.zensical.yml")


def _build_zensical(
    config_file: Path, text: str, docs: str | None, target: Path, strict: bool, quiet: bool, overrides: str | None,
    settings: dict[str, str] | None = None, dirty: bool = False,
) -> EngineResult:
    root = config_file.parent
    # Zensical refuses a site_dir outside the config's folder, and empties the one it builds into: build inside it
    # and move the result where it was asked for, or over the site kept (at 11,672 papers, its 93 pages against
    # the 59k the post-build step would make again).
    staging = target if _is_within(target, root) and not dirty else root / ".zensical-site"
    if staging != target:  # an interrupted run's left, or a link there: removed, never built through
        if not clear_the_way(staging) and staging.is_dir():
            shutil.rmtree(staging)
        elif staging.is_file():
            staging.unlink()
    derived_text, notes = zensical_config(
        text, docs_dir=docs, site_dir=staging.relative_to(root).as_posix(), custom_dir=overrides, settings=settings,
        routes=layout.url_patterns(),
    )
    derived = _derived_config_path(config_file)
    replace_file(derived, derived_text)
    if not quiet:
        for note in notes:
            print(f"papersite: zensical: {note}")
    command = [sys.executable, "-m", "zensical", "build", "-f", str(derived)]
    if strict:
        command.append("--strict")
    start = time.perf_counter()
    try:
        code, output = _run(command, root, quiet)
    finally:
        derived.unlink(missing_ok=True)
    if code == 0 and staging != target:
        if dirty and target.is_dir():
            _move_over(staging, target)
        else:
            if target.exists():
                shutil.rmtree(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(staging), str(target))
    result = EngineResult("zensical", config_file, target, time.perf_counter() - start, code, output, notes)
    if not result.ok:
        shutil.rmtree(root / ".zensical-site", ignore_errors=True)
        raise EngineError(_failure("zensical", config_file, code, output), result)
    return result


# -- comparing ---------------------------------------------------------------


def page_urls(site_dir: Path) -> set[str]:
    """Directory URLs of the built HTML pages ('' is the home page), engine-neutral.

    Leaves out what only one engine writes by design: its 404 page and theme assets.
    """
    site_dir = Path(site_dir)
    urls = set()
    for page in site_dir.rglob("index.html"):
        rel = page.parent.relative_to(site_dir).as_posix()
        if rel.startswith("assets/") or rel == "assets":
            continue
        urls.add("" if rel == "." else rel + "/")
    return urls


# -- dirty MkDocs builds -------------------------------------------------------

# MkDocs' caveats about --dirty: a warning (fatal in strict mode) and a note that
# the site holds files it did not write (our post-build pages).
_DIRTY_NOTICES = ("A 'dirty' build is being performed", "The directory contains stale files")


class _DropDirtyNotice:
    """MkDocs logs its --dirty caveat as a warning, which strict mode counts as a
    failure. papersite only builds dirty when the staged pages say which outputs
    changed (``incremental.py``), so those messages are dropped; every other
    warning still fails a strict build."""

    def filter(self, record) -> bool:  # noqa: ANN001 (logging.LogRecord)
        return not str(record.msg).startswith(_DIRTY_NOTICES)


def _mkdocs_dirty_main(argv: list[str]) -> int:
    import logging

    from mkdocs.__main__ import cli

    logging.getLogger("mkdocs.commands.build").addFilter(_DropDirtyNotice())
    return cli.main(args=argv, prog_name="mkdocs", standalone_mode=True)


if __name__ == "__main__":  # ``python -m generator.site.engines build ... --dirty``: see _build_mkdocs
    sys.exit(_mkdocs_dirty_main(sys.argv[1:]))
