"""Render the fixture book (2 chapters + 1 appendix) to HTML and read it back."""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

import pytest

from bookcheck.render import render_book

from .htmlscan import norm, scan

PAGES = ["index.html", "contents/basics.html", "contents/scaling.html", "contents/constants.html"]


@pytest.fixture(scope="module")
def book(minibook) -> Path:
    root, result = minibook
    index = render_book(result, "html", use_quarto=False)
    assert index == root / "_book" / "index.html"
    return root / "_book"


@pytest.fixture(scope="module")
def pages(book) -> dict:
    return {name: (book / name).read_text(encoding="utf-8") for name in PAGES}


def elements(pages, name, tag=None, cls=None):
    return [e for e in scan(pages[name])
            if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]


def test_one_page_per_chapter_and_assets(book):
    for name in PAGES + ["book.css", "contents/basics_files/figure-html/fig-growth-output-1.png"]:
        assert (book / name).is_file(), name
    assert not list(book.parent.glob("_book.tmp-*")), "staging directory left behind"


def test_book_title_and_chapter_headings(pages):
    title = elements(pages, "contents/basics.html", "title")[0]
    assert norm(title.text) == "1 Basics – Mini Book"
    h1 = {name: norm(elements(pages, name, "h1")[0].text) for name in PAGES}
    assert h1 == {"index.html": "Preface", "contents/basics.html": "1 Basics",
                  "contents/scaling.html": "2 Scaling",
                  "contents/constants.html": "Appendix A — Constants"}
    sections = [norm(e.text) for e in elements(pages, "contents/scaling.html", "h3")]
    assert sections == ["2.0.1 A subsection"]
    # the preface and its sections are unnumbered
    assert not elements(pages, "index.html", cls="header-section-number")
    assert not elements(pages, "index.html", cls="chapter-number")


def test_numbered_captions(pages):
    captions = {name: [norm(e.text) for e in scan(pages[name]) if e.tag in ("caption", "figcaption")]
                for name in PAGES}
    assert captions["contents/basics.html"] == ["Table 1.1: Failure rates by component",
                                                "Figure 1.1: Failures grow with the cluster"]
    assert captions["contents/scaling.html"] == ["Table 2.1: Failures by cluster size"]
    assert captions["contents/constants.html"] == ["Table A.1: Time constants",
                                                   "Figure A.1: A box drawn in SVG.",
                                                   "Table A.2: Units in seconds."]
    tables = {name: len(elements(pages, name, "table")) for name in PAGES}
    assert tables == {"index.html": 0, "contents/basics.html": 1,
                      "contents/scaling.html": 1, "contents/constants.html": 2}


def test_div_floats_become_figure_and_table(pages, book):
    figures = elements(pages, "contents/constants.html", "figure")
    assert [f.attrs["id"] for f in figures] == ["tbl-constants", "fig-box", "tbl-div"]
    img = elements(pages, "contents/constants.html", "img")[0]
    assert img.attrs["src"] == "images/box.svg"
    assert img.attrs["alt"] == "A pale blue box with a dark blue border"
    assert (book / "contents" / "images" / "box.svg").is_file()      # copied from the sources
    ids = [t.attrs.get("id") for t in elements(pages, "contents/constants.html", "figure", "table-float")]
    assert ids == ["tbl-constants", "tbl-div"]
    assert ("Figure A.1", "#fig-box") in [(t, h.replace("constants.html", "")) for t, h in
                                           xrefs(pages, "contents/constants.html")]


def test_figure_has_alt_text_and_id(pages):
    figure = [f for f in elements(pages, "contents/basics.html", "figure")
              if "table-float" not in f.classes][0]
    assert figure.attrs["id"] == "fig-growth"
    img = elements(pages, "contents/basics.html", "img")[0]
    assert img.attrs["alt"] == "A tiny blue rectangle standing in for a plot"
    assert img.attrs["src"] == "basics_files/figure-html/fig-growth-output-1.png"


