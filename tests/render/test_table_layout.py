"""Tables that fit (issue 27): html.table_float turns pandoc's table into a
figure whose caption sits outside the scrolling box, inline code wraps
after `_`, and column widths come from the cells' content."""
from __future__ import annotations

from bookcheck.render.html import scrollable
from bookcheck.render.html_tables import breakable_code, column_widths

PANDOC_TABLE = (
    '<table id="tbl-k">\n<caption>Table B.1: All <em>constants</em>.</caption>\n'
    '<colgroup>\n<col style="width: 16%" />\n<col style="width: 84%" />\n</colgroup>\n'
    "<thead><tr><th>Constant</th><th>Meaning</th></tr></thead>\n<tbody>\n"
    "<tr><td><code>WORKED_EXAMPLE_DOUBLED_GPUS</code></td>"
    "<td>GPUs of the doubled cluster in the worked example, for the scaling argument</td></tr>\n"
    "<tr><td><code>GPU_MTTF_HOURS</code></td><td>second/minute</td></tr>\n</tbody></table>")


def test_caption_leaves_the_scroll_box():
    html = scrollable(PANDOC_TABLE)
    figure_at, caption_at, wrap_at = (html.index('<figure class="table-float" id="tbl-k">'),
                                      html.index('<figcaption id="tbl-k-caption">Table B.1: All '
                                                 "<em>constants</em>.</figcaption>"),
                                      html.index('<div class="table-wrap" tabindex="0" role="region" '
                                                 'aria-labelledby="tbl-k-caption">'))
    assert figure_at < caption_at < wrap_at
    assert "<caption" not in html and 'id="tbl-k"' not in html[wrap_at:]
    assert '<table aria-labelledby="tbl-k-caption">' in html


def test_pandoc_widths_give_way_to_content_widths():
    html = scrollable(PANDOC_TABLE)
    assert "16%" not in html and "84%" not in html
    # asks: Constant (mean(8, 27, 14) + 27)/2 = 21.67; Meaning (mean(7, 48, 13) + 48)/2 = 35.33
    assert '<colgroup><col style="width: 38%"><col style="width: 62%"></colgroup>' in html


def test_column_widths_follow_the_cells():
    rows = ("<tr><th>A</th><th>B</th><th>C</th></tr>"
            "<tr><td>12345678</td><td>x</td><td>" + "w" * 100 + "</td></tr>")
    # asks: A (5+8)/2 = 6.5, B 4 (the floor), C (24.5+48)/2 = 36.25 -> of 46.75
    assert column_widths(rows) == [13, 8, 79]
    assert sum(column_widths(PANDOC_TABLE)) == 100


def test_identifiers_and_units_may_wrap():
    cells = breakable_code("<td><code>A_B.c</code></td><td>second/minute</td><td><a href='x/y'>x</a></td>")
    assert cells == ("<td><code>A_<wbr>B.<wbr>c</code></td><td>second/<wbr>minute</td>"
                     "<td><a href='x/y'>x</a></td>")
