/* papersite: the one script every page names (mkdocs.yml extra_javascript). It loads the
 * site's other scripts, in this order, each a plain script sharing window.papersite:
 *   papersite-header.js   the header search box (every page, at once: it fills the box and waits)
 *   papersite-core.js     folding, query words, shards, the store's schema (as the build does them)
 *   papersite-engine.js   the search indexes' workers and the store (search-worker.js does the searching)
 *   papersite-ranking.js  what a query asks and the ranked papers it finds
 *   papersite-results.js  results as shown: highlights, snippets, author lines, counts
 *   papersite-explore.js  the Explore page (only there)
 *   papersite-lists.js    paper lists' filter and sort (only where a list has controls)
 *   papersite-saved.js    Save buttons, the Saved page, downloads of a list (where a page has papers)
 *   papersite-map.js      the paper map (only on the map page)
 * The search code (core to results, then lunr.js and search-worker.js, which the engine starts)
 * loads on first use, ps.searchCode(): when a reader focuses or opens the header search, or
 * opens Explore. Loaded with every page, it was ~45 KB of scripts and ~115 KB of lunr and its
 * worker that most readers never used.
 * It also does the small things of a page itself: copy buttons, citation blocks on phones and the
 * paper's RIS and plain text (from the citation shards), the pre-filled "Fix this paper" link, the back-to-top arrow, and on pages drawn without Material's script
 * what that script did there. No build step, no request off this site. */
