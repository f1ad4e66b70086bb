"""An explorer's grid (an interactive table of the book's package) in a cell's
Markdown output and on its page.

The protocol a book's package follows to have its explorer grids recorded and
audited (docs/audit.md, "Explorer grids"): a cell showing an explorer outputs a fenced
div ``::: {.CLASS}`` holding raw HTML (the grid as ``<script type="application/json"
class="DATA_CLASS">``, and whatever page script the book brings), the default view as
a pipe table, and any raw typst. Here:

- `split(markdown)`: the grids in an output and its Markdown without them, so the
  ledger records the default table like any table and not the script's text;
- `grid_entries(base, data)`: the ledger's entries of one grid: its digest
  (``base · explorer NAME · grid digest``) and one entry per point, keyed by the
  settings as a reader sets them, valued by the outputs shown there
  (``base · explorer cascade · GPUs in the cluster = 10,000; …`` ->
  ``Node MTBF = 5,170 h; …``): a moved value names its setting and its output;
  a curve's labels and tick texts (``… · curve``), its lines in the digest;
- `page_findings(...)`: the audit's comparison of the grids a page embeds with the
  checked ones (`explorer-data`).

Stdlib only: the checker reads this even when every chapter is cached.
"""
from __future__ import annotations

import hashlib
import json
import re

from bookcheck.model import Finding, Kind

SEP = " · "
CLASS = "bookcheck-explorer"            # the fenced div around an explorer
DATA_CLASS = f"{CLASS}-data"            # the script element holding its grid (JSON)
DATA = re.compile(rf'<script type="application/json" class="{DATA_CLASS}">(.*?)</script>', re.S)
#: the explorer's fenced div in a cell's Markdown output, up to its closing fence
DIV = re.compile(rf"^::: \{{\.{CLASS}\}}\n(.*?)^:::[ \t]*$\n?", re.S | re.M)
RAW_BLOCK = re.compile(r"^```\{=(?:html|typst)\}\n.*?^```[ \t]*$\n?", re.S | re.M)


def digest(data: dict) -> str:
    """A grid's digest: sha256 of its canonical JSON (keys sorted, no blanks), 16 hex."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def grids_in(text: str) -> list[dict]:
    """The explorer grids embedded in a text (a page, a cell's Markdown), in order."""
    grids = []
    for match in DATA.finditer(text):
        body = match.group(1)          # a script's text: raw, no entities
        try:
            data = json.loads(body)
        except ValueError:
            data = {"explorer": "?", "unreadable": body[:80]}
        grids.append(data)
    return grids


def split(markdown: str) -> tuple[list[dict], str]:
    """(the grids of the explorers in a Markdown output, the output without their raw
    blocks and div fences: what is left is the default table)."""
    if DATA_CLASS not in markdown:
        return [], markdown
    grids: list[dict] = []

    def inner(match: re.Match) -> str:
        grids.extend(grids_in(match.group(1)))
        return RAW_BLOCK.sub("", match.group(1))
    return grids, DIV.sub(inner, markdown)


def point_text(data: dict, key: str) -> str:
    """A grid point (``"2,1,0,0"``) as a reader sets it: ``Label = shown; …``."""
    indices = [int(i) for i in key.split(",")]
    return "; ".join(f"{s['label']} = {s['shown'][i]}" for s, i in zip(data["settings"], indices))


def grid_entries(base: str, data: dict) -> dict[str, str]:
    """The ledger's entries of one grid (the module docstring)."""
    name = f"{base}{SEP}explorer {data.get('explorer', '?')}"
    entries = {f"{name}{SEP}grid digest": digest(data)}
    curve = data.get("curve")
    if curve:           # what the drawing writes: its labels and tick texts
        entries[f"{name}{SEP}curve"] = (
            f"x: {curve['x_label']} ({', '.join(t for _, t in curve['x_ticks'])}); "
            f"y: {curve['y_label']} ({', '.join(t for _, t in curve['y_ticks'])}); "
            f"off the scale: {curve.get('off_scale', '')}")
    for key, shown in sorted(data.get("grid", {}).items()):
        entries[f"{name}{SEP}{point_text(data, key)}"] = "; ".join(
            f"{label} = {text}" for label, text in zip(data["outputs"], shown))
    return entries


def checked_grids(parsed, run) -> list[tuple[int, str, dict]]:
    """(fence line, cell label, grid) of every explorer a chapter's run shows."""
    found = []
    results = {r.index: r for r in run.cells} if run else {}
    for cell in parsed.cells:
        result = results.get(cell.index)
        for output in result.outputs if result else ():
            if output.kind == "markdown":
                found += [(cell.fence_line, cell.label or f"cell {cell.index + 1}", data)
                          for data in split(output.data)[0]]
    return found


def first_difference(shown: dict, checked: dict) -> str:
    """Where a page's grid differs from the checked one, in a reader's words."""
    if shown.get("settings") != checked.get("settings") or shown.get("outputs") != checked.get("outputs"):
        return "its settings or outputs are not the checked ones"
    for key, texts in checked.get("grid", {}).items():
        on_page = shown.get("grid", {}).get(key)
        if on_page != texts:
            if on_page is None:
                return f"it has no values at {point_text(checked, key)}"
            label, page_text, checked_text = next(
                (label, a, b) for label, a, b in zip(checked["outputs"], on_page, texts) if a != b)
            return (f"at {point_text(checked, key)} it shows {label} = {page_text}, "
                    f"checked {checked_text}")
    if shown.get("curve") != checked.get("curve"):
        paths = (shown.get("curve") or {}).get("paths", {})
        moved = [key for key, path in (checked.get("curve") or {}).get("paths", {}).items()
                 if paths.get(key) != path]
        return (f"its curve at {point_text(checked, moved[0])} is not the checked one" if moved
                else "its curve is not the checked one")
    return "it holds points the checked grid does not"


def page_findings(parsed, run, page: str, page_html: str) -> list[Finding]:
    """An `explorer-data` finding for each checked grid the page does not embed exactly
    (missing or moved, named by setting and output), and for each grid on the page
    that no cell of the chapter showed."""
    on_page = {}
    for data in grids_in(page_html):
        on_page.setdefault(data.get("explorer"), []).append(data)
    findings = []
    for line, label, checked in checked_grids(parsed, run):
        name = checked.get("explorer")
        candidates = on_page.get(name) or []
        if checked in candidates:
            candidates.remove(checked)
            continue
        why = (first_difference(candidates.pop(0), checked) if candidates
               else "the page embeds no data for it")
        findings.append(parsed.relocate(Finding(
            parsed.path, line, Kind.EXPLORER_DATA,
            f"{page}: explorer {name!r} is not the checked grid: {why}", label=label)))
    for name, left in on_page.items():
        for _ in left:
            findings.append(parsed.relocate(Finding(
                parsed.path, 1, Kind.EXPLORER_DATA,
                f"{page}: embeds explorer data {name!r} that no cell of this chapter showed")))
    return findings
