/* papersite engine: the prebuilt search indexes and the store, loaded only when someone starts to
 * search. Each index (search/index-*.json.gz: titles, authors, keywords, topics; then
 * search/abstracts-*.json.gz) is searched in a Web Worker (search-worker.js) so the page stays
 * responsive. The store is what results show, read through its schema (papersite-core.js Schema):
 * a query fetches the pieces of it that it needs (generator/site/search.py says which: the head,
 * the rows of the papers shown, a shard of each table it looks a key up in); Explore, the map and
 * a "quoted phrase" load it whole (search-docs.json.gz: whole()). ps.engine.load() resolves with
 * the engine:
 *   {head, schema, meta, abstracts, full, onFull, searchable, startAbstracts,
 *    need(numbers), likelyRows(text, words, limit), rowAsked(n), paper(n), authorName(i), exactTitle(text), typed(words),
 *    titles, typedWords, names (the tables),
 *    whole(), store, byTitle, titleRank (each paper's place in title order)}. */
(function (ps) {
  "use strict";

  var core = ps.core, engine = null;

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
   * answer (a shard failed to load) with {type: "error"}. Each question carries
   * what the worker needs of the schema (this.schema: shard keys, field letters). */
  function Source(name, textFile) {
    var source = this, shards = ps.asset("search/" + name + "-"), texts = textFile ? ps.asset(textFile) : null;
    var chunks = textFile ? ps.asset("search/texts-") : null; // the texts in chunks (search.py TEXT_CHUNK_FILE)
    this.name = name; this.shards = shards; this.texts = texts; this.chunks = chunks; this.schema = null;
    this.busy = false; this.next = null; this.current = null; this.serial = 0;
    this.ready = new Promise(function (resolve, reject) {
      var worker;
      try { worker = new Worker(ps.asset("search-worker.js")); } catch (error) { worker = null; }
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
        source.local().then(function () { resolve(); source.busy = false; source.pump(); }, function (error) {
          // search-worker.js (or lunr.js) did not load here either: the question waiting is answered
          // (else its query says "searching…" for ever), and so is every later one (pump)
          source.busy = false;
          if (source.next) source.next.resolve({ type: "error" });
          source.next = null;
          reject(error);
        });
      };
      worker.postMessage({ type: "scripts", urls: [ps.asset("lunr.js"), ps.asset("papersite-core.js")] });
      worker.postMessage({ type: "open", shards: shards, texts: texts, chunks: chunks });
    });
  }
  Source.prototype.local = function () {
    var source = this;
    return helpers().then(function () { source.index = window.papersiteIndex.open(source.shards, source.texts, source.chunks); });
  };
  // a query is being typed: the worker loads the shards of its words meanwhile (no answer); prefix:
  // whether its last word counts as a prefix there (search-worker.js warm)
  Source.prototype.warm = function (words, prefix) {
    if (this.worker) this.worker.postMessage({ type: "warm", words: words, prefix: prefix });
    else if (this.index) window.papersiteIndex.warm(this.index, words, prefix);
  };
  // message: {type: "query" | "near" | "texts", ...} (see search-worker.js); resolves with the answer, or null
  Source.prototype.ask = function (message) {
    var source = this;
    return new Promise(function (resolve) {
      if (source.next) source.next.resolve(null);
      message.id = ++source.serial;
      message.schema = source.schema;
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
      helping = (window.lunr ? Promise.resolve() : ps.loadScript(ps.asset("lunr.js"))).then(function () {
        return window.papersiteIndex ? null : ps.loadScript(ps.asset("search-worker.js"));
      });
    }
    return helping;
  }

  // The first index's worker (lunr.js, 100 KB, no index yet), started as soon as this code loads:
  // when the reader focuses the search box, before the first word is typed (a worker takes a few
  // hundred ms to start on a busy two-core machine).
  var firstSource = null;
  function firstIndex() { return firstSource || (firstSource = new Source("index")); }

  // a gzipped JSON file of the search (search.py stores them so)
  function getJSON(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": " + r.status);
      return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).json();
    });
  }

  // a promise kept in cache[key] unless it fails (asked again, it is fetched again)
  function kept(cache, key, make) {
    if (!cache[key]) {
      cache[key] = make().catch(function (error) { delete cache[key]; throw error; });
    }
    return cache[key];
  }

  /* One of the store's tables (search/<name>-<n>.json.gz: rows whose first item is their key, in
   * shards of consecutive keys with a manifest, search_index.py keyed_shards), each shard fetched once. */
  function Table(name) { this.url = ps.asset("search/" + name + "-"); this.cache = {}; }
  Table.prototype.starts = function () {
    var table = this;
    return kept(this.cache, "shards", function () {
      return getJSON(table.url + "shards.json.gz").then(function (m) { table.known = true; return m.starts; });
    });
  };
  Table.prototype.shard = function (n) {
    var url = this.url;
    return kept(this.cache, n, function () { return getJSON(url + n + ".json.gz").then(function (s) { return s.rows; }); });
  };
  // a promise of the rows whose key is key
  Table.prototype.rows = function (key) {
    var table = this;
    return this.starts().then(function (starts) { return table.shard(core.shardOf(starts, key)); }).then(function (rows) {
      return rows.filter(function (row) { return row[0] === key; });
    });
  };
  // a promise of the rows whose key begins with prefix
  Table.prototype.rowsBeginning = function (prefix) {
    var table = this;
    return this.starts().then(function (starts) {
      return Promise.all(core.shardsOfPrefix(starts, prefix).map(function (n) { return table.shard(n); }));
    }).then(function (shards) {
      var found = [];
      shards.forEach(function (rows) { rows.forEach(function (row) { if (row[0].lastIndexOf(prefix, 0) === 0) found.push(row); }); });
      return found;
    });
  };

  // ascending numbers written as gaps (the first from -1), as search.py _gaps writes them
  function ungapped(row, from) {
    var numbers = [], n = -1;
    for (var i = from; i < row.length; i++) numbers.push(n += row[i]);
    return numbers;
  }

  // the papers in the most of these sets, whole groups of one count from the highest, at most limit of them
  function mostWords(sets, limit) {
    var counts = new Map(), groups = [], picked = [];
    sets.forEach(function (set) { set.forEach(function (n) { counts.set(n, (counts.get(n) || 0) + 1); }); });
    counts.forEach(function (count, n) { (groups[count] = groups[count] || []).push(n); });
    for (var count = groups.length - 1; count >= 1; count--) {
      if (!groups[count]) continue;
      if (picked.length + groups[count].length > limit) break;
      picked = picked.concat(groups[count]);
    }
    return picked;
  }

  /* What the engine reads the store through: a paper's row and an author's name from the store
   * when it is whole, else from the rows files fetched for the papers shown (need). */
  function storeReaders(eng) {
    var rows = new Map(), authors = new Map(), chunks = {}, titles = eng.titles = new Table("titles");
    var typedWords = eng.typedWords = new Table("typed");
    eng.names = new Table("names"); // papersite-header.js: the author, keyword and topic pages a query's words begin
    // a promise that paper(n) can read these papers' rows
    eng.need = function (numbers) {
      if (eng.store) return Promise.resolve();
      var size = eng.schema.rowChunk, wanted = {};
      numbers.forEach(function (n) { wanted[Math.floor(n / size)] = true; });
      return Promise.all(Object.keys(wanted).map(function (c) {
        return kept(chunks, c, function () {
          return getJSON(ps.asset("search/rows-" + c + ".json.gz")).then(function (chunk) {
            chunk.papers.forEach(function (row, i) { rows.set(c * size + i, row); });
            chunk.authors.forEach(function (a) { authors.set(a[0], a[1]); });
          });
        });
      }));
    };
    // whether paper n's row is in or asked for (need or likelyRows asked for its rows file)
    eng.rowAsked = function (n) { return !!eng.store || !!chunks[Math.floor(n / eng.schema.rowChunk)]; };
    eng.paper = function (n) { return eng.store ? eng.store.papers[n] : rows.get(n); };
    eng.authorName = function (i) { return eng.store ? eng.store.authors[i][eng.schema.nameCol.name] : authors.get(i); };
    // a promise of the number of the paper with this exact title (core.titleKey), or undefined
    eng.exactTitle = function (text) {
      var key = core.titleKey(text);
      if (!key) return Promise.resolve(undefined);
      if (eng.byTitle) return Promise.resolve(eng.byTitle.get(key));
      return titles.rows(key).then(function (found) { return found.length ? found[0][1] : undefined; });
    };
    // a promise, for each word, of the set of papers whose title, authors or keywords hold it as written
    // (each word's set made once for the ranking and likelyRows of one query; only the last query's sets
    // are kept: a common word's holds most papers, tens of thousands at 100k)
    var holders = {};
    eng.typed = function (words) {
      var last = holders;
      holders = {};
      words.forEach(function (word) { if (last[word]) holders[word] = last[word]; });
      return Promise.all(words.map(function (word) {
        return kept(holders, word, function () {
          return typedWords.rows(word).then(function (found) { return new Set(found.length ? ungapped(found[0], 1) : []); });
        });
      }));
    };
    /* A promise that the rows of the papers a query will likely show are in (or on their way), asked
     * beside the indexes so that its results need not wait for a round trip after their answer: the
     * paper with its exact title, then the papers holding the most of its words as typed (the typed
     * table, which comes before the indexes answer), whole groups of one count, the highest first,
     * while they stay within `limit` papers. One common word names thousands of papers: none then. */
    eng.likelyRows = function (text, words, limit) {
      if (eng.store) return Promise.resolve();
      return Promise.all([eng.exactTitle(text), eng.typed(words)]).then(function (got) {
        var picked = got[0] === undefined ? [] : [got[0]];
        return eng.need(picked.concat(mostWords(got[1], limit - picked.length)));
      });
    };
    // a promise of the engine with the store whole (search-docs.json.gz): Explore, the map, phrases
    var whole = null;
    eng.whole = function () {
      if (!whole) {
        var begun = performance.now();
        whole = getJSON(ps.asset("search-docs.json.gz")).then(function (store) {
          var title = eng.schema.col.title, byTitle = new Map(), titleRank = new Int32Array(store.papers.length);
          store.papers.forEach(function (p, n) {
            var key = core.titleKey(p[title]);
            if (key && !byTitle.has(key)) byTitle.set(key, n);
          });
          // papers are numbered in slug order (search.py papers_in_slug_order); each one's place in title order
          store.title_order.forEach(function (n, place) { titleRank[n] = place; });
          eng.store = store; eng.byTitle = byTitle; eng.titleRank = titleRank;
          measure("papersite search-docs.json.gz fetch+parse", begun);
          return eng;
        }, function (error) { whole = null; throw error; });
      }
      return whole;
    };
  }

  /* The store's head (its schema, topics, decisions; load() resolves with the engine once it is
   * in), the first index (engine.meta), then the abstracts and their texts in the background.
   * engine.full is true once the abstracts are searched too (or could not
   * load); the functions in engine.onFull run then, to refresh what is shown. */
  function load() {
    if (!engine) {
      var meta = firstIndex();
      engine = { full: false, onFull: [], meta: meta, abstracts: null, store: null, byTitle: null, titleRank: null };
      storeReaders(engine);
      var begun = performance.now();
      // what every query reads first, asked while the reader is still to type (the box was focused):
      // the manifests of the first index and of the tables (a few KB, fetched by the first query anyway)
      meta.warm([]);
      [engine.titles, engine.typedWords, engine.names].forEach(function (table) { table.starts().catch(function () { /* asked again */ }); });
      var head = getJSON(ps.asset("search/head.json.gz")).then(function (got) {
        measure("papersite head fetch+parse", begun);
        return got;
      });
      // The abstracts load once the first results are shown: on two cores, loading
      // them at once slows those down.
      var started = false;
      engine.startAbstracts = function () {
        if (started) return;
        started = true;
        var abstracts = new Source("abstracts", "search-abstracts.json.gz");
        abstracts.schema = meta.schema;
        abstracts.ready.then(function () { engine.abstracts = abstracts; }, function (error) {
          if (window.console) console.warn("papersite: abstracts are not searched:", error);
        }).then(function () {
          measure("papersite abstracts ready", begun);
          engine.full = true;
          engine.onFull.forEach(function (fn) { fn(); });
        });
      };
      var helped = helpers().catch(function () { /* highlighting falls back to plain prefixes */ });
      engine.ready = Promise.all([head, helped]).then(function (got) {
        engine.head = got[0];
        engine.schema = new core.Schema(engine.head.schema);
        meta.schema = engine.schema.forWorker();
        return engine;
      });
    }
    return engine.ready;
  }

  /* The shards of a query's words start loading as it is typed, before the question: the first
   * index's while the store still loads, and the abstracts' once they are searched (their last
   * word a prefix only as long as papersite-ranking.js asks it so). Each shard is fetched once,
   * so a word typed key by key costs no more than the query's own shards and its prefixes'. A text
   * ending in a space has no word being typed: its last word is warmed as a word, not a prefix. */
  function warmUp(text, whole) {
    load();
    var words = core.queryWords(text), last = words.length ? words[words.length - 1] : "";
    var typing = !/\s$/.test(text);
    function warm() {
      engine.meta.warm(words, typing);
      if (engine.abstracts) engine.abstracts.warm(words, typing && ps.ranking.abstractPrefix(last));
    }
    // A text that came whole (pasted) may be a title, shown as soon as its titles shard and row are in: that
    // shard is asked before the index shards, which would otherwise take every connection a host allows
    // (six over HTTP/1.1) first. Once the titles' manifest is in, the order costs the index nothing.
    if (whole && engine.titles.known) {
      engine.exactTitle(text).catch(function () { /* the index answers anyway */ });
      engine.titles.starts().then(warm, warm);  // after exactTitle's own step on the same promise
    } else {
      warm();
    }
  }

  ps.engine = { load: load, warmUp: warmUp, firstIndex: firstIndex, measure: measure };
})(window.papersite);
