"""Quarto's project scripts (scripts/bookcheck/render/hooks.py), without a kernel or Quarto:
what Quarto hands them, which documents a plain `quarto render` would execute, and
the checked result kept from pre-render for post-render. The scripts under real
Quarto: tests/quarto/test_hooks.py."""
from __future__ import annotations

from types import SimpleNamespace

from bookcheck.model import Kind
from bookcheck.read.book import read_book
from bookcheck.render import hooks
from tests.bookkit import make_book

CHAPTER = "# Ch {#sec-ch}\n\n```{python}\nx = 1\n```\n\nValue `{python} x`.\n"
CONFIG = "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - ch.qmd\n    - prose.qmd\n"


def book(tmp_path, extra: str = ""):
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "ch.qmd": CHAPTER,
                         "prose.qmd": "# Prose only\n"}, CONFIG + extra)
    read = read_book(tmp_path)
    return SimpleNamespace(project=read.project, parsed=read.parsed, ok=True)


def test_an_executable_document_with_freeze_off_is_a_finding(tmp_path):
    """Quarto's default `freeze: false`: a plain `quarto render` never reads the entries,
    so the one executable chapter is named, with the line to add."""
    found = hooks.unfrozen(book(tmp_path))
    assert [(f.path, f.kind) for f in found] == [("ch.qmd", Kind.FREEZE)]
    assert "add `execute: freeze: auto` to _quarto.yml" in found[0].reason


def test_freeze_auto_in_the_project_or_the_document_is_enough(tmp_path):
    assert hooks.unfrozen(book(tmp_path / "a", "execute:\n  freeze: auto\n")) == []
    make_book(tmp_path / "b", {"index.qmd": "# Preface {.unnumbered}\n",
                               "ch.qmd": "---\nexecute:\n  freeze: true\n---\n\n" + CHAPTER,
                               "prose.qmd": "# Prose only\n"}, CONFIG)
    read = read_book(tmp_path / "b")
    assert hooks.unfrozen(SimpleNamespace(parsed=read.parsed)) == []


def test_the_files_quarto_lists_come_from_its_variable_or_its_file(tmp_path):
    """QUARTO_PROJECT_OUTPUT_FILES, newline-separated; or the file named by
    QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES (Quarto writes the list there instead)."""
    assert hooks.listed("OUTPUT", {}) is None
    env = {"QUARTO_PROJECT_OUTPUT_FILES": "_book/index.html\n_book/ch.html"}
    assert hooks.listed("OUTPUT", env) == ["_book/index.html", "_book/ch.html"]
    named = tmp_path / "outputs.txt"
    named.write_text("_book/a.html\n\n_book/b.pdf\n")
    env["QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES"] = str(named)
    assert hooks.listed("OUTPUT", env) == ["_book/a.html", "_book/b.pdf"]


def test_post_render_gets_the_result_pre_render_checked_until_a_source_changes(tmp_path):
    """No second run of the book after Quarto's render; but an edit during the render
    makes the kept result stale (post-render then checks again)."""
    result = book(tmp_path)
    hooks.keep(result)
    kept = hooks.kept(tmp_path)
    assert kept is not None and kept.parsed["ch.qmd"].text == CHAPTER
    assert kept.parsed["ch.qmd"].cells[0].options == result.parsed["ch.qmd"].cells[0].options
    (tmp_path / "ch.qmd").write_text(CHAPTER + "\nAn edit during the render.\n")
    assert hooks.kept(tmp_path) is None
