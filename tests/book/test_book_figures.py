"""Every figure of the book, drawn as the book draws it, passes show()'s layout
rules (mlsys.figure_layout, issue 35): no label or legend on another text, a line
or a marker, no marker hiding another series' marker, no text below TEXT_PT_MIN.

The chapters run in this process (bookcheck.run.inprocess, as the bench floor runs
them); show() is wrapped only to count the figures it is handed."""
from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

from mlsys import plotting  # noqa: E402
from bookcheck.read.book import read_book  # noqa: E402
from bookcheck.run.inprocess import run_in_process  # noqa: E402

from tests import REPO  # noqa: E402

pytestmark = pytest.mark.slow


def test_every_figure_of_the_book_passes_the_layout_rules(monkeypatch):
    shown = []
    real_show = plotting.show

    def counting_show(fig):
        shown.append(fig)
        real_show(fig)

    monkeypatch.setattr(plotting, "show", counting_show)     # the setup cells import it from here
    book = read_book(REPO)
    figure_cells = sum(1 for parsed in book.parsed.values() for cell in parsed.cells
                       if str(cell.options.get("label", "")).startswith("fig-"))
    errors = []
    for parsed in book.parsed.values():
        errors += run_in_process(parsed, stop_at_error=False).errors
    assert [e for e in errors if "figure" in e] == []
    assert errors == []
    assert len(shown) == figure_cells >= 6          # each figure cell drew (and showed) its figure
