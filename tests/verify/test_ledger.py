"""numbers.lock: collecting published values, the file format, and diffs."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, strategies as st

from bookcheck.verify import ledger
from bookcheck.model import (CellRun, ChapterRun, CodeCell, InlineExpr, InlineRun, Kind, Output,
                           ParsedChapter)


def inline(index: int, expr: str, line: int = 1) -> InlineExpr:
    return InlineExpr(index=index, line=line, col=1, expr=expr, start=0, end=0, cells_before=0)


def cell(index: int, label: str | None) -> CodeCell:
    options = {"label": label} if label else {}
    return CodeCell(index=index, fence_line=1, first_code_line=2, end_line=3, source="",
                    options=options)


TABLE = """\
| Cluster (GPUs)   | MTBF      | P(fail) |
|:-----------------|----------:|--------:|
| 256              | 25.0 h    | 3.9 %   |
| 10,000           | 38 min    | > 99.9 % |
"""


def chapter(path="contents/failure-at-scale.qmd", exprs=(), cells=(), values=(), outputs=()):
    parsed = ParsedChapter(path=path, text="",
                           inlines=[inline(i, e, line=10 * i) for i, e in enumerate(exprs)],
                           cells=[cell(i, label) for i, label in enumerate(cells)])
    run = ChapterRun(path=path,
                     inlines=[InlineRun(index=i, kind="text", text=v) for i, v in enumerate(values)],
                     cells=[CellRun(index=i, outputs=outs) for i, outs in enumerate(outputs)])
    return parsed, run


# ------------------------------------------------------------------ collect

def test_inline_values_are_keyed_by_chapter_expression_and_occurrence():
    parsed, run = chapter(exprs=["node_mtbf_str", "n_gpus", "node_mtbf_str", " node_mtbf_str "],
                          values=["52.6 hours", "8", "52.6 hours", "52.6\n hours "])
    entries = ledger.collect(parsed, run)
    assert entries == {
        "contents/failure-at-scale.qmd · node_mtbf_str": "52.6 hours",
        "contents/failure-at-scale.qmd · n_gpus": "8",
        "contents/failure-at-scale.qmd · node_mtbf_str #2": "52.6 hours",
        "contents/failure-at-scale.qmd · node_mtbf_str #3": "52.6 hours",
    }


def test_keys_do_not_depend_on_line_numbers():
    parsed, run = chapter(exprs=["a", "b"], values=["1", "2"])
    moved = [inline(e.index, e.expr, line=e.line + 40) for e in parsed.inlines]
    parsed_moved = ParsedChapter(path=parsed.path, text="more prose\n" * 40, inlines=moved)
    assert ledger.collect(parsed, run) == ledger.collect(parsed_moved, run)


def test_index_chapter_and_missing_inline_results():
    parsed, run = chapter(path="index.qmd", exprs=["x", "y"], values=["1"])
    assert ledger.collect(parsed, run) == {"index.qmd · x": "1"}


def test_table_cells_are_keyed_by_row_and_column_names():
    parsed, run = chapter(path="contents/appendix-foundations.qmd",
                          cells=["setup", "tbl-mtbf-cluster"],
                          outputs=[[Output("text", "| a | b |\n|---|---|\n| 1 | 2 |")],
                                   [Output("markdown", TABLE)]])
    entries = ledger.collect(parsed, run)
    key = "contents/appendix-foundations.qmd · tbl-mtbf-cluster · "
    assert entries[key + "10,000 · MTBF"] == "38 min"
    assert entries[key + "10,000 · P(fail)"] == "> 99.9 %"
    assert entries[key + "256 · Cluster (GPUs)"] == "256"
    assert len(entries) == 8          # and the two cells of the "setup" cell's table
    assert entries["contents/appendix-foundations.qmd · setup · 1 · b"] == "2"


def test_table_falls_back_to_indices_when_names_repeat():
    table = "| k | v | v |\n|---|---|---|\n| a | 1 | 2 |\n| a | 3 | 4 |\n"
    parsed, run = chapter(path="c.qmd", cells=["tbl-t"], outputs=[[Output("markdown", table)]])
    entries = ledger.collect(parsed, run)
    assert entries["c.qmd · tbl-t · row 2 · col 3"] == "4"
    assert entries["c.qmd · tbl-t · row 1 · k"] == "a"


def test_text_outputs_are_tables_or_lines_images_are_not_numbers():
    table = "name | value\n-----|------\nx | 1 \\| 2\n"
    parsed, run = chapter(path="c.qmd", cells=["tbl-a", "tbl-b"],
                          outputs=[[Output("text", table)],
                                   [Output("text", "just a repr"), Output("image/png", "AAAA")]])
    assert ledger.collect(parsed, run) == {"c.qmd · tbl-a · x · name": "x",
                                           "c.qmd · tbl-a · x · value": "1 | 2",
                                           "c.qmd · tbl-b · line 1": "just a repr"}


def test_two_tables_from_one_cell_get_occurrence_keys():
    two = "| a |\n|---|\n| 1 |\n\ntext\n\n| a |\n|---|\n| 2 |\n"
    parsed, run = chapter(path="c.qmd", cells=["tbl-x"], outputs=[[Output("markdown", two)]])
    assert ledger.collect(parsed, run) == {"c.qmd · tbl-x · 1 · a": "1",
                                           "c.qmd · tbl-x #2 · 2 · a": "2",
                                           "c.qmd · tbl-x · line 1": "text"}


# ------------------------------------------------------------- read / write

AWKWARD = {
    "ch · a\tb": "tab\tinside",
    "ch · x = 1": "= not a separator",
    "#ch · hash first": "# not a comment",
    "ch · back\\slash": "ends with backslash\\",
    "ch · p": "> 99.9 %",
    "ch · arrow": "old → new · 5",
    "ch · nl": "two\nlines\r\n",
    "ch · empty": "",
    "ch · spaces": "  padded  ",
    "ch · \\t literal": "\\n literal",
}


def test_round_trip_with_awkward_values(tmp_path):
    path = tmp_path / "numbers.lock"
    ledger.write(path, AWKWARD)
    assert ledger.read(path) == AWKWARD
    text = path.read_text(encoding="utf-8")
    entry_lines = [l for l in text.splitlines() if not l.startswith("#")]
    assert len(entry_lines) == len(AWKWARD)                 # one entry per line
    assert entry_lines == sorted(entry_lines)
    assert all(line.count("\t") == 1 for line in entry_lines)
    assert "ch · p\t> 99.9 %" in entry_lines                 # plain, readable text


@given(st.dictionaries(st.text(min_size=1), st.text()))
def test_round_trip_any_text(entries):
    assert ledger.parse_lock(ledger.format_lock(entries)) == entries


def test_read_missing_file_is_empty(tmp_path):
    assert ledger.read(tmp_path / "nope.lock") == {}


def test_unreadable_ledger_raises_rather_than_guessing(tmp_path):
    (tmp_path / "dir.lock").mkdir()
    with pytest.raises(OSError):
        ledger.read(tmp_path / "dir.lock")
    (tmp_path / "bad.lock").write_bytes(b"a \xb7 x\t\xff\n")
    with pytest.raises(ValueError):
        ledger.read(tmp_path / "bad.lock")


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "numbers.lock"
    ledger.write(path, {"a · b": "1"})
    ledger.write(path, {"a · b": "2"})
    assert os.listdir(tmp_path) == ["numbers.lock"]
    assert ledger.read(path) == {"a · b": "2"}


def test_write_keeps_an_ordinary_file_mode(tmp_path):
    path = tmp_path / "numbers.lock"
    ledger.write(path, {"a": "1"})
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o664)
    ledger.write(path, {"a": "2"})
    assert path.stat().st_mode & 0o777 == 0o664


def test_write_is_deterministic(tmp_path):
    one, two = tmp_path / "1.lock", tmp_path / "2.lock"
    ledger.write(one, {"b": "2", "a": "1"})
    ledger.write(two, {"a": "1", "b": "2"})
    assert one.read_bytes() == two.read_bytes()


# --------------------------------------------------------------------- diff

def test_diff_reports_changed_new_and_removed(tmp_path):
    path = tmp_path / "numbers.lock"
    ledger.write(path, {"ch · a": "1", "ch · b": "2", "ch · gone": "3"})
    old = ledger.read(path)
    new = {"ch · a": "1", "ch · b": "2.5", "ch · fresh": "> 99.9 %"}
    findings = ledger.diff(old, new)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [f.reason for f in findings] == [
        "ch · b: 2 → 2.5",
        "ch · fresh: (new) → > 99.9 %",
        "ch · gone: 3 → (removed)",
    ]
    assert all(f.kind == Kind.LEDGER and f.path == "numbers.lock" for f in findings)
    assert lines[findings[0].line - 1].startswith("ch · b\t")
    assert findings[1].line == 0
    assert lines[findings[2].line - 1].startswith("ch · gone\t")


def test_diff_of_plain_dicts_uses_the_written_line_numbers(tmp_path):
    old = {"z": "1", "a": "1", "m": "1"}
    path = tmp_path / "numbers.lock"
    ledger.write(path, old)
    from_file = ledger.diff(ledger.read(path), {})
    from_dict = ledger.diff(old, {})
    assert [f.line for f in from_file] == [f.line for f in from_dict]


def test_no_difference_no_findings():
    assert ledger.diff({"a": "1"}, {"a": "1"}) == []
    assert ledger.diff({}, {}) == []


def test_empty_values_are_visible_in_reasons():
    (finding,) = ledger.diff({"c · x": "1"}, {"c · x": ""})
    assert finding.reason == 'c · x: 1 → ""'
