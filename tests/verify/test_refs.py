"""The book-wide link checks (scripts.verify.refs): an unknown cross-reference or
citation names a close existing key (issue 31: a message leads to the fix)."""
from __future__ import annotations

from types import SimpleNamespace

from scripts.model import ParsedChapter
from scripts.verify.refs import citations, cross_references


def chapter(**fields) -> ParsedChapter:
    return ParsedChapter(path="one.qmd", text="", **fields)


def test_an_unknown_cross_reference_names_the_close_label():
    parsed = {"one.qmd": chapter(labels=[("tbl-mtbf-cluster", 3)],
                                 references=[("tbl-mtbf-clustr", 9, 5), ("fig-nothing", 10, 1)])}
    assert [f.reason for f in cross_references(parsed)] == [
        "@tbl-mtbf-clustr refers to a label no chapter defines; did you mean @tbl-mtbf-cluster?",
        "@fig-nothing refers to a label no chapter defines"]


def test_an_unknown_citation_names_the_close_key(tmp_path):
    (tmp_path / "refs.bib").write_text("@article{young1974, title = {T}}\n", encoding="utf-8")
    project = SimpleNamespace(root=tmp_path, bibliography=["refs.bib"])
    parsed = {"one.qmd": chapter(citations=[("yung1974", 4, 2), ("smith2027", 5, 2)])}
    assert [f.reason for f in citations(project, parsed)] == [
        "@yung1974: no such citation key in refs.bib; did you mean @young1974?",
        "@smith2027: no such citation key in refs.bib"]
