"""Which sources a PDF was built from, so the HTML pages never link a PDF
older than the book they belong to.

`write_pdf` records, for the PDF it wrote, the digest of the book's sources
(every chapter's assembled markdown, its generated files, the title block):
a record of the store's `render` cache, a map from the PDF's own digest to
that sources digest (the last MAX_ENTRIES PDFs). `write_html` links the PDF
found in `_book/` only when its recorded sources digest equals the one of
the book being rendered; otherwise it leaves the link out and says so.
"""
from __future__ import annotations

from pathlib import Path

from .. import store
from .book import Book
from .incremental import RENDER

RECORD = ".pdf-sources"
MAX_ENTRIES = 20


def sources_digest(book: Book) -> str:
    """Digest of the title block and, per chapter in order, its path, kind,
    markdown and generated files."""
    return store.digest(book.title, book.subtitle, book.authors, [
        (c.path, c.appendix, c.markdown_file.read_bytes(), sorted(c.files.items()))
        for c in book.chapters])


def _stamps(root: Path) -> store.Store:
    return store.Store(root, RENDER, ("bookcheck.render.pdf_stamp",))


def _read(root: Path) -> dict:
    data = _stamps(root).get_json(RECORD, {})
    return data if isinstance(data, dict) else {}


def record(book: Book, pdf: Path) -> None:
    """Remember that `pdf` was built from the book's current sources."""
    stamps = _read(book.root)
    stamps.pop(store.file_digest(pdf), None)
    stamps[store.file_digest(pdf)] = sources_digest(book)
    _stamps(book.root).put_json(RECORD, dict(list(stamps.items())[-MAX_ENTRIES:]))


def is_current(book: Book, pdf: Path) -> bool:
    """`pdf` was built (by write_pdf) from exactly the book's current sources."""
    return pdf.is_file() and _read(book.root).get(store.file_digest(pdf)) == sources_digest(book)
