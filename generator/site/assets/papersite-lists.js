/* papersite lists: the paper lists with controls (all papers, topics, keywords, authors; written by
 * render/paper_pages.py list_controls and render/indices.py papers_page) filtered and sorted in
 * place. The filter matches folded words (papersite-core.js fold, the build's fold): an item's
 * data-text was folded by the build, its title is folded here. */
(function (ps) {
  "use strict";

  var fold = ps.core.fold;

  // "First author": an item without data-first has no known first author (components.first_author_data)
  // and goes last; a collation would sort a stand-in like "~" before letters
  function byFirstAuthor(a, b) {
    var x = a.getAttribute("data-first"), y = b.getAttribute("data-first");
    if (!x !== !y) return x ? -1 : 1;
    return (x ? x.localeCompare(y) : 0) || a._order - b._order;
  }

  function setupPaperList(controls) {
    var list = document.getElementById(controls.getAttribute("data-ps-list"));
    if (!list) return;
    var items = Array.prototype.slice.call(list.children);
    // what every item carries (a keyword page's own keyword), held once by the list (components.paper_list)
    var common = list.getAttribute("data-text");
    items.forEach(function (li, i) {
      li._order = i;
      var title = li.querySelector("a");  // the item's data-text holds its authors and keywords (components._item_data)
      li._text = fold(title ? title.textContent : "") + " " + (li.getAttribute("data-text") || "") + (common ? " " + common : "");
    });
    var filter = controls.querySelector("[data-ps-filter]");
    var area = controls.querySelector("[data-ps-area]"); // absent where every paper has the same area
    var decision = controls.querySelector("[data-ps-decision]");
    var venue = controls.querySelector("[data-ps-venue]"); // only where the papers have more than one venue
    var sort = controls.querySelector("[data-ps-sort]");
    var shown = controls.querySelector("[data-ps-shown]");
    function apply() {
      var words = fold(filter.value).split(" ").filter(Boolean);
      var n = 0;
      items.forEach(function (li) {
        var text = li._text;
        var ok = (!area || !area.value || li.getAttribute("data-area") === area.value) &&
          (!decision || !decision.value || li.getAttribute("data-decision") === decision.value) &&
          (!venue || !venue.value || li.getAttribute("data-venue") === venue.value) &&
          words.every(function (w) { return text.indexOf(w) >= 0; });
        li.hidden = !ok; if (ok) n++;
      });
      var key = sort.value, sorted = items.slice();
      sorted.sort(function (a, b) {
        if (key === "title-desc") return b._order - a._order;
        if (key === "area") return a.getAttribute("data-area").localeCompare(b.getAttribute("data-area")) || a._order - b._order;
        if (key === "author") return byFirstAuthor(a, b);
        return a._order - b._order;
      });
      var frag = document.createDocumentFragment();
      sorted.forEach(function (li) { frag.appendChild(li); });
      list.appendChild(frag);
      shown.textContent = ps.papersCount(n);
    }
    filter.addEventListener("input", apply);
    if (area) area.addEventListener("change", apply);
    if (decision) decision.addEventListener("change", apply);
    if (venue) venue.addEventListener("change", apply);
    sort.addEventListener("change", apply);
  }

  ps.lists = { setup: setupPaperList };
  ps.ready(function () {
    Array.prototype.forEach.call(document.querySelectorAll("[data-ps-list]"), setupPaperList);
  });
})(window.papersite);
