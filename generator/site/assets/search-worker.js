/* papersite: one prebuilt lunr index, loaded and searched off the main thread.
 * papersite.js starts one worker per index file (search-index.json first, then
 * search-index-abstracts.json), downloads the file meanwhile and hands its bytes
 * over (the abstracts worker also gets search-abstracts.json, the texts), then
 * asks one question at a time, each with an id the answer repeats:
 *   {type: "query", id, words, prefix, phrases} -> {type: "hits", id, words: [{refs, scores, fields, stop, fuzzy}], phrases}
 *     one lunr search per word, so papersite.js can count how many of the
 *     query's words each paper matches and in which fields (fieldBits);
 *     phrases: for each quoted phrase, the papers whose text holds it (null
 *     without texts);
 *   {type: "texts", id, refs} -> {type: "texts", id, texts}: abstracts for snippets.
 * Parsing and loading a large index takes a while: in a worker the page stays
 * responsive meanwhile. Where workers are unavailable, papersite.js loads this
 * file as a plain script and calls papersiteIndex.load / .answer itself. */
(function (scope) {
  "use strict";

  // one bit per indexed field (generator/site/search.py: t title, a authors, k keywords + topic, b abstract)
  var FIELD_BITS = { t: 1, a: 2, k: 4, b: 8 };
  var FUZZY_MIN = 5; // one typo is tolerated in words of this many letters or more
  // A word being typed counts as a prefix from this many letters: "co*" stands for thousands of
  // terms at 11,672 papers, and scoring them all took up to a second per keystroke.
  var PREFIX_MIN = 3;

  // data: the index file's bytes (an ArrayBuffer, or a promise of one); text: the texts' bytes or null;
  // timing: where loading went (absolute ms), for performance.measure in papersite.js
  function load(data, text, timing) {
    var clock = function () { return scope.performance.timeOrigin + scope.performance.now(); };
    timing = timing || {};
    return Promise.all([data, text]).then(function (bytes) {
      timing.start = clock();
      var parsed = JSON.parse(new TextDecoder().decode(bytes[0]));
      timing.parsed = clock();
      var loaded = { index: scope.lunr.Index.load(parsed), texts: null, normal: null };
      if (bytes[1]) loaded.texts = JSON.parse(new TextDecoder().decode(bytes[1]));
      timing.loaded = clock();
      return loaded;
    });
  }

  // " words of the text " in lower case, anything but letters and digits one space: what phrases are found in
  function normal(text) { return " " + (text || "").normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim() + " "; }

  function isStopWord(word) { return !scope.lunr.stopWordFilter(new scope.lunr.Token(word, {})); }

  /* One word -> the papers that hold it (refs), its lunr score in each and the
   * fields it matched there (bits). The word is stemmed as the index was; while
   * it is being typed (prefix) it also counts as the start of a longer word.
   * A long word this index does not hold is also looked up at one edit (a typo),
   * apart (fuzzy): papersite.js uses those only for a word that no index holds. */
  function hitsOf(index, build) {
    var hits = [];
    // (a query without clauses would match every paper)
    if (build) { try { hits = index.query(build); } catch (error) { hits = []; } }
    var refs = new Int32Array(hits.length), scores = new Float64Array(hits.length), fields = new Uint8Array(hits.length);
    hits.forEach(function (hit, i) {
      refs[i] = +hit.ref; scores[i] = hit.score;
      var bits = 0, metadata = hit.matchData.metadata;
      Object.keys(metadata).forEach(function (term) {
        Object.keys(metadata[term]).forEach(function (field) { bits |= FIELD_BITS[field] || 0; });
      });
      fields[i] = bits;
    });
    return { refs: refs, scores: scores, fields: fields };
  }

  function searchWord(index, word, prefix) {
    var lunr = scope.lunr, stop = !word || isStopWord(word);
    var found = hitsOf(index, stop ? null : function (q) {
      q.term(word, { boost: 1 });
      if (prefix && word.length >= PREFIX_MIN) q.term(word, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING, boost: 0.3 });
    });
    found.stop = stop;
    var typo = !stop && !found.refs.length && word.length >= FUZZY_MIN;
    found.fuzzy = hitsOf(index, typo ? function (q) { q.term(word, { editDistance: 1, boost: 0.1 }); } : null);
    return found;
  }

  function withPhrase(loaded, phrase) {
    if (!loaded.texts) return null;
    if (!loaded.normal) loaded.normal = loaded.texts.map(normal);
    var needle = normal(phrase).replace(/ $/, ""); // the last word may go on: "diffusion model" finds "diffusion models"
    var found = [];
    for (var i = 0; i < loaded.normal.length; i++) if (loaded.normal[i].indexOf(needle) >= 0) found.push(i);
    return Int32Array.from(found);
  }

  // a message -> [answer, transferable buffers]
  function answer(loaded, message) {
    if (message.type === "texts") {
      var texts = (message.refs || []).map(function (r) { return loaded.texts ? loaded.texts[r] || "" : ""; });
      return [{ type: "texts", id: message.id, texts: texts }, []];
    }
    var words = message.words || [], buffers = [];
    var perWord = words.map(function (word, i) {
      var found = searchWord(loaded.index, word, message.prefix && i === words.length - 1);
      [found, found.fuzzy].forEach(function (f) { buffers.push(f.refs.buffer, f.scores.buffer, f.fields.buffer); });
      return found;
    });
    var phrases = (message.phrases || []).map(function (p) { return withPhrase(loaded, p); });
    phrases.forEach(function (p) { if (p) buffers.push(p.buffer); });
    return [{ type: "hits", id: message.id, words: perWord, phrases: phrases }, buffers];
  }

  var inWorker = typeof scope.importScripts === "function" && typeof scope.document === "undefined";
  if (!inWorker) {
    scope.papersiteIndex = { load: load, answer: function (loaded, message) { return answer(loaded, message)[0]; }, normal: normal };
    return;
  }

  var loaded = null, waiting = null;
  function reply(message) {
    var out = answer(loaded, message);
    scope.postMessage(out[0], out[1]);
  }
  // {type: "lunr", url} first (lunr.js loads while papersite.js downloads the index), then {type: "load", data, text}
  scope.onmessage = function (event) {
    var message = event.data || {};
    if (message.type === "lunr") {
      try { scope.importScripts(message.url); } catch (error) { scope.postMessage({ type: "error", message: String(error) }); }
    } else if (message.type === "load") {
      var timing = {};
      load(message.data, message.text || null, timing).then(function (index) {
        loaded = index;
        scope.postMessage({ type: "ready", timing: timing });
        if (waiting) { reply(waiting); waiting = null; }
      }, function (error) { scope.postMessage({ type: "error", message: String(error) }); });
    } else if (loaded) {
      reply(message);
    } else {
      waiting = message; // papersite.js has at most one question in flight
    }
  };
})(self);
