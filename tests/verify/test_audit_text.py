"""The audit's reading of a rendered page (bookcheck.verify.audit_html, audit_tokens,
audit.account): what counts as the renderer's, what leaks. Pure: no render."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from bookcheck.model import Kind, ParsedChapter
from bookcheck.verify.audit import account, audit_rendered, leak_findings
from bookcheck.verify.audit_html import reader_text
from bookcheck.verify.audit_tokens import Value, number_tokens, page_values

PAGE = """<html><body><nav class="sidebar"><span class="toc-number">2.1</span> 77 side</nav>
<main class="content"><h2><span class="header-section-number">2.1</span> Rates</h2>
<p>A cluster of 16 nodes fails every 1,234.5 hours
(<a class="quarto-xref" href="#tbl-one">Table 2.1</a>;
<span class="citation" data-cites="young1974">(Young 1974)</span>).
<math><semantics><msup><mn>10</mn><mn>9</mn></msup><annotation encoding="application/x-tex">10^9 x</annotation></semantics></math></p>
<span class="eq-number">(2.3)</span>
<div id="refs"><div class="csl-entry">Young, J. 1974. Vol. 17, pp. 530–531.</div></div>
<nav class="pager">Next 3</nav></main></body></html>"""


def chapter(text="A cluster of 16 nodes fails every 1,234.5 hours.\n"):
    return ParsedChapter(path="contents/one.qmd", text=text)


def values(*numbers, movable=False):
    return [Value([n], 1, f"inline `{n}`", movable) for n in numbers]


def test_only_the_main_texts_values_are_left_to_account_for():
    reader = reader_text(PAGE)
    assert account(chapter(), "one.html", reader.text, values("16", "1,234.5"),
                   reader.exempt, reader.soft) == []


def test_a_number_nobody_computed_is_unaccounted_at_its_source_line():
    reader = reader_text(PAGE.replace("16 nodes", "16 nodes (42 spare)"))
    text = "Intro.\nA cluster of 16 nodes (42 spare) fails every 1,234.5 hours.\n"
    found = account(chapter(text), "one.html", reader.text, values("16", "1,234.5"),
                    reader.exempt, reader.soft)
    assert [(f.line, f.kind, "'42'" in f.reason) for f in found] == [(2, Kind.UNACCOUNTED_NUMBER, True)]


def test_a_page_or_pdf_the_render_did_not_write_has_its_own_kind(tmp_path):
    """Not `missing-value` (a number missing from a page that exists)."""
    from pypdf import PdfWriter
    project = SimpleNamespace(root=tmp_path, chapters=["contents/one.qmd"], appendices=[])
    result = SimpleNamespace(project=project, parsed={"contents/one.qmd": chapter()}, runs={})
    found = audit_rendered(result, "html", tmp_path) + audit_rendered(result, "pdf", tmp_path)
    assert [(f.path, f.kind) for f in found] == [("contents/one.qmd", Kind.MISSING_PAGE),
                                                 ("_quarto.yml", Kind.MISSING_PDF)]
    writer = PdfWriter()
    writer.add_blank_page(width=100, height=100)
    writer.write(tmp_path / "book.pdf")                  # no bookmarks: no page maps to a chapter
    assert [f.kind for f in audit_rendered(result, "pdf", tmp_path)] == [Kind.PDF_BOOKMARKS]


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "&nbsp;", "&#8239;"])
def test_a_number_joined_to_its_word_by_a_no_break_space_is_accounted_for(space):
    """The pages join a number and its word with U+00A0 (render/filters/nobreak.lua;
    a narrow U+202F would do too): the audit reads the same numbers as with spaces."""
    page = PAGE.replace("16 nodes", f"16{space}nodes").replace("1,234.5\nhours", f"1,234.5{space}hours")
    page = page.replace("1,234.5 hours", f"1,234.5{space}hours")
    reader = reader_text(page)
    assert [n for n, _, _ in number_tokens(reader.text)] == \
        [n for n, _, _ in number_tokens(reader_text(PAGE).text)]
    assert account(chapter(), "one.html", reader.text, values("16", "1,234.5"),
                   reader.exempt, reader.soft) == []


def test_a_value_out_of_order_is_not_accounted_for():
    reader = reader_text(PAGE)
    found = account(chapter(), "one.html", reader.text, values("1,234.5", "16"),
                    reader.exempt, reader.soft)
    assert sorted(f.kind for f in found) == [Kind.MISSING_VALUE, Kind.UNACCOUNTED_NUMBER]


def test_a_cells_numbers_may_show_in_another_order():
    reader = reader_text(PAGE)
    found = account(chapter(), "one.html", reader.text,
                    [Value(["1,234.5", "16"], 1, "cell tbl-one", True)], reader.exempt, reader.soft)
    assert found == []


def test_units_and_suffixes_stay_numbers_and_names_do_not():
    assert [n for n, _, _ in number_tokens("4x 100ms 5GB 10k H100 BF16 p99 3f")] == \
        ["4", "100", "5", "10", "3"]


@pytest.mark.parametrize("shown, what", [
    ("see ?@sec-nope", "cross-reference"),
    ("the raw `{python} n` value", "left as code"),
    ("is <Quantity(5172.4, 'hour')>", "Quantity"),
    ("<IPython.core.display.Markdown object>", "IPython"),
    ("<__main__.Node at 0x7f3d959c29d0>", "repr"),
    ("\\frac{1}{2}", "raw TeX"),
    ("a rate of nan per hour", "nan"),
    ("the value None here", "None"),
])
def test_leaks_are_findings(shown, what):
    found = leak_findings(chapter(), "one.html", shown)
    assert len(found) == 1 and what in found[0].reason and found[0].kind == Kind.LEAK


def test_a_citation_key_pandoc_could_not_find_is_a_leak():
    raw = '<span class="citation"\ndata-cites="nokey2021">(<strong>nokey2021?</strong>)</span>'
    found = leak_findings(chapter("See [@nokey2021].\n"), "one.html", "nokey2021?", raw)
    assert [(f.line, f.kind) for f in found] == [(1, Kind.LEAK)]


def test_bold_prose_ending_in_a_question_mark_is_not_a_citation_miss():
    raw = '<p>See <span class="citation" data-cites="young1974">(Young 1974)</span> and <strong>Why?</strong></p>'
    assert leak_findings(chapter(), "one.html", "Why?", raw) == []


@pytest.mark.parametrize("prose", ["None of the replicas", "NaN/Inf checks"])
def test_english_words_are_not_leaks(prose):
    assert leak_findings(chapter(), "one.html", prose) == []


def test_an_identifier_with_break_opportunities_is_a_name_not_numbers():
    """The renderer lets `JOB_1_WEEK_HOURS` wrap after each `_` (a zero-width space in
    the PDF's text layer and in HTML): the reader sees one name, no number 1."""
    wrapped = "JOB_\u200b1_\u200bWEEK_\u200bHOURS"
    reader = reader_text(PAGE.replace("16 nodes", f"16 nodes (<code>{wrapped}</code> aside, {wrapped})"))
    assert account(chapter(), "one.html", reader.text, values("16", "1,234.5"),
                   reader.exempt, reader.soft) == []
    from bookcheck.verify.audit_tokens import visible
    assert [n for n, _, _ in number_tokens(visible(wrapped))] == []


def test_a_running_header_carries_the_chapters_number_as_the_renderers():
    """pdftotext sets a running header as the book's title and the chapter's numbered
    title on one line, columns apart: that number is the renderer's; a number in
    the same line that is not a title's stays unaccounted."""
    from bookcheck.verify.audit_pdf import _exempt
    header = "Reliability at Scale                         2 Fault-Tolerance Techniques\n"
    text = header + "Body with 7 things.\n"
    spans = _exempt(text, ["2 Fault-Tolerance Techniques", "2.1 Checkpoints"])
    at = header.index("2 Fault")
    assert spans == [(at, at + 1)]
    heading = "   2.1    Checkpoints\n"
    assert _exempt(heading, ["2.1 Checkpoints"]) == [(3, 6)]


def test_a_none_the_author_wrote_is_not_a_leak_and_one_more_is():
    """Upstream's `| ASP | … | None |`: the word is the author's, as often as the prose
    writes it; a None a cell prints (its code blanked) is still a leak."""
    source = ("| scheme | cost |\n|---|---|\n| ASP | None |\n\n"
              "```{python}\nprint(None)\n```\n")
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", source)
    assert leak_findings(parsed, "one.html", "scheme cost ASP None") == []
    found = leak_findings(parsed, "one.html", "scheme cost ASP None None")
    assert [(f.kind, f.line) for f in found] == [(Kind.LEAK, 3)]


@pytest.mark.parametrize("made", ["Table 2.1", "Appendix B", "Listing 3.1", "Note 1.2", "(A.3)"])
def test_numbers_the_renderer_makes_need_no_value(made):
    """Quarto numbers tables, appendices, listings, callouts and equations itself."""
    text = f"As {made} shows, a cluster of 16 nodes fails every 1,234.5 hours."
    assert account(chapter(), "one.html", text, values("16", "1,234.5"), [], []) == []


def test_a_footnote_mark_after_a_number_is_not_glued_to_it():
    """`IEEE 754` and footnote 10 once read as 75410, at `file.qmd:0`."""
    page = ('<main><p>The IEEE 754<a href="#fn10" class="footnote-ref" id="fnref10" role="doc-noteref">'
            '<sup>10</sup></a> format and 2<sup>3</sup> bits.</p></main>')
    reader = reader_text(page)
    assert [n for n, _, _ in number_tokens(reader.text)] == ["754", "10", "2", "3"]


def test_a_caption_written_below_its_table_may_be_shown_above_it():
    """`: Caption {#tbl-x}` under the rows: pandoc and Quarto put the caption first."""
    from bookcheck.model import ChapterRun, InlineRun
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", "| n | rate |\n|---|---|\n| `{python} n` | `{python} r` |\n\n"
                                               ": Rates at `{python} scale` GPUs {#tbl-rates}\n")
    run = ChapterRun(path=parsed.path, inlines=[InlineRun(0, "text", "16", "16"),
                                                InlineRun(1, "text", "0.25", "0.25"),
                                                InlineRun(2, "text", "1,024", "1,024")])
    shown = "Table 1.1: Rates at 1,024 GPUs n rate 16 0.25"
    assert account(parsed, "one.html", shown, page_values(parsed, run)) == []
    swapped = "Table 1.1: Rates at 1,024 GPUs n rate 0.25 16"       # rows stay in order
    assert [f.kind for f in account(parsed, "one.html", swapped, page_values(parsed, run))] != []


