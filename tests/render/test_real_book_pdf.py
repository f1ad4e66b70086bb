"""The real book's PDF: pages, and the Appendix A table values in its text."""
from __future__ import annotations

import re
import subprocess

import pytest

from scripts.render import render_book

pytestmark = pytest.mark.needs_tool("pdftotext", "pdfinfo")   # skipped locally, an error under CI


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


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("\u00a0", " ").replace("\u2212", "-"))


def test_real_book_pdf_shows_appendix_a_tables(real_book_result):
    result = real_book_result
    pdf = render_book(result, "pdf", use_quarto=False)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1)) > 0
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "Appendix A" in text and "Contents" in text
    squashed = squash(text)
    appendix = result.project.appendices[0]
    run = result.runs[appendix]
    tables = [o.data for cell in run.cells for o in cell.outputs
              if o.kind == "markdown" and re.search(r"^\s*\|?\s*:?-{3,}", o.data, re.M)]
    assert tables, f"{appendix} produced no table"
    numbers = [n.rstrip(".,") for table in tables for value in table_values(table)
               for n in re.findall(r"\d[\d,.]*", value)]
    assert numbers
    missing = [n for n in numbers if n not in squashed]
    assert missing == [], f"values of {appendix} tables missing from the PDF: {missing[:10]}"
    for marker in ("{python}", "?@", "??"):
        assert marker not in text
