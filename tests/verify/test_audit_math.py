r"""The audit's reading of math as each `html-math-method` publishes it (bookcheck.verify.
audit_html), and the raw TeX of a formula the renderer could not convert, located at its
formula (bookcheck.verify.inline_math.formula_leaks). Pure: no render.

RECORDED is what Quarto 1.7.34 wrote into `<main>` for the paragraphs of SOURCE under
each method (a tiny book with `format: html: html-math-method: <method>`, rendered with
`quarto render`): mathjax (Quarto's default) and katex keep the TeX in
`<span class="math">`, plain writes HTML there, webtex an `<img>` with the TeX as its alt,
gladtex `<eq>`, mathml `<math>`; with mathml and plain a formula pandoc cannot convert
stays `$TeX$` in the span. Quarto escapes a str inside math (`11\,025`, `0\.50`: the
inline-math finding), not a `Markdown(...)` value.
"""
from __future__ import annotations

import pytest

from bookcheck.model import Kind
from bookcheck.read.qmd import parse_chapter
from bookcheck.verify.audit import _blank, account, leak_findings
from bookcheck.verify.audit_html import reader_text
from bookcheck.verify.audit_tokens import Value, number_tokens
from bookcheck.verify.inline_math import formula_leaks

SOURCE = r"""# Math

```{python}
n = "11,025"
r = "0.50"
k = 1024
from IPython.display import Markdown
```

Inline $x^2 + 3 = 12$ and $\frac{1}{2}$ then display:

$$ T = 42 \text{ ms} $$ {#eq-t}

Value in math: $a = `{python} n`$ and $b = `{python} r`$ and $c = `{python} k`$.

Markdown: $d = `{python} Markdown(n)`$ and $e = `{python} Markdown(r)`$.
"""

