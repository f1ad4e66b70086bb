/* mlsys explorers (mlsys/explorer.py): a control per setting over the checked grid
   embedded in the page; every shown value is looked up, never computed here. */
(function () {
  "use strict";
  if (window.mlsysExplorers) { return; }          // each explorer carries this script: run once
  window.mlsysExplorers = [];

  var STYLE =
    ".mlsys-explorer-controls{display:grid;gap:.6rem 1.2rem;margin:.6rem 0 .8rem;padding:.7rem .8rem;" +
    "grid-template-columns:repeat(auto-fit,minmax(min(100%,15rem),1fr));" +
    "border:1px solid rgba(127,127,127,.45);border-radius:.4rem}" +
    ".mlsys-explorer-setting label{display:block;font-weight:600}" +
    ".mlsys-explorer-setting input{width:100%;margin:.3rem 0 .1rem;accent-color:currentColor}" +
    ".mlsys-explorer-setting output{font-variant-numeric:tabular-nums}" +
    ".mlsys-explorer-reset{justify-self:start;align-self:end;font:inherit;color:inherit;" +
    "background:transparent;border:1px solid rgba(127,127,127,.7);border-radius:.3rem;padding:.2rem .8rem;cursor:pointer}" +
    ".mlsys-explorer-reset:focus-visible,.mlsys-explorer-setting input:focus-visible{outline:2px solid currentColor;outline-offset:2px}" +
    ".mlsys-explorer td.mlsys-explorer-moved{font-weight:600}";

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function build(root, number) {
    var source = root.querySelector("script.mlsys-explorer-data");
    var table = root.querySelector("table");
    if (!source || !table || root.querySelector(".mlsys-explorer-controls")) { return; }
    var data = JSON.parse(source.textContent);
    // the default view's Value cells, in its row order: the settings, then the outputs
    // (by position: the renderer may have curled a label's quotes)
    var valueCells = Array.prototype.map.call(table.querySelectorAll("tbody tr"), function (row) {
      return row.querySelectorAll("td")[1];
    });
    var defaults = data.settings.map(function (s) { return s["default"]; });
    var state = defaults.slice();
    var prefix = "mlsys-explorer-" + data.explorer + "-" + number + "-";
    var form = element("form", {"class": "mlsys-explorer-controls", "aria-label": "Change the settings"});
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    var inputs = [], echoes = [];
    data.settings.forEach(function (setting, i) {
      var id = prefix + setting.key;
      var wrap = element("div", {"class": "mlsys-explorer-setting"});
      var input = element("input", {"type": "range", "id": id, "min": "0", "step": "1",
                                    "max": String(setting.shown.length - 1)});
      var echo = element("output", {"for": id, "id": id + "-shown", "aria-hidden": "true"});
      wrap.appendChild(element("label", {"for": id}, setting.label + ": "));
      wrap.lastChild.appendChild(echo);
      wrap.appendChild(input);
      input.addEventListener("input", function () { state[i] = Number(input.value); show(); });
      inputs.push(input); echoes.push(echo);
      form.appendChild(wrap);
    });
    var reset = element("button", {"type": "button", "class": "mlsys-explorer-reset"}, "Reset to the book's values");
    reset.addEventListener("click", function () { state = defaults.slice(); show(); });
    form.appendChild(reset);
    table.setAttribute("aria-live", "polite");
    table.setAttribute("aria-atomic", "true");
    var anchor = table;                             // the table, or what wraps it in the root
    while (anchor.parentNode !== root) { anchor = anchor.parentNode; }
    root.insertBefore(form, anchor);

    function show() {
      var shown = data.grid[state.join(",")];
      data.settings.forEach(function (setting, i) {
        var text = setting.shown[state[i]];
        inputs[i].value = String(state[i]);
        inputs[i].setAttribute("aria-valuetext", text);
        echoes[i].textContent = text;
        mark(i, text, state[i] !== defaults[i]);
      });
      data.outputs.forEach(function (label, j) { mark(data.settings.length + j, shown[j], false); });
    }
    function mark(row, text, moved) {
      var cell = valueCells[row];
      if (!cell) { return; }
      cell.textContent = text;
      cell.classList.toggle("mlsys-explorer-moved", moved);
    }
    show();
    window.mlsysExplorers.push({name: data.explorer, root: root});
  }

  function start() {
    if (!document.getElementById("mlsys-explorer-style")) {
      var style = element("style", {"id": "mlsys-explorer-style"});
      style.textContent = STYLE;
      document.head.appendChild(style);
    }
    Array.prototype.forEach.call(document.querySelectorAll(".mlsys-explorer"), build);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
