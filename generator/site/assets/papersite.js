/* papersite: header search, Explore, the all-papers list and copy buttons.
 * Search runs on lunr indexes that the build computed (loading them is fast;
 * indexing in the browser is not), in shards by a term's first letter, loaded
 * only when someone starts to search and only the shards the query's words
 * need, each index in a Web Worker so the page stays responsive: first the short
 * fields (titles, authors, keywords, topics), which give the first results, then
 * the abstracts in the background; results are refined once those are in.
 * Everything is fetched from this site: no request leaves the origin. */
(function () {
  "use strict";

  var script = document.currentScript;
  // this file is <root>/assets/papersite/papersite.js
  var root = new URL("../../", script ? script.src : location.href);
  var engine = null;

  function asset(name) { return new URL("assets/papersite/" + name, root).href; }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = src; el.onload = resolve; el.onerror = reject;
      document.head.appendChild(el);
    });
  }

  // Printable ASCII needs no Unicode normalisation and no Unicode classes: most names and titles
  // are, and folding 35,000 names and 11,672 titles at 11,672 papers is on the way to the first result.
  var ASCII = /^[\x20-\x7e]*$/;

  function fold(text) {
    text = text || "";
    if (ASCII.test(text)) return text.toLowerCase().replace(/ +/g, " ").trim();
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\s+/g, " ").trim();
  }

  // folded, each run of anything but letters and digits one space: what page names are matched in
  function foldedWords(text) {
    var f = fold(text);
    return ASCII.test(f) ? f.replace(/[^a-z0-9]+/g, " ") : f.replace(/[^\p{L}\p{N}]+/gu, " ");
  }

  // what an exact title match compares: folded, without punctuation
  function titleKey(text) {
    var f = fold(text);
    return (ASCII.test(f) ? f.replace(/[^a-z0-9 ]/g, "") : f.replace(/[^\p{L}\p{N} ]/gu, "")).replace(/ +/g, " ").trim();
  }

  /* A query's words, split and trimmed the way the build split the indexed text
   * (generator/site/search.py): NFKC, lower case, white space and hyphens
   * separate, punctuation trimmed off both ends, no characters beyond the BMP.
   * The worker stems them with lunr's own pipeline. */
  function queryWords(text) {
    return (text || "").normalize("NFKC").toLowerCase().split(/[\s\-]+/).map(function (w) {
      return w.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, "");
    }).filter(function (w) { return w && !/[\uD800-\uDFFF]/.test(w); });
  }

  // performance.measure entries (DevTools, the benchmark): fetch, JSON.parse and lunr.Index.load of an index
  function measure(name, start) {
    try { performance.measure(name, { start: start, end: performance.now() }); } catch (error) { /* no measure options */ }
  }
  // [what, start, end] (absolute ms) from the worker: fetching, parsing and loading shards
  function timed(name, entries) {
    if (!entries || !performance.measure) return;
    var origin = performance.timeOrigin;
    entries.forEach(function (e) {
      try { performance.measure("papersite " + name + " " + e[0], { start: e[1] - origin, end: e[2] - origin }); } catch (error) { /* older browsers: no measure options */ }
    });
  }

  /* One prebuilt index in shards (and, for the abstracts, their texts), searched in a
   * worker (or on this thread where workers fail), which fetches the shards a
   * question needs. ask() keeps at most one question in flight; a question
   * replaced before it was sent resolves with null, one the index could not
   * answer (a shard failed to load) with {type: "error"}. */
  function Source(name, textFile) {
    var source = this, shards = asset("search/" + name + "-"), texts = textFile ? asset(textFile) : null;
    this.name = name; this.shards = shards; this.texts = texts;
    this.busy = false; this.next = null; this.current = null; this.serial = 0;
    this.ready = new Promise(function (resolve, reject) {
      var worker;
      try { worker = new Worker(asset("search-worker.js")); } catch (error) { worker = null; }
      if (!worker) { source.local().then(resolve, reject); return; }
      source.worker = worker;
      worker.onmessage = function (event) {
        var m = event.data || {};
        if (m.type === "ready") { resolve(); return; }
        if (m.type === "error" && m.id === undefined) {
          reject(new Error(name + ": " + m.message));
          if (source.current) source.current.resolve({ type: "error" });
          if (source.next) source.next.resolve(null);
          source.current = source.next = null;
        } else if (source.current && source.current.message.id === m.id) {
          var done = source.current;
          source.current = null; source.busy = false;
          timed(name, m.timing);
          done.resolve(m);
          source.pump();
        }
      };
      worker.onerror = function (event) {
        event.preventDefault();
        worker.terminate(); source.worker = null;
        if (source.current && !source.next) source.next = source.current; // ask again on this thread
        else if (source.current) source.current.resolve(null);
        source.current = null;
        source.local().then(function () { resolve(); source.busy = false; source.pump(); }, reject);
      };
      worker.postMessage({ type: "lunr", url: asset("lunr.js") });
      worker.postMessage({ type: "open", shards: shards, texts: texts });
    });
  }
  Source.prototype.local = function () {
    var source = this;
    return helpers().then(function () { source.index = window.papersiteIndex.open(source.shards, source.texts); });
  };
  // a query is being typed: the worker loads the shards of its words meanwhile (no answer)
  Source.prototype.warm = function (words) {
    if (this.worker) this.worker.postMessage({ type: "warm", words: words });
    else if (this.index) window.papersiteIndex.warm(this.index, words);
  };
  // message: {type: "query" | "near" | "texts", ...} (see search-worker.js); resolves with the answer, or null
  Source.prototype.ask = function (message) {
    var source = this;
    return new Promise(function (resolve) {
      if (source.next) source.next.resolve(null);
      message.id = ++source.serial;
      source.next = { message: message, resolve: resolve };
      source.pump();
    });
  };
  Source.prototype.pump = function () {
    if (this.busy || !this.next) return;
    var job = this.next, source = this;
    this.next = null;
    if (this.worker) {
      this.busy = true; this.current = job;
      this.worker.postMessage(job.message);
    } else if (this.index) {
      this.busy = true;
      window.papersiteIndex.answer(this.index, job.message).then(function (m) {
        timed(source.name, m.timing);
        return m;
      }, function () { return { type: "error" }; }).then(function (m) {
        source.busy = false;
        job.resolve(m);
        source.pump();
      });
    } else {
      this.next = job;
      this.ready.then(function () { source.pump(); }, function () { job.resolve({ type: "error" }); });
    }
  };

  // lunr.js and search-worker.js as plain scripts on this thread: the stemmer and stop words that
  // highlighting needs, and the search itself where workers fail (both files are cached by then)
  var helping = null;
  function helpers() {
    if (!helping) {
      helping = (window.lunr ? Promise.resolve() : loadScript(asset("lunr.js"))).then(function () {
        return window.papersiteIndex ? null : loadScript(asset("search-worker.js"));
      });
    }
    return helping;
  }

  // The first index's worker, started when the page is idle (lunr.js, 100 KB, no index yet): a
  // worker takes a few hundred ms to start on a busy two-core machine, all of it before the first
  // result when it only starts once the reader types.
  var firstSource = null;
  function firstIndex() { return firstSource || (firstSource = new Source("index")); }

  /* The store (what results show; loadEngine resolves with it), the first
   * index (engine.meta), then the abstracts and their texts in the background.
   * engine.full is true once the abstracts are searched too (or could not
   * load); the functions in engine.onFull run then, to refresh what is shown. */
  function loadEngine() {
    if (!engine) {
      var meta = firstIndex();
      engine = { full: false, onFull: [], meta: meta, abstracts: null };
      var begun = performance.now();
      // The store is parsed once the worker has started (or failed to): parsing 3.6 MB (11,672
      // papers) holds this thread a few hundred ms, and a worker cannot start while it is held,
      // so the first shards would only begin to load after the store.
      var docs = Promise.all([fetch(asset("search-docs.json.gz")).then(function (r) {
        if (!r.ok) throw new Error("search-docs.json.gz: " + r.status);
        return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).text();  // stored gzipped (search.py)
      }), meta.ready.catch(function () { /* search() reports it */ })]).then(function (got) {
        var store = JSON.parse(got[0]);
        measure("papersite search-docs.json.gz fetch+parse", begun);
        return store;
      });
      // The abstracts load once the first results are shown: on two cores, loading
      // them at once slows those down.
      var started = false;
      engine.startAbstracts = function () {
        if (started) return;
        started = true;
        var abstracts = new Source("abstracts", "search-abstracts.json.gz");
        abstracts.ready.then(function () { engine.abstracts = abstracts; }, function (error) {
          if (window.console) console.warn("papersite: abstracts are not searched:", error);
        }).then(function () {
          measure("papersite abstracts ready", begun);
          engine.full = true;
          engine.onFull.forEach(function (fn) { fn(); });
        });
      };
      var helped = helpers().catch(function () { /* highlighting falls back to plain prefixes */ });
      engine.ready = Promise.all([docs, helped]).then(function (got) {
        var store = got[0], byTitle = new Map();
        store.papers.forEach(function (p, n) {
          var key = titleKey(p[1]);
          if (key && !byTitle.has(key)) byTitle.set(key, n);
        });
        engine.store = store; engine.byTitle = byTitle;
        // the names header search offers as pages, folded while the reader has not typed yet
        (window.requestIdleCallback || setTimeout)(function () { pageIndex(store); });
        return engine;
      });
    }
    return engine.ready;
  }

  // the first index starts loading the shards of a query's words while the store still loads
  function warmUp(text) {
    loadEngine();
    engine.meta.warm(parseQuery(text).words);
  }

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
      var ws = queryWords(phrase ? quoted : token);
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

  function stem(word) {
    return window.lunr ? window.lunr.stemmer(new window.lunr.Token(word, {})).toString() : word;
  }
  function isStop(word) { return !!window.lunr && !window.lunr.stopWordFilter(new window.lunr.Token(word, {})); }

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
    var words = query.words.map(fold).filter(function (w) { return !isStop(w); });
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

  // text -> a fragment with the matched words in <mark>: text nodes only, never HTML
  var TOKEN = /([\p{L}\p{N}_]+)/u;
  function marked(text, match) {
    var frag = document.createDocumentFragment();
    text.split(TOKEN).forEach(function (piece, i) {
      if (!piece) return;
      if (i % 2 && match(piece)) {
        var m = document.createElement("mark");
        m.textContent = piece;
        frag.appendChild(m);
      } else {
        frag.appendChild(document.createTextNode(piece));
      }
    });
    return frag;
  }

  // about 30 words of an abstract around its first matched word, or null when no word matched there
  function snippet(text, match) {
    var pieces = (text || "").split(TOKEN), hit = -1;
    for (var i = 1; i < pieces.length; i += 2) if (match(pieces[i])) { hit = i; break; }
    if (hit < 0) return null;
    var from = Math.max(0, hit - 16), to = Math.min(pieces.length, hit + 50);
    var cut = (from > 0 ? "…" : "") + pieces.slice(from, to).join("").trim() + (to < pieces.length ? "…" : "");
    return marked(cut, match);
  }

  /* ---- ranking ---- */

  // What a phrase is looked for in (the abstracts worker looks in the abstracts): title, authors, keywords
  function paperText(eng, n) {
    var cache = eng.paperText || (eng.paperText = new Map());
    if (!cache.has(n)) {
      var store = eng.store, p = store.papers[n];
      var parts = [p[1]].concat(p[2].map(function (a) { return store.authors[a][0]; }), p[4].map(function (k) { return store.keywords[k][0]; }));
      cache.set(n, window.papersiteIndex ? window.papersiteIndex.normal(parts.join(" | ")) : " " + fold(parts.join(" ")) + " ");
    }
    return cache.get(n);
  }
  function phraseNeedle(label) {
    return (window.papersiteIndex ? window.papersiteIndex.normal(label) : " " + fold(label) + " ").replace(/ $/, "");
  }

  var TITLE_OR_AUTHOR = 1 | 2; // field bits of search-worker.js
  var ABSTRACT_PREFIX_MIN = 4; // letters of a word being typed before it counts as a prefix in the abstracts

  /* Ranked paper numbers for a query. A paper matching more of the query's
   * parts comes first; among equals, one matching more of them in its title or
   * authors, then the summed lunr scores of both indexes (title > authors >
   * keywords and topic > abstract, boosts set at build); an exact title always
   * first. Resolves {numbers, all (how many match every part mentioned
   * anywhere), missing (parts no paper holds), query, full}, or null when a newer
   * query replaced this one before it ran; rejects if no index could be loaded. */
  function search(eng, text) {
    var query = parseQuery(text);
    var begun = performance.now(), full = false;
    var last = query.words.length ? query.words[query.words.length - 1] : "";
    var message = function (prefix) {
      return { type: "query", words: query.words, prefix: prefix,
        phrases: query.parts.filter(function (p) { return p.phrase; }).map(function (p) { return p.label; }) };
    };
    var sources = [], typos = [];
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
        return source.ask(message(k ? query.prefix && last.length >= ABSTRACT_PREFIX_MIN : query.prefix));
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
      if (!found) return null;
      measure("papersite query", begun);
      eng.searchable = true; // the first index has answered: the exact title need not be shown apart any more
      var docs = new Map(), stops = 0;
      found.forEach(function (f) {
        f.words.forEach(function (exact, i) {
          var w = typos.indexOf(i) >= 0 ? exact.fuzzy : exact;
          if (exact.stop) stops |= 1 << i;
          for (var j = 0; j < w.refs.length; j++) {
            var n = w.refs[j], d = docs.get(n);
            if (!d) docs.set(n, d = { hit: 0, ta: 0, score: 0, parts: 0, taParts: 0, phrases: null });
            d.hit |= 1 << i;
            if (w.fields[j] & TITLE_OR_AUTHOR) d.ta |= 1 << i;
            d.score += w.scores[j];
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
      var exact = eng.byTitle.get(titleKey(text));
      var numbers = [], all = 0;
      docs.forEach(function (d, n) {
        if (d.parts > 0 || n === exact) { numbers.push(n); if (wanted && d.parts === wanted) all++; }
      });
      if (exact !== undefined && !docs.has(exact)) { numbers.push(exact); docs.set(exact, { parts: 0, taParts: 0, score: 0 }); }
      // among equals, the words as typed (not only their stems) in the title or authors: "DRIVE" before "driving"
      var needles = query.words.map(function (w) { return " " + w + " "; });
      numbers.forEach(function (n) {
        var d = docs.get(n);
        d.asTyped = 0;
        if (d.taParts) {
          var text = paperText(eng, n);
          needles.forEach(function (w) { if (text.indexOf(w) >= 0) d.asTyped++; });
        }
      });
      numbers.sort(function (a, b) {
        var x = docs.get(a), y = docs.get(b);
        return (b === exact) - (a === exact) || y.parts - x.parts || y.taParts - x.taParts || y.asTyped - x.asTyped ||
          y.score - x.score || a - b;
      });
      setTimeout(eng.startAbstracts, 600); // once these results are drawn
      return { numbers: numbers, all: all, parts: wanted, missing: missing, query: query, full: full,
        match: wordMatcher(query, typos.map(function (i) { return query.words[i]; })) };
    });
  }

  // "12 papers match every word, 340 match some; no paper mentions “jailbreak”"
  function summary(result, shown) {
    var n = shown === undefined ? result.numbers.length : shown;
    var all = Math.min(result.all, n), text;
    var held = result.query ? result.query.parts.filter(function (p) { return result.missing.indexOf(p.label) < 0; }) : [];
    var match = function (k) { return k === 1 ? " matches" : " match"; };
    if (!n) text = "No paper matches";
    else if (result.missing.length && held.length === 1) text = papersCount(n) + match(n) + " \u201c" + held[0].label + "\u201d";
    else if (result.parts <= 1 || all === n) text = papersCount(n) + (result.parts > 1 ? match(n) + " every word" : "");
    else text = (all ? papersCount(all) + match(all) + " every word" : "No paper matches every word") + ", " +
      n.toLocaleString("en") + match(n) + " some";
    if (result.missing.length && result.full) {
      text += "; no paper mentions " + result.missing.map(function (m) { return "\u201c" + m + "\u201d"; }).join(", ");
    }
    return text;
  }

  /* ---- author, keyword and topic pages as results ---- */

  function pageIndex(store) {
    if (store.pageIndex) return store.pageIndex;
    var begun = performance.now();
    var counts = { a: new Int32Array(store.authors.length), k: new Int32Array(store.keywords.length), t: new Int32Array(store.topics.length) };
    store.papers.forEach(function (p) {
      p[2].forEach(function (a) { counts.a[a]++; });
      p[4].forEach(function (k) { counts.k[k]++; });
      if (p[3] != null) { counts.t[p[3]]++; if (store.topics[p[3]][2] !== p[3]) counts.t[store.topics[p[3]][2]]++; }
    });
    var entries = [];
    // (each page's URL is made when it is shown: 37,000 new URL() calls took 150 ms at 11,672 papers)
    function add(kind, list, section, count) {
      list.forEach(function (e, i) {
        entries.push({ kind: kind, name: e[0], path: section + e[1] + "/", count: count[i], folded: " " + foldedWords(e[0]) });
      });
    }
    add("Author", store.authors, "authors/", counts.a);
    add("Keyword", store.keywords, "keywords/", counts.k);
    add("Topic", store.topics, "topics/", counts.t);
    measure("papersite page index", begun);
    return (store.pageIndex = entries);
  }

  /* Up to `limit` pages whose name holds every word of the query (each at the
   * start of a word of the name): a name equal to the query first, then by papers. */
  function matchingPages(store, text, limit) {
    var words = foldedWords(text).trim();
    if (words.length < 3) return [];
    var needles = words.split(" ").map(function (w) { return " " + w; }), whole = " " + words;
    var found = [];
    pageIndex(store).forEach(function (e) {
      for (var i = 0; i < needles.length; i++) if (e.folded.indexOf(needles[i]) < 0) return;
      found.push({ entry: e, exact: e.folded.trim() === words || e.folded.slice(e.folded.lastIndexOf(" ")) === whole });
    });
    found.sort(function (a, b) { return b.exact - a.exact || b.entry.count - a.entry.count || a.entry.name.localeCompare(b.entry.name); });
    return found.slice(0, limit).map(function (f) {
      if (!f.entry.href) f.entry.href = new URL(f.entry.path, root).href;
      return f.entry;
    });
  }

  function paperHref(slug) { return new URL("papers/" + slug + "/", root).href; }

  // As paper_pages.author_line: "et al." only where the first author is known (order p[6] absent).
  var ORDER_SHORT = { a: "alphabetical order", u: "order not known" };
  function authorLine(store, ids, order) {
    var names = ids.slice(0, 3).map(function (i) { return store.authors[i][0]; });
    if (!ids.length) return "";
    if (!order) return names.join(", ") + (ids.length > 3 ? " et al." : "");
    return names.join(", ") + (ids.length > 3 ? " and " + (ids.length - 3) + " more" : "") + " (" + (ORDER_SHORT[order] || ORDER_SHORT.u) + ")";
  }

  // "Authors · Topic · Decision", leaving out whichever part a paper lacks.
  function paperMeta(store, p) {
    var parts = [authorLine(store, p[2], p[6])];
    if (p[3] != null) parts.push(store.topics[p[3]][0]);
    if (p[5] != null && store.decisions) parts.push(store.decisions[p[5]]);
    return parts.filter(function (part) { return part; }).join(" · ");
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  function papersCount(n) { return n.toLocaleString("en") + (n === 1 ? " paper" : " papers"); }

  /* Abstract snippets under the shown results, once the abstracts' texts are in:
   * items[i] gets the snippet of numbers[i] (appended to its `into` element). */
  function addSnippets(eng, numbers, targets, match, still) {
    if (!eng.abstracts || !numbers.length) return;
    eng.abstracts.ask({ type: "texts", refs: numbers }).then(function (answer) {
      if (!answer || !answer.texts || !still()) return; // (texts that could not load: no snippets)
      answer.texts.forEach(function (text, i) {
        var cut = snippet(text, match);
        if (cut) targets[i].appendChild(el("p", { "class": "ps-snippet" }, [cut]));
      });
    });
  }

  /* ---- header search ---- */
  // The box's markup (templates/partials/search.html writes only its place): Material's
  // classes give its look and its #__search toggle; the magnifier is the header's own icon.
  function fillSearchBox(box) {
    if (box.querySelector("[data-ps-search-input]")) return;  // a theme override wrote it whole
    var back = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    back.setAttribute("viewBox", "0 0 24 24");
    back.innerHTML = '<path d="M20 11v2H8l5.5 5.5-1.42 1.42L4.16 12l7.92-7.92L13.5 5.5 8 11z"/>';
    var icon = el("label", { "class": "md-search__icon md-icon", "for": "__search" });
    var magnifier = document.querySelector('.md-header label[for="__search"] svg');
    if (magnifier) icon.appendChild(magnifier.cloneNode(true));
    icon.appendChild(back);
    var input = el("input", { type: "text", "class": "md-search__input", name: "q", "aria-label": "Search papers",
      placeholder: "Search papers", autocapitalize: "off", autocorrect: "off", autocomplete: "off",
      spellcheck: "false", "data-ps-search-input": "" });
    box.appendChild(el("label", { "class": "md-search__overlay", "for": "__search" }));
    box.appendChild(el("div", { "class": "md-search__inner", role: "search" }, [
      el("form", { "class": "md-search__form", "data-ps-search-form": "" }, [input, icon]),
      el("div", { "class": "md-search__output" }, [
        el("div", { "class": "md-search__scrollwrap", tabindex: "0" }, [
          el("div", { "class": "md-search-result" }, [
            el("div", { "class": "md-search-result__meta", "data-ps-search-meta": "" },
              ["Type to search titles, authors, keywords and abstracts"]),
            el("ol", { "class": "md-search-result__list", "data-ps-search-results": "" })
          ])
        ])
      ])
    ]));
  }

  function setupHeaderSearch() {
    var box = document.querySelector("[data-ps-search]");
    if (!box) return;
    fillSearchBox(box);
    var input = box.querySelector("[data-ps-search-input]");
    var form = box.querySelector("[data-ps-search-form]");
    var list = box.querySelector("[data-ps-search-results]");
    var meta = box.querySelector("[data-ps-search-meta]");
    var toggle = document.getElementById("__search");
    var first = null, listening = false;
    var explore = new URL("explore/", root);

    function item(href, heading, lines, extraClass) {
      var article = el("article", { "class": "md-search-result__article md-typeset" }, [el("h1", {}, [heading])].concat(lines));
      return el("li", { "class": "md-search-result__item" + (extraClass ? " " + extraClass : "") }, [
        el("a", { href: href, "class": "md-search-result__link", tabindex: "-1" }, [article])
      ]);
    }

    function show(eng, text, result) {
      var found = result.numbers, store = eng.store;
      var match = result.match || wordMatcher(parseQuery(text));
      list.textContent = "";
      list.setAttribute("data-ps-query", text);
      list.setAttribute("data-ps-state", result.exactOnly || !result.full ? "partial" : "full");
      var pages = result.exactOnly ? [] : matchingPages(store, text, 3);
      first = pages.length && pages[0].exact ? pages[0].href : (found.length ? paperHref(store.papers[found[0]][0]) : null);
      meta.textContent = result.exactOnly ? "A paper with this title (searching for more…)"
        : summary(result) + (result.full ? "" : " (searching the abstracts too…)");
      pages.forEach(function (page) {
        list.appendChild(item(page.href, marked(page.name, match), [
          el("p", { "class": "ps-kind" }, [page.kind + " · " + papersCount(page.count)])
        ], "ps-page-result"));
      });
      var shownNumbers = found.slice(0, 10), articles = [];
      shownNumbers.forEach(function (n) {
        var p = store.papers[n];
        var li = item(paperHref(p[0]), marked(p[1], match), [el("p", {}, [paperMeta(store, p)])]);
        articles.push(li.querySelector("article"));
        list.appendChild(li);
      });
      if (found.length > 10) {
        var more = new URL(explore); more.searchParams.set("q", text);
        list.appendChild(el("li", { "class": "md-search-result__item" }, [
          el("a", { href: more.href, "class": "md-search-result__link ps-more" }, [
            el("article", { "class": "md-search-result__article md-typeset" }, [
              el("p", {}, ["All " + found.length.toLocaleString("en") + " results in Explore →"])
            ])
          ])
        ]));
      }
      if (!result.exactOnly) addSnippets(eng, shownNumbers, articles, match, function () { return input.value === text; });
    }

    function render() {
      var text = input.value;
      if (!text.trim()) {
        list.textContent = ""; first = null; list.removeAttribute("data-ps-query");
        meta.textContent = "Type to search titles, authors, keywords and abstracts"; return;
      }
      warmUp(text);
      loadEngine().then(function (eng) {
        if (!listening) { listening = true; eng.onFull.push(function () { if (input.value.trim()) render(); }); }
        if (input.value !== text) return null;
        // an exact title shows at once, from the store, while the first index still loads
        var exact = eng.byTitle.get(titleKey(text));
        if (!eng.searchable && exact !== undefined) show(eng, text, { numbers: [exact], exactOnly: true });
        return search(eng, text).then(function (result) {
          if (result && input.value === text) show(eng, text, result);
        });
      }).catch(function () { meta.textContent = "The search index could not be loaded"; });
    }

    (window.requestIdleCallback || setTimeout)(firstIndex, { timeout: 2000 });
    input.addEventListener("focus", function () {
      // Material shows the results panel only while its #__search toggle is on
      if (toggle && !toggle.checked) toggle.checked = true;
      loadEngine();
    });
    input.addEventListener("input", render);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (first) { location.href = first; return; }
      var go = new URL(explore); go.searchParams.set("q", input.value); location.href = go.href;
    });
    if (toggle) {
      toggle.addEventListener("change", function () {
        if (toggle.checked) { loadEngine(); setTimeout(function () { input.focus(); }, 50); }
      });
    }
    document.addEventListener("keydown", function (e) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test((e.target && e.target.tagName) || "") || (e.target && e.target.isContentEditable);
      if (!typing && (e.key === "/" || e.key === "s" || e.key === "f") && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        if (toggle) toggle.checked = true;
        loadEngine(); input.focus();
      } else if (e.key === "Escape" && toggle && toggle.checked) {
        toggle.checked = false; input.blur();
      }
    });
  }

  /* ---- Explore: query and filters live in the URL ---- */

  /* Names (keywords or authors) looked up by slug or by folded name; the folded
   * names are computed on first use (tens of thousands of authors at scale). */
  function Names(entries) {
    this.entries = entries; this.bySlug = new Map(); this.folded = null;
    var bySlug = this.bySlug;
    entries.forEach(function (e, i) { bySlug.set(e[1], i); });
  }
  Names.prototype.fold = function () {
    if (!this.folded) {
      this.folded = this.entries.map(function (e) { return fold(e[0]); });
      var byName = this.byName = new Map();
      this.folded.forEach(function (f, i) { if (!byName.has(f)) byName.set(f, i); });
    }
    return this.folded;
  };
  /* What a filter's text selects: null (no filter), {exact: i}, or {partial: [i, ...]}:
   * the names holding the text from the start of one of their words
   * ("distillation" -> "knowledge distillation", a surname -> everyone of that
   * name), possibly none: a note then says so instead of a silent zero. */
  Names.prototype.lookup = function (value) {
    if (!value) return null;
    if (this.bySlug.has(value)) return { exact: this.bySlug.get(value) };
    this.fold();
    var f = fold(value);
    if (this.byName.has(f)) return { exact: this.byName.get(f) };
    var partial = [], needle = " " + f.replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    this.folded.forEach(function (name, i) {
      if ((" " + name.replace(/[^\p{L}\p{N}]+/gu, " ")).indexOf(needle) >= 0) partial.push(i);
    });
    return { partial: partial };
  };
  Names.prototype.test = function (selected) {
    if (!selected) return null;
    if (selected.exact !== undefined) { var one = selected.exact; return function (ids) { return ids.indexOf(one) >= 0; }; }
    var set = new Set(selected.partial);
    return function (ids) { return ids.some(function (i) { return set.has(i); }); };
  };

  var PAGE = 100; // results drawn at a time; "Show more" draws the next ones

  function setupExplore() {
    var form = document.querySelector("[data-ps-explore]");
    if (!form) return;
    var q = form.elements.q, topic = form.elements.topic, keyword = form.elements.keyword, author = form.elements.author;
    var decision = form.elements.decision;
    var count = document.querySelector("[data-ps-explore-count]");
    var results = document.querySelector("[data-ps-explore-results]");
    var notes = document.querySelector("[data-ps-explore-notes]");
    var facets = document.querySelector("[data-ps-explore-facets]");
    var moreButton = document.querySelector("[data-ps-explore-more]");
    var params = new URLSearchParams(location.search);
    // The query shows at once; the filters (slugs in the URL, names in the inputs) once the store is in.
    // Preloading the store holds the page's load event until its bytes are here, so a page that has
    // loaded shows its restored search (the store is what restores the filters).
    if (!q.value) q.value = params.get("q") || "";
    var preload = el("link", { rel: "preload", as: "fetch", href: asset("search-docs.json.gz"), crossorigin: "anonymous" });
    document.head.appendChild(preload);
    if (q.value) warmUp(q.value);

    loadEngine().then(function (eng) {
      var store = eng.store;
      var topicBySlug = {}, topicOptions = [];
      var frag = document.createDocumentFragment();
      store.topics.forEach(function (t, i) {
        topicBySlug[t[1]] = i;
        var option = el("option", { value: t[1] }, [(t[2] === i ? "" : "\u2003") + t[0]]);
        topicOptions.push(option);
        frag.appendChild(option);
      });
      topic.appendChild(frag);
      var decisionOptions = [];
      (store.decisions || []).forEach(function (d) {
        var option = el("option", { value: d }, [d]);
        decisionOptions.push(option);
        decision.appendChild(option);
      });
      if (!(store.decisions || []).length) decision.closest(".ps-explore-row").hidden = true;
      var keywords = new Names(store.keywords), authors = new Names(store.authors);
      var counts = { k: new Map(), a: new Map() };

      // suggestions: a short list that follows what is typed, with how many current results have each
      function suggestions(inputEl, names, listId, facet) {
        var datalist = document.getElementById(listId);
        function fill() {
          var text = inputEl.value.trim(), f = fold(text), picked = [];
          var folded = names.fold(), ranked = Array.from(counts[facet].keys());
          ranked.sort(function (x, y) { return counts[facet].get(y) - counts[facet].get(x) || x - y; });
          for (var i = 0; i < ranked.length && picked.length < 50; i++) if (!f || folded[ranked[i]].indexOf(f) >= 0) picked.push(ranked[i]);
          var options = document.createDocumentFragment();
          picked.forEach(function (i) {
            options.appendChild(el("option", { value: names.entries[i][0], label: papersCount(counts[facet].get(i)) }));
          });
          datalist.textContent = "";
          datalist.appendChild(options);
        }
        inputEl.addEventListener("focus", fill);
        inputEl.addEventListener("input", fill);
        return fill;
      }
      var refill = [suggestions(keyword, keywords, "ps-keyword-list", "k"), suggestions(author, authors, "ps-author-list", "a")];

      // restore from the URL (slugs there, names in the inputs), unless the reader typed meanwhile
      if (!q.value) q.value = params.get("q") || "";
      if (params.get("topic") in topicBySlug) topic.value = params.get("topic");
      if (params.get("decision") && (store.decisions || []).indexOf(params.get("decision")) >= 0) decision.value = params.get("decision");
      var k0 = keywords.lookup(params.get("keyword"));
      if (!keyword.value) keyword.value = k0 && k0.exact !== undefined ? store.keywords[k0.exact][0] : (params.get("keyword") || "");
      var a0 = authors.lookup(params.get("author"));
      if (!author.value) author.value = a0 && a0.exact !== undefined ? store.authors[a0.exact][0] : (params.get("author") || "");

      // a note under a filter whose text is not a name: what it selected instead, each name a button
      function note(kind, inputEl, text, selected, names, facetCounts) {
        if (!selected || selected.exact !== undefined) return;
        var line = el("p", { "class": "ps-note" });
        if (!selected.partial.length) {
          line.appendChild(document.createTextNode("No " + kind + " contains \u201c" + text + "\u201d."));
          notes.appendChild(line);
          return;
        }
        var listed = selected.partial.slice().sort(function (x, y) { return (facetCounts.get(y) || 0) - (facetCounts.get(x) || 0) || x - y; });
        line.appendChild(document.createTextNode("No " + kind + " is exactly \u201c" + text + "\u201d; showing papers with any of the " +
          listed.length + " that contain it. Pick one: "));
        listed.slice(0, 12).forEach(function (i) {
          var b = el("button", { type: "button", "class": "ps-chip" }, [names.entries[i][0] + " (" + (facetCounts.get(i) || 0) + ")"]);
          b.addEventListener("click", function () { inputEl.value = names.entries[i][0]; update(); });
          line.appendChild(b);
        });
        notes.appendChild(line);
      }

      // top values of a facet among the results, as buttons that set the filter
      function facetList(title, facetCounts, names, inputEl) {
        var ranked = Array.from(facetCounts.keys()).sort(function (x, y) { return facetCounts.get(y) - facetCounts.get(x) || x - y; });
        if (!ranked.length) return;
        var row = el("p", { "class": "ps-facet" }, [el("strong", {}, [title + ": "])]);
        ranked.slice(0, 8).forEach(function (i) {
          var b = el("button", { type: "button", "class": "ps-chip" }, [names.entries[i][0] + " (" + facetCounts.get(i) + ")"]);
          b.addEventListener("click", function () { inputEl.value = names.entries[i][0]; update(); });
          row.appendChild(b);
        });
        facets.appendChild(row);
      }

      var serial = 0, drawn = null;
      function update() {
        var mine = ++serial;
        count.setAttribute("aria-busy", "true"); // until the results for this state are all in
        var t = topic.value ? topicBySlug[topic.value] : null;
        var dv = decision.value ? store.decisions.indexOf(decision.value) : null;
        var kText = keyword.value.trim(), aText = author.value.trim();
        var kSel = keywords.lookup(kText), aSel = authors.lookup(aText);
        var kTest = keywords.test(kSel), aTest = authors.test(aSel);
        var url = new URL(location.href);
        url.search = "";
        if (q.value.trim()) url.searchParams.set("q", q.value.trim());
        if (topic.value) url.searchParams.set("topic", topic.value);
        if (kText) url.searchParams.set("keyword", kSel.exact !== undefined ? store.keywords[kSel.exact][1] : kText);
        if (aText) url.searchParams.set("author", aSel.exact !== undefined ? store.authors[aSel.exact][1] : aText);
        if (decision.value) url.searchParams.set("decision", decision.value);
        history.replaceState(null, "", url.href);

        function inTopic(p) { return t == null || p[3] === t || (p[3] != null && store.topics[p[3]][2] === t); }

        function show(result) {
          // each facet counts the papers that pass every other filter
          var shown = [], tc = new Int32Array(store.topics.length), dc = new Int32Array((store.decisions || []).length);
          counts.k = new Map(); counts.a = new Map();
          result.numbers.forEach(function (n) {
            var p = store.papers[n];
            var okT = inTopic(p), okK = !kTest || kTest(p[4]), okA = !aTest || aTest(p[2]), okD = dv == null || p[5] === dv;
            if (okK && okA && okD && p[3] != null) { tc[p[3]]++; if (store.topics[p[3]][2] !== p[3]) tc[store.topics[p[3]][2]]++; }
            if (okT && okK && okA && p[5] != null) dc[p[5]]++;
            if (okT && okA && okD) p[4].forEach(function (k) { counts.k.set(k, (counts.k.get(k) || 0) + 1); });
            if (okT && okK && okD) p[2].forEach(function (a) { counts.a.set(a, (counts.a.get(a) || 0) + 1); });
            if (okT && okK && okA && okD) shown.push(n);
          });
          topicOptions.forEach(function (o, i) { o.textContent = (store.topics[i][2] === i ? "" : "\u2003") + store.topics[i][0] + " (" + tc[i] + ")"; });
          decisionOptions.forEach(function (o, i) { o.textContent = store.decisions[i] + " (" + dc[i] + ")"; });
          refill.forEach(function (fill) { if (document.activeElement === keyword || document.activeElement === author) fill(); });
          notes.textContent = "";
          note("keyword", keyword, kText, kSel, keywords, counts.k);
          note("author", author, aText, aSel, authors, counts.a);
          facets.textContent = "";
          if (!kText) facetList("Keywords", counts.k, keywords, keyword);
          if (!aText) facetList("Authors", counts.a, authors, author);
          var filtered = t != null || kTest || aTest || dv != null;
          var head = result.exactOnly ? "A paper with this title; still loading the search index…"
            : !q.value.trim() ? papersCount(shown.length)
              : filtered ? papersCount(shown.length) + " after the filters (of " + summary(result).replace(/^./, function (c) { return c.toLowerCase(); }) + ")"
                : summary(result);
          count.textContent = head + (result.full || !q.value.trim() ? "" : " so far: still loading the abstracts…");
          if (result.full || !q.value.trim()) count.removeAttribute("aria-busy");
          results.textContent = "";
          drawn = { shown: shown, upto: 0, match: result.match || function () { return false; }, mine: mine };
          drawMore();
        }

        if (!q.value.trim()) {
          show({ numbers: store.papers.map(function (_, i) { return i; }), full: true, all: 0, parts: 0, missing: [] });
          return;
        }
        // an exact title shows at once, from the store, while the first index still loads
        var exact = eng.byTitle.get(titleKey(q.value));
        if (!eng.searchable && exact !== undefined) show({ numbers: [exact], exactOnly: true, all: 1, parts: 1, missing: [] });
        search(eng, q.value).then(function (result) {
          if (result && mine === serial) show(result);
        }).catch(function () { if (mine === serial) count.textContent = "The search index could not be loaded."; });
      }

      // the next PAGE results of the current search, with their snippets
      function drawMore() {
        var d = drawn, items = document.createDocumentFragment(), numbers = d.shown.slice(d.upto, d.upto + PAGE), targets = [];
        numbers.forEach(function (n) {
          var p = store.papers[n];
          var li = el("li", {}, [
            el("a", { href: paperHref(p[0]) }, [marked(p[1], d.match)]),
            el("br"),
            el("span", { "class": "ps-meta" }, [paperMeta(store, p)])
          ]);
          targets.push(li);
          items.appendChild(li);
        });
        results.appendChild(items);
        d.upto += numbers.length;
        var left = d.shown.length - d.upto;
        moreButton.hidden = left <= 0;
        moreButton.textContent = "Show " + Math.min(left, PAGE) + " more (" + left.toLocaleString("en") + " not shown yet)";
        if (q.value.trim()) addSnippets(eng, numbers, targets, d.match, function () { return drawn === d; });
      }
      moreButton.addEventListener("click", drawMore);

      eng.onFull.push(function () { if (q.value.trim()) update(); });
      [q, keyword, author].forEach(function (i) { i.addEventListener("input", function () { update(); }); });
      topic.addEventListener("change", function () { update(); });
      decision.addEventListener("change", function () { update(); });
      form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
      form.addEventListener("reset", function () { setTimeout(update, 0); });
      update();
    }).catch(function (error) {
      if (window.console) console.warn("papersite:", error);
      count.textContent = "The search index could not be loaded.";
    });
  }

  /* ---- Paper lists (all papers, sub-areas, keywords, authors): filter and sort in place ---- */
  function setupPaperList(controls) {
    var list = document.getElementById(controls.getAttribute("data-ps-list"));
    if (!list) return;
    var items = Array.prototype.slice.call(list.children);
    items.forEach(function (li, i) {
      li._order = i;
      var title = li.querySelector("a");  // the item's data-text holds its authors and keywords (paper_pages._item_data)
      li._text = fold(title ? title.textContent : "") + " " + (li.getAttribute("data-text") || "");
    });
    var filter = controls.querySelector("[data-ps-filter]");
    var area = controls.querySelector("[data-ps-area]"); // absent where every paper has the same area
    var decision = controls.querySelector("[data-ps-decision]");
    var sort = controls.querySelector("[data-ps-sort]");
    var shown = controls.querySelector("[data-ps-shown]");
    function apply() {
      var words = fold(filter.value).split(" ").filter(Boolean);
      var n = 0;
      items.forEach(function (li) {
        var text = li._text;
        var ok = (!area || !area.value || li.getAttribute("data-area") === area.value) &&
          (!decision || !decision.value || li.getAttribute("data-decision") === decision.value) &&
          words.every(function (w) { return text.indexOf(w) >= 0; });
        li.hidden = !ok; if (ok) n++;
      });
      var key = sort.value, sorted = items.slice();
      sorted.sort(function (a, b) {
        if (key === "title-desc") return b._order - a._order;
        if (key === "area") return a.getAttribute("data-area").localeCompare(b.getAttribute("data-area")) || a._order - b._order;
        if (key === "author") return a.getAttribute("data-first").localeCompare(b.getAttribute("data-first")) || a._order - b._order;
        return a._order - b._order;
      });
      var frag = document.createDocumentFragment();
      sorted.forEach(function (li) { frag.appendChild(li); });
      list.appendChild(frag);
      shown.textContent = papersCount(n);
    }
    filter.addEventListener("input", apply);
    if (area) area.addEventListener("change", apply);
    if (decision) decision.addEventListener("change", apply);
    sort.addEventListener("change", apply);
  }

  /* ---- copy buttons (BibTeX, RIS) ---- */
  function setupCopy() {
    // a Copy button for each citation block (render/paper_pages.py, _cite_block)
    Array.prototype.forEach.call(document.querySelectorAll(".ps-cite-item > details"), function (details) {
      var code = details.querySelector("code[id]"), summary = details.querySelector("summary");
      if (!code || !summary) return;
      var button = document.createElement("button");
      button.type = "button"; button.className = "md-button ps-copy"; button.textContent = "Copy";
      button.setAttribute("data-copy", code.id);
      button.setAttribute("aria-label", "Copy " + summary.textContent);
      details.parentNode.insertBefore(button, details.nextSibling);
    });
    document.addEventListener("click", function (e) {
      var button = e.target.closest && e.target.closest("[data-copy]");
      if (!button) return;
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      var text = source.textContent;
      function done(ok) {
        button.textContent = ok ? "Copied" : "Select and copy";
        setTimeout(function () { button.textContent = "Copy"; }, 2000);
      }
      function fallback() {
        var details = source.closest("details");
        if (details) details.open = true;  // a selection inside a closed <details> copies nothing
        var range = document.createRange(); range.selectNodeContents(source);
        var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        var ok = false; try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
        done(ok);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
      } else { fallback(); }
    });
  }

  /* ---- citation blocks: collapsed on phones, where they filled the screen ---- */
  function setupCite() {
    if (!window.matchMedia || !window.matchMedia("(max-width: 44.984375em)").matches) return;
    var blocks = document.querySelectorAll("details.ps-cite-details[open]");
    for (var i = 0; i < blocks.length; i++) blocks[i].open = false;
  }

  /* ---- "Fix this paper": the pre-filled form gets the abstract from the page's own tag ----
     The link is built without it (URL-encoded, it was 1.8 KB of every paper page); it is added
     whole while the URL stays within the attribute's bytes (corrections/form.py), else left
     out: an empty field changes nothing. */
  function setupFixLink() {
    var link = document.querySelector("a[data-ps-abstract-max]");
    var tag = document.querySelector('meta[name="citation_abstract"]');
    if (!link || !tag || !tag.content) return;
    var abstract = tag.content.split(/\s+/).filter(Boolean).join(" ");
    var url = link.href + "&abstract=" + encodeURIComponent(abstract);
    if (url.length <= Number(link.getAttribute("data-ps-abstract-max"))) link.href = url;
  }

  /* ---- the back-to-top button's arrow on the detail pages (templates/partials/top.html) ----
     The button is hidden until Material's script shows it, so its arrow is drawn here (it was
     0.1 KB of each of 48k pages at 12k papers). */
  function addTopArrow() {
    var button = document.querySelector('.md-top[data-md-component="top"]');
    if (!button || button.querySelector("svg")) return;
    var svgNS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(svgNS, "svg"), use = document.createElementNS(svgNS, "use");
    svg.setAttribute("viewBox", "0 0 24 24");
    use.setAttribute("href", asset("icons.svg") + "#arrow-up");
    svg.appendChild(use);
    button.insertBefore(document.createTextNode(" "), button.firstChild);
    button.insertBefore(svg, button.firstChild);
  }

  function start() {
    setupHeaderSearch(); setupExplore(); setupCopy(); setupCite(); setupFixLink(); addTopArrow();
    Array.prototype.forEach.call(document.querySelectorAll("[data-ps-list]"), setupPaperList);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
