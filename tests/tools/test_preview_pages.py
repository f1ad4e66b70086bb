"""The preview's incremental renderer: only the pages a change affects are rewritten."""
from __future__ import annotations

from pathlib import Path

import pytest

from bookcheck.model import Kind
from bookcheck.verify.check import check_book
from bookcheck.tools.preview.pages import PageRenderer
from bookcheck.tools.preview.session import Session, relevant
from tests.bookkit import make_book

CONFIG = """project:
  type: book
book:
  title: Tiny
  chapters:
    - index.qmd
    - one.qmd
    - two.qmd
"""


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).write_text(text, encoding="utf-8")


@pytest.fixture
def book(tmp_path):
    return make_book(tmp_path, {
        "index.qmd": "# Preface {.unnumbered}\n\nHello.\n",
        "one.qmd": "# One {#sec-one}\n\n```{python}\nx = 6 * 7\n```\n\n"
                   "The value is `{python} x`.\n\n## Part {#sec-part}\n\nText.\n",
        "two.qmd": "# Two\n\nSee @sec-part.\n"}, CONFIG)


@pytest.mark.kernel
@pytest.mark.slow
def test_only_affected_pages_are_rewritten(book):
    renderer = PageRenderer()
    try:
        first = renderer.render(check_book(book))
        assert sorted(first) == ["index.html", "one.html", "two.html"]
        assert "The value is 42." in (book / "_book" / "one.html").read_text()
        assert renderer.render(check_book(book)) == []              # nothing changed

        write(book, "one.qmd", (book / "one.qmd").read_text().replace("Text.", "More text."))
        assert renderer.render(check_book(book)) == ["one.html"]    # prose: its page only
        assert "More text." in (book / "_book" / "one.html").read_text()

        write(book, "one.qmd", (book / "one.qmd").read_text().replace("6 * 7", "6 * 8"))
        assert renderer.render(check_book(book)) == ["one.html"]    # a value: its page only
        assert "The value is 48." in (book / "_book" / "one.html").read_text()

        write(book, "one.qmd", (book / "one.qmd").read_text().replace("## Part", "## Renamed"))
        # a heading moves what other pages show (sidebar, cross-reference texts): all pages
        assert sorted(renderer.render(check_book(book))) == ["index.html", "one.html", "two.html"]
    finally:
        renderer.close()
    assert not renderer.work.exists()


@pytest.mark.kernel
@pytest.mark.slow
def test_a_failing_check_keeps_the_last_good_pages(book):
    session = Session(book)
    try:
        assert session.build().ok
        good = (book / "_book" / "one.html").read_bytes()
        write(book, "one.qmd", (book / "one.qmd").read_text().replace("x = 6 * 7", "x = 1 / 0"))
        outcome = session.build()
        assert not outcome.ok and outcome.pages == []
        assert [(f.path, f.line, f.kind) for f in outcome.findings] == [("one.qmd", 4, Kind.CELL_ERROR)]
        assert (book / "_book" / "one.html").read_bytes() == good
    finally:
        session.close()


def test_relevant_keeps_sources_only(tmp_path):
    root = tmp_path
    paths = [root / p for p in ("contents/a.qmd", "contents/sedAbc12", "_book/x.html",
                                ".git/HEAD", "mlsys/__pycache__/m.py", "_quarto.yml",
                                "contents/.a.qmd.swp", "tests/t.py", "mlsys/units.py")]
    # a book's own tests/ is a folder like any other (Quarto's skip list has no such name)
    assert relevant(root, paths + [Path("/elsewhere/x.qmd")]) == [
        "_quarto.yml", "contents/a.qmd", "mlsys/units.py", "tests/t.py"]


@pytest.mark.kernel
@pytest.mark.parametrize("edit", [True, False])
def test_output_deleted_while_previewing_is_rebuilt_whole(book, edit):
    """`_book/` removed (make clean, rm -r) under a running preview: the next build writes
    every page and asset again, not only the page an edit changed."""
    import shutil
    renderer = PageRenderer()
    try:
        renderer.render(check_book(book))
        def listing():          # (Pagefind's fragment names follow the text: left out)
            return sorted(str(p.relative_to(book / "_book")) for p in (book / "_book").rglob("*")
                          if "pagefind" not in p.parts)
        everything = listing()
        assert "book.css" in everything and "one.html" in everything
        shutil.rmtree(book / "_book")
        if edit:
            write(book, "one.qmd", (book / "one.qmd").read_text().replace("Text.", "More text."))
        assert sorted(renderer.render(check_book(book))) == ["index.html", "one.html", "two.html"]
        assert listing() == everything
        assert renderer.render(check_book(book)) == []              # and then nothing again
    finally:
        renderer.close()


@pytest.mark.kernel
def test_a_page_rewritten_while_previewing_links_only_a_current_pdf(book):
    """The preview asks the question `make html` asks (downloads.linked_pdf): a page
    rewritten while previewing links the PDF only while it was built from the
    sources being shown, never one older than the edit."""
    from bookcheck.render import pdf_stamp
    from bookcheck.render.pdf import pdf_name

    def linked(rel: str) -> bool:
        return 'class="download-pdf"' in (book / "_book" / rel).read_text()

    original = (book / "one.qmd").read_text()
    renderer = PageRenderer()
    try:
        renderer.render(check_book(book))
        pdf = book / "_book" / pdf_name(renderer.book)
        pdf.write_bytes(b"%PDF-1.7 built from the sources of the first build\n")
        pdf_stamp.record(renderer.book, pdf)            # what `make pdf` records

        write(book, "one.qmd", original.replace("Text.", "Edited text."))
        assert renderer.render(check_book(book)) == ["one.html"]
        assert not linked("one.html")                   # the PDF predates the edit

        write(book, "one.qmd", original)                # back to the PDF's sources
        assert renderer.render(check_book(book)) == ["one.html"]
        assert linked("one.html")
    finally:
        renderer.close()
