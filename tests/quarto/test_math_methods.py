"""What Quarto 1.7.34 writes for math under each `html-math-method` is still what
tests/verify/test_audit_math.py recorded (and audits there): the tiny book of its SOURCE
rendered live with each method (local-only, ~6 renders)."""
from __future__ import annotations

import pytest

from tests.bookkit import make_book
from tests.quarto.quartokit import quarto_render
from tests.verify.test_audit_math import RECORDED, SOURCE

pytestmark = pytest.mark.slow

QUARTO_YML = """project:
  type: book
book:
  title: "M"
  chapters:
    - index.qmd
format:
  html:
    html-math-method: {method}
"""


@pytest.mark.parametrize("method", sorted(RECORDED))
def test_quarto_writes_the_recorded_math(quarto_exe, tmp_path, method):
    root = make_book(tmp_path / method, {"index.qmd": SOURCE + "\nOutside.\n"},
                     QUARTO_YML.format(method=method))
    quarto_render(quarto_exe, root)
    page = (root / "_book" / "index.html").read_text(encoding="utf-8")
    assert page[page.index("<p>Inline"):page.index("<p>Outside")].strip() == RECORDED[method]
