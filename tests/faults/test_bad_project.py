"""Broken book structure: _quarto.yml, front matter, fences, labels, tables, bytes, paths."""
from __future__ import annotations

import pytest

from tests.faults.faultkit import (add_chapter, QUARTO_YML, assert_consistent_after_failure, disk_state, edit, line_of)

pytestmark = pytest.mark.slow


def quarto(book):
    return book / "_quarto.yml"


def chapter(book):
    return book / "contents" / "one.qmd"



def check_fails(runner, book, kind):
    before = disk_state(book)
    result = runner.cli(book)
    assert result.code == 1, result.output
    return before, result, result.only(kind)


def test_missing_chapter_file(good_book, runner):
    edit(quarto(good_book), "    - contents/one.qmd", "    - contents/one.qmd\n    - contents/gone.qmd")
    before, result, f = check_fails(runner, good_book, "missing-chapter")
    assert (f.path, f.line) == ("_quarto.yml", line_of(quarto(good_book), "gone.qmd"))
    assert "contents/gone.qmd" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_chapter_listed_twice(good_book, runner):
    edit(quarto(good_book), "    - contents/one.qmd", "    - contents/one.qmd\n    - ./contents/one.qmd")
    before, result, f = check_fails(runner, good_book, "duplicate-chapter")
    assert (f.path, f.line) == ("_quarto.yml", line_of(quarto(good_book), "./contents/one.qmd"))
    assert "contents/one.qmd" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


@pytest.mark.parametrize("entry", ["../../etc/passwd", "/etc/passwd", "contents/../../outside.qmd"])
def test_chapter_path_escaping_the_project(good_book, runner, entry):
    (good_book.parent / "outside.qmd").write_text("# Outside\n\n```{python}\nraise SystemExit\n```\n")
    edit(quarto(good_book), "    - contents/one.qmd", f"    - contents/one.qmd\n    - {entry}")
    before, result, f = check_fails(runner, good_book, "chapter-path")
    assert (f.path, f.line) == ("_quarto.yml", line_of(quarto(good_book), entry))
    assert "escapes the project" in f.reason
    assert "passwd" not in result.stdout.replace(entry, "")   # never read
    assert_consistent_after_failure(runner, good_book, before, result, rerun=False)


def test_chapter_symlink_escaping_the_project(good_book, runner):
    (good_book / "contents" / "link.qmd").symlink_to("/etc/passwd")
    edit(quarto(good_book), "    - contents/one.qmd", "    - contents/one.qmd\n    - contents/link.qmd")
    before, result, f = check_fails(runner, good_book, "chapter-path")
    assert f.line == line_of(quarto(good_book), "link.qmd")


def test_malformed_quarto_yml(good_book, runner):
    edit(quarto(good_book), "  chapters:", "  chapters: [unclosed")
    before, result, f = check_fails(runner, good_book, "yaml")
    # YAML notices the unclosed `[` at the next mapping key, `execute:`
    assert (f.path, f.line) == ("_quarto.yml", line_of(quarto(good_book), "execute:"))
    assert f.reason.startswith("malformed YAML")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_quarto_yml_that_is_not_a_mapping(good_book, runner):
    quarto(good_book).write_text("- just\n- a list\n")
    before, result, f = check_fails(runner, good_book, "yaml")
    assert (f.path, f.line) == ("_quarto.yml", 1)


def test_malformed_front_matter(good_book, runner):
    text = "---\ntitle: Two\nauthor: [a, b\n---\n\n# Two {#sec-two}\n\nText.\n"
    add_chapter(good_book, text)
    before, result, f = check_fails(runner, good_book, "front-matter")
    assert (f.path, f.line) == ("contents/two.qmd", 3), f    # the line of `[a, b`, where the block ends
    assert "malformed YAML front matter" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_unclosed_front_matter(good_book, runner):
    add_chapter(good_book, "---\ntitle: Two\n\n# Two\n\nText.\n")
    before, result, f = check_fails(runner, good_book, "front-matter")
    assert (f.path, f.line) == ("contents/two.qmd", 1)
    assert "never closed" in f.reason


