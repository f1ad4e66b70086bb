"""scripts.prose_numbers: literal numbers in prose are found at their line and column,
and the book has none."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.book import book_rules as br
from bookcheck.verify import prose_numbers
from bookcheck.verify.prose_numbers import ALLOWLIST, Finding, find_prose_numbers


def test_planted_percentage_is_reported_at_its_line_and_column():
    text = "# Title\n\nSome prose.\nThe run loses 12.5 % of its time.\n"
    assert find_prose_numbers(text, "x.qmd") == [Finding(4, 15, "12.5 %")]


def test_planted_number_in_the_real_book_is_found():
    rel = "contents/appendix-foundations.qmd"
    lines = br.read(rel).splitlines()
    # plant after the first prose paragraph of the chapter
    target = next(i for i, l in enumerate(lines) if l.startswith("One GPU"))
    lines.insert(target + 1, "Overhead is 12.5 % here.")
    found = find_prose_numbers("\n".join(lines) + "\n", rel)
    assert found == [Finding(target + 2, 13, "12.5 %")]


@pytest.mark.parametrize("rel", br.BOOK_FILES)
def test_the_book_has_no_literal_numbers_in_prose(rel):
    assert find_prose_numbers(br.read(rel), rel) == []


@pytest.mark.parametrize("text, expected", [
    ("A 30-day run.", ["30"]),
    ("About 12,500 GPUs and 16K more.", ["12,500", "16K"]),
    ("A 175B model.", ["175B"]),
    ("It failed 3 times (7%).", ["3", "7%"]),
    ("Ten thousand GPUs.", ["Ten thousand"]),
    ("on ten-thousand-GPU clusters", ["ten-thousand"]),
    ("a tenfold lower rate", ["a tenfold"]),
    ("one hundred thousand devices", ["one hundred thousand"]),
])
def test_literal_numbers_and_number_words_are_found(text, expected):
    assert [f.text for f in find_prose_numbers(text + "\n")] == expected


@pytest.mark.parametrize("text", [
    "The value is `{python} x_str` and `code 12`.",
    "Math $\\tau = 2M$ inline.",
    "$$ a = 12.5 $$ {#eq-x}",
    "See @sec-x and [@young1974; @daly2006, p. 3].",
    "An H100, BF16 weights, p99 latency, 3f faults.",
    "Published in 2024 (OSDI 2024), the 2nd edition.",
    "The Llama 3 report.",
    "As Table A.1 shows.",
    "two replicas, three nines, tens of thousands of parts.",
    "<!-- 12 hidden --> fine",
    "1. A numbered list item",
    "![img](fig-12.png)",
])
def test_excluded_spans_are_not_reported(text):
    assert find_prose_numbers(text + "\n") == []


def test_code_math_and_comments_are_excluded_but_what_readers_see_is_not():
    """Headings, a cell's caption option and a callout title are read (issue 22);
    the cell's code, display math and comments are not."""
    text = "\n".join([
        "---", "title: Book 2", "---",
        "## Section 12",
        "```{python}", "#| fig-cap: \"12 things\"", "x = 12", "```",
        "$$", "W = 12", "$$ {#eq-y}",
        "<!--", "12 commented", "-->",
        "::: {.callout-note title=\"Part 3\"}",
        "Prose with 7 here.",
        ":::",
    ]) + "\n"
    assert find_prose_numbers(text) == [Finding(4, 12, "12"), Finding(6, 14, "12"),
                                        Finding(15, 32, "3"), Finding(16, 12, "7")]


@pytest.mark.parametrize("text, found", [
    ("a 4x speedup", "4x"), ("within 100ms of it", "100ms"), ("a 5GB shard", "5GB"),
    ("about 10k GPUs", "10k"), ("at 2.5GB/s", "2.5GB/s"),
    ('![a](b.png){#fig-x fig-alt="12 bars"}', "12"),
])
def test_numbers_with_units_attached_and_alt_texts_are_reported(text, found):
    assert [f.text for f in find_prose_numbers(text + "\n")] == [found]


@pytest.mark.parametrize("text", ["H100 nodes", "BF16 weights", "p99 latency", "a 3f quorum"])
def test_names_with_digits_stay_names(text):
    assert find_prose_numbers(text + "\n") == []


def test_allowlist_is_short_and_explained():
    assert 1 <= len(ALLOWLIST) <= 8, (
        f"scripts/bookcheck/verify/prose_numbers.py::ALLOWLIST has {len(ALLOWLIST)} entries; it is a review "
        "gate kept at most 8: widen an existing pattern, or compute the number and show it inline")
    assert all(reason.strip() for _, reason in ALLOWLIST)


# Tokens that exercise every masking rule, glued with and without spaces, so that a
# mask can end right before a number word (`2024ten`, "@sec-xten", "`a`ten").
_TOKENS = ["ten", "Tenfold", "hundred", "a", "one", "often", "12", "2024", "3rd", "H100",
           "`x`", "`{python} v_str`", "$x$", "$$", "@sec-x", "[@k]", "{#eq-a}", "<b>",
           "](u)", "https://e.org/12", "Llama 3", "Table A.1", "1.", "<!--", "-->", "-",
           ",", ".", "%", "K", " ", " ", "\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30))
def test_skipping_lines_without_digits_or_number_words_changes_no_result(tokens):
    """The per-line prefilter is only a shortcut: with it forced to pass every line,
    the findings are the same (planting a prefilter that drops e.g. number words fails)."""
    text = "".join(tokens)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prose_numbers, "_candidate", lambda line: True)
        unfiltered = find_prose_numbers(text)
    assert find_prose_numbers(text) == unfiltered
