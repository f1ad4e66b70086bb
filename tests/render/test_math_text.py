"""A formula as one line of text for the search index (render/math_text.py,
through search.py's reading of a page): pandoc's MathML of the book's
formulas, exact texts."""
from __future__ import annotations

import pytest

from bookcheck.render import search

ANN = '<annotation data-pagefind-ignore encoding="application/x-tex">TEX</annotation>'


def indexed(mathml: str) -> str:
    html = (f'<main data-pagefind-body><h2 id="s">S</h2><p>So <math display="inline"><semantics>'
            f'{mathml}{ANN}</semantics></math> holds.</p></main>')
    [section] = search.page_sections("a.html", "A", html)
    return section.text


@pytest.mark.parametrize("mathml, text", [
    # Young's interval: a subscript word that has Unicode subscripts, a root
    ('<mrow><msub><mi>τ</mi><mtext mathvariant="normal">opt</mtext></msub><mo>=</mo>'
     '<msqrt><mrow><mn>2</mn><mi>δ</mi><mi>M</mi></mrow></msqrt></mrow>', "So τₒₚₜ = √(2δM) holds."),
    # a subscript word without: one word after "_", not letter-spaced
    ('<mrow><msub><mi>M</mi><mtext mathvariant="normal">cluster</mtext></msub><mo>=</mo>'
     '<mfrac><msub><mi>M</mi><mtext mathvariant="normal">node</mtext></msub><mi>N</mi></mfrac></mrow>',
     "So M_cluster = M_node/N holds."),
    # a fraction of sums, a power, a sum with its index
    ('<mrow><mfrac><mrow><msup><mn>10</mn><mn>9</mn></msup><mi>h</mi></mrow><mtext>FIT</mtext></mfrac>'
     '<mo>=</mo><munderover><mo>∑</mo><mi>i</mi><mi>k</mi></munderover><msub><mi>n</mi><mi>i</mi></msub></mrow>',
     "So 10⁹h/FIT = ∑ᵢᵏ nᵢ holds."),
    ('<mrow><mn>1</mn><mo>−</mo><mi>exp</mi><mo>⁡</mo><mo stretchy="false">(</mo><mo>−</mo><mi>T</mi>'
     '<mi>/</mi><mi>M</mi><mo stretchy="false">)</mo></mrow>', "So 1 − exp( − T/M) holds."),
])
def test_a_formula_is_indexed_as_one_readable_line(mathml, text):
    assert indexed(mathml) == text
