"""A website on the built-in path (scripts/bookcheck/render/website.py) as Quarto 1.7.34 renders
one (checked on a tiny website): each page numbered on its own ("Figure 1", not
"Figure 1.1"; sections counted from the page's highest heading level), its `title:`
above its own headings, the sidebar `website: sidebar:` describes."""
from __future__ import annotations

import re

import pytest

from bookcheck.read.sidebar import NavItem
from bookcheck.render import render_book
from bookcheck.render.numbering import ChapterInfo
from bookcheck.render.website import number_pages, sidebar_html
from bookcheck.verify.check import check_book
from tests.bookkit import make_book


def header(hid, level, **flags):
    return {"id": hid, "level": level, "text": hid, **flags}


def test_each_page_is_numbered_on_its_own():
    pages = [ChapterInfo("a.qmd", False, {"title": "Page A", "headers": [
                 header("", 1, title=True), header("sec-a", 1), header("sec-a1", 2),
                 header("sec-u", 2, unnumbered=True), header("sec-b", 1), header("sec-b1", 2)],
                 "labels": [{"id": "fig-x", "kind": "fig"}, {"id": "tbl-x", "kind": "tbl"},
                            {"id": "fig-y", "kind": "fig"}]}),
             ChapterInfo("g.qmd", False, {"title": "Gee", "headers": [
                 header("", 1, title=True), header("sec-g", 2), header("sec-g1", 3),
                 header("sec-h", 2)], "labels": [{"id": "fig-x", "kind": "fig"}]})]
    refs = number_pages(pages, numbered=frozenset({"g.qmd"}))
    assert {k: r.text for k, r in refs["a.qmd"].items()} == {
        "sec-a": "Section 1", "sec-a1": "Section 1.1", "sec-u": "sec-u", "sec-b": "Section 2",
        "sec-b1": "Section 2.1", "fig-x": "Figure 1", "tbl-x": "Table 1", "fig-y": "Figure 2"}
    assert {k: r.text for k, r in refs["g.qmd"].items()} == {
        "sec-g": "Section 1", "sec-g1": "Section 1.1", "sec-h": "Section 2", "fig-x": "Figure 1"}
    assert [p.number for p in pages] == [None, None]
    assert pages[0].headers == [None] * 6                 # number-sections: false (a website's default)
    assert pages[1].headers == [None, "1", "1.1", "2"]


def test_the_sidebar_shows_sections_texts_and_dividers():
    bar = (NavItem("Home", "index.qmd"), NavItem(divider=True),
           NavItem("Part", section=True, contents=(NavItem("", "a.qmd"), NavItem("Web", href="https://x.org"))),
           NavItem("Words"))
    out = sidebar_html([bar], "a.qmd", {"a.qmd": "Alpha"}, lambda p: p.replace(".qmd", ".html"))
    assert out == ('<ol class="toc">\n<li><a href="index.html">Home</a></li>\n'
                   '<li class="toc-divider" role="separator"><hr></li>\n'
                   '<li><p class="toc-part">Part</p><ol class="toc-sections"><li><a href="a.html" '
                   'class="active" aria-current="page">Alpha</a></li><li><a href="https://x.org">Web</a>'
                   '</li></ol></li>\n<li><span>Words</span></li>\n</ol>')


SITE = """project:
  type: website
website:
  sidebar:
    contents:
      - index.qmd
      - section: Part
        contents:
          - z.qmd
          - text: First
            href: a.qmd
"""
PAGES = {"index.qmd": "---\ntitle: Home\n---\n\nWelcome.\n",
         "a.qmd": "---\ntitle: Page A\n---\n\n# Alpha {#sec-a}\n\n## Sub {#sec-a1}\n\n"
                  "![First](dot.png){#fig-one}\n\nSee @fig-one and @sec-a1.\n",
         "z.qmd": "---\ntitle: Zed\n---\n\n![Zed's](dot.png){#fig-one}\n\nSee @fig-one.\n",
         "dot.png": "png"}


@pytest.mark.kernel
def test_a_website_renders_as_quarto_numbers_it(tmp_path):
    root = make_book(tmp_path, PAGES, SITE)
    result = check_book(root)
    assert result.findings == []                      # fig-one on two pages: no clash
    render_book(result, "html", use_quarto=False)
    a = (root / "_site" / "a.html").read_text("utf-8")
    z = (root / "_site" / "z.html").read_text("utf-8")
    assert re.findall(r"<figcaption>(.*?)</figcaption>", a) == ["Figure\u00a01: First"]
    assert re.findall(r'class="quarto-xref">(.*?)</a>', a) == ["Figure\u00a01", "Section\u00a01.1"]
    assert re.findall(r'class="quarto-xref">(.*?)</a>', z) == ["Figure\u00a01"]
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", a) == ["Page A", "Alpha"]
    nav = a[a.index('<ol class="toc">'):]
    assert re.findall(r'<a href="([^"]+)"', nav[:nav.index("</nav>")]) == ["index.html", "z.html", "a.html"]
    assert '<p class="toc-part">Part</p>' in nav
    assert 'rel="next" href="a.html"' in z                 # the pager follows the sidebar
    assert '<span class="dir">Next →</span> First</a>' in z   # named as the sidebar names it


@pytest.mark.kernel
def test_another_pages_label_is_left_unresolved_as_quarto_does(tmp_path):
    """A website-ref the author accepted (a baseline) renders as Quarto's `?@sec-a`."""
    root = make_book(tmp_path, {**PAGES, "z.qmd": "---\ntitle: Zed\n---\n\nSee @sec-a.\n"}, SITE)
    result = check_book(root)
    assert [(f.path, f.kind) for f in result.findings] == [("z.qmd", "website-ref")]
    result.findings = []                                  # accepted, as a baseline would
    render_book(result, "html", use_quarto=False, audited=False)   # (the audit sees it too)
    assert "<strong>?@sec-a</strong>" in (root / "_site" / "z.html").read_text("utf-8")


@pytest.mark.kernel
def test_the_heading_quarto_makes_the_title_is_the_title_and_not_numbered(tmp_path):
    """Quarto 1.7.34: `# Top`, a cell, `## Second`, `## Third` (no `title:`): the title
    block says "Second", Third is Section 1.1."""
    page = ("---\nengine: jupyter\n---\n\n# Top {#sec-top}\n\n```{python}\nx = 1\n```\n\n"
            "## Second {#sec-s}\n\n## Third {#sec-t}\n\n@sec-top @sec-t\n")
    root = make_book(tmp_path, {"index.qmd": "# Home\n", "a.qmd": page}, "project:\n  type: website\n")
    result = check_book(root)
    assert result.findings == []
    render_book(result, "html", use_quarto=False, audited=False)
    a = (root / "_site" / "a.html").read_text("utf-8")
    assert re.findall(r"<h[12][^>]*>(.*?)</h[12]>", a) == ["Second", "Top", "Third"]
    assert re.findall(r'class="quarto-xref">(.*?)</a>', a) == ["Section\u00a01", "Section\u00a01.1"]
