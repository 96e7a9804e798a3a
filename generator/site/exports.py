"""Saved papers and exports: the citations the browser downloads, and the Saved page.

In: the catalog and the site's venue. Out, under ``assets/papersite/``:

- ``citations/<start>.json.gz``: every paper's row (``CITATION_COLUMNS``: its slug, title, the
  short line lists show under it, and its BibTeX, RIS, CSV record and plain-text citation), in
  shards of about SHARD_PAPERS papers of consecutive slugs (``shard_starts``), so saving three
  papers fetches three small files, not every citation of the site (5 MB at 11,672 papers). The BibTeX, RIS and text are ``cite.bibtex``,
  ``cite.ris`` and ``cite.citation_line``: the browser joins records and shows them (a paper page's
  RIS and plain text come from here: 1.1 KB of each page at 12k papers), it never formats one.
- ``fixes/<shard>.json.gz`` (same shards): each paper's "Fix this paper" link, pre-filled with what
  its page says (``form.prefill_url`` without the abstract) and the abstract the browser appends
  (where the link then stays within ``form.MAX_URL_BYTES``: ``fix_row``), or null where the browser
  reads it from the page's abstract section, which shows it as it is (``abstract_on_page``). The page links to the bare form (``form.form_url``);
  the script swaps in this one. On every page they were 2.3 KB (the link and a ``citation_abstract``
  tag to take the abstract from).
- ``related/<n>.json.gz``: each paper's related papers (``related_files``), as
  their numbers in the search files (``search.papers_in_slug_order``): a paper page draws its list from
  the search's rows files (``papersite-saved.js``), which name each paper's title, first authors and
  topic. Written inline, the lists were 17 MB of the site at 11,672 papers (1.45 KB of each paper
  page), and a retitled paper made the pages of the papers it is related to again.
- ``coauthors/<n>.json.gz``: each author's co-authors (``coauthor_files``), an author page's Co-authors
  section: the author's slug, each co-author's slug, name and shared papers, and how many more there are
  (``catalog.MAX_COAUTHORS_SHOWN``). Written in the pages, the lists were 14.5 MB at 11,672 papers.
  A paper's related papers and an author's co-authors are in file ``crc32(slug) % files`` (about
  SHARD_PAPERS papers, COAUTHORS_A_FILE authors a file: ``hashed_file``), a rule the browser follows with
  no list of cuts (``papersite-core.js`` crc32).
- ``exports.json``: what ``papersite-saved.js`` knows of the build (``exports_schema``): the
  columns, the shard keys and the shards' paths, the search files it reads related papers' rows
  from, the URL patterns of a paper and of the Saved page (from ``layout``), the CSV header and the
  stem of the files it downloads.

The Saved page itself (``saved_page``) is a shell the script fills from the reader's
localStorage; without JavaScript it says what it would do and where citations are instead.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import unicodedata
import zlib
from collections.abc import Callable
from urllib.parse import quote

from generator import layout
from generator.catalog import Author, Catalog
from generator.config import ProjectConfig
from generator.corrections.form import MAX_URL_BYTES, prefill_url
from generator.site.memo import PAGE_SHARDS, Fingerprints, Memo, content_hash
from generator.pages.decisions import read_decision
from generator.pages.record import PaperRecord
from generator.site.render import cite
from generator.site.render.components import author_line
from generator.site.render.mathml import render_abstract
from generator.site.render.paper_pages import read_taxonomy
from generator.site.render.html import block, esc, page
from generator.site import search, search_index
from generator.site.search import gzipped

EXPORTS_FILE = "assets/papersite/exports.json"
CITATION_SHARD = "assets/papersite/citations/{}.json.gz"
CITATION_COLUMNS = ("slug", "title", "meta", "bibtex", "ris", "csv", "text")
FIX_SHARD = "assets/papersite/fixes/{}.json.gz"
FIX_COLUMNS = ("slug", "url", "abstract")
# One CSV row a paper: what a spreadsheet of a reading list needs, and the citation as the page gives it.
CSV_COLUMNS = ("title", "authors", "author_order", "venue", "year", "decision", "topic", "keywords", "url", "bibtex_key", "citation")
EXPORTS_VERSION = 1


# Papers a citation or fix shard holds, about (~16 and ~40 KB gzipped): what a paper page's Cite
# section and Fix link fetch. Shards by a slug's first character were 20-270 KB at 11,672 papers
# and would be 0.7 and 2 MB at 100k; by its first two, 0.9 and 2.3 MB for "co" at 100k.
SHARD_PAPERS = 64
RELATED_SHARD = "assets/papersite/related/{}.json.gz"
COAUTHOR_SHARD = "assets/papersite/coauthors/{}.json.gz"
# The shards' folders hold only this build's shards (postbuild.copy_deferred removes the others).
SHARD_DIRS = tuple(pattern.rsplit("/", 1)[0] for pattern in (CITATION_SHARD, FIX_SHARD, RELATED_SHARD, COAUTHOR_SHARD))


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")  # the browser's order of strings


def _cuts_before(slug: str) -> bool:
    """Whether a shard begins at ``slug`` by its content: about one slug in SHARD_PAPERS, the same
    whatever other papers there are, so a paper arriving or leaving changes its own shard (and
    perhaps a neighbour), never the cuts of the rest."""
    return int.from_bytes(hashlib.sha1(slug.encode("utf-8")).digest()[:4], "big") % SHARD_PAPERS == 0  # noqa: S324


def shard_starts(slugs: list[str]) -> list[str]:
    """The shards of the slugs (in the browser's order): each one's start, the shortest beginning of
    its first slug that sorts after the slug before it, so no slug lies between the two and a slug's
    shard is the last whose start is not after it (``search_index.shard_of``, papersite-core.js
    ``shardOf``). A shard ends where ``_cuts_before`` says, or at 4 × SHARD_PAPERS papers."""
    starts: list[str] = []
    count = 0
    previous = b""
    for slug in sorted(slugs, key=_utf16):
        key = _utf16(slug)
        if not starts or (key != previous and (count >= 4 * SHARD_PAPERS or _cuts_before(slug))):
            end = 1
            while end < len(slug) and _utf16(slug[:end]) <= previous:
                end += 1
            starts.append(slug[:end])
            count = 0
        count += 1
        previous = key
    return starts


def shard_of(slug: str, starts: list[str]) -> str:
    """The start of the shard ``slug`` is in (its file's name)."""
    return starts[search_index.shard_of(slug, starts)]


# The key under which ``citation_files``' memo keeps the shards' starts and slugs (no "gzip ..." key is this)
SHARD_LAYOUT = "shard layout"


def papers_by_shard(papers: list[PaperRecord], memo: Memo | None = None) -> dict[str, list[PaperRecord]]:
    """Each shard's start (``shard_starts``) -> its papers in the browser's order, as ``shard_of`` places
    them. With ``memo``, the starts and each shard's slugs are kept by the papers' slugs: an edit that
    adds or removes no paper (a title, an abstract) does not order 11,672 slugs as the browser does and
    cut them again (~0.05 s of the search worker, the end of an edit's longest path)."""
    by_slug = {paper.slug: paper for paper in papers}
    if memo is None or len(by_slug) != len(papers):  # (slugs are unique in any catalog a check passed)
        return _papers_by_shard(papers)
    slugs = content_hash("\0".join(sorted(by_slug)).encode("utf-8", "surrogatepass"))
    kept = memo.value(SHARD_LAYOUT, slugs,
                      lambda: [(start, [paper.slug for paper in shard]) for start, shard in _papers_by_shard(papers).items()])
    return {start: [by_slug[slug] for slug in shard] for start, shard in kept}


def _papers_by_shard(papers: list[PaperRecord]) -> dict[str, list[PaperRecord]]:
    """``papers_by_shard``, made: one walk of the sorted papers, not a search of the starts a paper."""
    ordered = sorted(((_utf16(paper.slug), paper) for paper in papers), key=lambda pair: pair[0])
    starts = shard_starts([paper.slug for _, paper in ordered])
    shards: dict[str, list[PaperRecord]] = {start: [] for start in starts}
    bounds = [_utf16(start) for start in starts[1:]]
    at = 0
    for key, paper in ordered:
        while at < len(bounds) and bounds[at] <= key:
            at += 1
        shards[starts[at]].append(paper)
    return shards


def _csv_line(values: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(values)  # RFC 4180: CRLF, quoted where needed
    return out.getvalue()


def csv_header() -> str:
    return _csv_line(list(CSV_COLUMNS))


def csv_record(paper: PaperRecord, venue: cite.Venue) -> str:
    """The paper's CSV row (CSV_COLUMNS), ending in CRLF. Authors whose order is not known are
    named, and the author_order column says so; the citation line is ``cite.citation_line``."""
    decision = read_decision(paper.decision)
    values = {
        "title": "" if paper.title_derived else " ".join(paper.title.split()),
        "authors": "; ".join(" ".join(a.split()) for a in paper.authors),
        "author_order": "" if cite.order_known(paper) else cite.order_words(paper),
        "venue": venue.short,
        "year": venue.year or "",
        "decision": decision.text if decision else "",
        "topic": paper.topic.label() if paper.topic else "",
        "keywords": "; ".join(" ".join(k.split()) for k in paper.keywords),
        "url": next((paper.links[n].strip() for n in ("openreview", "pdf") if layout.is_web_url(paper.links.get(n, ""))), ""),
        "bibtex_key": cite.bibtex_key(paper, venue),
        "citation": cite.citation_line(paper, venue),
    }
    return _csv_line([values[name] for name in CSV_COLUMNS])


def citation_row(paper: PaperRecord, site_venue: cite.Venue) -> list[str]:
    """A paper's row of CITATION_COLUMNS."""
    venue = cite.venue_of(paper, site_venue)
    meta = " · ".join(part for part in (author_line(paper) if paper.authors else "", paper.topic.label() if paper.topic else "") if part)
    values = {
        "slug": paper.slug, "title": " ".join(paper.title.split()), "meta": meta,
        "bibtex": cite.bibtex(paper, venue), "ris": cite.ris(paper, venue), "csv": csv_record(paper, venue),
        "text": cite.citation_line(paper, venue),
    }
    return [values[name] for name in CITATION_COLUMNS]


# What JavaScript's encodeURIComponent leaves as it is: papersite.js encodes the abstract with it.
_URI_COMPONENT_SAFE = "-_.!~*'()"


# A fix row's abstract when papersite.js is to read it from the paper page's abstract section (its
# paragraphs' text, joined by a space, runs of whitespace as one space: ``abstract_on_page``).
ABSTRACT_ON_PAGE = None


def abstract_on_page(abstract: str) -> bool:
    """Whether the paper page's abstract, read as text the way papersite.js reads it, is ``abstract``
    on one line: where rendering it only escaped it and cut it into paragraphs (no formula, markup,
    link or mended sentence), and no character is one the browser's parser drops or on whose being
    whitespace JavaScript and Python differ."""
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" or c == "\ufeff" for c in abstract):
        return False
    rendered = render_abstract(abstract)
    if not (rendered.startswith("<p>") and rendered.endswith("</p>")):
        return False
    paragraphs = rendered[len("<p>"):-len("</p>")].split("</p><p>")
    if any("<" in p for p in paragraphs):
        return False
    return " ".join(" ".join(html.unescape(p) for p in paragraphs).split()) == " ".join(abstract.split())


def fix_row(paper: PaperRecord, repo_url: str, taxonomy) -> list[str | None]:  # noqa: ANN001 (a Taxonomy, or None)
    """A paper's row of FIX_COLUMNS: its pre-filled correction link without the abstract, and the
    abstract papersite.js appends to it: whole, and only where the link then stays within
    MAX_URL_BYTES (else none: an empty field changes nothing). Where the page shows the abstract as
    it is (``abstract_on_page``), ABSTRACT_ON_PAGE instead of its text: the abstracts were two thirds
    of these shards' bytes, and the page a reader opens the form from holds them already. None for a
    derived title (the page never offered one: it had no Scholar tags)."""
    url = prefill_url(repo_url, paper, taxonomy, with_abstract=False)
    abstract = " ".join(paper.abstract.split()) if paper.abstract and not paper.title_derived else ""
    if len(url) + len("&abstract=") + len(quote(abstract, safe=_URI_COMPONENT_SAFE)) > MAX_URL_BYTES:
        abstract = ""
    return [paper.slug, url, ABSTRACT_ON_PAGE if abstract and abstract_on_page(paper.abstract) else abstract]


def file_stem(site_name: str) -> str:
    """The start of a downloaded file's name: the site's name as a slug ("iclr-2025-papers")."""
    return layout.slug_of(site_name) if site_name.strip() else "papers"


def exports_schema(shards: list[str], site_name: str, related_files: int = 1, coauthor_files: int = 1) -> dict:  # shards: their starts (shard_starts)
    """What papersite-saved.js reads the citations with (module docstring)."""
    return {
        "version": EXPORTS_VERSION,
        "columns": list(CITATION_COLUMNS),
        "shards": shards,
        "shard_path": CITATION_SHARD.format("{shard}"),
        "fix_columns": list(FIX_COLUMNS),
        "fix_path": FIX_SHARD.format("{shard}"),
        "related_path": RELATED_SHARD.format("{shard}"),
        "related_files": related_files,
        "coauthor_path": COAUTHOR_SHARD.format("{shard}"),
        "coauthor_files": coauthor_files,
        "search_head": search.HEAD_FILE,
        "search_rows": search.ROWS_FILE.format("{n}"),
        "urls": {"paper": layout.paper_url("{slug}"), "author": layout.author_url("{slug}"), "saved": layout.SAVED.url()},
        "csv_header": csv_header(),
        "file_stem": file_stem(site_name),
    }


def _json(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def citation_files(catalog: Catalog, site_venue: cite.Venue, site_name: str, config: ProjectConfig | None = None,
                   prints: Fingerprints | None = None) -> dict[str, bytes]:
    """The citation and fix shards and ``exports.json`` (module docstring), rows in slug order in each
    shard (fix rows only where ``config`` names a repository). With ``config``, a shard is kept from the
    last build while its papers and what their rows read are as they were (``memo.py``): its key is its
    papers' fingerprints (``prints``: the build's, which knows each record by its page's bytes,
    ``stage.known_records``), the venue's, and for the fix rows the repository and whether the taxonomy
    holds each topic. An edit makes the rows of its paper's shard again (~30 papers; three citations a
    paper were 1 s a thousand) and compresses that shard (430 shards at 11,672 papers: 0.9 s); it no
    longer hashes each paper's rows' arguments (0.3-0.45 s of the search worker, the edit's longest path)."""
    memo = Memo(config, "citations", shards=PAGE_SHARDS) if config else None
    prints = prints or Fingerprints()
    repo_url = config.repo_url if config else None
    taxonomy = read_taxonomy(config) if repo_url else None
    shards = papers_by_shard(catalog.papers, memo)
    starts = list(shards)
    venue = prints.digest_of(site_venue)

    def compressed(name: str, made_of: str, rows: Callable[[], list[list[str]]]) -> bytes:
        if not memo:
            return gzipped(_json(rows()))
        return memo.value(f"gzip {name}", content_hash(made_of.encode("utf-8")), lambda: gzipped(_json(rows())))

    files, fixes = {}, {}
    for start, papers in shards.items():
        digests = "\0".join(prints.digest_of(paper) for paper in papers)
        files[CITATION_SHARD.format(start)] = compressed(
            CITATION_SHARD.format(start), f"{venue}\0{digests}", lambda papers=papers: [citation_row(p, site_venue) for p in papers])
        if repo_url:
            # the link names the topic only where the taxonomy has it: that, not the taxonomy, is what it reads
            known = "".join("1" if p.topic and taxonomy and taxonomy.contains(p.topic.area, p.topic.subarea) else "0" for p in papers)
            fixes[FIX_SHARD.format(start)] = compressed(FIX_SHARD.format(start), f"{repo_url}\0{known}\0{digests}",
                                                        lambda papers=papers: [fix_row(p, repo_url, taxonomy) for p in papers])
        else:
            fixes[FIX_SHARD.format(start)] = compressed(FIX_SHARD.format(start), "", list)
    files.update(fixes)
    files[EXPORTS_FILE] = _json(exports_schema(starts, site_name, related_file_count(catalog.papers),
                                               coauthor_file_count(with_coauthors(catalog))))
    if memo:
        memo.save()
    return files


# Authors a co-author file holds, about: what an author page fetches (2.3 KB gzipped at 11,672 papers; at
# SHARD_PAPERS a file it was 8.5 KB, for 0.34 MB less in all).
COAUTHORS_A_FILE = 16


def hashed_files(count: int, per_file: int = SHARD_PAPERS) -> int:
    """How many files ``count`` rows fill at about ``per_file`` a file (the related and co-author files)."""
    return max(1, -(-count // per_file))


def related_file_count(papers: list[PaperRecord]) -> int:
    """How many related files the papers fill (``related_files``; ``exports.json`` tells the browser)."""
    return hashed_files(len(papers))


def with_coauthors(catalog: Catalog) -> list[Author]:
    """The authors a co-author file holds: those with co-authors, in the catalog's order (by their count: the
    co-authors themselves are made only when asked for, ``catalog.Author``)."""
    return [a for a in catalog.authors if a.coauthor_count]


def coauthor_file_count(authors: list[Author]) -> int:
    """How many co-author files ``with_coauthors`` fill (``coauthor_files``; ``exports.json`` tells the browser)."""
    return hashed_files(len(authors), COAUTHORS_A_FILE)


def hashed_file(slug: str, files: int) -> int:
    """The related or co-author file of the paper or author ``slug``: its UTF-8's CRC-32 (``zlib.crc32``,
    which ``papersite-core.js`` crc32 computes alike) modulo ``files``. No list of cuts for the browser to
    fetch, and no sort of 35k names a build to find them."""
    return zlib.crc32(slug.encode("utf-8")) % files


def _kept_gzip(memo: Memo | None, name: str, data: bytes) -> bytes:
    """``data`` gzipped, or what the last build gzipped of the same bytes (a file an edit did not change)."""
    if memo is None:
        return gzipped(data)
    return memo.value(f"gzip {name}", content_hash(data), lambda: gzipped(data))


def related_files(catalog: Catalog, related: dict[str, list[str]], config: ProjectConfig | None = None) -> dict[str, bytes]:
    """The related files (module docstring): in file ``hashed_file(slug)``, each paper that has related papers
    as ``[slug, [number, ...]]`` in ``related``'s order (most similar first), in slug order, and the numbers of
    those among them whose title was derived (a list marks them). Numbered as the search files number papers,
    so a list is drawn from the rows files a search reads; a paper arriving renumbers the papers after it, and
    these files are made again with them. With ``config``, a file's bytes are compressed only where they changed."""
    memo = Memo(config, "related-files") if config else None
    papers = catalog.papers
    in_slug_order = search.papers_in_slug_order(papers)
    number = {papers[place].slug: n for n, place in enumerate(in_slug_order)}
    derived = {p.slug for p in papers if p.title_derived}
    files = related_file_count(papers)
    rows: list[list[list]] = [[] for _ in range(files)]
    marked: list[set[int]] = [set() for _ in range(files)]
    for place in in_slug_order:
        slug = papers[place].slug
        others = [s for s in related.get(slug, ()) if s in number]
        if others:
            n = hashed_file(slug, files)
            rows[n].append([slug, [number[s] for s in others]])
            marked[n].update(number[s] for s in others if s in derived)
    made = {RELATED_SHARD.format(n): _kept_gzip(memo, RELATED_SHARD.format(n), _json({"papers": rows[n], "derived": sorted(marked[n])}))
            for n in range(files)}
    if memo:
        memo.save()
    return made


def coauthor_row(author: Author) -> list:
    """An author's row of its co-author file: slug, [co-author slug, name, shared papers] most shared first,
    and how many co-authors are not listed (a large collaboration: ``catalog.MAX_COAUTHORS_SHOWN``)."""
    return [author.slug, [[other.slug, other.name, n] for other, n in author.coauthors], author.coauthor_count - len(author.coauthors)]


def coauthor_files(catalog: Catalog, config: ProjectConfig | None = None, keys: dict[str, str] | None = None) -> dict[str, bytes]:
    """The co-author files (module docstring), each author's row in file ``hashed_file(slug)``, in the catalog's
    order of authors. With ``config``, a file is kept from the last build while the keys of its authors' pages
    are as they were (``keys``: author page URL -> key, ``memo.write_rows``): a page's key is the fingerprint of
    its arguments, which hold the author's co-authors, so an edit makes again the files of the authors whose
    pages it changed, and compresses those alone."""
    memo = Memo(config, "coauthors", shards=PAGE_SHARDS) if config else None
    authors = with_coauthors(catalog)
    files = coauthor_file_count(authors)
    members: list[list[Author]] = [[] for _ in range(files)]
    for author in authors:
        members[hashed_file(author.slug, files)].append(author)
    head, tail = layout.author_url("\0").split("\0")  # an author's page URL (the keys'), made inline: 35k a build
    made = {}
    for n, group in enumerate(members):
        name = COAUTHOR_SHARD.format(n)
        page_keys = [keys.get(head + a.slug + tail) for a in group] if keys is not None else [None]
        rows = lambda group=group: gzipped(_json([coauthor_row(a) for a in group]))  # noqa: E731
        if memo is None or not all(page_keys):
            made[name] = rows()
        else:
            made[name] = memo.value(f"gzip {name}", content_hash("\0".join(page_keys).encode("utf-8")), rows)
    if memo:
        memo.save()
    return made


def saved_page() -> str:
    """The Saved page: the reader's saved papers (or a list opened from a link), their exports."""
    here = layout.SAVED.url()
    papers = layout.relative(here, layout.PAPERS.url())
    explore = layout.relative(here, layout.EXPLORE.url())
    body = block(
        "<h1>Saved papers</h1>",
        "<p>Press <strong>Save</strong> on a paper’s page, or beside a paper in any list, to keep it here. "
        "The list is kept in this browser only (its local storage): nothing is sent anywhere, and it stays "
        "until you remove the papers or clear the site’s data. Download it as BibTeX, RIS or CSV, or copy a "
        "link that opens the same list anywhere.</p>",
        "<noscript><p><strong>Saving papers needs JavaScript</strong>, which is off: the list lives in your "
        "browser’s storage. Every paper’s BibTeX and RIS are on its own page; "
        f'<a href="{esc(papers)}">All papers</a> lists them all, and <a href="{esc(explore)}">Explore</a> '
        "(with JavaScript) downloads any search’s results.</p></noscript>",
        '<div class="ps-saved" data-ps-saved hidden>',
        '<p class="ps-saved-shared" data-ps-saved-shared hidden></p>',
        '<p class="ps-saved-count" data-ps-saved-count aria-live="polite">Loading your saved papers…</p>',
        '<div class="ps-export" data-ps-export hidden></div>',
        '<ol class="ps-papers ps-saved-list" data-ps-saved-list></ol>',
        "</div>",
    )
    return page({"title": "Saved papers", "hide": ["toc"], "search": {"exclude": True}}, body)