@pytest.mark.parametrize("source", [
    "Text `{python} a`.[^one]\n\n[^one]: At `{python} b` GPUs.\n\nMore `{python} c`.\n",
    "Text `{python} a`.[^one]\n\n[^one]: Long note.\n\n    At `{python} b` GPUs.\n\nMore `{python} c`.\n",
    "Text `{python} a`.^[At `{python} b` GPUs.]\n\nMore `{python} c`.\n",
])
def test_a_value_in_a_footnote_may_be_shown_at_the_end(source):
    """pandoc and Quarto move footnotes to the end of the page."""
    from bookcheck.model import ChapterRun, InlineRun
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", source)
    run = ChapterRun(path=parsed.path, inlines=[InlineRun(0, "text", "16", "16"),
                                                InlineRun(1, "text", "1,024", "1,024"),
                                                InlineRun(2, "text", "0.25", "0.25")])
    assert [(v.numbers, v.movable) for v in page_values(parsed, run)] == \
        [(["16"], False), (["0.25"], False), (["1,024"], True)]       # the note at the end
    shown = "Text 16. 1 More 0.25. 1. At 1,024 GPUs."
    assert account(parsed, "one.html", shown, page_values(parsed, run), exempt=[(8, 10), (22, 24)]) == []


def _run(*texts):
    from bookcheck.model import ChapterRun, InlineRun
    return ChapterRun(path="contents/one.qmd",
                      inlines=[InlineRun(i, "text", t, t) for i, t in enumerate(texts)])


