"""Search: lunr indexes (scored as lunr.py scores them), their document store, and the Explore page.

In: the catalog. Out, all under ``assets/papersite/``:

- ``search/index-<n>.json.gz``: a lunr.js 2.3.9 index of the short fields
  (title, authors, keywords, topic), in shards of consecutive terms, and
  ``search/index-shards.json.gz``, each shard's first term and what the weights are computed from
  (``search_index.py``: the worker computes lunr's weights, so an edit rewrites few shards):
  a query loads only the shards its words' terms are in, and the header search
  and Explore show their first results from them.
- ``search/abstracts-<n>.json.gz``: a second index, of the abstracts only
  (four fifths of all postings), in shards of its own (``abstracts-shards``). Loaded once the first
  results are shown; a paper's score is the sum of its scores in both, so the
  results are those of one index over all five fields. A term held by over ``COMMON_PAPERS``
  abstracts is shipped as its papers only: the worker bounds its weight, and the ranking has the
  weights of the papers that bound leaves undecided among those shown read from their texts
  (``search_index.py``; ``search-worker.js`` makeExact; ``papersite-ranking.js`` undecided).
- ``search-docs.json.gz``, the store: its ``schema`` (below), what a result shows, and each paper's
  topic, keywords, authors and decision for Explore's filters and facet counts, and the papers'
  numbers in title order (``title_order``: Explore's list with no query and its "Title A–Z"). Explore and the
  map load it whole (they list and filter every paper), and so does a query with a "quoted
  phrase" (the phrase is looked for in every hit's title, authors and keywords).
- What a query needs of the store, in pieces (the store was 1.3 MB gzipped at 11,672 papers, loaded
  before the first result; a query now fetches a few KB of it):

  - ``search/head.json.gz``: the schema, the topics, decisions and per-paper values (venues), how
    many papers and how many author, keyword and topic pages there are;
  - ``search/rows-<n>.json.gz``: the papers' rows ``ROW_CHUNK`` at a time (papers n * ROW_CHUNK ...),
    with the names of their first three authors: what the shown results are drawn from;
  - ``search/titles-<n>.json.gz``: exact titles (``exact_title_key``) -> the paper's number, the
    first paper of the store with that title;
  - ``search/typed-<n>.json.gz``: each word as written (``normal_words``) in papers' titles,
    authors and keywords -> the papers holding it: the ranking's "words as typed" among equals;
  - ``search/names-<n>.json.gz``: each word of the author, keyword and topic names
    (``folded_words``) -> the page, its name, URL slug and papers: the pages header search offers.

  The last three are tables of consecutive keys in shards with a manifest
  (``search_index.keyed_shards``), looked up as the indexes are (``shard_of``, ``shards_of_prefix``).
- ``search-abstracts.json.gz``: each paper's abstract text (as indexed), loaded by
  the abstracts worker when a query has a "quoted phrase", which it checks against it.
- ``search/texts-<n>.json.gz``: the same texts, ``TEXT_CHUNK`` papers a file (papers
  n * TEXT_CHUNK ...): what the result snippets are cut from, a few files for the
  shown results, where the whole file was 5 MB at 11,672 papers.
- ``lunr.js``, copied from the installed mkdocs package.

The JSON files are stored gzipped (``gzipped``) and inflated by the browser.

**The browser contract.** What the browser must know of the build is declared here once and
handed over in the store's ``schema`` block (``store_schema``): the paper rows' column names
(rows stay arrays, read by name: ``papersite-core.js`` Schema), each page kind's URL pattern
(from ``layout``), the author-order letters and their words (``cite``) and the index fields with
their letters and boosts. Where the shards begin is in each index's manifest, which the worker reads
before the store is in. What cannot travel as
data, the rules, is written twice and proved equal: ``papersite-core.js`` folds, splits and
shards as ``text.fold``, ``split_words``/``trimmed_word``/``_Terms``, ``shard_of`` and ``shards_of_prefix`` do, and
``tests/site/test_browser_contract.py`` runs it under Node against them.

The browser turns the shards into ``lunr.Index`` objects (in a Web Worker,
``search-worker.js``) instead of indexing every page itself. At 11,672 papers
one index of everything was 36 MB, and parsing and loading it took longer than
anyone waits.

Only papers are indexed, so index pages cannot crowd them out (header search
offers author, keyword and topic pages from the store's names instead). The
browser ranks papers by how many of the query's words they match, then by title
and author matches, then by the lunr scores, whose field boosts make a title
match outrank an abstract match, then by slug; an exact title comes first.

Papers are numbered in slug order (``papers_in_slug_order``): the indexes' postings, the rows, texts
and tables name papers by number, and a slug, unlike a title, stays when a maintainer edits the
page. The whole store carries the title order (``title_order``) for Explore.

Text is tokenised here once, the way lunr.js does (lower case, split on white
space and hyphens, trimmed, stop words dropped, Porter-stemmed), and handed to
the index builder as terms; the browser tokenises queries the same way
(``papersite-core.js``). Text is NFKC-normalised first (full-width letters, ligatures,
math alphanumerics become plain letters), and terms with characters outside the
Basic Multilingual Plane are dropped: lunr.js orders its vocabulary by UTF-16
code units and lunr.py by code points, and the two orders agree only within the BMP.
"""

from __future__ import annotations

import gzip
import json
import re
import struct
import unicodedata
import zlib
from array import array
from bisect import insort
from collections.abc import Callable
from typing import Any
from pathlib import Path

import mkdocs
from lunr.stemmer import PorterStemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS

from generator import layout
from generator.config import ProjectConfig
from generator.pages.record import PER_PAPER_FIELDS, PaperRecord, topic_label
from generator.catalog import Catalog
from generator.site.memo import PAGE_SHARDS, Fingerprints, Memo, content_hash
from generator.site.render.cite import author_order_words
from generator.site.scripts import shipped_script
from generator.site.search_index import COMMON_PAPERS, SHARD_BYTES, IndexState, KeyedTable, index_state
from generator.text import fold
from generator.site.render.html import block, esc, page
from generator.pages.decisions import KEY_ORDER, read_decision

