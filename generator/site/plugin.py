"""MkDocs glue: ``mkdocs build`` / ``mkdocs serve`` on a papersite project stage first.

On config, the plugin stages the docs dir (``stage.py``) and points MkDocs at it,
unless ``papersite build`` already did (then ``docs_dir`` is the staged dir).
After the build it runs the post-build step (``postbuild.py``: author and keyword
pages from their shell page) that ``papersite build`` runs after either engine.
While serving, it also watches ``site_src`` so an edited paper page is restaged. The 404
page gets links relative to the site's root (MkDocs makes them absolute from site_url), and
the theme's files no page loads are removed from the site (``UNLOADED_THEME_FILES``).
From the config hook to the end of the build it holds the project lock
(``pages/store.py``), as ``papersite build`` does: ``mkdocs build`` replaces
``site/`` and must not do it under a running build, nor a build under it.
No feature lives here: Zensical builds the same staged dir without this plugin,
and ``papersite build`` runs the post-build step itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs import utils
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin

from generator import layout
from generator.config import load_config, nav_with_added_sections
from generator.pages.store import project_lock
from generator.problems import PapersiteError
from generator.site.build import gc_for_builds, source_date_epoch
from generator.site.postbuild import minify_page, run_postbuild
from generator.site.stage import TEMPLATES_DIR, stage_docs, staged_docs_dir


# Files of Material's that MkDocs copies into every site and no page of ours loads: its search box's
# worker and the worker's language files (templates/main.html leaves the worker out of Material's
# config: the site has its own search), and the source maps of its script and stylesheets, which only
# a browser's developer tools ask for. 2.3 MB of every site. (Zensical's search uses its own worker.)
UNLOADED_THEME_FILES = ("assets/javascripts/workers", "assets/javascripts/lunr", "assets/javascripts/*.map",
                        "assets/stylesheets/*.map")


def remove_unloaded_theme_files(site_dir: Path) -> None:
    """Remove ``UNLOADED_THEME_FILES`` from the site MkDocs built (a link there removed, never followed)."""
    for pattern in UNLOADED_THEME_FILES:
        for path in sorted(site_dir.glob(pattern)):
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.is_dir():
                shutil.rmtree(path)


class PapersitePlugin(BasePlugin):
    def __init__(self) -> None:
        super().__init__()
        self.source_dir: Path | None = None
        self.project = None  # set when this plugin staged, so it also runs the post-build step
        self.command = "build"
        self.lock = contextlib.ExitStack()  # the project lock, from on_config to the end of one build

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command
        if command == "build":  # a one-shot process: see build.gc_for_builds
            gc_for_builds()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.lock.close()  # `mkdocs serve`: the last build's hold, if it ended without a hook
        try:
            project = load_config(Path(config.config_file_path).parent)
            try:
                self.lock.enter_context(project_lock(project, f"mkdocs {self.command}"))
            except PapersiteError as error:  # another papersite or mkdocs writes the site: one line, nothing touched
                raise Abort("\n".join(error.lines())) from None
            return self._configure(config, project)
        except PapersiteError as error:  # a bad page or setting: MkDocs prints the problems, no traceback
            self.lock.close()
            raise PluginError("\n".join(error.lines())) from None
        except BaseException:
            self.lock.close()
            raise

    def on_build_error(self, error: Exception) -> None:
        self.lock.close()

    def on_shutdown(self) -> None:
        self.lock.close()

    def _configure(self, config: MkDocsConfig, project) -> MkDocsConfig:  # noqa: ANN001 (a ProjectConfig)
        os.environ.setdefault("SOURCE_DATE_EPOCH", source_date_epoch(project.root))
        staged = staged_docs_dir(project).resolve()
        if Path(config.docs_dir).resolve() != staged:
            self.source_dir = Path(config.docs_dir).resolve()
            stage_docs(project)
            config.docs_dir = str(staged)
            self.project = project
        # papersite.yml is the one place for the site's address and repository: MkDocs
        # gets them from there (canonical links, sitemap, the header's repository link).
        for key, value in project.engine_settings().items():
            # `mkdocs serve` points site_url at the dev server: links on it must stay there
            if key != "site_url" or self.command != "serve":
                config[key] = value
        # an older project's nav gets the section pages added since (config.ADDED_SECTIONS)
        config.nav = nav_with_added_sections(config.nav, config.not_in_nav)
        # The templates build their links from the routes (layout.py), as papersite.js does.
        config.extra[layout.ROUTES_EXTRA] = layout.url_patterns()
        # Our templates come from the package, so a project made by `papersite init`
        # needs no copy of them; a project's own custom_dir still overrides them.
        dirs = config.theme.dirs
        if str(TEMPLATES_DIR) not in dirs:
            # (MkDocs keeps custom_dir as an attribute of the theme, not among its settings)
            dirs.insert(1 if getattr(config.theme, "custom_dir", None) else 0, str(TEMPLATES_DIR))
        return config

    def on_template_context(self, context, template_name: str, config: MkDocsConfig):  # noqa: ANN001, ANN201 (mkdocs' signature)
        """The 404 page's links relative to the site's root, as the root's own pages have them.

        MkDocs makes an error page's links absolute from site_url's path (/iclr2025/…), which
        breaks wherever the site is served from another path (``python -m http.server -d site``,
        a fork's Pages). ``templates/404.html`` finds the root where it is served and sets it as
        the page's ``<base>``; it is handed site_url's path as its first guess."""
        if not utils.is_error_template(template_name):
            return context
        context["base_url"] = "."
        context["extra_css"] = [utils.normalize_url(str(path), None, ".") for path in config.extra_css]
        context["extra_javascript"] = [utils.normalize_url(str(path), None, ".") for path in config.extra_javascript]
        context["ps_site_path"] = urlsplit(config.site_url or "/").path
        return context

    def on_post_page(self, output: str, page, config: MkDocsConfig) -> str:  # noqa: ANN001 (mkdocs' signature)
        # Every page MkDocs renders leaves it minified (postbuild.minify_page, which the post-build
        # step also applies to the shells it reads: a Zensical build has no such hook).
        return minify_page(output)

    def on_post_build(self, config: MkDocsConfig) -> None:
        # Only when we staged: under `papersite build` the docs dir was staged
        # already and build.py runs the post-build step after the engine.
        try:
            remove_unloaded_theme_files(Path(config.site_dir))
            if self.project is not None:
                try:
                    run_postbuild(self.project, Path(config.site_dir))
                except PapersiteError as error:
                    raise PluginError("\n".join(error.lines())) from None
        finally:
            self.lock.close()

    def on_serve(self, server, config, builder):  # noqa: ANN001 (mkdocs' signature)
        if self.source_dir is not None:
            server.watch(str(self.source_dir))
        return server
