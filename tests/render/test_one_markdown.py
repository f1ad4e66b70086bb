"""One Markdown for both renderers: the built-in renderer reads the very engine
Markdown handed to Quarto's freeze (render/engine_md.py), and its page shows what
each chunk option and output kind asks for (filters/cells.lua). Hand-made runs:
no kernel, no Quarto."""
from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import pytest

from bookcheck.model import CellRun, ChapterRun, InlineRun, Output
from bookcheck.read.book import read_book
from bookcheck.render import freeze, render_book
from bookcheck.render.book import prepare

from .htmlscan import norm, scan

CONFIG = ("project:\n  type: book\nbook:\n  title: One\n  chapters:\n"
          "    - index.qmd\n    - ch.qmd\n")
CELLS = [       # (options, code, outputs of the run)
    ("#| echo: true", "print('shown')", [Output("text", "shown\n", "stdout")]),
    ("#| echo: false", "quiet = 1", []),
    ("#| include: false\n#| echo: true", "secret = 2", [Output("text", "never seen\n", "stdout")]),
    ("#| echo: true\n#| output: false", "print('no output')", [Output("text", "no output\n", "stdout")]),
    ("#| echo: true\n#| eval: false", "not_run()", []),
    ("#| echo: fenced", "fenced = 3", []),
    ("#| output: asis\n#| echo: false", "print('**loud**')", [Output("markdown", "**loud**\n", "stdout")]),
    ("#| echo: true\n#| error: true", "raise ValueError('bad')", [Output("error", "ValueError: bad")]),
    ("#| echo: false", "warn()", [Output("text", "UserWarning: careful\n", "stderr")]),
    ("#| label: tbl-md\n#| tbl-cap: \"Markdown table\"\n#| echo: false", "Markdown(t)",
     [Output("markdown", "| a | b |\n|---|---|\n| 1 | 2 |", result=True)]),
    ("#| label: tbl-df\n#| tbl-cap: \"A DataFrame\"\n#| echo: false", "df",
     [Output("html", "<table class=\"dataframe\"><thead><tr><th>x</th></tr></thead>"
                     "<tbody><tr><td>0.5</td></tr></tbody></table>", result=True)]),
    ("#| label: tbl-print\n#| tbl-cap: \"Printed\"\n#| echo: false", "print(rows)",
     [Output("text", "row one\n", "stdout")]),
    ("#| label: fig-png\n#| fig-cap: \"A PNG\"\n#| fig-alt: \"Alt 'png'\"\n#| echo: false", "plot()",
     [Output("text", "[<matplotlib.lines.Line2D at 0x1>]", result=True),
      Output("image/png", base64.b64encode(b"\x89PNG not really").decode())]),
    ("#| label: fig-svg\n#| fig-cap: \"An SVG\"\n#| echo: false", "svg()",
     [Output("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'/>")]),
    ("#| echo: true\n#| code-fold: true\n#| code-summary: \"Show <it>\"", "folded = 4", []),
    ("#| echo: true\n#| code-fold: show", "open_fold = 5", []),
    ("#| echo: true\n#| code-line-numbers: true", "first = 1\nsecond = 2", []),
    ("#| echo: false\n#| classes: wide-cell", "print('classed')", [Output("text", "classed\n", "stdout")]),
]
PROSE = ("# One {#sec-one}\n\nText `{python} value`, `{python} md` and `{python} html`.\n\n"
         "| k | v |\n|---|---|\n| ratio | `{python} ratio` |\n\n: Inline {#tbl-inline}\n\n"
         "See @tbl-md, @tbl-df, @tbl-print, @fig-png and @fig-svg.\n\n"
         "{{< include _part.qmd >}}\n")
INLINES = [InlineRun(0, "text", "42", "42"), InlineRun(1, "markdown", "*em*", "*em*"),
           InlineRun(2, "html", "<b>b</b>", "`<b>b</b>`{=html}"), InlineRun(3, "text", "1|2", "1|2"),
           InlineRun(4, "text", "43", "43")]


def chapter() -> str:
    cells = "".join(f"```{{python}}\n{opts}\n{code}\n```\n\n" for opts, code, _ in CELLS)
    return PROSE.replace("{{< include", cells + "{{< include")


