"""Browser test harness: build the real site once, serve it locally, drive Chromium.

What a person would see is checked through Debian's ``/usr/bin/chromium``
driven by Playwright; nothing is downloaded at run time. Every page a test
opens is watched: a request to any origin other than the local server is
aborted and fails the test, and console errors are recorded for the tests
that assert on them.

Environment:
  PAPERSITE_TEST_SITE  use this already-built ``site/`` directory instead of
                       building the repository's site (quick iteration).
  CI                   when set, a missing chromium fails instead of skipping.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import shutil
import socketserver
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--metrics-recording-only",
]
BUILD_TIMEOUT_S = 900

# Parts of the repository that a copied project does not need: the code is
# imported from the repository itself, outputs are rebuilt.
_NOT_COPIED = {".git", ".venv", "site", "build", "bench", "tests", "generator", "docs",
               ".pytest_cache", ".hypothesis", "__pycache__", "papersite.egg-info", ".github", ".ci"}


# --------------------------------------------------------------------------- build


def _build_command_missing() -> str | None:
    """Why ``papersite build`` cannot run yet, or None when it can."""
    if importlib.util.find_spec("generator.site.build") is None:
        return "`papersite build` does not exist yet (no generator/site/build.py)"
    if not (REPO / "mkdocs.yml").exists():
        return "`papersite build` has no mkdocs.yml to build with yet"
    return None


def papersite(*args: str, cwd: Path = REPO, timeout: int = BUILD_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run the papersite CLI of this repository in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout,
    )


def _fail_on_error(result: subprocess.CompletedProcess, what: str) -> None:
    if result.returncode != 0:
        tail = "\n".join((result.stdout + "\n" + result.stderr).strip().splitlines()[-40:])
        pytest.fail(f"{what} exited with {result.returncode}:\n{tail}", pytrace=False)


def build_project(project: Path) -> Path:
    """``papersite build`` a project directory; returns its built site dir."""
    from generator.config import load_config

    _fail_on_error(papersite("--project", str(project), "build", "--quiet"), f"papersite build of {project}")
    site_dir = load_config(project).site_dir
    if not (site_dir / "index.html").exists():
        pytest.fail(f"papersite build of {project} succeeded but wrote no {site_dir}/index.html", pytrace=False)
    return site_dir


def copy_project(destination: Path) -> Path:
    """A copy of the repository's site project (listings, pages, config), without outputs."""
    shutil.copytree(REPO, destination, ignore=lambda d, names: [n for n in names if Path(d) == REPO and n in _NOT_COPIED])
    # mkdocs.yml may name files of the package by project-relative path (theme custom_dir).
    (destination / "generator").symlink_to(REPO / "generator", target_is_directory=True)
    return destination


def new_project(destination: Path) -> Path:
    """An empty site project: ``papersite init`` when it exists, else the repo's config files."""
    if importlib.util.find_spec("generator.scaffold") is not None:
        _fail_on_error(papersite("init", str(destination), "--site-name", "Hostile test"), "papersite init")
        # The scaffold may ship an example listing; this project's listings are the test's.
        corpus = destination / "corpus"
        if corpus.exists():
            shutil.rmtree(corpus)
        corpus.mkdir()
        return destination
    destination.mkdir(parents=True)
    for name in ("papersite.yml", "mkdocs.yml"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, destination / name)
    shutil.copytree(REPO / "site_src", destination / "site_src",
                    ignore=lambda d, names: ["papers"] if Path(d) == REPO / "site_src" else [])
    (destination / "site_src" / "papers").mkdir(exist_ok=True)
    (destination / "corpus").mkdir()
    return destination


# --------------------------------------------------------------------------- server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


class QuietServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: object, client_address: object) -> None:
        # a browser drops requests it no longer wants (a page navigated away): no fault of the site, and
        # socketserver's traceback for it in a passing run's output reads like one
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class LocalSite:
    """A built site served on 127.0.0.1 for the duration of a session."""

    root: Path
    base_url: str  # http://127.0.0.1:PORT/ (trailing slash)

    def url(self, path: str = "") -> str:
        return self.base_url + path.lstrip("/")


_SERVERS: dict[Path, tuple[QuietServer, LocalSite]] = {}


def serve(root: Path) -> LocalSite:
    """Serve a built site on a free port of 127.0.0.1 until the session ends (one server per site)."""
    root = root.resolve()
    if root not in _SERVERS:
        handler = functools.partial(_QuietHandler, directory=str(root))
        server = QuietServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, name=f"serve {root}", daemon=True).start()
        _SERVERS[root] = server, LocalSite(root=root, base_url=f"http://127.0.0.1:{server.server_address[1]}/")
    return _SERVERS[root][1]


