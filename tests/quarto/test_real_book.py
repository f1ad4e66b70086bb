"""The real book through `make html`'s Quarto path, once (one real-Quarto render).

The pipeline checks a copy of the book, hands the runs to Quarto's freeze and
renders with `quarto render --use-freezer`; render_book fails if Quarto's log
shows it executed anything. The pages must then carry the checked values.
"""
from __future__ import annotations

import contextlib
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .quartokit import REPO, check, copy_sources, quarto_on_path

BOOK_FILES = ["_quarto.yml", "index.qmd", "contents", "references.bib", "numbers.lock", "mlsys"]
# Quarto 1.7 on this book's `format: typst` (a book's Typst PDF needs Quarto 1.9):
# the one warning its render prints (docs/quarto-compat.md).
KNOWN_WARNINGS = ["quarto: WARN: The typst format is not supported by book projects"]
MARKUP = re.compile(r"[$@*\\]|\[@")


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style")

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def page_text(path: Path) -> str:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).replace("\u2019", "'").split())


@pytest.fixture(scope="module")
def quarto_book(quarto_exe, tmp_path_factory):
    from scripts.render import render_book
    root = copy_sources(REPO, tmp_path_factory.mktemp("realbook") / "book", BOOK_FILES)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings][:10]
    err = io.StringIO()
    with quarto_on_path(quarto_exe), contextlib.redirect_stderr(err):
        index = render_book(result, "html")
    return root, result, index, err.getvalue()


def test_quarto_executes_nothing_and_warns_only_about_typst(quarto_book):
    root, result, index, stderr = quarto_book
    assert index == root / "_book" / "index.html"
    handed = sorted(p.parent.parent.relative_to(root / ".quarto" / "_freeze").as_posix()
                    for p in (root / ".quarto" / "_freeze").rglob("execute-results/html.json"))
    assert handed == sorted(rel[:-len(".qmd")] for rel, parsed in result.parsed.items()
                            if parsed.cells)
    assert [ln for ln in stderr.splitlines() if ln.startswith("quarto:")] == KNOWN_WARNINGS


def test_pages_carry_every_plain_ledger_value(quarto_book):
    """Each value of numbers.lock without Markdown markup (math, citations and
    cross-references render as other text) is on its chapter's page."""
    root = quarto_book[0]
    pages, missing, checked = {}, [], 0
    for line in (root / "numbers.lock").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        key, value = line.split("\t", 1)
        rel = key.split(" · ")[0]
        value = " ".join(value.replace("`", "").split())
        if MARKUP.search(value):
            continue
        page = root / "_book" / (rel[:-len(".qmd")] + ".html")
        if page not in pages:
            pages[page] = page_text(page)
        checked += 1
        if value not in pages[page]:
            missing.append(f"{key}: {value}")
    assert checked and not missing, missing[:10]


def test_quarto_pages_pass_the_audit_and_a_planted_number_fails_it(quarto_book):
    """render_book audited Quarto's pages before the swap (the fixture's render
    would have raised AuditError); a number planted in one of them is found."""
    from scripts.verify.audit import audit_rendered
    root, result = quarto_book[0], quarto_book[1]
    assert audit_rendered(result, "html", root / "_book") == []
    page = root / "_book" / "contents" / "failure-at-scale.html"
    text = page.read_text(encoding="utf-8")
    planted = text.replace("</main>", "<p>Planted 7319 nodes.</p></main>", 1)
    assert planted != text
    page.write_text(planted, encoding="utf-8")
    try:
        found = audit_rendered(result, "html", root / "_book")
    finally:
        page.write_text(text, encoding="utf-8")
    assert [(f.kind, "7319" in f.reason) for f in found] == [("unaccounted-number", True)]