def test_footnotes_shown_at_the_end_do_not_pull_the_values_after_them():
    """Upstream's introduction: a note defined between paragraphs, its values shown at
    the end of the page; the values after the note in the source are shown before it."""
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", (
        "A `{python} a`.[^one]\n\n[^one]: Said `{python} b`, `{python} c`, `{python} d`.\n\n"
        "Then `{python} e` and `{python} f`.\n"))
    values = page_values(parsed, _run("1", "2", "3", "4", "5", "6"))
    shown = "A 1. ¹ Then 5 and 6. Notes: Said 2, 3, 4."
    assert account(parsed, "one.html", shown, values) == []


def test_a_value_shown_several_times_among_typed_numbers_is_matched_in_order():
    """The same 11,025 three times: typed numbers that repeat the values' (up front,
    in a summary) once took the values' place in the alignment and lost two of them."""
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", (
        "In short: 11,025 and 42.\n\nFirst `{python} a` (x 9), again `{python} a` (x 9),\n"
        "once more `{python} a` (x 9) and `{python} b`.\n"))
    values = page_values(parsed, _run("11,025", "11,025", "11,025", "42"))
    shown = ("In short: 11,025 and 42. First 11,025 (x 9), again 11,025 (x 9), "
             "once more 11,025 (x 9) and 42.")
    assert account(parsed, "one.html", shown, values, typed_ok=True) == []


