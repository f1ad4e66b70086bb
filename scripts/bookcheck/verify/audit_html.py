r"""The text a reader sees of one HTML page, with the spans the renderer made.

`reader_text(html)` returns a `ReaderText`: the visible text of the page's
`<main>` (docs/audit.md, "What a page is"), and two kinds of spans in it:

Besides element text, what a reader sees of attributes and stylesheets
(html_tables.shown_attributes, css_content: a `title=` tooltip, a field's value, an
image's alt, a `content: "…"`) is text, as the ledger records it of a cell's HTML.

- `exempt`: numbers the renderer made (the elements of `EXEMPT_CLASSES`, `EXEMPT_IDS`);
- `soft`: code and math (`<code>`, `<pre>` other than a cell's text output, and
  math as each `html-math-method` publishes it, `MATH`): a number there may be a
  published value (then it is matched), else it is what the author wrote as code
  or a formula;
- `raw_math`: a formula pandoc could not convert (mathml, plain), which it writes as
  its TeX between `$`: a reader sees raw TeX.

Math as Quarto 1.7.34 and pandoc write it (tests/verify/test_audit_math.py):
mathml `<math>` (the TeX in `<annotation>`, hidden); mathjax `<span class="math
inline">\(…\)</span>` (display `\[…\]`), katex the same span with the bare TeX,
plain the span with HTML (`<em>x</em><sup>2</sup>`); webtex `<img class="math …"
alt="TeX">`; gladtex `<eq env="math">TeX</eq>`, raw TeX to a reader (the GladTeX program
that would replace it is not run; read/project.py refuses the method). In math a number's thousands
separator may stand apart (`<mn>961</mn><mo>,</mo><mn>538</mn>`) or be TeX's `{,}`:
it reads as the one number `961,538`.

Works on any HTML (the built-in renderer's and Quarto's use the same classes).
Read with lxml.html (html_tables.html_tree).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from bookcheck.verify.audit_tokens import visible
from bookcheck.verify.html_tables import css_content, html_tree, shown_attributes

EXEMPT_CLASSES = {"chapter-number", "header-section-number", "eq-number", "toc-number",
                  "quarto-xref", "citation", "csl-entry", "references", "csl-bib-body",
                  "quarto-appendix-contents", "menu-text", "quarto-section-identifier",
                  # Quarto's title block (authors, the date) and footnote marks
                  "quarto-title-meta", "quarto-title-meta-contents", "date",
                  "footnote-ref", "footnote-back"}
EXEMPT_IDS = {"refs"}
HIDDEN = {"script", "style", "annotation", "annotation-xml", "template", "noscript", "nav",
          "title", "head"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
BLOCK = {"p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "table",
         "caption", "figcaption", "figure", "pre", "blockquote", "section", "dd", "dt",
         "summary", "details", "ul", "ol", "dl", "thead", "tbody", "br", "hr", "main"}


#: a number in math whose thousands separators stand apart (MathML's `<mo>,</mo>`, TeX's `{,}`)
SPLIT_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:\s*(?:,|\{,\})\s*\d{3})+(?![\d])")


def is_math(tag: str, classes: set[str]) -> bool:
    """An element holding one formula: `<math>`, `<eq>`, `.math` (span, img)."""
    return tag in ("math", "eq") or (tag in ("span", "img") and "math" in classes)


@dataclass
class ReaderText:
    text: str = ""
    exempt: list[tuple[int, int]] = field(default_factory=list)
    soft: list[tuple[int, int]] = field(default_factory=list)
    raw_math: list[tuple[int, int]] = field(default_factory=list)


class _Reader:
    """The reader's text of a tree, in the order a walk of it meets it (`reader_text`)."""

    def __init__(self, only_main: bool):
        self.parts: list[str] = []
        self.size = 0
        self.stack: list[tuple[str, str]] = []   # (tag, zone: "" | hidden | exempt | soft | output)
        self.math: list[tuple[int, int]] = []
        self.only_main = only_main
        self.out = ReaderText()

    def _zone(self) -> str:
        for _, zone in reversed(self.stack):
            if zone in ("hidden", "exempt"):
                return zone
        if any(z == "soft" for _, z in self.stack) and not any(z == "output" for _, z in self.stack):
            return "soft"
        if self.only_main and not any(t == "main" for t, _ in self.stack):
            return "hidden"
        return ""

    def walk(self, element) -> None:
        """Read `element` (not its tail)."""
        tag, attrs, outer = element.tag, element.attrib, self._zone()
        if tag in BLOCK:
            self._add("\n", "")
        classes = set((attrs.get("class") or "").split())
        if tag == "img" and is_math(tag, classes) and outer != "hidden":
            start = self.size                  # webtex: the formula is an image, its TeX the alt
            self._add(f" {visible(attrs.get('alt') or '')} ", "soft")
            self.math.append((start, self.size))
        if outer != "hidden":              # a tooltip, a field's value, an image's alt
            for text in shown_attributes(tag, attrs):
                self._add(f" {visible(text)} ", outer)
        if tag in VOID:
            return
        start = attrs.get("start") or "1"
        if tag == "ol" and start != "1" and start.isdigit() and (attrs.get("type") or "1") == "1" \
                and outer != "hidden":
            self._add(f"{start}. ", outer)   # CSS counts from it: the reader sees it
        zone = ""
        if tag in HIDDEN or (tag == "div" and "page-toc" in classes):
            zone = "hidden"
        elif classes & EXEMPT_CLASSES or attrs.get("id") in EXEMPT_IDS:
            zone = "exempt"
        elif tag == "pre" and "cell-output" in classes:
            zone = "output"
        elif tag in ("code", "pre") or is_math(tag, classes):
            zone = "soft"
        if tag == "details" and "page-toc" in classes:
            zone = "hidden"
        formula = (self.size, len(self.parts), tag == "eq") if is_math(tag, classes) else None
        self.stack.append((tag, zone))
        if tag == "style" and outer != "hidden":   # `content: "…"`: shown by the stylesheet
            for text in css_content(element.text or ""):
                self._add(f" {visible(text)} ", outer)
        self._data(element.text)
        for child in element:
            if isinstance(child.tag, str):     # not a comment
                self.walk(child)
            self._data(child.tail)
        self.stack.pop()
        if formula:
            self._formula(*formula)
        if tag in BLOCK:
            self._add("\n", "")

    def _data(self, data: str | None) -> None:
        zone = self._zone() if data else "hidden"       # (no text: no zone to look up)
        if zone == "hidden":
            return
        data = visible(data)
        if any(t in ("math", "sup", "sub") for t, _ in self.stack):
            data = f" {data} "          # <mn>10</mn><mn>9</mn>, 754<sup>10</sup>: two numbers
        self._add(data, zone)

    def _formula(self, start: int, part: int, tex: bool) -> None:
        """A formula ends: pandoc's fallback (`$TeX$`) and gladtex's `<eq>` (TeX for a
        program nobody runs) are raw TeX, not math."""
        shown = "".join(self.parts[part:]).strip()
        if tex or len(shown) > 1 and shown[0] == shown[-1] == "$":
            self.out.soft = [(a, b) for a, b in self.out.soft if not start <= a < self.size]
            self.out.raw_math.append((start, self.size))
        else:
            self.math.append((start, self.size))

    def _add(self, text: str, zone: str) -> None:
        start = self.size
        self.parts.append(text)
        self.size += len(text)
        if zone == "exempt":
            self.out.exempt.append((start, self.size))
        elif zone == "soft":
            self.out.soft.append((start, self.size))


def reader_text(html: str, whole_page: bool = False) -> ReaderText:
    """The reader's text of a page (of its `<main>`, or all of it when it has none or
    `whole_page`), with the renderer's and the soft spans."""
    reader = _Reader(only_main=not whole_page and "<main" in html)
    reader.walk(html_tree(html))
    text = "".join(reader.parts)
    reader.out.text = _joined(text, reader.math) if reader.math else text
    return reader.out


def _joined(text: str, math: list[tuple[int, int]]) -> str:
    """`text` with each split number of a formula written whole (`961,538`), right-aligned
    in the room it took, so that every offset stays where it was."""
    chars = list(text)
    for a, b in math:
        for m in SPLIT_NUMBER.finditer(text, a, b):
            whole = re.sub(r"\s|\{,\}", lambda c: "" if c.group(0).isspace() else ",", m.group(0))
            chars[m.start():m.end()] = whole.rjust(m.end() - m.start())
    return "".join(chars)
