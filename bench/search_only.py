"""The search files alone, at a size whose whole build this machine cannot spare: what a query fetches at 100k papers.

In: a project's paper pages (imported, e.g. by ``bench/run.py`` from ``bench/corpus.py``'s 100k corpus), and a
site built by the same papersite (any size: its home page and scripts are what the reader opens). Out: a copy of
that site's home page and assets with the search files (``search.search_files``) of the project's papers in
place of its own; ``python bench/run.py --search-cost OUT`` then measures a first and a next query on it, in
Chromium, as on a whole site. Prints the time and peak memory of writing the search files, and their bytes.

    python bench/search_only.py PROJECT BUILT_SITE OUT_SITE
"""

from __future__ import annotations

import resource
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.catalog import build_catalog  # noqa: E402
from generator.pages.record import read_page  # noqa: E402
from generator.site import search  # noqa: E402


def main(argv: list[str]) -> int:
    project, built, out = map(Path, argv)
    pages = sorted((project / "site_src" / "papers").glob("*.md"))
    records = [read_page(path) for path in pages]
    begun, cpu = time.perf_counter(), time.process_time()
    files = search.search_files(build_catalog(records))
    wall, cpu = time.perf_counter() - begun, time.process_time() - cpu
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy2(built / "index.html", out / "index.html")
    # the site's scripts and styles, without its own search files (a search file is in `files` or was not written)
    shutil.copytree(built / "assets", out / "assets", ignore=lambda folder, names: [
        n for n in names if Path(folder).name == "search" or n.startswith("search-") or n == "lunr.js"])
    for name, data in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    kinds: dict[str, list[int]] = {}
    for name, data in files.items():
        kind = Path(name).name.split("-")[0].split(".")[0]
        kinds.setdefault(kind, [0, 0])
        kinds[kind][0] += 1
        kinds[kind][1] += len(data)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(records)} papers: search files in {wall:.1f} s wall, {cpu:.1f} s CPU; peak {peak_mb:,.0f} MB; "
          f"{len(files)} files, {sum(map(len, files.values())) / 1e6:.1f} MB")
    for kind, (count, size) in sorted(kinds.items()):
        print(f"  {kind}: {count} files, {size / 1e3:,.0f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
