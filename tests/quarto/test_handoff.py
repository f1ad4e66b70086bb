"""The freeze handoff against real Quarto 1.7.34, on a small book.

One book, rendered twice by Quarto: by the pipeline (`make html`'s path:
check, hand the runs over, `quarto render --use-freezer`) and, in a copy,
by Quarto alone, executing everything (`keep-md` on). Its first cell appends
a line to `runs.txt` each time it runs, so the file counts executions.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.bookkit import check, make_book

from .quartokit import quarto_on_path, quarto_render

pytestmark = pytest.mark.slow

BOOK = {
    "_quarto.yml": (
        "project:\n  type: book\nbook:\n  title: \"Handoff\"\n  chapters:\n"
        "    - index.qmd\n    - ch.qmd\n    - own.qmd\nformat: html\n"),
    "index.qmd": "# Preface {.unnumbered}\n\nPreface text.\n",
    "ch.qmd": (
        "# Handoff {#sec-handoff}\n\n"
        "```{python}\n#| echo: false\n"
        "with open(\"runs.txt\", \"a\") as handle:\n    handle.write(\"ran\\n\")\n"
        "value = 6 * 7\n```\n\n"
        "The answer is `{python} value`; see @tbl-small and @fig-line.\n\n"
        "```{python}\n#| label: tbl-small\n#| tbl-cap: \"A small table\"\n"
        "from IPython.display import Markdown\n"
        "Markdown(\"| a | b |\\n|:--|--:|\\n| x | 1 |\")\n```\n\n"
        "```{python}\nprint(\"printed\", value)\n```\n\n"
        "```{python}\n#| code-fold: true\n#| code-summary: \"Show the sum\"\n"
        "#| code-line-numbers: true\ntotal = value + 1\n```\n\n"
        "```{python}\n#| classes: wide-cell\nprint(\"in a classed cell\")\n```\n\n"
        "```{python}\n#| label: fig-line\n#| fig-cap: \"A rising line\"\n"
        "#| fig-alt: \"A line from 0 to 1\"\n"
        "import matplotlib.pyplot as plt\n"
        "plt.plot([0, 1], [0, 1])\nplt.show()\n```\n\n"   # Quarto's size and dpi: not set here
        "{{< include _part.qmd >}}\n"),
    "_part.qmd": "Included: `{python} value + 1`.\n",
    "own.qmd": (                                 # its own figure options, as Quarto layers them
        "---\nfig-width: 4\nfig-height: 3\nformat:\n  html:\n    fig-dpi: 72\n---\n\n"
        "# Own figures\n\n"
        "```{python}\n#| label: fig-small\n#| fig-cap: \"A smaller line\"\n"
        "import matplotlib.pyplot as plt\n"
        "plt.plot([0, 1], [1, 0])\nplt.show()\n```\n"),
}
# Masked, and only these: the ids of unlabelled cells, which Quarto draws at random.
CELL_ID = re.compile(r"\{#[0-9a-f]{8} \.cell")
HTML_CELL_ID = re.compile(r'id="[0-9a-f]{8}"')
FIGURE = "ch_files/figure-html/fig-line-output-1.png"
OWN_FIGURE = "own_files/figure-html/fig-small-output-1.png"


def comparable_md(text: str) -> str:
    return CELL_ID.sub("{#id .cell", text)


def comparable_html(text: str) -> str:
    return HTML_CELL_ID.sub('id="cell"', text)


def runs(root: Path) -> int:
    path = root / "runs.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture(scope="module")
def handed(quarto_exe, tmp_path_factory):
    """The pipeline's render: (root, checked result, executions before/after Quarto)."""
    from bookcheck.render import render_book
    root = make_book(tmp_path_factory.mktemp("handoff") / "book", BOOK)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    before = runs(root)
    with quarto_on_path(quarto_exe):
        render_book(result, "html")
    return root, result, before, runs(root)


@pytest.fixture(scope="module")
def executed(quarto_exe, tmp_path_factory, handed):
    """Quarto alone, executing: (root, executions). The book does not ask for the
    built-in look (`verify: quarto-look:`), so neither render gets a `--metadata-file`."""
    assert not handed[1].project.quarto_look
    root = make_book(tmp_path_factory.mktemp("executed") / "book", BOOK)
    quarto_render(quarto_exe, root, "-M", "keep-md:true")
    return root, runs(root)