SHARDS_DIR = "assets/papersite/search"
INDEX_SHARD = SHARDS_DIR + "/index-{}.json.gz"  # the short fields' index: shard n, and "shards", the manifest (search_index.py)
ABSTRACTS_SHARD = SHARDS_DIR + "/abstracts-{}.json.gz"  # the abstracts' index
DOCS_FILE = "assets/papersite/search-docs.json.gz"
HEAD_FILE = SHARDS_DIR + "/head.json.gz"
ROWS_FILE = SHARDS_DIR + "/rows-{}.json.gz"
# tables by key (search_index.keyed_shards): shard n, and "shards", the manifest
TITLES_SHARD = SHARDS_DIR + "/titles-{}.json.gz"
TYPED_SHARD = SHARDS_DIR + "/typed-{}.json.gz"
NAMES_SHARD = SHARDS_DIR + "/names-{}.json.gz"
TABLE_SHARD_BYTES = SHARD_BYTES  # a table's shards as an index's (search_index.SHARD_BYTES: why 6,000)
# Papers' rows a rows file holds. The papers a query shows are scattered over the files, so a shown
# result costs about one file: at 11,672 papers 2.19 KB gzipped with 16 rows a file, 0.65 KB with 4
# (all files 1.60 -> 1.89 MB); a title typed key by key fetched 43 rows files (BENCHMARKS.md, issue 31 part 7).
ROW_CHUNK = 4
ROW_AUTHORS = 3  # authors whose names a rows file carries (a result's author line names three)
# Papers up to which the header search answers each key of a query typed key by key; above, where the reader
# pauses (the head's ``answer_at_pauses``, papersite-header.js). Each key's own answer fetches its word's prefixes'
# shards, ten rows and a titles shard: a title typed 60-200 ms a key cost 238-268 KB at 11,672 papers, 318-339 KB
# at 20,000 and 678-697 KB at 100k, where pasted it costs 370 (BENCHMARKS.md, part 23).
KEYS_ANSWERED_UP_TO = 20_000
ABSTRACT_TEXT_FILE = "assets/papersite/search-abstracts.json.gz"
TEXT_CHUNK_FILE = SHARDS_DIR + "/texts-{}.json.gz"
# Papers' texts a snippets file holds. The snippets of a list's results come from about one file each:
# at 11,672 papers 8.3 KB gzipped with 16 texts a file, 2.4 KB with 4 (all files 6.07 -> 7.05 MB);
# the snippets of a first query fetched 7 files, 60 KB (BENCHMARKS.md, issue 31 part 7).
TEXT_CHUNK = 4
# Papers a part of the abstracts' texts and of the whole store holds, each part compressed on its own
# (``gzip_of_parts``): ~0.7 MB of abstracts, ~0.4 MB of rows. At 11,672 papers the abstracts' file was then
# 0.7% larger than one stream (256 papers: 1.3%), and the store 0.6% (512 rows: 2.2%).
TEXTS_PART_PAPERS = 512
STORE_PART_PAPERS = 2048
LUNR_FILE = "assets/papersite/lunr.js"

# (field, boost): the short fields in the first index, the abstracts in the second. Field names are
# one letter (title, authors, keywords and the topic's label; abstract (body)): every term's posting
# and every field vector repeats them, 1.4 MB of 10.7 at 11,672 papers with the long names. The topic
# shares the keywords' field: a field of its own cost 0.8 MB more and a fifth more work per query.
META_FIELDS = [("t", 10), ("a", 6), ("k", 4)]
ABSTRACT_FIELDS = [("b", 1)]
FIELD_NAMES = {"t": "title", "a": "authors", "k": "keywords", "b": "abstract"}
ABSTRACT_WORDS = 400  # words of an abstract indexed: all of a usual one (ICLR 2025: median 185, max 461)

_SEPARATOR = re.compile(r"[\s\-]+")
_EDGES = re.compile(r"^[\W]+|[\W]+$")


def lunr_js_source() -> Path:
    """lunr.js 2.3.9 as shipped by the installed mkdocs (we do not vendor a copy)."""
    path = Path(mkdocs.__file__).parent / "contrib" / "search" / "templates" / "search" / "lunr.js"
    if not path.exists():
        raise FileNotFoundError(f"{path}: lunr.js not found in the installed mkdocs package")
    return path


