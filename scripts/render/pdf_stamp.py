"""Which sources a PDF was built from, so the HTML pages never link a PDF
older than the book they belong to.

`write_pdf` records, for the PDF it wrote, the digest of the book's sources
(every chapter's assembled markdown, its generated files, the title block):
`_build/render/pdf-sources.json`, a map from the PDF's own digest to that
sources digest (the last MAX_ENTRIES PDFs). `write_html` links the PDF
found in `_book/` only when its recorded sources digest equals the one of
the book being rendered; otherwise it leaves the link out and says so.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..files import atomic_write
from .book import Book

STAMPS = Path("_build") / "render" / "pdf-sources.json"
MAX_ENTRIES = 20


def sources_digest(book: Book) -> str:
    """sha256 over the title block and, per chapter in order, its path, kind,
    markdown and generated files."""
    h = hashlib.sha256()
    for part in (book.title, book.subtitle, *book.authors):
        h.update(part.encode() + b"\0")
    for chapter in book.chapters:
        h.update(f"{chapter.path}\0{chapter.appendix}\0".encode())
        h.update(chapter.markdown_file.read_bytes() + b"\0")
        for name in sorted(chapter.files):
            h.update(name.encode() + b"\0" + hashlib.sha256(chapter.files[name]).digest())
    return h.hexdigest()


def _pdf_digest(pdf: Path) -> str:
    return hashlib.sha256(pdf.read_bytes()).hexdigest()


def _read(root: Path) -> dict:
    try:
        data = json.loads((root / STAMPS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(book: Book, pdf: Path) -> None:
    """Remember that `pdf` was built from the book's current sources."""
    stamps = _read(book.root)
    stamps.pop(_pdf_digest(pdf), None)
    stamps[_pdf_digest(pdf)] = sources_digest(book)
    kept = dict(list(stamps.items())[-MAX_ENTRIES:])
    path = book.root / STAMPS
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(kept, indent=0))


def is_current(book: Book, pdf: Path) -> bool:
    """`pdf` was built (by write_pdf) from exactly the book's current sources."""
    return pdf.is_file() and _read(book.root).get(_pdf_digest(pdf)) == sources_digest(book)
