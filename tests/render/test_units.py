"""Unit tests: markdown assembly and book-wide numbering."""
from __future__ import annotations

import base64

import pytest
from pathlib import Path

from scripts.model import CellRun, ChapterRun, InlineRun, Output
from scripts.read.options import resolve
from scripts.read.project import Project
from scripts.read.qmd import parse_chapter
from scripts.render.errors import RenderError
from scripts.render.markdown import chapter_markdown
from scripts.render.numbering import ChapterInfo, appendix_letter, number_book

SOURCE = """---
title: Demo
---

# Demo {#sec-demo}

Value `{python} x` and `{python} md`.

```{python}
#| label: tbl-t
#| tbl-cap: "A table"
show_table()
```

```{python}
#| include: false
hidden = 1
```

```{python}
#| echo: true
#| output: asis
print("**bold**")
```

```{python}
#| label: fig-f
#| fig-cap: "A figure"
#| fig-alt: 'Alt "quoted"'
plot()
```
"""


def demo_run() -> ChapterRun:
    return ChapterRun(path="c.qmd", cells=[
        CellRun(0, [Output("markdown", "| a | b |\n|---|---|\n| 1 | 2 |\n")]),
        CellRun(1, [Output("text", "should not appear")]),
        CellRun(2, [Output("text", "**bold**\n")]),
        CellRun(3, [Output("image/png", base64.b64encode(b"PNGDATA").decode())]),
    ], inlines=[InlineRun(0, "text", "3.5"), InlineRun(1, "markdown", "*7*")])


def test_chapter_markdown_places_values_and_outputs():
    parsed = parse_chapter("c.qmd", SOURCE)
    resolve(Project(root=Path("."), execute={"echo": False}), parsed)
    md = chapter_markdown(parsed, demo_run(), files_dir="c_files/figure-html")
    text = md.text
    assert "Value 3.5 and *7*." in text
    assert "| a | b |\n|---|---|\n| 1 | 2 |\n\n: A table {#tbl-t}" in text
    assert "should not appear" not in text and "hidden" not in text
    assert '```` {.python .cell-code}' not in text and "``` {.python .cell-code}\nprint(\"**bold**\")\n```" in text
    assert "\n**bold**\n" in text                       # output: asis is raw markdown
    assert '![A figure](c_files/figure-html/fig-f.png){#fig-f fig-alt="Alt \\"quoted\\""}' in text
    assert md.files == {"c_files/figure-html/fig-f.png": b"PNGDATA"}
    assert "{python}" not in text and "#|" not in text
    assert text.startswith("---\ntitle: Demo\n---")


def matplotlib_png(dpi: int) -> bytes:
    """A 3 x 2 in matplotlib figure saved at `dpi` (its pHYs says so)."""
    import io
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    buf = io.BytesIO()
    Figure(figsize=(3, 2)).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


@pytest.mark.parametrize("fig_format, dpi, size", [
    ("retina", 192, "{#fig-f fig-alt=\"Alt \\\"quoted\\\"\" width=288 height=192}"),  # half its pixels
    ("retina", 96, "{#fig-f fig-alt=\"Alt \\\"quoted\\\"\"}"),          # not twice fig-dpi
    ("png", 192, "{#fig-f fig-alt=\"Alt \\\"quoted\\\"\"}"),            # no retina: no size
])
def test_a_retina_png_is_shown_at_half_its_pixels(fig_format, dpi, size):
    """As Quarto writes it (render/figure_size.py): a 576 x 384 px PNG drawn at twice
    fig-dpi is 288 x 192 CSS px in HTML (3 x 2 in in the PDF: pandoc's 96 px/in)."""
    parsed = parse_chapter("c.qmd", SOURCE)
    resolve(Project(root=Path("."), execute={"echo": False}), parsed)
    run = demo_run()
    run.cells[3].outputs[0].data = base64.b64encode(matplotlib_png(dpi)).decode()
    figure = {"fig-format": fig_format, "fig-dpi": 96, "fig-width": 7.0, "fig-height": 5.0}
    text = chapter_markdown(parsed, run, files_dir="f", figure=figure).text
    assert "![A figure](f/fig-f.png)" + size + "\n" in text


