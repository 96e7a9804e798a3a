"""The project's MkDocs config, read as written and converted into the config Zensical builds from.

In: the text of ``mkdocs.yml`` (and what papersite adds: the staged docs dir, the
site dir, the theme overrides, the settings of ``papersite.yml``). Out: the
config as a dict (:func:`read_config`), or the derived config's text and notes
on what was changed (:func:`zensical_config`). Running an engine on it is
``engines.py``'s job.

Zensical reads ``mkdocs.yml`` itself, but not quite as MkDocs does: it runs no
MkDocs plugin or hook, implements some plugins itself, and looks different
unless asked for its "classic" look. docs/ZENSICAL.md says what differs and why.
Tags PyYAML's safe loader does not know (``!ENV``, ``!!python/name:``) are kept
as written, so the derived config means what the original meant.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.problems import PapersiteError
from generator import layout
from generator.config import ADDED_SECTIONS, nav_with_added_sections

# The version docs/ZENSICAL.md describes and pyproject's `zensical` extra pins.
ZENSICAL_TESTED_VERSION = "0.1.2"

# Zensical implements its own tags plugin whose listing page needs memory that
# grows with the square of the number of tagged pages (1.4 GB at 640 papers,
# 10.5 GB at 2,000, measured for issue 7), so it never reaches Zensical.
_PLUGINS_DROPPED_FOR_ZENSICAL = frozenset({"tags", "material/tags"})

# Plugins Zensical re-implements (zensical/config.py, _PLUGIN_UNSUPPORTED_OPTIONS
# in 0.1.2). Any other plugin is silently skipped by Zensical, which matters to
# us only if it changes the site: we report it instead of staying silent.
_PLUGINS_ZENSICAL_RUNS = frozenset(
    {
        "api-autonav", "autorefs", "awesome-nav", "blog", "callouts", "exclude",
        "gh-admonitions", "glightbox", "include-markdown", "literate-nav",
        "llmstxt", "macros", "meta-descriptions", "mkdocs-nav-weight", "markdown-exec",
        "markdownextradata", "meta", "mike", "minify", "mkdocs-audio",
        "mkdocs-autoapi", "mkdocs-video", "mkdocstrings", "offline", "optimize", "privacy",
        "redirects", "rss", "search", "social", "table-reader", "tags",
    }
)


@dataclass(frozen=True)
class _Tagged:
    """A YAML value under a tag PyYAML's safe loader does not know (``!ENV``,
    ``!!python/name:...``); kept as written so the derived config still means
    what the project's config meant to the engine that reads it."""

    tag: str
    value: Any
    kind: str  # "scalar", "sequence" or "mapping"


class _ConfigLoader(yaml.SafeLoader):
    pass


def _construct_tagged(loader: _ConfigLoader, tag_suffix: str, node: yaml.Node) -> _Tagged:
    if isinstance(node, yaml.ScalarNode):
        return _Tagged(node.tag, loader.construct_scalar(node), "scalar")
    if isinstance(node, yaml.SequenceNode):
        return _Tagged(node.tag, loader.construct_sequence(node, deep=True), "sequence")
    return _Tagged(node.tag, loader.construct_mapping(node, deep=True), "mapping")


_ConfigLoader.add_multi_constructor("", _construct_tagged)


class _ConfigDumper(yaml.SafeDumper):
    pass


def _represent_tagged(dumper: _ConfigDumper, data: _Tagged) -> yaml.Node:
    if data.kind == "scalar":
        return dumper.represent_scalar(data.tag, data.value)
    if data.kind == "sequence":
        return dumper.represent_sequence(data.tag, data.value)
    return dumper.represent_mapping(data.tag, data.value)


def _represent_str(dumper: _ConfigDumper, data: str) -> yaml.Node:
    # not_in_nav / exclude_docs are gitignore-style multi-line strings; a block
    # scalar keeps the derived config readable next to the original.
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_ConfigDumper.add_representer(_Tagged, _represent_tagged)
_ConfigDumper.add_representer(str, _represent_str)


