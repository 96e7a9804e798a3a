"""What one build keeps for the next: work on paper pages whose bytes did not change.

In: a cache file under the build dir and the paper pages. Out: the value the
last build computed for a page (its parsed record, its checked form), or
``None`` when the page changed since then.

An entry is keyed by the page's file name and the SHA-1 of its bytes, so an
edit (or a ``git checkout`` that restores older bytes) is always seen, whatever
the file times say. The whole file is dropped when papersite's code changes
(``code_version``): a cached value is only ever what the current code would
compute from the same bytes. ``--clean`` deletes the build dir, and with it
every cache. A cache that cannot be read is treated as empty.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from generator.config import ProjectConfig

CACHE_DIR = "cache"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # generator/


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of papersite's code and small data files: any change invalidates every cache."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE_DIR.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in {".py", ".yaml", ".yml", ".json"}:
            digest.update(path.relative_to(_PACKAGE_DIR).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def clear_caches(config: ProjectConfig) -> None:
    """Forget everything kept (``papersite build --clean``)."""
    shutil.rmtree(config.build_dir / CACHE_DIR, ignore_errors=True)


def content_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


class PageCache:
    """Values computed per page, kept in ``build/cache/<name>.pickle`` between builds.

    ``scope`` is anything else the values depend on (e.g. the taxonomy for the
    check): a different scope starts an empty cache.
    """

    def __init__(self, config: ProjectConfig, name: str, scope: str = "") -> None:
        self.path = config.build_dir / CACHE_DIR / f"{name}.pickle"
        self.version = f"{code_version()}\0{scope}"
        self.old: dict[str, tuple[str, Any]] = {}
        self.new: dict[str, tuple[str, Any]] = {}
        self.changed = False
        try:
            with self.path.open("rb") as handle:
                version, entries = pickle.load(handle)
            if version == self.version and isinstance(entries, dict):
                self.old = entries
        except (OSError, EOFError, ValueError, TypeError, AttributeError, ImportError, pickle.UnpicklingError):
            pass

    def get(self, key: str, digest: str) -> Any:
        """The value kept for ``key`` if its content hash is ``digest``; else None."""
        entry = self.new.get(key) or self.old.get(key)
        if entry is None or entry[0] != digest:
            return None
        self.new[key] = entry
        return entry[1]

    def put(self, key: str, digest: str, value: Any) -> None:
        self.new[key] = (digest, value)
        self.changed = True

    def page(self, path: Path, label: str, compute: Callable[[bytes | None], Any]) -> Any:
        """``compute(bytes)`` for the page at ``path``, or what it gave the last time the page held these bytes.

        The file is read once, here. The value must not be changed by the caller (it is what the next build gets)."""
        try:
            data = path.read_bytes()
        except OSError:
            return compute(None)  # it says what is wrong with the file
        digest = content_hash(data)
        value = self.get(label, digest)
        if value is None:
            value = compute(data)
            self.put(label, digest, value)
        return value

    def save(self) -> None:
        """Keep the entries used or made by this build (those of deleted pages drop out)."""
        if not self.changed and self.new.keys() == self.old.keys():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            pickle.dump((self.version, self.new), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, self.path)
        self.old, self.changed = dict(self.new), False  # a later reader in this build finds them


SITE_URLS = "\0site urls"  # a key no page label can be


class CheckedPages(PageCache):
    """``check_pages``' ``cache``: a page's own checks, kept for its bytes and the taxonomy."""

    def __init__(self, config: ProjectConfig) -> None:
        try:
            taxonomy = content_hash(config.taxonomy_file.read_bytes())
        except OSError:
            taxonomy = "missing"
        super().__init__(config, "checked", scope=f"{config.root}\0{taxonomy}")

    def site_urls(self, inputs: str, compute: Callable[[], Any]) -> Any:
        """The site's index and detail page URLs, kept for the names the pages give (check._site_index)."""
        digest = content_hash(inputs.encode("utf-8", "surrogatepass"))
        value = self.get(SITE_URLS, digest)
        if value is None:
            value = compute()
            self.put(SITE_URLS, digest, value)
        return value



class StagedPages:
    """What each staged paper page was rendered from (a hash of its inputs), in ``build/cache/staged.json``.

    A staged page is a file under the build dir: a Markdown page in the docs dir, or the
    data the post-build step pours into the papers shell. The staged file of a page whose
    inputs are unchanged is the page: it is not rendered again. The record is removed before the staged dir is touched and written back once
    it is complete, so a staging that fails half-way leaves no record to trust.
    """

    def __init__(self, config: ProjectConfig, scope: str) -> None:
        self.path = config.build_dir / CACHE_DIR / "staged.json"
        self.build_dir = config.build_dir
        self.version = content_hash(f"{code_version()}\0{scope}".encode("utf-8", "surrogatepass"))
        self.old: dict[str, str] = {}
        self.new: dict[str, str] = {}
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
            if saved.get("version") == self.version and isinstance(saved.get("pages"), dict):
                self.old = saved["pages"]
        except (OSError, ValueError, AttributeError):
            pass
        self.path.unlink(missing_ok=True)

    def unchanged(self, path: Path, inputs: str) -> bool:
        """Record ``inputs`` for the staged file ``path``; True if it was made from them."""
        rel = path.relative_to(self.build_dir).as_posix()
        key = self.new[rel] = content_hash(inputs.encode("utf-8", "surrogatepass"))
        return self.old.get(rel) == key and path.is_file()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"version": self.version, "pages": self.new}, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)


def _slugify_versions() -> str:
    """What slug_of's answers depend on beside papersite's code: python-slugify and its transliteration backends."""
    from importlib import metadata

    versions = []
    for name in ("python-slugify", "Unidecode", "text-unidecode", "anyascii"):
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=-")
    return " ".join(versions)


class KnownSlugs(PageCache):
    """``layout.slug_of``'s memo, kept in ``build/cache/slugs.pickle``: the catalog slugs every author and
    keyword name on every build, and slugify is a second of it at 11,672 papers. Kept for papersite's
    code and the slugify versions; a name's slug never depends on anything else."""

    KEY = "names"

    def __init__(self, config: ProjectConfig) -> None:
        super().__init__(config, "slugs", scope=_slugify_versions())
        from generator.layout import known_slugs

        self.memo = known_slugs()
        kept = self.get(self.KEY, "")
        if isinstance(kept, dict):
            for name, slug in kept.items():
                if isinstance(name, str) and isinstance(slug, str):
                    self.memo.setdefault(name, slug)
        self.size = len(kept) if isinstance(kept, dict) else 0

    def save(self) -> None:
        """Keep the memo if this build slugged names the file did not hold."""
        if len(self.memo) != self.size:
            self.put(self.KEY, "", dict(self.memo))
            self.size = len(self.memo)
        super().save()