def xrefs(pages, name):
    return [(norm(e.text), e.attrs["href"]) for e in elements(pages, name, "a", "quarto-xref")]


def test_cross_chapter_references_resolve(pages):
    assert xrefs(pages, "index.html") == [
        ("Chapter 1", "contents/basics.html#sec-basics"),
        ("Appendix A", "contents/constants.html#sec-constants"),
        ("Table 1.1", "contents/basics.html#tbl-rates"),
    ]
    assert xrefs(pages, "contents/scaling.html") == [
        ("Section 1.1", "basics.html#sec-expected"),
        ("Equation 1.1", "basics.html#eq-expected"),
        ("Table 1.1", "basics.html#tbl-rates"),
        ("Figure 1.1", "basics.html#fig-growth"),
        ("Equation 2.1", "scaling.html#eq-mtbf"),
        ("Section 1.2", "basics.html#sec-printing"),
    ]
    assert ("Table A.1", "constants.html#tbl-constants") in xrefs(pages, "contents/basics.html")
    assert ("Equation A.1", "constants.html#eq-hours") in xrefs(pages, "contents/constants.html")


def test_every_reference_target_exists(pages):
    ids = {name: {e.attrs["id"] for e in scan(pages[name]) if "id" in e.attrs} for name in PAGES}
    checked_links = 0
    for name in PAGES:
        for _, href in xrefs(pages, name):
            path, _, anchor = href.partition("#")
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), path))
            assert anchor in ids[target], f"{name}: {href} has no target"
            checked_links += 1
    assert checked_links >= 14


def test_no_unresolved_markers(pages):
    for name, text in pages.items():
        for marker in ("{python}", "?@", "??", "@tbl-", "@fig-", "@sec-", "@eq-", "{#"):
            assert marker not in text, f"{marker!r} left in {name}"


def test_inline_values_substituted(pages):
    basics = norm(pages["contents/basics.html"])
    assert "A cluster of 1,024 nodes fails at a rate of 0.25 per day" in basics
    cells = [norm(e.text) for e in elements(pages, "contents/constants.html", "td")]
    assert cells[:4] == ["Seconds per day", "86,400", "Hours per year", "8,760"]
    cells = [norm(e.text) for e in elements(pages, "contents/scaling.html", "td")]
    assert cells == ["1,024", "256", "16,384", "4,096"]


def test_citations_and_reference_list(pages):
    basics = pages["contents/basics.html"]
    cites = [norm(e.text) for e in elements(pages, "contents/basics.html", cls="citation")]
    assert cites == ["(Hennessy and Patterson 2017)"]
    entries = elements(pages, "contents/basics.html", cls="csl-entry")
    assert [e.attrs["id"] for e in entries] == ["ref-hennessy2017"]
    assert "Computer Architecture" in entries[0].text
    assert '<h2 class="unnumbered references-title" id="bibliography">References</h2>' in basics
    entries = elements(pages, "contents/scaling.html", cls="csl-entry")
    assert [e.attrs["id"] for e in entries] == ["ref-dean2013tail"]
    assert not elements(pages, "index.html", cls="csl-entry")


def test_callouts_with_titles(pages):
    def callouts(name):
        return [(next(c for c in e.classes if c.startswith("callout-")),
                 norm(next(ch for ch in e.children if "callout-title" in ch.classes).text))
                for e in elements(pages, name, "div", "callout")]
    assert callouts("contents/basics.html") == [("callout-note", "Why it matters")]
    assert callouts("contents/scaling.html") == [("callout-warning", "Warning"),
                                                 ("callout-tip", "A tip with a heading title")]
    body = elements(pages, "contents/basics.html", "div", "callout-body")[0]
    assert norm(body.text) == "With 1024 nodes something is always broken."


