"""The "Download PDF" link of the HTML pages.

`make html` links the PDF when `_book/` already holds it (`make pdf html`,
`make book`) and it was built from the same sources (`linked_pdf`, the one
check, also the live preview's); `make pdf` after `make html` adds the link
to the pages already there (`link_pdf`). Without a PDF a page carries only
the placeholder comment `SLOT`, which `link_pdf` replaces.
"""
from __future__ import annotations

import html
import posixpath
import re
import sys
from pathlib import Path
from urllib.parse import quote

from bookcheck.files import atomic_write

from . import pdf_stamp
from .book import Book
from .pdf import pdf_name

SLOT = "<!-- pdf-download -->"
LINK = re.compile(r'<p class="downloads">.*?</p>', re.S)


def linked_pdf(book: Book, dest: Path, say: bool = True) -> str | None:
    """The PDF in `dest` the pages of `book` may link (its name), or None: only a PDF
    built from the book's current sources (pdf_stamp), never an older one. say: one
    line on stderr when an older PDF is there and left unlinked."""
    name = pdf_name(book)
    if pdf_stamp.is_current(book, dest / name):
        return name
    if say and (dest / name).is_file():
        print(f"html: {name} was built from older sources: not linked "
              "(`bookcheck pdf`, then `bookcheck html`, renders both)", file=sys.stderr)
    return None


def pdf_link(page: str, pdf: str | None) -> str:
    """The link from `page` (relative to the book root) to the root's `pdf`."""
    if not pdf:
        return SLOT
    href = quote(posixpath.relpath(pdf, posixpath.dirname(page) or "."))
    return (f'<p class="downloads"><a class="download-pdf" href="{html.escape(href)}" download>'
            f'Download PDF</a></p>')


def link_pdf(book_dir: Path, pdf: str) -> int:
    """Point every page under `book_dir` that has a slot (or an older link) at `pdf`.

    Returns the number of pages changed; each page is replaced atomically.
    """
    changed = 0
    for path in sorted(book_dir.rglob("*.html")):
        if "pagefind" in path.relative_to(book_dir).parts:
            continue
        text = path.read_text(encoding="utf-8")
        page = path.relative_to(book_dir).as_posix()
        link = pdf_link(page, pdf)
        new = LINK.sub(lambda _: link, text, count=1) if LINK.search(text) else text.replace(SLOT, link, 1)
        if new != text:
            atomic_write(path, new)
            changed += 1
    return changed
