"""HTML output: one page per chapter with a sidebar and previous/next links.

Pandoc writes each chapter's body (MathML math, citeproc references);
this module wraps it in our page: book title, table of contents with the
current page highlighted, previous/next navigation and book.css. No script
and no external resource: the pages work offline and from file://.
"""
from __future__ import annotations

import html
import posixpath
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .book import Book, Chapter, apply_pass, write_files

ASSETS = Path(__file__).with_name("assets")
CSS = "book.css"


def _rel(from_page: str, to_path: str) -> str:
    return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")


def sidebar(book: Book, current: Chapter) -> str:
    """The table of contents, chapters then appendices."""
    def item(ch: Chapter) -> str:
        attrs = ' class="active" aria-current="page"' if ch is current else ""
        number = ch.info.number if ch.info else None
        label = html.escape(ch.info.title if ch.info else ch.path)
        num = f'<span class="toc-number">{html.escape(number)}</span> ' if number else ""
        sections = page_sections(ch) if ch is current else ""
        return f'<li><a href="{_rel(current.page, ch.page)}"{attrs}>{num}{label}</a>{sections}</li>'

    main = [item(c) for c in book.chapters if not c.appendix]
    apps = [item(c) for c in book.chapters if c.appendix]
    parts = ['<ol class="toc">', *main, "</ol>"]
    if apps:
        parts += ['<p class="toc-part">Appendices</p>', '<ol class="toc">', *apps, "</ol>"]
    return "\n".join(parts)


def page_sections(chapter: Chapter) -> str:
    """The current page's level-2 sections, listed under its sidebar entry."""
    if chapter.info is None:
        return ""
    headers = chapter.info.collected.get("headers")
    rows = []
    for h, number in zip(headers if isinstance(headers, list) else [], chapter.info.headers):
        if h.get("level") == 2 and h.get("id"):
            num = f'<span class="toc-number">{html.escape(number)}</span> ' if number else ""
            rows.append(f'<li><a href="#{html.escape(h["id"])}">{num}{html.escape(h.get("text", ""))}</a></li>')
    return '<ol class="toc-sections">' + "".join(rows) + "</ol>" if rows else ""


def pager(book: Book, index: int) -> str:
    """Previous/next links at the foot of a page."""
    chapters = book.chapters
    here = chapters[index]
    links = []
    if index > 0:
        prev = chapters[index - 1]
        links.append(f'<a class="prev" rel="prev" href="{_rel(here.page, prev.page)}">'
                     f'<span class="dir">← Previous</span> {html.escape(prev.display_title)}</a>')
    else:
        links.append("<span></span>")
    if index + 1 < len(chapters):
        nxt = chapters[index + 1]
        links.append(f'<a class="next" rel="next" href="{_rel(here.page, nxt.page)}">'
                     f'<span class="dir">Next →</span> {html.escape(nxt.display_title)}</a>')
    return '<nav class="pager" aria-label="Chapters">' + "".join(links) + "</nav>"


def page(book: Book, index: int, body: str) -> str:
    """A complete HTML page around a chapter body."""
    here = book.chapters[index]
    title = html.escape(book.title)
    chapter_title = html.escape(here.display_title.replace("\u00a0\u00a0", " "))
    head_title = title if here.page == "index.html" else f"{chapter_title} – {title}"
    return f"""<!DOCTYPE html>
<html lang="{html.escape(book.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{head_title}</title>
<link rel="stylesheet" href="{_rel(here.page, CSS)}">
</head>
<body>
<input type="checkbox" id="nav-toggle" class="nav-toggle" aria-label="Show the table of contents">
<header class="topbar">
<label for="nav-toggle" class="nav-button" aria-hidden="true">☰</label>
<a class="book-title" href="{_rel(here.page, 'index.html')}">{title}</a>
</header>
<div class="layout">
<nav class="sidebar" aria-label="Table of contents">
<a class="sidebar-title" href="{_rel(here.page, 'index.html')}">{title}</a>
{sidebar(book, here)}
</nav>
<main class="content" id="content">
{body}
{pager(book, index)}
</main>
</div>
</body>
</html>
"""


REFS_HEADING = re.compile(r'<h1 class="unnumbered" id="bibliography">(.*?)</h1>')


def page_body(book: Book, chapter: Chapter) -> str:
    """One chapter's HTML body (pandoc's apply pass)."""
    body = apply_pass(book, chapter, "html", "html5",
                      ["--mathml", "--syntax-highlighting=none", "--wrap=none"])
    # citeproc's reference-section-title is a level-1 heading; on a chapter
    # page the reference list is a section of the chapter.
    return REFS_HEADING.sub(r'<h2 class="unnumbered references-title" id="bibliography">\1</h2>', body)


def write_html(book: Book, dest: Path) -> Path:
    """Write every page, the figures and the stylesheet under `dest`."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        bodies = list(pool.map(lambda c: page_body(book, c), book.chapters))
    for i, (chapter, body) in enumerate(zip(book.chapters, bodies)):
        target = dest / chapter.page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(book, i, body), encoding="utf-8")
    write_files(book, dest)
    shutil.copyfile(ASSETS / CSS, dest / CSS)
    if not (dest / "index.html").exists():
        first = book.chapters[0].page
        (dest / "index.html").write_text(
            f'<!DOCTYPE html><meta charset="utf-8"><title>{html.escape(book.title)}</title>'
            f'<meta http-equiv="refresh" content="0; url={first}"><a href="{first}">{first}</a>',
            encoding="utf-8")
    return dest / "index.html"
