"""Mutation testing of the modules that hold the README's guarantees: do the tests notice a break?

For each target module (or function of it) the script makes small mutants, one at a time:
a comparison flipped (``==``/``!=``, ``<``/``>=``, ``in``/``not in``, ``is``/``is not``), ``and``/``or``
swapped, a ``not`` dropped, ``True``/``False`` swapped, a returned value replaced by ``None``,
and an integer constant moved by one. Each mutant is written into a scratch copy of the
project (this checkout is never touched) and the module's test files run against it with a
timeout. A mutant the tests fail on is *killed*; one they pass on *survives* and is listed
with its line, so a test can be written for it. Not part of CI: it runs for minutes.

    python bench/mutation.py                     # every target, 12 mutants each, 20 minutes at most
    python bench/mutation.py --per-target 0      # every mutant
    python bench/mutation.py --only check --budget 300 --json report.json
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    name: str
    module: str  # path under the project root
    tests: tuple[str, ...]  # test files that guard it
    functions: tuple[str, ...] = ()  # only mutate inside these (empty: the whole module)


TARGETS = (
    Target("escaping", "generator/site/render/html.py", ("tests/site/test_site_units.py", "tests/test_mutation_survivors.py")),
    Target("check", "generator/pages/check.py", ("tests/pages/test_check.py", "tests/test_guarantees.py", "tests/test_mutation_survivors.py")),
    Target("three-way merge", "generator/ingest/threeway.py", ("tests/ingest/test_importer.py", "tests/test_mutation_survivors.py"), ("merge_fields",)),
    Target("merge evidence", "generator/ingest/merge.py", ("tests/ingest/test_merge.py", "tests/test_mutation_survivors.py")),
    Target("reference matching", "generator/ingest/references.py", ("tests/ingest/test_references.py",)),
    Target("layout (URLs)", "generator/layout.py", ("tests/site/test_site_units.py", "tests/pages/test_check.py", "tests/test_mutation_survivors.py")),
)

_FLIP = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    target: str
    module: str
    index: int  # which mutation site of the module, in walk order
    line: int
    change: str


def _sites(tree: ast.AST, functions: tuple[str, ...]) -> list[tuple[ast.AST, str]]:
    """Every node a mutation applies to, with what the mutation does."""
    roots: list[ast.AST] = [tree]
    if functions:
        roots = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in functions]
    sites: list[tuple[ast.AST, str]] = []
    seen: set[int] = set()
    for root in roots:
        for node in ast.walk(root):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIP:
                sites.append((node, f"{type(node.ops[0]).__name__} -> {_FLIP[type(node.ops[0])].__name__}"))
            elif isinstance(node, ast.BoolOp):
                sites.append((node, f"{type(node.op).__name__} -> {'Or' if isinstance(node.op, ast.And) else 'And'}"))
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                sites.append((node, "not x -> x"))
            elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
                sites.append((node, f"{node.value} -> {not node.value}"))
            elif isinstance(node, ast.Constant) and type(node.value) is int:
                sites.append((node, f"{node.value} -> {node.value + 1}"))
            elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None
            ):
                sites.append((node, "return x -> return None"))
    return sites


def _docstring_ids(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def mutants_of(target: Target) -> list[Mutant]:
    tree = ast.parse((ROOT / target.module).read_text(encoding="utf-8"))
    skip = _docstring_ids(tree)
    return [
        Mutant(target.name, target.module, index, getattr(node, "lineno", 0), change)
        for index, (node, change) in enumerate(_sites(tree, target.functions))
        if id(node) not in skip
    ]


def mutated_source(target: Target, index: int) -> str:
    tree = ast.parse((ROOT / target.module).read_text(encoding="utf-8"))
    node, _ = _sites(tree, target.functions)[index]
    if isinstance(node, ast.Compare):
        node.ops[0] = _FLIP[type(node.ops[0])]()
    elif isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif isinstance(node, ast.UnaryOp):
        node.op = ast.UAdd()  # `+x` on a bool is an int of the same truth: "not" dropped
        node.operand = ast.Call(ast.Name("bool", ast.Load()), [node.operand], [])
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        node.value = not node.value
    elif isinstance(node, ast.Constant):
        node.value = node.value + 1
    elif isinstance(node, ast.Return):
        node.value = ast.Constant(None)
    return ast.unparse(ast.fix_missing_locations(tree))


def scratch_copy() -> Path:
    """The project's code, tests, data and pages, copied so that mutants never touch this checkout."""
    scratch = Path(tempfile.mkdtemp(prefix="papersite-mutation-"))
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".hypothesis", ".cache")
    for name in os.listdir(ROOT):
        source = ROOT / name
        if name in (".git", ".venv", "site", "build", ".pytest_cache", ".hypothesis", ".cache"):
            continue
        if source.is_dir():
            shutil.copytree(source, scratch / name, ignore=ignore, symlinks=True)
        else:
            shutil.copy2(source, scratch / name)
    return scratch


