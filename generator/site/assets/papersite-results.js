/* papersite results: a found paper as header search and Explore show it: its link, its
 * author line, topic and decision, the query's words marked, an abstract snippet; and the
 * line that sums up what matched. ps.results: {marked, paperHref, paperMeta, addSnippets, summary}. */
(function (ps) {
  "use strict";

  var el = ps.el, papersCount = ps.papersCount;

  // text -> a fragment with the matched words in <mark>: text nodes only, never HTML
  var TOKEN = /([\p{L}\p{N}_]+)/u;
  function marked(text, match) {
    var frag = document.createDocumentFragment();
    text.split(TOKEN).forEach(function (piece, i) {
      if (!piece) return;
      if (i % 2 && match(piece)) {
        var m = document.createElement("mark");
        m.textContent = piece;
        frag.appendChild(m);
      } else {
        frag.appendChild(document.createTextNode(piece));
      }
    });
    return frag;
  }

  // about 30 words of an abstract around its first matched word, or null when no word matched there
  function snippet(text, match) {
    var pieces = (text || "").split(TOKEN), hit = -1;
    for (var i = 1; i < pieces.length; i += 2) if (match(pieces[i])) { hit = i; break; }
    if (hit < 0) return null;
    var from = Math.max(0, hit - 16), to = Math.min(pieces.length, hit + 50);
    var cut = (from > 0 ? "…" : "") + pieces.slice(from, to).join("").trim() + (to < pieces.length ? "…" : "");
    return marked(cut, match);
  }

  // "12 papers match every word, 340 match some; no paper mentions “jailbreak”"
  function summary(result, shown) {
    var n = shown === undefined ? result.numbers.length : shown;
    var all = Math.min(result.all, n), text;
    var held = result.query ? result.query.parts.filter(function (p) { return result.missing.indexOf(p.label) < 0; }) : [];
    var match = function (k) { return k === 1 ? " matches" : " match"; };
    if (!n) text = "No paper matches";
    else if (result.missing.length && held.length === 1) text = papersCount(n) + match(n) + " \u201c" + held[0].label + "\u201d";
    else if (result.parts <= 1 || all === n) text = papersCount(n) + (result.parts > 1 ? match(n) + " every word" : "");
    else text = (all ? papersCount(all) + match(all) + " every word" : "No paper matches every word") + ", " +
      n.toLocaleString("en") + match(n) + " some";
    if (result.missing.length && result.full) {
      text += "; no paper mentions " + result.missing.map(function (m) { return "\u201c" + m + "\u201d"; }).join(", ");
    }
    return text;
  }


  // a paper's page (p: its row in the store, eng.paper(n))
  function paperHref(eng, p) { return ps.href(eng.schema.url("paper", p[eng.schema.col.slug])); }

  // a row's authors (ids) and order letter as a list's line says them (papersite-core.js authorLine)
  function authorLine(eng, ids, order) {
    var orders = eng.schema.orders;
    var names = ids.slice(0, 3).map(function (i) { return eng.authorName(i); }); // (a rows file names the first three)
    return ps.core.authorLine(names, ids.length, order ? orders[order] || orders.u : null);
  }

  // "Authors · Topic · Decision" (· Venue, where papers have more than one), leaving out whichever part a paper lacks.
  function paperMeta(eng, p) {
    var head = eng.head, col = eng.schema.col; // (the store's head: topics, decisions, venues)
    var parts = [authorLine(eng, p[col.authors], p[col.order])];
    if (p[col.topic] != null) parts.push(head.topics[p[col.topic]][eng.schema.topicCol.label]);
    if (p[col.decision] != null && head.decisions) parts.push(head.decisions[p[col.decision]]);
    if (p[col.venue] != null && (head.venues || []).length > 1) parts.push(head.venues[p[col.venue]]);
    return parts.filter(function (part) { return part; }).join(" · ");
  }

  /* Abstract snippets under the shown results, once the abstracts' texts are in:
   * items[i] gets the snippet of numbers[i] (appended to its `into` element). */
  function addSnippets(eng, numbers, targets, match, still) {
    if (!eng.abstracts || !numbers.length) return;
    eng.abstracts.ask({ type: "texts", refs: numbers }).then(function (answer) {
      if (!answer || !answer.texts || !still()) return; // (texts that could not load: no snippets)
      answer.texts.forEach(function (text, i) {
        var cut = snippet(text, match);
        if (cut) targets[i].appendChild(el("p", { "class": "ps-snippet" }, [cut]));
      });
    });
  }

  ps.results = { marked: marked, paperHref: paperHref, paperMeta: paperMeta, addSnippets: addSnippets, summary: summary };
})(window.papersite);
