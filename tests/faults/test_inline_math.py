"""An inline value inside `$…$`/`$$…$$` that Quarto would insert escaped (a str:
`11,025` -> `11\\,025`, `0.50` -> `0\\.50`) breaks the formula: `make check` fails with an
`inline-math` finding at the expression's line and column, naming the way out that works
in Quarto 1.7.34 (`Markdown(...)`); a value Quarto inserts as it is, a `Markdown(...)`
value and a value outside the math are not findings."""
from __future__ import annotations

import pytest

from tests.faults.faultkit import edit, line_of

pytestmark = pytest.mark.slow

MATH = r"""
```{python}
from IPython.display import Markdown
big = "11,025"
half = "0.50"
count = 1024
word = "42"
```

Broken: $a = `{python} big`$ and

$$ b = `{python} half` \text{ ms} $$

Fine: $c = `{python} count`$, $d = `{python} word`$, $e = `{python} Markdown(big)`$,
outside $f =$ `{python} big` ms, prices \$5 `{python} half` \$6, code `$x` `{python} half` `$`.
"""


def test_an_escaped_value_inside_math_is_a_check_finding_at_its_column(good_book, runner):
    path = good_book / "contents" / "one.qmd"
    path.write_text(path.read_text() + MATH)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    found = [(f.path, f.line, f.col) for f in result.findings if f.kind == "inline-math"]
    assert found == [("contents/one.qmd", line_of(path, "Broken: $a"), 14),
                     ("contents/one.qmd", line_of(path, "$$ b ="), 8)], result.output
    reason = next(f.reason for f in result.findings if f.kind == "inline-math")
    assert "'11\\\\,025'" in reason and "Markdown(big)" in reason, reason
    edit(path, "`{python} big`$ and", "`{python} Markdown(big)`$ and")
    edit(path, "`{python} half` \\text", "`{python} Markdown(half)` \\text")
    result = runner.cli(good_book)
    assert "inline-math" not in result.kinds(), result.output
