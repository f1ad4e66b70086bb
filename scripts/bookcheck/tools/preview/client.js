// Live preview: reload when a newer render is announced; show findings in a banner.
(function () {
  "use strict";
  var served = window.__previewVersion || 0;
  var BANNER = "preview-findings";

  function banner(findings) {
    var old = document.getElementById(BANNER);
    if (old) old.remove();
    if (!findings || !findings.length) return;
    var box = document.createElement("section");
    box.id = BANNER;
    box.setAttribute("role", "alert");
    box.style.cssText = "position:fixed;top:0;left:0;right:0;z-index:2147483647;" +
      "max-height:50vh;overflow:auto;margin:0;padding:.75em 1em;background:#fff4f4;" +
      "color:#5c0000;border-bottom:3px solid #b00020;font:14px/1.4 monospace;" +
      "box-shadow:0 2px 8px rgba(0,0,0,.2)";
    var head = document.createElement("strong");
    head.textContent = "The check failed: showing the last good render (" +
      findings.length + " finding" + (findings.length === 1 ? "" : "s") + ")";
    box.appendChild(head);
    var list = document.createElement("ul");
    list.style.cssText = "margin:.5em 0 0;padding-left:1.2em";
    findings.forEach(function (f) {
      var item = document.createElement("li");
      item.className = "preview-finding";
      var where = document.createElement("code");
      where.className = "preview-location";
      where.textContent = f.location;
      item.appendChild(where);
      item.appendChild(document.createTextNode(" " + f.kind + ": " + f.message));
      list.appendChild(item);
    });
    box.appendChild(list);
    document.body.appendChild(box);
  }

  var source = new EventSource("/__preview/events");
  source.addEventListener("state", function (event) {
    var state = JSON.parse(event.data);
    if (state.version > served) {
      source.close();
      window.location.reload();
      return;
    }
    banner(state.findings);
  });
  window.addEventListener("pagehide", function () { source.close(); });
})();
