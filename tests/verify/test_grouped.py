"""The text report says the findings of one construct (a grid table's inline values)
in one line with the fix command; --json and the per-finding data keep every one."""
from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

from bookcheck.model import Finding, Kind
from bookcheck.read.qmd import parse_chapter
from bookcheck.verify import github
from bookcheck.verify.report import grouped, print_findings

TABLE = """# T

+-------+-------+
| x     | y     |
+=======+=======+
| `{python} a` | `{python} b` |
+-------+-------+
| z     | `{python} a` |
+-------+-------+

+-------+
| h     |
+=======+
| `{python} a` |
+-------+

Prose `{python} a`.
"""


def _findings():
    return [f for f in parse_chapter("ch.qmd", TABLE).findings if f.kind == Kind.GRID_TABLE_INLINE]


def test_each_value_is_a_finding_naming_its_table():
    assert [(f.line, f.col, f.within) for f in _findings()] == [(6, 3, 3), (6, 18, 3),
                                                               (8, 11, 3), (14, 3, 11)]


def test_one_line_per_table_with_the_command_that_converts_it(tmp_path):
    other = Finding("ch.qmd", 17, Kind.UNKNOWN_REF, "no such label")
    out = io.StringIO()
    print_findings(_findings() + [other], [], out, root=tmp_path)
    root = str(tmp_path)
    assert out.getvalue().splitlines() == [
        f"ch.qmd:3 grid-table-inline: this grid table holds 3 inline values (lines 6, 8); Quarto "
        "inserts each value's text without re-aligning the borders and garbles the table; "
        f"convert it with: bookcheck pipe-tables --root {root} ch.qmd",
        f"ch.qmd:11 grid-table-inline: this grid table holds 1 inline value (line 14); Quarto "
        "inserts each value's text without re-aligning the borders and garbles the table; "
        f"convert it with: bookcheck pipe-tables --root {root} ch.qmd",
        "ch.qmd:17 unknown-ref: no such label"]


def test_the_root_is_shown_as_typed_from_the_current_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert grouped(_findings(), Path(tmp_path))[0].reason.endswith("pipe-tables --root . ch.qmd")


def test_one_github_annotation_per_table(tmp_path):
    result = SimpleNamespace(findings=_findings(), project=SimpleNamespace(root=tmp_path))
    out = io.StringIO()
    github.report(result, "FAILED", env={"GITHUB_ACTIONS": "true"}, out=out)
    lines = out.getvalue().splitlines()
    assert [line.split(",title")[0] for line in lines] == [
        "::error file=ch.qmd,line=3", "::error file=ch.qmd,line=11"]
