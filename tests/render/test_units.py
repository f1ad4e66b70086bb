"""Unit tests: the page from a chapter's engine Markdown, and book-wide numbering."""
from __future__ import annotations

import base64
import json

import pytest
from pathlib import Path

from bookcheck.model import CellRun, ChapterRun, InlineRun, Output
from bookcheck.read.options import resolve
from bookcheck.read.project import Project
from bookcheck.read.qmd import parse_chapter
from bookcheck.render.errors import RenderError
from bookcheck.render.engine_md import engine_markdown
from bookcheck.render.numbering import ChapterInfo, appendix_letter, number_book

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
        CellRun(2, [Output("markdown", "**bold**\n", "stdout")]),
        CellRun(3, [Output("image/png", base64.b64encode(b"PNGDATA").decode())]),
    ], inlines=[InlineRun(0, "text", "3.5"), InlineRun(1, "markdown", "*7*")])


REFS = {"tbl-t": {"text": "Table 1.1", "number": "1.1", "href": "#tbl-t", "kind": "tbl"},
        "fig-f": {"text": "Figure 1.1", "number": "1.1", "href": "#fig-f", "kind": "fig"},
        "tbl-df": {"text": "Table 1.1", "number": "1.1", "href": "#tbl-df", "kind": "tbl"},
        "tbl-print": {"text": "Table 1.2", "number": "1.2", "href": "#tbl-print", "kind": "tbl"}}


def page(tmp_path, markdown: str) -> str:
    """The built-in page's body for a chapter's engine Markdown (the filters of book.py)."""
    from bookcheck.render import pandoc
    from bookcheck.render.book import FILTERS
    from bookcheck.render.html import HTML_ARGS
    from bookcheck.read.crossref_kinds import for_filters
    context = tmp_path / "ctx.json"
    context.write_text(json.dumps({"mode": "apply", "target": "html", "refs": REFS,
                                   "kinds": for_filters()}))
    return pandoc.run(["--from=markdown", "--to=html5", *HTML_ARGS,
                       f"--metadata=book-context:{context}", "--metadata=book-target:html",
                       *pandoc.filter_args(*FILTERS)], stdin=markdown)


def checked(source: str):
    parsed = parse_chapter("c.qmd", source)
    resolve(Project(root=Path("."), execute={"echo": False}), parsed)
    return parsed


def test_the_page_shows_values_and_outputs(tmp_path):
    md = engine_markdown(checked(SOURCE), demo_run())
    assert md.markdown.startswith("---\ntitle: Demo\n---")
    assert "{python}" not in md.markdown and "#|" not in md.markdown
    assert md.files == {"c_files/figure-html/fig-f-output-1.png": b"PNGDATA"}
    html = page(tmp_path, md.markdown)
    assert "Value 3.5\u00a0and <em>7</em>." in html          # a number kept with its word (nobreak.lua)
    assert '<table id="tbl-t">\n<caption>Table\u00a01.1: A table</caption>' in html
    assert "should not appear" not in html and "hidden" not in html
    assert '<pre class="python cell-code"><code>print(&quot;**bold**&quot;)</code></pre>' in html
    assert "<p><strong>bold</strong></p>" in html            # output: asis is raw markdown
    assert ('<img src="c_files/figure-html/fig-f-output-1.png" alt="Alt &quot;quoted&quot;" />'
            '<figcaption>Figure\u00a01.1: A figure</figcaption>') in html.replace("\n", "")


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
    ("retina", 192, ' width="288" height="192"'),       # half its pixels
    ("retina", 96, ' width="144" height="96"'),         # not twice fig-dpi: IPython's halving
    ("png", 192, ""),                                   # no retina: no size
])
def test_a_retina_png_is_shown_at_half_its_pixels(tmp_path, fig_format, dpi, size):
    """As Quarto writes it (render/figure_size.py): a 576 x 384 px PNG drawn at twice
    fig-dpi is 288 x 192 CSS px in HTML (3 x 2 in in the PDF: pandoc's 96 px/in)."""
    run = demo_run()
    run.cells[3].outputs[0].data = base64.b64encode(matplotlib_png(dpi)).decode()
    figure = {"fig-format": fig_format, "fig-dpi": 96, "fig-width": 7.0, "fig-height": 5.0}
    html = page(tmp_path, engine_markdown(checked(SOURCE), run, figure=figure).markdown)
    assert f'<img src="c_files/figure-html/fig-f-output-1.png" alt="Alt &quot;quoted&quot;"{size} />' in html


def test_the_page_requires_checked_values():
    parsed = parse_chapter("c.qmd", SOURCE)
    with pytest.raises(RenderError, match=r"c.qmd:9: no checked output for cell tbl-t"):
        engine_markdown(parsed, ChapterRun(path="c.qmd"))
    no_inlines = demo_run()
    no_inlines.inlines = []
    with pytest.raises(RenderError, match=r"c.qmd:7: no checked value for inline `\{python\} x`"):
        engine_markdown(parsed, no_inlines)


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


def test_tbl_cap_on_html_or_text_output_makes_a_table_float(tmp_path):
    """Quarto (case 04): a DataFrame's HTML or printed text under `tbl-cap` is a table
    float (cells.lua: `::: {#tbl-x}`, the caption last), after the cell's code."""
    parsed = checked(TABLE_CELLS)
    run = ChapterRun(path="c.qmd", cells=[
        CellRun(0, [Output("html", "<table><tr><td>1</td></tr></table>", result=True)]),
        CellRun(1, [Output("text", "| a |\n", "stdout")])])
    html = page(tmp_path, engine_markdown(parsed, run).markdown).replace("\n", "")
    assert ('<pre class="python cell-code"><code>df</code></pre><table id="tbl-df">'
            "<caption>Table\u00a01.1: A DataFrame</caption>") in html
    assert ('<figure id="tbl-print"><pre class="cell-output"><code>| a |</code></pre>'
            "<figcaption>Table\u00a01.2: Printed</figcaption></figure>") in html
    empty = ChapterRun(path="c.qmd", cells=[CellRun(0, []), CellRun(1, [])])
    with pytest.raises(RenderError, match=r"c.qmd:3: cell tbl-df has tbl-cap but produced no output"):
        engine_markdown(parsed, empty)


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
    from bookcheck.render.book import Chapter, new_book, write_context
    project = Project(root=tmp_path, custom_callouts={"todo": {"title": "To do", "color": ""}})
    chapter = Chapter("a.qmd", "a.html", False, tmp_path / "a.md")
    book = new_book(project, [chapter], tmp_path)
    for mode in ("collect", "apply"):
        ctx = json.loads(write_context(book, chapter, mode, "html").read_text())
        assert ctx["custom_callouts"] == {"todo": {"title": "To do", "color": ""}}