@pytest.fixture(scope="session")
def site_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's site project, copied and built once per session; returns the project root."""
    prebuilt = os.environ.get("PAPERSITE_TEST_SITE")
    if prebuilt:
        site = Path(prebuilt).resolve()
        if not (site / "index.html").exists():
            pytest.fail(f"PAPERSITE_TEST_SITE={prebuilt}: no index.html there", pytrace=False)
        return site.parent
    missing = _build_command_missing()
    if missing:
        pytest.skip(missing)
    project = copy_project(tmp_path_factory.mktemp("project") / "site-project")
    build_project(project)
    return project


@pytest.fixture(scope="session")
def site_dir(site_project: Path) -> Path:
    prebuilt = os.environ.get("PAPERSITE_TEST_SITE")
    if prebuilt:
        return Path(prebuilt).resolve()
    from generator.config import load_config

    return load_config(site_project).site_dir


@pytest.fixture(scope="session")
def papers(site_project: Path) -> list:
    """The paper records the site was built from (its pages' front matter)."""
    from generator.config import load_config
    from generator.pages.record import read_page

    papers_dir = load_config(site_project).papers_dir
    return [read_page(path) for path in sorted(papers_dir.glob("*.md"))]


@pytest.fixture(scope="session")
def site(site_dir: Path) -> LocalSite:
    return serve(site_dir)


def pytest_sessionfinish(session: pytest.Session) -> None:
    for server, _ in _SERVERS.values():
        server.shutdown()
        server.server_close()
    _SERVERS.clear()


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium) to run the browser tests"
        if os.environ.get("CI"):
            pytest.fail(reason + " -- CI is set, so browser tests must run", pytrace=False)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@dataclass
class PageLog:
    """What a page did that the tests may judge: console errors, blocked requests."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)


@dataclass
class SitePage:
    """A Playwright page bound to one served site, with its log."""

    page: object
    site: LocalSite
    log: PageLog

    def goto(self, path: str = "") -> None:
        self.page.goto(self.site.url(path), wait_until="load")


def open_page(browser: object, site: LocalSite, log: PageLog, **context_options: object) -> tuple[object, object]:
    """A fresh context + page on ``site`` that aborts every request leaving its origin."""
    origin = urlsplit(site.base_url)
    context = browser.new_context(**context_options)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.base_url.rstrip("/"))

    def route(route: object) -> None:
        url = urlsplit(route.request.url)
        if url.scheme in ("data", "blob", "about") or (url.scheme, url.netloc) == (origin.scheme, origin.netloc):
            route.continue_()
        else:
            log.blocked_requests.append(f"{route.request.method} {route.request.url}")
            route.abort("blockedbyclient")

    context.route("**/*", route)
    page = context.new_page()

    def on_console(message: object) -> None:
        if message.type == "error":
            location = message.location or {}
            log.console_errors.append(f"{message.text} ({location.get('url', '?')}:{location.get('lineNumber', '?')})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: log.page_errors.append(str(error)))
    return context, page


def _page_fixture(request: pytest.FixtureRequest, browser: object, site: LocalSite, **options: object) -> Iterator[SitePage]:
    log = PageLog()
    request.node.stash.setdefault(_LOGS, []).append(log)
    context, page = open_page(browser, site, log, **options)
    page.set_default_timeout(15_000)
    yield SitePage(page=page, site=site, log=log)
    context.close()


@pytest.fixture
def site_page(request: pytest.FixtureRequest, browser: object, site: LocalSite) -> Iterator[SitePage]:
    """A desktop-sized page on the repository's site."""
    yield from _page_fixture(request, browser, site, viewport={"width": 1280, "height": 900})


@pytest.fixture
def phone_page(request: pytest.FixtureRequest, browser: object, site: LocalSite) -> Iterator[SitePage]:
    """A 390x844 phone-sized page on the repository's site."""
    yield from _page_fixture(request, browser, site, viewport={"width": 390, "height": 844},
                             device_scale_factor=3, is_mobile=True, has_touch=True)


@pytest.fixture
def page_factory(request: pytest.FixtureRequest, browser: object) -> Iterator[object]:
    """Open watched pages on any served site (e.g. the hostile-listing site)."""
    contexts: list[object] = []

    def make(local: LocalSite, **options: object) -> SitePage:
        log = PageLog()
        request.node.stash.setdefault(_LOGS, []).append(log)
        context, page = open_page(browser, local, log, **options)
        page.set_default_timeout(15_000)
        contexts.append(context)
        return SitePage(page=page, site=local, log=log)

    yield make
    for context in contexts:
        context.close()


_LOGS = pytest.StashKey[list]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail the test itself (not its teardown) when a page requested another origin."""
    try:
        return (yield)
    finally:
        blocked = [url for log in item.stash.get(_LOGS, []) for url in log.blocked_requests]
        if blocked:
            shown = "\n  ".join(sorted(set(blocked))[:20])
            raise AssertionError(f"{len(blocked)} request(s) left the site's origin and were aborted:\n  {shown}")
