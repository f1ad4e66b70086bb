"""No callout's title is stranded at a page's foot in the real book's PDF
(issue 35): a callout is a filled breakable block, and its title used to
end a page alone with the body on the next (the "Worked example" callouts).
callouts.lua makes the title a sticky block.

From the PDF: each callout fragment on a page is a filled shape across the
text width (pdfplumber curves: the block has rounded corners); the text
lines inside it are counted. A fragment of one line is a title (or a last
line) cut off from the rest.
"""
from __future__ import annotations

import pdfplumber
import pytest

from .test_real_book_pdf import real_pdf  # noqa: F401  (module fixture: one render)

pytestmark = [pytest.mark.slow]


def callout_fragments(pdf) -> list[tuple[int, list[str]]]:
    """(page, text lines) of every filled block wider than half the page."""
    found = []
    with pdfplumber.open(str(pdf)) as doc:
        for number, page in enumerate(doc.pages, start=1):
            for shape in page.curves:
                if not shape.get("fill") or shape["width"] < page.width / 2:
                    continue
                words = page.within_bbox((shape["x0"], shape["top"], shape["x1"], shape["bottom"])).extract_words()
                lines: dict[int, list[str]] = {}
                for w in words:
                    lines.setdefault(round(w["top"]), []).append(w["text"])
                found.append((number, [" ".join(ws) for _, ws in sorted(lines.items())]))
    return found


def test_no_callout_title_alone_at_a_page_foot(real_pdf):
    _, pdf = real_pdf
    fragments = callout_fragments(pdf)
    assert len(fragments) >= 8                      # the book's callouts are seen
    assert [f"page {page}: {lines}" for page, lines in fragments if len(lines) < 2] == []
