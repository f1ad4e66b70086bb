"""The benchmark: its floor runner, notebook conversion, and one end-to-end run."""
from __future__ import annotations

import json

import pytest

from booktools import bench
from tests.bookkit import make_book

SMALL_BOOK = {
    "_quarto.yml": "project:\n  type: book\nbook:\n  title: T\n  chapters:\n"
                   "    - index.qmd\n    - a.qmd\n",
    "index.qmd": "# Preface\n\nBefore any cell: `{python} 6 * 7`.\n",
    "a.qmd": "# A\n\n```{python}\nx = 2\n```\n\nx is `{python} x`.\n\n"
             "```{python}\n#| eval: false\nraise SystemExit('never run')\n```\n\n"
             "```{python}\n#| error: true\n1 / 0\n```\n\n"
             "```{python}\ny = x + 1\ny\n```\n\n"
             "y is `{python} y` and `{python} undefined_name`.\n",
}


@pytest.fixture
def small_book(tmp_path):
    return make_book(tmp_path, SMALL_BOOK)


def test_floor_runs_cells_and_inlines_in_document_order(small_book, capsys):
    counts = bench.run_floor(small_book)
    # eval: false is skipped; the error: true cell is allowed; the unknown name is an error
    assert counts == {"chapters": 2, "cells": 3, "inlines": 4, "errors": 1, "explorer_seconds": 0.0}
    assert "a.qmd:" in capsys.readouterr().err


def test_display_text_prefers_markdown():
    class Table:
        def _repr_markdown_(self):
            return "| a |\n|---|\n| 1 |"
    assert bench._display_text(Table()).startswith("| a |")
    assert bench._display_text("text") == "text"
    assert bench._display_text(3.5) == "3.5"


def test_notebooks_hold_cells_and_inline_expressions_in_order(small_book):
    import nbformat
    paths = bench.write_notebooks(small_book)
    assert [p.name for p in paths] == ["_bench_index.ipynb", "_bench_a.ipynb"]
    cells = [c.source for c in nbformat.read(paths[1], as_version=4).cells]
    assert cells == ["x = 2", "x", "#| error: true\n1 / 0", "y = x + 1\ny", "y", "undefined_name"]


def test_format_book_shows_ratios_and_failures():
    book = bench.BookBench("b", root=None, chapters=2, steps=[
        bench.Step("floor (one plain process)", [2.0, 1.0, 3.0]),
        bench.Step("cold check", [3.0]),
        bench.Step("mlsys touched", failed="exit 2: boom")])
    text = bench.format_book(book)
    assert "2.00s     1.00" in text and "3.00s     1.50" in text
    assert "failed" in text and "exit 2: boom" in text


def test_copy_of_the_project_leaves_out_the_pipeline_and_the_venv(tmp_path):
    copy = bench.copy_project(tmp_path / "copy")
    assert (copy / "_quarto.yml").is_file()
    assert not (copy / ".venv").exists() and not (copy / "scripts" / "bookcheck").exists()


@pytest.mark.kernel
@pytest.mark.slow
def test_bench_end_to_end_on_a_tiny_synthetic_book(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--only", "synthetic", "--chapters", "1", "--runs", "1",
                       "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "machine:" in printed and "cores" in printed
    (book,) = json.loads(out.read_text())["books"]
    names = [step["name"] for step in book["steps"]]
    assert names == ["floor (one plain process)", "cold check", "nothing changed",
                     "one chapter edited", "mlsys touched", "cold, Python hooks only",
                     "html cold", "  audit within html cold",
                     "html nothing changed", "  audit within html nothing changed",
                     "html prose edit (ch01.qmd)", "  audit within html prose edit (ch01.qmd)",
                     "nbconvert --execute (peer)",
                     "1 shard (cold)", "slowest of 4 shards", "merge of 4 shards"]
    for step in book["steps"]:
        assert step["failed"] == "" and len(step["seconds"]) == 1, step
    notes = {step["name"]: step["note"] for step in book["steps"]}
    assert notes["  audit within html cold"] == ""          # an audit ran and was timed
    assert notes["  audit within html nothing changed"] == "no audit ran"
    for step in book["steps"][1:5]:
        assert step["note"].startswith("exit 0:"), step
    assert "(2 from cache)" in book["steps"][2]["note"]      # nothing changed: all cached
    assert "(1 from cache)" in book["steps"][3]["note"]      # one of two documents edited
    assert "(0 from cache)" in book["steps"][4]["note"]      # mlsys touched: all rerun
    assert book["steps"][-1]["note"].startswith("findings identical to the unsharded run")
    assert "total CPU" in book["steps"][-2]["note"]
    assert book["peak_rss_kb"]["cold check"] > 0 and book["child_rss_kb"] > 0


def test_per_chapter_overhead_is_cold_minus_floor_over_chapters():
    from booktools.bench_html import per_chapter_overhead_line
    steps = [bench.Step("floor (one plain process)", [2.0, 4.0, 3.0]),
             bench.Step("cold check", [9.0, 8.0, 10.0])]
    assert per_chapter_overhead_line(steps, 60).startswith(
        "  per-chapter overhead: 100 ms ")          # (9 - 3) / 60 s
    assert per_chapter_overhead_line(steps[:1], 60) == ""
    book = bench.BookBench("b", root=None, chapters=60, steps=steps)
    assert "per-chapter overhead: 100 ms" in bench.format_book(book)


def test_the_observation_cost_line_compares_the_interposer_with_python_hooks_only():
    from booktools.bench import PYTHON_HOOKS_STEP, Step, observation_cost_line
    cold, hooks = Step("cold check"), Step(PYTHON_HOOKS_STEP)
    cold.seconds, hooks.seconds = [11.0, 11.5, 10.5], [10.0, 9.0, 11.0]
    line = observation_cost_line([cold, hooks])
    assert line.endswith("cold check 11.00 s against 10.00 s with Python hooks only (+10 %)"), line
    hooks.failed = "broke"
    assert observation_cost_line([cold, hooks]) is None
