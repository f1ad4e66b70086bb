"""The book-wide link checks (bookcheck.verify.refs): an unknown cross-reference or
citation names a close existing key (issue 31: a message leads to the fix)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from bookcheck.model import ParsedChapter
from bookcheck.verify.refs import citations, cross_references


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


def test_a_website_resolves_a_reference_only_on_its_own_page():
    """Quarto 1.7.34 leaves `@sec-`, `@fig-`, `@tbl-`, `@eq-` of another page of a website
    unresolved (`?@sec-a`): a website-ref at the reference, with the link to write."""
    parsed = {"a.qmd": ParsedChapter(path="a.qmd", text="", labels=[("sec-a", 5), ("fig-a", 9)],
                                     references=[("fig-a", 12, 3)]),
              "sub/b.qmd": ParsedChapter(path="sub/b.qmd", text="",
                                         references=[("sec-a", 4, 7), ("fig-b", 6, 1)])}
    found = [(f.path, f.line, f.col, f.kind, f.reason) for f in cross_references(parsed, "website")]
    assert found == [
        ("sub/b.qmd", 4, 7, "website-ref",
         "@sec-a is defined on another page (a.qmd:5); a website project resolves a reference "
         "only within its page (Quarto shows ?@sec-a): link to it with `[text](../a.qmd#sec-a)`, "
         "or make the project a book (`project: type: book`)"),
        ("sub/b.qmd", 6, 1, "unknown-ref", "@fig-b refers to a label no page defines")]
    assert cross_references(parsed, "book")[0].kind == "unknown-ref"      # a book: sec-a resolves
    assert len(cross_references(parsed, "book")) == 1


def test_a_label_on_two_pages_of_a_website_is_no_clash_but_twice_on_one_page_is():
    parsed = {"a.qmd": ParsedChapter(path="a.qmd", text="", labels=[("fig-x", 3), ("fig-y", 4),
                                                                    ("fig-y", 8)]),
              "b.qmd": ParsedChapter(path="b.qmd", text="", labels=[("fig-x", 2)],
                                     references=[("fig-x", 5, 1)])}
    assert [(f.path, f.line, f.kind) for f in cross_references(parsed, "website")] == [
        ("a.qmd", 8, "duplicate-label")]
    assert [(f.path, f.line) for f in cross_references(parsed, "book")] == [("a.qmd", 8), ("b.qmd", 2)]


@pytest.mark.kernel
def test_check_book_reads_a_website_as_a_website(tmp_path):
    """Through the whole check: the project's type decides (a book resolves both)."""
    from bookcheck.verify.check import check_book
    from tests.bookkit import make_book
    pages = {"index.qmd": "# Home\n\nSee @fig-dot.\n",
             "a.qmd": "# A {#sec-a}\n\n![Dot](dot.png){#fig-dot}\n", "b.qmd": "![Dot](dot.png){#fig-dot}\n", "dot.png": "png"}
    site = make_book(tmp_path / "site", pages, "project:\n  type: website\n")
    found = [(f.path, f.line, f.col, f.kind) for f in check_book(site).findings]
    assert found == [("index.qmd", 3, 5, "website-ref")]
    book = make_book(tmp_path / "book", pages, "book:\n  chapters:\n    - index.qmd\n    - a.qmd\n"
                                               "    - b.qmd\n")
    assert [(f.path, f.kind) for f in check_book(book).findings] == [("b.qmd", "duplicate-label")]


def test_a_reference_to_the_heading_quarto_made_the_title_is_unresolved():
    """Quarto 1.7.34 drops that heading's label with it (read/jupyter_title.py)."""
    parsed = {"b.qmd": ParsedChapter(path="b.qmd", text="", labels=[("sec-b", 1), ("sec-c", 7)],
                                     references=[("sec-b", 9, 3), ("sec-c", 9, 12)], title_heading=1)}
    assert [(f.line, f.col, f.kind, f.reason) for f in cross_references(parsed, "website")] == [
        (9, 3, "website-ref", "@sec-b is the heading at line 1, which Quarto makes this page's "
         "title (a page run by Jupyter without `title:` outside a book) and drops with its label "
         "(Quarto shows ?@sec-b): give the page a `title:` in its front matter")]


def test_a_missing_bibliography_file_is_found_at_its_line_in_quarto_yml(tmp_path):
    """Issue 34: the finding names the `_quarto.yml` line that names the file, not line 0."""
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\nbibliography:\n  - gone.bib\n",
                                          encoding="utf-8")
    project = SimpleNamespace(root=tmp_path, bibliography=["gone.bib"])
    parsed = {"one.qmd": chapter(citations=[("young1974", 4, 2)])}
    assert [(f.path, f.line, f.kind) for f in citations(project, parsed)] == \
        [("_quarto.yml", 4, "bibliography")]
