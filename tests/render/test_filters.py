"""The Lua filters on small inputs, through the bundled pandoc."""
from __future__ import annotations

import json

import pytest

from bookcheck.read.crossref_kinds import for_filters
from bookcheck.render import pandoc
from bookcheck.render.book import FILTERS

REFS = {
    "fig-x": {"text": "Figure 1.1", "number": "1.1", "href": "a.html#fig-x", "kind": "fig"},
    "eq-e": {"text": "Equation 2.3", "number": "2.3", "href": "#eq-e", "kind": "eq"},
    "tbl-t": {"text": "Table A.1", "number": "A.1", "href": "b.html#tbl-t", "kind": "tbl"},
}


def run(tmp_path, markdown: str, to: str = "html5", mode: str = "apply", target: str = "html",
        **ctx) -> str:
    context = tmp_path / "ctx.json"
    context.write_text(json.dumps({"mode": mode, "target": target, "refs": REFS,
                                   "kinds": for_filters(), **ctx}))
    return pandoc.run(["--from=markdown", f"--to={to}", "--mathml", "--wrap=none",
                       f"--metadata=book-context:{context}", f"--metadata=book-target:{target}",
                       *pandoc.filter_args(*FILTERS)], stdin=markdown)


def test_reference_forms(tmp_path):
    html = run(tmp_path, "See @Fig-x, [-@fig-x] and [see @tbl-t, p. 3].")
    assert html.strip() == (
        '<p>See <a href="a.html#fig-x" class="quarto-xref">Figure\u00a01.1</a>, '
        '<a href="a.html#fig-x" class="quarto-xref">1.1</a> and see '
        '<a href="b.html#tbl-t" class="quarto-xref">Table\u00a0A.1</a>, p.\u00a03.</p>')


def test_mixed_citation_group_keeps_the_bibliography_key(tmp_path):
    native = run(tmp_path, "As @fig-x [@knuth84] shows.", to="native")
    assert 'Link' in native and '"a.html#fig-x"' in native
    assert 'citationId = "knuth84"' in native
    assert 'citationId = "fig-x"' not in native


def test_equation_label_with_trailing_punctuation(tmp_path):
    html = run(tmp_path, "Energy\n$$ E = mc^2 $$ {#eq-e}.\n")
    assert '<span id="eq-e" class="equation"><math display="block"' in html
    assert '<span class="eq-number">(2.3)</span></span>.' in html
    assert "{#eq-e}" not in html


def test_equation_in_typst(tmp_path):
    typ = run(tmp_path, "$$ E = mc^2 $$ {#eq-e}\n", to="typst", target="typst")
    assert '#[#set math.equation(numbering: _ => "(2.3)"); $ E = m c^2 $ <eq-e>]' in typ


def test_an_unknown_reference_is_shown_as_quarto_shows_it(tmp_path):
    """Reached only when the check's baseline or a suppression accepts it; then the
    book's page shows what Quarto 1.7.34 writes (conformance case 21), which the audit
    reports (a leak); a website's is `?@label` in bold (tests/render/test_website.py)."""
    html = run(tmp_path, "See @fig-nope and [@fig-x; @tbl-none].")
    assert html.strip() == ('<p>See <span class="quarto-unresolved-ref">?fig-nope</span> and '
                            '<a href="a.html#fig-x" class="quarto-xref">Figure\u00a01.1</a>, '
                            '<span class="quarto-unresolved-ref">?tbl-none</span>.</p>')


def test_collect_lists_labels_in_order(tmp_path):
    out = tmp_path / "found.json"
    run(tmp_path, "# T {#sec-t}\n\n## S {.unnumbered}\n\n$$x$$ {#eq-a}\n\n"
                  "| a |\n|---|\n| 1 |\n\n: C {#tbl-b}\n\n![c](i.png){#fig-c}\n",
        mode="collect", out=str(out))
    found = json.loads(out.read_text())
    assert found["title"] == "T"
    assert [(h["id"], h["level"], h["unnumbered"]) for h in found["headers"]] == [
        ("sec-t", 1, False), ("s", 2, True)]
    assert sorted((lab["kind"], lab["id"]) for lab in found["labels"]) == [
        ("eq", "eq-a"), ("fig", "fig-c"), ("tbl", "tbl-b")]
    assert found["images"] == ["i.png"]


FOLDED = ("::: {#cell-a .cell execution_count=1}\n"
          '``` {.python .cell-code code-fold="%s" code-summary="Why?" code-line-numbers="true"}\n'
          "a = 1\nb = a < 2\n```\n\n::: {.cell-output .cell-output-stdout}\n```\nTrue\n```\n:::\n:::\n")


