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
    ".mlsys-explorer-setting output{font-variant-numeric:tabular-nums;white-space:nowrap}" +
    ".mlsys-explorer-reset{justify-self:start;align-self:end;font:inherit;color:inherit;" +
    "background:transparent;border:1px solid rgba(127,127,127,.7);border-radius:.3rem;padding:.2rem .8rem;cursor:pointer}" +
    ".mlsys-explorer-reset:focus-visible,.mlsys-explorer-setting input:focus-visible{outline:2px solid currentColor;outline-offset:2px}" +
    ".bookcheck-explorer td.mlsys-explorer-moved{font-weight:600}.bookcheck-explorer td:last-child{white-space:nowrap}" +
    ".mlsys-explorer-curve{display:block;width:100%;max-width:32rem;margin:.2rem 0 .6rem;font-size:17px;fill:currentColor}" +
    ".mlsys-explorer-axes{fill:none;stroke:currentColor;stroke-width:1;opacity:.7}" +
    ".mlsys-explorer-line{fill:none;stroke:currentColor;stroke-width:2.5}" +
    ".mlsys-explorer-mark{fill:currentColor}";

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function build(root, number) {
    var source = root.querySelector("script.bookcheck-explorer-data");
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
    var line = data.curve ? drawing(data.curve) : null;
    if (line) { root.insertBefore(line.svg, anchor); }

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
      if (line) { line.show(state.join(",")); }
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

  // the curve: a fixed frame and, per setting, a path and a mark, all in frame units
  function drawing(curve) {
    var NS = "http://www.w3.org/2000/svg";
    function shape(tag, attributes, text) {
      var node = document.createElementNS(NS, tag);
      Object.keys(attributes).forEach(function (name) { node.setAttribute(name, attributes[name]); });
      if (text !== undefined) { node.textContent = text; }
      svg.appendChild(node);
      return node;
    }
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + curve.width + " " + curve.height);
    svg.setAttribute("class", "mlsys-explorer-curve");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", curve.description);
    var box = curve.box;                            // [left, top, right, bottom]
    shape("path", {"d": "M" + box[0] + "," + box[1] + "V" + box[3] + "H" + box[2],
                   "class": "mlsys-explorer-axes"});
    curve.x_ticks.forEach(function (tick) {
      shape("path", {"d": "M" + tick[0] + "," + box[3] + "v5", "class": "mlsys-explorer-axes"});
      shape("text", {"x": tick[0], "y": box[3] + 20, "text-anchor": "middle"}, tick[1]);
    });
    curve.y_ticks.forEach(function (tick) {
      shape("path", {"d": "M" + box[0] + "," + tick[0] + "h-5", "class": "mlsys-explorer-axes"});
      shape("text", {"x": box[0] - 8, "y": tick[0], "text-anchor": "end", "dominant-baseline": "middle"}, tick[1]);
    });
    shape("text", {"x": curve.x_label_at[0], "y": curve.x_label_at[1], "text-anchor": "middle"}, curve.x_label);
    shape("text", {"x": 0, "y": 0, "text-anchor": "middle", "transform": "translate(" +
                   curve.y_label_at[0] + "," + curve.y_label_at[1] + ") rotate(-90)"}, curve.y_label);
    var path = shape("path", {"class": "mlsys-explorer-line", "d": ""});
    var dot = shape("circle", {"class": "mlsys-explorer-mark", "r": "5", "cx": "0", "cy": "0"});
    var note = shape("text", {"x": curve.x_label_at[0], "y": curve.y_label_at[1], "text-anchor": "middle",
                              "class": "mlsys-explorer-off-scale"});
    return {svg: svg, show: function (key) {
      path.setAttribute("d", curve.paths[key]);
      note.textContent = curve.paths[key] ? "" : curve.off_scale;   // no hidden text
      var at = curve.marks[key];
      dot.style.display = at ? "" : "none";
      if (at) { dot.setAttribute("cx", at[0]); dot.setAttribute("cy", at[1]); }
    }};
  }

  function start() {
    if (!document.getElementById("mlsys-explorer-style")) {
      var style = element("style", {"id": "mlsys-explorer-style"});
      style.textContent = STYLE;
      document.head.appendChild(style);
    }
    Array.prototype.forEach.call(document.querySelectorAll(".bookcheck-explorer"), build);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
