/* papersite core: what the browser must do exactly as the build does, and the store's schema.
 * - fold: generator/text.py fold (names: case, accents and spacing ignored);
 * - queryWords / queryTerms: generator/site/search.py _Terms (how text became index terms);
 * - shardOf, shardsOfPrefix: generator/site/search_index.py shard_of, shards_of_prefix (which shards hold a word's terms);
 * - titleKey, foldedWords, normal: search.py exact_title_key, folded_words, normal_words (the keys of the
 *   store's tables: exact titles, page names' words, words as written);
 * - Schema: the store's schema block (search.py store_schema): columns by name, URLs, words;
 * - authorLine: render/components.py author_line (a list's line of a paper's authors);
 * - crc32: Python's zlib.crc32 of a text's UTF-8 (exports.hashed_file: which file holds a paper's related
 *   papers, an author's co-authors).
 * tests/site/test_browser_contract.py runs these under Node against the Python functions.
 * Loaded by papersite.js on pages, by search-worker.js in its worker, and by Node (module.exports). */
(function (scope) {
  "use strict";

  // str.isspace() (what Python's \s, split() and strip() use): JavaScript's \s has U+FEFF and
  // lacks U+001C..U+001F and U+0085.
  var SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var SPACES = new RegExp("[" + SPACE + "]+", "g");
  var EDGE_SPACES = new RegExp("^[" + SPACE + "]+|[" + SPACE + "]+$", "g");
  var PUNCT_SPACING = new RegExp("[" + SPACE + "]*([.\\-'\u2019])[" + SPACE + "]*", "g");
  var ASCII = /^[\x00-\x7f]*$/;

  // unicodedata.combining(c) != 0 (a canonical combining class): what fold strips after NFKD.
  // Not \p{M}: many marks (Thai vowels, spacing marks) have class 0 and stay. From Python 3.13.
  var COMBINING = /[\u0300-\u034e\u0350-\u036f\u0483-\u0487\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\u0711\u0730-\u074a\u07eb-\u07f3\u07fd\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0859-\u085b\u0898-\u089f\u08ca-\u08e1\u08e3-\u08ff\u093c\u094d\u0951-\u0954\u09bc\u09cd\u09fe\u0a3c\u0a4d\u0abc\u0acd\u0b3c\u0b4d\u0bcd\u0c3c\u0c4d\u0c55\u0c56\u0cbc\u0ccd\u0d3b\u0d3c\u0d4d\u0dca\u0e38-\u0e3a\u0e48-\u0e4b\u0eb8-\u0eba\u0ec8-\u0ecb\u0f18\u0f19\u0f35\u0f37\u0f39\u0f71\u0f72\u0f74\u0f7a-\u0f7d\u0f80\u0f82-\u0f84\u0f86\u0f87\u0fc6\u1037\u1039\u103a\u108d\u135d-\u135f\u1714\u1715\u1734\u17d2\u17dd\u18a9\u1939-\u193b\u1a17\u1a18\u1a60\u1a75-\u1a7c\u1a7f\u1ab0-\u1abd\u1abf-\u1ace\u1b34\u1b44\u1b6b-\u1b73\u1baa\u1bab\u1be6\u1bf2\u1bf3\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce0\u1ce2-\u1ce8\u1ced\u1cf4\u1cf8\u1cf9\u1dc0-\u1dff\u20d0-\u20dc\u20e1\u20e5-\u20f0\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u302a-\u302f\u3099\u309a\ua66f\ua674-\ua67d\ua69e\ua69f\ua6f0\ua6f1\ua806\ua82c\ua8c4\ua8e0-\ua8f1\ua92b-\ua92d\ua953\ua9b3\ua9c0\uaab0\uaab2-\uaab4\uaab7\uaab8\uaabe\uaabf\uaac1\uaaf6\uabed\ufb1e\ufe20-\ufe2f\u{101fd}\u{102e0}\u{10376}-\u{1037a}\u{10a0d}\u{10a0f}\u{10a38}-\u{10a3a}\u{10a3f}\u{10ae5}\u{10ae6}\u{10d24}-\u{10d27}\u{10eab}\u{10eac}\u{10efd}-\u{10eff}\u{10f46}-\u{10f50}\u{10f82}-\u{10f85}\u{11046}\u{11070}\u{1107f}\u{110b9}\u{110ba}\u{11100}-\u{11102}\u{11133}\u{11134}\u{11173}\u{111c0}\u{111ca}\u{11235}\u{11236}\u{112e9}\u{112ea}\u{1133b}\u{1133c}\u{1134d}\u{11366}-\u{1136c}\u{11370}-\u{11374}\u{11442}\u{11446}\u{1145e}\u{114c2}\u{114c3}\u{115bf}\u{115c0}\u{1163f}\u{116b6}\u{116b7}\u{1172b}\u{11839}\u{1183a}\u{1193d}\u{1193e}\u{11943}\u{119e0}\u{11a34}\u{11a47}\u{11a99}\u{11c3f}\u{11d42}\u{11d44}\u{11d45}\u{11d97}\u{11f41}\u{11f42}\u{16af0}-\u{16af4}\u{16b30}-\u{16b36}\u{16ff0}\u{16ff1}\u{1bc9e}\u{1d165}-\u{1d169}\u{1d16d}-\u{1d172}\u{1d17b}-\u{1d182}\u{1d185}-\u{1d18b}\u{1d1aa}-\u{1d1ad}\u{1d242}-\u{1d244}\u{1e000}-\u{1e006}\u{1e008}-\u{1e018}\u{1e01b}-\u{1e021}\u{1e023}\u{1e024}\u{1e026}-\u{1e02a}\u{1e08f}\u{1e130}-\u{1e136}\u{1e2ae}\u{1e2ec}-\u{1e2ef}\u{1e4ec}-\u{1e4ef}\u{1e8d0}-\u{1e8d6}\u{1e944}-\u{1e94a}]/gu;

  // Where str.casefold() differs from toLowerCase() (on NFKD text): sharp s, final sigma, and the
  // letters whose fold is another letter (Cyrillic variants; Cherokee folds to its capitals).
  var CASEFOLD = { "\u00df": "ss", "\u03c2": "\u03c3", "\u1c80": "\u0432", "\u1c81": "\u0434", "\u1c82": "\u043e",
    "\u1c83": "\u0441", "\u1c84": "\u0442", "\u1c85": "\u0442", "\u1c86": "\u044a", "\u1c87": "\u0463", "\u1c88": "\ua64b" };
  var c;
  for (c = 0x13f8; c <= 0x13fd; c++) CASEFOLD[String.fromCharCode(c)] = String.fromCharCode(c - 8);
  for (c = 0xab70; c <= 0xabbf; c++) CASEFOLD[String.fromCharCode(c)] = String.fromCharCode(c - 0xab70 + 0x13a0);
  var CASEFOLDED = /[\u00df\u03c2\u13f8-\u13fd\u1c80-\u1c88\uab70-\uabbf]/g;
  function casefold(text) {
    return text.toLowerCase().replace(CASEFOLDED, function (ch) { return CASEFOLD[ch]; });
  }

  /* generator/text.py fold: NFKD, combining marks dropped, white space runs one space and trimmed,
   * case folded ("Weiß" and "WEISS" are "weiss"), no space around . - ' ’ ("J. Smith" is "j.smith"). */
  function fold(text) {
    text = text || "";
    var stripped = ASCII.test(text) ? text : text.normalize("NFKD").replace(COMBINING, "");
    return casefold(stripped.replace(SPACES, " ").replace(EDGE_SPACES, "")).replace(PUNCT_SPACING, "$1");
  }

  // folded, each run of anything but letters and digits one space: what page names are matched in
  function foldedWords(text) {
    var f = fold(text);
    return ASCII.test(f) ? f.replace(/[^a-z0-9]+/g, " ") : f.replace(/[^\p{L}\p{N}]+/gu, " ");
  }

  // " words of the text " in lower case, anything but letters and digits one space: what phrases are
  // found in, and whose words are the "words as typed" (search.py normal_words)
  function normal(text) { return " " + (text || "").normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim() + " "; }

  // what an exact title match compares: folded, without punctuation
  function titleKey(text) {
    var f = fold(text);
    return (ASCII.test(f) ? f.replace(/[^a-z0-9 ]/g, "") : f.replace(/[^\p{L}\p{N} ]/gu, "")).replace(/ +/g, " ").trim();
  }

  var SEPARATOR = new RegExp("[" + SPACE + "\\-]+");
  var NOT_WORD_EDGES = /^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu; // Python's \W: not str.isalnum(), not "_"

  /* A query's words, split and trimmed as search.py's _Terms split the indexed text: NFKC,
   * lower case, white space and hyphens separate, punctuation trimmed off both ends, no
   * characters beyond the BMP (lunr.js and lunr.py order those differently). */
  function queryWords(text) {
    return (text || "").normalize("NFKC").toLowerCase().split(SEPARATOR).map(function (w) {
      return w.replace(NOT_WORD_EDGES, "");
    }).filter(function (w) { return w && !/[\uD800-\uDFFF]/.test(w); });
  }

  function isStopWord(lunr, word) { return !lunr.stopWordFilter(new lunr.Token(word, {})); }
  function stem(lunr, word) { return lunr.stemmer(new lunr.Token(word, {})).toString(); }

  // the index terms of a text, as lunr.js's pipeline makes them of queryWords: _Terms's output
  function queryTerms(lunr, text) {
    return queryWords(text).filter(function (w) { return !isStopWord(lunr, w); }).map(function (w) { return stem(lunr, w); });
  }

  /* A text's index terms as search.py's _Terms(text, limit) makes them: the first `limit` words
   * split (empty ones dropped first), then each trimmed, stop words and words with characters beyond
   * the BMP left out, stemmed (the abstracts' worker weighs a common term from an abstract's text). */
  function indexedTerms(lunr, text, limit) {
    return (text || "").normalize("NFKC").toLowerCase().split(SEPARATOR).filter(Boolean).slice(0, limit).map(function (w) {
      return w.replace(NOT_WORD_EDGES, "");
    }).filter(function (w) { return w && !/[\uD800-\uDFFF]/.test(w) && !isStopWord(lunr, w); }).map(function (w) { return stem(lunr, w); });
  }

  // search_index.py shard_of: the shard that holds a term if any does, the last whose first term
  // (starts: an index's manifest) is not after it ("<" on strings is UTF-16 order, the build's)
  function shardOf(starts, term) {
    var low = 0, high = starts.length; // the answer is in [low, high)
    while (high - low > 1) {
      var middle = (low + high) >> 1;
      if (starts[middle] <= term) low = middle; else high = middle;
    }
    return low;
  }

  // search_index.py shards_of_prefix: the shards that may hold a term beginning with prefix
  function shardsOfPrefix(starts, prefix) {
    var found = [shardOf(starts, prefix)];
    for (var i = found[0] + 1; i < starts.length && starts[i].lastIndexOf(prefix, 0) === 0; i++) found.push(i);
    return found;
  }

  /* The store's schema block -> what reads the store: column numbers by name (col.title; topicCol, nameCol),
   * a page's URL by kind (url("author", slug), relative to the site root), the words of an
   * author-order letter, and each index field's bit (fieldBit("title")). */
  var SCHEMA_VERSION = 6; // search.py STORE_VERSION: a store this code can read

  function Schema(block) {
    if (!block || block.version !== SCHEMA_VERSION) {
      throw new Error("search-docs.json.gz: schema version " + (block && block.version) + ", not " + SCHEMA_VERSION);
    }
    function numbers(names) {
      var at = {};
      names.forEach(function (name, i) { at[name] = i; });
      return at;
    }
    this.col = numbers(block.columns); // a paper's row
    this.topicCol = numbers(block.topic_columns); // store.topics' rows: label, path, area
    this.nameCol = numbers(block.name_columns); // store.authors' and store.keywords' rows: name, slug
    this.urls = block.urls;
    this.orders = block.orders;
    this.fields = block.fields;
    this.textChunk = block.text_chunk;
    this.abstractWords = block.abstract_words;
    this.rowChunk = block.row_chunk; // papers a rows file holds (search/rows-<n>.json.gz)
  }
  Schema.prototype.url = function (kind, slug) { return this.urls[kind].replace("{slug}", slug || ""); };
  Schema.prototype.fieldBit = function (name) {
    for (var i = 0; i < this.fields.length; i++) if (this.fields[i].name === name) return 1 << i;
    return 0;
  };
  // what the worker needs of it (it cannot have the store): the field letters in bit order, and
  // how many papers' texts a snippets file holds
  Schema.prototype.forWorker = function () {
    return { fields: this.fields.map(function (f) { return f.letter; }), textChunk: this.textChunk, abstractWords: this.abstractWords };
  };

  /* components.author_line: the first three of a paper's ``count`` authors (``names``, in the row's order) and
   * "et al." where that order is the paper's (``orderWords`` null); else how many more and the order's words
   * ("alphabetical order"), never "et al.", which would name a first author. */
  function authorLine(names, count, orderWords) {
    if (!count) return "";
    var line = names.slice(0, 3).join(", ");
    if (orderWords == null) return line + (count > 3 ? " et al." : "");
    return line + (count > 3 ? " and " + (count - 3) + " more" : "") + " (" + orderWords + ")";
  }

  var CRC_TABLE = (function () {
    var table = new Uint32Array(256);
    for (var n = 0; n < 256; n++) {
      var c = n;
      for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
    return table;
  })();
  function crc32(text) {
    var bytes = new TextEncoder().encode(text), crc = 0xffffffff;
    for (var i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
    return (crc ^ 0xffffffff) >>> 0;
  }

  var core = {
    authorLine: authorLine, crc32: crc32, fold: fold, casefold: casefold, foldedWords: foldedWords, normal: normal, titleKey: titleKey, queryWords: queryWords,
    queryTerms: queryTerms, indexedTerms: indexedTerms, isStopWord: isStopWord, stem: stem, shardOf: shardOf, shardsOfPrefix: shardsOfPrefix, Schema: Schema
  };
  if (typeof module === "object" && module.exports) module.exports = core;
  else (scope.papersite || (scope.papersite = {})).core = core;
})(typeof self !== "undefined" ? self : globalThis);
