"""The audit reads what the pages show from `_quarto.yml` (scripts/bookcheck/verify/audit_chrome.py):
the title, the `page-footer:`, a book's title block; its numbers and leaks are located
in `_quarto.yml`, and the chapter's own audit no longer takes them for the chapter's.
Pages here are shaped as Quarto 1.7.34 writes them (recorded from a real render:
`<footer class="footer"><div class="nav-footer"><div class="nav-footer-left">`, the
book title in `header#title-block-header` on the first page)."""
from __future__ import annotations

from types import SimpleNamespace

from bookcheck.model import Kind
from bookcheck.verify.audit_chrome import audit_chrome, split_chrome
from bookcheck.verify.audit_html import reader_text
from tests.bookkit import make_book

CONFIG = ("project:\n  type: book\nbook:\n  title: \"Book 3\"\n  page-footer:\n"
          "    left: \"Licensed CC BY 4.0\"\n  chapters:\n    - index.qmd\n")


def page(footer: str, title: str = "Book 3") -> str:
    return (f'<html><body><nav id="quarto-sidebar"><div class="sidebar-title mb-0 py-0">'
            f'<a href="./">{title}</a></div></nav><main class="content">'
            f'<header id="title-block-header" class="quarto-title-block default"><div class="quarto-title">'
            f'<h1 class="title">{title}</h1></div></header><section><h1>Preface</h1><p>Hi.</p>'
            f'</section></main><footer class="footer"><div class="nav-footer">'
            f'<div class="nav-footer-left"><p>{footer}</p></div>'
            f'<div class="nav-footer-center">&nbsp;</div></div></footer></body></html>')


def result(root, literal=False, kind="book"):
    project = SimpleNamespace(root=root, chapters=["index.qmd"], appendices=[], type=kind,
                              literal_numbers=literal)
    return SimpleNamespace(project=project)


def audited(tmp_path, footer: str, literal=False, config=CONFIG):
    make_book(tmp_path, {"_book/index.html": page(footer)}, config)
    return [(f.path, f.line, f.kind) for f in audit_chrome(result(tmp_path, literal), tmp_path / "_book")]


def test_the_book_title_block_and_footer_are_not_the_chapters_text():
    html = page("Licensed CC BY 4.0")
    main, chrome = split_chrome(html, book_index=True)
    assert "Book 3" not in reader_text(main).text and "Hi." in reader_text(main).text
    assert " ".join(reader_text(chrome, whole_page=True).text.split()) == \
        "Book 3 Book 3 Licensed CC BY 4.0"
    # a chapter page's title block is its own heading, read with the chapter
    assert "Book 3" in reader_text(split_chrome(html, book_index=False)[0]).text


def test_numbers_typed_in_quarto_yml_are_the_authors_unless_literal_numbers(tmp_path):
    assert audited(tmp_path, "Licensed CC BY 4.0") == []
    assert audited(tmp_path, "Licensed CC BY 4.0", literal=True) == [
        ("_quarto.yml", 4, Kind.UNACCOUNTED_NUMBER), ("_quarto.yml", 6, Kind.UNACCOUNTED_NUMBER)]


def test_a_footer_number_nobody_typed_or_a_leak_is_a_finding(tmp_path):
    # typed nowhere in _quarto.yml: at the line of the key that wrote the footer, never 0
    assert audited(tmp_path, "Build 7.5") == [("_quarto.yml", 5, Kind.UNACCOUNTED_NUMBER)]
    config = CONFIG.replace("Licensed CC BY 4.0", "See ?@sec-x, {{< var version >}}")
    assert audited(tmp_path, "See ?@sec-x, {{< var version >}}", config=config) == [
        ("_quarto.yml", 6, Kind.LEAK), ("_quarto.yml", 6, Kind.LEAK)]
