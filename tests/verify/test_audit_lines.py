"""Issue 34 §3: every audit finding names the line that made it, never line 0
(bookcheck.verify.audit: account, leak_findings). Pure: no render."""
from __future__ import annotations

from types import SimpleNamespace

from bookcheck.model import CellRun, CodeCell, Kind, Output, ParsedChapter
from bookcheck.verify.audit import account, leak_findings
from bookcheck.verify.audit_tokens import Value

TEXT = """\
---
title: x
---
# One {#sec-one}

Intro without numbers.

A cluster of `{python} nodes_str` nodes.
"""


def chapter(text: str = TEXT) -> ParsedChapter:
    return ParsedChapter(path="contents/one.qmd", text=text, authored=text)


def test_a_number_written_nowhere_before_every_value_names_the_next_values_line():
    """Shown above the first value (a caption over its table, a warning's text) and
    typed nowhere: the value after it, not line 0."""
    found = account(chapter(), "one.html", "One 42 spare. A cluster of 16 nodes.",
                    [Value(["16"], 8, "inline `{python} nodes_str`", False)])
    assert [(f.line, f.kind, "'42'" in f.reason) for f in found] == \
        [(8, Kind.UNACCOUNTED_NUMBER, True)]


def test_a_number_on_a_page_without_values_names_the_documents_title():
    found = account(chapter(), "one.html", "One 42 spare.", [])
    assert [(f.line, f.kind) for f in found] == [(4, Kind.UNACCOUNTED_NUMBER)]


def test_a_leak_a_cell_shows_names_that_cells_fence():
    """`None` printed by a cell whose code writes no `None`: its fence line."""
    text = TEXT + "\n```{python}\nprint({}.get('k'))\n```\n"
    parsed = chapter(text)
    parsed.cells = [CodeCell(index=0, fence_line=10, first_code_line=11, end_line=12,
                             source="print({}.get('k'))")]
    run = SimpleNamespace(cells=[CellRun(0, [Output("text", "None\n", "stdout")])], inlines=[])
    found = leak_findings(parsed, "one.html", "A cluster. None", run=run)
    assert [(f.line, f.kind) for f in found] == [(10, Kind.LEAK)]
    assert [f.line for f in leak_findings(parsed, "one.html", "A cluster. None")] == [4]
