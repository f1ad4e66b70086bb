"""Issue 34 §3: let no unchecked digit through.

Each case on a small book (one chapter, `verify: literal-numbers` on): a digit the
reader sees that nobody computed fails `check` (a `literal-number` at its line) or the
render's audit (HTML and PDF), and what a computed value shows is recorded in
`numbers.lock`. Checks run in this process (check_book), renders with the built-in
renderer (render_book).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.faults.faultkit import QUARTO_YML, copy_of, line_of, write_book

from bookcheck.model import Kind
from bookcheck.render import AuditError, render_book
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.slow

QUARTO = QUARTO_YML.format(chapters="    - contents/one.qmd") + """\
verify:
  literal-numbers: true
"""

CHAPTER = """\
# One {#sec-one}

```{python}
nodes = 16
nodes_str = f"{nodes}"
```

A cluster of `{python} nodes_str` nodes.
EXTRA
"""
CHAPTER_PATH = "contents/one.qmd"


def book(root: Path, extra: str = "", quarto: str = QUARTO) -> Path:
    return write_book(root, {CHAPTER_PATH: CHAPTER.replace("EXTRA", extra)}, quarto=quarto)


def located(result) -> list[tuple[str, int, str]]:
    """The findings but the ledger's (a new cell publishes new numbers)."""
    return [(f.path, f.line, f.kind) for f in result.findings if f.kind != Kind.LEDGER]


def typed(result) -> list[tuple[int, str]]:
    """(line, the number's text) of each literal-number finding."""
    return [(f.line, f.reason.split("'")[1]) for f in result.findings
            if f.kind == Kind.LITERAL_NUMBER]


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The book checked (numbers.lock written) and rendered to HTML and PDF once."""
    root = book(tmp_path_factory.mktemp("clean") / "book")
    result = check_book(root, update_ledger=True)
    assert result.ok, located(result)
    render_book(result, "html", use_quarto=False)
    render_book(result, "pdf", use_quarto=False)
    return root



# ------------------------------------------------------------ 1. an ordered list's start

LIST = "\nSpares:\n\n9999. one in the rack\n10000. one in the store\n"


def test_an_ordered_list_starting_at_a_typed_number_is_a_literal_number(clean, tmp_path):
    root = copy_of(clean, tmp_path)
    book(root, LIST)
    result = check_book(root)
    line = line_of(root / CHAPTER_PATH, "9999.")
    assert typed(result) == [(line, "9999")]           # the later marker is the renderer's
    assert "start the list at 1" in result.findings[0].reason
    book(root, LIST.replace("9999.", "1.").replace("10000.", "2."))
    assert check_book(root, update_ledger=True).ok


@pytest.mark.parametrize("fmt", ["html", "pdf"])
def test_an_ordered_list_start_shown_on_the_page_is_audited(clean, tmp_path, fmt):
    """The page shows the list's first number (HTML: `<ol start>`, a CSS counter, no
    element text; PDF: the text layer) though no source check reads a raw block."""
    root = copy_of(clean, tmp_path)
    raw = ('```{=html}\n<ol start="9999"><li>one in the rack</li></ol>\n```\n' if fmt == "html"
           else '```{=typst}\n#enum(start: 9999, [one in the rack])\n```\n')
    book(root, "\n" + raw)
    result = check_book(root)
    assert result.ok, located(result)
    with pytest.raises(AuditError) as caught:
        render_book(result, fmt, use_quarto=False)
    assert [(f.path, f.line, f.kind) for f in caught.value.findings] == \
        [(CHAPTER_PATH, line_of(root / CHAPTER_PATH, "9999"), Kind.UNACCOUNTED_NUMBER)]
    assert "'9999'" in caught.value.findings[0].reason


def test_a_list_a_cell_prints_is_accounted_for_in_both_audits(clean, tmp_path):
    """A cell's Markdown list: the ledger records its lines; the numbers the renderer
    makes (1, 2, then 8 after 7) are not expected on the page, the start 7 is."""
    root = copy_of(clean, tmp_path)
    book(root, '\n```{python}\n#| output: asis\nprint("1. a\\n2. b\\n\\nThen:\\n\\n7. c\\n8. d")\n```\n')
    result = check_book(root, update_ledger=True)
    assert result.ok, located(result)
    render_book(result, "html", use_quarto=False)
    render_book(result, "pdf", use_quarto=False)


# ------------------------------------------------------------ 2. a year only in context

@pytest.mark.parametrize("sentence, counts", [
    ("We trained on 2048 GPUs for 2000 hours with 2048 tokens.", ["2048", "2000", "2048"]),
    ("Of 2048 GPUs, some ran in 2048 shards, from 2000 hours down.", ["2048", "2048", "2000"]),
    ("NVIDIA 2048 GPUs.", ["2048"]),
    ("It was built in 2024 (OSDI 2024) and since 2019, on May 3, 2024, in the 1990s, "
     "by Young et al. 2012 (1922–2015), between 2012 and 2024.", []),
])
def test_a_number_from_1900_to_2099_is_a_year_only_where_the_text_says_so(clean, tmp_path,
                                                                          sentence, counts):
    root = copy_of(clean, tmp_path)
    book(root, "\n" + sentence + "\n")
    result = check_book(root, update_ledger=not counts)
    line = line_of(root / CHAPTER_PATH, sentence[:12])
    assert typed(result) == [(line, n) for n in counts]
    assert result.ok == (not counts)


def test_a_count_in_the_year_range_on_the_page_is_audited(clean, tmp_path):
    """A raw block writes "2048 GPUs": the HTML audit takes it for a count, not a year."""
    root = copy_of(clean, tmp_path)
    book(root, "\n```{=html}\n<p>Planted: 2048 GPUs in 2024.</p>\n```\n")
    result = check_book(root)
    assert result.ok, located(result)
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    assert [(f.kind, f.reason.split("'")[1]) for f in caught.value.findings] == \
        [(Kind.UNACCOUNTED_NUMBER, "2048")]


# --------------------------------------------- 3. captions over several `#|` lines

FIGURE = """
```{python}
#| label: fig-line
#| fig-cap: |
#|   A falling line
#|   over 12 steps.
#| fig-alt: >-
#|   A line drawn
#|   3 times.
#| fig-subcap:
#|   - "First 5"
#|   - "Second"
import matplotlib.pyplot as plt
plt.figure(figsize=(2, 1.5))
plt.plot([1, 0])
plt.show()
```

