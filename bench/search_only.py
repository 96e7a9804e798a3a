"""A query's bytes at a size this machine cannot build twice: another build's search files, with this store's pieces.

In: a site built at the size wanted (e.g. the 100k site of ``bench/run.py``, built by any papersite whose index
shards are written as this one writes them: ``search_index.py``'s shards, the texts' chunks), and a site built by
this papersite (any size: its home page and scripts are what the reader opens). Out: the second site's home page
and assets, with the first site's index shards and texts, and its store (``search-docs.json.gz``) rewritten with
this papersite's schema and cut into this papersite's pieces (``search.store_pieces``, a function of the store
alone). ``python bench/run.py --search-cost OUT`` then measures a first and a next query on it in Chromium, as
on a whole site. Prints the time of cutting the pieces and their bytes.

    python bench/search_only.py BIG_SITE THIS_SITE OUT_SITE
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.site import search  # noqa: E402


def main(argv: list[str]) -> int:
    big, this, out = map(Path, argv)
    fresh_site(this, out)
    assets = big / "assets" / "papersite"
    for name in ("search-abstracts.json.gz", "lunr.js"):
        shutil.copy2(assets / name, out / "assets" / "papersite" / name)
    shards = out / search.SHARDS_DIR
    shards.mkdir(parents=True, exist_ok=True)
    for path in (assets / "search").iterdir():
        if path.name.split("-")[0] in ("index", "abstracts", "texts"):
            shutil.copy2(path, shards / path.name)
    store = json.loads(gzip.decompress((assets / "search-docs.json.gz").read_bytes()))
    store["schema"] = search.store_schema()
    begun, cpu = time.perf_counter(), time.process_time()
    pieces = {name: search.gzipped(data) for name, data in search.store_pieces(store).items()}
    wall, cpu = time.perf_counter() - begun, time.process_time() - cpu
    pieces[search.DOCS_FILE] = search.gzipped(search._json(store))
    for name, data in pieces.items():
        (out / name).write_bytes(data)
    print(f"{len(store['papers'])} papers: the store's pieces in {wall:.1f} s wall, {cpu:.1f} s CPU")
    print_kinds(pieces)
    return 0


def fresh_site(this: Path, out: Path) -> None:
    """``out`` made anew with the home page, scripts and styles of the site ``this``, without its search files."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy2(this / "index.html", out / "index.html")
    shutil.copytree(this / "assets", out / "assets", ignore=lambda folder, names: [
        n for n in names if Path(folder).name == "search" or n.endswith(".json.gz")])


def print_kinds(files: dict[str, bytes]) -> None:
    """Files and KB per kind of search file (the name's stem before its number: rows, titles, ...)."""
    kinds: dict[str, list[int]] = {}
    for name, data in files.items():
        kind = Path(name).name.split("-")[0].split(".")[0]
        kinds.setdefault(kind, [0, 0])
        kinds[kind][0] += 1
        kinds[kind][1] += len(data)
    for kind, (count, size) in sorted(kinds.items()):
        print(f"  {kind}: {count} files, {size / 1e3:,.0f} KB")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
