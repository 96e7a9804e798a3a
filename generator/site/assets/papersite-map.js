/* papersite map: the map page's canvas (render/map_page.py). Every paper is a point placed at
 * build time (paper_map.py); map.json.gz holds the points and each paper's topic, decision and
 * common keywords as numbers, in the order of the page's link lists, whose links give each
 * paper's title and address. Hover shows a title, a click opens the paper, a drag selects a
 * region and lists its papers and their commonest keywords; the search, topic and decision
 * filters highlight the papers they keep. Drawn on one canvas: 11,672 SVG nodes were too many. */
(function (ps) {
  "use strict";

  var el = ps.el, papersCount = ps.papersCount;
  var FADED = "#d5d7de", MARK = "#1a1a1a", SHOWN = 100;  // papers a selection lists before "more"

  function loadData(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": " + r.status);
      return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).json();  // stored gzipped (stage.py)
    });
  }

  function setupMap() {
    var box = document.querySelector("[data-ps-map]");
    if (!box) return;
    var begun = performance.now();
    var canvas = box.querySelector("canvas"), tip = box.querySelector("[data-ps-map-tip]");
    var form = document.querySelector("[data-ps-map-filters]"), status = document.querySelector("[data-ps-map-status]");
    var panel = document.querySelector("[data-ps-map-selection]");
    var links = Array.prototype.slice.call(document.querySelectorAll("[data-ps-map-list] ul a"));
    status.textContent = "Loading the map…";

    loadData(new URL(box.getAttribute("data-ps-map"), location.href).href).then(function (data) {
      if (data.version !== 1 || data.papers !== links.length) {
        status.textContent = "The map's data does not match this page: the papers are listed below.";
        return;
      }
      var n = data.papers, xs = data.x, ys = data.y;
      var colourOf = new Array(n), areaOf = new Int32Array(n), byColour = new Map(), indexOfHref = new Map();
      for (var i = 0; i < n; i++) {
        var t = data.topics[data.topic[i]];
        areaOf[i] = t ? t[1] : -1;
        colourOf[i] = t ? data.areas[t[1]][1] : data.no_topic[1];
        if (!byColour.has(colourOf[i])) byColour.set(colourOf[i], []);
        byColour.get(colourOf[i]).push(i);
        indexOfHref.set(links[i].href, i);
      }
      box.hidden = false; form.hidden = false;
      var help = document.querySelector("[data-ps-map-help]");
      if (help) help.hidden = false;

      var ctx = canvas.getContext("2d"), side = 0, left = 0, top = 0, radius = 2, width = 0, height = 0;
      var kept = null;       // Uint8Array: the papers the filters keep (null: no filter)
      var brush = null;      // {x0, y0, x1, y1} in CSS pixels while or after dragging
      var marked = -1;       // a paper whose link has the focus: ringed
      var buckets = null, CELL = 12;

      // the points' extent: the map fills the canvas, one scale on both axes (distances mean the same either way)
      var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (var j = 0; j < n; j++) {
        x0 = Math.min(x0, xs[j]); x1 = Math.max(x1, xs[j]); y0 = Math.min(y0, ys[j]); y1 = Math.max(y1, ys[j]);
      }
      var spanX = Math.max(x1 - x0, 1), spanY = Math.max(y1 - y0, 1);
      function px(i) { return left + (xs[i] - x0) * side; }
      function py(i) { return top + (ys[i] - y0) * side; }

      function resize() {
        width = box.clientWidth;
        var pad = 10, tallest = Math.max(300, window.innerHeight - 140);
        side = Math.min((width - 2 * pad) / spanX, (tallest - 2 * pad) / spanY);  // CSS pixels per grid cell
        height = Math.round(spanY * side + 2 * pad);
        left = (width - spanX * side) / 2; top = pad;
        radius = Math.max(1.6, Math.min(4.5, Math.sqrt(spanX * side * spanY * side / n) * 0.22));
        var ratio = window.devicePixelRatio || 1;
        canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
        canvas.style.width = width + "px"; canvas.style.height = height + "px";
        ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
        buckets = new Map();
        for (var i = 0; i < n; i++) {
          var key = Math.floor(px(i) / CELL) + "," + Math.floor(py(i) / CELL);
          if (!buckets.has(key)) buckets.set(key, []);
          buckets.get(key).push(i);
        }
        draw();
      }

      function dots(indices, colour, r) {
        ctx.fillStyle = colour;
        ctx.beginPath();
        indices.forEach(function (i) { var x = px(i), y = py(i); ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI); });
        ctx.fill();
      }

      function draw() {
        ctx.clearRect(0, 0, width, height);
        if (kept) {
          dots(Array.from({ length: n }, function (_, i) { return i; }).filter(function (i) { return !kept[i]; }), FADED, radius);
          byColour.forEach(function (indices, colour) { dots(indices.filter(function (i) { return kept[i]; }), colour, radius + 1); });
        } else {
          byColour.forEach(function (indices, colour) { dots(indices, colour, radius); });
        }
        if (marked >= 0) {
          ctx.strokeStyle = MARK; ctx.lineWidth = 2;
          ctx.beginPath(); ctx.arc(px(marked), py(marked), radius + 5, 0, 2 * Math.PI); ctx.stroke();
        }
        if (brush) {
          ctx.fillStyle = "rgba(63, 81, 181, 0.08)"; ctx.strokeStyle = "#3f51b5"; ctx.lineWidth = 1;
          var x = Math.min(brush.x0, brush.x1), y = Math.min(brush.y0, brush.y1);
          ctx.fillRect(x, y, Math.abs(brush.x1 - brush.x0), Math.abs(brush.y1 - brush.y0));
          ctx.strokeRect(x + 0.5, y + 0.5, Math.abs(brush.x1 - brush.x0), Math.abs(brush.y1 - brush.y0));
        }
      }

      // the paper nearest to (x, y) within reach, among those the filters keep when they keep some
      function nearest(x, y) {
        var best = -1, bestD = Math.pow(Math.max(radius + 4, 8), 2);
        var cx = Math.floor(x / CELL), cy = Math.floor(y / CELL);
        for (var dx = -1; dx <= 1; dx++) for (var dy = -1; dy <= 1; dy++) {
          (buckets.get((cx + dx) + "," + (cy + dy)) || []).forEach(function (i) {
            if (kept && !kept[i]) return;
            var d = Math.pow(px(i) - x, 2) + Math.pow(py(i) - y, 2);
            if (d < bestD || (d === bestD && i < best)) { bestD = d; best = i; }
          });
        }
        return best;
      }

      function where(event) {
        var rect = canvas.getBoundingClientRect();
        return { x: event.clientX - rect.left, y: event.clientY - rect.top };
      }

      function topicName(i) {
        var t = data.topics[data.topic[i]];
        return t ? t[0] : data.no_topic[0];
      }

      function showTip(i, at) {
        if (i < 0) { tip.hidden = true; canvas.style.cursor = "crosshair"; return; }
        tip.textContent = "";
        tip.appendChild(el("strong", {}, [links[i].textContent]));
        tip.appendChild(el("span", { "class": "ps-meta" }, [topicName(i) + " · " + data.decisions[data.decision[i]]]));
        tip.hidden = false;
        var x = Math.min(at.x + 14, width - tip.offsetWidth - 4), y = at.y + 16;
        if (y + tip.offsetHeight > height) y = at.y - tip.offsetHeight - 12;
        tip.style.left = Math.max(4, x) + "px"; tip.style.top = Math.max(4, y) + "px";
        canvas.style.cursor = "pointer";
      }

      var down = null;
      canvas.addEventListener("pointerdown", function (e) {
        if (e.button !== 0) return;
        down = where(e); canvas.setPointerCapture(e.pointerId);
      });
      canvas.addEventListener("pointermove", function (e) {
        var at = where(e);
        if (down && (Math.abs(at.x - down.x) > 4 || Math.abs(at.y - down.y) > 4)) {
          brush = { x0: down.x, y0: down.y, x1: at.x, y1: at.y };
          tip.hidden = true; draw();
          return;
        }
        if (!down) showTip(nearest(at.x, at.y), at);
      });
      canvas.addEventListener("pointerleave", function () { if (!down) tip.hidden = true; });
      canvas.addEventListener("pointerup", function (e) {
        if (!down) return;
        var at = where(e), dragged = brush && (Math.abs(at.x - down.x) > 4 || Math.abs(at.y - down.y) > 4);
        down = null;
        if (dragged) { brush.x1 = at.x; brush.y1 = at.y; draw(); select(); return; }
        var i = nearest(at.x, at.y);
        if (i >= 0) location.href = links[i].href;
      });
      canvas.addEventListener("pointercancel", function () { down = null; });

      // the papers in the brushed region (those the filters keep, when a filter is set), listed with their keywords
      function select() {
        var x0 = Math.min(brush.x0, brush.x1), x1 = Math.max(brush.x0, brush.x1);
        var y0 = Math.min(brush.y0, brush.y1), y1 = Math.max(brush.y0, brush.y1);
        var inside = [], counts = new Map();
        for (var i = 0; i < n; i++) {
          var x = px(i), y = py(i);
          if (x < x0 || x > x1 || y < y0 || y > y1 || (kept && !kept[i])) continue;
          inside.push(i);
          data.keywords[i].forEach(function (k) { counts.set(k, (counts.get(k) || 0) + 1); });
        }
        panel.textContent = "";
        panel.hidden = false;
        panel.appendChild(el("h2", {}, [papersCount(inside.length) + " in the selected region"]));
        var common = Array.from(counts.keys()).sort(function (a, b) { return counts.get(b) - counts.get(a) || a - b; }).slice(0, 10);
        if (common.length) {
          var line = el("p", { "class": "ps-facet" }, [el("strong", {}, ["Most common keywords: "])]);
          common.forEach(function (k) {
            var name = data.keyword_names[k][0], href = ps.href(data.keyword_url.replace("{slug}", data.keyword_names[k][1]));
            line.appendChild(el("a", { "class": "ps-chip", href: href }, [name + " (" + counts.get(k) + ")"]));
          });
          panel.appendChild(line);
        }
        var list = el("ol", { "class": "ps-map-papers" });
        inside.slice(0, SHOWN).forEach(function (i) {
          list.appendChild(el("li", {}, [el("a", { href: links[i].href }, [links[i].textContent]), " ",
            el("span", { "class": "ps-meta" }, [topicName(i)])]));
        });
        panel.appendChild(list);
        if (inside.length > SHOWN) panel.appendChild(el("p", {}, ["… and " + (inside.length - SHOWN).toLocaleString("en") + " more: select a smaller region."]));
        var clear = el("button", { type: "button", "class": "md-button" }, ["Clear the selection"]);
        clear.addEventListener("click", function () { brush = null; panel.hidden = true; panel.textContent = ""; draw(); });
        panel.appendChild(clear);
      }

      // a paper's link in the lists has the focus: its point is ringed
      document.querySelector("[data-ps-map-list]").addEventListener("focusin", function (e) {
        var i = e.target.href !== undefined ? indexOfHref.get(e.target.href) : undefined;
        marked = i === undefined ? -1 : i; draw();
      });

      /* ---- filters: search (the site's search engine), topic, decision ---- */
      var q = form.elements.q, topic = form.elements.topic, decision = form.elements.decision, serial = 0, hooked = false;
      function topicTest() {
        if (!topic.value) return null;
        var wanted = new Set();
        data.topics.forEach(function (t, number) {
          if (t[0] === topic.value || (data.areas[t[1]][0] === topic.value)) wanted.add(number);
        });
        return function (i) { return wanted.has(data.topic[i]); };
      }
      function apply(found, partial) {  // found: Set of paper numbers the search finds, or null (no query); partial: abstracts not searched yet
        var inTopic = topicTest(), d = decision.value ? data.decisions.indexOf(decision.value) : -1;
        if (!found && !inTopic && d < 0) { kept = null; status.textContent = "All " + papersCount(n) + "."; }
        else {
          kept = new Uint8Array(n);
          var count = 0;
          for (var i = 0; i < n; i++) {
            if ((!found || found.has(i)) && (!inTopic || inTopic(i)) && (d < 0 || data.decision[i] === d)) { kept[i] = 1; count++; }
          }
          status.textContent = papersCount(count) + " of " + n.toLocaleString("en") + " highlighted" +
            (partial ? " so far: still searching the abstracts…" : ".");
        }
        draw();
        if (brush && !panel.hidden) select();
      }
      function update() {
        var mine = ++serial, text = q.value.trim();
        if (!text) { apply(null); return; }
        if (!kept) status.textContent = "Searching…";  // else the last answer stays until the next one
        // the search code loads on its first use (papersite.js ps.searchCode)
        // (the store whole: every paper found is a point to light, by its URL)
        ps.searchCode().then(function () { return ps.engine.load(); }).then(function (eng) { return eng.whole(); }).then(function (eng) {
          // once the abstracts are searched too, the highlight is drawn again from the full answer
          if (!hooked) { hooked = true; eng.onFull.push(function () { if (q.value.trim()) update(); }); }
          return ps.ranking.search(eng, text).then(function (result) {
            if (!result || mine !== serial) return;
            var found = new Set();
            result.numbers.forEach(function (number) {
              var i = indexOfHref.get(ps.results.paperHref(eng, eng.store.papers[number]));
              if (i !== undefined) found.add(i);
            });
            apply(found, !result.full);
          });
        }).catch(function () { if (mine === serial) status.textContent = "The search index could not be loaded."; });
      }
      q.addEventListener("input", update);
      topic.addEventListener("change", update);
      decision.addEventListener("change", update);
      form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
      form.addEventListener("reset", function () { setTimeout(update, 0); });

      var waiting = null;
      window.addEventListener("resize", function () { clearTimeout(waiting); waiting = setTimeout(resize, 100); });
      resize();
      apply(null);
      ps.engine && ps.engine.measure && ps.engine.measure("papersite map drawn", begun);
      box.setAttribute("data-ps-map-drawn", String(Math.round(performance.now())));
    }).catch(function (error) {
      if (window.console) console.warn("papersite:", error);
      status.textContent = "The map could not be loaded: the papers are listed below.";
    });
  }

  ps.ready(setupMap);
})(window.papersite);
