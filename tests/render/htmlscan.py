"""A tiny HTML scanner for the tests (stdlib html.parser only)."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict
    text: str = ""
    children: list = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()


class _Scanner(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []

    def handle_starttag(self, tag, attrs):
        el = Element(tag, {k: (v or "") for k, v in attrs})
        if self.open:
            self.open[-1].children.append(el)
        self.elements.append(el)
        if tag not in VOID:
            self.open.append(el)

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i].tag == tag:
                del self.open[i:]
                break

    def handle_data(self, data):
        for el in self.open:
            el.text += data


def scan(html: str) -> list[Element]:
    """Every element of the page, in document order, with its full text."""
    parser = _Scanner()
    parser.feed(html)
    parser.close()
    return parser.elements


def norm(text: str) -> str:
    """Collapse whitespace (including no-break spaces) to single spaces."""
    return " ".join(text.replace("\u00a0", " ").split())
