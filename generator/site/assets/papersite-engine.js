/* papersite engine: the prebuilt search indexes and the store, loaded only when someone starts to
 * search. Each index (search/index-*.json.gz: titles, authors, keywords, topics; then
 * search/abstracts-*.json.gz) is searched in a Web Worker (search-worker.js) so the page stays
 * responsive; the store (search-docs.json.gz) is what results show, read through its schema
 * (papersite-core.js Schema). ps.engine.load() resolves with the engine:
 *   {store, schema, byTitle, meta, abstracts, full, onFull, searchable, startAbstracts}. */
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
        source.local().then(function () { resolve(); source.busy = false; source.pump(); }, reject);
      };
      worker.postMessage({ type: "scripts", urls: [ps.asset("lunr.js"), ps.asset("papersite-core.js")] });
      worker.postMessage({ type: "open", shards: shards, texts: texts, chunks: chunks });
    });
  }
  Source.prototype.local = function () {
    var source = this;
    return helpers().then(function () { source.index = window.papersiteIndex.open(source.shards, source.texts, source.chunks); });
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

  var afterStore = []; // functions of the engine to run once the store is in (papersite-header.js: page names)

  /* The store (what results show; load() resolves with the engine once it is in), the first
   * index (engine.meta), then the abstracts and their texts in the background.
   * engine.full is true once the abstracts are searched too (or could not
   * load); the functions in engine.onFull run then, to refresh what is shown. */
  function load() {
    if (!engine) {
      var meta = firstIndex();
      engine = { full: false, onFull: [], meta: meta, abstracts: null };
      var begun = performance.now();
      // The store is parsed once the worker has started (or failed to): parsing 3.6 MB (11,672
      // papers) holds this thread a few hundred ms, and a worker cannot start while it is held,
      // so the first shards would only begin to load after the store.
      var docs = Promise.all([fetch(ps.asset("search-docs.json.gz")).then(function (r) {
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
      engine.ready = Promise.all([docs, helped]).then(function (got) {
        var store = got[0], schema = new core.Schema(store.schema), title = schema.col.title, byTitle = new Map();
        store.papers.forEach(function (p, n) {
          var key = core.titleKey(p[title]);
          if (key && !byTitle.has(key)) byTitle.set(key, n);
        });
        engine.store = store; engine.schema = schema; engine.byTitle = byTitle;
        meta.schema = schema.forWorker();
        afterStore.forEach(function (fn) { fn(engine); });
        return engine;
      });
    }
    return engine.ready;
  }

  // the first index starts loading the shards of a query's words while the store still loads
  function warmUp(text) {
    load();
    engine.meta.warm(core.queryWords(text));
  }

  ps.engine = { load: load, warmUp: warmUp, firstIndex: firstIndex, afterStore: afterStore, measure: measure };
})(window.papersite);
