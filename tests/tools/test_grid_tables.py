"""`make pipe-tables` (scripts/tools/grid_tables.py): grid tables holding inline
values become pipe tables when nothing is lost; the others are kept and listed."""
from __future__ import annotations

import json

import pypandoc

from scripts.tools.grid_tables import main, rewrite
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


def test_multi_line_cells_headerless_tables_and_spans_are_kept_with_the_reason():
    top = "+--------------+-----+\n"
    multi = (top + "| a            | b   |\n+==============+=====+\n"
             "| `{python} v` | x   |\n| more         | y   |\n" + top)
    headerless = top + "| `{python} v` | 1   |\n" + top
    span = (top + "| a            | b   |\n+==============+=====+\n"
            "| `{python} v` spans |\n" + top)
    for text, why in ((multi, "several lines"), (headerless, "header row"),
                      (span, "do not line up")):
        done = rewrite(text)
        assert done.text == text and done.rewritten == []
        assert len(done.kept) == 1 and done.kept[0][0] == 1 and why in done.kept[0][1]


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


def test_command_rewrites_files_and_fails_while_grid_tables_remain(tmp_path, capsys):
    good, bad = tmp_path / "good.qmd", tmp_path / "bad.qmd"
    good.write_text(ALIGNED)
    bad.write_text("+--------------+\n| `{python} v` |\n+--------------+\n")
    assert main([str(good)]) == 0
    assert good.read_text() == EXPECTED
    assert main(["--check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "good.qmd:3: rewrote the grid table as a pipe table" in out
    assert "bad.qmd:1: grid table kept (no single header row" in out


def test_command_defaults_to_the_book_documents(tmp_path, monkeypatch, capsys):
    make_book(tmp_path, {"index.qmd": "# Preface\n", "ch.qmd": ALIGNED,
                         "other.qmd": ALIGNED},            # other.qmd, not in the book: untouched
              "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - ch.qmd\n")
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    assert (tmp_path / "ch.qmd").read_text() == EXPECTED
    assert (tmp_path / "other.qmd").read_text() == ALIGNED
    assert capsys.readouterr().out == "ch.qmd:3: rewrote the grid table as a pipe table\n"
