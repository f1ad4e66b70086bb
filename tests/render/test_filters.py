"""The Lua filters on small inputs, through the bundled pandoc."""
from __future__ import annotations

import json

import pytest

from scripts.render import pandoc
from scripts.render.errors import RenderError

REFS = {
    "fig-x": {"text": "Figure 1.1", "number": "1.1", "href": "a.html#fig-x", "kind": "fig"},
    "eq-e": {"text": "Equation 2.3", "number": "2.3", "href": "#eq-e", "kind": "eq"},
    "tbl-t": {"text": "Table A.1", "number": "A.1", "href": "b.html#tbl-t", "kind": "tbl"},
}


def run(tmp_path, markdown: str, to: str = "html5", mode: str = "apply", target: str = "html",
        **ctx) -> str:
    context = tmp_path / "ctx.json"
    context.write_text(json.dumps({"mode": mode, "target": target, "refs": REFS, **ctx}))
    return pandoc.run(["--from=markdown", f"--to={to}", "--mathml", "--wrap=none",
                       f"--metadata=book-context:{context}", f"--metadata=book-target:{target}",
                       *pandoc.filter_args("callouts", "crossref")], stdin=markdown)


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


def test_unknown_reference_fails_with_its_name(tmp_path):
    with pytest.raises(RenderError, match=r"unknown cross-reference @fig-nope \(in filter crossref.lua\)"):
        run(tmp_path, "See @fig-nope.")


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


def test_callout_titles_and_typst_box(tmp_path):
    html = run(tmp_path, '::: {.callout-important title="Mind *this*"}\nBody\n:::\n')
    assert '<div class="callout callout-important" role="note">' in html
    assert '<div class="callout-title">\nMind <em>this</em>\n</div>' in html
    typ = run(tmp_path, "::: {.callout-caution}\nBody\n:::\n", to="typst", target="typst")
    assert typ.startswith("#block(width: 100%") and "#strong[Caution]" in typ and "Body" in typ
