"""HTML output: one page per chapter with a sidebar and previous/next links.

Pandoc writes each chapter's body (MathML math, citeproc references);
this module wraps it in our page: book title, search box, table of contents
with the current page highlighted, "On this page" list, a link to the PDF
when one has been rendered, previous/next navigation, book.css and two
small scripts (book.js: menu button and "On this page" highlight;
search.js: search, see search.py). No external resource: the pages work
offline and from file://.
"""
from __future__ import annotations

import html
import posixpath
import re
import shutil
from pathlib import Path
from urllib.parse import quote

from . import downloads, search
from .book import Book, Chapter, apply_job, write_files
from .incremental import Job, run_jobs
from .pdf import pdf_name

ASSETS = Path(__file__).with_name("assets")
CSS = "book.css"
JS = "book.js"
SEARCH_JS = "search.js"


def _rel(from_page: str, to_path: str) -> str:
    """The URL of `to_path` from `from_page`: relative, percent-encoded (a file name
    may hold `#`, `?`, `%`, spaces or brackets)."""
    return quote(posixpath.relpath(to_path, posixpath.dirname(from_page) or "."))


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
    return '<nav class="pager" aria-label="Chapters" data-pagefind-ignore>' + "".join(links) + "</nav>"


def root_prefix(page_path: str) -> str:
    """The relative path from a page to the book root: "" or "../"."""
    rel = _rel(page_path, "index.html")
    return rel[: -len("index.html")]


def on_this_page(chapter: Chapter) -> str:
    """The right-hand "On this page" list: the page's level-2 and level-3 headings.

    A `<details>` element: open beside the text on wide screens, a collapsed
    box at the top of the page on narrow ones (book.js opens/closes it).
    """
    if chapter.info is None:
        return ""
    headers = chapter.info.collected.get("headers")
    rows = []
    for h, number in zip(headers if isinstance(headers, list) else [], chapter.info.headers):
        if h.get("level") in (2, 3) and h.get("id"):
            num = f'<span class="toc-number">{html.escape(number)}</span> ' if number else ""
            rows.append(f'<li class="level{h["level"]}"><a href="#{html.escape(h["id"])}">'
                        f'{num}{html.escape(h.get("text", ""))}</a></li>')
    if not rows:
        return ""
    return ('<details class="page-toc" open>\n<summary>On this page</summary>\n'
            '<nav aria-label="On this page"><ol>' + "".join(rows) + "</ol></nav>\n</details>")


def search_box() -> str:
    """The search form; assets/search.js fills the result list."""
    return ('<form class="search" role="search" action="#" onsubmit="return false">\n'
            '<label for="search-input">Search the book</label>\n'
            '<input type="search" id="search-input" autocomplete="off" '
            'aria-describedby="search-status" placeholder="Search…">\n'
            '<p id="search-status" class="search-status" role="status" aria-live="polite"></p>\n'
            '<ol id="search-results" class="search-results"></ol>\n</form>')


def page(book: Book, index: int, body: str, pdf: str | None = None) -> str:
    """A complete HTML page around a chapter body.

    `pdf` is the PDF's file name at the book root when one has been
    rendered: every page then links to it.
    """
    here = book.chapters[index]
    title = html.escape(book.title)
    chapter_title = html.escape(here.display_title.replace("\u00a0\u00a0", " "))
    head_title = title if here.page == "index.html" else f"{chapter_title} – {title}"
    root = root_prefix(here.page)
    return f"""<!DOCTYPE html>
<html lang="{html.escape(book.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="book-root" content="{root}">
<title>{head_title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{_rel(here.page, CSS)}">
<noscript><style>.sidebar {{ display: block; }} .nav-button {{ display: none; }}</style></noscript>
<script src="{_rel(here.page, JS)}" defer></script>
<script src="{_rel(here.page, SEARCH_JS)}" defer></script>
</head>
<body>
<a class="skip-link" href="#content">Skip to the text</a>
<header class="topbar">
<button type="button" class="nav-button" aria-expanded="false" aria-controls="sidebar">☰ Contents</button>
<a class="book-title" href="{_rel(here.page, 'index.html')}">{title}</a>
</header>
<div class="layout">
<nav class="sidebar" id="sidebar" aria-label="Table of contents">
<a class="sidebar-title" href="{_rel(here.page, 'index.html')}">{title}</a>
{search_box()}
{downloads.pdf_link(here.page, pdf)}
{sidebar(book, here)}
</nav>
{on_this_page(here)}
<main class="content" id="content" data-pagefind-body>
{body}
{pager(book, index)}
</main>
</div>
</body>
</html>
"""


