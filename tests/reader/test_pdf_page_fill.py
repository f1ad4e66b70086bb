"""No page in the middle of a chapter is left mostly empty (issue 35, "PDF pages
holding 5-6 lines"). Measured on the real book: every sparse page was the last
page of a chapter (each chapter starts on a new page), none was made by the
template's keep rules (the table orphan control, short tables kept whole,
sticky captions). This test keeps it so: a page filled to less than half of its
text area must be followed by a chapter's first page (a top-level bookmark).

Fill is the bottom of the page's lowest body glyph (folio and running header
left out) over the text area's height, from pdfplumber; chapter starts from
pypdf's outline. The detector is shown to bite on a page break planted in the
middle of a chapter."""
from __future__ import annotations

import pdfplumber
import pytest

from tests.render.test_pdf_typography import typeset
from .test_real_book_pdf import real_pdf  # noqa: F401  (module fixture: one render)

MARGIN_Y_PT = 2.6 / 2.54 * 72      # book.typ: margin (y: 2.6cm)
HALF = 0.5


def sparse_mid_chapter_pages(pdf) -> list[str]:
    from pypdf import PdfReader
    reader = PdfReader(str(pdf))
    starts = {reader.get_destination_page_number(item) for item in reader.outline if not isinstance(item, list)}
    found = []
    with pdfplumber.open(str(pdf)) as doc:
        for number, page in enumerate(doc.pages):
            body = [c for c in page.chars if c["text"].strip()
                    and MARGIN_Y_PT - 2 < c["top"] and c["bottom"] < page.height - MARGIN_Y_PT + 2]
            if not body or number < 2 or number + 1 >= len(doc.pages):
                continue                # the title page, the contents, the last page
            fill = (max(c["bottom"] for c in body) - MARGIN_Y_PT) / (page.height - 2 * MARGIN_Y_PT)
            if fill < HALF and number + 1 not in starts:
                found.append(f"page {number + 1}: filled to {fill:.0%}")
    return found


def test_the_sparse_page_detector_bites(tmp_path):
    words, short = " ".join(["word"] * 400), " ".join(["word"] * 200)
    chapters = f"# One\n\n{short}\n\n```{{=typst}}\n#pagebreak()\n```\n\n{words}\n\n{words}\n\n# Two\n\nEnd.\n"
    assert len(sparse_mid_chapter_pages(typeset(tmp_path, chapters))) == 1
    fine = f"# One\n\n{words}\n\n{words}\n\n{words}\n\n# Two\n\nEnd.\n"
    assert sparse_mid_chapter_pages(typeset(tmp_path, fine)) == []


@pytest.mark.slow
def test_no_page_of_the_book_is_left_mostly_empty_mid_chapter(real_pdf):
    _, pdf = real_pdf
    assert sparse_mid_chapter_pages(pdf) == []
