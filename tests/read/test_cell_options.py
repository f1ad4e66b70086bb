"""A cell's options resolved once, Quarto's defaults applied (scripts/bookcheck/read/cell_options.py):
`cell.resolved` is what every stage reads, so the run, both renderers and the audits
agree on a cell nobody gave an option. Quarto 1.7.34's execute defaults
(src/format/formats-shared.ts): echo, eval, output, include and warning true, error
false. No kernel: runs are made by hand."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from bookcheck.model import CellRun, ChapterRun, CodeCell, Output
from bookcheck.read.book import read_book
from bookcheck.read.cell_options import CellOptions, cell_options
from bookcheck.read.qmd import parse_chapter
from bookcheck.render import render_book
from tests.bookkit import make_book

CONFIG = "project:\n  type: book\nbook:\n  title: Echo\n  chapters:\n    - index.qmd\n    - one.qmd\n"


@pytest.fixture()
def book(tmp_path):
    """read_book of a book whose chapter one.qmd is `text` (after `front`): that chapter."""
    def read(text: str, config: str = CONFIG, front: str = ""):
        make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n",
                             "one.qmd": front + "# One\n\n" + text}, config)
        return read_book(tmp_path).parsed["one.qmd"]
    return read


def test_a_cell_nobody_gave_an_option_has_quartos_defaults(book):
    cell = book("```{python}\nx = 1\n```\n").cells[0]
    assert cell.resolved == CellOptions()
    assert (cell.resolved.echo, cell.resolved.eval, cell.resolved.output, cell.resolved.include,
            cell.resolved.warning, cell.resolved.error) == (True, True, True, True, True, False)
    assert cell.resolved.shows_code and cell.resolved.shows_outputs and not cell.resolved.asis


def test_the_cascade_is_resolved_the_cell_last(book):
    """project `execute:` -> front matter -> the cell's `#|` lines, as read/options.py
    merges them; what nobody set keeps Quarto's default."""
    parsed = book("```{python}\nx = 1\n```\n\n```{python}\n#| echo: true\ny = 2\n```\n",
                  CONFIG + "execute:\n  echo: false\n", "---\nexecute:\n  warning: false\n---\n\n")
    first, second = (c.resolved for c in parsed.cells)
    assert (first.echo, first.warning, first.eval) == (False, False, True)
    assert (second.echo, second.warning) == (True, False)
    assert not first.shows_code and second.shows_code


def test_resolved_once_frozen_and_typed():
    cell = parse_chapter("c.qmd", "```{python}\n#| label: fig-x\n#| echo: fenced\n#| output: asis\n"
                                  "#| include: false\n#| classes: wide narrow\nx = 1\n```\n").cells[0]
    resolved = cell.resolved
    assert (resolved.label, resolved.echo, resolved.asis, resolved.classes) == \
        ("fig-x", "fenced", True, ("wide", "narrow"))
    assert not resolved.shows_code and not resolved.shows_outputs     # include: false
    with pytest.raises(dataclasses.FrozenInstanceError):
        resolved.echo = False
    assert cell.label == "fig-x"                    # CodeCell.label reads it too
    # a cell made by hand (tests, tools) is resolved from its options as well
    assert CodeCell(0, 1, 2, 3, "", options={"eval": False}).resolved.eval is False


def test_figure_options_keep_how_they_were_written():
    """Quarto broadcasts a string to every output and gives output k item k of a list
    (broadcastFigureOption); a `fig-cap` list is one caption per figure."""
    listed = cell_options({"fig-cap": ["First", "Second"], "fig-alt": ["Alt one", "Alt two"],
                           "fig-align": ["left", "right"]})
    assert listed.fig_cap == ("First", "Second") and listed.fig_align == ("left", "right")
    assert [listed.per_output("fig_align", k) for k in range(3)] == ["left", "right", None]
    assert [listed.per_output("fig_alt", k) for k in range(2)] == ["Alt one", "Alt two"]
    assert listed.captions(displays=True) == (None, ("First", "Second"))
    assert listed.captions(displays=False) == (None, ())
    one = cell_options({"fig-cap": "Both", "fig-align": "right"})
    assert [one.per_output("fig_align", k) for k in range(2)] == ["right", "right"]
    assert one.captions(displays=True) == (None, ("Both",))
    sub = cell_options({"fig-cap": "Whole", "fig-subcap": ["(left)", "(right)"]})
    assert sub.captions(displays=True) == ("Whole", ("(left)", "(right)"))
    assert cell_options({"fig-cap": "Whole", "fig-subcap": True}).captions(True) == ("Whole", ("",))
    assert cell_options({"fig-cap": "", "fig-pos": False}).fig_cap is None


ECHO_CHAPTER = "```{python}\nnodes = 4096\nprint('ok')\n```\n\nText.\n"


@pytest.mark.slow
@pytest.mark.parametrize("option", ["", "#| echo: true\n", "#| echo: false\n"])
def test_the_pdf_audit_accounts_for_the_code_quarto_shows_by_default(tmp_path, option):
    """A cell with no `echo` shows its code, as Quarto does (echo: true by default), so the
    digits of its code are the code's, not unaccounted numbers: once the PDF audit read
    `echo is True` and refused the book unless every cell said `echo: true`."""
    root = make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n",
                                "one.qmd": "# One\n\n" + ECHO_CHAPTER.replace("```{python}\n",
                                                                          "```{python}\n" + option)},
                     CONFIG + "verify:\n  literal-numbers: true\n")
    read = read_book(root)
    run = ChapterRun(path="one.qmd", cells=[CellRun(0, [Output("text", "ok\n", "stdout")])])
    result = SimpleNamespace(project=read.project, parsed=read.parsed, runs={"one.qmd": run},
                             findings=[], ok=True)
    pdf = render_book(result, "pdf", use_quarto=False)          # audited: no AuditError
    from pypdf import PdfReader
    text = " ".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert ("nodes = 4096" in text) is (option != "#| echo: false\n")
