"""The PDF of the fixture book: pages, contents, numbered captions, values."""
from __future__ import annotations

import re
import subprocess

import pytest

from bookcheck.render import render_book


pytestmark = pytest.mark.needs_tool("pdftotext", "pdfinfo")   # skipped locally, an error under CI


@pytest.fixture(scope="module")
def pdf_text(minibook):
    pdf = render_book(minibook[1], "pdf", use_quarto=False)
    assert pdf.name == "Mini-Book.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return pages, " ".join(text.replace("\u00a0", " ").split())


def test_pages_and_contents(pdf_text):
    pages, text = pdf_text
    assert pages >= 5
    assert "Mini Book" in text and "Contents" in text
    assert re.search(r"Appendix A — Constants[ .]+\S*6", text)


def test_appendix_table_values(pdf_text):
    _, text = pdf_text
    assert "Table A.1: Time constants" in text
    assert re.search(r"Seconds per day\s+86,400", text)
    assert re.search(r"Hours per year\s+8,760", text)


def test_numbers_references_and_citations(pdf_text):
    _, text = pdf_text
    for expected in ["Table 1.1: Failure rates by component", "Figure 1.1: Failures grow",
                     "Table 2.1: Failures by cluster size", "Back in Section 1.1 we met Equation 1.1",
                     "compare Table 1.1 in Chapter 1", "(Hennessy and Patterson 2017)",
                     "The Tail at Scale", "(A.1)", "Why it matters"]:
        assert expected in text, expected
    for marker in ("{python}", "?@", "??", "@tbl-", "{#"):
        assert marker not in text