def test_cells_fold_and_number_code_as_quarto_does(tmp_path):
    """cells.lua: `code-fold` puts the code in `<details>` (open for `show`) under its
    `code-summary`; `code-line-numbers` numbers its lines; a stream is `cell-output`.
    The PDF shows the code as written."""
    html = run(tmp_path, FOLDED % "true")
    assert html.startswith('<details class="code-fold">\n<summary>Why?</summary>\n'
                           '<pre class="python cell-code number-lines"><code>'
                           '<span class="line">a = 1</span>\n<span class="line">b = a &lt; 2</span>'
                           "</code></pre>\n</details>\n")
    assert '<pre class="cell-output"><code>True</code></pre>' in html and "code-fold=" not in html
    assert run(tmp_path, FOLDED % "show").startswith('<details open="" class="code-fold">')
    assert "<details" not in run(tmp_path, FOLDED % "false")
    typ = run(tmp_path, FOLDED % "true", to="typst", target="typst")
    assert "```python\na = 1\nb = a < 2\n```" in typ and "Why?" not in typ


def test_a_figure_cell_with_two_images_is_one_numbered_figure(tmp_path):
    """cells.lua: the engine labels a `fig-x` cell's images `fig-x-1`, `fig-x-2` (Quarto's
    sub-figures, not modelled): the first is `fig-x`, the second has no id."""
    md = ("::: {#fig-x .cell execution_count=1}\n\n"
          "::: {.cell-output .cell-output-display}\n![Both](a.png){#fig-x-1}\n:::\n\n"
          "::: {.cell-output .cell-output-display}\n![](b.png){#fig-x-2}\n:::\n:::\n")
    html = run(tmp_path, md)
    assert '<figure id="fig-x">' in html and "<figcaption>Figure\u00a01.1: Both</figcaption>" in html
    assert '<img src="b.png" />' in html and "fig-x-" not in html


def test_callout_titles_and_typst_box(tmp_path):
    html = run(tmp_path, '::: {.callout-important title="Mind *this*"}\nBody\n:::\n')
    assert '<div class="callout callout-important" role="note">' in html
    assert '<div class="callout-title">\nMind <em>this</em>\n</div>' in html
    typ = run(tmp_path, "::: {.callout-caution}\nBody\n:::\n", to="typst", target="typst")
    assert typ.startswith("#block(width: 100%") and "#strong[Caution]" in typ and "Body" in typ


CALLOUT_REFS = {
    "nte-n": {"text": "Note 1.1", "number": "1.1", "href": "#nte-n", "kind": "nte"},
    "tip-t": {"text": "Tip 2.1", "number": "2.1", "href": "c.html#tip-t", "kind": "tip"},
}
NUMBERED_CALLOUTS = ('::: {#nte-n .callout-note title="Ref"}\nBody.\n:::\n\n'
                     "::: {#tip-t .callout-tip}\nTip body.\n:::\n\n"
                     "::: {.callout-note}\nPlain.\n:::\n\nSee @nte-n and @tip-t.\n")


def test_numbered_callouts_get_quarto_titles_and_links(tmp_path):
    context = {"refs": {**REFS, **CALLOUT_REFS}}
    html = run(tmp_path, NUMBERED_CALLOUTS, **context)
    assert '<div id="nte-n" class="callout callout-note" role="note">' in html
    assert '<div class="callout-title">\nNote\u00a01.1: Ref\n</div>' in html
    assert '<div class="callout-title">\nTip\u00a02.1\n</div>' in html      # no title: the label alone
    assert '<div class="callout-title">\nNote\n</div>' in html              # unlabelled: unnumbered
    assert ('See <a href="#nte-n" class="quarto-xref">Note\u00a01.1</a> and '
            '<a href="c.html#tip-t" class="quarto-xref">Tip\u00a02.1</a>.') in html


def test_numbered_callouts_in_typst_are_link_targets(tmp_path):
    refs = {rid: {**entry, "href": f"#{rid}"} for rid, entry in CALLOUT_REFS.items()}
    typ = run(tmp_path, NUMBERED_CALLOUTS, to="typst", target="typst", refs={**REFS, **refs})
    assert "#strong[Note~1.1: Ref]" in typ and "#strong[Tip~2.1]" in typ
    assert "\n] <nte-n>\n" in typ and "\n] <tip-t>\n" in typ
    assert "#link(<nte-n>)[Note~1.1] and #link(<tip-t>)[Tip~2.1]" in typ
    import typst                    # a link to a label the document lacks fails to compile
    assert typst.compile(typ.encode("utf-8"))[:5] == b"%PDF-"