def _json(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")


def joined_lists(parts: list[bytes]) -> bytes:
    """``_json`` of the lists whose ``_json`` are ``parts``, one after the other: their items joined, not encoded
    again (the abstracts' texts are 16 MB at 11,672 papers, encoded for their chunks already)."""
    return b"".join(list_parts(parts))


def gzipped(data: bytes) -> bytes:
    """``data`` as a gzip file, the same bytes on every build (no time, no name in its header).

    The search files are stored compressed (a third of their size: 32 to 11 MB at 11,672
    papers, on a host that counts stored bytes, as GitHub Pages' 1 GB does) and the browser
    inflates them with its own DecompressionStream (search-worker.js, papersite-engine.js)."""
    return gzip.compress(data, compresslevel=6, mtime=0)  # 9 took twice the time for 0.3% fewer bytes


# A gzip file's header as ``gzip_of_parts`` writes it: deflate, no name, no time, unknown OS (RFC 1952).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LAST_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman codes): what ends a deflate stream


def deflated_part(part: bytes) -> bytes:
    """``part`` as raw deflate blocks that refer to nothing before them and end on a byte, not the last
    block: such parts, one after another, are one deflate stream (``gzip_of_parts``)."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(part) + compressor.flush(zlib.Z_SYNC_FLUSH)


def gzip_of_parts(parts: list[bytes], deflated: Callable[[int, bytes], bytes] | None = None) -> bytes:
    """``b"".join(parts)`` as one gzip file whose deflate stream starts afresh at each part, so that a part's
    compressed bytes depend on that part alone: ``deflated(number, part)`` may give those it kept (the
    abstracts' texts took 0.8 s to compress again at 11,672 papers when one abstract changed). Any
    gzip reader inflates it; it is ~0.7% larger than ``gzipped`` with parts of ~0.7 MB."""
    crc = size = 0
    body = []
    for number, part in enumerate(parts):
        crc = zlib.crc32(part, crc)
        size += len(part)
        body.append(deflated(number, part) if deflated is not None else deflated_part(part))
    return b"".join([_GZIP_HEADER, *body, _LAST_BLOCK, struct.pack("<II", crc, size & 0xFFFFFFFF)])


def list_parts(lists: list[bytes]) -> list[bytes]:
    """``joined_lists(lists)`` in one part a list (the first opens the joined list, the last closes it):
    what ``gzip_of_parts`` compresses, a part again only where its list changed."""
    items = [part[1:-1] for part in lists if len(part) > 2]
    if not items:
        return [b"[]"]
    parts = [b"[" + items[0], *(b"," + part for part in items[1:])]
    parts[-1] += b"]"
    return parts


class _JsPorterStemmer(PorterStemmer):
    """lunr.py's Porter stemmer with step 1c as lunr.js has it, so indexed terms are what lunr.js makes of a query.

    lunr.py turns a final y into i when the stem has a vowel (array -> arrai, survey -> survei); lunr.js
    when the y follows a consonant that is not the first letter (cry -> cri, array -> array). Found by
    stemming 23,636 words of ICLR 2025 abstracts with both: this was the only rule that differed.
    """

    _STEP1C = re.compile(r"^(.+?[^aeiou])y$")

    def step1c(self) -> None:
        if self._STEP1C.match(self.b[self.k0 : self.k + 1]):
            self.b = self.b[: self.k] + "i" + self.b[self.k + 1 :]


_stemmer = _JsPorterStemmer()


class _Terms:
    """Text -> index terms, as lunr's pipeline (trimmer, stop words, stemmer) would give them, memoised by word."""

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def term(self, word: str) -> str | None:
        try:
            return self._cache[word]
        except KeyError:
            pass
        trimmed = trimmed_word(word)
        result = None if trimmed is None or trimmed in STOP_WORDS else _stemmer.stem(trimmed)
        self._cache[word] = result
        return result

    def __call__(self, text: str, limit: int | None = None) -> list[str]:
        words = split_words(text)
        if limit is not None:
            words = words[:limit]
        return [t for t in map(self.term, words) if t]


def split_words(text: str) -> list[str]:
    """Text -> its words as lunr splits them (papersite-core.js queryWords splits a query the same way)."""
    return [w for w in _SEPARATOR.split(unicodedata.normalize("NFKC", text).lower()) if w]


def trimmed_word(word: str) -> str | None:
    """A word without punctuation at its ends, or None when nothing is left or it has characters
    beyond the BMP (module docstring)."""
    trimmed = _EDGES.sub("", word)
    return trimmed if trimmed and all(ord(c) <= 0xFFFF for c in trimmed) else None


STORE_ORDER = {"alphabetical": "a", "unknown": "u"}

# A paper's row in the store, by column. Rows are arrays (a name per value would double the store)
# that end at their last value: "order" and the per-paper fields are absent from most papers. Each
# per-paper field of the record (``PER_PAPER_FIELDS``: the venue) is a column holding the number of
# its value in the store's list of that field's values ("venues").
STORE_COLUMNS = ("slug", "title", "authors", "topic", "keywords", "decision", "order", *PER_PAPER_FIELDS)
# The store's "topics" (an area, then its sub-areas: "path" is the URL's slug path, "area" the number of
# the area's own entry) and its "authors" and "keywords" (the pages header search offers).
TOPIC_COLUMNS = ("label", "path", "area")
NAME_COLUMNS = ("name", "slug")
# 2: the shards are runs of terms, listed in each index's manifest (not a schema's letters);
# 3: the store also in pieces (head, rows, titles, typed words, names: the module docstring);
# 4: the index shards hold term frequencies and field lengths, the worker computes the weights;
# 5: an abstracts term held by over COMMON_PAPERS papers is shipped as its papers only, weighed from their texts
STORE_VERSION = 6
ABSTRACT_FILES = "abstract-files"  # the search-shards memo's entry of the files made of the abstracts
STATE_KEY = f"state-{STORE_VERSION}"  # the key of a state kept for the next build: an index's (with its shards gzipped), the store pieces


def store_schema() -> dict:
    """What the browser reads the store and the indexes with (papersite-core.js Schema): the columns
    of the papers, topics and names, each page kind's URL ("{slug}" stands for the slug; a topic's
    is its area/sub-area path), the author-order letters' words and the index fields (bit i of a
    hit's fields is field i), and how many papers' texts a snippets file holds. ``version`` changes when a reader of an older
    store would misread this one."""
    return {
        "version": STORE_VERSION,
        "columns": list(STORE_COLUMNS),
        "topic_columns": list(TOPIC_COLUMNS),
        "name_columns": list(NAME_COLUMNS),
        "urls": {
            "paper": layout.paper_url("{slug}"), "author": layout.author_url("{slug}"),
            "keyword": layout.keyword_url("{slug}"), "topic": layout.area_url("{slug}"),
            "explore": layout.EXPLORE.url(), "papers": layout.PAPERS.url(),
        },
        "orders": {letter: author_order_words(order, short=True) for order, letter in STORE_ORDER.items()},
        "fields": [{"letter": letter, "name": FIELD_NAMES[letter], "boost": boost} for letter, boost in META_FIELDS + ABSTRACT_FIELDS],
        "text_chunk": TEXT_CHUNK,
        "abstract_words": ABSTRACT_WORDS,
        "row_chunk": ROW_CHUNK,
    }


# Python's \w without "_": what JavaScript's [\p{L}\p{N}] matches (papersite-core.js; the contract test
# compares them on every code point)
_LETTERS_AND_DIGITS = re.compile(r"[^\W_]+")
_NOT_KEPT_IN_TITLE_KEY = re.compile(r"[^\w ]|_")
_SPACES = re.compile(" +")


def exact_title_key(title: str) -> str:
    """What an exact title is compared by (papersite-core.js titleKey): folded, without punctuation."""
    return _SPACES.sub(" ", _NOT_KEPT_IN_TITLE_KEY.sub("", fold(title))).strip(" ") if title else ""


def folded_words(name: str) -> list[str]:
    """A page name's words as header search matches them (papersite-core.js foldedWords)."""
    return _LETTERS_AND_DIGITS.findall(fold(name))


def normal_words(text: str) -> list[str]:
    """Text's words as written, in lower case (papersite-core.js normal): what "words as typed" are."""
    return _LETTERS_AND_DIGITS.findall(unicodedata.normalize("NFKC", text).lower())


def _one_line(value: str | None) -> str:
    return " ".join((value or "").split())


def _row(values: dict[str, object], columns: tuple[str, ...] = STORE_COLUMNS) -> list:
    """Values by column name -> a row: the columns' order, without the trailing empty ones."""
    row = [values.get(name) for name in columns]
    while row and row[-1] is None:
        row.pop()
    return row


def _term_texts(paper: PaperRecord, folded: Callable[[str], str] = fold) -> tuple[str, str, str, str, str]:
    """All ``_paper_terms`` is given of a paper: the texts of its title, authors (as written and
    folded), keywords + topic, abstract. Its terms are kept by their fingerprint (``_SearchCache``).
    ``folded``: ``fold``, or the catalog's names already folded (``Catalog.fold``)."""
    # a title a listing gave, where the venue's record has another, still finds the paper
    title = " ".join([paper.title, paper.listed.get("title") or ""])
    keywords = " ".join([*paper.keywords, paper.topic.label() if paper.topic else ""])
    return title, " ".join(paper.authors), " ".join(map(folded, paper.authors)), keywords, paper.abstract or ""


def _abstract_text(paper: PaperRecord) -> str:
    """The words of a paper's abstract the index holds, as the texts' chunks give them (snippets, phrases)."""
    return " ".join((paper.abstract or "").split()[:ABSTRACT_WORDS])


def _paper_terms(texts: tuple[str, str, str, str, str], terms: _Terms) -> tuple[list[str], ...]:
    """A paper's index terms: title, authors, keywords + topic (the first index), abstract (the second)."""
    return (*_short_terms(texts, terms), _abstract_terms(texts[4], terms))


def _short_terms(texts: tuple[str, str, str, str, str], terms: _Terms) -> tuple[list[str], list[str], list[str]]:
    """The first index's terms of a paper (``_term_texts``): title, authors, keywords + topic."""
    title, authors, folded, keywords, _ = texts
    author_terms = terms(authors)
    # folded spellings too, so "Jose Garcia" finds "José García" (and the browser asks for a query word
    # folded too, search-worker.js foldedWord, so "Weiß" finds "Weiss")
    seen = set(author_terms)  # a set: a 5,000-author paper made this list test quadratic
    author_terms += [t for t in terms(folded) if t not in seen]
    return terms(title), author_terms, terms(keywords)


def _abstract_terms(abstract: str, terms: _Terms) -> list[str]:
    return terms(abstract, ABSTRACT_WORDS)


class _SearchCache:
    """What the last build computed for the search files (``memo.py``): each paper's terms and abstract
    text (by the paper's fingerprint: tokenising and stemming is a third of the work), its store row
    (by that and the numbering its numbers count in: ``paper``), and each
    index's state and shards (updated by the papers whose terms changed: a title edit touches the
    entries of its title's terms and leaves the abstracts' index as it was). Without a config
    (``mkdocs build``'s plugin on a project's copy) nothing is kept."""

    def __init__(self, config: ProjectConfig | None, prints: Fingerprints | None = None) -> None:
        # in shards (``memo.Memo``): an edit rewrites the files holding what it changed, not 60 MB
        self.terms = Memo(config, "search-terms", shards=PAGE_SHARDS) if config else None
        self.rows = Memo(config, "search-rows", shards=PAGE_SHARDS) if config else None
        self.shards = Memo(config, "search-shards", shards=PAGE_SHARDS) if config else None
        self.config = config
        self.prints = prints or Fingerprints()

    def paper(self, paper: PaperRecord, terms: _Terms, folded: Callable[[str], str], numbering: str,
              row_of: Callable[[PaperRecord], list]) -> tuple[list, tuple[list[str], list[str], list[str]]]:
        """A paper's store row (``row_of(paper)``) and first index's terms (``_short_terms``).

        ``folded``: ``text.fold`` or what gives the same (``Catalog.fold``), so that the terms are a
        function of the paper: kept by its fingerprint (its page's bytes, where the build read it:
        ``stage.known_records``), not by its texts' (11,672 texts hashed again on every build). The row
        is kept by the fingerprint and ``numbering``, the digest of what its numbers count in (the
        store's topics, keywords, authors, decisions and values): every paper's row was a third of the
        search worker's own work on an edit."""
        def made() -> tuple[list[str], list[str], list[str]]:
            return _short_terms(_term_texts(paper, folded), terms)

        if self.terms is None or self.rows is None:
            return row_of(paper), made()
        known = self.prints.digest_of(paper)  # (what ``of(paper)`` hashes, without pickling and hashing it again)
        return (self.rows.value(paper.slug, f"{known}\0{numbering}", lambda: row_of(paper)),
                self.terms.value(paper.slug, known, made))

    def abstract_files(self, papers: list[PaperRecord], terms: _Terms) -> dict[str, bytes]:
        """The files made of the papers' abstracts (numbered ``papers``), by name: their index's shards,
        their texts whole and in chunks. Kept whole by a digest of the abstracts: where none changed (a
        title edit), what they are made from is not read (their terms, texts and index state were 53 MB
        of memo read, compared and written again by an edit at 11,672 papers). Where one did, each
        paper's terms and text are kept by its fingerprint, the index updated by the papers that
        changed, and each chunk and part of the texts compressed again only where its bytes changed."""
        digest = content_hash("\0".join(p.abstract or "" for p in papers).encode("utf-8", "surrogatepass"))
        last = None
        if self.shards is not None:
            kept = self.shards.get(ABSTRACT_FILES, digest)
            if kept is not None:
                return kept[0]
            last = self.shards.old.get(ABSTRACT_FILES)
        # the last files' compressed chunks and parts of the texts, by the hash of their bytes
        _, gzipped_chunks, deflated_parts = last[1] if isinstance(last, tuple) and len(last) == 2 else ({}, {}, {})
        memo = Memo(self.config, "search-abstract-terms", shards=PAGE_SHARDS) if self.config else None

        def of_paper(paper: PaperRecord) -> tuple[list[str], bytes]:  # its terms, and its text as a chunk's item
            def made() -> tuple[list[str], bytes]:
                return _abstract_terms(paper.abstract or "", terms), _json(_abstract_text(paper))
            return memo.value(paper.slug, self.prints.digest_of(paper), made) if memo is not None else made()

        made = [of_paper(paper) for paper in papers]
        index = self.index_files("abstracts", ABSTRACT_FIELDS, [{"b": paper_terms} for paper_terms, _ in made], COMMON_PAPERS)
        files = {ABSTRACTS_SHARD.format(key): data for key, data in index.items()}
        texts = [text for _, text in made]
        chunks = [b"[" + b",".join(texts[start:start + TEXT_CHUNK]) + b"]" for start in range(0, max(1, len(texts)), TEXT_CHUNK)]
        chunk_hashes = [content_hash(chunk) for chunk in chunks]
        for number, (chunk, chunk_hash) in enumerate(zip(chunks, chunk_hashes)):
            files[TEXT_CHUNK_FILE.format(number)] = gzipped_chunks.get(chunk_hash) or gzipped(chunk)
        per_part = TEXTS_PART_PAPERS // TEXT_CHUNK
        parts = list_parts([joined_lists(chunks[start:start + per_part]) for start in range(0, len(chunks), per_part)])
        deflated_now: dict[str, bytes] = {}

        def deflated(number: int, part: bytes) -> bytes:
            part_hash = content_hash(part)
            deflated_now[part_hash] = deflated_parts.get(part_hash) or deflated_part(part)
            return deflated_now[part_hash]

        files[ABSTRACT_TEXT_FILE] = gzip_of_parts(parts, deflated)
        if self.shards is not None:
            gzipped_now = {chunk_hash: files[TEXT_CHUNK_FILE.format(number)] for number, chunk_hash in enumerate(chunk_hashes)}
            self.shards.put(ABSTRACT_FILES, digest, (files, gzipped_now, deflated_now))
        if memo is not None:
            memo.save()
        return files

    def index_files(self, name: str, fields: list[tuple[str, int]], papers: list[dict[str, list[str]]],
                    common: int | None = None) -> dict[str, bytes]:
        """Shard key -> JSON of the index of ``papers`` (each paper's terms by field name), gzipped: the last
        build's index updated by the papers that changed (``search_index.IndexState``), each shard
        compressed again only where its bytes changed."""
        # the state in a memo of its own (one file): the abstracts' is read only when an abstract changed
        states = Memo(self.config, f"search-{name}") if self.config else None
        kept = states.get(STATE_KEY, STATE_KEY) if states else None
        last_kept, compressed = kept if kept is not None else (None, {})
        last = IndexState.from_kept(last_kept)
        state = index_state(fields, papers, last, common)
        files = state.shard_files()
        found = {key: compressed.get(data) or gzipped(data) for key, data in files.items()}
        if states is not None and state is not last:  # else the entry ``get`` took stays, as it was read
            states.put(STATE_KEY, STATE_KEY, (state.kept(), {data: found[key] for key, data in files.items()}))
            states.save()
        return found

    def store_pieces(self, store: dict) -> dict[str, bytes]:
        """``store_pieces(store)``, by the last build's pieces updated where the store changed (``StorePieces``)."""
        kept = self.shards.get("store-pieces", STATE_KEY) if self.shards else None
        state = StorePieces.from_kept(kept) or StorePieces()
        pieces = state.update(store)
        if self.shards:
            self.shards.put("store-pieces", STATE_KEY, state.kept())
        return pieces

    def gzipped(self, name: str, data: bytes) -> bytes:
        """``gzipped(data)``, kept by the hash of ``data``."""
        digest = content_hash(data)
        found = self.shards.get(name, digest) if self.shards else None
        if found is None:
            found = gzipped(data)
            if self.shards:
                self.shards.put(name, digest, found)
        return found

    def gzip_of_parts(self, name: str, parts: list[bytes]) -> bytes:
        """``gzip_of_parts(parts)``, each part's compressed bytes kept by the part's hash: an edit compresses
        again the parts it changed, and the memo's files rewritten are those holding them."""
        if not self.shards:
            return gzip_of_parts(parts)
        shards = self.shards

        def deflated(number: int, part: bytes) -> bytes:
            return shards.value(f"{name}\0{number}", content_hash(part), lambda: deflated_part(part))

        return gzip_of_parts(parts, deflated)

    def save(self) -> None:
        for cache in (self.terms, self.rows, self.shards):
            if cache is not None:
                cache.save()


def search_files(catalog: Catalog, config: ProjectConfig | None = None, prints: Fingerprints | None = None) -> dict[str, bytes]:
    """The search files (module docstring) of the catalog; with ``config``, reusing what the last build
    of that project computed where its inputs are unchanged (byte-identical either way). ``prints``: the
    build's, which knows each record by its page's bytes (``stage.known_records``)."""
    topics: list[list] = []  # TOPIC_COLUMNS
    topic_index: dict[tuple[str, str | None], int] = {}
    for area in catalog.areas:
        topic_index[(area.name, None)] = len(topics)
        topics.append(_row({"label": area.name, "path": area.slug, "area": len(topics)}, TOPIC_COLUMNS))
        for sub in area.subareas:
            topic_index[(area.name, sub.name)] = len(topics)
            topics.append(_row({"label": topic_label(area.name, sub.name), "path": f"{area.slug}/{sub.slug}",
                                "area": topic_index[(area.name, None)]}, TOPIC_COLUMNS))
    keyword_number = {id(k): i for i, k in enumerate(catalog.keywords)}
    decisions = sorted({p.decision for p in catalog.papers if p.decision})
    decision_number = {d: i for i, d in enumerate(decisions)}
    values = {name: sorted({v for p in catalog.papers if (v := _one_line(getattr(p, name)))}) for name in PER_PAPER_FIELDS}
    value_number = {name: {v: i for i, v in enumerate(found)} for name, found in values.items()}
    author_number = {id(a): i for i, a in enumerate(catalog.authors)}
    # what a row's numbers count in: the whole store but its papers
    store = {
        "schema": store_schema(),
        "topics": topics,
        "keywords": [_row({"name": k.name, "slug": k.slug}, NAME_COLUMNS) for k in catalog.keywords],
        "authors": [_row({"name": a.name, "slug": a.slug}, NAME_COLUMNS) for a in catalog.authors],
        "decisions": decisions,
        **{f"{name}s": found for name, found in values.items()},
    }
    numbering = content_hash(_json(store))

    def row_of(paper: PaperRecord) -> list:
        area = catalog.paper_area(paper)
        sub = catalog.paper_subarea(paper)
        return _row({
            "slug": paper.slug,
            "title": " ".join(paper.title.split()),
            "authors": list(dict.fromkeys(author_number[id(a)] for a in catalog.paper_authors(paper))),
            "topic": topic_index.get((area.name, sub.name if sub else None)) if area else None,
            "keywords": [keyword_number[id(k)] for k in catalog.paper_keywords(paper)],
            "decision": decision_number.get(paper.decision) if paper.decision else None,
            # authors in an order that is not the paper's: "a" alphabetical, "u" unknown (no "et al.")
            "order": STORE_ORDER.get(paper.author_order, "u") if paper.author_order else None,
            **{name: value_number[name].get(_one_line(getattr(paper, name))) for name in PER_PAPER_FIELDS},
        })

    terms = _Terms()
    cache = _SearchCache(config, prints)
    meta: list[dict[str, list[str]]] = []
    papers = []
    in_slug_order = papers_in_slug_order(catalog.papers)
    numbered = [catalog.papers[n] for n in in_slug_order]
    for paper in numbered:
        row, (title_terms, author_terms, keyword_terms) = cache.paper(paper, terms, catalog.fold, numbering, row_of)
        papers.append(row)
        meta.append({"t": title_terms, "a": author_terms, "k": keyword_terms})
    store["papers"] = papers
    files = {INDEX_SHARD.format(key): data for key, data in cache.index_files("index", META_FIELDS, meta).items()}
    files.update(cache.abstract_files(numbered, terms))
    files.update({name: cache.gzipped(name, data) for name, data in cache.store_pieces(store).items()})
    whole = {key: value for key, value in store.items() if key != "papers"}
    whole["title_order"] = title_order(in_slug_order)
    whole["papers"] = papers
    files[DOCS_FILE] = cache.gzip_of_parts("store", store_parts(whole))
    cache.save()
    return {**files, LUNR_FILE: shipped_script(lunr_js_source().read_bytes())}


def papers_in_slug_order(papers: list[PaperRecord]) -> list[int]:
    """The places of ``papers`` (the catalog's, in title order) in slug order: the search files' paper numbers.
    A slug never changes with the title, so a retitled paper keeps its number and every other paper
    its own: numbered in title order, a title that moved far renumbered every paper between, and an
    edit remade both indexes and every rows and texts file between (BENCHMARKS.md, issue 31 part 21)."""
    return sorted(range(len(papers)), key=lambda place: papers[place].slug)


def title_order(in_slug_order: list[int]) -> list[int]:
    """The papers' numbers (``papers_in_slug_order``) in title order: the whole store's ``title_order``,
    what Explore lists papers by with no query and sorts them by for "Title A–Z"."""
    numbers = [0] * len(in_slug_order)
    for number, place in enumerate(in_slug_order):
        numbers[place] = number
    return numbers


def store_parts(store: dict) -> list[bytes]:
    """``_json(store)`` in parts for ``gzip_of_parts``: all but the papers' lists, the title order, then the
    papers' rows ``STORE_PART_PAPERS`` at a time (a title edit changes the store's rows and its author and
    keyword tables rarely; one that moves the title far, its title order)."""
    if not store or next(reversed(store)) != "papers":
        return [_json(store)]
    listed = [key for key in ("title_order", "papers") if key in store]
    rest = _json({key: value for key, value in store.items() if key not in listed})
    parts = [rest[:-1] + b"," if len(rest) > 2 else b"{"]
    for key in listed:
        values = store[key]
        parts[-1] += _json(key) + b":"
        parts += list_parts([_json(values[start:start + STORE_PART_PAPERS]) for start in range(0, len(values), STORE_PART_PAPERS)])
        parts.append(b",")
    parts[-1] = b"}"
    return parts


def store_pieces(store: dict) -> dict[str, bytes]:
    """The store -> its pieces (module docstring), as JSON by file name: what a query fetches of it.
    A function of the store alone, so that whoever has the store can write them (or one again)."""
    return StorePieces().update(store)


class _Holders:
    """Items by number (papers, pages), each with the words a table lists it under, and each word's items
    in order: ``update`` finds the items that differ from the last ones, and the words whose items it
    touched are the table's rows to write again. (Each item's words are not kept: made again for the
    changed items, they cost less than reading them back on every build.)

    Each word's items are held packed (``_packed``: 4 bytes a number), not as a list of ints: an edit reads
    and writes back every word's (64k words at 11,672 papers) and unpacks only the few it touches; as lists,
    reading them back was 0.08 CPU s of the search worker."""

    def __init__(self) -> None:
        self.items: list = []  # what each item's words are made of, compared to find the changed ones
        self.holders: dict[str, bytes] = {}  # word -> its items' numbers, ascending, packed

    def numbers(self, word: str) -> list[int]:
        """The numbers of ``word``'s items, ascending ([] for a word no item has)."""
        return _unpacked(self.holders.get(word, b""))

    def update(self, items: list, words_of: Callable[[Any], tuple[str, ...]]) -> set[str]:
        """The items are now ``items``; returns the words whose rows may have changed: those of the items
        that differ from the last ones of their numbers (before and after), and those whose items moved."""
        old_items = self.items
        if len(items) == len(old_items):
            changed = [n for n, (old, new) in enumerate(zip(old_items, items)) if old != new]
            if len(changed) * 4 <= len(items):
                unpacked: dict[str, list[int]] = {}  # the touched words' numbers, unpacked once
                for n in changed:
                    gone, words = words_of(old_items[n]), words_of(items[n])
                    for word in gone:
                        held = unpacked.get(word)
                        if held is None:
                            held = unpacked[word] = self.numbers(word)
                        held.remove(n)
                    for word in words:
                        held = unpacked.get(word)
                        if held is None:
                            held = unpacked[word] = self.numbers(word)
                        insort(held, n)
                for word, held in unpacked.items():
                    if held:
                        self.holders[word] = _packed(held)
                    else:
                        self.holders.pop(word, None)
                self.items = items
                return set(unpacked)
        # papers came or went (each after them has another number) or most changed: all again. A word's
        # row changed where its items did, or one of them (a page's count) is not the last one of its number
        listed: dict[str, list[int]] = {}
        touched = set()
        for n, item in enumerate(items):
            words = words_of(item)
            for word in words:
                listed.setdefault(word, []).append(n)
            if n >= len(old_items) or old_items[n] != item:
                touched.update(words)
        holders = {word: _packed(held) for word, held in listed.items()}
        old = self.holders
        touched.update(word for word, held in holders.items() if old.get(word) != held)
        touched.update(word for word in old if word not in holders)
        self.items, self.holders = items, holders
        return touched


def _packed(numbers: list[int]) -> bytes:
    return array("i", numbers).tobytes()


def _unpacked(packed: bytes) -> list[int]:
    numbers = array("i")
    numbers.frombytes(packed)
    return numbers.tolist()


class StorePieces:
    """The store's pieces as the last build wrote them (``store_pieces``), and what they were made of:
    ``update`` writes again only the rows files whose papers changed and, in the tables of titles, typed
    words and names, the rows of the keys the changed papers and pages had or have (encoding and sorting
    the 127k rows of 11,672 papers was two thirds of the search files' work). The pieces are what
    ``store_pieces`` makes of the same store, whatever the last one was."""

    def __init__(self) -> None:
        self.papers: list[list] = []
        self.authors: list[list] = []
        self.keywords: list[list] = []
        self.rows_files: list[bytes] = []
        self.titles, self.typed, self.names = _Holders(), _Holders(), _Holders()
        self.tables = {TITLES_SHARD: KeyedTable(), TYPED_SHARD: KeyedTable(), NAMES_SHARD: KeyedTable()}

    def update(self, store: dict) -> dict[str, bytes]:
        """The pieces of ``store`` (and this made its state)."""
        col = {name: i for i, name in enumerate(STORE_COLUMNS)}
        name_col, topic_col = NAME_COLUMNS.index("name"), {name: i for i, name in enumerate(TOPIC_COLUMNS)}
        papers, authors, keywords, topics = store["papers"], store["authors"], store["keywords"], store["topics"]
        title_col, authors_col, keywords_col, topic_column = col["title"], col["authors"], col["keywords"], col["topic"]

        def cell(row: list, at: int) -> object:
            return row[at] if at < len(row) else None

        head = {key: value for key, value in store.items() if key not in ("papers", "authors", "keywords", "title_order")}
        head["paper_count"] = len(papers)
        head["page_counts"] = [len(authors), len(keywords), len(topics)]
        head["answer_at_pauses"] = len(papers) > KEYS_ANSWERED_UP_TO
        pieces = {HEAD_FILE: _json(head)}
        # the rows and the names as the last state made its typed texts from
        last_rows, same_names = self.papers, authors == self.authors and keywords == self.keywords
        self._rows_files(papers, authors)
        self.keywords = list(keywords)
        pieces.update({ROWS_FILE.format(n): data for n, data in enumerate(self.rows_files)})

        titles = [cell(row, title_col) for row in papers]
        touched = self.titles.update(titles, lambda title: (key,) if (key := exact_title_key(title)) else ())
        titles_held = self.titles
        # a title's paper is the first of the store with it
        self.tables[TITLES_SHARD].update({key: [[key, held[0]]] if (held := titles_held.numbers(key)) else [] for key in touched})

        # what papersite-ranking.js paperText held: the title, the authors' and the keywords' names
        def text_of(row: list) -> str:
            return " | ".join([cell(row, title_col)] + [authors[a][name_col] for a in cell(row, authors_col)]
                              + [keywords[k][name_col] for k in cell(row, keywords_col)])

        if same_names and len(papers) == len(last_rows) == len(self.typed.items):  # made again where the row changed
            texts = list(self.typed.items)
            for n, (row, last) in enumerate(zip(papers, last_rows)):
                if row != last:
                    texts[n] = text_of(row)
        else:
            texts = [text_of(row) for row in papers]
        touched = self.typed.update(texts, lambda text: tuple(dict.fromkeys(normal_words(text))))
        typed_held = self.typed
        self.tables[TYPED_SHARD].update({word: [[word, *_gaps(held)]] if (held := typed_held.numbers(word)) else [] for word in touched})

        # each page's papers, as header search counts them: an area counts its sub-areas' papers too
        counts = [[0] * len(authors), [0] * len(keywords), [0] * len(topics)]
        author_counts, keyword_counts, topic_counts = counts
        for row in papers:
            for a in cell(row, authors_col):
                author_counts[a] += 1
            for k in cell(row, keywords_col):
                keyword_counts[k] += 1
            topic = cell(row, topic_column)
            if topic is not None:
                topic_counts[topic] += 1
                area = topics[topic][topic_col["area"]]
                if area != topic:
                    topic_counts[area] += 1
        pages = [(entry[name_col], entry[1 - name_col], author_counts[i]) for i, entry in enumerate(authors)]
        pages += [(entry[name_col], entry[1 - name_col], keyword_counts[i]) for i, entry in enumerate(keywords)]
        pages += [(entry[topic_col["label"]], entry[topic_col["path"]], topic_counts[i]) for i, entry in enumerate(topics)]
        touched = self.names.update(pages, lambda page: tuple(dict.fromkeys(folded_words(page[0]))))
        names_held = self.names
        self.tables[NAMES_SHARD].update({word: [[word, number, *pages[number]] for number in names_held.numbers(word)] for word in touched})

        for pattern, table in self.tables.items():
            pieces.update({pattern.format(key): data for key, data in table.shard_files(TABLE_SHARD_BYTES).items()})
        return pieces

    KEPT_FORM = "store-pieces 3"  # ``kept``'s: another is read as none

    def kept(self) -> tuple:
        """What the memo keeps of it: its lists and dicts, which every edit reads and writes whole (20 MB at 11,672
        papers), as builtin values a memo file holds in ``marshal``'s form (``memo._dump_file``), not pickled objects."""
        tables = {pattern: (table.rows, table.firsts, table.order) for pattern, table in self.tables.items()}
        return (self.KEPT_FORM, self.papers, self.authors, self.keywords, self.rows_files,
                *((holders.items, holders.holders) for holders in (self.titles, self.typed, self.names)), tables)

    @classmethod
    def from_kept(cls, kept: object) -> "StorePieces | None":
        """The pieces ``kept`` gave; None where it is not what ``kept`` makes."""
        try:
            form, papers, authors, keywords, rows_files, titles, typed, names, tables = kept  # type: ignore[misc]
            if form != cls.KEPT_FORM or tables.keys() != {TITLES_SHARD, TYPED_SHARD, NAMES_SHARD}:
                return None
            state = cls()
            state.papers, state.authors, state.keywords, state.rows_files = papers, authors, keywords, rows_files
            for holders, (items, held) in zip((state.titles, state.typed, state.names), (titles, typed, names)):
                holders.items, holders.holders = items, held
            for pattern, (rows, firsts, order) in tables.items():
                table = state.tables[pattern]
                table.rows, table.firsts, table.order = rows, firsts, order
        except (ValueError, TypeError, AttributeError):
            return None
        return state

    def _rows_files(self, papers: list[list], authors: list[list]) -> None:
        """The rows files: each again only where its papers' rows, or the names of the authors, changed."""
        name_col, authors_col = NAME_COLUMNS.index("name"), STORE_COLUMNS.index("authors")
        same_names = authors == self.authors
        old_papers, old_files = self.papers, self.rows_files
        files = []
        for start in range(0, max(1, len(papers)), ROW_CHUNK):
            rows = papers[start:start + ROW_CHUNK]
            number = start // ROW_CHUNK
            if same_names and number < len(old_files) and old_papers[start:start + ROW_CHUNK] == rows:
                files.append(old_files[number])
                continue
            named = sorted({a for row in rows for a in row[authors_col][:ROW_AUTHORS]})
            files.append(_json({"papers": rows, "authors": [[a, authors[a][name_col]] for a in named]}))
        self.papers, self.authors, self.rows_files = list(papers), list(authors), files  # the lists as they are now


def _gaps(numbers: list[int]) -> list[int]:
    """Ascending numbers -> each one's gap from the one before (the first's from -1), as postings are written."""
    return [number - previous for previous, number in zip([-1, *numbers], numbers)]


def _decision_options(catalog: Catalog) -> str:
    """The decision filter's choices, in the order of ``decisions.KEY_ORDER`` (Explore's decision sort
    follows it) and "No decision" last where some paper has none; values are the store's decisions."""
    found = {p.decision for p in catalog.papers if p.decision}
    rank = {key: i for i, key in enumerate(KEY_ORDER)}
    ordered = sorted(found, key=lambda d: (rank[read_decision(d).key], d))  # type: ignore[union-attr]
    options = "".join(f'<option value="{esc(d)}">{esc(d)}</option>' for d in ordered)
    if found and any(not p.decision for p in catalog.papers):
        options += f'<option value="{NO_DECISION}" data-ps-none>No decision</option>'
    return options


NO_DECISION = "none"  # the decision filter's value (Explore's URL) for papers without one


def explore_page(catalog: Catalog) -> str:
    body = block(
        "<h1>Explore</h1>",
        "<p>Search the titles, authors, keywords and abstracts of every paper, and narrow the results by topic, "
        "keyword, author or decision, and sort them by relevance, title or decision. Papers matching every word come first; put words in quotes to find a phrase. "
        "The address bar keeps your search: copy it to share, reload to come back. Download the results as BibTeX, RIS or CSV.</p>",
        '<form class="ps-explore" data-ps-explore role="search">',
        '<div class="ps-explore-row"><label for="ps-q">Search</label>'
        '<input id="ps-q" name="q" type="search" placeholder="e.g. diffusion, Yoshua Bengio, graph neural networks" autocomplete="off"></div>',
        '<div class="ps-explore-row"><label for="ps-topic">Topic</label>'
        '<select id="ps-topic" name="topic"><option value="">Any topic</option></select></div>',
        '<div class="ps-explore-row"><label for="ps-keyword">Keyword</label>'
        '<input id="ps-keyword" name="keyword" list="ps-keyword-list" placeholder="Any keyword" autocomplete="off">'
        '<datalist id="ps-keyword-list"></datalist></div>',
        '<div class="ps-explore-row"><label for="ps-author">Author</label>'
        '<input id="ps-author" name="author" list="ps-author-list" placeholder="Any author" autocomplete="off">'
        '<datalist id="ps-author-list"></datalist></div>',
        '<div class="ps-explore-row"><label for="ps-decision">Decision</label>'
        f'<select id="ps-decision" name="decision"><option value="">Any decision</option>{_decision_options(catalog)}</select></div>',
        # shown by papersite-explore.js where papers have more than one venue
        '<div class="ps-explore-row" hidden><label for="ps-venue">Venue</label>'
        '<select id="ps-venue" name="venue"><option value="">Any venue</option></select></div>',
        '<div class="ps-explore-row"><label for="ps-sort">Sort</label>'
        '<select id="ps-sort" name="sort"><option value="">Relevance</option><option value="title">Title A–Z</option>'
        '<option value="decision">Decision</option></select></div>',
        '<div class="ps-explore-row"><button type="reset" class="md-button">Clear</button></div>',
        "</form>",
        '<div class="ps-explore-notes" data-ps-explore-notes aria-live="polite"></div>',
        '<p class="ps-explore-count" data-ps-explore-count aria-live="polite">Loading the search index…</p>',
        '<div class="ps-export" data-ps-export hidden></div>',
        '<div class="ps-explore-facets" data-ps-explore-facets></div>',
        '<ol class="ps-papers ps-explore-results" data-ps-explore-results></ol>',
        '<p><button type="button" class="md-button" data-ps-explore-more hidden>Show more</button></p>',
        "<noscript><p>The Explore page needs JavaScript. Every paper is also listed on the "
        f'<a href="{layout.relative(layout.EXPLORE.url(), layout.PAPERS.url())}">All papers</a> page.</p></noscript>',
    )
    return page({"title": "Explore", "hide": ["toc"], "search": {"exclude": True}}, body)