@pytest.fixture()
def checked(tmp_path):
    """A book of one chapter using every chunk option and output kind, its run made by hand."""
    (tmp_path / "_quarto.yml").write_text(CONFIG)
    (tmp_path / "index.qmd").write_text("# Preface {.unnumbered}\n")
    (tmp_path / "ch.qmd").write_text(chapter())
    (tmp_path / "_part.qmd").write_text("Included `{python} value + 1`.\n\n\n")
    read = read_book(tmp_path)
    run = ChapterRun(path="ch.qmd", cells=[CellRun(i, outs) for i, (_, _, outs) in enumerate(CELLS)],
                     inlines=INLINES)
    return SimpleNamespace(project=read.project, parsed=read.parsed, runs={"ch.qmd": run},
                           findings=[], ok=True)


def test_the_built_in_renderer_reads_the_markdown_handed_to_quarto(checked, tmp_path):
    assert freeze.write_entries(checked) == (["ch.qmd"], [])
    entry = tmp_path / ".quarto" / "_freeze" / "ch"
    handed = json.loads((entry / "execute-results" / "html.json").read_text())["result"]["markdown"]
    work = tmp_path / "work"
    work.mkdir()
    book = prepare(checked, work)
    page = next(c for c in book.chapters if c.path == "ch.qmd")
    assert page.markdown_file.read_text(encoding="utf-8") == handed
    assert {name: data for name, data in page.files.items()} == {
        f"ch_files/{p.relative_to(entry).as_posix()}": p.read_bytes()
        for p in (entry / "figure-html").iterdir()}


def test_the_page_honours_every_chunk_option(checked, tmp_path):
    render_book(checked, "html", use_quarto=False, audited=False)
    html = (tmp_path / "_book" / "ch.html").read_text(encoding="utf-8")
    els = scan(html)
    pre = [(sorted(e.classes), norm(e.text)) for e in els if e.tag == "pre"]
    assert pre == [
        (["cell-code", "python"], "print('shown')"), (["cell-output"], "shown"),
        (["cell-code", "python"], "print('no output')"),                       # output: false
        (["cell-code", "python"], "not_run()"),                                # eval: false
        (["cell-code", "markdown"], "```{python} fenced = 3 ```"),             # echo: fenced
        (["cell-code", "python"], "raise ValueError('bad')"),
        (["cell-output", "cell-output-error"], "ValueError: bad"),            # error: true
        (["cell-output"], "UserWarning: careful"),                             # a warning
        (["cell-output"], "row one"),                                          # in its float
        (["cell-code", "python"], "folded = 4"), (["cell-code", "python"], "open_fold = 5"),
        (["cell-code", "number-lines", "python"], "first = 1 second = 2"),
        (["cell-output"], "classed")]
    assert [e.classes for e in els if "wide-cell" in e.classes] == [["cell", "wide-cell"]]
    assert "secret" not in html and "never seen" not in html and "quiet" not in html
    assert "<strong>loud</strong>" in html                                     # output: asis
    assert "matplotlib" not in html                                            # Quarto drops it
    assert "Text 42, <em>em</em> and <b>b</b>." in html and "Included 43" in html
    cells = [norm(e.text) for e in els if e.tag == "td"]
    assert cells[:2] == ["ratio", "1|2"]            # one cell, as the ledger records it
    captions = [norm(e.text) for e in els if e.tag in ("caption", "figcaption")]
    assert captions == ["Table 1.1: Inline", "Table 1.2: Markdown table", "Table 1.3: A DataFrame",
                        "Table 1.4: Printed", "Figure 1.1: A PNG", "Figure 1.2: An SVG"]
    assert [(e.attrs["src"], e.attrs.get("alt")) for e in els if e.tag == "img"] == [
        ("ch_files/figure-html/fig-png-output-1.png", "Alt 'png'"),
        ("ch_files/figure-html/fig-svg-output-1.svg", "An SVG")]
    assert (tmp_path / "_book" / "ch_files" / "figure-html" / "fig-svg-output-1.svg").is_file()
    assert '<details class="code-fold">\n<summary>Show &lt;it&gt;</summary>' in html
    assert '<details open="" class="code-fold">\n<summary>Code</summary>' in html
    assert '<span class="line">first = 1</span>\n<span class="line">second = 2</span>' in html
