"""Read a `.ipynb` chapter as the Markdown Quarto 1.7 makes of it, located in its JSON.

Quarto renders a notebook from its cells (src/core/jupyter/jupyter.ts, jupyterToMarkdown;
src/command/convert/jupyter.ts for `quarto convert`): a first raw cell holding `---` YAML
is the front matter; markdown cells are Markdown, raw cells too unless their
`raw_mimetype` makes them a raw block (```` ```{=html} ````, `{=latex}`); a code cell is a
```` ```{python} ```` cell whose own `#|` lines are its options, over the options of its
cell metadata and its tags (`remove-cell`: `include: false`, ...). The text made here is
parsed as any .qmd chapter (read/qmd.py), and `line_map` sends each of its lines back to
the JSON line of the notebook that holds it, so a finding names `x.ipynb:line`.

Quarto runs a notebook only under `execute: enabled: true` or `execute: ipynb: true`
(read/options.py); otherwise it publishes the outputs stored in the file, unchecked:
`stored_outputs` counts the code cells that have some.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from bookcheck.model import Finding, Kind
from bookcheck.read.options import SCHEMA

# Quarto's tagMapping (src/core/jupyter/jupyter.ts): a cell tag -> the options it sets
TAG_OPTIONS = {"hide-cell": {"include": False}, "remove-cell": {"include": False},
               "hide-code": {"echo": False}, "hide-output": {"output": False},
               "hide-warnings": {"warning": False}, "show-code": {"echo": True},
               "show-output": {"output": True}, "show-warnings": {"warning": True}}
# a raw cell's `raw_mimetype` -> the raw block Quarto writes it as (mdRawOutput)
RAW_FORMATS = {"text/html": "html", "text/latex": "latex", "text/restructuredtext": "rst",
               "application/rtf": "rtf"}
OPTION_KEY = re.compile(r"^#\s*\|\s*([^\s:#][^:]*?)\s*:")


@dataclass
class Notebook:
    text: str = ""
    line_map: list[tuple[str, int]] = field(default_factory=list)   # text line i+1 -> (path, line)
    kernel: str = ""              # metadata.kernelspec.name
    kernel_line: int = 0
    stored_outputs: int = 0       # code cells with outputs stored in the file
    findings: list[Finding] = field(default_factory=list)


def read_notebook(rel: str, data: bytes) -> Notebook:
    """The notebook `rel` (its bytes) as chapter text."""
    book = Notebook()
    raw = data.decode("utf-8", errors="replace")
    try:
        nb = json.loads(raw)
        cells = nb["cells"]
        assert isinstance(cells, list)
    except (ValueError, KeyError, TypeError, AssertionError) as exc:
        where = exc.lineno if isinstance(exc, json.JSONDecodeError) else 1
        book.findings.append(Finding(rel, where, Kind.NOTEBOOK, (
            f"Quarto cannot read this notebook ({exc.__class__.__name__}: {exc}): it must be "
            f"nbformat 4 JSON with a `cells` list")))
        return book
    where = _Locator(raw)
    spec = (nb.get("metadata") or {}).get("kernelspec") or {}
    language = str(spec.get("language") or ((nb.get("metadata") or {}).get("language_info") or {})
                   .get("name") or "python").lower()
    book.kernel = str(spec.get("name") or "")
    book.kernel_line = where.find('"kernelspec"', 0) if book.kernel else 0
    lines: list[str] = []
    for number, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source") or []
        items = [source] if isinstance(source, str) else [str(s) for s in source]
        text = "".join(items)
        located = where.lines(items, text)
        if lines:
            lines.append("")
            book.line_map.append(book.line_map[-1])
        if cell.get("cell_type") == "code":
            book.stored_outputs += bool(cell.get("outputs"))
            body, own, added = _code_cell(text, language, cell.get("metadata") or {})
            first, end = (located[0], located[-1]) if located else (where.last, where.last)
            located = [first] + located[:own] + [first] * added + located[own:] + [end]
        elif cell.get("cell_type") == "raw" and RAW_FORMATS.get(
                (cell.get("metadata") or {}).get("raw_mimetype")):   # Quarto's mdRawOutput
            fmt = RAW_FORMATS[cell["metadata"]["raw_mimetype"]]
            body = ["```{=" + fmt + "}"] + text.split("\n") + ["```"]
            first, end = (located[0], located[-1]) if located else (where.last, where.last)
            located = [first] + located + [end]
        else:
            body = text.split("\n")
        lines += body
        book.line_map += [(rel, n) for n in located]
    book.text = "\n".join(lines)
    book.line_map = book.line_map or [(rel, 1)]      # an empty notebook: one empty line
    return book


def _code_cell(source: str, language: str, metadata: dict) -> tuple[list[str], int, int]:
    """(the cell as Quarto's Markdown: its fence, its own `#|` lines, the options of its
    metadata and tags that these do not set, its code, the closing fence; the number of
    its own option lines; the number added)."""
    code = source.split("\n")
    n_own = next((i for i, ln in enumerate(code) if not OPTION_KEY.match(ln)), len(code))
    own = {OPTION_KEY.match(ln).group(1) for ln in code[:n_own]}
    extra = {}
    for tag in metadata.get("tags") or []:
        extra.update(TAG_OPTIONS.get(str(tag), {}))
    # the metadata keys Quarto reads as options (its cell option schema)
    extra.update({k: v for k, v in metadata.items() if k in SCHEMA["cell"] and k != "tags"})
    added = [f"#| {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in extra.items() if k not in own]
    ticks = "`" * max([3] + [len(re.match(r"`*", ln).group(0)) + 1 for ln in code])
    return [ticks + "{" + language + "}"] + code[:n_own] + added + code[n_own:] + [ticks], n_own, len(added)


class _Locator:
    """JSON line numbers of a notebook's source strings, found in file order."""

    def __init__(self, raw: str):
        self.raw, self.cursor, self.last = raw, 0, 1

    def find(self, needle: str, start: int) -> int:
        pos = self.raw.find(needle, start)
        return self.raw.count("\n", 0, pos) + 1 if pos >= 0 else 0

    def lines(self, items: list[str], text: str) -> list[int]:
        """The JSON line of each line of `text` (the cell's source, `items` as stored)."""
        key = self.raw.find('"source"', self.cursor)
        if key < 0:
            return [self.last] * len(text.split("\n"))
        self.cursor = key
        found = []
        for item in items:
            pos = self.raw.find(json.dumps(item, ensure_ascii=False), self.cursor)
            if pos < 0:
                pos = self.raw.find(json.dumps(item), self.cursor)
            if pos >= 0:
                self.cursor = pos + 1
                self.last = self.raw.count("\n", 0, pos) + 1
            found += [self.last] * max(1, item.count("\n") + (not item.endswith("\n")))
        if not items:
            self.last = self.raw.count("\n", 0, key) + 1
        return (found + [self.last] * len(text.split("\n")))[:len(text.split("\n"))]
