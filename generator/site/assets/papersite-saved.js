/* papersite saved papers: the Save buttons (a paper page's, and one beside each paper of a list), the
 * reader's list in localStorage (this browser only: nothing leaves the machine), the Saved page, and
 * the downloads of a list as BibTeX, RIS or CSV. The citations are the build's (site/exports.py:
 * exports.json says where they are and how their rows read); this file only joins them. */
(function (ps) {
  "use strict";

  var el = ps.el;
  // one list per site: two sites served from one origin (localhost) keep their own
  var KEY = "papersite:saved:" + ps.root.pathname;
  var LINK_MAX = 200; // papers a "link to this list" names at most (a URL of slugs grows with them)
  var listeners = [];

  /* The saved slugs, in the order they were saved. Whatever else storage holds (an old or foreign
   * value, hand-edited JSON, storage turned off) reads as what it can be trusted for, at worst none. */
  function cleanSlugs(values) {
    var seen = new Set();
    return (Array.isArray(values) ? values : []).filter(function (s) {
      if (typeof s !== "string" || !s || s.length > 300 || seen.has(s)) return false;
      seen.add(s);
      return true;
    });
  }
  function read() {
    try { return cleanSlugs(JSON.parse(window.localStorage.getItem(KEY) || "[]")); } catch (e) { return []; }
  }
  function write(slugs) {
    try { window.localStorage.setItem(KEY, JSON.stringify(slugs)); return true; } catch (e) { return false; }
  }
  function changed() {
    refreshButtons();
    listeners.forEach(function (fn) { fn(); });
  }
  // another tab saved or removed a paper
  window.addEventListener("storage", function (e) { if (e.key === KEY) changed(); });

  function has(slug) { return read().indexOf(slug) >= 0; }
  function setSaved(slugs, on) {
    var saved = read();
    slugs.forEach(function (slug) {
      var i = saved.indexOf(slug);
      if (on && i < 0) saved.push(slug);
      if (!on && i >= 0) saved.splice(i, 1);
    });
    var ok = write(saved);
    changed();
    return ok;
  }

  /* ---- Save buttons ---- */
  // ``saved``: the saved slugs as a Set, read once for all the buttons of a page (11,672 on All papers)
  function showState(button, saved) {
    var on = (saved || new Set(read())).has(button.getAttribute("data-ps-save"));
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Saved" : "Save";
  }
  function refreshButtons() {
    var saved = new Set(read());
    Array.prototype.forEach.call(document.querySelectorAll("button[data-ps-save]"), function (b) { showState(b, saved); });
  }
  // a Save button for a paper of a list; ``title`` names it for screen readers (many say "Save")
  function button(slug, title, saved) {
    var b = el("button", { type: "button", "class": "ps-save ps-save-small", "data-ps-save": slug });
    if (title) b.setAttribute("aria-label", "Save " + title);
    showState(b, saved);
    return b;
  }
  // a paper page's own Save button, after its authors and before its facts: the page names its paper
  // (render/paper_pages.py PAPER_SLUG) and holds no button, which would be nothing to press without this script
  function drawPaperButton() {
    var paper = document.querySelector(".ps-paper[data-ps-paper]");
    if (!paper || paper.querySelector(":scope > button[data-ps-save]")) return;
    var b = el("button", { type: "button", "class": "ps-save", "data-ps-save": paper.getAttribute("data-ps-paper") });
    paper.insertBefore(b, paper.querySelector(":scope > .ps-facts"));
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-ps-save]");
    if (!b) return;
    if (!setSaved([b.getAttribute("data-ps-save")], b.getAttribute("aria-pressed") !== "true")) {
      b.textContent = "Cannot save: this browser keeps no site data";
    }
  });

  /* ---- what the build says: exports.json, and the citation shards ---- */
  var schemaPromise = null;
  function schema() {
    if (!schemaPromise) {
      // papersite-core.js: which shard holds a slug (shardOf, the build's rule)
      schemaPromise = Promise.all([fetch(ps.asset("exports.json")), ps.loadModules(["core"])]).then(function (got) {
        var r = got[0];
        if (!r.ok) throw new Error("exports.json: " + r.status);
        return r.json();
      }).then(function (s) {
        if (s.version !== 1) throw new Error("exports.json: version " + s.version + " is not known to this script");
        s.col = {};
        s.columns.forEach(function (name, i) { s.col[name] = i; });
        return s;
      });
    }
    return schemaPromise;
  }
  function urlOf(pattern, slug) { return pattern.split("{slug}").join(slug); }
  // the slug of a link to a paper page, or null
  function paperSlugOf(href, s) {
    var url = new URL(href, location.href), root = ps.root.pathname;
    if (url.origin !== ps.root.origin || url.pathname.indexOf(root) !== 0) return null;
    var path = decodeURIComponent(url.pathname.slice(root.length)), parts = s.urls.paper.split("{slug}");
    if (path.length <= parts[0].length + parts[1].length || path.indexOf(parts[0]) !== 0) return null;
    if (path.slice(path.length - parts[1].length) !== parts[1]) return null;
    var slug = path.slice(parts[0].length, path.length - parts[1].length);
    return slug.indexOf("/") < 0 ? slug : null;
  }

  var shards = new Map();
  // a promise of a gzipped JSON file of the site (its path from the site's root), fetched once
  function stored(path) {
    var url = ps.href(path);
    if (!shards.has(url)) {
      shards.set(url, fetch(url).then(function (r) {
        if (!r.ok) throw new Error(path + ": " + r.status);
        return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).json(); // stored gzipped (exports.py)
      }));
    }
    return shards.get(url);
  }
  // ``path``: a shard family's path pattern (the citations', the fix links', the related papers')
  function shard(path, key) { return stored(path.split("{shard}").join(encodeURIComponent(key))); }
  // a slug's shard: the start of the last shard whose start is not after it (exports.shard_of)
  function shardOf(s, slug) { return s.shards[ps.core.shardOf(s.shards, slug)]; }
  // slug -> citation row, for the papers of ``slugs`` that the site has (a slug it has not is left out)
  function rows(slugs) {
    return schema().then(function (s) {
      var keys = Array.from(new Set(slugs.map(function (slug) { return shardOf(s, slug); })));
      return Promise.all(keys.map(function (k) { return shard(s.shard_path, k); })).then(function (found) {
        var bySlug = new Map();
        found.forEach(function (shardRows) { shardRows.forEach(function (row) { bySlug.set(row[s.col.slug], row); }); });
        return { schema: s, bySlug: bySlug };
      });
    });
  }
  // One paper's row of a shard family as {column: value} (the paper page's RIS and plain text, its
  // "Fix this paper" link: papersite.js); rejected when the site has no such paper.
  function paperRow(slug, path, columns) {
    return schema().then(function (s) {
      return shard(s[path], shardOf(s, slug)).then(function (found) {
        var names = s[columns], at = names.indexOf("slug");
        var row = found.filter(function (r) { return r[at] === slug; })[0];
        if (!row) throw new Error("no row for " + slug);
        var out = { schema: s };
        names.forEach(function (name, i) { out[name] = row[i]; });
        return out;
      });
    });
  }
  ps.citation = function (slug) { return paperRow(slug, "shard_path", "columns"); };
  ps.fixLink = function (slug) { return paperRow(slug, "fix_path", "fix_columns"); };

  /* ---- downloads ---- */
  var FORMATS = [
    { key: "bibtex", label: "BibTeX", ext: "bib", type: "application/x-bibtex" },
    { key: "ris", label: "RIS", ext: "ris", type: "application/x-research-info-systems" },
    { key: "csv", label: "CSV", ext: "csv", type: "text/csv" }
  ];
  // the file of ``slugs`` (those the site has) in ``format``: one entry per paper, in the list's order
  function fileText(got, slugs, format) {
    var s = got.schema, picked = slugs.map(function (slug) { return got.bySlug.get(slug); }).filter(Boolean);
    var texts = picked.map(function (row) { return row[s.col[format.key]]; });
    if (format.key === "csv") return { text: s.csv_header + texts.join(""), n: picked.length };
    return { text: texts.join("\n\n") + (texts.length ? "\n" : ""), n: picked.length };
  }
  function download(slugs, format, what, status) {
    status.textContent = "Preparing " + format.label + "…";
    return rows(slugs).then(function (got) {
      var file = fileText(got, slugs, format);
      var name = got.schema.file_stem + "-" + what + "." + format.ext;
      var url = URL.createObjectURL(new Blob([file.text], { type: format.type + ";charset=utf-8" }));
      var a = el("a", { href: url, download: name });
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
      status.textContent = name + ": " + ps.papersCount(file.n) + ".";
    }).catch(function () { status.textContent = "The citations could not be loaded."; });
  }
  // the Saved page's address that opens ``slugs`` as a list
  function listLink(s, slugs) {
    return ps.href(s.urls.saved) + "?papers=" + slugs.map(encodeURIComponent).join(",");
  }

  /* The download buttons and a link that reopens the list, in ``box`` ([data-ps-export]) for the
   * papers ``slugs`` returns; ``what`` names the files ("saved", "explore"). */
  function exportBar(box, slugs, what) {
    var status = el("span", { "class": "ps-export-status", role: "status" });
    var line = el("p", {}, [el("strong", {}, ["Download: "])]);
    FORMATS.forEach(function (format) {
      var b = el("button", { type: "button", "class": "md-button ps-export-button", "data-ps-export-format": format.key }, [format.label]);
      b.addEventListener("click", function () { download(slugs(), format, what, status); });
      line.appendChild(b);
      line.appendChild(document.createTextNode(" "));
    });
    var link = el("a", { "data-ps-list-link": "" }, ["Link to this list"]);
    var linkNote = el("span", { "class": "ps-muted" });
    line.appendChild(link); line.appendChild(linkNote); line.appendChild(document.createTextNode(" ")); line.appendChild(status);
    box.textContent = "";
    box.appendChild(line);
    function update() {
      var now = slugs();
      box.hidden = !now.length;
      schema().then(function (s) {
        link.hidden = now.length > LINK_MAX;
        if (now.length <= LINK_MAX) link.href = listLink(s, now);
        linkNote.textContent = now.length > LINK_MAX ? "(a link names up to " + LINK_MAX + " papers; this page’s address keeps the search)" : "";
      }).catch(function () { link.hidden = true; });
      status.textContent = "";
    }
    update();
    return update;
  }

  /* ---- Save buttons beside the papers of a page's lists ---- */
  function decorateLists() {
    var items = document.querySelectorAll("ul.ps-papers > li, ol.ps-all > li");
    if (!items.length) return;
    schema().then(function (s) {
      var saved = new Set(read());
      Array.prototype.forEach.call(items, function (li) {
        var a = li.querySelector("a[href]");
        if (!a || li.querySelector("button[data-ps-save]")) return;
        var slug = paperSlugOf(a.getAttribute("href"), s);
        if (!slug) return;
        // after the link and its badges, before the item's line (a block: papersite.css)
        var line = li.querySelector(".ps-meta"), b = button(slug, a.textContent, saved);
        li.insertBefore(b, line);
        li.insertBefore(document.createTextNode(" "), b);
      });
    }).catch(function (error) { if (window.console) console.warn("papersite:", error); });
  }

  /* ---- a paper page's related papers ----
     Their numbers are in the related files (exports.related_files: the paper's row in file
     crc32(slug) % their number), their titles, first authors and
     topics in the search's rows files (search.py store_pieces), the files a search shows results from:
     a list's items as the build writes them (components.paper_item), put where the page says
     (render/paper_pages.py RELATED_PLACE). A paper without related papers, or a file that does not
     load, leaves the place empty: the page says nothing of them. */
  function drawRelated() {
    var place = document.querySelector(".ps-paper[data-ps-paper] [data-ps-related]");
    if (!place || place.firstChild) return;
    var slug = place.closest("[data-ps-paper]").getAttribute("data-ps-paper");
    schema().then(function (s) {
      var head = stored(s.search_head);  // (asked beside the shard: they do not wait on each other)
      return Promise.all([shard(s.related_path, String(ps.core.crc32(slug) % s.related_files)), head]).then(function (got) {
        var row = got[0].papers.filter(function (r) { return r[0] === slug; })[0];
        if (!row || !row[1].length) return;
        var store = new ps.core.Schema(got[1].schema), size = store.rowChunk, derived = new Set(got[0].derived);
        var files = Array.from(new Set(row[1].map(function (n) { return Math.floor(n / size); })));
        return Promise.all(files.map(function (c) { return stored(s.search_rows.split("{n}").join(c)); })).then(function (chunks) {
          var list = el("ul", { "class": "ps-papers" });
          row[1].forEach(function (n) {
            var chunk = chunks[files.indexOf(Math.floor(n / size))], paper = chunk.papers[n % size];
            if (paper) list.appendChild(relatedItem(paper, n, store, got[1], new Map(chunk.authors), derived));
          });
          if (!list.firstChild || place.firstChild) return;
          place.appendChild(el("h2", { id: "related" }, ["Related papers"]));
          place.appendChild(list);
          decorateLists();
        });
      });
    }).catch(function (error) { if (window.console) console.warn("papersite: related papers:", error); });
  }
  // a paper of the list (its row in the store, its number), as components.paper_item draws it with its topic
  function relatedItem(paper, n, store, head, names, derived) {
    var col = store.col, ids = paper[col.authors], order = paper[col.order];
    var line = ps.core.authorLine(ids.slice(0, 3).map(function (i) { return names.get(i); }), ids.length,
      order ? store.orders[order] || store.orders.u : null);
    var topic = paper[col.topic] != null ? head.topics[paper[col.topic]][store.topicCol.label] : "";
    var li = el("li", {}, [el("a", { href: ps.href(store.url("paper", paper[col.slug])) }, [paper[col.title]])]);
    if (derived.has(n)) li.append(" ", el("span", { "class": "ps-badge" }, ["derived title"]));
    li.appendChild(el("span", { "class": "ps-meta" }, [[line, topic].filter(Boolean).join(" \u00b7 ")]));
    return li;
  }

  /* ---- an author page's co-authors ----
     From the co-author files (exports.coauthor_files: the author's row in file crc32(slug) % their number),
     as the page would have listed them: each a link, with how many papers they share where more than one,
     and how many more there are, put where the page says (render/indices.py COAUTHORS_PLACE). */
  function drawCoauthors() {
    var place = document.querySelector("[data-ps-coauthors]");
    if (!place || place.firstChild) return;
    var slug = place.getAttribute("data-ps-coauthors");
    schema().then(function (s) {
      return shard(s.coauthor_path, String(ps.core.crc32(slug) % s.coauthor_files)).then(function (rows) {
        var row = rows.filter(function (r) { return r[0] === slug; })[0];
        if (!row || !row[1].length || place.firstChild) return;
        var list = el("ul", { "class": "ps-columns" }), shared = false;
        row[1].forEach(function (other) {
          var li = el("li", {}, [el("a", { href: ps.href(urlOf(s.urls.author, other[0])) }, [other[1]])]);
          if (other[2] > 1) { shared = true; li.append(" ", el("span", { "class": "ps-count" }, [String(other[2])])); }
          list.appendChild(li);
        });
        place.appendChild(el("h2", { id: "coauthors" }, ["Co-authors"]));
        if (shared) place.appendChild(el("p", { "class": "ps-muted" }, ["The number is how many papers they wrote together, where more than one."]));
        place.appendChild(list);
        if (row[2] > 0) place.appendChild(el("p", { "class": "ps-muted" }, ["and " + row[2].toLocaleString("en") + " more (see the papers above)."]));
      });
    }).catch(function (error) { if (window.console) console.warn("papersite: co-authors:", error); });
  }

  /* ---- the Saved page ---- */
  function setupSavedPage(page) {
    var count = page.querySelector("[data-ps-saved-count]"), list = page.querySelector("[data-ps-saved-list]");
    var shared = page.querySelector("[data-ps-saved-shared]"), box = page.querySelector("[data-ps-export]");
    var named = new URLSearchParams(location.search).get("papers");
    // a list opened from a link is shown as it is; the reader's own list is not changed unless they say so
    var opened = named === null ? null : cleanSlugs(named.split(","));
    function slugs() { return opened || read(); }
    page.hidden = false;
    var updateBar = exportBar(box, slugs, opened ? "list" : "saved");
    var serial = 0;

    function item(slug, row, s) {
      var li = el("li", {});
      if (row) {
        li.appendChild(el("a", { href: ps.href(urlOf(s.urls.paper, slug)) }, [row[s.col.title]]));
      } else {
        li.appendChild(el("span", {}, ["A paper this site no longer has (" + slug + ")"]));
      }
      li.appendChild(document.createTextNode(" "));
      if (opened) {
        if (row) li.appendChild(button(slug, row[s.col.title]));
      } else {
        var remove = el("button", { type: "button", "class": "ps-save ps-save-small", "aria-label": "Remove " + (row ? row[s.col.title] : slug) }, ["Remove"]);
        remove.addEventListener("click", function () { setSaved([slug], false); });
        li.appendChild(remove);
      }
      if (row && row[s.col.meta]) {
        li.appendChild(el("span", { "class": "ps-meta" }, [row[s.col.meta]]));
      }
      return li;
    }

    function render() {
      var mine = ++serial, now = slugs();
      updateBar();
      if (opened) {
        shared.hidden = false;
        shared.textContent = "";
        shared.appendChild(document.createTextNode("A list of " + ps.papersCount(now.length) + " opened from a link. "));
        var all = now.filter(function (slug) { return !has(slug); });
        if (all.length) {
          var add = el("button", { type: "button", "class": "md-button" }, ["Save " + (all.length === now.length ? "all " : "the other ") + ps.papersCount(all.length)]);
          add.addEventListener("click", function () { setSaved(all, true); });
          shared.appendChild(add);
          shared.appendChild(document.createTextNode(" "));
        }
        schema().then(function (s) { shared.appendChild(el("a", { href: ps.href(s.urls.saved) }, ["Your saved papers"])); });
      }
      if (!now.length) {
        list.textContent = "";
        count.textContent = opened ? "The link names no papers." :
          "No saved papers yet. Press Save on a paper’s page, or beside a paper in any list, and it will be listed here.";
        return;
      }
      rows(now).then(function (got) {
        if (mine !== serial) return;
        var frag = document.createDocumentFragment(), known = 0;
        now.forEach(function (slug) {
          var row = got.bySlug.get(slug);
          if (row) known++;
          frag.appendChild(item(slug, row, got.schema));
        });
        list.textContent = "";
        list.appendChild(frag);
        count.textContent = (opened ? "" : "You have saved ") + ps.papersCount(known) +
          (known < now.length ? " (and " + (now.length - known) + " this site no longer has)" : "") + ".";
      }).catch(function () { if (mine === serial) count.textContent = "The saved papers could not be loaded."; });
    }
    listeners.push(render);
    render();
  }

  ps.saved = { read: read, has: has, button: button, exportBar: exportBar };
  ps.ready(function () {
    drawPaperButton();
    refreshButtons();
    decorateLists();
    drawRelated();
    drawCoauthors();
    var page = document.querySelector("[data-ps-saved]");
    if (page) setupSavedPage(page);
  });
})(window.papersite);
