"""What real Quarto 1.7.34 does with the defects the check reports (local-only): each
finding's message is true of Quarto, and the check names each defect at its line."""
from __future__ import annotations

import subprocess

from bookcheck.model import Kind
from bookcheck.read.qmd import parse_chapter
from bookcheck.verify.check import check_book
from bookcheck.verify.pandoc_lint import pandoc_findings
from tests.bookkit import make_book
from tests.quarto.quartokit import RENDER_TIMEOUT_S, quarto_environ, quarto_render

WRAPPED = """\
---
title: Wrapped
---

::: {#fig-x fig-cap="A $F_{i,j}$ plot"}

```{python}
#| label: fig-x
print(1)
```

:::

See @fig-x.
"""
NOTES = """\
---
title: Notes
---

Text[^a].

[^a]: Used.

[^b]: Never shown text.

![](nope.png)
"""
BAD_INLINE = "---\ntitle: Bad\n---\n\n```{python}\nx = 3\n```\n\nValue `{python} x +\n1` here.\n"


def test_silent_defects_render_and_the_check_names_them(tmp_path, quarto_exe):
    root = make_book(tmp_path, {"wrapped.qmd": WRAPPED, "notes.qmd": NOTES},
                     "project:\n  type: default\n")
    quarto_render(quarto_exe, root)
    wrapped = (root / "wrapped.html").read_text(encoding="utf-8")
    assert wrapped.count('id="fig-x"') == 2          # the div and the cell: one id, silently
    assert 'href="#fig-x" class="quarto-xref">Figure' in wrapped     # the label is defined
    notes = (root / "notes.html").read_text(encoding="utf-8")
    assert "Never shown" not in notes and '<img src="nope.png"' in notes
    parsed = parse_chapter("wrapped.qmd", WRAPPED)
    assert [(f.kind, f.line) for f in parsed.findings] == [(Kind.DUPLICATE_LABEL, 8)]
    assert parsed.labels == [("fig-x", 5)]
    found = pandoc_findings(root, parse_chapter("notes.qmd", NOTES))
    assert [(f.kind, f.line) for f in found] == [(Kind.PANDOC_WARNING, 9), (Kind.MISSING_IMAGE, 11)]


def test_an_inline_syntax_error_stops_the_whole_render(tmp_path, quarto_exe):
    root = make_book(tmp_path / "quarto", {"bad.qmd": BAD_INLINE}, "project:\n  type: default\n")
    done = subprocess.run([str(quarto_exe), "render", "--to", "html"], cwd=root,
                          env=quarto_environ(quarto_exe), capture_output=True, text=True,
                          timeout=RENDER_TIMEOUT_S)
    assert done.returncode != 0 and not (root / "bad.html").exists()
    assert "SyntaxError: invalid syntax (<string>, line 1)" in done.stdout + done.stderr
    book = make_book(tmp_path / "book", {"index.qmd": BAD_INLINE},
                     "book:\n  title: T\n  chapters:\n    - index.qmd\n")
    found = [f for f in check_book(book).findings if f.kind != Kind.LEDGER]
    assert [(f.kind, f.line, f.col) for f in found] == [(Kind.INLINE_ERROR, 9, 7)]
    assert "stops the whole render" in found[0].reason
