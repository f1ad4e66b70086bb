"""A .qmd file a book does not list is named in a note, with how to list it (issue 31):
Quarto renders only a book's listed chapters, so the file is silently left out.
Not a failure; never said of `_` files, included files, part pages or other projects."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from bookcheck.verify.check import check_book
from bookcheck.verify.report import print_report
from tests.bookkit import make_book

pytestmark = pytest.mark.kernel     # every test checks a book (check_book runs its chapters)

BOOK = """project:
  type: book
book:
  chapters:
    - index.qmd
    - part: contents/part.qmd
      chapters:
        - contents/a.qmd
  appendices:
    - contents/z.qmd
"""
FILES = {
    "index.qmd": "# Home\n",
    "contents/part.qmd": "# Part\n",
    "contents/a.qmd": "# A\n\n{{< include inc.qmd >}}\n",
    "contents/inc.qmd": "Included, and in turn\n\n{{< include deeper.qmd >}}\n",
    "contents/deeper.qmd": "included too.\n",
    "contents/z.qmd": "# Z\n",
    "contents/_draft.qmd": "# Not a chapter\n",
    "_notes/ideas.qmd": "# Not a chapter either\n",
    "contents/notes.md": "Markdown notes.\n",
}


def notes_of(root: Path) -> tuple[bool, list[str]]:
    out = io.StringIO()
    result = check_book(root)
    print_report(result, out)
    return result.ok, [line for line in out.getvalue().splitlines() if line.startswith("note: ")]


def test_an_unlisted_chapter_is_a_note_that_says_how_to_list_it(tmp_path):
    root = make_book(tmp_path, {**FILES, "contents/new.qmd": "# New\n"}, BOOK)
    ok, notes = notes_of(root)
    assert ok                                   # a note, not a failure
    assert notes == ["note: contents/new.qmd is not in _quarto.yml, so it is not part of the "
                     "book: to make it a chapter, add `- contents/new.qmd` under `chapters:` "
                     "(or `appendices:`) of `book:` in _quarto.yml; if it is not a chapter, "
                     "name it `_new.qmd`"]


def test_listed_included_and_underscore_files_are_not_noted(tmp_path):
    assert notes_of(make_book(tmp_path, FILES, BOOK)) == (True, [])


def test_a_website_renders_every_file_so_nothing_is_noted(tmp_path):
    root = make_book(tmp_path, {"index.qmd": "# Home\n", "b.qmd": "# B\n"}, "project:\n  type: website\n")
    assert notes_of(root) == (True, [])
