"""Executing a fixture book in real kernels: every runtime finding kind, located.

One book is checked once (module scope, 2 chapters at a time). It holds a
chapter that passes (and exercises the cell options), one per failure kind, a
chapter that kills its kernel and one that never ends (3 s timeout): the passing
chapter listed last is still checked. The chapter that prints 100 MB has a book
of its own at the default timeout, so a loaded machine cannot turn it into a
timeout.
"""
from __future__ import annotations

import os
import uuid

import pytest

from bookcheck.model import Kind
from tests.bookkit import LOCAL_CHECK, col_of, findings_of, line_of, write_book
from tests.processes import child_pids, processes_with
from bookcheck.run import execute
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.slow

OK = '''
---
title: OK
---

# OK {#sec-ok}

```{python}
#| label: setup
from IPython.display import Markdown
%s
value = 6 * 7
check(value == 42, "value")
check(value > 0, "positive")
```

The value is `{python} value`, a string `{python} "plain words"`, markdown `{python} Markdown("*m*")`.

```{python}
#| eval: false
raise SystemExit("never run")
```

```{python}
#| include: false
print("hidden")
```

```{python}
#| output: false
print("hidden too")
```

```{python}
#| output: asis
print("**raw**")
```

```{python}
#| error: true
raise ValueError("shown, not fatal")
```

```{python}
#| label: tbl-ok
Markdown("| a | b |\\n|---|---|\\n| 1 | 2 |")
```

After all cells: `{python} value + 1`.
''' % LOCAL_CHECK

INVARIANT = '''
# Invariant

```{python}
#| label: inv-cell
%s
x = 1
check(x == 1, "fine")
check(x == 2, "x should be two")
```

```{python}
print("must be skipped")
```

Later: `{python} x`.
''' % LOCAL_CHECK

MLSYS_INVARIANT = '''
# Invariant through mlsys

```{python}
from mlsys.formatting import check
check(1 + 1 == 3, "arithmetic is broken")
```
'''

CELL_ERROR = '''
# Error

```{python}
#| label: boom

def helper(d):
    return d["missing"]

values = {}
helper(values)
```
'''

SYNTAX = '''
# Syntax

```{python}

x = 1
y = (x +
     2 +)
```
'''

INLINE = '''
# Inline

```{python}
import math
nothing = None
%s
```

Error: `{python} undefined_name` here. Claim: `{python} check(False, "inline claim")`.
Empty: `{python} nothing`, `{python} float("nan")`, `{python} math.inf`, `{python} ""`, fine `{python} 3`.
''' % LOCAL_CHECK

DIED = '''
# Died

```{python}
import os
os._exit(1)
```

```{python}
print("never")
```
'''

LOOP = '''
# Loop

```{python}
#| label: forever
while True:
    pass
```
'''

BIG = '''
# Big output

```{python}
print("x" * 100_000_000)
for i in range(100_000):
    print(i)
```

```{python}
done = True
```
'''

CHAPTERS = {"invariant.qmd": INVARIANT, "mlsys-inv.qmd": MLSYS_INVARIANT,
            "error.qmd": CELL_ERROR, "syntax.qmd": SYNTAX, "inline.qmd": INLINE,
            "died.qmd": DIED, "loop.qmd": LOOP, "ok.qmd": OK}


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = write_book(tmp_path_factory.mktemp("faults"), CHAPTERS, extra="execute:\n  timeout: 3\n")
    marker = f"CHECKER_TEST_{uuid.uuid4().hex}"      # inherited by every kernel we start
    os.environ[marker] = "1"
    try:
        before = child_pids()
        result = check_book(root, force=True, jobs=2)
        leftover = (child_pids() - before) | set(processes_with(marker))
    finally:
        del os.environ[marker]
    return root, result, leftover


def test_passing_chapter_has_no_finding_and_honours_options(book):
    root, result, _ = book
    assert findings_of(result, "ok.qmd") == []
    run, parsed = result.runs["ok.qmd"], result.parsed["ok.qmd"]
    assert run.invariants == 2
    assert [(i.kind, i.text) for i in run.inlines] == [
        ("text", "42"), ("text", "plain words"), ("markdown", "*m*"), ("text", "43")]
    # What Quarto puts in the page (a str is escaped: bookcheck.run.inline_values).
    assert [i.markdown for i in run.inlines] == ["42", "plain words", "*m*", "43"]
    cells = {c.index: run.cells[c.index] for c in parsed.cells}
    assert cells[1].outputs == []                                   # eval: false
    assert cells[2].outputs == []                                   # include: false
    assert cells[3].outputs == []                                   # output: false
    assert [(o.kind, o.data) for o in cells[4].outputs] == [("markdown", "**raw**\n")]
    assert cells[5].raised and cells[5].outputs[-1].kind == "error"
    assert "ValueError: shown, not fatal" in cells[5].outputs[-1].data
    assert [o.kind for o in cells[6].outputs] == ["markdown"]        # tbl-ok


