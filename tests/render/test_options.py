"""_quarto.yml options the built-in path honours."""
from __future__ import annotations

import dataclasses

import pytest

from bookcheck.model import Kind
from bookcheck.render import AuditError, render_book
from bookcheck.render.html import KATEX, MATHJAX

from .htmlscan import norm, scan


def test_crossref_appendix_title_and_delim(fresh_minibook):
    root, result = fresh_minibook
    crossref = {"appendix-title": "Annex", "appendix-delim": ":"}
    result.project = dataclasses.replace(result.project, crossref=crossref)
    render_book(result, "html", use_quarto=False)
    page = (root / "_book" / "contents" / "constants.html").read_text(encoding="utf-8")
    h1 = [norm(e.text) for e in scan(page) if e.tag == "h1"]
    assert h1 == ["Annex A: Constants"]
    basics = (root / "_book" / "contents" / "basics.html").read_text(encoding="utf-8")
    refs = [norm(e.text) for e in scan(basics) if "quarto-xref" in e.classes]
    assert "Annex A" in refs and "Table A.1" in refs


def test_output_dir_option(fresh_minibook):
    root, result = fresh_minibook
    result.project = dataclasses.replace(result.project, output_dir="site")
    index = render_book(result, "html", use_quarto=False)
    assert index == root / "site" / "index.html" and index.is_file()
    assert not (root / "_book").exists()


@pytest.mark.parametrize("method, url, shown, loads", [
    ("", "", "<math tabindex=\"0\" display=\"block\"", None),         # unset: MathML, offline
    ("mathml", "", "<math tabindex=\"0\" display=\"block\"", None),
    ("mathjax", "", '<span class="math display">\\[', MATHJAX),     # Quarto's default
    ("mathjax", "mj/tex-svg.js", '<span class="math display">\\[', "mj/tex-svg.js"),
    ("katex", "", '<span class="math display"> H = 24', KATEX + "katex.min.js"),
    ("webtex", "", '<img style="vertical-align:middle" src="https://latex.codecogs.com/', None),
])
def test_html_math_method(fresh_minibook, method, url, shown, loads):
    """Each method's math as pandoc writes it (and Quarto: tests/verify/test_audit_math.py),
    audited clean by the render itself."""
    root, result = fresh_minibook
    result.project = dataclasses.replace(result.project, html_math=method, html_math_url=url)
    render_book(result, "html", use_quarto=False)
    page = (root / "_book" / "contents" / "constants.html").read_text(encoding="utf-8")
    assert shown in page
    scripts = [e.attrs.get("src") for e in scan(page) if e.tag == "script"]
    assert (loads in scripts) if loads else all(s is None or "//" not in s for s in scripts)


def test_html_math_method_plain_shows_what_it_cannot_convert_as_raw_tex(fresh_minibook):
    """plain has no `\\frac`: pandoc leaves `$$TeX$$`, one leak at its formula's line."""
    root, result = fresh_minibook
    result.project = dataclasses.replace(result.project, html_math="plain")
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    assert [(f.path, f.line, f.kind) for f in caught.value.findings] == \
        [("contents/scaling.qmd", 25, Kind.LEAK)]
    assert "T = \\frac{1}{\\lambda}" in caught.value.findings[0].reason
