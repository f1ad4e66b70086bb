"""Pure parts of the reader's book: the search sections, the PDF link,
and the missing-fig-alt finding."""
from __future__ import annotations

import json

from bookcheck.model import Kind
from bookcheck.read.qmd import parse_chapter
from bookcheck.render import downloads, search
from bookcheck.verify.figalt import missing_fig_alt

PAGE = """<!DOCTYPE html><html lang="en"><body>
<nav class="sidebar"><a href="x.html">Sidebar words</a></nav>
<main class="content" id="content" data-pagefind-body>
<h1 id="sec-a"><span class="chapter-number">1</span> Alpha</h1>
<p>Intro text&nbsp;here.</p>
<h2 id="sec-b">Beta <em>part</em></h2>
<div class="table-wrap"><table><caption>Table 1.1: Rates</caption>
<tr><td>gamma cell</td><td>3<br>4</td></tr></table></div>
<h3>No id heading</h3><p>still beta</p>
<nav class="pager" data-pagefind-ignore><a href="n.html"><span>Next</span> Delta</a></nav>
</main>
<footer>after main</footer></body></html>"""


def test_sections_split_at_headings_with_ids():
    sections = search.page_sections("contents/a.html", "1 Alpha", PAGE)
    assert [(s.url, s.title, s.text) for s in sections] == [
        ("contents/a.html#sec-a", "1 Alpha", "Intro text here."),
        ("contents/a.html#sec-b", "Beta part",
         "Table 1.1: Rates gamma cell 3 4 No id heading still beta"),
    ]


def test_a_script_or_stylesheet_in_the_page_is_not_searchable_text():
    """Issue 34: a cell's `display(HTML(...))` brings its <script> and <style> into
    <main>; the file:// index holds only what a reader sees (as Pagefind does)."""
    page = ('<main data-pagefind-body><h1 id="sec-a">Alpha</h1><p>Seen.</p>'
            '<style>.x::after { content: "hidden 42" }</style>'
            '<script>var planted = 77;</script><p>Also seen.</p></main>')
    assert [s.text for s in search.page_sections("a.html", "A", page)] == ["Seen. Also seen."]


def test_fallback_index_is_a_script_holding_json(tmp_path):
    sections = search.page_sections("a.html", "A", PAGE)
    path = search.write_fallback_index(tmp_path, sections)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("window.BOOK_SEARCH_INDEX=") and text.endswith(";\n")
    data = json.loads(text[len("window.BOOK_SEARCH_INDEX="):-2])
    assert [d["url"] for d in data] == ["a.html#sec-a", "a.html#sec-b"]
    assert data[1]["page"] == "A"


def test_pdf_link_is_relative_to_the_page():
    assert downloads.pdf_link("index.html", None) == downloads.SLOT
    assert 'href="Book.pdf"' in downloads.pdf_link("index.html", "Book.pdf")
    assert 'href="../Book.pdf"' in downloads.pdf_link("contents/a.html", "Book.pdf")


def test_link_pdf_fills_the_slot_and_replaces_an_old_link(tmp_path):
    (tmp_path / "contents").mkdir()
    (tmp_path / "index.html").write_text(f"<nav>{downloads.SLOT}</nav>", encoding="utf-8")
    (tmp_path / "contents" / "a.html").write_text(
        "<nav>" + downloads.pdf_link("contents/a.html", "Old.pdf") + "</nav>", encoding="utf-8")
    (tmp_path / "plain.html").write_text("<p>no slot</p>", encoding="utf-8")
    assert downloads.link_pdf(tmp_path, "New.pdf") == 2
    assert 'href="New.pdf"' in (tmp_path / "index.html").read_text(encoding="utf-8")
    page = (tmp_path / "contents" / "a.html").read_text(encoding="utf-8")
    assert 'href="../New.pdf"' in page and "Old.pdf" not in page
    assert (tmp_path / "plain.html").read_text(encoding="utf-8") == "<p>no slot</p>"
    assert downloads.link_pdf(tmp_path, "New.pdf") == 0


QMD = '''# Title

```{python}
#| label: fig-ok
#| fig-cap: "Fine"
#| fig-alt: "A line rising to the right"
x = 1
```

```{python}
#| echo: false
#| label: fig-bare
#| fig-cap: "No alt"
x = 2
```

![Caption](a.png){#fig-img}

![Caption](b.png){#fig-img-ok fig-alt="Two bars"}

::: {#fig-div}
![](c.svg){fig-alt=""}

Caption of the div.
:::
'''


