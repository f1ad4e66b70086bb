"""Quarto's search index, checked against the pages it indexes.

Quarto 1.7.34 rewrites each book page to resolve cross-references
(`src/project/types/book/book-crossrefs.ts`: `writeDomToHtmlFile(...)`, not
awaited) and then builds `search.json` from the pages on disk
(`website-search.ts`). A page read while its rewrite is still in flight is read
empty, and drops out of the index: the page is right, its search entry is
missing. Rare, more likely on a loaded machine; seen once on CI.

`unindexed_pages` finds such pages: a page with text in its `<main>` (beyond
the title block) that no entry of `search.json` points to (`page` or
`page#section`). The same unawaited write can still be pending when Quarto
exits, leaving the page itself empty: `empty_pages`. For either, the renderer
renders once more (scripts/render/__init__.py).
"""
from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

SKIPPED = ("script", "style")


class _MainText(HTMLParser):
    """Whether `<main>` holds text outside the title block, scripts and styles.
    Counts only same-named tags to close a hidden element (void tags such as
    `<br>` have no end tag)."""

    def __init__(self):
        super().__init__()
        self.in_main = False
        self.hidden: str | None = None   # the tag of the hidden element we are in
        self.nested = 0                  # same-named tags opened inside it
        self.found = False

    def handle_starttag(self, tag, attrs):
        if tag == "main":
            self.in_main = True
        elif self.hidden is not None:
            self.nested += tag == self.hidden
        elif self.in_main and (tag in SKIPPED or dict(attrs).get("id") == "title-block-header"):
            self.hidden, self.nested = tag, 0

    def handle_endtag(self, tag):
        if tag == "main":
            self.in_main = False
        elif tag == self.hidden:
            if self.nested:
                self.nested -= 1
            else:
                self.hidden = None

    def handle_data(self, data):
        if self.in_main and self.hidden is None and data.strip():
            self.found = True


def has_main_text(html: str) -> bool:
    parser = _MainText()
    parser.feed(html)
    return parser.found


def unindexed_pages(out_dir: Path, pages: list[str]) -> list[str]:
    """The pages (paths relative to `out_dir`, as Quarto's hrefs) with text in their
    `<main>` that `search.json` lists no entry for. [] when Quarto wrote no index
    (search turned off) or a page is missing (the audit says so)."""
    try:
        entries = json.loads((Path(out_dir) / "search.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hrefs = {str(e.get("href", "")).split("#", 1)[0] for e in entries if isinstance(e, dict)}
    missing = []
    for page in pages:
        if page in hrefs:
            continue
        try:
            html = (Path(out_dir) / page).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if has_main_text(html):
            missing.append(page)
    return missing


def empty_pages(out_dir: Path, pages: list[str]) -> list[str]:
    """The pages (relative to `out_dir`) that exist with no bytes at all."""
    found = []
    for page in pages:
        try:
            if (Path(out_dir) / page).stat().st_size == 0:
                found.append(page)
        except OSError:
            continue
    return found
