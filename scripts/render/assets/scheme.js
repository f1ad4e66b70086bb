/* scheme.js: the reader's light/dark choice (the ◐ button, book.js), applied
   before the page is drawn: loaded in <head>, not deferred. Without a kept
   choice the system's preference holds (book.css). */
(function () {
  "use strict";
  try {
    var kept = localStorage.getItem("book-scheme");
    if (kept === "light" || kept === "dark") document.documentElement.dataset.scheme = kept;
  } catch (e) { /* storage refused (private mode, some file:// pages): nothing kept */ }
})();
