"""The tables in an HTML fragment (a pandas DataFrame's `_repr_html_`), as text cells.

`html_tables(text)` returns one ``(header, rows)`` per ``<table>``, like the
ledger's pipe-table reader: `header` is the cells of the first row of
``<thead>`` (a DataFrame's column names, with its blank index corner), `rows`
the cells of each body row (a DataFrame's index cell first). Cell text is the
element's text with entities decoded and whitespace collapsed; a ``colspan``
cell counts once. A table in a cell is read as a table of its own, not as the
cell's text (the cell keeps its place in its row).

`html_text(text)` is the rest a reader sees of the fragment: the text outside its
tables (a sentence, `<b>42</b> nodes`, a DataFrame's "3 rows × 2 columns"), one
line per block, without `<style>` and `<script>`; and the text a reader sees that is
no element's text (`shown_attributes`, `css_content`: a `title=` tooltip, a form
field's `value`/`placeholder`, an image's `alt` (shown when the image is broken, and
read aloud), a stylesheet's `content: "…"`), each on a line of its own, wherever it
is (also in a table). The page audit reads the same (audit_html.py).

Read with lxml.html (`html_tree`), the parser the page audit and the search index use too.
"""
from __future__ import annotations

import re

import lxml.etree
import lxml.html

#: (tag or None for any, attribute) whose value a reader sees
SHOWN = ((None, "title"), ("input", "value"), ("input", "placeholder"),
         ("textarea", "placeholder"), ("button", "value"), ("img", "alt"))
CSS_CONTENT = re.compile(r"""\bcontent\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
FULL_PAGE = re.compile(r"[\s\ufeff]*<(?:!doctype|html)", re.I)     # else a fragment
#: void elements libxml2 does not know are void: it nests what follows one inside it
UNKNOWN_VOID = ("embed", "source", "track", "wbr")


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


def html_tree(text: str):
    """The element tree of a page or a fragment: lxml.html (libxml2's HTML parser, which
    mends malformed HTML and decodes entities), `huge_tree` (a `data:` image over 10 MB
    would end the parse), a parser per call (its own error log). A fragment is read in
    a `<body>` of its own (a leading `<style>` stays out of `<head>`); a void element
    is empty, as in a browser (`UNKNOWN_VOID`). HTML nested deeper than 2,048 elements
    is a ValueError, not a page cut short (the readers, which recurse, stop at Python's
    recursion limit, about 1,000)."""
    if not FULL_PAGE.match(text):
        text = f"<html><body>{text}</body></html>"
    parser = lxml.html.HTMLParser(encoding="utf-8", huge_tree=True)
    tree = lxml.html.document_fromstring(text.encode("utf-8", "replace"), parser=parser)
    stopped = [e.message for e in parser.error_log if e.level_name == "FATAL"]
    if stopped:
        raise ValueError(f"unreadable HTML: {stopped[0].strip()}")
    for element in list(tree.iter(*UNKNOWN_VOID)):     # an outer one first
        _unnest(element)
    return tree


def _unnest(element) -> None:
    """Move what the parser put inside a void `element` (`GPU_<wbr>HOURS`) after it."""
    moved, tail = list(element), element.tail
    element.tail, element.text = element.text, None
    at = element.getparent().index(element)
    element.getparent()[at + 1:at + 1] = moved
    last = moved[-1] if moved else element
    last.tail = (last.tail or "") + (tail or "") or None


def html_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """The tables of `text`, an inner one before the table holding it."""
    out = []
    for _, table in lxml.etree.iterwalk(html_tree(text), events=("end",), tag="table"):
        rows: dict[str, list[list[str]]] = {"head": [], "body": []}
        row = None
        for section, cell in _cells(table):
            if cell is None or row is None:     # a <tr>, or a cell outside any
                row = []
                rows[section].append(row)
            if cell is not None:
                row.append(cell)
        head, body = [r for r in rows["head"] if r], [r for r in rows["body"] if r]
        if not head and body:           # no <thead>: the first row is the header
            head, body = [body[0]], body[1:]
        out.append((head[0] if head else [], body))
    return out


def _cells(element, section: str = "body"):
    """(section, text) of each cell of `element` (not of a table inside it), and
    (section, None) where a `<tr>` starts; `section` is "head" in a `<thead>`."""
    for child in element:
        if child.tag in ("thead", "tbody", "tfoot"):
            yield from _cells(child, "head" if child.tag == "thead" else "body")
        elif child.tag == "tr":
            yield section, None
            yield from _cells(child, section)
        elif child.tag in ("td", "th"):
            yield section, " ".join(_cell_text(child).split())
        elif child.tag != "table" and isinstance(child.tag, str):
            yield from _cells(child, section)


def _cell_text(element) -> str:
    """The text of a cell's `element`: a `<br>` is a space, a table inside it is its own."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == "br":
            parts.append(" ")
        elif child.tag != "table" and isinstance(child.tag, str):
            parts.append(_cell_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
           "blockquote", "ul", "ol", "table", "hr", "dl", "dt", "dd", "section"}


def html_text(text: str) -> str:
    """The text of an HTML fragment outside its tables, one line per block."""
    parts: list[str] = []
    _shown(html_tree(text), parts, in_table=False)
    lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _shown(element, parts: list[str], in_table: bool) -> None:
    """Add to `parts` what a reader sees of `element` outside tables (its shown
    attributes and stylesheet strings wherever it is), a block on lines of its own."""
    tag = element.tag
    if tag in _BLOCKS:
        parts.append("\n")
    parts += [f"\n{text}\n" for text in shown_attributes(tag, element.attrib)]
    in_table = in_table or tag == "table"
    if tag == "style":
        parts += [f"\n{text}\n" for text in css_content(element.text or "")]
    elif tag != "script" and not in_table:
        parts.append(element.text or "")
    for child in element:
        if isinstance(child.tag, str):
            _shown(child, parts, in_table)
        if not in_table:
            parts.append(child.tail or "")
    if tag in _BLOCKS:
        parts.append("\n")
