/* papersite header search: the search box in every page's header. As the reader types, it
 * shows the author, keyword and topic pages whose names hold the query, then the first ten
 * papers (papersite-ranking.js), and links to Explore for the rest; Enter opens the selected
 * result or else the first, whatever its kind.
 * Loaded with every page to fill the box; the search code (ps.searchCode: core, engine, ranking,
 * results) only once the box is focused or opened. */
(function (ps) {
  "use strict";

  var el = ps.el, papersCount = ps.papersCount;
  var core, results, ranking, marked, paperHref, paperMeta; // the search code's, once loaded (engine)

  /* The engine (papersite-engine.js load()), the search code loaded first where it is not yet;
   * text: a query being typed, whose shards the first index starts to load meanwhile. */
  function engine(text, whole) {
    return ps.searchCode().then(function () {
      if (!core) {
        core = ps.core; results = ps.results; ranking = ps.ranking;
        marked = results.marked; paperHref = results.paperHref; paperMeta = results.paperMeta;
      }
      if (text) ps.engine.warmUp(text, whole);
      return ps.engine.load();
    });
  }

  /* ---- author, keyword and topic pages as results ---- */

  // a row of the store's names table (search.py store_pieces: [word, number, name, slug, papers]) as a
  // page: its number says its kind (the authors', then the keywords', then the topics', head.page_counts)
  function pageOf(eng, row) {
    var counts = eng.head.page_counts, n = row[1];
    var kind = n < counts[0] ? ["Author", "author"] : n < counts[0] + counts[1] ? ["Keyword", "keyword"] : ["Topic", "topic"];
    return { kind: kind[0], number: n, name: row[2], path: eng.schema.url(kind[1], row[3]), count: row[4], folded: " " + core.foldedWords(row[2]) };
  }

  /* A promise of up to `limit` pages whose name holds every word of the query (each at the start
   * of a word of the name): a name equal to the query first, then by papers. The names are
   * fetched by the query's longest word (the shards of the names' words it begins). */
  function matchingPages(eng, text, limit) {
    var words = core.foldedWords(text).trim();
    if (words.length < 3) return Promise.resolve([]);
    var parts = words.split(" "), needles = parts.map(function (w) { return " " + w; }), whole = " " + words;
    var longest = parts.reduce(function (a, b) { return b.length > a.length ? b : a; });
    return eng.names.rowsBeginning(longest).then(function (rows) {
      var seen = new Set(), found = [];
      rows.sort(function (a, b) { return a[1] - b[1]; }); // in the store's order (authors, keywords, topics): ties keep it
      rows.forEach(function (row) {
        if (seen.has(row[1])) return;
        seen.add(row[1]);
        var e = pageOf(eng, row);
        for (var i = 0; i < needles.length; i++) if (e.folded.indexOf(needles[i]) < 0) return;
        found.push({ entry: e, exact: e.folded.trim() === words || e.folded.slice(e.folded.lastIndexOf(" ")) === whole });
      });
      found.sort(function (a, b) { return b.exact - a.exact || b.entry.count - a.entry.count || a.entry.name.localeCompare(b.entry.name); });
      return found.slice(0, limit).map(function (f) {
        f.entry.href = ps.href(f.entry.path);
        return f.entry;
      });
    }, function () { return []; }); // (pages that cannot be looked up: the papers alone)
  }

  /* ---- header search ---- */
  // The box's markup (templates/partials/search.html writes only its place): Material's
  // classes give its look and its #__search toggle; the magnifier is the header's own icon.
  // It is a combobox (WAI-ARIA APG): the field owns a listbox of links, the arrow keys move a
  // selection through them (aria-activedescendant: typing goes on in the field), Enter opens
  // the selected one or else the first, Tab reaches them as links, Escape closes.
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
      spellcheck: "false", "data-ps-search-input": "", role: "combobox", "aria-autocomplete": "list",
      "aria-expanded": "false", "aria-controls": "ps-search-results", "aria-describedby": "ps-search-meta" });
    box.appendChild(el("label", { "class": "md-search__overlay", "for": "__search" }));
    box.appendChild(el("div", { "class": "md-search__inner", role: "search" }, [
      el("form", { "class": "md-search__form", "data-ps-search-form": "" }, [input, icon]),
      el("div", { "class": "md-search__output" }, [
        el("div", { "class": "md-search__scrollwrap" }, [
          el("div", { "class": "md-search-result" }, [
            el("div", { "class": "md-search-result__meta", id: "ps-search-meta", "aria-live": "polite", "data-ps-search-meta": "" },
              ["Type to search titles, authors, keywords and abstracts"]),
            el("ol", { "class": "md-search-result__list", id: "ps-search-results", role: "listbox",
              "aria-label": "Pages and papers found", "data-ps-search-results": "" })
          ])
        ])
      ])
    ]));
  }

  /* The header's search button (below 60em; Material writes it as a <label> for the toggle,
   * which a keyboard cannot reach and which may not carry a name) as a real button. */
  function searchButton(open) {
    var label = document.querySelector('.md-header label.md-header__button[for="__search"]');
    if (!label) return null;
    var button = el("button", { type: "button", "class": label.className, "aria-label": "Search", "data-ps-search-open": "" });
    while (label.firstChild) button.appendChild(label.firstChild);
    label.replaceWith(button);
    button.addEventListener("click", open);
    return button;
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
    var listening = false, shownFor = null, enterFor = null;
    // A reader typing presses keys closer than this: the abstracts' texts (the snippets, and the weights of a
    // common term in the papers it leaves undecided) are asked for a query typed key by key only once the
    // reader paused on it. At 100k papers each key's own asks fetched ~250 KB of chunks of a title typed at
    // 200 ms a key, for lists gone before their texts came; a pasted query asks at once.
    var TYPING_PAUSE_MS = 250, snippetTimer = null;
    var keyByKey = false;  // whether the text in the box was last changed by a key (not pasted whole)
    // Where the store's head says so (a large site, search.py KEYS_ANSWERED_UP_TO), a text typed key by key is
    // answered once the reader pauses, its done words' shards loaded meanwhile: each key's own answer
    // fetched its word's prefixes, rows and titles, ~690 KB for a title typed at 100k papers, ~370 pasted.
    var pauseTimer = null, pausedOn = null;  // the answer waiting for a pause; the text it was given after one
    // A pause is TYPING_PAUSE_MS, or twice the reader's usual time between keys where that is shorter: a reader
    // pressing keys 60 ms apart has stopped after 120.
    var SHORTEST_PAUSE_MS = 120, keyGaps = [], lastKeyAt = 0;
    function pauseMs() {
      var now = performance.now(), gap = now - lastKeyAt;
      lastKeyAt = now;
      if (gap < 1000) keyGaps = keyGaps.concat([gap]).slice(-5);
      var usual = keyGaps.slice().sort(function (a, b) { return a - b; })[keyGaps.length >> 1];
      return usual === undefined ? TYPING_PAUSE_MS : Math.min(TYPING_PAUSE_MS, Math.max(SHORTEST_PAUSE_MS, 2 * usual));
    }
    var button = searchButton(function () { open(); input.focus(); });
    // Explore with this query (its URL is in the store's schema)
    function exploreHref(eng, text) {
      var url = new URL(ps.href(eng.schema.url("explore")));
      url.searchParams.set("q", text);
      return url.href;
    }

    function open() {
      // Material shows the results panel only while its #__search toggle is on
      if (toggle && !toggle.checked) toggle.checked = true;
      input.setAttribute("aria-expanded", "true");
      engine().catch(function () { /* render() says so */ });
    }
    // closed, focus goes back where the reader opened it from: the field, or the phone's button
    function close() {
      if (toggle) toggle.checked = false;
      input.setAttribute("aria-expanded", "false");
      select(null);
      if (button && button.getClientRects().length) button.focus(); else input.focus();
    }

    /* ---- the selection (aria-activedescendant) ---- */
    function options() { return Array.prototype.slice.call(list.querySelectorAll("[role=option]")); }
    function selected() { return list.querySelector("[aria-selected=true]"); }
    function select(option) {
      options().forEach(function (o) { o.setAttribute("aria-selected", o === option ? "true" : "false"); });
      if (option) {
        input.setAttribute("aria-activedescendant", option.id);
        option.scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }
    function move(step) {
      var all = options(), at = all.indexOf(selected()) + step;
      if (!all.length) return;
      if (at < -1) at = all.length - 1;  // up from the field: the last result
      select(at >= 0 && at < all.length ? all[at] : null);
    }
    // Enter: the selected result, else the first of those shown for this very text
    function go(text) {
      var chosen = selected() || (shownFor === text ? options()[0] : null);
      if (chosen) { location.href = chosen.href; return true; }
      return false;
    }

    function item(href, heading, lines, extraClass) {
      var article = el("article", { "class": "md-search-result__article md-typeset" }, [el("h1", {}, [heading])].concat(lines));
      return el("li", { "class": "md-search-result__item" + (extraClass ? " " + extraClass : ""), role: "none" }, [
        el("a", { href: href, "class": "md-search-result__link", role: "option", "aria-selected": "false",
          id: "ps-search-option-" + list.children.length }, [article])
      ]);
    }

    // (the rows of the papers shown, and the pages, are in: show's caller waited for them)
    // rowsIn: how many of the first ten papers to show when the rows of the others are still coming
    function show(eng, text, result, pages, rowsIn) {
      var found = result.numbers, some = rowsIn !== undefined;
      var match = result.match || ranking.wordMatcher(ranking.parseQuery(text)), col = eng.schema.col;
      var kept = selected() && selected().getAttribute("href");  // a new answer keeps the reader's place
      list.textContent = "";
      list.setAttribute("data-ps-query", text);
      // (what tests and benchmarks wait for: "rows", the first papers only; "partial", the abstracts not yet searched)
      list.setAttribute("data-ps-state", some ? "rows" : result.exactOnly || !result.full ? "partial" : "full");
      meta.textContent = result.exactOnly ? "A paper with this title (searching for more…)"
        : results.summary(result) + (!result.full ? " (searching the abstracts too…)" : some ? " (loading the rest…)" : "");
      pages.forEach(function (page) {
        list.appendChild(item(page.href, marked(page.name, match), [
          el("p", { "class": "ps-kind" }, [page.kind + " · " + papersCount(page.count)])
        ], "ps-page-result"));
      });
      var shownNumbers = found.slice(0, some ? rowsIn : 10), articles = [];
      shownNumbers.forEach(function (n) {
        var p = eng.paper(n);
        var li = item(paperHref(eng, p), marked(p[col.title], match), [el("p", {}, [paperMeta(eng, p)])]);
        articles.push(li.querySelector("article"));
        list.appendChild(li);
      });
      if (found.length > 10 && !some) {
        list.appendChild(item(exploreHref(eng, text), el("strong", {}, ["All " + found.length.toLocaleString("en") + " results in Explore →"]),
          [], "ps-more"));
      }
      shownFor = text;
      select(kept ? options().filter(function (o) { return o.getAttribute("href") === kept; })[0] || null : null);
      if (enterFor === text) { enterFor = null; if (!go(text)) location.href = exploreHref(eng, text); return; }
      if (!result.exactOnly && !some) {
        // the abstracts' snippets (their texts come in chunks) for the query the reader stopped at, not for each
        // key of one typed: those were ~200 KB of a typed first query, for lists gone before their snippets came
        clearTimeout(snippetTimer);  // a list shown again asks for its own
        snippetTimer = setTimeout(function () {
          if (input.value === text && list.getAttribute("data-ps-query") === text) {
            results.addSnippets(eng, shownNumbers, articles, match, function () { return input.value === text; });
          }
        }, TYPING_PAUSE_MS);
      }
    }

    // whole: the text came in one piece (pasted, dropped, filled in), as a known title is: its paper is shown
    // as soon as the titles table names it, before the index's answer, even when the index is loaded
    function render(whole) {
      var text = input.value;
      shownFor = null;
      if (!text.trim()) {
        list.textContent = ""; list.removeAttribute("data-ps-query"); select(null);
        meta.textContent = "Type to search titles, authors, keywords and abstracts"; return;
      }
      engine(text, whole).then(function (eng) {
        if (!listening) { listening = true; eng.onFull.push(function () { if (input.value.trim()) render(); }); }
        if (input.value !== text) return null;
        // an exact title shows at once, while the first index still loads or when the title was pasted
        // (until the answer for that text is shown: it lists the same paper first, known-item ranking)
        var exactFirst = function () { return input.value === text && shownFor !== text && (whole || !eng.searchable); };
        eng.exactTitle(text).then(function (exact) {
          return exact !== undefined && exactFirst() && eng.need([exact]).then(function () {
            if (exactFirst()) show(eng, text, { numbers: [exact], exactOnly: true }, []);
          });
        }).catch(function () { /* the search's answer comes anyway */ });
        var pages = matchingPages(eng, text, 3), begun = performance.now(), measure = ps.engine.measure;
        eng.likelyRows(text, ranking.parseQuery(text).words, 10).catch(function () { /* need() below asks again */ });
        var present = function (result) {
          if (!result || input.value !== text) return null;
          measure("papersite header answer", begun);
          // the first papers whose rows were asked for before this answer (likelyRows) are shown as soon as
          // those are in, the rest when theirs come
          var top = result.numbers.slice(0, 10), early = 0, allIn = false;
          while (early < top.length && eng.rowAsked(top[early])) early++;
          var all = eng.need(top).then(function () { allIn = true; });
          if (early && early < top.length) {
            Promise.all([eng.need(top.slice(0, early)), pages]).then(function (got) {
              if (allIn || input.value !== text || list.getAttribute("data-ps-query") === text) return;
              show(eng, text, result, got[1], early);
              measure("papersite header first rows shown", begun);
            }).catch(function () { /* the whole list says so */ });
          }
          return Promise.all([all, pages]).then(function (got) {
            measure("papersite header rows and pages", begun);
            // (an early order, shown after the final one came, would replace it)
            if (input.value === text && !(result.early && final)) show(eng, text, result, got[1]);
            measure("papersite header shown", begun);
          });
        };
        var final = null;
        var current = function () { return input.value === text; };
        var pause = keyByKey && pausedOn !== text ? TYPING_PAUSE_MS : 0;  // (answered after a pause: none more)
        return ranking.search(eng, text, 10, present, current, pause).then(function (result) {
          final = result; return present(result);
        });
      }).catch(function () { meta.textContent = "Search is unavailable: the search index could not be loaded"; });
    }

    input.addEventListener("focus", open);
    var typedLength = input.value.length;
    input.addEventListener("input", function (e) {
      var grew = input.value.length - typedLength;
      typedLength = input.value.length;
      open();
      // (more than one letter at once: pasted, dropped, filled in, a phone's suggested word)
      var whole = grew > 1 || (e.data || "").length > 1 || /^insertFrom|^insertReplacement/.test(e.inputType || "");
      keyByKey = !whole;  // (also for the same text asked again once the abstracts are in)
      clearTimeout(pauseTimer); pauseTimer = null;
      var text = input.value, pause = pauseMs();
      if (whole || !text.trim()) { render(whole); return; }
      engine().then(function (eng) {
        if (input.value !== text) return;
        if (!eng.head.answer_at_pauses) { render(false); return; }
        ps.engine.warmUp(text.replace(/\S+$/, ""));  // the words done; the one being typed waits
        pauseTimer = setTimeout(answerPaused, pause);
      }, function () { render(false); });  // (it says the search is unavailable)
    });
    function answerPaused() {
      if (!pauseTimer) return;
      clearTimeout(pauseTimer); pauseTimer = null;
      pausedOn = input.value;
      render(false);
    }
    input.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); open(); move(e.key === "ArrowDown" ? 1 : -1); }
    });
    // Enter before the answer to the last keystroke is in: it opens that answer's first result
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var text = input.value;
      if (go(text)) return;
      answerPaused();  // Enter ends the pause
      if (text.trim() && shownFor !== text) { enterFor = text; return; }
      engine().then(function (eng) { location.href = exploreHref(eng, text); });  // nothing found: Explore
    });
    // focus leaving the box for another control of the page closes it (the panel would hide that control)
    box.addEventListener("focusout", function (e) {
      if (e.relatedTarget && !box.contains(e.relatedTarget) && e.relatedTarget !== button && toggle && toggle.checked) {
        toggle.checked = false; input.setAttribute("aria-expanded", "false"); select(null);
      }
    });
    if (toggle) {
      toggle.addEventListener("change", function () {
        input.setAttribute("aria-expanded", String(toggle.checked));
        if (toggle.checked) { engine().catch(function () { /* render() says so */ }); setTimeout(function () { input.focus(); }, 50); }
      });
    }
    document.addEventListener("keydown", function (e) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test((e.target && e.target.tagName) || "") || (e.target && e.target.isContentEditable);
      if (!typing && (e.key === "/" || e.key === "s" || e.key === "f") && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        open(); input.focus();
      } else if (e.key === "Escape" && toggle && toggle.checked) {
        e.preventDefault(); close();
      }
    });
  }

  /* A skip link, the first thing Tab reaches, to the page's content (Material writes one only on
   * pages with a table of contents). Made here rather than written into ~48k pages at 12k papers. */
  function addSkipLink() {
    var content = document.querySelector(".md-content, .ps-page");  // .ps-page: chrome.py unwrapped
    if (!content || document.querySelector(".md-skip")) return;
    content.id = content.id || "ps-content";
    // the page's own address: the 404 page's <base> is the site's root
    var skip = el("a", { "class": "md-skip", href: location.pathname + location.search + "#" + content.id }, ["Skip to content"]);
    document.body.insertBefore(skip, document.body.firstChild);
  }

  ps.ready(setupHeaderSearch);
  ps.ready(addSkipLink);
})(window.papersite);
