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
renders once more (scripts/bookcheck/render/__init__.py).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from bookcheck.verify.audit_html import reader_text

TITLE_BLOCK = re.compile(r'<header id="title-block-header".*?</header>', re.S)   # Quarto's


def has_main_text(html: str) -> bool:
    """Whether a reader sees any text in the page's `<main>` besides its title block."""
    return bool(reader_text(TITLE_BLOCK.sub("", html)).text.strip())


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