REFS_HEADING = re.compile(r'<h1 class="unnumbered" id="bibliography">(.*?)</h1>')
TABLE = re.compile(r"<table\b.*?</table>", re.S)
CAPTION = re.compile(r"<caption\b[^>]*>(.*?)</caption>", re.S)
TAG = re.compile(r"<[^>]+>")
EQUATION = re.compile(r'(<span\b[^>]*\bclass="equation"[^>]*)>')


def scrollable(body: str) -> str:
    """Wrap each table in a keyboard-focusable region that scrolls sideways.

    On a phone a wide table scrolls inside its box instead of widening the
    page; a scrolling region must be reachable by keyboard (axe's
    scrollable-region-focusable), so the box is focusable and named after
    the table's caption. Code blocks and numbered equations scroll
    themselves and get tabindex too.
    """
    def wrap(match: re.Match) -> str:
        caption = CAPTION.search(match.group(0))
        name = " ".join(TAG.sub("", caption.group(1)).split()) if caption else "Table"
        return (f'<div class="table-wrap" tabindex="0" role="region" '
                f'aria-label="{html.escape(name or "Table")}">{match.group(0)}</div>')
    body = TABLE.sub(wrap, body)
    body = EQUATION.sub(r'\1 tabindex="0">', body)
    return body.replace("<pre>", '<pre tabindex="0">').replace("<pre class=", '<pre tabindex="0" class=')


HTML_ARGS = ["--mathml", "--syntax-highlighting=none", "--wrap=none"]


def body_job(book: Book, chapter: Chapter, facts_out: Path | None = None) -> Job:
    """The pandoc run behind one page's body (the apply pass to HTML; see apply_job)."""
    return apply_job(book, chapter, "html", "html5", HTML_ARGS, facts_out=facts_out)


def finish_body(body: str) -> str:
    """A page body from pandoc's HTML: citeproc's reference-section-title is a
    level-1 heading; on a chapter page the reference list is a section of the chapter."""
    body = REFS_HEADING.sub(r'<h2 class="unnumbered references-title" id="bibliography">\1</h2>', body)
    return scrollable(body)


def page_bodies(book: Book, chapters: list[Chapter]) -> list[str]:
    """The bodies of `chapters`' pages (stored ones reused, the others run at once)."""
    return [finish_body(body) for body in run_jobs(book.cache, [body_job(book, c) for c in chapters])]


def write_html(book: Book, dest: Path) -> Path:
    """Write every page, the figures, the assets and the search indexes under `dest`.

    A PDF already in `dest` (carried over from an earlier `make pdf`) is
    linked from every page.
    """
    bodies = page_bodies(book, book.chapters)
    pdf = pdf_name(book) if (dest / pdf_name(book)).is_file() else None
    pages = {}
    for i, (chapter, body) in enumerate(zip(book.chapters, bodies)):
        target = dest / chapter.page
        target.parent.mkdir(parents=True, exist_ok=True)
        text = pages[chapter.page] = page(book, i, body, pdf)
        target.write_text(text, encoding="utf-8")
    if not (dest / "index.html").exists():
        first = html.escape(quote(book.chapters[0].page))
        (dest / "index.html").write_text(
            f'<!DOCTYPE html><meta charset="utf-8"><title>{html.escape(book.title)}</title>'
            f'<meta http-equiv="refresh" content="0; url={first}"><a href="{first}">{first}</a>',
            encoding="utf-8")
    pagefind_done = search.start_pagefind(dest, book.cache, pages)   # every page is written
    try:            # the rest while Pagefind indexes
        sections = []
        for chapter in book.chapters:
            title = chapter.display_title.replace("\u00a0\u00a0", " ")
            sections += search.cached_page_sections(book.cache, quote(chapter.page), title,
                                                    pages[chapter.page])
        write_files(book, dest)
        for name in (CSS, JS, SEARCH_JS):
            shutil.copyfile(ASSETS / name, dest / name)
        search.write_fallback_index(dest, sections)
    finally:
        pagefind_done()
    return dest / "index.html"
