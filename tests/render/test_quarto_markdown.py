"""Markdown features the built-in page shows as Quarto 1.7.34 does (issue 33, item 5):
caption attributes on float divs, listings, `number-sections: false`, shortcodes.

Each expected value is what real Quarto 1.7.34 rendered for the same tiny book (its
HTML: captions, reference texts, headings, sidebar entries); the books are synthetic
and have no cells, so nothing runs."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from bookcheck.read.book import read_book
from bookcheck.render import render_book
from bookcheck.render.errors import RenderError
from tests.bookkit import make_book

from .htmlscan import norm, scan

NBSP = "\u00a0"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201e2d7a3bd0000000049454e44ae426082")


def write(root, files: dict, extra: str = "", chapters=("a.qmd", "b.qmd"), appendices=("c.qmd",)):
    """A book of `files` (no cells) at `root`: a preface, `chapters`, `appendices`."""
    config = ("project:\n  type: book\nbook:\n  title: Q\n  chapters:\n    - index.qmd\n"
              + "".join(f"    - {c}\n" for c in chapters)
              + ("  appendices:\n" + "".join(f"    - {c}\n" for c in appendices) if appendices else "")
              + extra)
    return make_book(root, {"index.qmd": "# Preface {.unnumbered}\n", "img.png": PNG, **files}, config)


def render(root, files: dict, extra: str = "", chapters=("a.qmd", "b.qmd"), appendices=("c.qmd",),
           audited: bool = False):
    """The built-in pages of a book of `files` (no cells): page name -> (HTML, scanned elements)."""
    write(root, files, extra, chapters, appendices)
    read = read_book(root)
    assert [f for p in read.parsed.values() for f in p.findings] == []
    result = SimpleNamespace(project=read.project, parsed=read.parsed, runs={}, findings=[], ok=True)
    render_book(result, "html", use_quarto=False, audited=audited)
    return {p.name: (p.read_text(encoding="utf-8"), scan(p.read_text(encoding="utf-8")))
            for p in (root / "_book").glob("*.html")}


def texts(page, *tags) -> list[str]:
    return [norm(e.text) for e in page[1] if e.tag in tags]


def xrefs(page) -> list[str]:
    return [e.text for e in page[1] if "quarto-xref" in e.classes]


FLOATS = {
    "a.qmd": """\
# Alpha {#sec-alpha}

See @fig-div, @tbl-div, @lst-code and @lst-block.

