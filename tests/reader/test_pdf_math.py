"""No glyph of a formula is drawn over its neighbour in the real book's PDF
(issue 35): pandoc's typst writer wrote `\\!` (a negative thin space) as a
full em back, so in Eq. A.4 `exp` overprinted its parenthesis
(render/typst_math.py makes it -1/6 em).

Glyph boxes (advance widths) of the math font from pdfplumber. Two glyphs
of one size may overlap by a negative thin space (1/6 em, `\\!` by design)
and a kern, not by a quarter em; glyphs of different sizes (sub- and
superscripts tucked under an italic letter) are left out.
"""
from __future__ import annotations

import pdfplumber
import pytest

from .test_real_book_pdf import real_pdf  # noqa: F401  (module fixture: one render)

pytestmark = [pytest.mark.slow]


def overprinted_glyphs(pdf) -> list[str]:
    """Pairs of same-size math glyphs on a page whose boxes overlap (both
    ways) by more than a quarter of their size horizontally."""
    found = []
    with pdfplumber.open(str(pdf)) as doc:
        for number, page in enumerate(doc.pages, start=1):
            glyphs = sorted((c for c in page.chars if "Math" in c["fontname"] and c["text"].strip()),
                            key=lambda c: c["x0"])
            for i, a in enumerate(glyphs):
                for b in glyphs[i + 1:]:
                    if b["x0"] >= a["x1"]:
                        break                   # sorted by left edge: nothing further meets a
                    if abs(a["size"] - b["size"]) > 0.1:
                        continue
                    across = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
                    down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
                    if across > a["size"] / 4 and down > 0:
                        found.append(f"page {number}: {a['text']!r} and {b['text']!r} ({across:.1f} pt)")
    return found


def compiled(tmp_path, formula: str):
    import typst
    typ = tmp_path / "m.typ"
    typ.write_text(f"#set page(width: 8cm, height: 3cm)\n$ {formula} $\n", encoding="utf-8")
    pdf = tmp_path / "m.pdf"
    typst.compile(str(typ), output=str(pdf))
    return pdf


def test_overprint_detector_bites(tmp_path):
    """Planted: texmath's `\\!` (-1 em); the negative thin space passes."""
    assert overprinted_glyphs(compiled(tmp_path, "1 - exp #h(-1em) (- T / M)"))
    assert overprinted_glyphs(compiled(tmp_path, "1 - exp #h(-0.1667em) (- T / M)")) == []


def test_no_math_glyphs_overprint_in_the_book(real_pdf):
    _, pdf = real_pdf
    with pdfplumber.open(str(pdf)) as doc:
        assert sum(1 for p in doc.pages for c in p.chars if "Math" in c["fontname"]) > 300
    assert overprinted_glyphs(pdf) == []
