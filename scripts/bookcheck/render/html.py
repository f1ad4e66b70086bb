"""HTML output: one page per chapter with a sidebar and previous/next links.

Pandoc writes each chapter's body (math as `html-math-method` asks, MathML by default;
citeproc references); this module
wraps it in our page (book title, search box, table of contents with the current
page highlighted, "On this page", the PDF link when one was rendered, previous/next,
a light/dark button), with book.css (light and dark schemes; the math font under
fonts/) and three small scripts (book.js: menus, light/dark, "On this page"
highlight; search.js: see search.py; scheme.js: a kept light/dark choice, applied
before the page is drawn). No external resource: the pages work offline and from file://
(unless `html-math-method` asks for MathJax, KaTeX or WebTeX, loaded as Quarto loads them).
"""
from __future__ import annotations

import html
import posixpath
import re
import shutil
from pathlib import Path
from urllib.parse import quote

from . import downloads, search
from .book import Book, Chapter, apply_job, page_for, write_files
from .website import sidebar_html
from .incremental import Job, run_jobs
from .footer import page_footer
from .html_tables import TABLE, table_float

ASSETS = Path(__file__).with_name("assets")
CSS = "book.css"
JS = "book.js"
SEARCH_JS = "search.js"
SCHEME_JS = "scheme.js"


def _rel(from_page: str, to_path: str) -> str:
    """The URL of `to_path` from `from_page`: relative, percent-encoded (a file name
    may hold `#`, `?`, `%`, spaces or brackets)."""
    return quote(posixpath.relpath(to_path, posixpath.dirname(from_page) or "."))


def sidebar(book: Book, current: Chapter) -> str:
    """The table of contents: the chapters, then the appendices (the page's
    own sections are in "On this page", so the whole book fits one screen); a
    website's follows its `website: sidebar:` (website.py)."""
    if book.sidebars:
        return sidebar_html(book.sidebars, current.path, {c.path: c.info.title for c in book.chapters
                                                          if c.info}, lambda path: _rel(current.page, page_for(path)))
    def item(ch: Chapter) -> str:
        attrs = ' class="active" aria-current="page"' if ch is current else ""
        number = ch.info.number if ch.info else None
        label = html.escape(ch.info.title if ch.info else ch.path)
        num = f'<span class="toc-number">{html.escape(number)}</span> ' if number else ""
        return f'<li><a href="{_rel(current.page, ch.page)}"{attrs}>{num}{label}</a></li>'

    main = [item(c) for c in book.chapters if not c.appendix]
    apps = [item(c) for c in book.chapters if c.appendix]
    parts = ['<ol class="toc">', *main, "</ol>"]
    if apps:
        parts += ['<p class="toc-part">Appendices</p>', '<ol class="toc">', *apps, "</ol>"]
    return "\n".join(parts)


def shown_date(date: str) -> str:
    """`date:` as the title block shows it: as written, except Quarto's keywords
    `today`, `now` and `last-modified`, which are the day of the render (ISO,
    `SOURCE_DATE_EPOCH`'s day when set, so a rebuild is the same bytes)."""
    if date.strip().lower() not in ("today", "now", "last-modified"):
        return date
    import datetime
    import os
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    day = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date()
           if epoch.isdigit() else datetime.date.today())
    return day.isoformat()


def title_block(book: Book) -> str:
    """The landing page's title block, as Quarto's: title, subtitle, authors, date."""
    parts = [f'<p class="title">{html.escape(book.title)}</p>']
    if book.subtitle:
        parts.append(f'<p class="subtitle">{html.escape(book.subtitle)}</p>')
    if book.authors:
        parts.append('<p class="author">' + ", ".join(html.escape(a) for a in book.authors) + "</p>")
    if getattr(book, "date", ""):
        parts.append(f'<p class="date">{html.escape(shown_date(book.date))}</p>')
    return '<header class="title-block" data-pagefind-ignore>\n' + "\n".join(parts) + "\n</header>"


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