(function () {
  "use strict";

  var script = document.currentScript;
  // this file is <root>/assets/papersite/papersite.js
  var root = new URL("../../", script ? script.src : location.href);
  var ps = window.papersite || (window.papersite = {});

  ps.root = root;
  ps.asset = function (name) { return new URL("assets/papersite/" + name, root).href; };
  // a page of the site (a path relative to its root, as the schema's URLs are) as an absolute URL
  ps.href = function (path) { return new URL(path, root).href; };

  ps.loadScript = function (src, ordered) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = src; el.onload = resolve; el.onerror = reject;
      if (ordered) el.async = false; // run in the order added, as soon as each is in
      document.head.appendChild(el);
    });
  };

  // fn once the page is parsed (the modules come later and may find it parsed already)
  ps.ready = function (fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  };

  ps.el = function (tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  };

  ps.papersCount = function (n) { return n.toLocaleString("en") + (n === 1 ? " paper" : " papers"); };

  // Each module once, in the order first asked for (ordered scripts run in the order added); a
  // promise of the names' modules having run.
  var modules = {};
  function loadModules(names) {
    return Promise.all(names.map(function (name) {
      if (!modules[name]) {
        modules[name] = ps.loadScript(ps.asset("papersite-" + name + ".js"), true).catch(function (error) {
          if (window.console) console.warn("papersite: papersite-" + name + ".js could not be loaded");
          delete modules[name];  // asked again, it is fetched again
          throw error;
        });
      }
      return modules[name];
    }));
  }
  ps.loadModules = loadModules;
  var SEARCH_MODULES = ["core", "engine", "ranking", "results"];
  // the search code, loaded on its first use (the header search's box, Explore)
  ps.searchCode = function () { return loadModules(SEARCH_MODULES); };
  // what every page needs at once: the header's search box (empty until filled, and it loads the search code when used)
  loadModules(["header"]).catch(function () { /* warned */ });

  /* ---- copy buttons (BibTeX, RIS) ---- */
  function setupCopy() {
    // a Copy button for each citation block (setupCiteFromSite)
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
      // a block filled from the citation shards is copied once its text is in
      if (source.closest("[data-ps-cite]") && !source.textContent) {
        loadCitation().then(function () { copy(source, button); }, function () { copy(source, button); });
        return;
      }
      copy(source, button);
    });
    function copy(source, button) {
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
    }
  }

  /* ---- citation blocks: collapsed on phones, where they filled the screen ---- */
  function setupCite() {
    if (!window.matchMedia || !window.matchMedia("(max-width: 44.984375em)").matches) return;
    var blocks = document.querySelectorAll("details.ps-cite-details[open]");
    for (var i = 0; i < blocks.length; i++) blocks[i].open = false;
  }

  /* ---- the paper's citations, from the site's citation shards (site/exports.py) ----
     Their blocks are drawn here in the page's Cite section (render/paper_pages.py), whose heading
     waits for them, each a <details> open as drawn (closed on phones: setupCite) with a Copy button
     after it (setupCopy), outside its <summary>: a control inside a control is announced as neither
     (axe: nested-interactive). Their text is fetched when the section comes near the screen, or a
     block or its Copy button is first used. */
  var citation = null;
  function paperSlug() {  // a paper page's own slug (render/paper_pages.py PAPER_SLUG)
    var paper = document.querySelector(".ps-paper[data-ps-paper]");
    return paper && paper.getAttribute("data-ps-paper");
  }
  function loadCitation() {
    if (!citation) {
      var slug = paperSlug();
      citation = (slug ? loadModules(["saved"]).then(function () { return ps.citation(slug); }) : Promise.reject(new Error("no paper")))
        .then(function (row) {
          Array.prototype.forEach.call(document.querySelectorAll("[data-ps-cite]"), function (item) {
            var code = item.querySelector("code");
            if (code && typeof row[item.getAttribute("data-ps-cite")] === "string") code.textContent = row[item.getAttribute("data-ps-cite")];
          });
          return row;
        });
      citation.catch(function () {
        Array.prototype.forEach.call(document.querySelectorAll("[data-ps-cite] code"), function (code) {
          if (!code.textContent) code.textContent = "This citation could not be loaded. Reload the page to try again.";
        });
      });
    }
    return citation;
  }
  var CITED = [["bibtex", "BibTeX"], ["ris", "RIS"], ["text", "Plain text"]];
  function setupCiteFromSite() {
    var cite = document.querySelector(".ps-paper .ps-cite"), heading = document.getElementById("cite");
    if (!cite || !paperSlug()) return;
    if (heading) heading.hidden = false;
    CITED.forEach(function (format) {
      cite.insertAdjacentHTML("beforeend", '<div class="ps-cite-item" data-ps-cite="' + format[0] + '"><details class="ps-cite-details" open>' +
        "<summary>" + format[1] + '</summary><pre><code id="ps-' + format[0] + '"></code></pre></details></div>');
    });
    var items = cite.querySelectorAll("[data-ps-cite]");
    Array.prototype.forEach.call(items, function (item) {
      var details = item.querySelector("details");
      if (details) details.addEventListener("toggle", function () { if (details.open) loadCitation(); });
      item.addEventListener("pointerenter", loadCitation);
      item.addEventListener("focusin", loadCitation);
    });
    var section = items[0].parentNode;
    if (window.IntersectionObserver) {
      var seen = new IntersectionObserver(function (entries) {
        if (entries.some(function (e) { return e.isIntersecting; })) { seen.disconnect(); loadCitation(); }
      }, { rootMargin: "300px" });
      seen.observe(section);
    } else {
      loadCitation();
    }
  }

  /* ---- "Fix this paper": the form pre-filled with what the page says ----
     The page links to the bare form (a reader without scripts still reaches it, on this paper); the
     pre-filled link is in the site's fix shards (site/exports.py, corrections/form.py), without the
     abstract, which is appended whole where the shard gives it or says the page shows it as it is
     (where it fits the link's bytes; else left out: an empty field changes nothing). Put in the link's place when the reader comes near it, so that
     opening it in a new tab gets it too; a click before it is in waits for it. */
  // the abstract section's text on one line: its paragraphs joined by a space, runs of whitespace as one
  function pageAbstract() {
    var section = document.querySelector(".ps-abstract");  // the page's own (render/paper_pages.py), the first
    if (!section) return "";
    var paragraphs = Array.prototype.map.call(section.querySelectorAll("p"), function (p) { return p.textContent; });
    return paragraphs.join(" ").split(/\s+/).filter(Boolean).join(" ");
  }
  function setupFixLink() {
    var link = document.querySelector("a[data-ps-fix]");
    if (!link || !paperSlug()) return;
    var ready = null;
    function prefilled() {
      if (!ready) {
        var slug = paperSlug();
        ready = loadModules(["saved"]).then(function () { return ps.fixLink(slug); }).then(function (row) {
          // the abstract is there only where the link stays within its bytes (exports.fix_row); null:
          // this page's abstract section shows it as it is (exports.abstract_on_page)
          var abstract = row.abstract === null ? pageAbstract() : row.abstract;
          var url = abstract ? row.url + "&abstract=" + encodeURIComponent(abstract) : row.url;
          link.href = url;
          return url;
        });
      }
      return ready;
    }
    ["pointerenter", "focus", "touchstart"].forEach(function (name) { link.addEventListener(name, function () { prefilled().catch(function () { /* the bare form stays */ }); }, { passive: true }); });
    link.addEventListener("click", function (e) {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      var bare = link.href;
      e.preventDefault();
      prefilled().then(function (url) { location.href = url; }, function () { location.href = bare; });
    });
  }

  /* ---- the back-to-top button's arrow on the detail pages (templates/partials/top.html) ----
     The button is hidden until a script shows it, so its arrow is drawn here (it was
     0.1 KB of each of 48k pages at 12k papers). */
  function addTopArrow() {
    var button = document.querySelector(".md-top");
    if (!button || button.querySelector("svg")) return;
    var svgNS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(svgNS, "svg"), use = document.createElementNS(svgNS, "use");
    svg.setAttribute("viewBox", "0 0 24 24");
    use.setAttribute("href", ps.asset("icons.svg") + "#arrow-up");
    svg.appendChild(use);
    button.insertBefore(document.createTextNode(" "), button.firstChild);
    button.insertBefore(svg, button.firstChild);
  }

  /* ---- where Material's script is not loaded (the generated detail pages: templates/partials/ps-light.html) ----
     What it did there, done as it did it: the page's "js" class (the header search shows with it),
     the header's shadow once the page is scrolled, the back-to-top button while the reader scrolls
     back up, folded blocks opened for printing, code blocks that scroll reachable by Tab, the
     keyboard's focus ring, and the search closed when the address's #fragment changes. Its ~70 KB script and its chrome were
     0.5 KB of each of ~48k pages at 12k papers, for these alone. */
  var html = document.documentElement, materialRan = !html.classList.contains("no-js");
  if (!materialRan) { html.classList.remove("no-js"); html.classList.add("js"); }

  function standInForMaterial() {
    if (materialRan) return;
    var header = document.querySelector(".md-header"), main = document.querySelector(".md-main");
    var top = document.querySelector(".md-top"), lastY = window.scrollY;
    function scrolled() {
      var y = window.scrollY;
      // past the top of the content (as Material's main component says), the header casts its shadow
      var active = main ? main.offsetTop - (header ? header.offsetHeight : 0) <= y : y > 0;
      if (header) header.classList.toggle("md-header--shadow", active);
      if (top) {
        var hidden = !(active && y < lastY && y > 0);  // shown while scrolling back up
        if (top.hidden !== hidden) {
          top.hidden = hidden;
          if (hidden) { top.setAttribute("tabindex", "-1"); if (document.activeElement === top) top.blur(); }
          else top.removeAttribute("tabindex");
        }
      }
      lastY = y;
    }
    if (top) {
      top.setAttribute("tabindex", "-1");
      top.addEventListener("click", function (e) { e.preventDefault(); window.scrollTo({ top: 0 }); });
    }
    window.addEventListener("scroll", scrolled, { passive: true });
    scrolled();

    var folded = [];
    window.addEventListener("beforeprint", function () {
      folded = Array.prototype.filter.call(document.querySelectorAll(".md-content details:not([open]), .ps-page details:not([open])"), function (d) { return (d.open = true); });
    });
    window.addEventListener("afterprint", function () { folded.forEach(function (d) { d.open = false; }); folded = []; });

    // a code block wider than the screen scrolls, and a keyboard scrolls only what it can focus
    var codes = document.querySelectorAll(".md-typeset pre > code");
    if (codes.length && window.ResizeObserver) {
      var watch = new ResizeObserver(function (entries) {
        entries.forEach(function (entry) {
          var code = entry.target;
          if (code.scrollWidth > code.clientWidth || code.scrollHeight > code.clientHeight) code.setAttribute("tabindex", "0");
          else code.removeAttribute("tabindex");
        });
      });
      Array.prototype.forEach.call(codes, function (code) { watch.observe(code); });
    }

    // Material's CSS draws a keyboard's focus ring on links, summaries, code and header buttons only
    // where its script marked the element ".focus-visible" (and takes the ring off the others)
    document.addEventListener("focusin", function (e) {
      var el = e.target;
      if (el && el.matches && el.matches(":focus-visible")) el.classList.add("focus-visible");
    });
    document.addEventListener("focusout", function (e) { if (e.target && e.target.classList) e.target.classList.remove("focus-visible"); });

    window.addEventListener("hashchange", function () {
      var toggle = document.getElementById("__search");
      if (toggle && toggle.checked) { toggle.checked = false; toggle.dispatchEvent(new Event("change")); }
    });
  }

  ps.ready(function () {
    // Save buttons before Explore, which adds them to its results (modules run in the order asked for)
    if (document.querySelector(".ps-papers, [data-ps-paper], [data-ps-save], [data-ps-saved], [data-ps-explore]")) loadModules(["saved"]).catch(function () { /* warned */ });
    if (document.querySelector("[data-ps-explore]")) loadModules(SEARCH_MODULES.concat(["explore"])).catch(function () { /* warned */ });
    if (document.querySelector("[data-ps-list]")) loadModules(["core", "lists"]).catch(function () { /* warned */ });
    // the map's own search filter loads the search code when it is first used
    if (document.querySelector("[data-ps-map]")) loadModules(["map"]).catch(function () { /* warned */ });
    setupCiteFromSite(); setupCopy(); setupCite(); setupFixLink(); addTopArrow(); standInForMaterial();
  });
})();
