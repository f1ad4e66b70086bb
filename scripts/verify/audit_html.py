"""The text a reader sees of one HTML page, with the spans the renderer made.

`reader_text(html)` returns a `ReaderText`: the visible text of the page's
`<main>` (docs/audit.md, "What a page is"), and two kinds of spans in it:

- `exempt`: numbers the renderer made (the elements of `EXEMPT_CLASSES`, `EXEMPT_IDS`);
- `soft`: code and math (`<code>`, `<pre>` other than a cell's text output,
  `<math>`): a number there may be a published value (then it is matched),
  else it is what the author wrote as code or a formula.

Works on any HTML (the built-in renderer's and Quarto's use the same classes).
Stdlib only (html.parser).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from scripts.verify.audit_tokens import visible

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


@dataclass
class ReaderText:
    text: str = ""
    exempt: list[tuple[int, int]] = field(default_factory=list)
    soft: list[tuple[int, int]] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self, only_main: bool):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.size = 0
        self.stack: list[tuple[str, str]] = []   # (tag, zone: "" | hidden | exempt | soft | output)
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

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in BLOCK:
            self._add("\n", "")
        if tag in VOID:
            return
        classes = set((attrs.get("class") or "").split())
        zone = ""
        if tag in HIDDEN or (tag == "div" and "page-toc" in classes):
            zone = "hidden"
        elif classes & EXEMPT_CLASSES or attrs.get("id") in EXEMPT_IDS:
            zone = "exempt"
        elif tag == "pre" and "cell-output" in classes:
            zone = "output"
        elif tag in ("code", "pre", "math"):
            zone = "soft"
        if tag == "details" and "page-toc" in classes:
            zone = "hidden"
        self.stack.append((tag, zone))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        if tag in BLOCK:
            self._add("\n", "")

    def handle_data(self, data):
        zone = self._zone()
        if zone == "hidden":
            return
        data = visible(data)
        if any(t in ("math", "sup", "sub") for t, _ in self.stack):
            data = f" {data} "          # <mn>10</mn><mn>9</mn>, 754<sup>10</sup>: two numbers
        self._add(data, zone)

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
    parser = _Reader(only_main=not whole_page and "<main" in html)
    parser.feed(html)
    parser.close()
    parser.out.text = "".join(parser.parts)
    return parser.out
