"""Every number a reader sees is in numbers.lock, under a key no other chapter can share.

DataFrame cells (HTML), Series and other text outputs, printed output, Markdown
outputs; keys built from the chapter's project-relative path; an inline value
with `|` inside a pipe-table row stays one cell on the page and in the ledger.
"""
from __future__ import annotations

import re

import pytest

from tests.faults.faultkit import (add_chapter, assert_consistent_after_failure, disk_state, edit, ledger_lines)

pytestmark = pytest.mark.slow



def lock(book) -> dict[str, str]:
    entries = {}
    for line in (book / "numbers.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            key, value = line.split("\t", 1)
            entries[key] = value
    return entries


def accept(runner, book):
    result = runner.cli(book, "numbers")
    assert result.code == 0, result.output
    return lock(book)


def assert_caught(runner, book, moved: list[str]):
    """The check fails with exactly these moved numbers and writes nothing."""
    before = disk_state(book)
    result = runner.cli(book)
    assert result.code == 1, result.output
    assert ledger_lines(result) == moved, result.output
    assert {f.kind for f in result.findings} <= {"ledger"}, result.output
    assert_consistent_after_failure(runner, book, before, result)


FRAME = """\
# Two

```{python}
#| label: tbl-frame
import pandas as pd
pd.DataFrame({"Nodes": [1, 2], "MTBF (h)": [10.5, 5.25]})
```
"""


def test_a_dataframe_cell_is_recorded_cell_by_cell(good_book, runner):
    two = add_chapter(good_book, FRAME)
    entries = accept(runner, good_book)
    assert entries["contents/two.qmd · tbl-frame · 0 · MTBF (h)"] == "10.50"     # as shown
    assert entries["contents/two.qmd · tbl-frame · 1 · MTBF (h)"] == "5.25"
    assert entries["contents/two.qmd · tbl-frame · 1 · Nodes"] == "2"
    edit(two, "5.25]", "6.75]")
    assert_caught(runner, good_book, ["contents/two.qmd · tbl-frame · 1 · MTBF (h): 5.25 → 6.75"])


def test_a_series_and_printed_output_are_recorded(good_book, runner):
    two = add_chapter(good_book, "# Two\n\n```{python}\nimport pandas as pd\n"
                                 "pd.Series([3.5, 7.25], index=['a', 'b'], name='hours')\n```\n\n"
                                 "```{python}\n#| label: two-print\ntotal = 40\n"
                                 "print(f'Total: {total} GPU-hours')\n```\n")
    entries = accept(runner, good_book)
    assert entries["contents/two.qmd · cell 1 · line 2"] == "b    7.25"
    assert entries["contents/two.qmd · two-print · line 1"] == "Total: 40 GPU-hours"
    edit(two, "total = 40", "total = 41")
    edit(two, "7.25]", "7.75]")
    assert_caught(runner, good_book, ["contents/two.qmd · cell 1 · line 2: b    7.25 → b    7.75",
                                      "contents/two.qmd · two-print · line 1: "
                                      "Total: 40 GPU-hours → Total: 41 GPU-hours"])


def test_a_markdown_output_is_recorded(good_book, runner):
    two = add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-md\n"
                                 "from IPython.display import Markdown\nshare = 12\n"
                                 "Markdown(f'Jobs lose **{share} %** of their time.')\n```\n")
    entries = accept(runner, good_book)
    assert entries["contents/two.qmd · two-md · line 1"] == "Jobs lose **12 %** of their time."
    edit(two, "share = 12", "share = 13")
    assert_caught(runner, good_book, ["contents/two.qmd · two-md · line 1: Jobs lose **12 %** of "
                                      "their time. → Jobs lose **13 %** of their time."])


def test_hidden_output_is_not_recorded(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\n#| output: false\nprint('secret 7')\n```\n")
    entries = accept(runner, good_book)
    assert not [k for k in entries if k.startswith("contents/two.qmd")], entries


NOTES = "# Notes {}\n\n```{{python}}\nx = {}\n```\n\nThe value is `{{python}} x`.\n"


def test_chapters_with_the_same_file_name_do_not_share_keys(good_book, runner):
    a = add_chapter(good_book, NOTES.format("{#sec-notes-a}", 1), "contents/a/notes.qmd")
    b = add_chapter(good_book, NOTES.format("{#sec-notes-b}", 2), "contents/b/notes.qmd")
    entries = accept(runner, good_book)
    assert entries["contents/a/notes.qmd · x"] == "1"
    assert entries["contents/b/notes.qmd · x"] == "2"
    edit(b, "x = 2", "x = 3")
    assert_caught(runner, good_book, ["contents/b/notes.qmd · x: 2 → 3"])
    assert a.read_text()        # untouched


PIPE = """\
# Two

```{python}
ratio = "1|2"
```

| Quantity | Value |
|----------|-------|
| ratio    | `{python} ratio` |
| after    | 3 |
"""


def test_a_pipe_in_an_inline_value_inside_a_table_row(good_book, runner):
    add_chapter(good_book, PIPE)
    entries = accept(runner, good_book)
    assert entries["contents/two.qmd · ratio"] == "1|2"
    result = runner.cli(good_book, "html")
    assert result.code == 0, result.output
    page = next(p for p in (good_book / "_book").rglob("two.html"))
    html = page.read_text()
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S) for row in rows]
    cells = [[re.sub(r"<[^>]+>", "", c).strip() for c in row] for row in cells]
    assert ["ratio", "1|2"] in cells, cells          # one cell, as the ledger records it
    assert ["after", "3"] in cells, cells
