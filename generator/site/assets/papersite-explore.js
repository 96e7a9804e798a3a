/* papersite Explore: the query, the filters (topic, keyword, author, decision, and venue where
 * papers have more than one) and the sort live in the URL; results are drawn a hundred at a time
 * with facet counts that follow the other filters, and download as a list (papersite-saved.js). */
(function (ps) {
  "use strict";

  var core = ps.core, fold = core.fold, el = ps.el, papersCount = ps.papersCount, view = ps.results;

  /* Names (keywords or authors) looked up by slug or by folded name; the folded
   * names are computed on first use (tens of thousands of authors at scale). */
  function Names(entries, at) {
    this.entries = entries; this.bySlug = new Map(); this.folded = null;
    this.at = at; // the schema's nameCol: where a row has its name and its slug
    var bySlug = this.bySlug;
    entries.forEach(function (e, i) { bySlug.set(e[at.slug], i); });
  }
  Names.prototype.fold = function () {
    if (!this.folded) {
      var at = this.at;
      this.folded = this.entries.map(function (e) { return fold(e[at.name]); });
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
  Names.prototype.name = function (i) { return this.entries[i][this.at.name]; };
  Names.prototype.slug = function (i) { return this.entries[i][this.at.slug]; };
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
    var decision = form.elements.decision, venue = form.elements.venue, sort = form.elements.sort;
    var exportBox = document.querySelector("[data-ps-export]"), updateExport = null, shownSlugs = [];
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
    var preload = el("link", { rel: "preload", as: "fetch", href: ps.asset("search-docs.json.gz"), crossorigin: "anonymous" });
    document.head.appendChild(preload);
    if (q.value) ps.engine.warmUp(q.value);

    // Explore lists and filters every paper: the store whole
    ps.engine.load().then(function (eng) { return eng.whole(); }).then(function (eng) {
      var store = eng.store, col = eng.schema.col, T = eng.schema.topicCol;
      var topicBySlug = {}, topicOptions = [];
      var frag = document.createDocumentFragment();
      store.topics.forEach(function (t, i) {
        topicBySlug[t[T.path]] = i;
        var option = el("option", { value: t[T.path] }, [(t[T.area] === i ? "" : "\u2003") + t[T.label]]);
        topicOptions.push(option);
        frag.appendChild(option);
      });
      topic.appendChild(frag);
      // the decision filter's choices come with the page (search.py), in the order the decision sort
      // follows; their values are the store's decisions, and one stands for papers without a decision
      var decisionOptions = Array.prototype.filter.call(decision.options, function (o) { return o.value; });
      var decisionRank = new Map(), noDecision = null;
      decisionOptions.forEach(function (o, rank) {
        o._label = o.textContent;
        if (o.hasAttribute("data-ps-none")) { noDecision = o; return; }
        o._number = (store.decisions || []).indexOf(o.value);
        decisionRank.set(o._number, rank);
      });
      if (!decisionOptions.length) decision.closest(".ps-explore-row").hidden = true;
      // a venue filter only where papers have more than one venue (the project's own is every paper's)
      var venues = store.venues || [], venueOptions = [];
      if (venues.length > 1) {
        venues.forEach(function (v) {
          var option = el("option", { value: v }, [v]);
          venueOptions.push(option);
          venue.appendChild(option);
        });
        venue.closest(".ps-explore-row").hidden = false;
      }
      var keywords = new Names(store.keywords, eng.schema.nameCol), authors = new Names(store.authors, eng.schema.nameCol);
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
            options.appendChild(el("option", { value: names.name(i), label: papersCount(counts[facet].get(i)) }));
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
      var wanted = params.get("decision");
      if (wanted && decisionOptions.some(function (o) { return o.value === wanted; })) decision.value = wanted;
      var sortWanted = params.get("sort");
      if (sortWanted && Array.prototype.some.call(sort.options, function (o) { return o.value === sortWanted; })) sort.value = sortWanted;
      if (params.get("venue") && venues.length > 1 && venues.indexOf(params.get("venue")) >= 0) venue.value = params.get("venue");
      var k0 = keywords.lookup(params.get("keyword"));
      if (!keyword.value) keyword.value = k0 && k0.exact !== undefined ? keywords.name(k0.exact) : (params.get("keyword") || "");
      var a0 = authors.lookup(params.get("author"));
      if (!author.value) author.value = a0 && a0.exact !== undefined ? authors.name(a0.exact) : (params.get("author") || "");

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
          var b = el("button", { type: "button", "class": "ps-chip" }, [names.name(i) + " (" + (facetCounts.get(i) || 0) + ")"]);
          b.addEventListener("click", function () { inputEl.value = names.name(i); update(); });
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
          var b = el("button", { type: "button", "class": "ps-chip" }, [names.name(i) + " (" + facetCounts.get(i) + ")"]);
          b.addEventListener("click", function () { inputEl.value = names.name(i); update(); });
          row.appendChild(b);
        });
        facets.appendChild(row);
      }

      var serial = 0, drawn = null;
      function update() {
        var mine = ++serial;
        count.setAttribute("aria-busy", "true"); // until the results for this state are all in
        var t = topic.value ? topicBySlug[topic.value] : null;
        var dOption = decision.selectedIndex > 0 ? decision.options[decision.selectedIndex] : null;
        var dv = !dOption ? null : dOption === noDecision ? -1 : dOption._number; // -1: papers without a decision
        var vv = venue.value ? venues.indexOf(venue.value) : null;
        var kText = keyword.value.trim(), aText = author.value.trim();
        var kSel = keywords.lookup(kText), aSel = authors.lookup(aText);
        var kTest = keywords.test(kSel), aTest = authors.test(aSel);
        var url = new URL(location.href);
        url.search = "";
        if (q.value.trim()) url.searchParams.set("q", q.value.trim());
        if (topic.value) url.searchParams.set("topic", topic.value);
        if (kText) url.searchParams.set("keyword", kSel.exact !== undefined ? keywords.slug(kSel.exact) : kText);
        if (aText) url.searchParams.set("author", aSel.exact !== undefined ? authors.slug(aSel.exact) : aText);
        if (decision.value) url.searchParams.set("decision", decision.value);
        if (venue.value) url.searchParams.set("venue", venue.value);
        if (sort.value) url.searchParams.set("sort", sort.value);
        history.replaceState(null, "", url.href);

        function inTopic(p) { var pt = p[col.topic]; return t == null || pt === t || (pt != null && store.topics[pt][T.area] === t); }

        function show(result) {
          // each facet counts the papers that pass every other filter
          var shown = [], tc = new Int32Array(store.topics.length), dc = new Int32Array((store.decisions || []).length), dn = 0;
          var vc = new Int32Array(venues.length);
          counts.k = new Map(); counts.a = new Map();
          result.numbers.forEach(function (n) {
            var p = store.papers[n], pt = p[col.topic], pk = p[col.keywords], pa = p[col.authors], pd = p[col.decision], pv = p[col.venue];
            var okT = inTopic(p), okK = !kTest || kTest(pk), okA = !aTest || aTest(pa), okD = dv == null || (dv === -1 ? pd == null : pd === dv);
            var okV = vv == null || pv === vv, okTV = okT && okV;
            if (okK && okA && okD && okV && pt != null) { tc[pt]++; if (store.topics[pt][T.area] !== pt) tc[store.topics[pt][T.area]]++; }
            if (okTV && okK && okA) { if (pd != null) dc[pd]++; else dn++; }
            if (okT && okK && okA && okD && pv != null) vc[pv]++;
            if (okTV && okA && okD) pk.forEach(function (k) { counts.k.set(k, (counts.k.get(k) || 0) + 1); });
            if (okTV && okK && okD) pa.forEach(function (a) { counts.a.set(a, (counts.a.get(a) || 0) + 1); });
            if (okTV && okK && okA && okD) shown.push(n);
          });
          topicOptions.forEach(function (o, i) { o.textContent = (store.topics[i][T.area] === i ? "" : "\u2003") + store.topics[i][T.label] + " (" + tc[i] + ")"; });
          decisionOptions.forEach(function (o) { o.textContent = o._label + " (" + (o === noDecision ? dn : dc[o._number] || 0) + ")"; });
          // the decision sort keeps the relevance order within a decision, papers without one last
          if (sort.value === "title") shown.sort(function (x, y) { return eng.titleRank[x] - eng.titleRank[y]; });
          else if (sort.value === "decision") {
            var last = decisionOptions.length;
            var rankOf = function (n) { var pd = store.papers[n][col.decision]; return pd == null || !decisionRank.has(pd) ? last : decisionRank.get(pd); };
            shown.sort(function (x, y) { return rankOf(x) - rankOf(y); });
          }
          shownSlugs = shown.map(function (n) { return store.papers[n][col.slug]; });
          if (ps.saved && exportBox) {
            if (updateExport) updateExport();
            else updateExport = ps.saved.exportBar(exportBox, function () { return shownSlugs; }, "explore");
          }
          venueOptions.forEach(function (o, i) { o.textContent = venues[i] + " (" + vc[i] + ")"; });
          refill.forEach(function (fill) { if (document.activeElement === keyword || document.activeElement === author) fill(); });
          notes.textContent = "";
          note("keyword", keyword, kText, kSel, keywords, counts.k);
          note("author", author, aText, aSel, authors, counts.a);
          facets.textContent = "";
          if (!kText) facetList("Keywords", counts.k, keywords, keyword);
          if (!aText) facetList("Authors", counts.a, authors, author);
          var filtered = t != null || kTest || aTest || dv != null || vv != null;
          var head = result.exactOnly ? "A paper with this title; still loading the search index…"
            : !q.value.trim() ? papersCount(shown.length)
              : filtered ? papersCount(shown.length) + " after the filters (of " + view.summary(result).replace(/^./, function (c) { return c.toLowerCase(); }) + ")"
                : view.summary(result);
          count.textContent = head + (result.full || !q.value.trim() ? "" : " so far: still loading the abstracts…");
          if (result.full || !q.value.trim()) count.removeAttribute("aria-busy");
          results.textContent = "";
          drawn = { shown: shown, upto: 0, match: result.match || function () { return false; }, mine: mine };
          drawMore();
        }

        if (!q.value.trim()) {
          show({ numbers: store.title_order.slice(), full: true, all: 0, parts: 0, missing: [] });
          return;
        }
        // an exact title shows at once, from the store, while the first index still loads
        var exact = eng.byTitle.get(core.titleKey(q.value));
        if (!eng.searchable && exact !== undefined) show({ numbers: [exact], exactOnly: true, all: 1, parts: 1, missing: [] });
        ps.ranking.search(eng, q.value, PAGE, null, function () { return mine === serial; }).then(function (result) {
          if (result && mine === serial) show(result);
        }).catch(function () { if (mine === serial) count.textContent = "The search index could not be loaded."; });
      }

      // the next PAGE results of the current search, with their snippets
      function drawMore() {
        var d = drawn, items = document.createDocumentFragment(), numbers = d.shown.slice(d.upto, d.upto + PAGE), targets = [];
        numbers.forEach(function (n) {
          var p = store.papers[n];
          var li = el("li", {}, [
            el("a", { href: view.paperHref(eng, p) }, [view.marked(p[col.title], d.match)]),
            ps.saved ? " " : "", ps.saved ? ps.saved.button(p[col.slug], p[col.title]) : "",
            el("span", { "class": "ps-meta" }, [view.paperMeta(eng, p)])
          ]);
          targets.push(li);
          items.appendChild(li);
        });
        results.appendChild(items);
        d.upto += numbers.length;
        var left = d.shown.length - d.upto;
        moreButton.hidden = left <= 0;
        moreButton.textContent = "Show " + Math.min(left, PAGE) + " more (" + left.toLocaleString("en") + " not shown yet)";
        if (q.value.trim()) view.addSnippets(eng, numbers, targets, d.match, function () { return drawn === d; });
      }
      moreButton.addEventListener("click", drawMore);

      eng.onFull.push(function () { if (q.value.trim()) update(); });
      [q, keyword, author].forEach(function (i) { i.addEventListener("input", function () { update(); }); });
      topic.addEventListener("change", function () { update(); });
      decision.addEventListener("change", function () { update(); });
      sort.addEventListener("change", function () { update(); });
      venue.addEventListener("change", function () { update(); });
      form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
      form.addEventListener("reset", function () { setTimeout(update, 0); });
      update();
    }).catch(function (error) {
      if (window.console) console.warn("papersite:", error);
      count.textContent = "The search index could not be loaded.";
    });
  }

  ps.ready(setupExplore);
})(window.papersite);