def on_this_page(chapter: Chapter, references: str = "") -> str:
    """The right-hand "On this page" list: the page's level-2 and level-3 headings,
    then `references` (the title of the page's reference list, when it has one).

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
    if references:
        rows.append(f'<li class="level2"><a href="#bibliography">{references}</a></li>')
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


# light/dark (book.js); scheme.js applies a kept choice before the page is drawn
SCHEME_BUTTON = ('<button type="button" class="scheme-button" aria-pressed="false" '
                 'aria-label="Dark mode" title="Dark mode">◐</button>')


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
<meta name="color-scheme" content="light dark">
<script src="{_rel(here.page, SCHEME_JS)}"></script>
<meta name="book-root" content="{root}">
<title>{head_title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{_rel(here.page, CSS)}">
<noscript><style>.sidebar {{ display: block; }} .nav-button, .scheme-button {{ display: none; }}</style></noscript>
<script src="{_rel(here.page, JS)}" defer></script>
<script src="{_rel(here.page, SEARCH_JS)}" defer></script>
{math_head(book)}</head>
<body>
<a class="skip-link" href="#content">Skip to the text</a>
<header class="topbar">
<button type="button" class="nav-button" aria-expanded="false" aria-controls="sidebar">☰ Contents</button>
<a class="book-title" href="{_rel(here.page, 'index.html')}">{title}</a>
{SCHEME_BUTTON}
</header>
<div class="layout">
<nav class="sidebar" id="sidebar" aria-label="Table of contents">
<a class="sidebar-title" href="{_rel(here.page, 'index.html')}">{title}</a>
{SCHEME_BUTTON}
{search_box()}
{downloads.pdf_link(here.page, pdf)}
{sidebar(book, here)}
</nav>
{on_this_page(here, references_title(body))}
<main class="content" id="content" data-pagefind-body>
{title_block(book) if index == 0 else ""}
{body}
{pager(book, index)}
</main>
</div>
{page_footer(book.footer, here.page)}
</body>
</html>
"""


REFS_HEADING = re.compile(r'<h1 class="unnumbered" id="bibliography">(.*?)</h1>')
REFS_TITLE = re.compile(r'<h2 class="unnumbered references-title" id="bibliography">(.*?)</h2>')
EQUATION = re.compile(r'(<span\b[^>]*\bclass="equation"[^>]*><math\b)')
FIGURE_IMG = re.compile(r'(<figure\b(?![^>]*\btable-float)[^>]*>\s*)(<img\b[^>]*>)')


def scrollable(body: str) -> str:
    """Tables become captioned, scrolling figures (table_float); code blocks
    and the formula of a numbered equation scroll in their own boxes and get
    tabindex too, and so does a figure's image (a phone shows it at its own
    size, whose text is readable); MathML's TeX annotations are kept out of
    the search index."""
    body = TABLE.sub(table_float, body)
    body = FIGURE_IMG.sub(r'\1<div class="figure-scroll" tabindex="0">\2</div>', body)
    body = EQUATION.sub(r'\1 tabindex="0"', body)
    # MathML's TeX source is not text a reader searches for (search.py)
    body = body.replace("<annotation encoding=", "<annotation data-pagefind-ignore encoding=")
    return body.replace("<pre>", '<pre tabindex="0">').replace("<pre class=", '<pre tabindex="0" class=')


HTML_ARGS = ["--syntax-highlighting=none", "--wrap=none"]
#: pandoc's flag for each `html-math-method` (read/project.py MATH_METHODS). Unset: MathML,
#: not Quarto's default MathJax, which loads from a CDN: the built-in pages work offline
#: (docs/quarto-compat.md). mathjax, katex and webtex load from where Quarto loads them.
MATH_FLAGS = {"": "--mathml", "mathml": "--mathml", "mathjax": "--mathjax", "katex": "--katex",
              "plain": "", "webtex": "--webtex"}
