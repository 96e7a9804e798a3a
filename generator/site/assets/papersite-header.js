/* papersite header search: the search box in every page's header. As the reader types, it
 * shows the author, keyword and topic pages whose names hold the query, then the first ten
 * papers (papersite-ranking.js), and links to Explore for the rest; Enter opens the first.
 * Loaded with every page to fill the box; the search code (ps.searchCode: core, engine, ranking,
 * results) only once the box is focused or opened. */
(function (ps) {
  "use strict";

  var el = ps.el, papersCount = ps.papersCount;
  var core, results, ranking, marked, paperHref, paperMeta; // the search code's, once loaded (engine)

  /* The engine (papersite-engine.js load()), the search code loaded first where it is not yet;
   * text: a query being typed, whose shards the first index starts to load meanwhile. */
  function engine(text) {
    return ps.searchCode().then(function () {
      if (!core) {
        core = ps.core; results = ps.results; ranking = ps.ranking;
        marked = results.marked; paperHref = results.paperHref; paperMeta = results.paperMeta;
        // the names header search offers as pages, folded while the reader has not typed yet
        ps.engine.afterStore.push(function (eng) { (window.requestIdleCallback || setTimeout)(function () { pageIndex(eng); }); });
      }
      if (text) ps.engine.warmUp(text);
      return ps.engine.load();
    });
  }

  /* ---- author, keyword and topic pages as results ---- */

  function pageIndex(eng) {
    var store = eng.store, col = eng.schema.col, T = eng.schema.topicCol, N = eng.schema.nameCol;
    if (store.pageIndex) return store.pageIndex;
    var begun = performance.now();
    var counts = { a: new Int32Array(store.authors.length), k: new Int32Array(store.keywords.length), t: new Int32Array(store.topics.length) };
    store.papers.forEach(function (p) {
      var topic = p[col.topic];
      p[col.authors].forEach(function (a) { counts.a[a]++; });
      p[col.keywords].forEach(function (k) { counts.k[k]++; });
      if (topic != null) { counts.t[topic]++; if (store.topics[topic][T.area] !== topic) counts.t[store.topics[topic][T.area]]++; }
    });
    var entries = [];
    // (each page's URL is made when it is shown: 37,000 new URL() calls took 150 ms at 11,672 papers)
    function add(kind, list, urlKind, count, name, slug) {
      list.forEach(function (e, i) {
        entries.push({ kind: kind, name: e[name], path: eng.schema.url(urlKind, e[slug]), count: count[i], folded: " " + core.foldedWords(e[name]) });
      });
    }
    add("Author", store.authors, "author", counts.a, N.name, N.slug);
    add("Keyword", store.keywords, "keyword", counts.k, N.name, N.slug);
    add("Topic", store.topics, "topic", counts.t, T.label, T.path);
    ps.engine.measure("papersite page index", begun);
    return (store.pageIndex = entries);
  }

  /* Up to `limit` pages whose name holds every word of the query (each at the
   * start of a word of the name): a name equal to the query first, then by papers. */
  function matchingPages(eng, text, limit) {
    var words = core.foldedWords(text).trim();
    if (words.length < 3) return [];
    var needles = words.split(" ").map(function (w) { return " " + w; }), whole = " " + words;
    var found = [];
    pageIndex(eng).forEach(function (e) {
      for (var i = 0; i < needles.length; i++) if (e.folded.indexOf(needles[i]) < 0) return;
      found.push({ entry: e, exact: e.folded.trim() === words || e.folded.slice(e.folded.lastIndexOf(" ")) === whole });
    });
    found.sort(function (a, b) { return b.exact - a.exact || b.entry.count - a.entry.count || a.entry.name.localeCompare(b.entry.name); });
    return found.slice(0, limit).map(function (f) {
      if (!f.entry.href) f.entry.href = ps.href(f.entry.path);
      return f.entry;
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
    // Explore with this query (its URL is in the store's schema)
    function exploreHref(eng, text) {
      var url = new URL(ps.href(eng.schema.url("explore")));
      url.searchParams.set("q", text);
      return url.href;
    }

    function item(href, heading, lines, extraClass) {
      var article = el("article", { "class": "md-search-result__article md-typeset" }, [el("h1", {}, [heading])].concat(lines));
      return el("li", { "class": "md-search-result__item" + (extraClass ? " " + extraClass : "") }, [
        el("a", { href: href, "class": "md-search-result__link", tabindex: "-1" }, [article])
      ]);
    }

    function show(eng, text, result) {
      var found = result.numbers, store = eng.store;
      var match = result.match || ranking.wordMatcher(ranking.parseQuery(text)), col = eng.schema.col;
      list.textContent = "";
      list.setAttribute("data-ps-query", text);
      list.setAttribute("data-ps-state", result.exactOnly || !result.full ? "partial" : "full");
      var pages = result.exactOnly ? [] : matchingPages(eng, text, 3);
      first = pages.length && pages[0].exact ? pages[0].href : (found.length ? paperHref(eng, store.papers[found[0]]) : null);
      meta.textContent = result.exactOnly ? "A paper with this title (searching for more…)"
        : results.summary(result) + (result.full ? "" : " (searching the abstracts too…)");
      pages.forEach(function (page) {
        list.appendChild(item(page.href, marked(page.name, match), [
          el("p", { "class": "ps-kind" }, [page.kind + " · " + papersCount(page.count)])
        ], "ps-page-result"));
      });
      var shownNumbers = found.slice(0, 10), articles = [];
      shownNumbers.forEach(function (n) {
        var p = store.papers[n];
        var li = item(paperHref(eng, p), marked(p[col.title], match), [el("p", {}, [paperMeta(eng, p)])]);
        articles.push(li.querySelector("article"));
        list.appendChild(li);
      });
      if (found.length > 10) {
        list.appendChild(el("li", { "class": "md-search-result__item" }, [
          el("a", { href: exploreHref(eng, text), "class": "md-search-result__link ps-more" }, [
            el("article", { "class": "md-search-result__article md-typeset" }, [
              el("p", {}, ["All " + found.length.toLocaleString("en") + " results in Explore →"])
            ])
          ])
        ]));
      }
      if (!result.exactOnly) results.addSnippets(eng, shownNumbers, articles, match, function () { return input.value === text; });
    }

    function render() {
      var text = input.value;
      if (!text.trim()) {
        list.textContent = ""; first = null; list.removeAttribute("data-ps-query");
        meta.textContent = "Type to search titles, authors, keywords and abstracts"; return;
      }
      engine(text).then(function (eng) {
        if (!listening) { listening = true; eng.onFull.push(function () { if (input.value.trim()) render(); }); }
        if (input.value !== text) return null;
        // an exact title shows at once, from the store, while the first index still loads
        var exact = eng.byTitle.get(core.titleKey(text));
        if (!eng.searchable && exact !== undefined) show(eng, text, { numbers: [exact], exactOnly: true });
        return ranking.search(eng, text).then(function (result) {
          if (result && input.value === text) show(eng, text, result);
        });
      }).catch(function () { meta.textContent = "The search index could not be loaded"; });
    }

    input.addEventListener("focus", function () {
      // Material shows the results panel only while its #__search toggle is on
      if (toggle && !toggle.checked) toggle.checked = true;
      engine().catch(function () { /* render() says so */ });
    });
    input.addEventListener("input", render);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      if (first) { location.href = first; return; }
      var text = input.value;
      engine().then(function (eng) { location.href = exploreHref(eng, text); });
    });
    if (toggle) {
      toggle.addEventListener("change", function () {
        if (toggle.checked) { engine().catch(function () { /* render() says so */ }); setTimeout(function () { input.focus(); }, 50); }
      });
    }
    document.addEventListener("keydown", function (e) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test((e.target && e.target.tagName) || "") || (e.target && e.target.isContentEditable);
      if (!typing && (e.key === "/" || e.key === "s" || e.key === "f") && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        if (toggle) toggle.checked = true;
        engine().catch(function () { /* render() says so */ }); input.focus();
      } else if (e.key === "Escape" && toggle && toggle.checked) {
        toggle.checked = false; input.blur();
      }
    });
  }

  ps.ready(setupHeaderSearch);
})(window.papersite);
