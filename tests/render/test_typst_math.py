"""TeX math spaces in the PDF (render/typst_math.py, issue 35): pandoc's typst
writer floors a space it has no name for to whole ems (`\\!` -> -1 em, `\\;`
and `\\hspace{0.5em}` -> 0) and cannot parse `\\hspace{2mm}`; the PDF path
marks them in the AST and writes each at its true width. Measured on glyph
positions of a PDF typeset by pandoc and typst, as the book's PDF is."""
from __future__ import annotations

import json
import subprocess

import pdfplumber
import pytest

from bookcheck.binaries import pandoc_binary
from bookcheck.render import typst_math


def _pandoc(args: list[str], stdin: str) -> str:
    done = subprocess.run([pandoc_binary(), *args], input=stdin, capture_output=True, text=True, check=True)
    return done.stdout


def gap_pt(tmp_path, tex: str, marked: bool = True) -> float:
    """The room between the glyphs `a` and `b` of the inline formula `tex`, in pt."""
    ast = json.loads(_pandoc(["--from=markdown", "--to=json"], f"${tex}$"))
    widths: list[str] = []
    if marked:
        typst_math.mark_math(ast["blocks"], widths)
    source = _pandoc(["--from=json", "--to=typst"], json.dumps(ast))
    source = typst_math.restore_spaces(source, widths)
    typ = tmp_path / "m.typ"
    typ.write_text("#set page(width: 8cm, height: 3cm)\n#set text(size: 12pt)\n" + source, encoding="utf-8")
    import typst
    pdf = tmp_path / "m.pdf"
    typst.compile(str(typ), output=str(pdf))
    with pdfplumber.open(str(pdf)) as doc:
        a, b = sorted((c for c in doc.pages[0].chars if c["text"].strip()), key=lambda c: c["x0"])
    return b["x0"] - a["x1"]


@pytest.mark.parametrize(("tex", "extra_pt"), [
    (r"a\;b", 12 * 5 / 18),          # thick space: 5/18 em
    (r"a\!b", -12 / 6),              # negative thin space: -1/6 em
    (r"a\enspace b", 6.0),           # half an em
    (r"a\hspace{0.5em}b", 6.0),
    (r"a\hspace{2mm}b", 2 / 25.4 * 72),
    (r"a\mkern9mu b", 6.0),          # 9 mu = 1/2 em
    (r"a\,b", 12 / 6),               # thin space: texmath's own `thin`, untouched
])
def test_a_math_space_is_typeset_at_its_width(tmp_path, tex, extra_pt):
    assert gap_pt(tmp_path, tex) - gap_pt(tmp_path, "ab") == pytest.approx(extra_pt, abs=0.05)


def test_texmath_alone_loses_the_thick_space(tmp_path):
    """The bug as pandoc writes it: `\\;` is `#h(0em)`, no room at all."""
    assert gap_pt(tmp_path, r"a\;b", marked=False) == pytest.approx(gap_pt(tmp_path, "ab"), abs=0.05)


def test_marking_keeps_line_breaks_and_named_spaces():
    widths: list[str] = []
    tex = r"a \\ b\,c\quad d\;e\;f\!g"
    marked = typst_math.mark_spaces(tex, widths)
    assert marked == r"a \\ b\,c\quad d\hspace{9000em}e\hspace{9000em}f\hspace{9001em}g"
    assert widths == ["0.2778em", "-0.1667em"]
    assert typst_math.restore_spaces("x #h(9001em) y #h(2em) #h(9000em)", widths) == \
        "x #h(-0.1667em) y #h(2em) #h(0.2778em)"
