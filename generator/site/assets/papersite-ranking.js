/* papersite ranking: what a query asks (its words and "quoted phrases") and the papers it finds,
 * ranked. A paper matching more of the query's parts comes first; among equals, one matching
 * more of them in its title or authors, then the summed lunr scores of both indexes (title >
 * authors > keywords and topic > abstract: the boosts of the store's schema, set at build); an
 * exact title always first. ps.ranking: {parseQuery, search, wordMatcher}. */
(function (ps) {
  "use strict";

  var core = ps.core;

  /* ---- what a query asks ---- */

  /* A query's parts: each word on its own, "a quoted phrase" as one part.
   * words: every distinct word of the query, in order (what the indexes are
   * asked); prefix: whether the last word is still being typed. */
  function parseQuery(text) {
    var parts = [], words = [], at = new Map();
    function word(w) {
      if (!at.has(w)) { at.set(w, words.length); words.push(w); }
      return at.get(w);
    }
    (text || "").replace(/"([^"]*)"?|[^\s"]+/g, function (token, quoted) {
      var phrase = quoted !== undefined;
      var ws = core.queryWords(phrase ? quoted : token);
      if (!ws.length) return token;
      if (phrase && ws.length > 1) parts.push({ label: quoted.trim(), words: ws.map(word), phrase: true });
      else if (ws.length === 1) parts.push({ label: (phrase ? quoted : token).replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, ""), words: [word(ws[0])], phrase: false });
      else ws.forEach(function (w) { parts.push({ label: w, words: [word(w)], phrase: false }); });
      return token;
    });
    words = words.slice(0, 30); // one bit per word below
    parts = parts.filter(function (part) { return part.words.every(function (i) { return i < 30; }); });
    return { parts: parts, words: words, prefix: !!words.length && !/[\s"]$/.test(text) };
  }

  // lunr's stemmer and stop words (papersite-engine.js loads lunr.js on this thread for them)
  function stem(word) { return window.lunr ? core.stem(window.lunr, word) : word; }
  function isStop(word) { return !!window.lunr && core.isStopWord(window.lunr, word); }

  // whether two words are at most one edit apart (a letter changed, added, dropped, or two swapped)
  function oneEdit(a, b) {
    if (a === b) return true;
    var la = a.length, lb = b.length;
    if (Math.abs(la - lb) > 1) return false;
    var i = 0;
    while (i < la && i < lb && a[i] === b[i]) i++;
    if (la === lb) {
      return a.slice(i + 1) === b.slice(i + 1) ||
        (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
    }
    return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
  }

  /* token -> whether it is one of the query's words, as the index matched them:
   * the same stem, the start of a longer word (the word being typed), or, for
   * the words taken for typos, one edit away. What the highlighting marks. */
  function wordMatcher(query, typos) {
    var fold = core.fold, words = query.words.map(fold).filter(function (w) { return !isStop(w); });
    var stems = words.map(stem), last = query.prefix ? fold(query.words[query.words.length - 1]) : null;
    var typo = words.map(function (w) { return w.length >= 5 && (typos || []).map(fold).indexOf(w) >= 0; });
    return function (token) {
      var t = fold(token);
      if (!t) return false;
      var s = stem(t);
      for (var i = 0; i < words.length; i++) {
        if (s === stems[i] || (words[i] === last && t.indexOf(last) === 0) || (typo[i] && oneEdit(s, stems[i]))) return true;
      }
      return false;
    };
  }


  // What a phrase is looked for in (the abstracts worker looks in the abstracts): title, authors,
  // keywords (the store whole: a query with a phrase loads it)
  function paperText(eng, n) {
    var cache = eng.paperText || (eng.paperText = new Map());
    if (!cache.has(n)) {
      var store = eng.store, col = eng.schema.col, name = eng.schema.nameCol.name, p = store.papers[n];
      var parts = [p[col.title]].concat(p[col.authors].map(function (a) { return store.authors[a][name]; }),
        p[col.keywords].map(function (k) { return store.keywords[k][name]; }));
      cache.set(n, core.normal(parts.join(" | ")));
    }
    return cache.get(n);
  }
  function phraseNeedle(label) { return core.normal(label).replace(/ $/, ""); }

  var ABSTRACT_PREFIX_MIN = 4; // letters of a word being typed before it counts as a prefix in the abstracts
  // whether the abstracts' index takes this word being typed for a prefix (what search asks, and
  // papersite-engine.js warmUp loads the shards of)
  function abstractPrefix(word) { return word.length >= ABSTRACT_PREFIX_MIN; }

  /* Ranked paper numbers for a query (``shown``: how many of the first must be in their final order,
   * 10 by default; ``early(result)``: called with the order by what is known while a common term's
   * weights are read for those; ``current()``: whether the query still matters, asked before they are;
   * ``pause``: ms the reader may still be typing, waited before they are read, EXACT_WAIT by default).
   * A paper matching more of the query's
   * parts comes first; among equals, one matching more of them in its title or
   * authors, then the summed lunr scores of both indexes (title > authors >
   * keywords and topic > abstract, boosts set at build); an exact title always
   * first. Resolves {numbers, all (how many match every part mentioned
   * anywhere), missing (parts no paper holds), query, full}, or null when a newer
   * query replaced this one before it ran; rejects if no index could be loaded. */
  // papers whose order among the first `shown` a common term's unknown weights leave open: in each
  // group of equal standing, those whose score may yet pass the group's line (the lowest score the
  // group's shown papers are sure of); all a group's papers with unknown weights where it is shown whole
  var UNDECIDED_MOST = 200; // texts read at most for one answer (36 queries at 100k needed 13 at most)
  function undecided(numbers, docs, exact, shown) {
    var out = [], i = 0, need = shown;
    while (i < numbers.length && need > 0) {
      var first = docs.get(numbers[i]), j = i + 1;
      while (j < numbers.length && numbers[j] !== exact && numbers[i] !== exact && sameStanding(docs.get(numbers[j]), first)) j++;
      var group = numbers.slice(i, j);
      var line = group.length <= need ? -Infinity
        : group.map(function (n) { return docs.get(n).score; }).sort(function (a, b) { return b - a; })[need - 1];
      group.forEach(function (n) { var d = docs.get(n); if (d.bound > 0 && d.score + d.bound >= line) out.push(n); });
      need -= group.length; i = j;
    }
    return out.slice(0, UNDECIDED_MOST);
  }
  function sameStanding(x, y) { return x.parts === y.parts && x.taParts === y.taParts && x.asTyped === y.asTyped; }

  // ms a query waits, its early order shown, before its undecided papers' texts are asked for: a query
  // typed key by key is replaced by the next key's meanwhile, and its texts would be fetched for nothing
  // (and hold up the next one's requests)
  var EXACT_WAIT = 150;
  function search(eng, text, shown, early, current, pause) {
    shown = shown || 10;
    pause = pause === undefined ? EXACT_WAIT : pause;
    var query = parseQuery(text);
    var TITLE_OR_AUTHOR = eng.schema.fieldBit("title") | eng.schema.fieldBit("authors"); // bits of a hit's fields
    var begun = performance.now(), full = false;
    var last = query.words.length ? query.words[query.words.length - 1] : "";
    var message = function (prefix) {
      return { type: "query", words: query.words, prefix: prefix,
        phrases: query.parts.filter(function (p) { return p.phrase; }).map(function (p) { return p.label; }) };
    };
    var sources = [], typos = [];
    // what the ranking reads of the store, fetched beside the indexes' answers: the paper with this
    // exact title, the papers holding each word as typed, and for a phrase the store whole
    // (one that cannot be read leaves the ranking without it, as before the store was in pieces)
    var exactTitle = eng.exactTitle(text).catch(function () { return undefined; });
    var typed = eng.typed(query.words).catch(function () { return query.words.map(function () { return new Set(); }); });
    var whole = query.parts.some(function (p) { return p.phrase; }) ? eng.whole() : null;
    // null: a newer query replaced this one. Without the first index there is no search; without
    // the abstracts' (a shard failed to load) the first index's results stand, as before they load.
    function answered(found) {
      if (found.some(function (f) { return f === null; })) return null;
      if (found[0].type === "error") throw new Error("a search index shard could not be loaded");
      if (found.length > 1 && found[1].type === "error") {
        if (window.console) console.warn("papersite: an abstracts shard could not be loaded");
        found = found.slice(0, 1); sources = sources.slice(0, 1);
      }
      return found;
    }
    return eng.meta.ready.then(function () {
      sources = eng.abstracts ? [eng.meta, eng.abstracts] : [eng.meta];
      full = eng.full;
      return Promise.all(sources.map(function (source, k) {
        // the abstracts' vocabulary is five times the titles': a short prefix there stands for too many words
        return source.ask(message(k ? query.prefix && abstractPrefix(last) : query.prefix));
      }));
    }).then(answered).then(function (found) {
      if (!found) return null;
      // a word no index holds as typed is taken for a typo: its near spellings count instead
      query.words.forEach(function (word, i) {
        if (!found.some(function (f) { return f.words[i].refs.length; })) typos.push(i);
      });
      if (!typos.length) return found;
      var near = { type: "near", words: typos.map(function (i) { return query.words[i]; }) };
      return Promise.all(sources.map(function (source) { return source.ask(Object.assign({}, near)); })).then(answered).then(function (nearFound) {
        if (!nearFound) return null;
        found = found.slice(0, nearFound.length);
        nearFound.forEach(function (f, k) { typos.forEach(function (i, j) { found[k].words[i].fuzzy = f.words[j]; }); });
        return found;
      });
    }).then(function (found) {
      return found && Promise.all([exactTitle, typed, whole]).then(function (read) {
        var result = ranked(found, read[0], read[1]);
        var k = sources.indexOf(eng.abstracts), asked = message(query.prefix && abstractPrefix(last));
        if (!result.undecided.length || k < 0) return result;
        // their weights read from their texts, then ranked again: the shown order is lunr's; meanwhile the
        // order by what is known (``early``, not full: the abstracts' answer is not complete)
        if (early) early(Object.assign({}, result, { full: false, early: true }));
        return (pause ? new Promise(function (wait) { setTimeout(wait, pause); }) : Promise.resolve()).then(function () {
          return !current || current() ? sources[k].ask(Object.assign(asked, { type: "exact", refs: result.undecided })) : null;
        }).then(function (exact) {
          if (!exact) return null; // a newer query replaced this one
          if (exact.type === "error") return result; // the order by what is known stands
          exact.words.forEach(function (w, i) { w.fuzzy = found[k].words[i].fuzzy; });
          found = found.slice(); found[k] = exact;
          return ranked(found, read[0], read[1]);
        });
      });
    });

    function ranked(found, exact, typedSets) {
      ps.engine.measure("papersite query", begun);
      eng.searchable = true; // the first index has answered: the exact title need not be shown apart any more
      var docs = new Map(), stops = 0;
      found.forEach(function (f) {
        f.words.forEach(function (exact, i) {
          var w = typos.indexOf(i) >= 0 ? exact.fuzzy : exact;
          if (exact.stop) stops |= 1 << i;
          for (var j = 0; j < w.refs.length; j++) {
            var n = w.refs[j], d = docs.get(n);
            if (!d) docs.set(n, d = { hit: 0, ta: 0, score: 0, bound: 0, parts: 0, taParts: 0, phrases: null });
            d.hit |= 1 << i;
            if (w.fields[j] & TITLE_OR_AUTHOR) d.ta |= 1 << i;
            d.score += w.scores[j];
            if (w.bounds) d.bound += w.bounds[j];
          }
        });
      });
      // papers whose abstract holds each phrase (from the abstracts worker)
      var phraseIndex = 0, inAbstract = query.parts.map(function (p) {
        if (!p.phrase) return null;
        var k = phraseIndex++, set = new Set();
        found.forEach(function (f) { if (f.phrases && f.phrases[k]) f.phrases[k].forEach(function (n) { set.add(n); }); });
        return set;
      });
      var masks = query.parts.map(function (p) {
        var m = 0;
        p.words.forEach(function (i) { m |= 1 << i; });
        return m & ~stops;
      });
      var counted = query.parts.map(function (p, k) { return masks[k] !== 0; });
      var mentioned = counted.map(function () { return false; });
      docs.forEach(function (d, n) {
        query.parts.forEach(function (p, k) {
          var m = masks[k];
          if (!m || (d.hit & m) !== m) return;
          if (p.phrase) {
            var inMeta = paperText(eng, n).indexOf(phraseNeedle(p.label)) >= 0;
            if (!inMeta && !inAbstract[k].has(n)) return;
            if (inMeta) d.taParts++;
          } else if ((d.ta & m) === m) {
            d.taParts++;
          }
          d.parts++;
          mentioned[k] = true;
        });
      });
      var wanted = mentioned.filter(Boolean).length;
      var missing = query.parts.filter(function (p, k) { return counted[k] && !mentioned[k]; }).map(function (p) { return p.label; });
      var numbers = [], all = 0;
      docs.forEach(function (d, n) {
        if (d.parts > 0 || n === exact) { numbers.push(n); if (wanted && d.parts === wanted) all++; }
      });
      if (exact !== undefined && !docs.has(exact)) { numbers.push(exact); docs.set(exact, { parts: 0, taParts: 0, score: 0, bound: 0 }); }
      // among equals, the words as typed (not only their stems) in the title, authors or keywords: "DRIVE" before "driving"
      numbers.forEach(function (n) {
        var d = docs.get(n);
        d.asTyped = 0;
        if (d.taParts) typedSets.forEach(function (holders) { if (holders.has(n)) d.asTyped++; });
      });
      // the last tie: the paper's number, its place in slug order (search.py papers_in_slug_order)
      numbers.sort(function (a, b) {
        var x = docs.get(a), y = docs.get(b);
        return (b === exact) - (a === exact) || y.parts - x.parts || y.taParts - x.taParts || y.asTyped - x.asTyped ||
          y.score - x.score || a - b;
      });
      setTimeout(eng.startAbstracts, 600); // once these results are drawn
      return { numbers: numbers, all: all, parts: wanted, missing: missing, query: query, full: full,
        match: wordMatcher(query, typos.map(function (i) { return query.words[i]; })),
        undecided: undecided(numbers, docs, exact, shown) };
    }
  }


  ps.ranking = { parseQuery: parseQuery, search: search, wordMatcher: wordMatcher, abstractPrefix: abstractPrefix };
})(window.papersite);