See @fig-line.
"""


def test_a_number_in_a_caption_written_over_several_lines_is_a_literal_number(clean, tmp_path):
    root = copy_of(clean, tmp_path)
    book(root, FIGURE)
    result = check_book(root)
    path = root / CHAPTER_PATH
    assert typed(result) == [(line_of(path, "over 12 steps"), "12"),
                             (line_of(path, "3 times"), "3"),
                             (line_of(path, "First 5"), "5")]
    reasons = [f.reason for f in result.findings if f.kind == Kind.LITERAL_NUMBER]
    assert "::: {#fig-x}" in reasons[0] and "in words" in reasons[1], reasons


def test_an_inline_value_in_a_caption_over_several_lines_is_a_finding(clean, tmp_path):
    root = copy_of(clean, tmp_path)
    book(root, FIGURE.replace("over 12 steps", "for `{python} nodes_str` nodes")
                     .replace("3 times", "once").replace("First 5", "First"))
    result = check_book(root)
    assert located(result) == [(CHAPTER_PATH, line_of(root / CHAPTER_PATH, "#|   for `{python}"),
                                Kind.CAPTION_INLINE)]


# ----------------------------------------------- 5. a suffix glued to an inline value

def test_a_suffix_glued_to_an_inline_value_is_a_finding(clean, tmp_path):
    """"`{python} nodes_str`k" reads "16k" where the ledger records "16"."""
    root = copy_of(clean, tmp_path)
    book(root, "\nAbout `{python} nodes_str`k spares and `{python} nodes_str`% of them.\n")
    result = check_book(root)
    line = line_of(root / CHAPTER_PATH, "About")
    assert typed(result) == [(line, "`{python} nodes_str`k"), (line, "`{python} nodes_str`%")]
    assert "put it in the value's text" in result.findings[0].reason
    book(root, "\nAbout `{python} nodes_str` spares.\n")
    assert check_book(root, update_ledger=True).ok


# -------------------------------------------- 4. warnings, stderr and errors shown

NOISY = """
```{python}
import sys
import warnings
warnings.warn("only 42 spares left")
print("77 disks degraded", file=sys.stderr)
```