RECORDED = {
    "mathjax": r"""<p>Inline <span class="math inline">\(x^2 + 3 = 12\)</span> and <span class="math inline">\(\frac{1}{2}\)</span> then display:</p>
<p><span id="eq-t"><span class="math display">\[ T = 42 \text{ ms}  \tag{1.1}\]</span></span></p>
<p>Value in math: <span class="math inline">\(a = 11\,025\)</span> and <span class="math inline">\(b = 0\.50\)</span> and <span class="math inline">\(c = 1024\)</span>.</p>
<p>Markdown: <span class="math inline">\(d = 11,025\)</span> and <span class="math inline">\(e = 0.50\)</span>.</p>""",
    "katex": r"""<p>Inline <span class="math inline">x^2 + 3 = 12</span> and <span class="math inline">\frac{1}{2}</span> then display:</p>
<p><span id="eq-t"><span class="math display"> T = 42 \text{ ms}  \tag{1.1}</span></span></p>
<p>Value in math: <span class="math inline">a = 11\,025</span> and <span class="math inline">b = 0\.50</span> and <span class="math inline">c = 1024</span>.</p>
<p>Markdown: <span class="math inline">d = 11,025</span> and <span class="math inline">e = 0.50</span>.</p>""",
    "mathml": r"""<p>Inline <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>3</mn><mo>=</mo><mn>12</mn></mrow><annotation encoding="application/x-tex">x^2 + 3 = 12</annotation></semantics></math> and <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mfrac><mn>1</mn><mn>2</mn></mfrac><annotation encoding="application/x-tex">\frac{1}{2}</annotation></semantics></math> then display:</p>
<p><span id="eq-t"><math display="block" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>T</mi><mo>=</mo><mn>42</mn><mrow><mspace width="0.333em"></mspace><mtext mathvariant="normal"> ms</mtext></mrow><mspace width="2.0em"></mspace><mrow><mo stretchy="true" form="prefix">(</mo><mn>1.1</mn><mo stretchy="true" form="postfix">)</mo></mrow></mrow><annotation encoding="application/x-tex"> T = 42 \text{ ms}  \qquad(1.1)</annotation></semantics></math></span></p>
<p>Value in math: <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>a</mi><mo>=</mo><mn>11</mn><mspace width="0.167em"></mspace><mn>025</mn></mrow><annotation encoding="application/x-tex">a = 11\,025</annotation></semantics></math> and <span class="math inline">$b = 0\.50$</span> and <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>c</mi><mo>=</mo><mn>1024</mn></mrow><annotation encoding="application/x-tex">c = 1024</annotation></semantics></math>.</p>
<p>Markdown: <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>d</mi><mo>=</mo><mn>11</mn><mo>,</mo><mn>025</mn></mrow><annotation encoding="application/x-tex">d = 11,025</annotation></semantics></math> and <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><mi>e</mi><mo>=</mo><mn>0.50</mn></mrow><annotation encoding="application/x-tex">e = 0.50</annotation></semantics></math>.</p>""",
    "plain": r"""<p>Inline <span class="math inline"><em>x</em><sup>2</sup> + 3 = 12</span> and <span class="math inline">$\frac{1}{2}$</span> then display:</p>
<p><span id="eq-t"><span class="math display"><em>T</em> = 42 ms   (1.1)</span></span></p>
<p>Value in math: <span class="math inline"><em>a</em> = 11 025</span> and <span class="math inline">$b = 0\.50$</span> and <span class="math inline"><em>c</em> = 1024</span>.</p>
<p>Markdown: <span class="math inline"><em>d</em> = 11, 025</span> and <span class="math inline"><em>e</em> = 0.50</span>.</p>""",
    "webtex": r"""<p>Inline <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20x%5E2%20%2B%203%20%3D%2012" alt="x^2 + 3 = 12" title="x^2 + 3 = 12" class="math inline"> and <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20%5Cfrac%7B1%7D%7B2%7D" alt="\frac{1}{2}" title="\frac{1}{2}" class="math inline"> then display:</p>
<p><span id="eq-t"><img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Cdisplaystyle%20T%20%3D%2042%20%5Ctext%7B%20ms%7D%20%20%5Cqquad%281.1%29" alt="T = 42 \text{ ms}  \qquad(1.1)" title="T = 42 \text{ ms}  \qquad(1.1)" class="math display"></span></p>
<p>Value in math: <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20a%20%3D%2011%5C%2C025" alt="a = 11\,025" title="a = 11\,025" class="math inline"> and <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20b%20%3D%200%5C.50" alt="b = 0\.50" title="b = 0\.50" class="math inline"> and <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20c%20%3D%201024" alt="c = 1024" title="c = 1024" class="math inline">.</p>
<p>Markdown: <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20d%20%3D%2011%2C025" alt="d = 11,025" title="d = 11,025" class="math inline"> and <img style="vertical-align:middle" src="https://latex.codecogs.com/svg.latex?%5Ctextstyle%20e%20%3D%200.50" alt="e = 0.50" title="e = 0.50" class="math inline">.</p>""",
    "gladtex": r"""<p>Inline <eq env="math">x^2 + 3 = 12</eq> and <eq env="math">\frac{1}{2}</eq> then display:</p>
<p><span id="eq-t"><eq env="displaymath"> T = 42 \text{ ms}  \qquad(1.1)</eq></span></p>
<p>Value in math: <eq env="math">a = 11\,025</eq> and <eq env="math">b = 0\.50</eq> and <eq env="math">c = 1024</eq>.</p>
<p>Markdown: <eq env="math">d = 11,025</eq> and <eq env="math">e = 0.50</eq>.</p>""",
}
METHODS = sorted(RECORDED)
#: the formulas pandoc left as TeX (mathml, plain: it converts no `\frac`, no `\.`)
RAW = {"mathml": [r"$b = 0\.50$"], "plain": [r"$\frac{1}{2}$", r"$b = 0\.50$"],
       # gladtex: every formula, TeX for a program neither Quarto nor this renderer runs
       "gladtex": [r"x^2 + 3 = 12", r"\frac{1}{2}", r"T = 42 \text{ ms} \qquad(1.1)", r"a = 11\,025",
                   r"b = 0\.50", "c = 1024", "d = 11,025", "e = 0.50"]}


