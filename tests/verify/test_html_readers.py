"""The HTML readers (audit_html.reader_text, html_tables, search.page_sections) read
pages through lxml (html_tables.html_tree) as a browser shows them: what libxml2's
parser does differently from a browser is mended, and what it cannot read is an error,
never a page read short."""
from __future__ import annotations

import pytest

from bookcheck.render.search import page_sections
from bookcheck.verify.audit_html import reader_text
from bookcheck.verify.html_tables import html_tables, html_text, html_tree


@pytest.mark.parametrize("void", ["wbr", "source", "embed", "track"])
def test_text_after_a_void_element_libxml2_does_not_know_is_its_parents(void):
    """libxml2 nests what follows `<wbr>` inside it; a reader sees `GPU_MTTF_HOURS 50`."""
    page = f'<main data-pagefind-body><p>GPU_<{void}>MTTF_<{void}>HOURS is <code>5<{void}>0</code></p></main>'
    reader = reader_text(page)
    assert " ".join(reader.text.split()) == "GPU_MTTF_HOURS is 50"
    assert [reader.text[a:b] for a, b in reader.soft] == ["5", "0"]     # still code
    assert html_text(page) == "GPU_MTTF_HOURS is 50"
    assert [s.text for s in page_sections("a.html", "A", page)] == ["GPU_ MTTF_ HOURS is 5 0"]
    assert html_tables(f"<table><tr><th>a<{void}>b</th></tr><tr><td>1<{void}>2</td></tr></table>") == \
        [(["ab"], [["12"]])]


def test_a_cell_holding_a_table_keeps_its_place_in_its_row():
    table = ("<table><thead><tr><th>k</th><th>inner</th><th>v</th></tr></thead><tbody>"
             "<tr><td>a</td><td>x <table><tr><th>n</th></tr><tr><td>7</td></tr></table></td>"
             "<td>9</td></tr></tbody></table>")
    assert html_tables(table) == [(["n"], [["7"]]), (["k", "inner", "v"], [["a", "x", "9"]])]


def test_a_fragments_leading_stylesheet_is_read_where_it_stands():
    """A fragment is read in a `<body>` of its own: its `<style>` does not move into a
    `<head>` (hidden), so its `content:` is still text a reader sees."""
    fragment = '<style>.rack::after { content: "31 spares" }</style><p class="rack">Rack</p>'
    assert reader_text(fragment, whole_page=True).text.split() == ["31", "spares", "Rack"]
    assert html_text(fragment) == "31 spares\nRack"


def test_entities_comments_scripts_and_line_breaks():
    page = ("<main><p>a &amp; b&nbsp;1&#x41;<!-- 5 --><script>var x = 6;</script>"
            "<span title='T 7'>c</span><br>d</p></main>")
    assert reader_text(page).text.split() == ["a", "&", "b", "1A", "T", "7", "c", "d"]


def test_a_huge_attribute_does_not_end_the_page():
    """libxml2 stops at a 10 MB attribute without `huge_tree` (a page with an embedded
    image would read as empty, its numbers unaudited)."""
    page = f'<main><img src="data:image/png;base64,{"A" * 11_000_000}"><p>42 nodes</p></main>'
    assert reader_text(page).text.split() == ["42", "nodes"]


def test_html_the_parser_cannot_read_whole_is_an_error_not_a_short_page():
    deep = "<div>" * 2100 + "42" + "</div>" * 2100
    with pytest.raises(ValueError, match="depth"):
        html_tree(deep)
