"""Documents that are not a book's .qmd chapters, published through real Quarto 1.7.34
(local-only): a `.ipynb` chapter Quarto is told to run (`execute: enabled: true`) is
checked like a .qmd and handed over through the freezer, so Quarto runs it zero times and
publishes the checked outputs, not the ones stored in the file, its raw HTML cell as
HTML and its `hide-code` cell without code (the built-in page shows the same); a lone-document project (`project: type: default`, or no type) publishes
`x.html` for its `x.qmd`, as Quarto writes it."""
from __future__ import annotations

import json

import pytest

from tests.bookkit import check, make_book
from tests.quarto.quartokit import quarto_on_path

pytestmark = pytest.mark.slow

COUNT = "with open('runs.txt', 'a') as f:\n    f.write('run\\n')\n"
CELLS = [
    {"cell_type": "raw", "metadata": {}, "source": ["---\n", "execute:\n", "  enabled: true\n", "---"]},
    {"cell_type": "raw", "metadata": {"raw_mimetype": "text/html"}, "source": ["<b>raw-html</b>"]},
    {"cell_type": "code", "execution_count": 1, "metadata": {"tags": ["hide-code"]},
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["printed 41\n"]}],
     "source": [*COUNT.splitlines(keepends=True), "answer = 42\n", "print('printed', answer)"]},
    {"cell_type": "markdown", "metadata": {},
     "source": ["# Notebook\n", "\n", "The answer is `{python} answer`."]},
]
NOTEBOOK = json.dumps({"cells": CELLS, "metadata": {"kernelspec": {
    "name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4, "nbformat_minor": 5}, indent=1)
BOOK = {"_quarto.yml": "project:\n  type: book\nbook:\n  title: N\n  chapters:\n"
                       "    - index.qmd\n    - nb.ipynb\n",
        "index.qmd": "# Preface\n", "nb.ipynb": NOTEBOOK}


@pytest.mark.parametrize("by_quarto", [True, False])
def test_a_run_notebook_publishes_its_checked_outputs(by_quarto, quarto_exe, tmp_path):
    from bookcheck.render import render_book
    root = make_book(tmp_path / "book", BOOK)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    with quarto_on_path(quarto_exe):
        render_book(result, "html", use_quarto=by_quarto)
    page = (root / "_book" / "nb.html").read_text(encoding="utf-8")
    assert "The answer is 42" in page and "printed 42" in page and "printed 41" not in page
    assert "<b>raw-html</b>" in page and "answer = 42" not in page       # the tag hides the code
    assert (root / "runs.txt").read_text() == "run\n"        # the checker's run alone


LONE = "---\ntitle: Lone\n---\n\n```{python}\n" + COUNT + "x = 6 * 7\n```\n\nThe answer is `{python} x`.\n"


@pytest.mark.parametrize("config", ["project:\n  type: default\n", "title: Lone\n"])
def test_a_lone_document_project_publishes_its_page(config, quarto_exe, tmp_path):
    from bookcheck.render import render_book
    root = make_book(tmp_path / "doc", {"_quarto.yml": config, "paper.qmd": LONE})
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    with quarto_on_path(quarto_exe):
        main = render_book(result, "html", use_quarto=True)
    assert main == root / "_book" / "paper.html"
    assert "The answer is 42" in main.read_text(encoding="utf-8")
    assert (root / "runs.txt").read_text() == "run\n"        # Quarto ran nothing


FOLDERS = {
    "_quarto.yml": "project:\n  type: book\nbook:\n  title: M\n  chapters:\n"
                   "    - index.qmd\n    - off/ch.qmd\n    - quiet/ch.qmd\n",
    "index.qmd": "# Preface\n",
    "off/_metadata.yml": "execute:\n  eval: false\n",
    "off/ch.qmd": "# Off\n\n```{python}\n" + COUNT + "print('off ' + 'printed')\n```\n",
    "quiet/_metadata.yml": "execute:\n  echo: false\n",
    "quiet/ch.qmd": "# Quiet\n\n```{python}\nshown_code = 'quiet'\nprint(shown_code, 'printed')\n```\n",
}


@pytest.mark.parametrize("by_quarto", [True, False])
def test_a_folders_metadata_file_sets_its_chapters_cells(by_quarto, quarto_exe, tmp_path):
    """`off/_metadata.yml` (`eval: false`): the cell is never run, its code shown and
    nothing printed; `quiet/_metadata.yml` (`echo: false`): its output without its code."""
    from bookcheck.render import render_book
    root = make_book(tmp_path / "book", FOLDERS)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings]
    with quarto_on_path(quarto_exe):
        render_book(result, "html", use_quarto=by_quarto)
    off = (root / "_book" / "off" / "ch.html").read_text(encoding="utf-8")
    quiet = (root / "_book" / "quiet" / "ch.html").read_text(encoding="utf-8")
    assert "runs.txt" in off and "off printed" not in off
    assert "quiet printed" in quiet and "shown_code" not in quiet
    assert not (root / "runs.txt").exists()


FOOTED = {"_quarto.yml": "project:\n  type: book\nbook:\n  title: \"Book 3\"\n  page-footer:\n"
                         "    left: \"Licensed **CC BY 4.0**\"\n    right:\n      - text: \"Version 1.2\"\n"
                         "        href: https://example.org/v\n  chapters:\n    - index.qmd\n",
          "index.qmd": "# Preface\n\nHi.\n"}


def footer_sides(page: str) -> dict[str, str]:
    import re
    footer = re.search(r'<footer class="footer">(.*?)</footer>', page, re.S).group(1)
    parts = re.split(r'<div class="nav-footer-(left|center|right)">', footer)[1:]
    return {side: " ".join(re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " ").split())
            for side, html in zip(parts[::2], parts[1::2])}


def test_the_page_footer_reads_as_quartos(quarto_exe, tmp_path):
    """The same footer text, side by side, on Quarto's page and on the built-in one;
    both audited clean (the book title's 3 and the footer's numbers are typed in
    _quarto.yml)."""
    from bookcheck.render import render_book
    shown = []
    for by_quarto in (True, False):
        root = make_book(tmp_path / f"book-{by_quarto}", FOOTED)
        result = check(root)
        with quarto_on_path(quarto_exe):
            render_book(result, "html", use_quarto=by_quarto)
        shown.append(footer_sides((root / "_book" / "index.html").read_text(encoding="utf-8")))
    assert shown[0] == shown[1] == {"left": "Licensed CC BY 4.0", "center": "", "right": "Version 1.2"}
