"""Relevance benchmark of the header search: known-item queries typed into a built site in headless Chromium.

In: a built site and the paper pages it was built from (``--project``), or a sample of the ICLR 2025
dataset built into a fresh project first (``--sample N``: every k-th record, so authors are known).
Out: per kind of query, the share of queries whose paper is the first paper result and in the first
three, and the time from setting the query to the first result shown; with ``--keystrokes``, the
time per keystroke (each prefix of a query) until the results for it are complete. Figures only.

Each query is generated from one paper by a fixed rule, never picked by hand. Words are the
lowercase alphanumeric runs of a text; "content words" have 4+ letters and are not stop words.

- acronym: a title that starts "NAME: ..." where NAME is one word with 2+ capitals and no other
  title has that word; the query is NAME.
- title words: the title's three rarest content words (fewest titles holding them), in reverse
  title order; only when no other title holds all three.
- typo: the same three words, the longest of them (5+ letters) with its 3rd and 4th letters
  swapped (or, when those are equal, its 3rd letter dropped).
- abstract words: the three rarest content words of the abstract that are in no other field of
  the paper (title, authors, keywords, topic) and in at least 3 abstracts; only when no other
  abstract holds all three.
- surname + title word: the first author's last name and the title's rarest content word, when
  no other paper has an author of that surname and that word in its title.

Papers are taken in the order of the SHA-1 of their slug, up to ``--per-kind`` per kind.

    python bench/search_relevance.py --project .              # the bundled site (build it first)
    python bench/search_relevance.py --sample 635             # a sample with authors, built here
    python bench/search_relevance.py --sample 11672 --keystrokes 20
    python bench/search_relevance.py --project P --site OTHER_SITE  # P's queries on another build of its papers
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import run as scale  # noqa: E402  (bench/run.py: corpus, project and server helpers)

from generator.config import load_config  # noqa: E402
from generator.pages.record import PaperRecord, read_page  # noqa: E402

KINDS = ("acronym", "title words", "typo", "abstract words", "surname + title word")
STOP = {
    "about", "above", "after", "again", "against", "also", "among", "based", "been", "being", "between", "both",
    "could", "does", "during", "each", "either", "every", "from", "have", "having", "here", "into", "itself",
    "more", "most", "much", "must", "only", "other", "over", "same", "should", "some", "such", "than", "that",
    "their", "them", "then", "there", "these", "they", "this", "those", "through", "under", "until", "upon",
    "very", "were", "what", "when", "where", "which", "while", "with", "within", "without", "would", "your",
    "towards", "toward", "via", "using", "will", "whether", "because", "thus", "however",
}
WORD = re.compile(r"[a-z0-9]+")
ACRONYM = re.compile(r"^([A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*):\s")


def words(text: str | None) -> list[str]:
    return WORD.findall((text or "").lower())


def content(text: str | None) -> list[str]:
    return list(dict.fromkeys(w for w in words(text) if len(w) >= 4 and w not in STOP and not w.isdigit()))


@dataclass(frozen=True)
class Query:
    kind: str
    text: str
    slug: str  # the paper it should find


def _order(papers: list[PaperRecord]) -> list[PaperRecord]:
    return sorted(papers, key=lambda p: hashlib.sha1(p.slug.encode()).hexdigest())


def _typo(word: str) -> str:
    if word[2] != word[3]:
        return word[:2] + word[3] + word[2] + word[4:]
    return word[:2] + word[3:]


def make_queries(papers: list[PaperRecord], per_kind: int) -> list[Query]:
    titles = {p.slug: set(words(p.title)) for p in papers}
    abstracts = {p.slug: set(words(p.abstract)) for p in papers}
    title_df = Counter(w for s in titles.values() for w in s)
    abstract_df = Counter(w for s in abstracts.values() for w in s)
    surnames = {p.slug: {a.split()[-1].lower() for a in p.authors if a.split()} for p in papers}
    queries: dict[str, list[Query]] = {k: [] for k in KINDS}

    def unique(slug: str, need: list[str], sets: dict[str, set[str]]) -> bool:
        return all(not all(w in other for w in need) for s, other in sets.items() if s != slug)

    def add(kind: str, text: str, slug: str) -> None:
        if len(queries[kind]) < per_kind:
            queries[kind].append(Query(kind, text, slug))

    for paper in _order(papers):
        title = " ".join(paper.title.split())
        match = ACRONYM.match(title)
        if match and title_df[match.group(1).lower()] == 1:
            add("acronym", match.group(1), paper.slug)
        ranked = sorted(content(title), key=lambda w: (title_df[w], w))
        if len(ranked) >= 3:
            three = ranked[:3]
            if unique(paper.slug, three, titles):
                in_title = [w for w in content(title) if w in three]
                add("title words", " ".join(reversed(in_title)), paper.slug)
                longest = max(in_title, key=lambda w: (len(w), w))
                if len(longest) >= 5:
                    add("typo", " ".join(_typo(w) if w == longest else w for w in reversed(in_title)), paper.slug)
        elsewhere = set(words(" ".join([title, *paper.authors, *paper.keywords, paper.topic.label() if paper.topic else ""])))
        candidates = [w for w in content(paper.abstract) if w not in elsewhere and abstract_df[w] >= 3]
        candidates.sort(key=lambda w: (abstract_df[w], w))
        if len(candidates) >= 3 and unique(paper.slug, candidates[:3], abstracts):
            add("abstract words", " ".join(candidates[:3]), paper.slug)
        if paper.authors and ranked and paper.authors[0].split():
            surname = paper.authors[0].split()[-1].lower()
            others = [s for s in papers if s.slug != paper.slug and surname in surnames[s.slug] and ranked[0] in titles[s.slug]]
            if not others and len(surname) >= 2:
                add("surname + title word", f"{paper.authors[0].split()[-1]} {ranked[0]}", paper.slug)
    return [q for kind in KINDS for q in queries[kind]]


# --------------------------------------------------------------------------- browser

# Sets the header search box to a query and resolves once the panel shows results for it (first)
# and once it no longer says the abstracts are still being searched (done). Works with the old
# panel too: it waits on what the reader sees (the result list and the status line).
_RUN_QUERY = """async ([text, settle]) => {
  const input = document.querySelector('[data-ps-search-input]');
  const list = document.querySelector('[data-ps-search-results]');
  const meta = document.querySelector('[data-ps-search-meta]');
  input.value = ''; input.dispatchEvent(new Event('input', {bubbles: true}));
  const start = performance.now();
  input.value = text; input.dispatchEvent(new Event('input', {bubbles: true}));
  const shown = () => (list.children.length > 0 || /^no paper/i.test(meta.textContent)) &&
                      (!list.dataset.psQuery || list.dataset.psQuery === text) && !/^type to search/i.test(meta.textContent);
  const done = () => shown() && !/searching|loading/i.test(meta.textContent);
  const until = (test) => new Promise((resolve) => {
    if (test()) return resolve(performance.now());
    const seen = new MutationObserver(() => { if (test()) { seen.disconnect(); resolve(performance.now()); } });
    seen.observe(list.parentNode, {subtree: true, childList: true, characterData: true, attributes: true});
  });
  const first = await until(shown);
  const complete = settle ? await until(done) : first;
  const hrefs = Array.from(list.querySelectorAll('a[href]')).map((a) => a.href);
  return {first: first - start, complete: complete - start, hrefs};
}"""

_PAPER = re.compile(r"/papers/([^/]+)/$")


def paper_slugs(hrefs: list[str]) -> list[str]:
    return [m.group(1) for m in map(_PAPER.search, hrefs) if m]


def measure(site: Path, queries: list[Query], keystrokes: int) -> dict:
    from playwright.sync_api import sync_playwright

    server, base = scale.serve(site)
    results: dict = {"kinds": {}, "misses": []}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=scale.CHROMIUM, headless=True, args=scale.CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(base, wait_until="load")
            # the first query also waits for the indexes to load: reported apart
            started = time.perf_counter()
            page.evaluate(_RUN_QUERY, [queries[0].text if queries else "model", True])
            results["first_query_with_loading_s"] = round(time.perf_counter() - started, 3)
            firsts: list[float] = []
            for query in queries:
                got = page.evaluate(_RUN_QUERY, [query.text, True])
                slugs = paper_slugs(got["hrefs"])
                rank = slugs.index(query.slug) + 1 if query.slug in slugs else None
                kind = results["kinds"].setdefault(query.kind, {"queries": 0, "first": 0, "top3": 0})
                kind["queries"] += 1
                kind["first"] += rank == 1
                kind["top3"] += rank is not None and rank <= 3
                firsts.append(got["first"])
                if rank != 1:
                    results["misses"].append({"kind": query.kind, "query": query.text, "want": query.slug,
                                              "rank": rank, "got": slugs[:3]})
            for kind in results["kinds"].values():
                kind["first_%"] = round(100 * kind["first"] / kind["queries"], 1)
                kind["top3_%"] = round(100 * kind["top3"] / kind["queries"], 1)
            if firsts:
                results["ms_to_first_result"] = {"median": round(statistics.median(firsts), 1),
                                                 "p90": round(sorted(firsts)[int(0.9 * (len(firsts) - 1))], 1),
                                                 "max": round(max(firsts), 1)}
            if keystrokes:
                per_key: list[float] = []
                for query in queries[:: max(1, len(queries) // keystrokes)][:keystrokes]:
                    for end in range(1, len(query.text) + 1):
                        per_key.append(page.evaluate(_RUN_QUERY, [query.text[:end], True])["complete"])
                results["ms_per_keystroke"] = {"keystrokes": len(per_key), "median": round(statistics.median(per_key), 1),
                                               "p90": round(sorted(per_key)[int(0.9 * (len(per_key) - 1))], 1),
                                               "max": round(max(per_key), 1)}
            browser.close()
    finally:
        server.shutdown()
    return results


def sample_project(size: int, work: Path) -> Path:
    """A fresh project holding every k-th record of the ICLR 2025 dataset (``size`` of them), built."""
    records = scale.real_records()
    step = max(1, len(records) // size)
    project = scale.new_project(work / f"relevance-{size}", records[::step][:size])
    for args in (("import", "--quiet"), ("build", "--no-import", "--quiet")):
        scale.papersite_measured(project, *args)
    return project


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--project", type=Path, help="a project already built (its site and paper pages)")
    where.add_argument("--sample", type=int, help="build a project of this many dataset records first")
    parser.add_argument("--work", type=Path, default=scale.REPO / "bench" / "out")
    parser.add_argument("--per-kind", type=int, default=100)
    parser.add_argument("--keystrokes", type=int, default=0, help="time every prefix of this many queries")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--site", type=Path, help="search this site instead of the project's (e.g. one made by"
                        " bench/search_only.py from it)")
    args = parser.parse_args(argv)
    project = sample_project(args.sample, args.work) if args.sample else args.project.resolve()
    config = load_config(project)
    papers = [read_page(path) for path in sorted(config.papers_dir.glob("*.md"))]
    queries = make_queries(papers, args.per_kind)
    figures = measure(args.site or config.site_dir, queries, args.keystrokes)
    figures["papers"] = len(papers)
    print(f"{len(papers)} papers; first query (indexes loading) {figures['first_query_with_loading_s']} s; "
          f"ms to first result {figures.get('ms_to_first_result')}; per keystroke {figures.get('ms_per_keystroke')}")
    print("| kind | queries | first | top 3 |\n|---|---|---|---|")
    for kind in KINDS:
        k = figures["kinds"].get(kind)
        if k:
            print(f"| {kind} | {k['queries']} | {k['first_%']}% | {k['top3_%']}% |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
