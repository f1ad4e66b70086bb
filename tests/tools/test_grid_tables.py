"""`bookcheck pipe-tables` (scripts/bookcheck/tools/grid_tables.py): grid tables holding
inline values become pipe tables when every row can be cut into the border's columns
(lined up, or as many structural `|`; multi-line cells joined and listed); the others
are kept and listed."""
from __future__ import annotations

import json

import pypandoc

from bookcheck.cli import main as cli
from bookcheck.tools.grid_tables import main, rewrite
from tests.bookkit import make_book

ALIGNED = """Text before.

+-------+--------------+--------+--------+
| Left  | Right        | Center | Plain  |
+:======+=============:+:======:+========+
| a     | `{python} x` | c      | d      |
+-------+--------------+--------+--------+
| e     | f            | g      | h      |
+-------+--------------+--------+--------+

: Caption {#tbl-aligned}

Text after.
"""

EXPECTED = """Text before.

| Left    | Right          | Center   | Plain    |
|:--------|---------------:|:--------:|----------|
| a       | `{python} x`   | c        | d        |
| e       | f              | g        | h        |

: Caption {#tbl-aligned}

Text after.
"""


def test_rewrites_an_aligned_grid_table_with_an_inline_value():
    done = rewrite(ALIGNED)
    assert done.rewritten == [3] and done.kept == []
    assert done.text == EXPECTED


def _table(markdown: str) -> tuple:
    """(alignments, cell texts) of the first table pandoc reads."""
    doc = json.loads(pypandoc.convert_text(markdown, "json", format="markdown"))
    table = next(b for b in doc["blocks"] if b["t"] == "Table")
    aligns = [spec[0]["t"] for spec in table["c"][2]]
    text = json.dumps([table["c"][3], table["c"][4]])    # head and bodies
    return aligns, text


def test_pandoc_reads_the_same_table_from_both():
    """With a plain value where the inline code was (the grid then lines up),
    pandoc reads the same alignments and cells from the grid and the pipe table."""
    grid = ALIGNED.replace("`{python} x`", "42          ")
    pipe = rewrite(ALIGNED).text.replace("`{python} x`", "42          ")
    assert _table(grid) == _table(pipe)
    assert _table(grid)[0] == ["AlignLeft", "AlignRight", "AlignCenter", "AlignDefault"]


def test_alignment_from_the_top_border_when_the_separator_has_none():
    text = ("+:-------------+----:+\n| a            | b   |\n+==============+=====+\n"
            "| `{python} v` | 1   |\n+--------------+-----+\n")
    assert rewrite(text).text.splitlines()[1] == "|:---------------|------:|"


def test_headerless_tables_and_spans_are_kept_with_the_reason():
    top = "+--------------+-----+\n"
    headerless = top + "| `{python} v` | 1   |\n" + top
    span = (top + "| a            | b   |\n+==============+=====+\n"
            "| `{python} v` spans |\n" + top)
    for text, why in ((headerless, "header row"), (span, "match its columns in number")):
        done = rewrite(text)
        assert done.text == text and done.rewritten == []
        assert len(done.kept) == 1 and done.kept[0][0] == 1 and why in done.kept[0][1]


WIDE = """+------+------+
| Name | Size |
+======+======+
| a    | `{python} size_of_a` |
+------+------+
| b | `{python} f"{x:,}"` $|x|$ |
+------+------+
"""


def test_a_row_wider_than_its_border_is_cut_at_its_own_pipes():
    """The usual style when an inline expression is wider than its column: the row's
    `|` (outside code spans and math) are as many as the border's `+`."""
    done = rewrite(WIDE)
    assert (done.rewritten, done.kept, done.joined) == ([1], [], [])
    assert done.text.splitlines() == [
        "| Name   | Size                      |",
        "|--------|---------------------------|",
        "| a      | `{python} size_of_a`      |",
        '| b      | `{python} f"{x:,}"` $|x|$ |']


