"""MkDocs glue: ``mkdocs build`` / ``mkdocs serve`` on a papersite project stage first.

On config, the plugin stages the docs dir (``stage.py``) and points MkDocs at it,
unless ``papersite build`` already did (then ``docs_dir`` is the staged dir).
While serving, it also watches ``site_src`` so an edited paper page is restaged.
No feature lives here: Zensical builds the same staged dir without this plugin.
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin

from generator.config import load_config
from generator.site.build import source_date_epoch
from generator.site.stage import TEMPLATES_DIR, stage_docs, staged_docs_dir


class PapersitePlugin(BasePlugin):
    def __init__(self) -> None:
        super().__init__()
        self.source_dir: Path | None = None

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        project = load_config(Path(config.config_file_path).parent)
        os.environ.setdefault("SOURCE_DATE_EPOCH", source_date_epoch(project.root))
        staged = staged_docs_dir(project).resolve()
        if Path(config.docs_dir).resolve() != staged:
            self.source_dir = Path(config.docs_dir).resolve()
            stage_docs(project)
            config.docs_dir = str(staged)
        # Our templates come from the package, so a project made by `papersite init`
        # needs no copy of them; a project's own custom_dir still overrides them.
        dirs = config.theme.dirs
        if str(TEMPLATES_DIR) not in dirs:
            dirs.insert(1 if config.theme.get("custom_dir") else 0, str(TEMPLATES_DIR))
        return config

    def on_serve(self, server, config, builder):  # noqa: ANN001 (mkdocs' signature)
        if self.source_dir is not None:
            server.watch(str(self.source_dir))
        return server
