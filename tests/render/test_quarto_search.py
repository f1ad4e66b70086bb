"""Quarto's pages and search index checked (scripts/bookcheck/render/quarto_search.py), and the
render once more when a page is empty or missing from the index (Quarto 1.7's race),
exercised with a stand-in `quarto` that writes the minibook's pages and a
search.json, leaving a page empty or out of the index as often as told."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bookcheck.render import RenderError, render_book
from bookcheck.render.quarto_search import has_main_text, unindexed_pages

from .conftest import quarto_stub_on_path

PAGE = ('<html><body><nav id="sidebar">Chapters</nav><main class="content">'
        '<header id="title-block-header"><h1 class="title">Basics</h1></header>{body}</main>'
        '<script>var inMain = 0;</script></body></html>')


@pytest.mark.parametrize("body, expected", [
    ("<p>Some text.</p>", True),
    ("<section><h2>Only a heading</h2></section>", True),
    ("", False),                                             # the title block alone
    ("<br><script>var x = 1;</script><style>p {}</style>  ", False),
    ("<br><div><header><p>nested header</p></header></div>", True),
])
def test_main_text_is_text_outside_the_title_block(body, expected):
    assert has_main_text(PAGE.format(body=body)) is expected


def test_a_page_with_text_and_no_entry_is_unindexed(tmp_path):
    (tmp_path / "contents").mkdir()
    (tmp_path / "index.html").write_text(PAGE.format(body="<p>Preface.</p>"))
    (tmp_path / "contents" / "a.html").write_text(PAGE.format(body="<p>A.</p>"))
    (tmp_path / "contents" / "b.html").write_text(PAGE.format(body="<p>B.</p>"))
    (tmp_path / "contents" / "empty.html").write_text(PAGE.format(body=""))
    pages = ["index.html", "contents/a.html", "contents/b.html", "contents/empty.html",
             "contents/gone.html"]
    assert unindexed_pages(tmp_path, pages) == []            # no search.json: search is off
    entries = [{"href": "index.html"}, {"href": "contents/a.html#sec-one"}]
    (tmp_path / "search.json").write_text(json.dumps(entries))
    assert unindexed_pages(tmp_path, pages) == ["contents/b.html"]


STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo 1.7.34; exit 0; fi
echo run >> "{calls}"
out=""
while [ $# -gt 0 ]; do
  case "$1" in --output-dir) out="$2"; shift ;; esac
  shift
done
mkdir -p "$out/contents"
for page in index contents/basics contents/scaling contents/constants; do
  echo '<html><main><p>Text of '"$page"'.</p></main></html>' > "$out/$page.html"
done
runs=$(wc -l < "{calls}")
if [ "$runs" -le "${{QUARTO_STUB_EMPTIES:-0}}" ]; then : > "$out/index.html"; fi
if [ "$runs" -le "${{QUARTO_STUB_RACES:-0}}" ]; then
  echo '[{{"href": "index.html"}}, {{"href": "contents/basics.html"}}, {{"href": "contents/constants.html"}}]' > "$out/search.json"
else
  echo '[{{"href": "index.html"}}, {{"href": "contents/basics.html"}}, {{"href": "contents/scaling.html#sec"}}, {{"href": "contents/constants.html"}}]' > "$out/search.json"
fi
"""


@pytest.fixture()
def racing_quarto(tmp_path, monkeypatch):
    calls = tmp_path / "quarto-calls.txt"
    quarto_stub_on_path(tmp_path, STUB.format(calls=calls), monkeypatch)
    return calls


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.is_file() else 0


def test_an_index_without_a_page_is_rendered_once_more(racing_quarto, fresh_minibook,
                                                        monkeypatch, capsys):
    root, result = fresh_minibook
    render_book(result, "html", audited=False)
    assert calls(racing_quarto) == 1                          # a complete index: one render
    monkeypatch.setenv("QUARTO_STUB_RACES", "2")              # the next render misses a page
    render_book(result, "html", audited=False)
    assert calls(racing_quarto) == 3
    assert "contents/scaling.html (no search entry)" in capsys.readouterr().err
    index = json.loads((root / "_book" / "search.json").read_text())
    assert "contents/scaling.html#sec" in [e["href"] for e in index]


def test_an_index_missing_a_page_twice_fails_and_keeps_the_previous_book(racing_quarto,
                                                                         fresh_minibook,
                                                                         monkeypatch):
    root, result = fresh_minibook
    render_book(result, "html", audited=False)
    before = (root / "_book" / "search.json").read_text()
    monkeypatch.setenv("QUARTO_STUB_RACES", "3")              # both renders of the next build
    with pytest.raises(RenderError, match=r"left contents/scaling\.html \(no search entry\), twice"):
        render_book(result, "html", audited=False)
    assert calls(racing_quarto) == 3
    assert (root / "_book" / "search.json").read_text() == before
    assert [p.name for p in root.iterdir() if p.name.startswith("_book.")] == []


def test_a_page_left_empty_is_rendered_once_more(racing_quarto, fresh_minibook, monkeypatch,
                                                 capsys):
    """The same unawaited write, still pending when Quarto exits, leaves a page empty:
    the preface, which no ledger value would have caught in the audit."""
    root, result = fresh_minibook
    monkeypatch.setenv("QUARTO_STUB_EMPTIES", "1")
    render_book(result, "html", audited=False)
    assert calls(racing_quarto) == 2
    assert "Quarto left index.html (empty)" in capsys.readouterr().err
    assert "Text of index" in (root / "_book" / "index.html").read_text()
    monkeypatch.setenv("QUARTO_STUB_EMPTIES", "4")          # both renders of the next build
    with pytest.raises(RenderError, match=r"left index\.html \(empty\), twice"):
        render_book(result, "html", audited=False)
    assert calls(racing_quarto) == 4
    assert "Text of index" in (root / "_book" / "index.html").read_text()   # the previous book