::: {#fig-div fig-cap="Div **caption**" fig-alt="Alt text"}
![](img.png)
:::

::: {#fig-both fig-cap="Not shown"}
```{.tikz}
\\draw (0,0);
```
: **Para caption**: after the block.
:::

::: {#tbl-div tbl-cap="Table div cap"}
| a | b |
|---|---|
| 1 | 2 |
:::

::: {#lst-code lst-cap="A listing"}
```python
print(1)
```
:::

```{#lst-block .python lst-cap="Block *listing*"}
print(2)
```
""",
    "b.qmd": "# Beta\n",
}


def test_caption_attributes_and_listings_as_quarto(tmp_path):
    """Quarto 1.7.34: `fig-cap=`, `tbl-cap=`, `lst-cap=` are the floats' captions,
    unless the div ends with a paragraph (that one is, ": " and all); listings are
    "Listing 1.1", their caption above the code."""
    pages = render(tmp_path, FLOATS, appendices=())
    page = pages["a.html"]
    assert xrefs(page) == [f"Figure{NBSP}1.1", f"Table{NBSP}1.1", f"Listing{NBSP}1.1",
                           f"Listing{NBSP}1.2"]
    assert texts(page, "figcaption") == ["Figure 1.1: Div caption",
                                         "Figure 1.2: : Para caption: after the block.",
                                         "Table 1.1: Table div cap"]
    assert [(e.attrs["src"], e.attrs.get("alt")) for e in page[1] if e.tag == "img"] == [
        ("img.png", "Alt text")]          # Quarto puts it on the float's div: here the image's
    listings = [e for e in page[1] if "listing" in e.classes]
    assert [(e.attrs["id"], [norm(c.text) for c in e.children]) for e in listings] == [
        ("lst-code", ["Listing 1.1: A listing", "print(1)"]),
        ("lst-block", ["Listing 1.2: Block listing", "print(2)"])]
    assert "Not shown" not in page[0] and "fig-cap" not in page[0] and "lst-cap" not in page[0] and "tbl-cap" not in page[0]


SECTIONS = {
    "a.qmd": "# Alpha {#sec-alpha}\n\n## Sub one {#sec-sub}\n\n"
             "See @sec-alpha, @sec-sub, @sec-app, @sec-appsub, @fig-c and @sec-bsub.\n",
    "b.qmd": "# Beta {#sec-beta}\n\n## B sub {#sec-bsub}\n\n![A fig](img.png){#fig-b}\n\n"
             "See @fig-b, @sec-bsub, @sec-alpha, @sec-sub and @sec-app.\n",
    "c.qmd": "# App {#sec-app}\n\n## App sub {#sec-appsub}\n\n![A fig](img.png){#fig-c}\n",
}
OFF = "format:\n  html:\n    number-sections: false\n"


def sidebar(page) -> list[str]:
    return [norm(li.text) for ol in page[1] if ol.tag == "ol" and "toc" in ol.classes
            for li in ol.children]


def test_number_sections_false_for_the_project_as_quarto(tmp_path):
    """Quarto 1.7.34, `format: html: number-sections: false`: no chapter or section
    number, references to sections read the heading; an appendix stays "Appendix A —";
    figures keep their chapter numbers."""
    pages = render(tmp_path, SECTIONS, OFF)
    a, b, c = pages["a.html"], pages["b.html"], pages["c.html"]
    assert texts(a, "h1", "h2") == ["Alpha", "Sub one"]
    assert texts(c, "h1", "h2") == ["Appendix A — App", "App sub"]
    assert [norm(x) for x in xrefs(a)] == ["Alpha", "Sub one", "Appendix A — App", "App sub",
                                           "Figure A.1", "B sub"]
    assert [norm(x) for x in xrefs(b)] == ["Figure 2.1", "B sub", "Alpha", "Sub one",
                                           "Appendix A — App"]
    assert texts(b, "figcaption") == ["Figure 2.1: A fig"]
    assert sidebar(a) == ["Preface", "Alpha", "Beta", "App"]


def test_number_sections_false_in_one_chapter_as_quarto(tmp_path):
    """Quarto 1.7.34, `number-sections: false` in b.qmd's front matter: b's page numbers
    no heading and its section references read the heading (a chapter: its number and
    title); the other pages and the sidebar number b as before."""
    files = {**SECTIONS, "b.qmd": "---\nnumber-sections: false\n---\n\n" + SECTIONS["b.qmd"]}
    pages = render(tmp_path, files)
    a, b = pages["a.html"], pages["b.html"]
    assert texts(b, "h1", "h2") == ["Beta", "B sub"]
    assert [norm(x) for x in xrefs(b)] == ["Figure 2.1", "B sub", "1 Alpha", "Sub one",
                                           "Appendix A — App"]
    assert texts(a, "h1", "h2") == ["1 Alpha", "1.1 Sub one"]
    assert [norm(x) for x in xrefs(a)] == ["Chapter 1", "Section 1.1", "Appendix A",
                                           "Section A.1", "Figure A.1", "Section 2.1"]
    assert sidebar(b) == ["Preface", "1 Alpha", "2 Beta", "A App"]


SHORTCODES = {
    "_variables.yml": "version: 1.2.3\nnested:\n  key: deep value\n",
    "a.qmd": """\
---
custom: "A *custom* value"
---

# Alpha

Meta {{< meta custom >}}, book {{< meta book.title >}}. Var {{< var version >}} and {{< var nested.key >}}.
Env {{< env BUILTIN_TEST_ENV >}} and {{< env BUILTIN_UNSET_ENV "fallback" >}}. Press {{< kbd Ctrl-C >}}.
Escaped {{{< var version >}}} and `{{< var version >}}` in code.

{{< pagebreak >}}

```
{{< var version >}} in a block
```
""",
}


def test_shortcodes_as_quarto(tmp_path, monkeypatch):
    """Quarto 1.7.34 on this page: "Meta A <em>custom</em> value, book Q. Var 1.2.3 and
    deep value. Env … and fallback. Press <kbd>Ctrl-C</kbd>…"; the escaped one shows as
    written; shortcodes in code are resolved too; a page break is a div."""
    monkeypatch.setenv("BUILTIN_TEST_ENV", "from-env")
    monkeypatch.delenv("BUILTIN_UNSET_ENV", raising=False)
    html = render(tmp_path, SHORTCODES, chapters=("a.qmd",), appendices=())["a.html"][0]
    # the built-in page keeps a number with the word after it ("1.2.3\u00a0and",
    # filters/nobreak.lua), where Quarto writes a plain space
    assert "Var 1.2.3\u00a0and" in html
    html = html.replace("\u00a0", " ")
    assert ("<p>Meta A <em>custom</em> value, book Q. Var 1.2.3 and deep value. Env from-env and "
            "fallback. Press <kbd>Ctrl-C</kbd>. Escaped {{&lt; var version &gt;}} and "
            "<code>1.2.3</code> in code.</p>") in html
    assert '<div style="page-break-after: always;"></div>' in html
    assert "<code>1.2.3 in a block</code>" in html
    assert "{=shortcode}" not in html


def test_a_shortcode_the_built_in_renderer_lacks_stops_it_with_the_way_out(tmp_path):
    files = {"a.qmd": "# Alpha\n\n{{< video https://example.org/v.mp4 >}}\n"}
    with pytest.raises(RenderError, match=r"\{\{< video https://example.org/v.mp4 >\}\}: the "
                       r"built-in renderer does not implement the `video` shortcode: render with Quarto"):
        render(tmp_path, files, chapters=("a.qmd",), appendices=())


def test_echo_fenced_shows_the_cell_and_passes_the_audit(tmp_path):
    """Quarto 1.7.34 shows an `echo: fenced` cell with its fence and its other `#|` lines
    (```` ```{python} ````, `#| label: my-cell`, the code, ```` ``` ````); the page's
    `{python}` is the author's, no leak."""
    from bookcheck.model import CellRun, ChapterRun, Output
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n",
                         "a.qmd": "# Alpha\n\n```{python}\n#| echo: fenced\n#| label: my-cell\n"
                                  "x = 1\nprint(x)\n```\n"},
              "project:\n  type: book\nbook:\n  title: Q\n  chapters:\n    - index.qmd\n    - a.qmd\n")
    read = read_book(tmp_path)
    run = ChapterRun(path="a.qmd", cells=[CellRun(0, [Output("text", "1\n", "stdout")])])
    result = SimpleNamespace(project=read.project, parsed=read.parsed, runs={"a.qmd": run},
                             findings=[], ok=True)
    render_book(result, "html", use_quarto=False)
    pre = [norm(e.text) for e in scan((tmp_path / "_book" / "a.html").read_text()) if e.tag == "pre"]
    assert pre == ["```{python} #| label: my-cell x = 1 print(x) ```", "1"]


THEOREMS = {
    "a.qmd": """\
# Alpha

::: {#thm-a}
## Pythagoras
In a right *triangle*.
:::

::: {#lem-b name="Named"}
Body.

Second para.
:::

::: {#def-c}
A definition.
:::

::: {#exr-d}
- a list first
:::

See @thm-a, @lem-b, @def-c and @exr-d.
""",
}


def test_theorem_like_divs_as_quarto(tmp_path):
    """Quarto 1.7.34: "**Theorem 1.1 (Pythagoras)** In a right triangle." (a leading
    heading or `name=` is the name, not a section), each kind counted on its own; the
    audit knows these numbers are the renderer's."""
    page = render(tmp_path, THEOREMS, chapters=("a.qmd",), appendices=(), audited=True)["a.html"]
    theorems = [e for e in page[1] if "theorem" in e.classes]
    assert [(e.attrs["id"], e.classes, norm(e.children[0].text)) for e in theorems] == [
        ("thm-a", ["theorem"], "Theorem 1.1 (Pythagoras) In a right triangle."),
        ("lem-b", ["theorem", "lemma"], "Lemma 1.1 (Named) Body."),
        ("def-c", ["theorem", "definition"], "Definition 1.1 A definition."),
        ("exr-d", ["theorem", "exercise"], "Exercise 1.1")]
    assert texts(page, "h1", "h2") == ["1 Alpha"]
    assert [norm(x) for x in xrefs(page)] == ["Theorem 1.1", "Lemma 1.1", "Definition 1.1",
                                              "Exercise 1.1"]


def test_a_cell_listing_as_quarto(tmp_path):
    """`lst-label`/`lst-cap` on a cell: Quarto 1.7.34's engine writes
    ```` ``` {#lst-cell .python .cell-code lst-cap="A cell listing"} ```` (and
    ```` ```` {#lst-fenced  .cell-code lst-cap="…"} ```` for `echo: fenced`), the page
    "Listing 1.1: A cell listing" above the code; the checker knows the label."""
    from bookcheck.model import CellRun, ChapterRun, Output
    from bookcheck.render.engine_md import engine_markdown
    text = ("# Alpha\n\nSee @lst-cell and @lst-fenced.\n\n"
            "```{python}\n#| lst-label: lst-cell\n#| lst-cap: \"A cell listing\"\nx = 1\nprint(x)\n```\n\n"
            "```{python}\n#| echo: fenced\n#| lst-label: lst-fenced\n#| lst-cap: Fenced listing\ny = 2\n```\n")
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "a.qmd": text},
              "project:\n  type: book\nbook:\n  title: Q\n  chapters:\n    - index.qmd\n    - a.qmd\n")
    read = read_book(tmp_path)
    assert [label for label, _ in read.parsed["a.qmd"].labels] == ["lst-cell", "lst-fenced"]
    run = ChapterRun(path="a.qmd", cells=[CellRun(0, [Output("text", "1\n", "stdout")]), CellRun(1, [])])
    md = engine_markdown(read.parsed["a.qmd"], run, tmp_path).markdown
    assert '``` {#lst-cell .python .cell-code lst-cap="A cell listing"}\nx = 1\n' in md
    assert '```` {#lst-fenced  .cell-code lst-cap="Fenced listing"}\n```{{python}}\n' in md
    result = SimpleNamespace(project=read.project, parsed=read.parsed, runs={"a.qmd": run},
                             findings=[], ok=True)
    render_book(result, "html", use_quarto=False)
    page = scan((tmp_path / "_book" / "a.html").read_text(encoding="utf-8"))
    listings = [(e.attrs["id"], [norm(c.text) for c in e.children]) for e in page if "listing" in e.classes]
    assert listings == [
        ("lst-cell", ["Listing 1.1: A cell listing", "x = 1 print(x)"]),
        ("lst-fenced", ["Listing 1.2: Fenced listing",
                        "```{python} #| lst-label: lst-fenced #| lst-cap: Fenced listing y = 2 ```"])]


@pytest.mark.kernel
def test_a_website_page_with_number_sections_true_numbers_its_headings(tmp_path):
    """A website numbers no heading unless told (Quarto 1.7.34; render/website.py):
    `number-sections: true` in a page's front matter numbers that page only."""
    from bookcheck.verify.check import check_book
    pages = {"index.qmd": "---\ntitle: Home\n---\n\n## Plain {#sec-plain}\n",
             "a.qmd": "---\ntitle: A\nnumber-sections: true\n---\n\n## One {#sec-one}\n\n## Two\n"}
    root = make_book(tmp_path, pages, "project:\n  type: website\n")
    result = check_book(root)
    assert result.findings == []
    render_book(result, "html", use_quarto=False, audited=False)
    assert texts((None, scan((root / "_site" / "a.html").read_text("utf-8"))), "h2") == ["1 One", "2 Two"]
    assert texts((None, scan((root / "_site" / "index.html").read_text("utf-8"))), "h2") == ["Plain"]
