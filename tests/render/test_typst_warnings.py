"""A typst warning fails the PDF, and the error names the warning."""
from __future__ import annotations

import pytest

from bookcheck.render.errors import RenderError
from bookcheck.render.pdf import compile_typst


def test_a_warning_fails_with_its_text(tmp_path):
    typ = tmp_path / "book.typ"
    typ.write_text('#set text(font: "NoSuchFontAnywhere")\nHello\n', encoding="utf-8")
    with pytest.raises(RenderError) as err:
        compile_typst(typ, tmp_path)
    assert "unknown font family: nosuchfontanywhere" in str(err.value)
    assert "book.typ:1:" in str(err.value)          # where it points


def test_no_warning_gives_the_pdf(tmp_path):
    typ = tmp_path / "book.typ"
    typ.write_text("Hello\n", encoding="utf-8")
    assert compile_typst(typ, tmp_path).startswith(b"%PDF")
