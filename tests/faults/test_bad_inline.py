"""Inline expressions that fail or publish nothing: reported at line:col, nothing written."""
from __future__ import annotations

import pytest

from tests.faults.faultkit import assert_consistent_after_failure, disk_state, edit, line_of

pytestmark = pytest.mark.slow

SENTENCE = "Sixteen nodes fail every `{python} cluster_str` hours"


def inject(book, expr: str) -> tuple[int, int]:
    """Put `{python} expr` in place of the chapter's inline value; return its (line, col)."""
    path = book / "contents" / "one.qmd"
    edit(path, "`{python} cluster_str`", f"`{{python}} {expr}`")
    line = line_of(path, f"`{{python}} {expr}`")
    col = path.read_text().split("\n")[line - 1].index("`{python}") + 1
    return line, col


def test_error_in_an_inline_expression(good_book, runner):
    line, col = inject(good_book, "cluster_str.upper(1)")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    f = result.only("inline-error")
    assert (f.path, f.line, f.col) == ("contents/one.qmd", line, col)
    assert f.reason.startswith("TypeError"), f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_unknown_name_in_an_inline_expression(good_book, runner):
    line, col = inject(good_book, "no_such_name")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    f = result.only("inline-error")
    assert (f.line, f.col) == (line, col)
    assert f.reason == ("NameError: name 'no_such_name' is not defined "
                        "(Quarto stops the whole render at this error and writes no page)")
    assert_consistent_after_failure(runner, good_book, before, result)


EMPTY = ["None", "float('nan')", "float('inf')", "-float('inf')", "''", "'   '",
         "cluster * float('nan')"]


def test_inline_expressions_yielding_nothing_printable(good_book, runner):
    """None, NaN, ±inf, "" and blanks: one located finding each, in one run."""
    path = good_book / "contents" / "one.qmd"
    path.write_text(path.read_text() + "\n" + "\n\n".join(
        f"Value {n}: `{{python}} {expr}`." for n, expr in enumerate(EMPTY)) + "\n")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    found = [f for f in result.findings if f.kind == "inline-empty"]
    assert len(found) == len(EMPTY), result.output
    for n, (expr, f) in enumerate(zip(EMPTY, found)):
        assert (f.path, f.line, f.col) == ("contents/one.qmd", line_of(path, f"Value {n}:"), 10)
        assert "nothing printable" in f.reason
    assert result.kinds() == {"inline-empty"}
    assert_consistent_after_failure(runner, good_book, before, result)


TEXTS = ["None of the 8 nodes failed", "NaN-boxing packs values into doubles",
         "inf. stands for infinitive", "Infinity is not a number of nodes"]


@pytest.mark.parametrize("text", TEXTS)
def test_text_that_mentions_none_or_nan_is_not_empty(good_book, runner, text):
    """Only None, NaN, ±inf and blank strings are empty, never words in a sentence."""
    inject(good_book, repr(text))
    accepted = runner.cli(good_book, "numbers")
    assert accepted.code == 0, accepted.output
    assert "inline-empty" not in accepted.stdout
    assert f"contents/one.qmd · {text!r}\t{text}" in (good_book / "numbers.lock").read_text()
    assert runner.cli(good_book).code == 0


def two_inlines(book, second: str) -> tuple[int, int]:
    """A chapter paragraph with two inline expressions and no cell between them;
    returns the (line, col) of the second, `second`."""
    path = book / "contents" / "one.qmd"
    text = path.read_text() + (f"\nFirst `{{python}} cluster_str`, then "
                               f"`{{python}} {second}` in one paragraph.\n")
    path.write_text(text)
    line = line_of(path, f"`{{python}} {second}`")
    col = text.split("\n")[line - 1].index(f"`{{python}} {second}`") + 1
    return line, col


@pytest.mark.parametrize("second, kind, words", [
    ("__import__('os')._exit(3)", "kernel-died", "died"),
    ("__import__('time').sleep(60)", "timeout", "3 s"),
    ("__import__('sys').exit(2)", "inline-error", "SystemExit"),
])
def test_failure_in_the_second_inline_expression_is_blamed_on_it(good_book, runner, second,
                                                                  kind, words):
    line, col = two_inlines(good_book, second)
    before = disk_state(good_book)
    result = runner.cli(good_book, "check", "--timeout", "3", timeout=120)
    assert result.code == 1, result.output
    f = result.only(kind)
    assert (f.path, f.line, f.col) == ("contents/one.qmd", line, col), result.output
    assert words in f.reason, f.reason
    assert "{" not in f.reason and "status" not in f.reason, f.reason     # no raw reply dict
    assert len(f.reason) < 200, f.reason
    assert_consistent_after_failure(runner, good_book, before, result, extra=("--timeout", "3"))


def test_a_bad_inline_expression_is_one_finding_with_what_quarto_does(good_book, runner):
    """Quarto 1.7.34 aborts the whole render at an inline SyntaxError (`x +` then a line
    break): one inline-error, no inline-syntax; a valid expression with two spaces is
    evaluated and left as code (inline-syntax); fixed, the cached run is not served."""
    path = good_book / "contents" / "one.qmd"
    line, col = inject(good_book, "cluster_str +")
    edit(path, "`{python} cluster_str +`", "`{python} cluster_str +\n1`")
    result = runner.cli(good_book)
    f = result.only("inline-error")
    assert (f.line, f.col) == (line, col) and f.reason.startswith("SyntaxError"), result.output
    assert "stops the whole render" in f.reason and result.kinds() == {"inline-error"}
    edit(path, "`{python} cluster_str +\n1`", "`{python}  cluster_str`")
    f = runner.cli(good_book).only("inline-syntax")
    assert (f.line, f.col) == (line, col) and "more than one space" in f.reason
    edit(path, "`{python}  cluster_str`", "`{python} cluster_str`")
    assert runner.cli(good_book).code == 0
