"""A `.ipynb` chapter Quarto is told to run (`execute: enabled: true`) is checked like a
.qmd and handed to real Quarto 1.7.34 through the freezer: Quarto runs it zero times and
publishes the checked outputs, not the ones stored in the file; the built-in page shows
the same (local-only)."""
from __future__ import annotations

import json

import pytest

from tests.bookkit import check, make_book
from tests.quarto.quartokit import quarto_on_path

pytestmark = pytest.mark.slow

COUNT = "with open('runs.txt', 'a') as f:\n    f.write('run\\n')\n"
CELLS = [
    {"cell_type": "raw", "metadata": {}, "source": ["---\n", "execute:\n", "  enabled: true\n", "---"]},
    {"cell_type": "code", "execution_count": 1, "metadata": {},
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["printed 41\n"]}],
     "source": [*COUNT.splitlines(keepends=True), "answer = 42\n", "print('printed', answer)"]},
    {"cell_type": "markdown", "metadata": {}, "source": ["# Notebook\n", "\n", "The answer is `{python} answer`."]},
]
NOTEBOOK = json.dumps({"cells": CELLS, "metadata": {"kernelspec": {
    "name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4, "nbformat_minor": 5}, indent=1)
BOOK = {"_quarto.yml": "project:\n  type: book\nbook:\n  title: N\n  chapters:\n"
                       "    - index.qmd\n    - nb.ipynb\n",
        "index.qmd": "# Preface\n", "nb.ipynb": NOTEBOOK}


@pytest.mark.parametrize("by_quarto", [True, False])
def test_a_run_notebook_publishes_its_checked_outputs(by_quarto, quarto_exe, tmp_path):
    from scripts.render import render_book
    root = make_book(tmp_path / "book", BOOK)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    with quarto_on_path(quarto_exe):
        render_book(result, "html", use_quarto=by_quarto)
    page = (root / "_book" / "nb.html").read_text(encoding="utf-8")
    assert "The answer is 42" in page and "printed 42" in page and "printed 41" not in page
    assert (root / "runs.txt").read_text() == "run\n"        # the checker's run alone
