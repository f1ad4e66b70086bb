"""The tables in an HTML fragment (a pandas DataFrame's `_repr_html_`), as text cells.

`html_tables(text)` returns one ``(header, rows)`` per ``<table>``, like the
ledger's pipe-table reader: `header` is the cells of the first row of
``<thead>`` (a DataFrame's column names, with its blank index corner), `rows`
the cells of each body row (a DataFrame's index cell first). Cell text is the
element's text with entities decoded and whitespace collapsed; a ``colspan``
cell counts once. Nested tables are read as cells of their own table only.

`html_text(text)` is the rest a reader sees of the fragment: the text outside its
tables (a sentence, `<b>42</b> nodes`, a DataFrame's "3 rows × 2 columns"), one
line per block, without `<style>` and `<script>`; and the text a reader sees that is
no element's text (`shown_attributes`, `css_content`: a `title=` tooltip, a form
field's `value`/`placeholder`, an image's `alt` (shown when the image is broken, and
read aloud), a stylesheet's `content: "…"`), each on a line of its own, wherever it
is (also in a table). The page audit reads the same (audit_html.py).

Stdlib only (html.parser).
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

#: (tag or None for any, attribute) whose value a reader sees
SHOWN = ((None, "title"), ("input", "value"), ("input", "placeholder"),
         ("textarea", "placeholder"), ("button", "value"), ("img", "alt"))
CSS_CONTENT = re.compile(r"""\bcontent\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")


def shown_attributes(tag: str, attrs: dict) -> list[str]:
    """The values of `tag`'s attributes a reader sees (`SHOWN`); a formula's image
    (`img.math`, its TeX as alt) is math's, not text."""
    if tag == "img" and "math" in (attrs.get("class") or "").split():
        return []
    return [attrs[name] for only, name in SHOWN
            if (only is None or only == tag) and (attrs.get(name) or "").strip()]


def css_content(style: str) -> list[str]:
    """The strings a stylesheet's `content:` declarations put on the page."""
    return [m.group(1) if m.group(1) is not None else m.group(2)
            for m in CSS_CONTENT.finditer(style)]


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


_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
           "blockquote", "ul", "ol", "table", "hr", "dl", "dt", "dd", "section"}


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.tables = 0
        self.hidden = 0
        self.style = False

    def handle_starttag(self, tag, attrs):
        if tag in _BLOCKS:
            self.parts.append("\n")
        if not self.hidden:
            self.parts += [f"\n{text}\n" for text in shown_attributes(tag, dict(attrs))]
        if tag == "table":
            self.tables += 1
        elif tag in ("style", "script"):
            self.hidden += 1
            self.style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "table":
            self.tables = max(0, self.tables - 1)
        elif tag in ("style", "script"):
            self.hidden = max(0, self.hidden - 1)
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.hidden and self.style:
            self.parts += [f"\n{text}\n" for text in css_content(data)]
        elif not self.tables and not self.hidden:
            self.parts.append(data)


def html_text(text: str) -> str:
    """The text of an HTML fragment outside its tables, one line per block."""
    parser = _Text()
    parser.feed(text)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)
