"""A `.ipynb` chapter (scripts/bookcheck/read/ipynb.py) is read as the Markdown Quarto 1.7.34 makes
of it: a first raw cell `---` is the front matter, markdown cells are prose, code cells
are cells (their `#|` lines, over their metadata tags), and every finding names the JSON
line of the notebook. Quarto runs a notebook only under `execute: enabled: true` (or
`ipynb: true`); otherwise its stored outputs are published unchecked: a finding."""
from __future__ import annotations

import json

import pytest

from bookcheck.model import Kind
from bookcheck.read.book import read_book
from bookcheck.read.project import load_project
from tests.bookkit import make_book

BOOK = "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - nb.ipynb\n"


def notebook(cells: list[dict]) -> str:
    """A notebook as Jupyter writes it (one-space JSON, one source line per string)."""
    spec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return json.dumps({"cells": cells, "metadata": {"kernelspec": spec},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1)


def raw(*lines):
    return {"cell_type": "raw", "metadata": {}, "source": list(lines)}


def markdown(*lines):
    return {"cell_type": "markdown", "metadata": {}, "source": list(lines)}


def code(*lines, tags=(), outputs=()):
    return {"cell_type": "code", "execution_count": 1, "metadata": {"tags": list(tags)},
            "outputs": list(outputs), "source": list(lines)}


STORED = {"output_type": "stream", "name": "stdout", "text": ["41\n"]}


@pytest.fixture(autouse=True)
def no_profile(monkeypatch):
    monkeypatch.delenv("QUARTO_PROFILE", raising=False)


def json_line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def test_a_notebook_is_its_cells_with_findings_at_its_json_lines(tmp_path):
    nb = notebook([raw("---\n", "title: N\n", "execute:\n", "  enabled: true\n", "---"),
                   code("#| label: tbl-x\n", "x = 2\n", "print(x)", outputs=[STORED],
                        tags=["hide-code", "remove-input"]),    # Quarto's tag, and not one
                   markdown("# N {#sec-n}\n", "\n", "See @tbl-x and {python} x`."),
                   {"cell_type": "raw", "metadata": {"raw_mimetype": "text/html"}, "source": ["<b>x</b>"]}])
    make_book(tmp_path, {"index.qmd": "# I\n", "nb.ipynb": nb}, BOOK)
    parsed = read_book(tmp_path).parsed["nb.ipynb"]
    assert parsed.front_matter["title"] == "N" and parsed.execute is True
    assert [c.code for c in parsed.cells] == ["x = 2\nprint(x)"]
    assert dict(parsed.cells[0].options) == {"label": "tbl-x", "echo": False}   # the tag's
    assert [label for label, _ in parsed.labels] == ["tbl-x", "sec-n"]
    # a read finding (a backtick missing) names the JSON line of its string
    syntax = [f for f in parsed.findings if f.kind == Kind.STRAY_INLINE]
    assert [(f.path, f.line) for f in syntax] == [("nb.ipynb", json_line(nb, "See @tbl-x"))]
    assert parsed.source_of(parsed.cells[0].fence_line + 3) == ("nb.ipynb", json_line(nb, '"x = 2'))
    assert parsed.kernel == ("python3", "nb.ipynb", json_line(nb, '"kernelspec"'))
    assert parsed.text.endswith("\n\n```{=html}\n<b>x</b>\n```")          # Quarto's raw block


def test_a_notebook_quarto_does_not_run_is_a_finding_only_when_it_stores_outputs(tmp_path):
    nb = notebook([code("x = 2\n", "print(x)", outputs=[STORED])])
    make_book(tmp_path, {"index.qmd": "# I\n", "nb.ipynb": nb}, BOOK)
    parsed = read_book(tmp_path).parsed["nb.ipynb"]
    assert parsed.execute is False and parsed.cells[0].options["eval"] is False
    assert [(f.path, f.line, f.kind) for f in parsed.findings] == [
        ("nb.ipynb", 1, Kind.NOTEBOOK_OUTPUTS)]
    assert "quarto convert nb.ipynb" in parsed.findings[0].reason
    # the project's `execute: enabled: true` runs it; `ipynb: false` wins over it (Quarto)
    make_book(tmp_path, quarto_yml=BOOK + "execute:\n  enabled: true\n")
    parsed = read_book(tmp_path).parsed["nb.ipynb"]
    assert parsed.execute is True and parsed.findings == []
    make_book(tmp_path, quarto_yml=BOOK + "execute:\n  enabled: true\n  ipynb: false\n")
    assert read_book(tmp_path).parsed["nb.ipynb"].execute is False
    # no stored output: the page is the same as Quarto's, nothing to say
    make_book(tmp_path, {"nb.ipynb": notebook([code("x = 2")])}, BOOK)
    assert read_book(tmp_path).parsed["nb.ipynb"].findings == []


def test_a_notebook_that_is_not_json_is_a_finding_at_its_line(tmp_path):
    make_book(tmp_path, {"index.qmd": "# I\n", "nb.ipynb": '{\n "cells": [\n  {,\n'}, BOOK)
    findings = read_book(tmp_path).parsed["nb.ipynb"].findings
    assert [(f.path, f.line, f.kind) for f in findings] == [("nb.ipynb", 3, Kind.NOTEBOOK)]


def test_a_website_renders_its_notebooks_as_quarto_does(tmp_path):
    make_book(tmp_path, {"index.qmd": "# I\n", "b/nb.ipynb": notebook([markdown("# N")]),
                         ".ipynb_checkpoints/nb-checkpoint.ipynb": notebook([])},
              "project:\n  type: website\n")
    assert load_project(tmp_path).chapters == ["index.qmd", "b/nb.ipynb"]
