/* scheme.js: light or dark, applied before the page is drawn (loaded in <head>,
   not deferred): data-scheme on <html> (book.css) is the reader's kept choice
   (the ◐ button, book.js), else the system's preference, followed while the
   page is open. */
(function () {
  "use strict";
  var root = document.documentElement;
  var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function kept() {
    try {
      var choice = localStorage.getItem("book-scheme");
      return choice === "light" || choice === "dark" ? choice : null;
    } catch (e) { return null; }   /* storage refused (private mode, some file:// pages) */
  }
  function apply() {
    root.dataset.scheme = kept() || (system && system.matches ? "dark" : "light");
  }
  apply();
  if (system && system.addEventListener) system.addEventListener("change", apply);
})();
