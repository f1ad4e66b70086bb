"""One meaning per symbol: the notation table against the chapters' math (rule in tests/book/notation.py)."""
from __future__ import annotations

import pytest

from tests.book import notation as nt
from tests.book.book_rules import BOOK_FILES, read

FOUNDATIONS = "contents/appendix-foundations.qmd"


def book():
    return {rel: read(rel) for rel in BOOK_FILES}


def test_the_book_keeps_one_meaning_per_symbol():
    chapters = book()
    assert nt.problems(nt.notation_rows(chapters[FOUNDATIONS]), chapters) == []


def test_the_table_is_read_from_the_notation_cell():
    rows = nt.notation_rows(read(FOUNDATIONS))
    forms = nt.table_forms(rows)
    assert "\\tau_\\mathrm{opt}" in forms and "M_\\mathrm{node}" in forms
    assert len(forms["k"]) == 1 and len(forms["R"]) == 1


ROWS = [("$A$, $r$", "Availability of one replica, and the number of replicas", "", ""),
        ("$M$, $M_\\mathrm{node}$", "Mean time between failures", "", ""),
        ("$S$", "Survival function", "", ""),
        ("$i$", "An index", "", "")]


def test_a_letter_in_two_rows_is_a_problem():
    rows = ROWS + [("$c$, $r$", "Successes in r trials", "", "")]
    assert any("r appears in 2 rows" in p for p in nt.problems(rows, {}))


def test_a_meaning_that_depends_on_the_equation_is_a_problem():
    rows = ROWS + [("$R$", "Restart time (in @eq-rf-exact, everything before compute)", "", "")]
    assert any("depends on where it is used" in p for p in nt.problems(rows, {}))


@pytest.mark.parametrize("math, message", [
    ("$$ B = b \\cdot N $$", "b is not in the notation table"),
    ("with $S_\\mathrm{ckpt}$ bytes", "S_\\mathrm{ckpt} is a form of S that its row does not list"),
    ("for $M_\\mathrm{job}$", "M_\\mathrm{job} is a form of M"),
    ("the $j$-th", "j is not in the notation table"),
    ("$\\tau$", "\\tau is not in the notation table"),
])
def test_math_outside_the_table_is_a_problem_at_its_line(math, message):
    found = nt.problems(ROWS, {"x.qmd": "# T\n\ntext\n" + math + "\n"})
    assert any(p.startswith("x.qmd:4:") and message in p for p in found), found


@pytest.mark.parametrize("math", [
    "$A_\\mathrm{sys} = 1 - (1 - A)^r$ is wrong",    # A_sys is not listed: caught
])
def test_an_unlisted_qualified_form_is_caught(math):
    assert nt.problems(ROWS, {"x.qmd": math})


@pytest.mark.parametrize("math", [
    "$$ \\frac{1}{M_\\mathrm{node}} = \\sum_i \\frac{1}{\\mathrm{MTTF}_i} $$",   # index, a name
    "$S_1, \\dots, S_{i-1}$ and $e^{M}$",                                   # indices, Euler's e
    "```{python}\nx = '$Q$'\n```\n`{python} q_str` and $M$",                # code is not math
    "costs \\$5 and \\$6",                                                    # escaped dollars
])
def test_indices_names_and_code_are_not_problems(math):
    assert nt.problems(ROWS, {"x.qmd": math}) == []
