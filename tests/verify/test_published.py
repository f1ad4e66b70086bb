"""Ledger entries for what a reader sees of a cell, and the strict numbers.lock reader."""
from __future__ import annotations

from bookcheck.model import Output
from bookcheck.verify import lock_lint
from bookcheck.verify.published import cell_entries


def out(kind, data, name=""):
    output = Output(kind, data)
    output.name = name
    return output


def test_printed_lines_join_across_stream_chunks_and_stderr_is_kept_apart():
    """stdout lines join across chunks; stderr (a warning: Quarto's engine drops its first
    `<ipython-input-…>:N:` prefix, as the page shows it) is keyed on its own, so a new
    warning renumbers no printed line; the checker's truncation note is not a value."""
    outputs = [out("text", "Total: 4", "stdout"), out("text", "0 GPU-hours\nsecond line\n", "stdout"),
               out("text", "<ipython-input-3-0a1b2c3d4e5f>:2: UserWarning: a warning 123\n", "stderr"),
               out("text", "[output truncated]\n", "truncated")]
    assert cell_entries("c.qmd · cell 1", outputs) == {
        "c.qmd · cell 1 · line 1": "Total: 40 GPU-hours",
        "c.qmd · cell 1 · line 2": "second line",
        "c.qmd · cell 1 · stderr · line 1": "UserWarning: a warning 123"}


def test_a_text_repr_after_printed_output_starts_a_new_line():
    outputs = [out("text", "printed", "stdout"), out("text", "a    1.5\nb    2.5\ndtype: float64")]
    assert cell_entries("k", outputs) == {"k · line 1": "printed", "k · line 2": "a    1.5",
                                          "k · line 3": "b    2.5", "k · line 4": "dtype: float64"}


def test_tables_in_markdown_and_html_and_the_lines_around_them():
    md = "Intro 7 %\n\n| n | MTBF |\n|---|---|\n| 1 | 10 h |\n| 2 | 5 h |\n\nAfter 8 %"
    html = ("<table><thead><tr><th></th><th>x</th></tr></thead>"
            "<tbody><tr><th>a</th><td>1 | 2</td></tr></tbody></table>")
    assert cell_entries("k", [out("markdown", md), out("html", html)]) == {
        "k · 1 · MTBF": "10 h", "k · 1 · n": "1", "k · 2 · MTBF": "5 h", "k · 2 · n": "2",
        "k #2 · a · x": "1 | 2", "k #2 · a · col 1": "a",
        "k · line 1": "Intro 7 %", "k · line 2": "After 8 %"}


def test_images_are_not_numbers_and_a_shown_error_is():
    assert cell_entries("k", [out("image/png", "iVBOR"), out("error", "ValueError: 3")]) == \
        {"k · error · line 1": "ValueError: 3"}


GOOD = "# numbers.lock header\n# second\nc · a\t1\nc · b\t2\n"


def test_a_clean_lock_has_no_problems():
    assert lock_lint.problems(GOOD) == []
    assert lock_lint.problems(GOOD + "\n") == []


def test_conflict_markers_duplicates_and_garbage_are_located():
    text = ("# h\nc · a\t1\n<<<<<<< HEAD\nc · b\t2\n=======\nc · b\t3\n>>>>>>> theirs\n"
            "garbage\n\tempty key\n")
    found = lock_lint.problems(text)
    assert [line for line, _ in found] == [3, 5, 6, 7, 8, 9]
    reasons = dict(found)
    assert "conflict" in reasons[3] and "bookcheck numbers" in reasons[3]
    assert "twice (lines 4 and 6)" in reasons[6]
    assert "key<TAB>value" in reasons[8]
    assert "empty key" in reasons[9]
