/* book.js: the menu button of narrow screens, the light/dark button, tables that scroll,
   and the "On this page" list. No dependency, no network; works from file://. */
(function () {
  "use strict";

  /* ---- light or dark: ◐ flips data-scheme on <html> (set by scheme.js from the
     kept choice or the system's) and keeps the choice in localStorage ---- */
  var root = document.documentElement;
  var systemDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var schemeButtons = Array.prototype.slice.call(document.querySelectorAll(".scheme-button"));
  function isDark() { return root.dataset.scheme === "dark"; }
  function showScheme() {
    schemeButtons.forEach(function (b) { b.setAttribute("aria-pressed", String(isDark())); });
  }
  schemeButtons.forEach(function (b) {
    b.addEventListener("click", function () {
      root.dataset.scheme = isDark() ? "light" : "dark";
      try { localStorage.setItem("book-scheme", root.dataset.scheme); } catch (e) { /* not kept */ }
      showScheme();
    });
  });
  if (systemDark && systemDark.addEventListener) systemDark.addEventListener("change", showScheme);
  showScheme();

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

  /* ---- tables, figures and display formulas that scroll sideways: .scrolls (hints) ----
     On a phone (at most 480px) a table with a header row that is wider than
     the column is stacked instead (.stacked, book.css): each row a card of
     "header: value" lines, so a long column (Table B.1's Meaning) gets the
     column's width. Its cells carry their header (data-label) and ARIA roles
     (display: block takes a table's own away). */
  var wraps = Array.prototype.slice.call(document.querySelectorAll(".table-wrap, .figure-scroll"));
  var equations = Array.prototype.slice.call(document.querySelectorAll(".equation"));
  var phone = window.matchMedia ? window.matchMedia("(max-width: 480px)") : null;
  function labelCells(w) {
    if (w.dataset.labelled) return;
    var heads = Array.prototype.map.call(w.querySelectorAll("thead th"), function (th) {
      th.setAttribute("role", "columnheader");
      return th.textContent.trim();
    });
    var roles = { TABLE: "table", THEAD: "rowgroup", TBODY: "rowgroup", TR: "row", TD: "cell" };
    Array.prototype.forEach.call(w.querySelectorAll("table, thead, tbody, tr, td"), function (e) {
      e.setAttribute("role", roles[e.tagName]);
    });
    Array.prototype.forEach.call(w.querySelectorAll("tbody tr"), function (row) {
      Array.prototype.forEach.call(row.children, function (cell, i) {
        if (heads[i]) cell.setAttribute("data-label", heads[i]);
      });
    });
    w.dataset.labelled = "true";
  }
  function overflows(w) { return w.scrollWidth > w.clientWidth + 1; }
  function markScrolling() {
    wraps.forEach(function (w) {
      w.classList.remove("stacked");
      var wide = overflows(w);
      if (wide && phone && phone.matches && w.matches(".table-wrap") && w.querySelector("thead th")) {
        labelCells(w);
        w.classList.add("stacked");
        wide = overflows(w);
      }
      w.classList.toggle("scrolls", wide);
    });
    equations.forEach(function (e) {
      var m = e.querySelector("math");
      if (m) e.classList.toggle("scrolls", m.scrollWidth > m.clientWidth + 1);
    });
  }
  markScrolling();
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(markScrolling);   // the math font changes widths
  window.addEventListener("load", markScrolling);     // images have their sizes
  window.addEventListener("resize", markScrolling);

  /* ---- inline formulas wider than the column scroll in a focusable box ----
     (the column is the nearest block around the formula: an inline span has
     no width of its own, and a box as wide as it would hide the formula) */
  function blockAround(m) {
    var e = m.parentElement;
    while (e.parentElement && /^inline|^contents/.test(getComputedStyle(e).display)) e = e.parentElement;
    return e;
  }
  function wrapWideMath() {
    Array.prototype.forEach.call(document.querySelectorAll("main math:not([display='block'])"), function (m) {
      if (m.parentElement.classList.contains("math-scroll")) return;
      var pair = m.parentElement.closest(".nobreak") || m;   // with its punctuation (nobreak.lua)
      var width = Math.max(pair.getBoundingClientRect().width, pair.scrollWidth);   // the box clips at 100%
      if (width <= blockAround(pair).clientWidth) return;
      var box = document.createElement("span");
      box.className = "math-scroll";
      box.tabIndex = 0;
      m.parentNode.insertBefore(box, m);
      box.appendChild(m);
    });
  }
  wrapWideMath();
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(wrapWideMath);   // the math font changes widths
  window.addEventListener("resize", wrapWideMath);

  var main = document.querySelector("main");

  /* ---- anchor links on headings: "§" after each numbered heading ---- */
  if (main) {
    Array.prototype.forEach.call(main.querySelectorAll("h2[id], h3[id], h4[id]"), function (h) {
      var a = document.createElement("a");
      a.className = "anchor";
      a.href = "#" + h.id;
      a.setAttribute("aria-label", "Link to this section");
      a.textContent = "§";
      h.appendChild(a);
    });
  }

  /* ---- words of a search (?q=...) marked in the text, the first in view ---- */
  var query = new URLSearchParams(window.location.search).get("q");
  if (main && query) {
    var terms = query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(function (t) { return t.length > 1; });
    var walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        return n.parentElement.closest("math, script, style, .pager, mark") ? NodeFilter.FILTER_REJECT
                                                                           : NodeFilter.FILTER_ACCEPT;
      }
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var pattern = terms.map(function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }).join("|");
    if (pattern) {
      var re = new RegExp("(" + pattern + ")", "iu");
      nodes.forEach(function (node) {
        var parts = node.nodeValue.split(re);
        if (parts.length < 2) return;
        var frag = document.createDocumentFragment();
        parts.forEach(function (part, i) {
          if (i % 2) {
            var m = document.createElement("mark");
            m.className = "search-hit";
            m.textContent = part;
            frag.appendChild(m);
          } else if (part) {
            frag.appendChild(document.createTextNode(part));
          }
        });
        node.parentNode.replaceChild(frag, node);
      });
    }
  }

  /* ---- previews of cross-references and citations on hover and focus ---- */
  var preview = null, hovered = null;     // the open preview; the link it belongs to
  function hidePreview() { hovered = null; if (preview) { preview.remove(); preview = null; } }
  function previewOf(target) {
    if (target.matches("h1, h2, h3, h4")) {       // a section: its heading and first paragraph
      var box = document.createElement("div");
      box.appendChild(target.cloneNode(true));
      var next = target.nextElementSibling;
      while (next && next.tagName !== "P") next = next.nextElementSibling;
      if (next) box.appendChild(next.cloneNode(true));
      return box;
    }
    if (target.matches("figure")) {               // a table or figure: its caption (and image)
      var fig = document.createElement("div");
      var img = target.querySelector("img");
      var cap = target.querySelector("figcaption");
      if (img) fig.appendChild(img.cloneNode(true));
      if (cap) fig.appendChild(cap.cloneNode(true));
      return fig;
    }
    return target.cloneNode(true);                // an equation, a reference entry
  }
  function showPreview(link) {
    var url = new URL(link.href, window.location.href);
    var here = url.pathname === window.location.pathname;
    var id = decodeURIComponent(url.hash.slice(1));
    var show = function (doc) {
      var target = doc.getElementById(id);
      if (!target || preview || hovered !== link) return;
      preview = document.createElement("div");
      preview.className = "preview";
      preview.setAttribute("role", "tooltip");
      preview.appendChild(previewOf(target));
      Array.prototype.forEach.call(preview.querySelectorAll("[id]"), function (e) { e.removeAttribute("id"); });
      Array.prototype.forEach.call(preview.querySelectorAll("[tabindex]"), function (e) { e.removeAttribute("tabindex"); });
      Array.prototype.forEach.call(preview.querySelectorAll("img"), function (e) {
        e.src = new URL(e.getAttribute("src"), url).href;
      });
      document.body.appendChild(preview);
      var r = link.getBoundingClientRect();
      var width = Math.min(448, window.innerWidth - 16);
      preview.style.width = width + "px";
      preview.style.left = Math.max(8, Math.min(r.left, window.innerWidth - width - 8)) + window.scrollX + "px";
      preview.style.top = r.bottom + window.scrollY + 6 + "px";
    };
    if (!id) return false;
    hovered = link;
    if (here) { show(document); return preview !== null; }
    if (!/^https?:$/.test(window.location.protocol)) return false;    // file:// pages cannot fetch
    fetch(url.pathname).then(function (r) { return r.ok ? r.text() : ""; }).then(function (text) {
      if (text) show(new DOMParser().parseFromString(text, "text/html"));
    }).catch(function () {});
    return true;                                                      // (once fetched)
  }
  /* A tap (touch) on a link whose preview is not open yet opens it and stays
     on the page; a second tap on the same link follows it; a tap elsewhere
     closes it. (A tap fires the mouse and focus events too, before its
     click: whether the preview was open is taken at the touch itself.) */
  var openAtTouch = false;
  function previewOpenFor(link) { return preview !== null && hovered === link; }
  if (main) {
    Array.prototype.forEach.call(main.querySelectorAll("a.quarto-xref, a[role='doc-biblioref']"), function (link) {
      link.addEventListener("mouseenter", function () { if (!previewOpenFor(link)) { hidePreview(); showPreview(link); } });
      link.addEventListener("focus", function () { if (!previewOpenFor(link)) { hidePreview(); showPreview(link); } });
      link.addEventListener("mouseleave", hidePreview);
      link.addEventListener("blur", hidePreview);
      link.addEventListener("pointerdown", function (event) {
        openAtTouch = event.pointerType === "touch" ? previewOpenFor(link) : null;
      });
      link.addEventListener("click", function (event) {
        if (openAtTouch === false && (previewOpenFor(link) || (hidePreview(), showPreview(link))))
          event.preventDefault();      // a preview opens: the tap stays on the page
        openAtTouch = null;
      });
    });
    document.addEventListener("keydown", function (event) { if (event.key === "Escape") hidePreview(); });
  }

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
     viewport; none while the first heading is still below it (the text
     before it is no entry's). */
  var current = null;
  function update() {
    var line = window.innerHeight * 0.3;
    var active = null;
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].target.getBoundingClientRect().top <= line) active = entries[i];
      else break;
    }
    if (active === current) return;
    if (current) { current.link.classList.remove("active"); current.link.removeAttribute("aria-current"); }
    if (active) {
      active.link.classList.add("active");
      active.link.setAttribute("aria-current", "location");
    }
    current = active;
  }
  var observer = new IntersectionObserver(update, { rootMargin: "0px 0px -70% 0px", threshold: [0, 1] });
  entries.forEach(function (e) { observer.observe(e.target); });
  window.addEventListener("scroll", function () { window.requestAnimationFrame(update); }, { passive: true });
  update();
})();
