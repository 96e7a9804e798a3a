"""docs/ARCHITECTURE.md, the folder layout and the import rules: the docs cannot drift and the layers stay apart."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from generator.pipeline import IMPORT_STAGES, SITE_STAGES, diagram

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = REPO / "docs" / "ARCHITECTURE.md"


def test_the_stage_diagram_is_the_one_the_pipeline_draws() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = re.search(r"<!-- stages: generated from generator/pipeline.py -->\n```\n(.*?)```\n<!-- /stages -->", text, re.DOTALL)
    assert block, "docs/ARCHITECTURE.md lost its generated stage diagram"
    assert block.group(1) == diagram(), "regenerate the diagram: python -c 'from generator.pipeline import diagram; print(diagram())'"


def test_every_module_a_stage_names_exists() -> None:
    for stage in IMPORT_STAGES + SITE_STAGES:
        for module in re.findall(r"[\w/]+\.py", stage.module):
            assert (REPO / "generator" / module).is_file(), f"stage {stage.name!r} names {module}, which does not exist"


def test_the_folder_map_names_every_module_and_only_modules_that_exist() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    folders = text[text.index("## Folders (`generator/`)"):]
    folders = folders[: folders.index("\n## ", 1)]
    modules = {p.name for p in (REPO / "generator").rglob("*.py") if p.name != "__init__.py"}
    named = set(re.findall(r"\b(\w+\.py)\b", folders))
    assert modules - named == set(), f"modules missing from the folder map in docs/ARCHITECTURE.md: {sorted(modules - named)}"
    assert named - modules == set(), f"the folder map names modules that do not exist: {sorted(named - modules)}"


def _imported_modules(source: str, package: str) -> set[str]:
    """Every module the ``source`` of a module of ``package`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)  # from generator import site
    return found


def _imports_of(path: Path) -> set[str]:
    return _imported_modules(path.read_text(encoding="utf-8"), ".".join(path.relative_to(REPO).parts[:-1]))


def _is_site(module: str) -> bool:
    return module == "generator.site" or module.startswith("generator.site.")


def test_paper_pages_import_nothing_from_the_site() -> None:
    """pages/ (records, their checks and storage) comes before site/ in the pipeline: the site reads pages, never
    the other way round, so a change to the site cannot change what a page is or whether it passes check."""
    offending = sorted(
        f"{path.relative_to(REPO)}: {module}"
        for path in (REPO / "generator" / "pages").rglob("*.py")
        for module in _imports_of(path)
        if _is_site(module)
    )
    assert offending == [], offending


def test_the_import_rule_sees_lazy_relative_and_package_imports() -> None:
    for source in (
        "def f():\n    from generator.site.catalog import x\n",
        "from ..site import engines\n",
        "import generator.site.stage as stage\n",
        "from generator import site\n",
    ):
        assert any(map(_is_site, _imported_modules(source, "generator.pages"))), source
    assert not any(map(_is_site, _imported_modules("from generator import sitemap, layout\nfrom . import record\n",
                                                   "generator.pages")))


# Modules without their own test file yet. Each is covered by broader tests (tests/site/test_site_build.py,
# test_site_units.py, test_search_index.py, tests/pages/test_check.py) and is being reworked on another
# branch, which adds its own file; remove a name here when its tests/<path>/test_<name>.py exists.
MODULES_WITHOUT_OWN_TESTS: set[str] = set()


def _test_file_of(module: Path) -> Path:
    """generator/x/y.py -> tests/x/test_y.py (tests mirror modules)."""
    relative = module.relative_to(REPO / "generator")
    return REPO / "tests" / relative.parent / f"test_{relative.name}"


def test_every_module_has_its_own_test_file() -> None:
    modules = sorted(p for p in (REPO / "generator").rglob("*.py") if p.name != "__init__.py")
    missing = {m.relative_to(REPO / "generator").as_posix() for m in modules if not _test_file_of(m).is_file()}
    assert missing - MODULES_WITHOUT_OWN_TESTS == set(), f"modules without tests/<path>/test_<name>.py: {sorted(missing - MODULES_WITHOUT_OWN_TESTS)}"
    covered_now = MODULES_WITHOUT_OWN_TESTS - missing
    assert covered_now == set(), f"these have their own test file now; remove them from MODULES_WITHOUT_OWN_TESTS: {sorted(covered_now)}"
    assert _test_file_of(REPO / "generator" / "site" / "render" / "html.py") == REPO / "tests" / "site" / "render" / "test_html.py"
