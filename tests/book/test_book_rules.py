"""The rules in book_rules.py catch what they are meant to catch (they can fail)."""
from __future__ import annotations

from bookcheck.read.qmd import parse_chapter

from tests.book import book_rules as br

BAD_CHAPTER = '''# Bad {#sec-bad}

```{python}
#| label: bad-setup
import numpy as np
from mlsys import fmt
x = 1
```

+------+------+
| a    | b    |
+======+======+
| `{python} rows[0]["x"]` | 2 |
+------+------+

The value is `{python} f"{x:.1f}"` and `{python} total` and 42.5 units, or 12 %.

```{python}
#| label: tbl-other-thing
rows = [{"x": 1}]
value = rows[0]["x"]
```

```{python}
#| label: fig-bad-plot
#| fig-cap: "A figure without alt text"
pass
```

::: {.callout-perspective title="Not a Quarto callout"}
:::

$$ x = 1 $$ {#eq-wrong}
'''


def bad():
    return parse_chapter("contents/bad.qmd", BAD_CHAPTER)


def test_grid_tables_are_found():
    assert br.grid_table_lines(BAD_CHAPTER) == [10, 12, 14]
    pipe = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert br.grid_table_lines(pipe) == []


def test_grid_borders_inside_code_are_ignored():
    text = "```python\n+---+---+\n| a | b |\n+---+---+\n```\n"
    assert br.grid_table_lines(text) == []


def test_foreign_imports_are_found():
    assert br.disallowed_imports("import numpy as np\nfrom mlsys import fmt\nimport math") == ["numpy"]
    assert br.disallowed_imports("from pandas import DataFrame") == ["pandas"]
    assert br.disallowed_imports("from mlsys.plotting import show") == []


def test_setup_cell_must_be_imports_only():
    assert not br.only_imports(bad().cells[0].source)
    assert br.only_imports("#| label: x-setup\nfrom mlsys import fmt\nimport math\n")


def test_inline_values_must_be_str_names():
    problems = br.inline_problems(bad())
    assert len(problems) == 3          # rows[0]["x"], an f-string, and a name without _str
    assert any("total" in p for p in problems)


def test_rows_indexed_by_hand_are_found():
    assert br.hand_indexed_rows('value = rows[0]["x"]') != []
    assert br.hand_indexed_rows("value = {row['x'] for row in rows}") == []


def test_typed_quantities_are_found():
    found = br.typed_quantities("contents/bad.qmd", BAD_CHAPTER)
    assert any(f.endswith("42.5") for f in found)
    assert any(f.endswith("12%") for f in found)
    assert br.typed_quantities("x.qmd", "Inline `{python} a_str` and $p = 0.5$ are fine.\n") == []


def test_label_prefixes_are_enforced():
    problems = br.label_prefix_problems(bad(), "bad")
    assert any("tbl-other-thing" in p for p in problems)
    assert any("eq-wrong" in p for p in problems)
    assert not any("sec-bad" in p for p in problems)


def test_missing_captions_and_alt_text_are_found():
    problems = br.caption_problems(bad())
    assert any("tbl-other-thing lacks tbl-cap" in p for p in problems)
    assert any("fig-bad-plot lacks fig-alt" in p for p in problems)
    assert not any("fig-bad-plot lacks fig-cap" in p for p in problems)


def test_unknown_callout_kinds_are_found():
    line = next(i for i, l in enumerate(BAD_CHAPTER.splitlines(), 1) if "callout-perspective" in l)
    assert br.callout_problems(BAD_CHAPTER) == [f"line {line}: callout-perspective"]
    assert br.callout_problems('::: {.callout-tip title="ok"}\n:::\n') == []


def test_check_messages_are_collected():
    chapter = parse_chapter("c.qmd", '```{python}\n#| label: c\ncheck(1 < 2, "one is less")\n'
                                     'check(True, f"not a literal {1}")\n```\n')
    assert br.check_messages(chapter) == ["one is less"]


def test_bib_keys_are_read():
    bib = "@article{young1974,\n  title={x}\n}\n\n@misc{ metr2026 ,\n}\n"
    assert br.bib_keys(bib) == ["young1974", "metr2026"]


def test_unused_imports_are_found():
    chapter = parse_chapter("u.qmd", "```{python}\n#| label: u-setup\nfrom mlsys import fmt, check\n```\n\n"
                                     "```{python}\n#| label: u\nx_str = fmt(1.0)\n```\n")
    assert br.unused_imports(chapter) == ["check"]
