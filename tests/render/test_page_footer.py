"""The built-in page shows `page-footer:` and the title as Quarto 1.7.34 does, and the
audit reads them (scripts/bookcheck/render/footer.py, scripts/bookcheck/verify/audit_chrome.py).

Quarto's footer, recorded from a real render of `book: page-footer: "Footer 3.1 *text*"`:
`<footer class="footer"><div class="nav-footer">` with `nav-footer-left` `&nbsp;`,
`nav-footer-center` `<p>Footer 3.1 <em>text</em></p>`, `nav-footer-right` `&nbsp;`; a
side given as a list of items is `<ul class="footer-items list-unstyled">` of
`<li class="nav-item"><a class="nav-link" href=…><p>text</p></a></li>`."""
from __future__ import annotations

import re

import pytest

from bookcheck.model import Kind
from bookcheck.render import AuditError, render_book
from tests.bookkit import check, make_book

pytestmark = [pytest.mark.slow, pytest.mark.kernel]     # every test checks its book

BOOK = ("project:\n  type: book\nbook:\n  title: \"Book 3\"\n  page-footer:\n"
        "    center: \"Footer 3.1 *text*\"\n    right:\n      - text: \"Version 1.2\"\n"
        "        href: ch.qmd\n  chapters:\n    - index.qmd\n    - ch.qmd\n")
PAGES = {"index.qmd": "# Preface\n\nHi.\n", "ch.qmd": "# Chapter\n\nText.\n"}


def sides(page: str) -> dict[str, str]:
    footer = re.search(r'<footer class="footer">(.*?)</footer>', page, re.S).group(1)
    return {m.group(1): " ".join(m.group(2).split())
            for m in re.finditer(r'<div class="nav-footer-(\w+)">(.*?)</div>', footer, re.S)}


def test_the_footer_is_on_every_page_as_quarto_writes_it_and_the_title_is_no_finding(tmp_path):
    root = make_book(tmp_path / "book", PAGES, BOOK)
    result = check(root)
    assert result.ok
    render_book(result, "html", use_quarto=False)      # "Book 3", "3.1", "1.2": typed in _quarto.yml
    for page in ("index.html", "ch.html"):
        found = sides((root / "_book" / page).read_text(encoding="utf-8"))
        assert found["left"] == "&nbsp;"
        assert found["center"] == "<p>Footer 3.1 <em>text</em></p>"
        assert found["right"] == ('<ul class="footer-items list-unstyled"><li class="nav-item">'
                                  '<a class="nav-link" href="ch.html"><p>Version 1.2</p></a></li></ul>')


def test_a_typed_number_in_the_footer_is_a_finding_in_quarto_yml_under_literal_numbers(tmp_path):
    root = make_book(tmp_path / "book", PAGES, BOOK + "verify:\n  literal-numbers: true\n")
    result = check(root)
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    found = {(f.path, f.line, f.kind) for f in caught.value.findings}
    assert found == {("_quarto.yml", 4, Kind.UNACCOUNTED_NUMBER),     # the title's 3
                     ("_quarto.yml", 6, Kind.UNACCOUNTED_NUMBER),     # 3.1
                     ("_quarto.yml", 8, Kind.UNACCOUNTED_NUMBER)}     # 1.2
