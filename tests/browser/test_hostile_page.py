"""A hand-edited page, a setting or control characters never run a script, with either engine.

A pull request from anyone can edit a page. `papersite check` (and so `papersite build`)
rejects markup in a page body; a build that skips the check (`mkdocs build` through the
plugin, or Zensical on a staged dir) must still emit nothing that runs. Theme keys such as
`description` pass the check as text and must stay text in <head>.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from conftest import _build_command_missing, new_project, papersite, serve

pytestmark = pytest.mark.browser

ORDINARY = "We study graph neural networks on large graphs and propose a simple message passing method for them."
LISTING = [
    {"title": "Bidi \u202eevil\u202c title with \u001b[31m an escape", "authors": ["Ada \u2066Lovelace"], "abstract": ORDINARY},
    {"title": "A Perfectly Ordinary Paper on Graphs", "authors": ["Bob Ordinary"], "abstract": ORDINARY + " Again."},
]
DESCRIPTION = "\"><script>window.__pwned='description'</script><meta x=\""
BODY = (
    "Maintainers' notes.\n\n"
    "<script>window.__pwned='body-script'</script>\n\n"
    "<img src=x onerror=\"window.__pwned='body-img'\">\n\n"
    "- a list item\n\n    <svg onload=\"window.__pwned='body-svg'\"></svg>\n\n"
    "[a javascript link](javascript:window.__pwned='body-link') and [obfuscated](java&#115;cript:window.__pwned='ref')\n"
    "{: onclick=\"window.__pwned='attr-list'\" }\n"
)
THEME_NAME = "Hostile test"  # mkdocs.yml's (tests/browser/conftest.py new_project)
SITE_NAME = "<img src=x onerror=\"window.__pwned='site-name'\"> Hostile <b>Papers</b> 2025"


def _engines() -> list:
    zensical = importlib.util.find_spec("zensical") is not None
    return ["mkdocs", pytest.param("zensical", marks=pytest.mark.skipif(not zensical, reason="zensical is not installed"))]


def _hostile_project(root: Path) -> tuple[Path, Path]:
    project = new_project(root)
    with (project / "corpus" / "pages.jsonl").open("w", encoding="utf-8") as handle:
        for record in LISTING:
            handle.write(json.dumps(record) + "\n")
    settings = yaml.safe_load((project / "papersite.yml").read_text(encoding="utf-8"))
    settings.update(site_name=SITE_NAME, repo_url="https://github.com/example/papers")
    (project / "papersite.yml").write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    result = papersite("--project", str(project), "import", "--quiet")
    assert result.returncode == 0, result.stderr
    page = next(p for p in (project / "site_src" / "papers").glob("*.md") if "ordinary" in p.name)
    text = page.read_text(encoding="utf-8")
    extra = yaml.safe_dump({"description": DESCRIPTION, "status": "new\" onclick=\"window.__pwned='status'"}, width=1000)
    page.write_text(text.replace("\n---\n", "\n" + extra + "---\n", 1).rstrip("\n") + "\n\n" + BODY, encoding="utf-8")
    return project, page


@pytest.fixture(scope="module", params=_engines())
def hostile_page_site(request, tmp_path_factory):
    missing = _build_command_missing()
    if missing:
        pytest.skip(missing)
    engine = request.param
    project, page = _hostile_project(tmp_path_factory.mktemp(f"hostile-page-{engine}") / "project")

    # The check and the build it guards refuse the body, at its lines.
    check = papersite("--project", str(project), "check")
    rel = page.relative_to(project).as_posix()
    assert check.returncode == 1 and f"{rel}:" in check.stdout and "raw HTML" in check.stdout, check.stdout
    build = papersite("--project", str(project), "build", "--engine", engine, "--no-import", "--quiet")
    assert build.returncode == 1 and "raw HTML" in build.stderr, build.stderr

    # A build that skips the check must still emit nothing that runs.
    from generator.config import load_config
    from generator.pages import check as check_module
    from generator.site import build as build_module

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        patch.setattr(check_module, "check_pages", lambda config, **_: [])  # build.py imports it when it runs
        args = argparse.Namespace(engine=engine, no_import=True, quiet=True)
        assert build_module.run_build(args, load_config(project)) == 0
    site_dir = load_config(project).site_dir
    return engine, serve(site_dir), site_dir, page.stem


def _watch(visit) -> list:
    dialogs: list = []
    visit.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def _assert_nothing_ran(visit, where: str, dialogs: list) -> None:
    page = visit.page
    assert page.evaluate("() => window.__pwned") is None, f"{where}: a hostile value ran as code"
    assert not dialogs, f"{where}: dialogs {dialogs}"
    assert page.locator("a[href^='javascript:' i], [src^='javascript:' i]").count() == 0, f"{where}: javascript: link"
    handlers = page.evaluate(
        "() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => /^on/i.test(a.name)).map(a => e.tagName + ' ' + a.name))"
    )
    assert not handlers, f"{where}: event-handler attributes {handlers[:5]}"
    scripts = page.evaluate("() => [...document.scripts].map(s => s.textContent).filter(t => t.includes('__pwned'))")
    assert not scripts, f"{where}: script elements from page data {scripts}"


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_a_hostile_page_runs_nothing_and_shows_its_text(page_factory, hostile_page_site, viewport, tmp_path):
    engine, local, _, slug = hostile_page_site
    visit = page_factory(local, viewport=viewport)
    dialogs = _watch(visit)
    visit.goto(f"papers/{slug}/")
    visit.page.wait_for_load_state("networkidle")
    _assert_nothing_ran(visit, f"{engine} papers/{slug}/", dialogs)
    main = " ".join(visit.page.locator("main").inner_text().split())
    assert "Maintainers' notes." in main and "<script>window.__pwned='body-script'</script>" in main, main[-600:]
    description = visit.page.locator("meta[name='description']").get_attribute("content")
    assert "script" in description and "<" not in description, description
    visit.page.screenshot(path=str(tmp_path / f"hostile-page-{engine}-{viewport['width']}.png"), full_page=True)


@pytest.mark.parametrize("path", ["", "papers/", "about/", "authors/"])
def test_a_hostile_site_name_and_control_characters_stay_text(page_factory, hostile_page_site, path):
    engine, local, site_dir, _ = hostile_page_site
    visit = page_factory(local, viewport={"width": 1280, "height": 900})
    dialogs = _watch(visit)
    visit.goto(path)
    visit.page.wait_for_load_state("networkidle")
    _assert_nothing_ran(visit, f"{engine} /{path}", dialogs)
    if path in ("", "about/"):
        assert "Hostile <b>Papers</b>" in visit.page.locator("main").inner_text()


def test_no_page_holds_a_raw_control_or_bidi_character(hostile_page_site):
    engine, _, site_dir, _ = hostile_page_site
    raw = {
        str(page.relative_to(site_dir)): sorted({f"U+{ord(c):04X}" for c in page.read_text(encoding="utf-8") if c in "\x00\x1b\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"})
        for page in site_dir.rglob("*.html")
    }
    assert not {k: v for k, v in raw.items() if v}, f"{engine}: raw control characters in {raw}"


@pytest.mark.parametrize("scripts", [True, False])
def test_a_hostile_site_name_stays_text_in_the_shared_header_and_the_link_home(page_factory, hostile_page_site, scripts):
    """Detail pages get their header from the shared chrome script (generator/site/chrome.py) and,
    without scripts, a link home named after the site as the header names it (the theme's name,
    from mkdocs.yml): both show it as text. tests/site/test_chrome.py has names with markup."""
    engine, local, site_dir, _ = hostile_page_site
    # the paper without a maintainer's Markdown body: a light page (the other loads Material's script)
    paper = next(p.name for p in sorted((site_dir / "papers").iterdir()) if (p / "index.html").is_file() and "ordinary" not in p.name)
    author = next(p.name for p in sorted((site_dir / "authors").iterdir()) if (p / "index.html").is_file())
    visit = page_factory(local, viewport={"width": 1280, "height": 900}, java_script_enabled=scripts)
    dialogs = _watch(visit)
    for path in (f"papers/{paper}/", f"authors/{author}/"):
        visit.goto(path)
        visit.page.wait_for_load_state("networkidle")
        _assert_nothing_ran(visit, f"{engine} /{path}", dialogs)
        page = visit.page
        if scripts:
            assert page.locator(".md-header .ps-site").inner_text() == THEME_NAME, path
            assert page.locator(".md-header .md-logo").get_attribute("aria-label") == THEME_NAME, path
        elif page.locator("script[src$='assets/papersite/chrome.js']").count():
            home = page.locator("noscript a.ps-homebar")
            assert home.inner_text() == THEME_NAME, path
            assert home.evaluate("a => a.href") == local.url(""), path