MATHJAX = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml-full.js"
KATEX = "https://cdn.jsdelivr.net/npm/katex@latest/dist/"
# Quarto's KaTeX call: each math span's TeX rendered in place
KATEX_RENDER = """<script>document.addEventListener("DOMContentLoaded", function () {
  for (const el of document.querySelectorAll("span.math")) {
    katex.render(el.textContent, el, {displayMode: el.classList.contains("display"), throwOnError: false});
  }
});</script>"""


def math_args(book: Book) -> list[str]:
    """pandoc's math flag for the book's `html-math-method` (webtex with its url)."""
    method, url = book.math
    flag = MATH_FLAGS.get(method, "--mathml")
    return [f"{flag}={url}" if flag == "--webtex" and url else flag] if flag else []


def math_head(book: Book) -> str:
    """What a page's <head> loads to draw its math: MathJax's or KaTeX's script (Quarto's
    URLs, or the method's `url:`); nothing for MathML, plain and webtex."""
    method, url = book.math
    if method == "mathjax":
        return f'<script src="{html.escape(url or MATHJAX)}" type="text/javascript"></script>\n'
    if method == "katex":
        base = html.escape(url or KATEX).rstrip("/") + "/"
        return (f'<link rel="stylesheet" href="{base}katex.min.css">\n'
                f'<script src="{base}katex.min.js"></script>\n{KATEX_RENDER}\n')
    return ""


def body_job(book: Book, chapter: Chapter, facts_out: Path | None = None) -> Job:
    """The pandoc run behind one page's body (the apply pass to HTML; see apply_job)."""
    return apply_job(book, chapter, "html", "html5", math_args(book) + HTML_ARGS,
                     facts_out=facts_out)


def references_title(body: str) -> str:
    """The title of a page body's reference list (finish_body's heading), "" without one."""
    found = REFS_TITLE.search(body)
    return found.group(1) if found else ""


def finish_body(body: str) -> str:
    """A page body from pandoc's HTML: citeproc's reference-section-title is a
    level-1 heading; on a chapter page the reference list is a section of the chapter."""
    body = REFS_HEADING.sub(r'<h2 class="unnumbered references-title" id="bibliography">\1</h2>', body)
    return scrollable(body)


def page_bodies(book: Book, chapters: list[Chapter]) -> list[str]:
    """The bodies of `chapters`' pages (stored ones reused, the others run at once)."""
    return [finish_body(body) for body in run_jobs(book.cache, [body_job(book, c) for c in chapters])]


# The math font book.css names "Book Math" (@font-face url fonts/…): Noto Sans
# Math, vendored from a package with its OFL licence (assets/fonts/README.md).
FONTS = ASSETS / "fonts"
MATH_FONT = "noto-sans-math-latin-400-normal.woff2"
FONT_FILES = [MATH_FONT, "OFL.txt"]      # the OFL asks the licence to travel with the font


def write_css(dest: Path) -> Path:
    """book.css, and under fonts/ the math font it loads with its licence."""
    (dest / "fonts").mkdir(exist_ok=True)
    for name in FONT_FILES:
        shutil.copyfile(FONTS / name, dest / "fonts" / name)
    shutil.copyfile(ASSETS / CSS, dest / CSS)
    return dest / CSS


def write_html(book: Book, dest: Path) -> Path:
    """Write every page, the figures, the assets and the search indexes under `dest`.

    A PDF already in `dest` (carried over from an earlier `make pdf`) is
    linked from every page while it was built from the same sources
    (downloads.linked_pdf); an older one is left unlinked, with a line on stderr.
    """
    bodies = page_bodies(book, book.chapters)
    pdf = downloads.linked_pdf(book, dest)
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
        for name in (JS, SEARCH_JS, SCHEME_JS):
            shutil.copyfile(ASSETS / name, dest / name)
        write_css(dest)
        search.write_fallback_index(dest, sections)
    finally:
        pagefind_done()
    return dest / "index.html"