def test_unclosed_code_fence(good_book, runner):
    text = "# Two {#sec-two}\n\nText.\n\n```{python}\nx = 1\n\nMore text.\n"
    add_chapter(good_book, text)
    before, result, f = check_fails(runner, good_book, "unclosed-fence")
    assert (f.path, f.line) == ("contents/two.qmd", 5)
    assert "never closed" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_unknown_reference(good_book, runner):
    edit(chapter(good_book), "hours (@tbl-one)", "hours (@tbl-none)")
    before, result, f = check_fails(runner, good_book, "unknown-ref")
    line = line_of(chapter(good_book), "@tbl-none")
    col = chapter(good_book).read_text().split("\n")[line - 1].index("@tbl-none") + 1
    assert (f.path, f.line, f.col) == ("contents/one.qmd", line, col)
    assert "@tbl-none" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_duplicate_label(good_book, runner):
    add_chapter(good_book, "# Two {#sec-two}\n\n## Again {#sec-one}\n\nText.\n")
    before, result, f = check_fails(runner, good_book, "duplicate-label")
    assert (f.path, f.line) == ("contents/two.qmd", 3)
    assert "sec-one" in f.reason and "contents/one.qmd:1" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_grid_table_with_an_inline_expression(good_book, runner):
    text = ("# Two {#sec-two}\n\n```{python}\nvalue = '42'\n```\n\n"
            "+-------+-------+\n| a     | b     |\n+=======+=======+\n"
            "| x     | `{python} value` |\n+-------+-------+\n")
    add_chapter(good_book, text)
    before, result, f = check_fails(runner, good_book, "grid-table-inline")
    assert (f.path, f.line, f.col) == ("contents/two.qmd", 10, 11)
    assert "grid table" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_non_utf8_bytes_in_a_chapter(good_book, runner):
    add_chapter(good_book, b"# Two {#sec-two}\n\nCaf\xe9 au lait.\n")
    before, result, f = check_fails(runner, good_book, "encoding")
    assert (f.path, f.line, f.col) == ("contents/two.qmd", 3, 4)
    assert "UTF-8" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_bad_cell_options(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: [oops\nx = 1\n```\n")
    before, result, f = check_fails(runner, good_book, "yaml")
    assert (f.path, f.line) == ("contents/two.qmd", 4)


def test_template_quarto_yml_is_what_we_think(good_book):
    """Guard for the tests above: the edits they make hit real lines."""
    assert quarto(good_book).read_text() == QUARTO_YML.format(
        chapters="    - index.qmd\n    - contents/one.qmd")


def source_tree(book) -> dict:
    """Every file of the book but the checker's state, with its bytes."""
    return {p.relative_to(book).as_posix(): p.read_bytes() for p in sorted(book.rglob("*"))
            if p.is_file() and p.relative_to(book).parts[0] not in ("_bookcheck", "_book")}


@pytest.mark.parametrize("output_dir, what", [
    (".", "is the project folder"), ("..", "holds the project folder"),
    ("contents", "holds the book's sources (contents/one.qmd)"),
    ("_bookcheck", "holds the checker's caches (_bookcheck/)"),
    ("_bookcheck/html", "is inside the checker's caches (_bookcheck/)"),
    ("contents/html", "is inside a source folder (contents/, which holds contents/one.qmd)")])
def test_an_output_dir_holding_the_sources_is_refused_and_nothing_is_deleted(
        good_book, runner, output_dir, what):
    """A render swaps its output folder in whole: `output-dir: .` once deleted the book."""
    edit(quarto(good_book), "project:\n  type: book", f"project:\n  type: book\n  output-dir: {output_dir}")
    sources = source_tree(good_book)
    for command in ("check", "html"):
        result = runner.cli(good_book, command)
        assert result.code == 1, result.output
        f = result.only("output-dir")
        assert (f.path, f.line) == ("_quarto.yml", line_of(quarto(good_book), "output-dir:"))
        assert what in f.reason and "`_book`" in f.reason
        assert source_tree(good_book) == sources
    edit(quarto(good_book), f"  output-dir: {output_dir}", "  output-dir: site")
    assert runner.cli(good_book, "html").code == 0
    assert (good_book / "site" / "index.html").is_file() and source_tree(good_book).keys() >= sources.keys()


def test_an_output_dir_under_build_publishes_and_the_checker_state_stays_out(good_book, runner):
    """`output-dir: _build/html` (the upstream book's): rendered there, and nothing of the
    checker's (bookcheck.store.BUILD) lies inside or above it."""
    from bookcheck import store
    edit(quarto(good_book), "project:\n  type: book", "project:\n  type: book\n  output-dir: _build/html")
    assert runner.cli(good_book, "html").code == 0
    assert (good_book / "_build" / "html" / "index.html").is_file()
    assert (good_book / store.BUILD / "cache").is_dir()
    assert sorted(p.name for p in (good_book / "_build").iterdir()) == ["html"]