def test_math_is_mathml_with_equation_numbers(pages):
    for name, count in [("contents/basics.html", 1), ("contents/scaling.html", 1),
                        ("contents/constants.html", 1)]:
        assert len(elements(pages, name, "math")) == count, name
    eqs = [(e.attrs["id"], norm(next(c for c in e.children if "eq-number" in c.classes).text))
           for name in PAGES for e in elements(pages, name, "span", "equation")]
    assert eqs == [("eq-expected", "(1.1)"), ("eq-mtbf", "(2.1)"), ("eq-hours", "(A.1)")]
    assert "\\(" not in pages["contents/basics.html"]


def test_cells_follow_echo_and_output_options(pages):
    basics = pages["contents/basics.html"]
    assert "rate = 0.25" not in basics            # echo: false from _quarto.yml
    code = [norm(e.text) for e in elements(pages, "contents/basics.html", "pre")]
    assert code == ['print("checkpoint every", 30, "minutes")', "checkpoint every 30 minutes"]
    assert "#|" not in basics


def descendants(el):
    for child in el.children:
        yield child
        yield from descendants(child)


def test_sidebar_and_pager(pages):
    nav = elements(pages, "contents/scaling.html", "nav", "sidebar")[0]
    toc = [(norm(a.text), a.attrs["href"], "active" in a.classes)
           for a in descendants(nav) if a.tag == "a"]
    assert toc == [("Mini Book", "../index.html", False), ("Preface", "../index.html", False),
                   ("1 Basics", "basics.html", False), ("2 Scaling", "scaling.html", True),
                   ("A Constants", "constants.html", False)]
    assert "Appendices" in nav.text
    nav = elements(pages, "contents/basics.html", "nav", "sidebar")[0]
    sections = [(norm(a.text), a.attrs["href"]) for el in descendants(nav)
                if el.tag == "ol" and "toc-sections" in el.classes
                for a in descendants(el) if a.tag == "a"]
    assert sections == []       # the page's sections are listed under "On this page"
    prev = elements(pages, "contents/scaling.html", "a", "prev")[0]
    nxt = elements(pages, "contents/scaling.html", "a", "next")[0]
    assert (prev.attrs["href"], nxt.attrs["href"]) == ("basics.html", "constants.html")
    assert norm(nxt.text) == "Next → A Constants"
    assert not elements(pages, "contents/constants.html", "a", "next")
    assert not elements(pages, "index.html", "a", "prev")


def test_no_external_resources(pages):
    for name, text in pages.items():
        for e in scan(text):
            if e.tag in ("img", "link", "script", "iframe", "source"):
                value = e.attrs.get("src") or e.attrs.get("href") or ""
                assert "://" not in value and not value.startswith("//"), (name, value)
        scripts = [e for e in scan(text) if e.tag == "script"]
        # only the book's own scripts, loaded from files beside the pages
        assert sorted(e.attrs.get("src", "").rsplit("/", 1)[-1] for e in scripts) == \
            ["book.js", "scheme.js", "search.js"]
        assert all(not e.text.strip() for e in scripts), name


def test_the_math_font_ships_with_every_build(book):
    """book.css's @font-face url resolves to the vendored font, copied
    unchanged into _book/fonts/ with its licence, whole (no unicode-range),
    and names the family that `math` is set in."""
    from bookcheck.render.html import FONTS, MATH_FONT
    css = (book / "book.css").read_text(encoding="utf-8")
    [face] = re.findall(r"@font-face\s*\{([^}]*)\}", css)
    [url] = re.findall(r'url\("([^"]+)"\)', face)
    shipped = book / url
    assert shipped == book / "fonts" / MATH_FONT
    assert shipped.read_bytes() == (FONTS / MATH_FONT).read_bytes()
    assert shipped.read_bytes()[:4] == b"wOF2"
    assert "SIL OPEN FONT LICENSE Version 1.1" in (book / "fonts" / "OFL.txt").read_text(encoding="utf-8")
    assert "unicode-range" not in face
    [family] = re.findall(r'font-family:\s*("[^"]+")', face)
    assert re.search(r"\bmath\s*\{\s*font-family:\s*" + family, css)
