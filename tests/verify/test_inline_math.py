"""Math in a chapter's source as pandoc finds it (bookcheck.verify.inline_math.math_spans):
the spans an inline value may stand in. Pure: no kernel."""
from __future__ import annotations

import pytest

from bookcheck.read.qmd import parse_chapter
from bookcheck.verify.inline_math import formula_of, math_spans


def formulas(text: str) -> list[str]:
    parsed = parse_chapter("m.qmd", text)
    return [parsed.text[m.start:m.end] for m in math_spans(parsed)]


@pytest.mark.parametrize("text, found", [
    ("a $x = `{python} v`$ b", ["$x = `{python} v`$"]),
    ("$$\nT = `{python} v`\n$$ {#eq-t}", ["$$\nT = `{python} v`\n$$"]),
    ("costs $20,000 and $30,000 now", []),                  # no closing `$` before a space
    ("$ x$ and $x $ and $5$7", []),                          # space inside, digit after
    (r"prices \$5 and \$6", []),                             # escaped dollars
    ("code `$x` and `$y`", []),                              # in code spans
    ("```bash\necho $HOME\n```\n\nand $PATH too", []),       # in a code block, then one `$`
    ("<!-- $x$ -->", []),
    ("$a\n\nb$", []),                                        # no blank line inside
    ("$$a\n\nb$$", []),
    (r"$\text{a $b$ c}$ ok", [r"$\text{a $b$ c}$"]),
    ("$a$ and $b$", ["$a$", "$b$"]),
    ("$5 `{python} v` $6", []),
    (r"\index{C$^3$ x} and $y$", ["$y$"]),                # raw LaTeX: no math inside
])
def test_pandocs_dollar_rules(text, found):
    assert formulas(text) == found


def test_a_shown_formula_is_found_at_its_line_whatever_its_value_and_spacing():
    parsed = parse_chapter("m.qmd", "$T_{\\text{s}}$\n\nSee\n$$ T = `{python} v`  \\text{ ms} $$\n")
    assert formula_of(parsed, "\\[ T = 4\\,044 \\text{ ms} \\tag{1.1}\\]") == (4, True)
    assert formula_of(parsed, "$T_{\\text{s}}$") == (1, False)
    assert formula_of(parsed, "$U$") == (0, False)