def test_pandoc_reads_the_wide_rows_as_the_grid_table_meant():
    """With each value's text where the code was and the grid lined up again, pandoc
    reads the same cells as from the pipe table with the same values."""
    values = {"`{python} size_of_a`": "12", '`{python} f"{x:,}"` $|x|$': "3 $|x|$"}
    pipe = rewrite(WIDE).text
    for code, value in values.items():
        pipe = pipe.replace(code, value)
    grid = ("+------+---------+\n| Name | Size    |\n+======+=========+\n| a    | 12      |\n"
            "+------+---------+\n| b    | 3 $|x|$ |\n+------+---------+\n")
    assert _table(grid)[1] == _table(pipe)[1]


MULTI = """+--------------+--------+
| Metric       | Value  |
+==============+========+
| `{python} v` | first  |
| per second   | second |
+--------------+--------+
| plain        | one    |
+--------------+--------+
"""


def test_multi_line_cells_are_joined_and_listed_for_review():
    done = rewrite("Intro.\n\n" + MULTI)
    assert (done.rewritten, done.kept, done.joined) == ([3], [], [(3, [6])])
    assert done.text.splitlines()[2:] == [
        "| Metric                  | Value        |",
        "|-------------------------|--------------|",
        "| `{python} v` per second | first second |",
        "| plain                   | one          |"]


def test_tables_without_inline_values_and_tables_in_code_are_untouched():
    plain = "+-----+\n| a   |\n+=====+\n| b   |\n+-----+\n"
    fenced = "```\n+-----+\n| a   |\n+=====+\n| `{python} v` |\n+-----+\n```\n"
    for text in (plain, fenced):
        done = rewrite(text)
        assert (done.text, done.rewritten, done.kept) == (text, [], [])


def test_a_pipe_inside_a_cell_is_escaped():
    """Between the column borders a `|` is text in a grid table, a cell border in a pipe table."""
    text = ("+--------------------+\n| h                  |\n+====================+\n"
            "| `{python} a` a|b   |\n+--------------------+\n")
    assert rewrite(text).text.splitlines()[2] == "| `{python} a` a\\|b    |"


def test_command_rewrites_files_and_exits_0_when_it_did_its_job(tmp_path, capsys):
    """Kept tables are listed (they stay check findings) but the command did its job;
    --check changes nothing and exits 1 when a table would be rewritten."""
    good, bad = tmp_path / "good.qmd", tmp_path / "bad.qmd"
    good.write_text(ALIGNED)
    bad.write_text("+--------------+\n| `{python} v` |\n+--------------+\n")
    assert main(["--check", "--root", str(tmp_path), "good.qmd"]) == 1
    assert good.read_text() == ALIGNED
    assert main(["--root", str(tmp_path), "good.qmd", "bad.qmd"]) == 0
    assert good.read_text() == EXPECTED
    assert main(["--root", str(tmp_path), "missing.qmd"]) == 1
    (tmp_path / "empty").mkdir()
    assert main(["--root", str(tmp_path / "empty")]) == 2      # no project, no files named
    out = capsys.readouterr().out
    assert "good.qmd:3: would rewrite the grid table as a pipe table\n" in out
    assert "good.qmd:3: rewrote the grid table as a pipe table\n" in out
    assert "bad.qmd:1: grid table kept (no single header row" in out
    assert "pipe-tables: 1 grid table with inline values rewritten (0 with joined cells to " \
           "review), 1 kept\n" in out


def test_python_m_scripts_pipe_tables_takes_root_and_lists_joined_rows(tmp_path, capsys):
    make_book(tmp_path, {"index.qmd": "# Preface\n", "ch.qmd": MULTI},
              "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - ch.qmd\n")
    assert cli(["pipe-tables", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "ch.qmd:1: rewrote the grid table as a pipe table; joined the multi-line cells of "
        "the row at line 4: review it")
    assert "| `{python} v` per second | first second |" in (tmp_path / "ch.qmd").read_text()


def test_command_defaults_to_the_book_documents(tmp_path, monkeypatch, capsys):
    make_book(tmp_path, {"index.qmd": "# Preface\n", "ch.qmd": ALIGNED,
                         "other.qmd": ALIGNED},            # other.qmd, not in the book: untouched
              "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - ch.qmd\n")
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    assert (tmp_path / "ch.qmd").read_text() == EXPECTED
    assert (tmp_path / "other.qmd").read_text() == ALIGNED
    assert capsys.readouterr().out.splitlines()[0] == (
        "ch.qmd:3: rewrote the grid table as a pipe table")
