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

  function excerpt(text, term) {
    var at = text.toLowerCase().indexOf(term);
    var start = Math.max(0, at - 60);
    return (start > 0 ? "…" : "") + text.slice(start, start + 160) + (start + 160 < text.length ? "…" : "");
  }

  var HEADING_WEIGHT = 5;   // a word in the heading counts as much as five in the text

  /* All-words search over search-index.js: headings weigh HEADING_WEIGHT. */
  function searchFallback(query) {
    var terms = words(query);
    return loadFallback().then(function (sections) {
      var hits = [];
      sections.forEach(function (s) {
        var title = s.title.toLowerCase(), text = s.text.toLowerCase(), score = 0;
        for (var i = 0; i < terms.length; i++) {
          var inTitle = title.indexOf(terms[i]) >= 0, inText = text.indexOf(terms[i]) >= 0;
          if (!inTitle && !inText) return;
          score += (inTitle ? HEADING_WEIGHT : 0) + (inText ? 1 : 0);
        }
        hits.push({ url: new URL(s.url, root).href, page: s.page, title: s.title || s.page,
                    excerpt: excerpt(s.text, terms[0]), score: score });
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
     Pagefind's order, then sections whose heading holds every word first. */
  function searchPagefind(pf, query) {
    var terms = words(query);
    return pf.search(query).then(function (search) {
      return Promise.all(search.results.slice(0, 8).map(function (r) { return r.data(); }));
    }).then(function (pages) {
      var hits = [];
      pages.forEach(function (data, rank) {
        var subs = data.sub_results && data.sub_results.length ? data.sub_results : [data];
        subs.slice(0, 4).forEach(function (sub, n) {
          var title = sub.title || data.meta.title;
          var inTitle = terms.every(function (t) { return title.toLowerCase().indexOf(t) >= 0; });
          hits.push({ url: new URL(sub.url, window.location.href).href, page: data.meta.title,
                      title: title, excerpt: strip(sub.excerpt || ""),
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
})();
