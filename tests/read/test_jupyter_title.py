"""The heading Quarto 1.7's Jupyter engine makes a page's title outside a book
(scripts/bookcheck/read/jupyter_title.py), as Quarto 1.7.34 did on a tiny website: with front
matter and no `title:`, the first Markdown cell after the front matter's that starts with
a heading; without front matter, the document's first one; text first: none."""
from __future__ import annotations

from bookcheck.read.book import read_book
from tests.bookkit import make_book

CELL = "```{python}\nx = 1\n```\n"
PAGES = {
    "a.qmd": f"---\nengine: jupyter\n---\n\n# Top {{#sec-top}}\n\n{CELL}\n## Second {{#sec-s}}\n\n## Third\n",
    "b.qmd": f"# Bee {{#sec-b}}\n\n{CELL}\n## Bee two\n",
    "c.qmd": f"---\nengine: jupyter\n---\n\n# Cee\n\n{CELL}\nText first.\n\n## Cee two\n",
    "d.qmd": f"---\ntitle: Dee\n---\n\n{CELL}\n## Dee two\n",
    "e.qmd": "# No cells\n",
}


def test_the_heading_quarto_makes_the_title(tmp_path):
    book = read_book(make_book(tmp_path, PAGES, "project:\n  type: website\n"))
    assert {rel: p.title_heading for rel, p in book.parsed.items()} == {
        "a.qmd": 11, "b.qmd": 1, "c.qmd": 0, "d.qmd": 0, "e.qmd": 0}


def test_a_book_keeps_its_headings(tmp_path):
    book = read_book(make_book(tmp_path, PAGES, "book:\n  chapters:\n    - a.qmd\n    - b.qmd\n"))
    assert {rel: p.title_heading for rel, p in book.parsed.items()} == {"a.qmd": 0, "b.qmd": 0}
