"""Every run of a chapter gives the same bytes, so the cache audit can trust a cached run.

The GitHub `test` job restores `_bookcheck/cache` and runs `make check AUDIT=1`: with a
figure stamped with the time of its run, every run after the first failed. These
tests run that sequence on the book itself, and plant what used to break it.
"""
from __future__ import annotations

import pytest

from tests.faults.faultkit import add_chapter, edit, ledger_lines, write_book
from tests.repo_copy import copy_repository

pytestmark = pytest.mark.slow

TIMESTAMPED_FIGURE = """\
# Planted

```{python}
#| label: fig-planted
#| fig-cap: "A figure that carries the time of its run."
#| fig-alt: "A straight line."
import datetime
import matplotlib.pyplot as plt
plt.rcParams["svg.fonttype"] = "none"     # texts as text, not glyph outlines
fig, ax = plt.subplots()
ax.plot([0, 1], [0, 1])
ax.set_title(datetime.datetime.now().isoformat())
plt.show()
```
"""


def test_the_workflow_sequence_passes_on_the_book_and_a_timestamp_is_never_stored(tmp_path, runner):
    """check, then AUDIT=1 twice (the second run after a cache restore): clean on the
    book; a figure stamped with the time is named, at its clock read, with its cause.

    Since a clock read makes a run volatile (docs/performance.md, "What changes by
    itself is never stored"), `make numbers` stores no entry for it, so the audit has
    no cached run to find stale or unstable: the chapter is re-run and said so in a
    note. Were the run stored again, the audit after `numbers` would see its figure
    differ (`unstable-output`, exit 1) and this test fails."""
    book = copy_repository(tmp_path / "book")
    for step in (("check",), ("check", "--audit"), ("check", "--audit")):
        result = runner.cli(book, *step)
        assert (result.code, result.findings) == (0, []), f"{step}\n{result.output}"

    planted = book / "contents" / "planted.qmd"
    planted.write_text(TIMESTAMPED_FIGURE)
    edit(book / "_quarto.yml", "    - index.qmd\n", "    - index.qmd\n    - contents/planted.qmd\n")
    assert runner.cli(book, "numbers").code == 0
    audited = runner.cli(book, "check", "--audit")
    assert (audited.code, audited.findings) == (0, []), audited.output
    clock = 1 + next(n for n, text in enumerate(planted.read_text().split("\n"))
                     if "datetime.datetime.now()" in text)
    notes = [n for n in audited.report["notes"] if n.startswith("contents/planted.qmd")]
    assert notes == [f"contents/planted.qmd:{clock}: re-run on every check: its result can "
                     f"change from run to run (reads the clock (datetime.now()))"], audited.output
    again = runner.cli(book, "check")
    assert (again.code, again.findings) == (0, []), again.output
    assert notes == [n for n in again.report["notes"] if n.startswith("contents/planted.qmd")], \
        again.output


def test_set_order_is_the_same_in_every_run(good_book, runner):
    """Forked kernels share their server's str-hash seed: left random, a set shows in
    another order after every start of the checker."""
    words = ", ".join(f"'w{n}'" for n in range(12))
    add_chapter(good_book, f"# Two\n\n```{{python}}\nshown = str({{{words}}})\n```\n\n"
                           "The set `{python} shown`.\n")
    assert runner.cli(good_book, "numbers").code == 0
    for _ in range(2):
        audited = runner.cli(good_book, "check", "--audit")
        assert (audited.code, audited.findings) == (0, []), audited.output


def test_a_matplotlibrc_beside_the_chapter_is_read_and_is_an_input(tmp_path, runner):
    """Quarto's kernel starts in the chapter's folder, so matplotlib reads a
    `matplotlibrc` there; ours imported matplotlib before (the fork server), and must
    still read it, and see it: one added later moves the chapter's number."""
    chapter = ("# One\n\n```{python}\nimport matplotlib\n"
               "width = matplotlib.rcParams['lines.linewidth']\n```\n\nLines are `{python} width` pt.\n")
    book = write_book(tmp_path / "book", {"contents/one.qmd": chapter}, with_mlsys=False)
    assert runner.cli(book, "numbers").code == 0
    (book / "contents" / "matplotlibrc").write_text("lines.linewidth: 7\n")
    moved = runner.cli(book)
    assert ledger_lines(moved) == ["contents/one.qmd · width: 1.5 → 7.0"], moved.output