def test_collect_lists_labelled_callouts_only(tmp_path):
    out = tmp_path / "found.json"
    run(tmp_path, "::: {#nte-b .callout-note}\nx\n:::\n\n::: {#nte-plain}\ny\n:::\n\n"
                  "::: {#wrn-a .callout-warning}\nz\n:::\n", mode="collect", out=str(out))
    labels = json.loads(out.read_text())["labels"]
    assert [(lab["kind"], lab["id"]) for lab in labels] == [("nte", "nte-b"), ("wrn", "wrn-a")]


def test_first_heading_promoted_to_chapter_title(tmp_path):
    """Quarto's book: no `title:` and no `#`, the first heading is the chapter title."""
    out = tmp_path / "found.json"
    source = "Intro text.\n\n## First {#sec-first}\n\n## Second {#sec-second}\n\n### Third\n"
    run(tmp_path, source, mode="collect", out=str(out))
    found = json.loads(out.read_text())
    assert found["title"] == "First"
    assert [(h["id"], h["level"]) for h in found["headers"]] == [
        ("sec-first", 1), ("sec-second", 2), ("third", 3)]
    html = run(tmp_path, source, headers=["2", "2.1", "2.1.1"])
    assert html.index('<h1 id="sec-first">') < html.index("<p>Intro text.</p>") < html.index("<h2")
    assert '<span class="header-section-number">2.1</span> Second</h2>' in html


def test_no_heading_and_front_matter_title_are_not_promoted(tmp_path):
    out = tmp_path / "found.json"
    run(tmp_path, "---\ntitle: Meta\n---\n\n## Sub\n", mode="collect", out=str(out))
    found = json.loads(out.read_text())
    assert [(h["text"], h["level"]) for h in found["headers"]] == [("Meta", 1), ("Sub", 2)]
    run(tmp_path, "Only text.\n", mode="collect", out=str(out))
    assert json.loads(out.read_text())["title"] == ""


TABLE_FLOATS = ("::: {#tbl-t}\n```{=html}\n<div><style scoped>th {}</style>\n"
                "<table class=\"dataframe\"><thead><tr><th></th><th>x</th></tr></thead>"
                "<tbody><tr><th>0</th><td>0.50</td></tr></tbody></table></div>\n```\n\n"
                "A DataFrame\n:::\n\n"
                "::: {#tbl-p}\n``` {.cell-output}\nprinted\n```\n\nPrinted\n:::\n\nSee @tbl-t.\n")
TABLE_REFS = {**REFS, "tbl-p": {"text": "Table A.2", "number": "A.2", "href": "#tbl-p", "kind": "tbl"}}


def test_dataframe_html_in_a_table_float_becomes_a_numbered_table(tmp_path):
    html = run(tmp_path, TABLE_FLOATS, refs=TABLE_REFS)
    assert '<table id="tbl-t" class="dataframe">' in html
    assert "<caption>Table\u00a0A.1: A DataFrame</caption>" in html
    assert "<td>0.50</td>" in html and "<style" not in html
    assert '<figure id="tbl-p">' in html and "<figcaption>Table\u00a0A.2: Printed</figcaption>" in html
    typ = run(tmp_path, TABLE_FLOATS, to="typst", target="typst",
              refs={**TABLE_REFS, "tbl-t": {**REFS["tbl-t"], "href": "#tbl-t"}})
    assert "[0.50]" in typ and "<tbl-t>" in typ          # a real table in the PDF, not raw HTML
    import typst
    assert typst.compile(typ.encode("utf-8"))[:5] == b"%PDF-"


CUSTOM = {"todo": {"title": "To do", "color": "#ff69b4"}, "callout-quiz": {"title": "Quiz", "color": ""}}


def test_custom_callout_types_from_the_extension(tmp_path):
    """coatless-quarto/custom-callout: `::: todo` is a callout; its heading is its title,
    not a numbered section (in the collect pass too)."""
    source = ("::: todo\nDo it.\n:::\n\n::: {.callout-quiz}\n## Question one\nWhy?\n:::\n\n"
              "::: {.todo title=\"Later\"}\nx\n:::\n")
    html = run(tmp_path, source, custom_callouts=CUSTOM)
    assert '<div class="callout callout-todo" role="note">' in html
    assert '<div class="callout-title">\nTo do\n</div>' in html
    assert '<div class="callout callout-callout-quiz" role="note">' in html
    assert '<div class="callout-title">\nQuestion one\n</div>' in html and "<h2" not in html
    assert '<div class="callout-title">\nLater\n</div>' in html
    out = tmp_path / "found.json"
    run(tmp_path, source, mode="collect", out=str(out), custom_callouts=CUSTOM)
    assert json.loads(out.read_text())["headers"] in ([], {})
    typ = run(tmp_path, source, to="typst", target="typst", custom_callouts=CUSTOM)
    assert 'fill: rgb("#ff69b4")' in typ and 'rgb("#6c757d")' in typ and "#strong[To do]" in typ