def read_config(text: str, path: str | Path = "mkdocs.yml") -> dict:
    """The project's mkdocs.yml as a dict; unknown tags kept as :class:`_Tagged`."""
    try:
        data = yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - safe loader plus inert tag holder
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise PapersiteError.at(path, mark.line + 1 if mark else 1, f"not valid YAML: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PapersiteError.at(path, 1, "expected a mapping of settings at the top level")
    return data


def _plugin_entries(plugins: Any) -> list[tuple[str, Any]]:
    if isinstance(plugins, dict):
        return list(plugins.items())
    entries = []
    for item in plugins or []:
        if isinstance(item, str):
            entries.append((item, None))
        elif isinstance(item, dict) and len(item) == 1:
            entries.append(next(iter(item.items())))
    return entries


def zensical_config(
    mkdocs_yml_text: str,
    *,
    docs_dir: str | None = None,
    site_dir: str | None = None,
    custom_dir: str | None = None,
    settings: dict[str, str] | None = None,
    routes: dict[str, str] | None = None,
) -> tuple[str, list[str]]:
    """Derive the config Zensical builds from, and say what was changed.

    The result is a function of its arguments only, so two runs on the same
    project produce the same file. Paths stay as written (relative to the
    config's folder), which is why the derived file must sit beside the original.
    """
    config = read_config(mkdocs_yml_text)
    notes: list[str] = []
    # what papersite.yml drives (site_url, repo_url): MkDocs gets it from our plugin, Zensical runs none
    config.update(settings or {})
    if routes is not None:  # the routes our templates build links from (the MkDocs plugin sets them for MkDocs)
        extra = config.get("extra") if isinstance(config.get("extra"), dict) else {}
        config["extra"] = {**extra, layout.ROUTES_EXTRA: routes}

    if "nav" in config:
        nav = nav_with_added_sections(config["nav"], config.get("not_in_nav"))
        if nav != config["nav"]:
            notes.append("nav: added " + ", ".join(t for r, t in ADDED_SECTIONS if {t: r.staged()} in nav and {t: r.staged()} not in config["nav"]))
            config["nav"] = nav

    if docs_dir is not None:
        config["docs_dir"] = docs_dir
    if site_dir is not None:
        config["site_dir"] = site_dir

    if config.get("hooks"):
        notes.append("hooks are not run by Zensical: " + ", ".join(map(str, config["hooks"])))
        del config["hooks"]

    if "plugins" in config:
        kept = []
        for name, options in _plugin_entries(config["plugins"]):
            if name in _PLUGINS_DROPPED_FOR_ZENSICAL:
                notes.append(f"plugin {name!r} removed: Zensical's tags listing grows memory quadratically")
                continue
            if name.removeprefix("material/") not in _PLUGINS_ZENSICAL_RUNS:
                notes.append(f"plugin {name!r} is not run by Zensical")
                continue
            kept.append(name if options is None else {name: options})
        config["plugins"] = kept

    # Zensical's default look ("modern": Inter, Lucide icons, new CSS) is not
    # Material's; "classic" is its Material look, so both engines show one site.
    theme = config.get("theme")
    if isinstance(theme, str):
        theme = config["theme"] = {"name": theme}
    if isinstance(theme, dict) and "variant" not in theme:
        theme["variant"] = "classic"
    # Zensical runs no plugin, so the templates MkDocs gets from our plugin come
    # from a custom_dir instead (a project's own custom_dir is left as it is).
    if custom_dir is not None and isinstance(theme, dict) and not theme.get("custom_dir"):
        theme["custom_dir"] = custom_dir

    header = (
        f"# Derived by papersite (generator/site/zensical_config.py) from the project's MkDocs config\n"
        f"# for Zensical (tested with {ZENSICAL_TESTED_VERSION}); rewritten on every build.\n"
    )
    body = yaml.dump(config, Dumper=_ConfigDumper, sort_keys=False, allow_unicode=True, width=1000)
    return header + body, notes
