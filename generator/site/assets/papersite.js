/* papersite: header search, Explore, the all-papers list and copy buttons.
 * Search loads a lunr index that the build serialised (lunr.Index.load is fast;
 * indexing in the browser is not), and only when someone starts to search.
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

  function loadEngine() {
    if (!engine) {
      engine = Promise.all([
        window.lunr ? Promise.resolve() : loadScript(asset("lunr.js")),
        getJSON("search-index.json"),
        getJSON("search-docs.json")
      ]).then(function (parts) {
        return { index: window.lunr.Index.load(parts[1]), store: parts[2] };
      });
    }
    return engine;
  }

  function fold(text) {
    return (text || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\s+/g, " ").trim();
  }

  /* Ranked paper numbers for a query: lunr scores (title > authors > keywords >
   * topic > abstract, boosts set at build), the last word also as a prefix so
   * results come while typing, and an exact title always first. */
  function search(eng, text) {
    var lunr = window.lunr;
    var tokens = lunr.tokenizer(text).map(function (t) { return t.toString(); }).filter(Boolean);
    if (!tokens.length) return [];
    var hits;
    try {
      hits = eng.index.query(function (q) {
        tokens.forEach(function (t, i) {
          q.term(t, { boost: 1 });
          if (i === tokens.length - 1 && t.length > 1) {
            q.term(t, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING, boost: 0.3 });
          }
        });
      });
    } catch (e) { return []; }
    var wanted = fold(text).replace(/[^\p{L}\p{N} ]/gu, "");
    var papers = eng.store.papers;
    var ranked = hits.map(function (h) {
      var n = +h.ref;
      var title = fold(papers[n][1]).replace(/[^\p{L}\p{N} ]/gu, "");
      return { n: n, score: h.score + (title === wanted ? 1e6 : 0) };
    });
    ranked.sort(function (a, b) { return b.score - a.score || a.n - b.n; });
    return ranked.map(function (r) { return r.n; });
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

  /* ---- header search ---- */
  function setupHeaderSearch() {
    var box = document.querySelector("[data-ps-search]");
    if (!box) return;
    var input = box.querySelector("[data-ps-search-input]");
    var form = box.querySelector("[data-ps-search-form]");
    var list = box.querySelector("[data-ps-search-results]");
    var meta = box.querySelector("[data-ps-search-meta]");
    var toggle = document.getElementById("__search");
    var first = null;
    var explore = new URL("explore/", root);

    function render() {
      var text = input.value;
      if (!text.trim()) { list.textContent = ""; meta.textContent = "Type to search titles, authors, keywords and abstracts"; return; }
      loadEngine().then(function (eng) {
        if (input.value !== text) return;
        var found = search(eng, text);
        list.textContent = "";
        first = found.length ? paperHref(eng.store.papers[found[0]][0]) : null;
        meta.textContent = found.length ? found.length + (found.length === 1 ? " paper" : " papers") : "No paper matches";
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
      }, function () { meta.textContent = "The search index could not be loaded"; });
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
  function setupExplore() {
    var form = document.querySelector("[data-ps-explore]");
    if (!form) return;
    var q = form.elements.q, topic = form.elements.topic, keyword = form.elements.keyword, author = form.elements.author;
    var count = document.querySelector("[data-ps-explore-count]");
    var results = document.querySelector("[data-ps-explore-results]");
    var params = new URLSearchParams(location.search);

    loadEngine().then(function (eng) {
      var store = eng.store;
      var kwBySlug = {}, kwByName = {}, auBySlug = {}, auByName = {}, topicBySlug = {};
      store.topics.forEach(function (t, i) {
        topicBySlug[t[1]] = i;
        var opt = el("option", { value: t[1] }, [(t[2] === i ? "" : "\u2003") + t[0]]);
        topic.appendChild(opt);
      });
      var kwList = document.getElementById("ps-keyword-list");
      store.keywords.forEach(function (k, i) {
        kwBySlug[k[1]] = i; kwByName[fold(k[0])] = i;
        kwList.appendChild(el("option", { value: k[0] }));
      });
      var auList = document.getElementById("ps-author-list");
      store.authors.forEach(function (a, i) {
        auBySlug[a[1]] = i; auByName[fold(a[0])] = i;
        auList.appendChild(el("option", { value: a[0] }));
      });

      function lookup(bySlug, byName, list, value) {
        if (!value) return null;
        if (value in bySlug) return bySlug[value];
        var f = fold(value);
        return f in byName ? byName[f] : -1;
      }

      // restore from the URL (slugs there, names in the inputs)
      q.value = params.get("q") || "";
      if (params.get("topic") in topicBySlug) topic.value = params.get("topic");
      var k0 = lookup(kwBySlug, kwByName, store.keywords, params.get("keyword"));
      keyword.value = k0 != null && k0 >= 0 ? store.keywords[k0][0] : (params.get("keyword") || "");
      var a0 = lookup(auBySlug, auByName, store.authors, params.get("author"));
      author.value = a0 != null && a0 >= 0 ? store.authors[a0][0] : (params.get("author") || "");

      function update(push) {
        var t = topic.value ? topicBySlug[topic.value] : null;
        var k = lookup(kwBySlug, kwByName, store.keywords, keyword.value.trim());
        var a = lookup(auBySlug, auByName, store.authors, author.value.trim());
        var numbers = q.value.trim() ? search(eng, q.value) : store.papers.map(function (_, i) { return i; });
        var shown = numbers.filter(function (n) {
          var p = store.papers[n];
          if (t != null && !(p[3] === t || (p[3] != null && store.topics[p[3]][2] === t))) return false;
          if (k != null && p[4].indexOf(k) < 0) return false;
          if (a != null && p[2].indexOf(a) < 0) return false;
          return true;
        });
        var url = new URL(location.href);
        url.search = "";
        if (q.value.trim()) url.searchParams.set("q", q.value.trim());
        if (topic.value) url.searchParams.set("topic", topic.value);
        if (keyword.value.trim()) url.searchParams.set("keyword", k != null && k >= 0 ? store.keywords[k][1] : keyword.value.trim());
        if (author.value.trim()) url.searchParams.set("author", a != null && a >= 0 ? store.authors[a][1] : author.value.trim());
        history.replaceState(null, "", url.href);
        count.textContent = shown.length + (shown.length === 1 ? " paper" : " papers") + (shown.length > 200 ? " (first 200 shown)" : "");
        results.textContent = "";
        shown.slice(0, 200).forEach(function (n) {
          var p = store.papers[n];
          results.appendChild(el("li", {}, [
            el("a", { href: paperHref(p[0]) }, [p[1]]),
            el("br"),
            el("span", { "class": "ps-meta" }, [paperMeta(store, p)])
          ]));
        });
      }
      [q, keyword, author].forEach(function (i) { i.addEventListener("input", function () { update(); }); });
      topic.addEventListener("change", function () { update(); });
      form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
      form.addEventListener("reset", function () { setTimeout(update, 0); });
      update();
    }, function () { count.textContent = "The search index could not be loaded."; });
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
    var sort = controls.querySelector("[data-ps-sort]");
    var shown = controls.querySelector("[data-ps-shown]");
    function apply() {
      var words = fold(filter.value).split(" ").filter(Boolean);
      var n = 0;
      items.forEach(function (li) {
        var text = li.getAttribute("data-text");
        var ok = (!area.value || li.getAttribute("data-area") === area.value) &&
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

  function start() { setupHeaderSearch(); setupExplore(); setupPaperList(); setupCopy(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
