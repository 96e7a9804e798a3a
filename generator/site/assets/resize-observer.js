// ResizeObserver for a browser without one (before 2020), loaded by the theme's script from the site itself.
//
// The theme's script (Material's and Zensical's) watches the header, tabs and sidebars through ResizeObserver and,
// where the browser has none, fetched a polyfill from unpkg.com: a request to a third party from every page such
// a reader opened. The post-build step points it here instead (postbuild.write_bundles). What the theme reads is an
// entry's target (it measures the element itself), so this observer compares each element's offset size whenever
// something may have moved it (the window resized, the page's nodes or styles changed, a transition ended) and says
// which changed; as the standard one, it says so once for each element when it begins to watch it.
(function () {
  "use strict";
  if (typeof window.ResizeObserver === "function") return;

  var observers = [];
  var pending = false;

  function sizeOf(element) {
    return { width: element.offsetWidth, height: element.offsetHeight };
  }

  function check() {
    pending = false;
    observers.slice().forEach(function (observer) {
      var entries = [];
      observer.watched.forEach(function (watched) {
        var now = sizeOf(watched.target);
        if (!watched.size || now.width !== watched.size.width || now.height !== watched.size.height) {
          watched.size = now;
          entries.push({
            target: watched.target,
            contentRect: { x: 0, y: 0, top: 0, left: 0, width: now.width, height: now.height,
                           right: now.width, bottom: now.height }
          });
        }
      });
      if (entries.length) observer.callback.call(observer, entries, observer);
    });
  }

  function soon() {
    if (pending) return;
    pending = true;
    (window.requestAnimationFrame || function (f) { return setTimeout(f, 16); })(check);
  }

  function ResizeObserver(callback) {
    if (typeof callback !== "function") throw new TypeError("ResizeObserver: the callback must be a function");
    this.callback = callback;
    this.watched = [];
  }

  ResizeObserver.prototype.observe = function (target) {
    if (this.watched.some(function (watched) { return watched.target === target; })) return;
    this.watched.push({ target: target, size: null });
    if (observers.indexOf(this) < 0) observers.push(this);
    soon();
  };

  ResizeObserver.prototype.unobserve = function (target) {
    this.watched = this.watched.filter(function (watched) { return watched.target !== target; });
    if (!this.watched.length) this.disconnect();
  };

  ResizeObserver.prototype.disconnect = function () {
    this.watched = [];
    var at = observers.indexOf(this);
    if (at >= 0) observers.splice(at, 1);
  };

  window.ResizeObserver = ResizeObserver;
  window.addEventListener("resize", soon);
  window.addEventListener("load", soon);
  document.addEventListener("transitionend", soon, true);
  document.addEventListener("animationend", soon, true);
  if (typeof MutationObserver === "function") {
    new MutationObserver(soon).observe(document.documentElement,
      { attributes: true, childList: true, characterData: true, subtree: true });
  }
})();