@pytest.mark.parametrize("broken, shown, what", [
    ("$x = 1\\.5 \\text{ s}$", "x = 1\\.5 \\text{ s} in the second case", "\\text"),
    ("a \\${python} x` leftover", "a ${python} x` leftover in the second case", "{python}"),
])
def test_a_leak_is_located_where_the_page_shows_it(broken, shown, what):
    """A broken formula's raw TeX at that formula's line, not at the first line using
    the macro in a formula that renders; a stray `{python}` at its sentence, not at
    the first cell's fence."""
    from bookcheck.read.qmd import parse_chapter
    source = ("```{python}\nx = 1\n```\n\nA formula that works: $y = 2 \\text{ m}$ first.\n\n"
              f"Then {broken} in the second case.\n")
    parsed = parse_chapter("contents/one.qmd", source)
    found = leak_findings(parsed, "one.html", f"A formula that works: first.\n\nThen {shown}.")
    assert [(f.line, what in f.reason) for f in found] == [(7, True)]


def test_a_value_shown_out_of_order_is_not_advised_to_be_published_from_a_value():
    reader = reader_text(PAGE)
    found = account(chapter(), "one.html", reader.text, values("1,234.5", "16"),
                    reader.exempt, reader.soft)
    unaccounted = [f.reason for f in found if f.kind == Kind.UNACCOUNTED_NUMBER]
    assert len(unaccounted) == 1 and "the text of inline `16` (line 1)" in unaccounted[0]
    assert "publish it from" not in unaccounted[0]


def test_a_failing_page_is_not_audited_again_and_reports_the_same_findings(tmp_path):
    from bookcheck.verify import audit
    project = SimpleNamespace(root=tmp_path, chapters=["contents/one.qmd"], appendices=[])
    result = SimpleNamespace(project=project, parsed={"contents/one.qmd": chapter("Nodes.\n")},
                             runs={})
    (tmp_path / "contents").mkdir()
    (tmp_path / "contents/one.html").write_text("<main><p>42 nodes</p></main>")
    audit.AUDITED.clear()
    first = audit.audit_rendered(result, "html", tmp_path)
    assert [f.kind for f in first] == [Kind.UNACCOUNTED_NUMBER]
    assert audit.AUDITED == ["contents/one.html"]
    audit.AUDITED.clear()
    assert audit.audit_rendered(result, "html", tmp_path) == first
    assert audit.AUDITED == []


def test_a_pdfs_footnote_at_the_foot_of_a_page_does_not_pull_the_values_after_it():
    """In the PDF a note is set at the foot of the page that references it, among the
    body's values: matched wherever it is shown, not expected at the end."""
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", (
        "A `{python} a`, `{python} b`, `{python} c`.[^one]\n\n"
        "[^one]: Said `{python} f`, `{python} g`, `{python} h`, `{python} i`.\n\n"
        "Then `{python} d`, `{python} e` and `{python} j`.\n"))
    run = _run("1", "2", "3", "11", "12", "13", "14", "4", "5", "6")
    pdf = "A 1, 2, 3.¹\n¹ Said 11, 12, 13, 14.\nThen 4, 5 and 6."
    assert account(parsed, "book.pdf p. 1", pdf, page_values(parsed, run, notes_at_end=False)) == []
    html = "A 1, 2, 3.¹ Then 4, 5 and 6. ¹ Said 11, 12, 13, 14."
    assert account(parsed, "one.html", html, page_values(parsed, run)) == []


def test_an_unresolved_reference_is_located_at_the_line_referencing_it():
    """Not at the first line holding its text (a longer label, `@sec-xy`)."""
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/one.qmd", "See @sec-xy first.\n\nThen see @sec-x here.\n")
    found = leak_findings(parsed, "one.html", "See Section 2 first.\n\nThen see ?@sec-x here.")
    assert [(f.line, f.kind) for f in found] == [(3, Kind.LEAK)]


def test_quartos_unresolved_reference_in_a_book_is_a_leak_at_its_reference():
    """Quarto 1.7.34's book writes an unknown @tbl-x as `?tbl-x` (conformance case 21):
    a leak, located at the line that writes @tbl-x, not at a longer @tbl-xy."""
    from bookcheck.read.qmd import parse_chapter
    from bookcheck.verify.audit import leak_findings
    parsed = parse_chapter("c.qmd", "# C\n\nSee @tbl-xy.\n\nAnd @tbl-x here.\n")
    found = leak_findings(parsed, "c.html", "C See Table 1.1. And ?tbl-x here.")
    assert [(f.line, f.kind) for f in found] == [(5, "leak")]
    assert "unresolved cross-reference" in found[0].reason
