"""The page footer (`book:`/`website: page-footer:`), as Quarto 1.7 writes it.

Quarto's template (src/resources/projects/website/templates/nav-after-body-postamble.ejs,
nav-footer-section.ejs) puts `<footer class="footer"><div class="nav-footer">` after
the page's content, with a left, a center and a right `<div>`: a side written as
Markdown is rendered as Markdown blocks (`<p>…</p>`), a list of navigation items as a
`<ul class="footer-items">` of links (`text`, `href`, `icon`: a Bootstrap icon, which
the offline built-in page names in words), an empty side as `&nbsp;`. The page audit
reads it (scripts/bookcheck/verify/audit_chrome.py).
"""
from __future__ import annotations

import html
import posixpath
from urllib.parse import quote

from . import pandoc

SIDES = ("left", "center", "right")


def footer_sides(page_footer: dict) -> dict[str, object]:
    """Each side of Project.page_footer made HTML-ready: Markdown rendered once (one
    pandoc run for the footer), a list of items kept for `page_footer` to link."""
    sides: dict[str, object] = {}
    for side in SIDES:
        value = page_footer.get(side)
        if isinstance(value, str):
            sides[side] = pandoc.run(["--from=markdown", "--to=html", "--wrap=none"], stdin=value,
                                     what="page-footer").strip()
        elif isinstance(value, list):
            sides[side] = [item if isinstance(item, dict) else {"text": str(item), "href": str(item)}
                           for item in value]
    return sides


def _href(page: str, href: str) -> str:
    """An item's link from `page`: a project file (`about.qmd`) as its page, relative."""
    if "://" in href or href.startswith(("#", "mailto:", "/")):
        return href
    stem, ext = posixpath.splitext(href)
    target = stem + ".html" if ext in (".qmd", ".md", ".ipynb") else href
    return quote(posixpath.relpath(target, posixpath.dirname(page) or "."))


def _items(page: str, items: list[dict]) -> str:
    rows = []
    for item in items:
        text, icon = str(item.get("text") or ""), str(item.get("icon") or "")
        inner = (f'<i class="bi bi-{html.escape(icon)}" role="img" data-icon="{html.escape(icon)}"></i> '
                 if icon else "") + \
            (f"<p>{html.escape(text)}</p>" if text else "")
        rows.append(f'<li class="nav-item{"" if text else " compact"}"><a class="nav-link" '
                    f'href="{html.escape(_href(page, str(item.get("href") or "")))}">{inner}</a></li>')
    return '<ul class="footer-items list-unstyled">' + "".join(rows) + "</ul>"


def page_footer(sides: dict[str, object], page: str) -> str:
    """The footer of `page` (empty when the project has none)."""
    if not sides:
        return ""
    parts = []
    for side in SIDES:
        value = sides.get(side)
        inner = value if isinstance(value, str) else _items(page, value) if value else "&nbsp;"
        parts.append(f'<div class="nav-footer-{side}">{inner}</div>')
    return '<footer class="footer">\n<div class="nav-footer">\n' + "\n".join(parts) + "\n</div>\n</footer>"
