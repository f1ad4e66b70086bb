"""The real book's PDF: pages, the Appendix A table values in its text, and
print quality: no caption orphaned at a page foot, header rows repeated,
bookmarks, document metadata and internal links."""
from __future__ import annotations

import re
import subprocess
from collections import Counter

import pytest

from bookcheck.render import render_book

pytestmark = [pytest.mark.needs_tool("pdftotext", "pdfinfo"), pytest.mark.slow]   # skipped locally, an error under CI


def table_values(markdown: str) -> list[str]:
    """The body cells of a pipe table that contain a digit.

    The test compares the numbers in them (a wrapped cell's words are
    interleaved with its neighbours' in pdftotext's layout)."""
    values = []
    for line in markdown.splitlines()[2:]:
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            values += [c for c in cells if re.search(r"\d", c)]
    return values


NUMBER = re.compile(r"(?<![\w.,])\d[\d,.]*(?![\w])")


def number_tokens(text: str) -> Counter:
    """Every whole number in `text` ("3.1", "10,000"), trailing punctuation dropped.

    Whole tokens only: "1" does not match inside "10,000" or "2.1"."""
    text = text.replace("\u00a0", " ").replace("\u2212", "-")
    return Counter(n.rstrip(".,") for n in NUMBER.findall(text))


def test_number_tokens_are_whole():
    assert number_tokens("10,000 GPUs, 2.1 h; 99.9 %, 1.") == Counter(
        {"10,000": 1, "2.1": 1, "99.9": 1, "1": 1})
    assert number_tokens("H100 x2 a1")["100"] == 0


@pytest.fixture(scope="module")
def real_pdf(real_book_result):
    """The real book rendered to PDF once for this module: (result, path)."""
    return real_book_result, render_book(real_book_result, "pdf", use_quarto=False)


def test_real_book_pdf_shows_appendix_a_tables(real_pdf):
    result, pdf = real_pdf
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1)) > 0
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "Appendix A" in text and "Contents" in text
    appendix = result.project.appendices[0]
    run = result.runs[appendix]
    tables = [o.data for cell in run.cells for o in cell.outputs
              if o.kind == "markdown" and re.search(r"^\s*\|?\s*:?-{3,}", o.data, re.M)]
    assert tables, f"{appendix} produced no table"
    wanted = sum((number_tokens(value) for table in tables for value in table_values(table)),
                 Counter())
    assert wanted
    # Each number of the tables, as a whole token, at least as many times as the tables show it.
    short = wanted - number_tokens(text)
    assert not short, f"values of {appendix} tables missing from the PDF: {dict(short)}"
    for marker in ("{python}", "?@", "??"):
        assert marker not in text