def test_broken_invariant_points_at_the_check_call(book):
    root, result, _ = book
    (f,) = findings_of(result, "invariant.qmd")
    assert f.kind == Kind.INVARIANT
    assert f.line == line_of(root, "invariant.qmd", 'check(x == 2')
    assert f.reason == "x should be two"
    assert f.label == "inv-cell"
    run = result.runs["invariant.qmd"]
    assert run.cells[1].outputs == [] and run.inlines == []     # rest of chapter skipped


def test_mlsys_invariant_error_is_recognised(book):
    root, result, _ = book
    (f,) = findings_of(result, "mlsys-inv.qmd")
    assert (f.kind, f.reason) == (Kind.INVARIANT, "arithmetic is broken")
    assert f.line == line_of(root, "mlsys-inv.qmd", "check(1 + 1 == 3")


def test_cell_error_maps_the_traceback_to_the_qmd_line(book):
    root, result, _ = book
    (f,) = findings_of(result, "error.qmd")
    assert f.kind == Kind.CELL_ERROR
    assert f.reason == "KeyError: 'missing'"
    assert f.line == line_of(root, "error.qmd", 'return d["missing"]')
    assert f.label == "boom"
    assert f"error.qmd:{line_of(root, 'error.qmd', 'helper(values)')}" in f.detail


def test_syntax_error_line_despite_leading_blank_line(book):
    root, result, _ = book
    (f,) = findings_of(result, "syntax.qmd")
    assert f.kind == Kind.CELL_ERROR and f.reason.startswith("SyntaxError")
    assert f.line == line_of(root, "syntax.qmd", "2 +)")


def test_inline_error_and_empty_values(book):
    root, result, _ = book
    found = findings_of(result, "inline.qmd")
    errors = [f for f in found if f.kind == Kind.INLINE_ERROR]
    assert [(f.line, f.col) for f in errors] == [
        (line_of(root, "inline.qmd", "undefined_name"), col_of(root, "inline.qmd", "`{python} undefined"))]
    assert errors[0].reason == ("NameError: name 'undefined_name' is not defined (Quarto stops "
                                "the whole render at this error and writes no page)")
    assert "undefined_name" in errors[0].detail
    empty = [f for f in found if f.kind == Kind.INLINE_EMPTY]
    line = line_of(root, "inline.qmd", "Empty:")
    text = (root / "inline.qmd").read_text().split("\n")[line - 1]
    starts = [text.index(s) + 1 for s in ("`{python} nothing", '`{python} float', "`{python} math.inf",
                                          '`{python} ""')]
    assert [(f.line, f.col) for f in empty] == [(line, c) for c in starts]
    (claim,) = [f for f in found if f.kind == Kind.INVARIANT]
    assert (claim.reason, claim.line, claim.col) == (
        "inline claim", errors[0].line, col_of(root, "inline.qmd", "`{python} check("))
    assert len(found) == 6


def test_kernel_death_and_timeout_are_reported_and_others_still_run(book):
    root, result, _ = book
    (died,) = findings_of(result, "died.qmd")
    assert (died.kind, died.line) == (Kind.KERNEL_DIED, line_of(root, "died.qmd", "```{python}"))
    (loop,) = findings_of(result, "loop.qmd")
    assert (loop.kind, loop.line, loop.label) == (Kind.TIMEOUT, line_of(root, "loop.qmd", "```{python}"),
                                                  "forever")
    assert "3 s" in loop.reason
    assert result.runs["ok.qmd"].inlines        # the chapter after them was still checked


@pytest.mark.kernel
def test_huge_output_is_capped(tmp_path):
    # its own book, at the default timeout: capping, not speed, is under test
    root = write_book(tmp_path / "big", {"big.qmd": BIG})
    result = check_book(root)
    # the cut output is named, once, at its cell's fence (the page shows it cut): nothing else
    (cut,) = findings_of(result, "big.qmd")
    assert (cut.kind, cut.line) == (Kind.OUTPUT_CUT, line_of(root, "big.qmd", "```{python}"))
    outputs = result.runs["big.qmd"].cells[0].outputs
    total = sum(len(o.data) for o in outputs)
    assert total <= 2 * execute.OUTPUT_CAP_CHARS + 1000
    assert "output truncated" in "".join(o.data for o in outputs)


def test_no_kernel_left_behind(book):
    _, _, leftover = book
    assert leftover == set()
    assert execute.LIVE_KERNEL_PIDS == set()


def test_a_display_offering_html_or_javascript_is_marked_scripted():
    """Quarto's engine loads its widget scripts when any display offered text/html or
    application/javascript, whichever representation is shown (scripts/bookcheck/render/freeze.py)."""
    from bookcheck.model import CodeCell
    cell = CodeCell(index=0, fence_line=1, first_code_line=2, end_line=3, source="x")
    raw = [{"output_type": "execute_result",
            "data": {"text/html": "<table/>", "text/markdown": "| a |", "text/plain": "a"}},
           {"output_type": "display_data", "data": {"application/javascript": "1", "text/plain": "j"}},
           {"output_type": "display_data", "data": {"image/png": "iVBO", "text/plain": "<Figure>"}},
           {"output_type": "stream", "name": "stdout", "text": "<b>printed</b>"}]
    shown = execute._outputs(cell, raw)
    assert [(o.kind, o.scripted) for o in shown] == [
        ("markdown", True), ("text", True), ("image/png", False), ("text", False)]
