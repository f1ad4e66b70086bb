"""_quarto.yml options the built-in path honours."""
from __future__ import annotations

import dataclasses

from scripts.render import render_book

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