def test_missing_fig_alt_findings():
    found = missing_fig_alt(parse_chapter("contents/x.qmd", QMD))
    assert [(f.path, f.line, f.col, f.kind, f.label) for f in found] == [
        ("contents/x.qmd", 12, 1, Kind.FIG_ALT, "fig-bare"),
        ("contents/x.qmd", 17, 1, Kind.FIG_ALT, "fig-img"),
        ("contents/x.qmd", 21, 1, Kind.FIG_ALT, "fig-div"),
    ]
    assert "fig-bare has no alt text" in found[0].reason


def test_the_books_figures_all_have_fig_alt():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for qmd in sorted(root.glob("contents/*.qmd")) + [root / "index.qmd"]:
        rel = qmd.relative_to(root).as_posix()
        assert missing_fig_alt(parse_chapter(rel, qmd.read_text(encoding="utf-8"))) == [], rel


def test_every_page_links_the_pdf_once_it_exists(fresh_minibook):
    """make html (no link) -> make pdf (link added) -> make html (link kept)."""
    from bookcheck.render import render_book
    from .htmlscan import scan

    root, result = fresh_minibook
    book = root / "_book"
    pages = ["index.html", "contents/basics.html", "contents/scaling.html", "contents/constants.html"]

    def links():
        found = {}
        for rel in pages:
            anchors = [e for e in scan((book / rel).read_text(encoding="utf-8"))
                       if e.tag == "a" and "download-pdf" in e.classes]
            found[rel] = [a.attrs["href"] for a in anchors]
        return found

    render_book(result, "html", use_quarto=False)
    assert links() == {rel: [] for rel in pages}
    pdf = render_book(result, "pdf", use_quarto=False)
    expected = {rel: [("../" if "/" in rel else "") + pdf.name] for rel in pages}
    assert links() == expected
    assert all((book / rel).parent.joinpath(href[0]).resolve() == pdf.resolve()
               for rel, href in expected.items())
    render_book(result, "html", use_quarto=False)
    assert links() == expected


def test_a_pdf_older_than_its_sources_is_not_linked(fresh_minibook, capsys):
    """make pdf -> the sources change (here the subtitle of the title page)
    -> make html: the PDF in _book/ is older, so the pages do not link it
    (and say why); make pdf again -> linked."""
    import dataclasses
    from types import SimpleNamespace

    from bookcheck.render import render_book
    from .htmlscan import scan

    root, result = fresh_minibook

    def linked() -> bool:
        page = (root / "_book" / "index.html").read_text(encoding="utf-8")
        return any(e.tag == "a" and "download-pdf" in e.classes for e in scan(page))

    pdf = render_book(result, "pdf", use_quarto=False)
    render_book(result, "html", use_quarto=False)
    assert linked()
    shorter = SimpleNamespace(**{**vars(result), "project": dataclasses.replace(
        result.project, subtitle="A subtitle the PDF does not have")})
    render_book(shorter, "html", use_quarto=False)
    assert pdf.is_file() and not linked()
    assert f"html: {pdf.name} was built from older sources: not linked" in capsys.readouterr().err
    render_book(shorter, "pdf", use_quarto=False)
    assert linked()


def test_the_title_block_shows_the_date_as_written_or_the_renders_day(monkeypatch):
    """`date:` on the landing page's title block (Quarto shows it); `today`,
    `now` and `last-modified` are the render's day, SOURCE_DATE_EPOCH's when set."""
    from types import SimpleNamespace

    from bookcheck.render.html import title_block
    book = SimpleNamespace(title="T", subtitle="", authors=["A"], date="2026-05-04")
    assert title_block(book).splitlines()[1:-1] == [
        '<p class="title">T</p>', '<p class="author">A</p>', '<p class="date">2026-05-04</p>']
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")         # 2023-11-14 22:13 UTC
    for keyword in ("today", "now", "last-modified"):
        book.date = keyword
        assert '<p class="date">2023-11-14</p>' in title_block(book)
    book.date = ""
    assert 'class="date"' not in title_block(book)


def test_the_project_reads_date_from_book_or_the_top_level(tmp_path):
    from bookcheck.read.project import load_project
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\nbook:\n  title: T\n  date: 2026-05-04\n"
                                          "  chapters: [index.qmd]\n", encoding="utf-8")
    (tmp_path / "index.qmd").write_text("# T\n", encoding="utf-8")
    assert load_project(tmp_path).date == "2026-05-04"
