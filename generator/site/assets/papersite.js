/* papersite: header search, Explore, the all-papers list and copy buttons.
 * Search runs on lunr indexes that the build serialised (lunr.Index.load is
 * fast; indexing in the browser is not), loaded only when someone starts to
 * search, each in a Web Worker so the page stays responsive: first the short
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

  function getJSON(name) {
    return fetch(asset(name)).then(function (r) {
      if (!r.ok) throw new Error(name + ": " + r.status);
      return r.json();
    });
  }

  function fold(text) {
    return (text || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\s+/g, " ").trim();
  }

  // what an exact title match compares: folded, without punctuation
  function titleKey(text) { return fold(text).replace(/[^\p{L}\p{N} ]/gu, "").replace(/ +/g, " ").trim(); }

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
  function timed(file, t) {
    if (!t || !performance.measure) return;
    var origin = performance.timeOrigin;
    try {
      performance.measure("papersite " + file + " parse", { start: t.start - origin, end: t.parsed - origin });
      performance.measure("papersite " + file + " load", { start: t.parsed - origin, end: t.loaded - origin });
    } catch (error) { /* older browsers: no measure options */ }
  }

  /* One prebuilt index, searched in a worker (or on this thread where workers
   * fail). query() keeps at most one search in flight; a query that is replaced
   * before it was sent resolves with null. */
  function Source(file) {
    var source = this;
    this.busy = false; this.next = null; this.current = null; this.serial = 0;
    var begun = performance.now();
    // the download starts at once, while the worker starts and loads lunr.js
    var download = fetch(asset(file)).then(function (r) {
      if (!r.ok) throw new Error(file + ": " + r.status);
      return r.arrayBuffer();
    }).then(function (bytes) { measure("papersite " + file + " fetch", begun); return bytes; });
    this.ready = new Promise(function (resolve, reject) {
      var worker;
      try { worker = new Worker(asset("search-worker.js")); } catch (error) { worker = null; }
      if (!worker) { source.local(download).then(resolve, reject); return; }
      source.worker = worker;
      worker.onmessage = function (event) {
        var m = event.data || {};
        if (m.type === "ready") { resolve(); timed(file, m.timing); }
        else if (m.type === "error") {
          reject(new Error(file + ": " + m.message));
          if (source.current) source.current.resolve(null);
          if (source.next) source.next.resolve(null);
          source.current = source.next = null;
        }
        else if (m.type === "hits" && source.current && source.current.id === m.id) {
          var done = source.current;
          source.current = null; source.busy = false;
          done.resolve({ refs: m.refs, scores: m.scores });
          source.pump();
        }
      };
      worker.onerror = function (event) {
        event.preventDefault();
        worker.terminate(); source.worker = null;
        if (source.current && !source.next) source.next = source.current; // ask again on this thread
        else if (source.current) source.current.resolve(null);
        source.current = null;
        source.local(fetch(asset(file)).then(function (r) { return r.arrayBuffer(); }))
          .then(function () { resolve(); source.busy = false; source.pump(); }, reject);
      };
      worker.postMessage({ type: "lunr", url: asset("lunr.js") });
      download.then(function (bytes) {
        if (source.worker) worker.postMessage({ type: "load", data: bytes }, [bytes]);
      }, reject);
    });
  }
  Source.prototype.local = function (download) {
    var source = this;
    return (window.lunr ? Promise.resolve() : loadScript(asset("lunr.js"))).then(function () {
      return window.papersiteIndex ? null : loadScript(asset("search-worker.js"));
    }).then(function () { return window.papersiteIndex.load(download); })
      .then(function (index) { source.index = index; });
  };
  Source.prototype.query = function (words) {
    var source = this;
    return new Promise(function (resolve) {
      if (source.next) source.next.resolve(null);
      source.next = { id: ++source.serial, words: words, resolve: resolve };
      source.pump();
    });
  };
  Source.prototype.pump = function () {
    if (this.busy || !this.next) return;
    var job = this.next;
    this.next = null;
    if (this.worker) {
      this.busy = true; this.current = job;
      this.worker.postMessage({ id: job.id, words: job.words });
    } else if (this.index) {
      job.resolve(window.papersiteIndex.query(this.index, job.words));
    } else {
      var source = this;
      this.next = job;
      this.ready.then(function () { source.pump(); }, function () { job.resolve(null); });
    }
  };

  /* The store (what results show; loadEngine resolves with it), the first
   * index (engine.meta), then the abstracts in the background. engine.full is
   * true once the abstracts are searched too (or could not load); the functions
   * in engine.onFull run then, to refresh what is shown. */
  function loadEngine() {
    if (!engine) {
      var meta = new Source("search-index.json");
      engine = { full: false, onFull: [], meta: meta, abstracts: null };
      var begun = performance.now();
      var docs = getJSON("search-docs.json").then(function (store) {
        measure("papersite search-docs.json fetch+parse", begun);
        return store;
      });
      // The abstracts load once the first results are shown (or a moment after the
      // first index is ready): on two cores, loading them at once slows those down.
      var started = false;
      engine.startAbstracts = function () {
        if (started) return;
        started = true;
        var abstracts = new Source("search-index-abstracts.json");
        abstracts.ready.then(function () { engine.abstracts = abstracts; }, function (error) {
          if (window.console) console.warn("papersite: abstracts are not searched:", error);
        }).then(function () {
          measure("papersite abstracts ready", begun);
          engine.full = true;
          engine.onFull.forEach(function (fn) { fn(); });
        });
      };
      meta.ready.then(function () {
        engine.searchable = true;
        measure("papersite search ready", begun);
        setTimeout(engine.startAbstracts, 400);
      }, function () { /* search() reports it */ });
      engine.ready = docs.then(function (store) {
        var byTitle = new Map();
        store.papers.forEach(function (p, n) {
          var key = titleKey(p[1]);
          if (key && !byTitle.has(key)) byTitle.set(key, n);
        });
        engine.store = store; engine.byTitle = byTitle;
        return engine;
      });
    }
    return engine.ready;
  }

  /* Ranked paper numbers for a query: the summed lunr scores of both indexes
   * (title > authors > keywords > topic > abstract, boosts set at build), and an
   * exact title always first. Resolves {numbers, full}, or null when a newer
   * query replaced this one before it ran; rejects if no index could be loaded. */
  function search(eng, text) {
    var words = queryWords(text);
    var begun = performance.now(), full = false;
    return eng.meta.ready.then(function () {
      var asks = [eng.meta.query(words)];
      if (eng.abstracts) asks.push(eng.abstracts.query(words));
      full = eng.full;
      return Promise.all(asks);
    }).then(function (found) {
      if (found.some(function (f) { return f === null; })) return null;
      measure("papersite query", begun);
      var score = new Map();
      found.forEach(function (f) {
        for (var i = 0; i < f.refs.length; i++) score.set(f.refs[i], (score.get(f.refs[i]) || 0) + f.scores[i]);
      });
      var exact = eng.byTitle.get(titleKey(text));
      if (exact !== undefined) score.set(exact, Infinity);
      var numbers = Array.from(score.keys());
      numbers.sort(function (a, b) { return score.get(b) - score.get(a) || a - b; });
      setTimeout(eng.startAbstracts, 600); // once these results are drawn
      return { numbers: numbers, full: full };
    });
  }

  function paperHref(slug) { return new URL("papers/" + slug + "/", root).href; }

  function authorLine(store, ids) {
    var names = ids.slice(0, 3).map(function (i) { return store.authors[i][0]; });
    return names.join(", ") + (ids.length > 3 ? " et al." : "");
  }

  // "Authors · Topic", leaving out whichever part a paper lacks.
  function paperMeta(store, p) {
    var parts = [authorLine(store, p[2])];
    if (p[3] != null) parts.push(store.topics[p[3]][0]);
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

  function papersCount(n) { return n + (n === 1 ? " paper" : " papers"); }

  /* ---- header search ---- */
  function setupHeaderSearch() {
    var box = document.querySelector("[data-ps-search]");
    if (!box) return;
    var input = box.querySelector("[data-ps-search-input]");
    var form = box.querySelector("[data-ps-search-form]");
    var list = box.querySelector("[data-ps-search-results]");
    var meta = box.querySelector("[data-ps-search-meta]");
    var toggle = document.getElementById("__search");
    var first = null, listening = false;
    var explore = new URL("explore/", root);

    function show(eng, text, result) {
      var found = result.numbers;
      list.textContent = "";
      first = found.length ? paperHref(eng.store.papers[found[0]][0]) : null;
      meta.textContent = result.exactOnly ? "A paper with this title (searching for more…)"
        : (found.length ? papersCount(found.length) : "No paper matches") + (result.full ? "" : " (searching the abstracts too…)");
      found.slice(0, 10).forEach(function (n) {
        var p = eng.store.papers[n];
        list.appendChild(el("li", { "class": "md-search-result__item" }, [
          el("a", { href: paperHref(p[0]), "class": "md-search-result__link", tabindex: "-1" }, [
            el("article", { "class": "md-search-result__article md-typeset" }, [
              el("h1", {}, [p[1]]),
              el("p", {}, [paperMeta(eng.store, p)])
            ])
          ])
        ]));
      });
      if (found.length > 10) {
        var more = new URL(explore); more.searchParams.set("q", text);
        list.appendChild(el("li", { "class": "md-search-result__item" }, [
          el("a", { href: more.href, "class": "md-search-result__link ps-more" }, [
            el("article", { "class": "md-search-result__article md-typeset" }, [
              el("p", {}, ["All " + found.length + " results in Explore →"])
            ])
          ])
        ]));
      }
    }

    function render() {
      var text = input.value;
      if (!text.trim()) { list.textContent = ""; first = null; meta.textContent = "Type to search titles, authors, keywords and abstracts"; return; }
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
  // null: no filter; -1: nothing matches the value
  Names.prototype.lookup = function (value) {
    if (!value) return null;
    if (this.bySlug.has(value)) return this.bySlug.get(value);
    this.fold();
    var f = fold(value);
    return this.byName.has(f) ? this.byName.get(f) : -1;
  };
  // up to `limit` names for the suggestion list: those starting with the text, then those containing it
  Names.prototype.suggest = function (text, limit) {
    var folded = this.fold(), f = fold(text), starts = [], contains = [];
    for (var i = 0; i < folded.length && starts.length < limit; i++) {
      var at = f ? folded[i].indexOf(f) : 0;
      if (at === 0) starts.push(i);
      else if (at > 0 && contains.length < limit) contains.push(i);
    }
    return starts.concat(contains).slice(0, limit);
  };

  function setupExplore() {
    var form = document.querySelector("[data-ps-explore]");
    if (!form) return;
    var q = form.elements.q, topic = form.elements.topic, keyword = form.elements.keyword, author = form.elements.author;
    var count = document.querySelector("[data-ps-explore-count]");
    var results = document.querySelector("[data-ps-explore-results]");
    var params = new URLSearchParams(location.search);
    // The query shows at once; the filters (slugs in the URL, names in the inputs) once the store is in.
    // Preloading the store holds the page's load event until its bytes are here, so a page that has
    // loaded shows its restored search (the store is what restores the filters).
    if (!q.value) q.value = params.get("q") || "";
    var preload = el("link", { rel: "preload", as: "fetch", href: asset("search-docs.json"), crossorigin: "anonymous" });
    document.head.appendChild(preload);

    loadEngine().then(function (eng) {
      var store = eng.store;
      var topicBySlug = {};
      var frag = document.createDocumentFragment();
      store.topics.forEach(function (t, i) {
        topicBySlug[t[1]] = i;
        frag.appendChild(el("option", { value: t[1] }, [(t[2] === i ? "" : "\u2003") + t[0]]));
      });
      topic.appendChild(frag);
      var keywords = new Names(store.keywords), authors = new Names(store.authors);

      // suggestions: a short list that follows what is typed, not every name at once
      function suggestions(inputEl, names, listId) {
        var datalist = document.getElementById(listId), shown = null;
        function fill() {
          var text = inputEl.value.trim();
          if (text === shown) return;
          shown = text;
          var options = document.createDocumentFragment();
          names.suggest(text, 50).forEach(function (i) { options.appendChild(el("option", { value: names.entries[i][0] })); });
          datalist.textContent = "";
          datalist.appendChild(options);
        }
        inputEl.addEventListener("focus", fill);
        inputEl.addEventListener("input", fill);
      }
      suggestions(keyword, keywords, "ps-keyword-list");
      suggestions(author, authors, "ps-author-list");

      // restore from the URL (slugs there, names in the inputs), unless the reader typed meanwhile
      if (!q.value) q.value = params.get("q") || "";
      if (params.get("topic") in topicBySlug) topic.value = params.get("topic");
      var k0 = keywords.lookup(params.get("keyword"));
      if (!keyword.value) keyword.value = k0 != null && k0 >= 0 ? store.keywords[k0][0] : (params.get("keyword") || "");
      var a0 = authors.lookup(params.get("author"));
      if (!author.value) author.value = a0 != null && a0 >= 0 ? store.authors[a0][0] : (params.get("author") || "");

      var serial = 0;
      function update() {
        var mine = ++serial;
        var t = topic.value ? topicBySlug[topic.value] : null;
        var k = keywords.lookup(keyword.value.trim());
        var a = authors.lookup(author.value.trim());
        var url = new URL(location.href);
        url.search = "";
        if (q.value.trim()) url.searchParams.set("q", q.value.trim());
        if (topic.value) url.searchParams.set("topic", topic.value);
        if (keyword.value.trim()) url.searchParams.set("keyword", k != null && k >= 0 ? store.keywords[k][1] : keyword.value.trim());
        if (author.value.trim()) url.searchParams.set("author", a != null && a >= 0 ? store.authors[a][1] : author.value.trim());
        history.replaceState(null, "", url.href);

        function show(result) {
          var shown = result.numbers.filter(function (n) {
            var p = store.papers[n];
            if (t != null && !(p[3] === t || (p[3] != null && store.topics[p[3]][2] === t))) return false;
            if (k != null && p[4].indexOf(k) < 0) return false;
            if (a != null && p[2].indexOf(a) < 0) return false;
            return true;
          });
          count.textContent = result.exactOnly ? "A paper with this title; still loading the search index…"
            : papersCount(shown.length) + (shown.length > 200 ? " (first 200 shown)" : "") +
              (result.full ? "" : " so far: still loading the abstracts…");
          var items = document.createDocumentFragment();
          shown.slice(0, 200).forEach(function (n) {
            var p = store.papers[n];
            items.appendChild(el("li", {}, [
              el("a", { href: paperHref(p[0]) }, [p[1]]),
              el("br"),
              el("span", { "class": "ps-meta" }, [paperMeta(store, p)])
            ]));
          });
          results.textContent = "";
          results.appendChild(items);
        }

        if (!q.value.trim()) {
          show({ numbers: store.papers.map(function (_, i) { return i; }), full: true });
          return;
        }
        // an exact title shows at once, from the store, while the first index still loads
        var exact = eng.byTitle.get(titleKey(q.value));
        if (!eng.searchable && exact !== undefined) show({ numbers: [exact], exactOnly: true });
        search(eng, q.value).then(function (result) {
          if (result && mine === serial) show(result);
        }).catch(function () { if (mine === serial) count.textContent = "The search index could not be loaded."; });
      }
      eng.onFull.push(function () { if (q.value.trim()) update(); });
      [q, keyword, author].forEach(function (i) { i.addEventListener("input", function () { update(); }); });
      topic.addEventListener("change", function () { update(); });
      form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
      form.addEventListener("reset", function () { setTimeout(update, 0); });
      update();
    }).catch(function () { count.textContent = "The search index could not be loaded."; });
  }

  /* ---- All papers: filter and sort in place ---- */
  function setupPaperList() {
    var controls = document.querySelector("[data-ps-list]");
    if (!controls) return;
    var list = document.getElementById(controls.getAttribute("data-ps-list"));
    var items = Array.prototype.slice.call(list.children);
    items.forEach(function (li, i) { li._order = i; });
    var filter = controls.querySelector("[data-ps-filter]");
    var area = controls.querySelector("[data-ps-area]");
    var decision = controls.querySelector("[data-ps-decision]");
    var sort = controls.querySelector("[data-ps-sort]");
    var shown = controls.querySelector("[data-ps-shown]");
    function apply() {
      var words = fold(filter.value).split(" ").filter(Boolean);
      var n = 0;
      items.forEach(function (li) {
        var text = li.getAttribute("data-text");
        var ok = (!area.value || li.getAttribute("data-area") === area.value) &&
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
      shown.textContent = n + (n === 1 ? " paper" : " papers");
    }
    filter.addEventListener("input", apply);
    area.addEventListener("change", apply);
    if (decision) decision.addEventListener("change", apply);
    sort.addEventListener("change", apply);
  }

  /* ---- copy buttons (BibTeX, RIS) ---- */
  function setupCopy() {
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

  function start() { setupHeaderSearch(); setupExplore(); setupPaperList(); setupCopy(); setupCite(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
