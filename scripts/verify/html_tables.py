"""The tables in an HTML fragment (a pandas DataFrame's `_repr_html_`), as text cells.

`html_tables(text)` returns one ``(header, rows)`` per ``<table>``, like the
ledger's pipe-table reader: `header` is the cells of the first row of
``<thead>`` (a DataFrame's column names, with its blank index corner), `rows`
the cells of each body row (a DataFrame's index cell first). Cell text is the
element's text with entities decoded and whitespace collapsed; a ``colspan``
cell counts once. Nested tables are read as cells of their own table only.

Stdlib only (html.parser).
"""
from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.stack: list[dict] = []        # open tables (innermost last)
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.stack.append({"head": [], "body": [], "section": "body", "row": None})
        elif not self.stack:
            return
        elif tag == "thead":
            self.stack[-1]["section"] = "head"
        elif tag in ("tbody", "tfoot"):
            self.stack[-1]["section"] = "body"
        elif tag == "tr":
            table = self.stack[-1]
            table["row"] = []
            table[table["section"]].append(table["row"])
        elif tag in ("td", "th"):
            if self.stack[-1]["row"] is None:     # a cell outside any <tr>
                self.handle_starttag("tr", [])
            self.cell = []
        elif tag == "br" and self.cell is not None:
            self.cell.append(" ")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.stack:
            row = self.stack[-1]["row"]
            if row is not None:
                row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "thead" and self.stack:
            self.stack[-1]["section"] = "body"
        elif tag == "table" and self.stack:
            self.tables.append(self.stack.pop())

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def html_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    parser = _Tables()
    parser.feed(text)
    parser.close()
    out = []
    for table in parser.tables:
        head = [r for r in table["head"] if r]
        body = [r for r in table["body"] if r]
        if not head and body:           # no <thead>: the first row is the header
            head, body = [body[0]], body[1:]
        out.append((head[0] if head else [], body))
    return out