def _env(scratch: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(scratch)  # the mutated copy, before the editable install of this checkout
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def imports_from(scratch: Path) -> Path:
    """Where `import generator` resolves in the scratch copy's test runs (must be the copy)."""
    run = subprocess.run([sys.executable, "-c", "import generator; print(generator.__file__)"],
                         cwd=scratch, env=_env(scratch), capture_output=True, text=True, check=True)
    return Path(run.stdout.strip()).resolve()


def run_tests(scratch: Path, tests: tuple[str, ...], timeout: float) -> str:
    """'killed' (a test failed, or the mutant does not import), 'survived', 'timeout' (a hang: killed too) or 'error'."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not browser", *tests]
    try:
        run = subprocess.run(command, cwd=scratch, env=_env(scratch), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return {0: "survived", 1: "killed", 2: "killed"}.get(run.returncode, "error")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="target name (substring); repeatable")
    parser.add_argument("--per-target", type=int, default=12, help="mutants sampled per target (0: all)")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--budget", type=float, default=1200, help="seconds for the whole run")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per mutant's test run")
    parser.add_argument("--json", type=Path, help="write the report here too")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--again", type=Path, help="a --json report: run only the mutants that survived it")
    args = parser.parse_args(argv)

    targets = [t for t in TARGETS if not args.only or any(o.lower() in t.name.lower() or o in t.module for o in args.only)]
    plan: list[tuple[Target, Mutant]] = []
    for target in targets:
        found = mutants_of(target)
        if args.per_target and len(found) > args.per_target:
            found = sorted(random.Random(f"{args.seed}:{target.name}").sample(found, args.per_target), key=lambda m: m.index)
        plan += [(target, m) for m in found]
    if args.again:
        earlier = json.loads(args.again.read_text(encoding="utf-8"))["mutants"]
        alive = {(r["module"], r["index"]) for r in earlier if r["status"] == "survived"}
        plan = [(t, m) for target in targets for t, m in [(target, m) for m in mutants_of(target)] if (m.module, m.index) in alive]
        targets = [t for t in targets if any(t is pt for pt, _ in plan)]
    if args.list:
        for _, m in plan:
            print(f"{m.module}:{m.line}: {m.change}")
        return 0

    started = time.monotonic()
    scratch = scratch_copy()
    results: list[dict] = []
    try:
        if not imports_from(scratch).is_relative_to(scratch.resolve()):
            print(f"papersite: the tests would import {imports_from(scratch)}, not the scratch copy", file=sys.stderr)
            return 2
        for target in targets:  # the unmutated tests must pass, or every mutant would look killed
            status = run_tests(scratch, target.tests, args.timeout)
            if status != "survived":
                print(f"{target.name}: its tests fail without any mutation ({status}); fix them first", file=sys.stderr)
                return 2
        for target, mutant in plan:
            if time.monotonic() - started > args.budget:
                print(f"budget of {args.budget:.0f}s spent: {len(results)} of {len(plan)} mutants run", file=sys.stderr)
                break
            path = scratch / mutant.module
            original = path.read_text(encoding="utf-8")
            path.write_text(mutated_source(target, mutant.index), encoding="utf-8")
            try:
                status = run_tests(scratch, target.tests, args.timeout)
            finally:
                path.write_text(original, encoding="utf-8")
            results.append({**asdict(mutant), "status": status})
            print(f"{status:8s} {mutant.module}:{mutant.line}: {mutant.change}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print()
    summary = {}
    for target in targets:
        mine = [r for r in results if r["target"] == target.name]
        survived = [r for r in mine if r["status"] == "survived"]
        summary[target.name] = {"run": len(mine), "survived": len(survived)}
        rate = f"{len(survived) / len(mine):.0%}" if mine else "n/a"
        print(f"{target.name:20s} {len(mine):3d} mutants, {len(survived):3d} survived ({rate})")
    total = len(results)
    alive = sum(r["status"] == "survived" for r in results)
    for r in results:
        if r["status"] == "survived":
            print(f"survivor: {r['module']}:{r['line']}: {r['change']}")
    print(f"{'total':20s} {total:3d} mutants, {alive:3d} survived ({alive / total:.0%})" if total else "no mutant ran")
    print(f"{time.monotonic() - started:.0f}s")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "mutants": results}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
