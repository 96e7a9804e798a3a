/* papersite: one prebuilt lunr index, loaded and searched off the main thread.
 * papersite.js starts one worker per index file (search-index.json first, then
 * search-index-abstracts.json), downloads the file meanwhile and hands its bytes
 * over, then sends {id, words} per query; the worker answers {type: "hits", id,
 * refs, scores}.
 * Parsing and loading a large index takes a while: in a worker the page stays
 * responsive meanwhile. Where workers are unavailable, papersite.js loads this
 * file as a plain script and calls papersiteIndex.load / .query itself. */
(function (scope) {
  "use strict";

  // data: the index file's bytes (an ArrayBuffer, or a promise of one); timing: where loading went
  // (absolute ms), for performance.measure in papersite.js
  function load(data, timing) {
    var clock = function () { return scope.performance.timeOrigin + scope.performance.now(); };
    timing = timing || {};
    return Promise.resolve(data).then(function (bytes) {
      timing.start = clock();
      var parsed = JSON.parse(new TextDecoder().decode(bytes));
      timing.parsed = clock();
      var index = scope.lunr.Index.load(parsed);
      timing.loaded = clock();
      return index;
    });
  }

  /* Words (lower case, trimmed; see papersite.js queryWords) -> paper numbers and
   * lunr scores. Each word is stemmed as the index was; the last one also counts
   * as a prefix, so results come while a word is being typed. */
  function query(index, words) {
    var lunr = scope.lunr, last = words.length - 1, hits = [];
    if (words.length) {
      try {
        hits = index.query(function (q) {
          words.forEach(function (word, i) {
            q.term(word, { boost: 1 });
            if (i === last && word.length > 1) {
              q.term(word, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING, boost: 0.3 });
            }
          });
        });
      } catch (error) { hits = []; }
    }
    var refs = new Int32Array(hits.length), scores = new Float64Array(hits.length);
    hits.forEach(function (hit, i) { refs[i] = +hit.ref; scores[i] = hit.score; });
    return { refs: refs, scores: scores };
  }

  var inWorker = typeof scope.importScripts === "function" && typeof scope.document === "undefined";
  if (!inWorker) {
    scope.papersiteIndex = { load: load, query: query };
    return;
  }

  var index = null, waiting = null;
  function answer(message) {
    var found = query(index, message.words || []);
    scope.postMessage({ type: "hits", id: message.id, refs: found.refs, scores: found.scores },
      [found.refs.buffer, found.scores.buffer]);
  }
  // {type: "lunr", url} first (lunr.js loads while papersite.js downloads the index), then {type: "load", data}
  scope.onmessage = function (event) {
    var message = event.data || {};
    if (message.type === "lunr") {
      try { scope.importScripts(message.url); } catch (error) { scope.postMessage({ type: "error", message: String(error) }); }
    } else if (message.type === "load") {
      var timing = {};
      load(message.data, timing).then(function (loaded) {
        index = loaded;
        scope.postMessage({ type: "ready", timing: timing });
        if (waiting) { answer(waiting); waiting = null; }
      }, function (error) { scope.postMessage({ type: "error", message: String(error) }); });
    } else if (index) {
      answer(message);
    } else {
      waiting = message; // papersite.js has at most one query in flight
    }
  };
})(self);
