"""The HTML pages' tables (html.py's `scrollable`): each pandoc table as a
captioned figure over a box that scrolls sideways, its columns sized from
their content, and break opportunities in long identifiers.

On a phone book.js stacks a table wider than the column (rows as cards of
"header value" lines, book.css `.stacked`); nothing here depends on the width.
"""
from __future__ import annotations

import re

TABLE = re.compile(r"<table\b([^>]*)>(.*?)</table>", re.S)
CAPTION = re.compile(r"\s*<caption\b[^>]*>(.*?)</caption>", re.S)
COLGROUP = re.compile(r"\s*<colgroup>.*?</colgroup>", re.S)
ID_ATTR = re.compile(r'\s*\bid="([^"]*)"')
CODE = re.compile(r"<code\b[^>]*>.*?</code>", re.S)
TAG = re.compile(r"<[^>]+>")


def breakable_code(cells: str) -> str:
    """Table cells may wrap inside inline code after `_`, `.` or `/`, and in
    text at a `/` between letters (a `<wbr>`): `WORKED_EXAMPLE_DOUBLED_GPUS`
    or `second/minute` no longer set a column's width. Tags are left alone."""
    def soften(match: re.Match) -> str:
        return re.sub(r"(?<=[_./])(?=[^<>]*(?:<|$))(?!<)", "<wbr>", match.group(0))
    parts = re.split(r"(<[^>]+>)", CODE.sub(soften, cells))
    return "".join(p if p.startswith("<") else re.sub(r"(?<=[A-Za-z])/(?=[A-Za-z])", "/<wbr>", p)
                   for p in parts)


ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", re.S)
ENTITY = re.compile(r"&[#\w]+;")
WIDE_CELL_CHARS = 48     # a longer cell wraps: its column asks for no more


def column_widths(inner: str) -> list[int]:
    """Percent widths of a table's columns from their content.

    A column asks for the mean of its cells' lengths (in characters, each
    capped at WIDE_CELL_CHARS: text that long wraps anyway) and its longest
    cell's, at least 4; the widths are those requests scaled to 100 %, so
    one long name does not widen a column of short ones. The browser still
    widens a column to its longest unbreakable word.
    """
    rows = [[ENTITY.sub("x", TAG.sub("", c)).strip() for c in CELL.findall(r)] for r in ROW.findall(inner)]
    n = max((len(r) for r in rows), default=0)
    asks = []
    for i in range(n):
        lengths = [min(len(r[i]), WIDE_CELL_CHARS) for r in rows if i < len(r)]
        asks.append(max(4.0, (sum(lengths) / len(lengths) + max(lengths)) / 2))
    total = sum(asks)
    widths = [int(100 * a / total) for a in asks]
    widths[asks.index(max(asks))] += 100 - sum(widths)      # they add up to 100
    return widths


def colgroup(inner: str) -> str:
    widths = column_widths(inner)
    if len(widths) < 2:
        return ""
    return "<colgroup>" + "".join(f'<col style="width: {w}%">' for w in widths) + "</colgroup>\n"


def table_float(match: re.Match) -> str:
    """One table as a figure: caption above, outside the box that scrolls.

    The caption is a `<figcaption>` above a keyboard-focusable scrolling
    region (axe's scrollable-region-focusable) named by it, so on a phone
    the caption wraps in the text column and only the table scrolls. The
    table's id moves to the figure, so a cross-reference shows the caption.
    pandoc's `<colgroup>` widths (from the markdown's dash counts) give way
    to widths from the cells' content (column_widths).
    """
    attrs, inner = match.group(1), match.group(2)
    caption = CAPTION.search(inner)
    inner = COLGROUP.sub("", CAPTION.sub("", inner, count=1), count=1)
    inner = colgroup(inner) + breakable_code(inner)
    ident = ID_ATTR.search(attrs)
    attrs = ID_ATTR.sub("", attrs)
    if caption is None:
        return (f'<div class="table-wrap" tabindex="0" role="region" aria-label="Table">'
                f'<table{attrs}>{inner}</table></div>')
    cap_id = f"{ident.group(1) if ident else 'table'}-caption"
    fig_id = f' id="{ident.group(1)}"' if ident else ""
    return (f'<figure class="table-float"{fig_id}>\n'
            f'<figcaption id="{cap_id}">{caption.group(1)}</figcaption>\n'
            f'<div class="table-wrap" tabindex="0" role="region" aria-labelledby="{cap_id}">'
            f'<table{attrs} aria-labelledby="{cap_id}">{inner}</table></div>\n</figure>')
