/* search.js: full-text search over the book, offline.
   Served over http(s): Pagefind's index (pagefind/pagefind.js, built at
   render time). From file:// (where browsers refuse Pagefind's fetch and
   WebAssembly) or without a Pagefind index: search-index.js, a list of every
   section searched here for all the words typed. Either way each result
   links to the section (page?q=words#heading, book.js marks the words
   there), its excerpt shows the words marked, and a section whose heading
   holds the words ranks first. */
(function () {
  "use strict";
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  if (!input || !list) return;
  var rootMeta = document.querySelector('meta[name="book-root"]');
  var root = new URL((rootMeta && rootMeta.content) || "./", window.location.href);
  var served = /^https?:$/.test(window.location.protocol);
  var pagefind = null;   // promise of Pagefind's module, or of null
  var fallback = null;   // promise of the section list

  function loadPagefind() {
    if (!pagefind) {
      pagefind = !served ? Promise.resolve(null) :
        import(new URL("pagefind/pagefind.js", root).href).then(function (pf) {
          return Promise.resolve(pf.options({ baseUrl: root.pathname })).then(function () { return pf; });
        }).catch(function () { return null; });
    }
    return pagefind;
  }

  function loadFallback() {
    if (!fallback) {
      fallback = new Promise(function (resolve) {
        if (window.BOOK_SEARCH_INDEX) return resolve(window.BOOK_SEARCH_INDEX);
        var script = document.createElement("script");
        script.src = new URL("search-index.js", root).href;
        script.onload = function () { resolve(window.BOOK_SEARCH_INDEX || []); };
        script.onerror = function () { resolve([]); };
        document.head.appendChild(script);
      });
    }
    return fallback;
  }

  function words(text) {
    return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  }

  /* A short all-caps word of the query (an acronym: FIT, MTBF, SDC) matches
     only that word, in capitals, plural or not ("FIT" finds "FITs", not
     "fitted"); any other word matches case-insensitively inside words too. */
  function matcher(query) {
    var parts = query.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    return parts.map(function (w) {
      var safe = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return /^\p{Lu}[\p{Lu}\p{N}]{1,4}$/u.test(w) ? new RegExp("(?<![\\p{L}\\p{N}])" + safe + "s?(?![\\p{L}\\p{N}])", "u")
                                              : new RegExp(safe, "iu");
    });
  }
  function matchesAll(text, res) { return res.every(function (re) { return re.test(text); }); }

  function excerpt(text, re) {          // around the first match of `re` (matcher)
    var found = re ? text.match(re) : null, at = found ? found.index : -1;
    var start = Math.max(0, at - 60);
    return (start > 0 ? "…" : "") + text.slice(start, start + 160) + (start + 160 < text.length ? "…" : "");
  }

  var HEADING_WEIGHT = 5;   // a word in the heading counts as much as five in the text

  /* All-words search over search-index.js: headings weigh HEADING_WEIGHT. */
  function searchFallback(query) {
    var terms = words(query), res = matcher(query);
    return loadFallback().then(function (sections) {
      var hits = [];
      sections.forEach(function (s) {
        var score = 0;
        for (var i = 0; i < res.length; i++) {
          var inTitle = res[i].test(s.title), inText = res[i].test(s.text);
          if (!inTitle && !inText) return;
          score += (inTitle ? HEADING_WEIGHT : 0) + (inText ? 1 : 0);
        }
        hits.push({ url: new URL(s.url, root).href, page: s.page, title: s.title || s.page,
                    excerpt: excerpt(s.text, res[0]), score: score });
      });
      hits.sort(function (a, b) { return b.score - a.score; });
      return hits.slice(0, 20);
    });
  }

  function strip(html) {
    var div = document.createElement("div");
    div.innerHTML = html;
    return div.textContent || "";
  }

  /* Pagefind: one result per matching section (its sub-results), pages in
     Pagefind's order, then sections whose heading holds every word first.
     The excerpt is cut from the section's text in search-index.js, where a
     formula is one line of text ("τₒₚₜ = √(2δM)", search.py), when the
     section is there (Pagefind's own flattens formulas); a section whose
     text there lacks an acronym of the query is dropped ("FIT": Pagefind
     stems it to "fitted"). */
  function searchPagefind(pf, query) {
    var terms = words(query), res = matcher(query);
    return Promise.all([pf.search(query).then(function (search) {
      return Promise.all(search.results.slice(0, 8).map(function (r) { return r.data(); }));
    }), loadFallback()]).then(function (found) {
      var pages = found[0], texts = {};
      found[1].forEach(function (s) { texts[new URL(s.url, root).href] = s; });
      var hits = [];
      pages.forEach(function (data, rank) {
        var subs = data.sub_results && data.sub_results.length ? data.sub_results : [data];
        // a section whose heading holds every word is kept before the page's first four
        // (Pagefind lists sub-results in page order: a long page's later heading fell off)
        var heads = function (sub) { var t = (sub.title || data.meta.title).toLowerCase();
                                     return terms.every(function (w) { return t.indexOf(w) >= 0; }); };
        subs = subs.filter(heads).concat(subs.filter(function (sub) { return !heads(sub); }));
        subs.slice(0, 4).forEach(function (sub, n) {
          var title = sub.title || data.meta.title;
          var inTitle = terms.every(function (t) { return title.toLowerCase().indexOf(t) >= 0; });
          var url = new URL(sub.url, window.location.href).href, ours = texts[url];
          if (ours && !matchesAll(ours.title + " " + ours.text, res)) return;
          hits.push({ url: url, page: data.meta.title, title: title,
                      excerpt: ours ? excerpt(ours.text, res[0]) : strip(sub.excerpt || ""),
                      score: (inTitle ? 100 : 0) - rank * 4 - n });
        });
      });
      hits.sort(function (a, b) { return b.score - a.score; });
      return hits.slice(0, 20);
    });
  }

  /* `text` into `parent` as text nodes, each occurrence of a term in <mark>. */
  function marked(parent, text, terms) {
    var pattern = terms.map(function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }).join("|");
    var parts = pattern ? text.split(new RegExp("(" + pattern + ")", "iu")) : [text];
    parts.forEach(function (part, i) {
      if (i % 2) {
        var m = document.createElement("mark");
        m.textContent = part;
        parent.appendChild(m);
      } else if (part) {
        parent.appendChild(document.createTextNode(part));
      }
    });
  }

  /* page#anchor -> page?q=query#anchor: the page marks the words (book.js) */
  function withQuery(href, query) {
    var url = new URL(href);
    url.searchParams.set("q", query);
    return url.href;
  }

  function show(query, hits) {
    if (input.value.trim() !== query) return;   // a newer query is on its way
    list.textContent = "";
    hits.forEach(function (hit) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = withQuery(hit.url, query);
      marked(a, hit.title, words(query));
      li.appendChild(a);
      if (hit.page && hit.page !== hit.title) {
        var where = document.createElement("span");
        where.className = "search-page";
        where.textContent = hit.page;
        li.appendChild(where);
      }
      var p = document.createElement("p");
      marked(p, hit.excerpt, words(query));
      li.appendChild(p);
      list.appendChild(li);
    });
    status.textContent = hits.length ? hits.length + (hits.length === 1 ? " result" : " results")
                                     : "No results for “" + query + "”";
    list.setAttribute("data-query", query);
  }

  var timer = null;
  function run() {
    var query = input.value.trim();
    if (!query) { list.textContent = ""; status.textContent = ""; list.removeAttribute("data-query"); return; }
    loadPagefind().then(function (pf) {
      list.setAttribute("data-engine", pf ? "pagefind" : "index");
      return pf ? searchPagefind(pf, query) : searchFallback(query);
    }).then(function (hits) { show(query, hits); },
            function () {
              list.setAttribute("data-engine", "index");
              return searchFallback(query).then(function (hits) { show(query, hits); });
            });
  }
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 150);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { input.value = ""; run(); }
  });

  /* "/" anywhere but in a field puts the cursor in the search box (opening
     the contents menu of a phone, where the box lives) */
  document.addEventListener("keydown", function (event) {
    var t = event.target;
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var menu = document.querySelector(".nav-button");
    if (!input.getClientRects().length && menu) menu.click();
    event.preventDefault();
    input.focus();
  });
})();