def page(method: str, drop: str = "") -> str:
    html = RECORDED[method]
    return "<main>" + (html.split(drop)[0] if drop else html) + "</main>"


def values(*pairs):
    return [Value([n], line, where, False) for n, line, where in pairs]


@pytest.mark.parametrize("method", METHODS)
def test_every_methods_math_is_math_not_raw_tex(method):
    """~1,000 false `\\frac`/`\\text` leaks on a real book under Quarto's default MathJax."""
    reader = reader_text(page(method))
    assert [" ".join(reader.text[a:b].split()) for a, b in reader.raw_math] == RAW.get(method, [])
    assert leak_findings(parse_chapter("m.qmd", SOURCE), "m.html",
                         _blank(reader.text, reader.soft + reader.raw_math)) == []


@pytest.mark.parametrize("method", METHODS)
def test_a_value_shown_as_markdown_inside_math_is_found_there(method):
    reader = reader_text(page(method))
    shown = values(("11,025", 17, "d"), ("0.50", 17, "e"))
    found = account(parse_chapter("m.qmd", SOURCE), "m.html", reader.text, shown,
                    reader.exempt, reader.soft)
    assert [f for f in found if f.kind == Kind.MISSING_VALUE] == []


@pytest.mark.parametrize("method", METHODS)
def test_a_str_value_escaped_inside_math_is_missing_from_the_page(method):
    reader = reader_text(page(method, "<p>Markdown"))
    found = account(parse_chapter("m.qmd", SOURCE), "m.html", reader.text,
                    values(("11,025", 15, "a"), ("0.50", 15, "b")), reader.exempt, reader.soft)
    assert [(f.kind, f.line) for f in found if f.kind == Kind.MISSING_VALUE] == \
        [(Kind.MISSING_VALUE, 15)] * 2


def test_typed_numbers_of_a_formula_are_the_authors():
    reader = reader_text(page("mathjax"))
    found = account(parse_chapter("m.qmd", SOURCE), "m.html", reader.text, [],
                    reader.exempt, reader.soft, typed_ok=False)
    assert found == []


@pytest.mark.parametrize("html", [
    "<math><mn>961</mn><mo>,</mo><mn>538</mn><mtext> s</mtext></math>",
    r'<span class="math inline">\(961{,}538 \text{ s}\)</span>',
])
def test_a_number_split_at_its_thousands_separator_in_math_is_one_number(html):
    reader = reader_text(f"<main><p>T = {html}, 7, 12</p></main>")
    assert [n for n, _, _ in number_tokens(reader.text)] == ["961,538", "7", "12"]


def test_a_formula_left_as_raw_tex_is_one_leak_at_its_formula():
    """Not at the first line naming one of its macros (`\\text` on line 1)."""
    source = "Ratio $T_{\\text{sync}}$ first.\n\nThen\n$$ \\text{share} = `{python} share` \\% $$\n"
    parsed = parse_chapter("m.qmd", source)
    reader = reader_text('<main><p>Ratio <math><mi>T</mi></math> first.</p>'
                         '<p>Then <span class="math display">$$ \\text{share} = 0\\.5 \\% $$</span></p></main>')
    found = formula_leaks(parsed, "m.html", reader.text, reader.raw_math)
    assert [(f.kind, f.line) for f in found] == [(Kind.LEAK, 4)]
    assert r"\text{share} = 0\.5" in found[0].reason


def test_a_parenthesised_number_in_a_formula_is_no_equation_number():
    """MathJax's TeX `(0.99)^{100}` is a value, not a renderer's "(1.2)"."""
    reader = reader_text(r'<main><p>P is <span class="math inline">\(1 - (0.99)^{100}\)</span></p></main>')
    assert account(parse_chapter("m.qmd", "P is `{python} p`\n"), "m.html", reader.text,
                   [Value(["1", "0.99", "100"], 1, "p", False)], reader.exempt, reader.soft) == []