def test_chapter_markdown_requires_checked_values():
    parsed = parse_chapter("c.qmd", SOURCE)
    with pytest.raises(RenderError, match=r"c.qmd:9: no checked output for cell tbl-t"):
        chapter_markdown(parsed, ChapterRun(path="c.qmd"))
    no_inlines = demo_run()
    no_inlines.inlines = []
    with pytest.raises(RenderError, match=r"c.qmd:7: no checked value for inline `\{python\} x`"):
        chapter_markdown(parsed, no_inlines)


TABLE_CELLS = """# T

```{python}
#| label: tbl-df
#| tbl-cap: "A DataFrame"
#| echo: true
df
```

```{python}
#| label: tbl-print
#| tbl-cap: "Printed"
print(rows)
```
"""


def test_tbl_cap_on_html_or_text_output_makes_a_table_float():
    """Quarto (case 04): a DataFrame's HTML or printed text under `tbl-cap` is a table
    float; the built-in renderer writes it as `::: {#tbl-x}` with the caption last."""
    parsed = parse_chapter("c.qmd", TABLE_CELLS)
    run = ChapterRun(path="c.qmd", cells=[
        CellRun(0, [Output("html", "<table><tr><td>1</td></tr></table>")]),
        CellRun(1, [Output("text", "| a |\n")])])
    text = chapter_markdown(parsed, run).text
    assert ("``` {.python .cell-code}\ndf\n```\n\n::: {#tbl-df}\n```{=html}\n"
            "<table><tr><td>1</td></tr></table>\n```\n\nA DataFrame\n:::") in text
    assert "::: {#tbl-print}\n``` {.cell-output}\n| a |\n```\n\nPrinted\n:::" in text
    empty = ChapterRun(path="c.qmd", cells=[CellRun(0, []), CellRun(1, [])])
    with pytest.raises(RenderError, match=r"c.qmd:3: cell tbl-df has tbl-cap but produced no output"):
        chapter_markdown(parsed, empty)


def info(path, collected, appendix=False):
    return ChapterInfo(path, appendix, collected)


def test_number_book_like_quarto():
    chapters = [
        info("index.qmd", {"headers": [{"id": "preface", "level": 1, "unnumbered": True, "text": "Preface"},
                                       {"id": "sec-how", "level": 2, "unnumbered": False, "text": "How"}],
                           "labels": [], "title": "Preface"}),
        info("a.qmd", {"headers": [{"id": "sec-a", "level": 1, "unnumbered": False, "text": "A"},
                                   {"id": "sec-a1", "level": 2, "unnumbered": False, "text": "A1"},
                                   {"id": "x", "level": 3, "unnumbered": False, "text": "x"},
                                   {"id": "sec-u", "level": 2, "unnumbered": True, "text": "Unnumbered"},
                                   {"id": "sec-a2", "level": 2, "unnumbered": False, "text": "A2"}],
                       "labels": [{"id": "tbl-1", "kind": "tbl"}, {"id": "eq-1", "kind": "eq"},
                                  {"id": "tbl-2", "kind": "tbl"}], "title": "A"}),
        info("app.qmd", {"headers": [{"id": "sec-app", "level": 1, "unnumbered": False, "text": "App"},
                                     {"id": "sec-app1", "level": 2, "unnumbered": False, "text": "App1"}],
                         "labels": [{"id": "fig-z", "kind": "fig"}], "title": "App"}, appendix=True),
    ]
    refs = number_book(chapters)
    texts = {k: v.text for k, v in refs.items()}
    assert texts == {"sec-how": "How", "sec-a": "Chapter 1", "sec-a1": "Section 1.1",
                     "sec-u": "Unnumbered", "sec-a2": "Section 1.2", "tbl-1": "Table 1.1",
                     "eq-1": "Equation 1.1", "tbl-2": "Table 1.2", "sec-app": "Appendix A",
                     "sec-app1": "Section A.1", "fig-z": "Figure A.1"}
    assert [c.number for c in chapters] == [None, "1", "A"]
    assert chapters[1].headers == ["1", "1.1", "1.1.1", None, "1.2"]
    assert chapters[0].headers == [None, None]


