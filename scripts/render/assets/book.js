/* book.js: the menu button of narrow screens, tables that scroll, and the "On this page" list.
   No dependency, no network; works from file://. */
(function () {
  "use strict";

  /* ---- the contents menu below 800px ---- */
  var button = document.querySelector(".nav-button");
  function menu(open) {
    button.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("nav-open", open);
  }
  if (button) {
    button.addEventListener("click", function () {
      menu(button.getAttribute("aria-expanded") !== "true");
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && document.body.classList.contains("nav-open")) {
        menu(false);
        button.focus();
      }
    });
    /* following a link of the open menu closes it */
    document.getElementById("sidebar").addEventListener("click", function (event) {
      if (event.target.closest("a")) menu(false);
    });
  }

  /* ---- tables that scroll sideways: .scrolls (shadows, caption hint) ---- */
  var wraps = Array.prototype.slice.call(document.querySelectorAll(".table-wrap"));
  function markScrolling() {
    wraps.forEach(function (w) {
      w.classList.toggle("scrolls", w.scrollWidth > w.clientWidth + 1);
    });
  }
  markScrolling();
  window.addEventListener("resize", markScrolling);

  /* ---- "On this page": open beside the text, folded on narrow screens ---- */
  var toc = document.querySelector(".page-toc");
  if (!toc) return;
  var wide = window.matchMedia("(min-width: 1100px)");
  var fold = function () { toc.open = wide.matches; };
  fold();
  if (wide.addEventListener) wide.addEventListener("change", fold);

  var links = Array.prototype.slice.call(toc.querySelectorAll("a[href^='#']"));
  var entries = links.map(function (link) {
    return { link: link, target: document.getElementById(decodeURIComponent(link.hash.slice(1))) };
  }).filter(function (e) { return e.target; });
  if (!entries.length || !("IntersectionObserver" in window)) return;

  /* The section in view is the last heading above a line 30% down the
     viewport (the first section before any heading has scrolled past it). */
  var current = null;
  function update() {
    var line = window.innerHeight * 0.3;
    var active = entries[0];
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].target.getBoundingClientRect().top <= line) active = entries[i];
      else break;
    }
    if (active === current) return;
    if (current) { current.link.classList.remove("active"); current.link.removeAttribute("aria-current"); }
    active.link.classList.add("active");
    active.link.setAttribute("aria-current", "location");
    current = active;
  }
  var observer = new IntersectionObserver(update, { rootMargin: "0px 0px -70% 0px", threshold: [0, 1] });
  entries.forEach(function (e) { observer.observe(e.target); });
  window.addEventListener("scroll", function () { window.requestAnimationFrame(update); }, { passive: true });
  update();
})();