def test_quarto_runs_the_checked_cell_zero_times(handed, executed):
    _, _, before, after = handed
    assert before == 1                  # the checker's own run
    assert after == 1                   # Quarto published it without running it
    assert executed[1] == 1             # the counter does count Quarto's executions


def test_the_page_shows_the_checked_values(handed):
    root = handed[0]
    page = (root / "_book" / "ch.html").read_text(encoding="utf-8")
    assert "The answer is 42" in page
    assert "Included: 43." in page
    assert "printed 42" in page
    assert (root / "_book" / FIGURE).is_file()


def test_handed_over_markdown_is_what_quarto_writes(handed, executed):
    from bookcheck.render.engine_md import engine_markdown
    root, result, _, _ = handed
    for name in ("ch", "own"):
        parsed = result.parsed[f"{name}.qmd"]
        ours = engine_markdown(parsed, result.runs[parsed.path], root, parsed.figure).markdown
        theirs = (executed[0] / f"{name}.html.md").read_text(encoding="utf-8")
        assert "width=" in ours and comparable_md(ours) == comparable_md(theirs), name


def test_the_figure_is_the_one_quarto_draws(handed, executed):
    """The checker's kernel draws as Quarto's setup cell does (7 x 5 in, 96 dpi,
    retina; own.qmd's front matter: 4 x 3 in, 72 dpi): the same PNG, byte for byte,
    on both pages."""
    from bookcheck.render.figure_size import png_dpi
    for figure, dpi in ((FIGURE, 192), (OWN_FIGURE, 144)):
        ours = (handed[0] / "_book" / figure).read_bytes()
        assert ours[:4] == b"\x89PNG" and png_dpi(ours) == (dpi, dpi)
        assert ours == (executed[0] / "_book" / figure).read_bytes(), figure


def test_pages_are_identical(handed, executed):
    """The chapter page Quarto makes from the handed-over run is the page it makes
    executing (cell ids aside: Quarto draws them at random)."""
    for page in ("ch.html", "own.html"):
        ours = (handed[0] / "_book" / page).read_text(encoding="utf-8")
        theirs = (executed[0] / "_book" / page).read_text(encoding="utf-8")
        assert 'width="' in ours and comparable_html(ours) == comparable_html(theirs), page


def test_an_edited_source_is_a_finding_not_a_second_run(handed, tmp_path, quarto_exe):
    """A chapter changed after its check would be executed by Quarto: refused."""
    from bookcheck.render import RenderError, render_book
    src, result, _, _ = handed
    root = tmp_path / "book"
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("_book", ".quarto", "_bookcheck"))
    from dataclasses import replace
    moved = replace(result, project=replace(result.project, root=str(root)))
    (root / "ch.qmd").write_text(BOOK["ch.qmd"] + "\nAn edit after the check.\n")
    with quarto_on_path(quarto_exe), pytest.raises(RenderError, match="ch.qmd.*changed since"):
        render_book(moved, "html")
    assert runs(root) == 1 and not (root / "_book").exists()


def test_a_search_index_missing_a_page_is_rendered_once_more(handed, tmp_path, quarto_exe,
                                                             monkeypatch, capsys):
    """Quarto 1.7 may index a page while still rewriting it (render/quarto_search.py):
    told so once, the pipeline renders again into the same staging folder, and that
    second render, from the same entries, executes nothing and gives the same pages."""
    from dataclasses import replace

    from bookcheck.render import quarto_search, render_book
    src, result, _, _ = handed
    root = tmp_path / "book"
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("_book", ".quarto", "_bookcheck"))
    moved = replace(result, project=replace(result.project, root=str(root)))
    real, asked = quarto_search.unindexed_pages, []

    def missing_once(out_dir, pages):
        asked.append(sorted(pages))
        return ["ch.html"] if len(asked) == 1 else real(out_dir, pages)

    monkeypatch.setattr(quarto_search, "unindexed_pages", missing_once)
    with quarto_on_path(quarto_exe):
        render_book(moved, "html")
    assert asked == [["ch.html", "index.html", "own.html"]] * 2
    assert "ch.html (no search entry)" in capsys.readouterr().err
    assert runs(root) == 1                      # the checker's run, copied: Quarto ran nothing
    hrefs = [e["href"] for e in json.loads((root / "_book" / "search.json").read_text())]
    assert "ch.html" in hrefs and "own.html" in hrefs
    for page in ("ch.html", "own.html"):
        ours = (root / "_book" / page).read_text(encoding="utf-8")
        assert comparable_html(ours) == comparable_html((src / "_book" / page).read_text(encoding="utf-8"))
