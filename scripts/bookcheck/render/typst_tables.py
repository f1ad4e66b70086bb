"""Table layout for the PDF: columns sized from their content, identifiers
that wrap, long tables set small.

pandoc's typst writer gives a table `columns: N` (N equal auto columns, which
typst shrinks "fairly" when they do not fit: a long unbreakable name then
overprints its neighbour). Before the writer runs, `layout_tables` gives each
table of the merged AST (pandoc JSON):

- a `typst:columns` attribute: a column whose cells are all short (at most
  SHORT_CELL_CHARS) is `auto` (as wide as its widest cell), the others share
  the rest of the line as fractions (`fr`) weighted by the mean and the
  longest of their cells' lengths (each capped at WIDE_CELL_CHARS);
- a `typst:text:size` attribute: TABLE_TEXT, or LONG_TABLE_TEXT for a table
  of more than LONG_TABLE_ROWS body rows (the reference table stays short);
- a zero-width space after `_`, `.` and `/` in inline code, where a long
  identifier may wrap.

pandoc 3.9 writes the attribute after its own `columns: N`; `drop_default_columns`
removes that first one from the typst source (typst rejects a duplicate argument).
"""
from __future__ import annotations

import re

SHORT_CELL_CHARS = 16
WIDE_CELL_CHARS = 48
LONG_TABLE_ROWS = 25
TABLE_TEXT = "9pt"
LONG_TABLE_TEXT = "8pt"
ZWSP = "\u200b"


def text_of(node) -> str:
    """The plain text of an AST fragment (Str, Code, spaces; Note bodies skipped)."""
    if isinstance(node, list):
        return "".join(text_of(n) for n in node)
    if not isinstance(node, dict):
        return ""
    kind = node.get("t")
    if kind == "Str":
        return node["c"]
    if kind in ("Space", "SoftBreak", "LineBreak"):
        return " "
    if kind in ("Code", "Math"):
        return node["c"][1]
    if kind == "Note":
        return ""
    return text_of(node.get("c", []))


def _rows(rows) -> list[list[str]]:
    return [[text_of(cell[4]) for cell in row[1]] for row in rows]


def table_rows(table: dict) -> tuple[list[list[str]], int]:
    """(every row's cell texts, header rows first; the number of body rows)."""
    _, _, _, head, bodies, foot = table["c"]
    body = [r for b in bodies for r in _rows(b[2]) + _rows(b[3])]
    return _rows(head[1]) + body + _rows(foot[1]), len(body)


def columns_spec(rows: list[list[str]]) -> str:
    """`(auto, 2.5fr, …)`: short columns auto, the others fractions of the rest."""
    n = max((len(r) for r in rows), default=0)
    spec = []
    for i in range(n):
        lengths = [len(r[i].strip()) for r in rows if i < len(r)]
        if max(lengths) <= SHORT_CELL_CHARS:
            spec.append("auto")
            continue
        capped = [min(x, WIDE_CELL_CHARS) for x in lengths]
        spec.append(f"{(sum(capped) / len(capped) + max(capped)) / 2:.1f}fr")
    return "(" + ", ".join(spec) + ")"


def _soften(node) -> None:
    """Zero-width spaces after `_`, `.`, `/` inside every inline code below `node`."""
    if isinstance(node, list):
        for n in node:
            _soften(n)
    elif isinstance(node, dict):
        if node.get("t") == "Code":
            node["c"][1] = re.sub(r"([_./])(?=.)", r"\1" + ZWSP, node["c"][1])
        else:
            _soften(node.get("c", []))


def layout_table(table: dict) -> None:
    """Set the columns and text size of one Table node; soften its code."""
    rows, body_rows = table_rows(table)
    attr = table["c"][0]
    attr[2] = [kv for kv in attr[2] if not kv[0].startswith("typst:")]
    if len(rows) and max(len(r) for r in rows) > 1:
        attr[2].append(["typst:columns", columns_spec(rows)])
    attr[2].append(["typst:text:size", LONG_TABLE_TEXT if body_rows > LONG_TABLE_ROWS else TABLE_TEXT])
    _soften(table["c"][3:])


def layout_tables(node) -> None:
    """layout_table for every Table in a pandoc JSON AST (in place)."""
    if isinstance(node, list):
        for n in node:
            layout_tables(n)
    elif isinstance(node, dict):
        if node.get("t") == "Table":
            layout_table(node)
        layout_tables(node.get("c", []) if "t" in node else node.get("blocks", []))


DUPLICATE = re.compile(r"(#table\(\n\s*)columns: \d+,\n((?:\s*align: [^\n]*,\n)?\s*columns: )")


def drop_default_columns(source: str) -> str:
    """Remove pandoc's `columns: N,` where our `typst:columns` follows it."""
    return DUPLICATE.sub(r"\1\2", source)