```{python}
#| error: true
raise ValueError("55 nodes missing")
```
"""


def test_shown_warnings_stderr_and_errors_are_in_the_ledger_and_the_same_every_run(clean,
                                                                                tmp_path):
    """What a reader sees of a warning (without ipykernel's temporary file name, whose
    folder holds the kernel's pid), of stderr and of an `error: true` cell is recorded,
    the same on a fresh run; both audits account for it; a change is a ledger change."""
    root = copy_of(clean, tmp_path)
    book(root, NOISY)
    result = check_book(root, update_ledger=True)
    assert result.ok, located(result)
    lock = (root / "numbers.lock").read_text(encoding="utf-8")
    for shown in ("stderr · line 1\tUserWarning: only 42 spares left",
                  "stderr · line 3\t77 disks degraded",
                  "error · line 1\tValueError: 55 nodes missing"):
        assert shown in lock, lock
    assert "ipykernel" not in lock
    again = check_book(root, force=True)            # a fresh kernel, another pid
    assert again.ok, [f.reason for f in again.findings]
    render_book(again, "html", use_quarto=False)
    render_book(again, "pdf", use_quarto=False)
    book(root, NOISY.replace("only 42", "only 43"))
    changed = check_book(root)
    assert {f.kind for f in changed.findings} == {Kind.LEDGER}    # the warning, its source line
    assert any("only 42 spares left → UserWarning: only 43 spares left" in f.reason
               for f in changed.findings), [f.reason for f in changed.findings]


# ------------------------------- 5. text a reader sees that is no element's text

SHOWN_HTML = ('<style>.spare::after { content: \\"31 spares\\" }</style>'
              '<p class=\\"spare\\" title=\\"41 in the tooltip\\">Rack</p>'
              '<input value=\\"51\\"><img src=\\"missing.png\\" alt=\\"61 nodes\\">')


def test_a_cells_attribute_and_stylesheet_text_is_in_the_ledger_and_accounted_for(clean,
                                                                               tmp_path):
    """A tooltip, a field's value, a broken image's alt and CSS `content:` of a cell's
    HTML output are recorded (a change is a ledger change) and the HTML audit reads them."""
    root = copy_of(clean, tmp_path)
    cell = f'\n```{{python}}\nfrom IPython.display import HTML, display\ndisplay(HTML("{SHOWN_HTML}"))\n```\n'
    book(root, cell)
    result = check_book(root, update_ledger=True)
    assert result.ok, located(result)
    lock = (root / "numbers.lock").read_text(encoding="utf-8")
    for shown in ("\t31 spares\n", "\t41 in the tooltip\n", "\t51\n", "\t61 nodes\n"):
        assert shown in lock, lock
    render_book(result, "html", use_quarto=False)
    book(root, cell.replace("51", "52"))
    assert [f.kind for f in check_book(root).findings] == [Kind.LEDGER]


@pytest.mark.parametrize("html", [
    '<p title="777 spare">Rack</p>', '<input value="777">', '<img src="none.png" alt="777 nodes">',
    '<style>.rack::after { content: "777 spare" }</style><p class="rack">Rack</p>',
])
def test_attribute_and_stylesheet_text_on_the_page_is_audited(clean, tmp_path, html):
    root = copy_of(clean, tmp_path)
    book(root, "\n```{=html}\n" + html + "\n```\n")
    result = check_book(root)
    assert result.ok, located(result)
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    assert [(f.line, f.kind, "'777'" in f.reason) for f in caught.value.findings] == \
        [(line_of(root / CHAPTER_PATH, "777"), Kind.UNACCOUNTED_NUMBER, True)]


# ------------------------------------------------ 5. an output cut at the cap

def test_an_output_or_inline_value_over_the_cap_is_a_finding_not_a_silent_cut(clean, tmp_path):
    """Over 1,000,000 characters the run cuts a text (the page would show it cut): a
    finding at the cell's fence and at the inline value's line."""
    root = copy_of(clean, tmp_path)
    book(root, '\n```{python}\n#| label: huge\nprint("spare " * 200_001)\nlong_str = "x" * 1_000_001\n```\n'
               '\nA long one: `{python} long_str`.\n')
    result = check_book(root)
    path = root / CHAPTER_PATH
    assert [(f.line, f.kind) for f in result.findings if f.kind == Kind.OUTPUT_CUT] == \
        [(line_of(path, "#| label: huge") - 1, Kind.OUTPUT_CUT), (line_of(path, "A long one"), Kind.OUTPUT_CUT)]
    assert "print less" in result.findings[0].reason