def test_callouts_numbered_per_kind_and_chapter():
    chapters = [
        info("a.qmd", {"headers": [{"id": "sec-a", "level": 1, "unnumbered": False, "text": "A"}],
                       "labels": [{"id": "nte-1", "kind": "nte"}, {"id": "tbl-1", "kind": "tbl"},
                                  {"id": "nte-2", "kind": "nte"}, {"id": "cau-1", "kind": "cau"}]}),
        info("b.qmd", {"headers": [{"id": "sec-b", "level": 1, "unnumbered": False, "text": "B"}],
                       "labels": [{"id": "wrn-1", "kind": "wrn"}, {"id": "imp-1", "kind": "imp"},
                                  {"id": "tip-1", "kind": "tip"}, {"id": "nte-3", "kind": "nte"}]}),
    ]
    texts = {k: v.text for k, v in number_book(chapters).items() if not k.startswith("sec-")}
    assert texts == {"nte-1": "Note 1.1", "tbl-1": "Table 1.1", "nte-2": "Note 1.2",
                     "cau-1": "Caution 1.1", "wrn-1": "Warning 2.1", "imp-1": "Important 2.1",
                     "tip-1": "Tip 2.1", "nte-3": "Note 2.1"}


def test_chapter_without_heading_is_numbered_like_quarto():
    """Quarto 1.7 (case 19): a chapter with no heading takes the next number, its page's
    file name as its title, and numbers its labels without the chapter ("Table 1")."""
    chapters = [
        info("a.qmd", {"headers": [{"id": "sec-a", "level": 1, "unnumbered": False, "text": "A"}],
                       "labels": [{"id": "tbl-a", "kind": "tbl"}], "title": "A"}),
        info("sub/bare.qmd", {"headers": [], "labels": [{"id": "tbl-b", "kind": "tbl"},
                                                        {"id": "eq-b", "kind": "eq"}], "title": ""}),
        info("c.qmd", {"headers": [{"id": "sec-c", "level": 1, "unnumbered": False, "text": "C"}],
                       "labels": [], "title": "C"}),
    ]
    refs = number_book(chapters)
    assert [(c.number, c.title) for c in chapters] == [("1", "A"), ("2", "bare.html"), ("3", "C")]
    assert {k: v.text for k, v in refs.items()} == {
        "sec-a": "Chapter 1", "tbl-a": "Table 1.1", "tbl-b": "Table 1", "eq-b": "Equation 1",
        "sec-c": "Chapter 3"}


def test_duplicate_labels_rejected():
    chapters = [info("a.qmd", {"headers": [], "labels": [{"id": "tbl-1", "kind": "tbl"}]}),
                info("b.qmd", {"headers": {}, "labels": [{"id": "tbl-1", "kind": "tbl"}]})]
    with pytest.raises(RenderError, match="tbl-1 is defined twice"):
        number_book(chapters)


def test_appendix_letters():
    assert [appendix_letter(n) for n in (1, 2, 26, 27)] == ["A", "B", "Z", "AA"]


def test_custom_callout_types_reach_the_filters(tmp_path):
    """The project's custom callout types are in every pass's context (callouts.lua)."""
    import json
    from scripts.render.book import Chapter, new_book, write_context
    project = Project(root=tmp_path, custom_callouts={"todo": {"title": "To do", "color": ""}})
    chapter = Chapter("a.qmd", "a.html", False, tmp_path / "a.md")
    book = new_book(project, [chapter], tmp_path)
    for mode in ("collect", "apply"):
        ctx = json.loads(write_context(book, chapter, mode, "html").read_text())
        assert ctx["custom_callouts"] == {"todo": {"title": "To do", "color": ""}}
