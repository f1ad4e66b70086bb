"""A long table's header row, which typst sets again on each page the table
continues on, is the renderer's repeat, not an extra number (issue 35): the
audit of the PDF (scripts/bookcheck/verify/audit_pdf.py) took a number in a repeated
header for a value shown more often than published."""
from __future__ import annotations

import pytest

from bookcheck.verify.audit_pdf import _repeated_top_lines
from tests.bookkit import checked, write_book

LONG_TABLE = '''
    # Long {#sec-long}

    ```{python}
    #| label: tbl-long
    #| tbl-cap: "A long table."
    from mlsys import md_table
    rows = [{"Row": f"r{i}", "Cost on 256 GPUs": f"{i * 7}"} for i in range(1, 90)]
    md_table(rows)
    ```
    '''


def test_a_continuation_pages_repeated_lines_under_its_running_header_are_the_renderers():
    earlier = "1 Long\n\n   Table 1.1: A long table.\n   Row   Cost on 256 GPUs\n   r1    7\n"
    page = "Fixture      1 Long\n\n   Row   Cost on 256 GPUs\n   r44   308\n   Row   Cost on 256 GPUs\n"
    base = 1000
    spans = _repeated_top_lines(page, earlier, "1 Long", base)
    assert [page[a - base:b - base].split() for a, b in spans] == [["Row", "Cost", "on", "256", "GPUs"]]
    # a first line without the chapter's title is no running header: nothing is skipped
    assert _repeated_top_lines("r44 308\n   Row   Cost on 256 GPUs\n", earlier, "1 Long", 0) == []


@pytest.mark.kernel
@pytest.mark.slow
def test_a_long_table_with_a_number_in_its_header_passes_the_pdf_audit(tmp_path):
    from pypdf import PdfReader
    from bookcheck.render import render_book
    root = write_book(tmp_path / "book", {"index.qmd": "# Preface\n\nHello.\n", "long.qmd": LONG_TABLE},
                      extra="format:\n  typst: default\nexecute:\n  echo: false\n")
    pdf = render_book(checked(root), "pdf", use_quarto=False)       # raises AuditError on a finding
    # the nobreak filter (issue 35) joins "256 GPUs" with U+00A0 on purpose: read it as a space
    pages = [(page.extract_text() or "").replace("\xa0", " ") for page in PdfReader(str(pdf)).pages]
    assert sum("Cost on 256 GPUs" in text for text in pages) >= 2    # the header row did repeat
