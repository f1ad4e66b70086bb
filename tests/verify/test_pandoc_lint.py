"""pandoc's reader at check time (bookcheck.verify.pandoc_lint): its warnings, the footnote
references it leaves as text and the missing images, each a finding at its line."""
from __future__ import annotations

import subprocess

import pytest

from bookcheck import store
from bookcheck.model import Kind
from bookcheck.read.qmd import parse_chapter
from bookcheck.verify import pandoc_lint
from bookcheck.verify.check import check_book
from tests.bookkit import make_book

CHAPTER = """\
# Notes {#sec-notes}

Text[^a], then[^b] and a [link][r].

[^a]: First.

[^a]: Again.

[^c]: Never referenced, with `{python} x`
    and `{python} x + 1` on its second line.

Back in the text.

[r]: https://example.org/a
[r]: https://example.org/b

## Same {#same}

## Same again {#same}

## Label {#sec-notes}

::: {.note}
never closed
"""


def found(root, rel, text):
    return [(f.kind, f.line, f.col, f.reason) for f in
            pandoc_lint.pandoc_findings(root, parse_chapter(rel, text))]


def test_pandoc_warnings_are_findings_at_their_lines_with_the_way_out(tmp_path):
    got = found(tmp_path, "ch.qmd", CHAPTER)
    assert [(kind, line, col) for kind, line, col, _ in got] == [
        (Kind.PANDOC_WARNING, 23, 1),       # the div never closed
        (Kind.PANDOC_WARNING, 9, 1),        # [^c] never referenced
        (Kind.PANDOC_WARNING, 7, 1),        # [^a] defined twice
        (Kind.PANDOC_WARNING, 15, 1),       # [r] defined twice
        (Kind.PANDOC_WARNING, 19, 16),      # #same given twice: at the second (pandoc names a later line)
        (Kind.PANDOC_WARNING, 3, 15),       # [^b] never defined: left as text
    ]                                       # #sec-notes twice: duplicate-label's (refs.py)
    reasons = [reason for *_, reason in got]
    assert "close it with `:::`" in reasons[0]
    assert "footnote [^c] is never referenced" in reasons[1]
    assert "its 2 inline values (lines 9, 10) are never shown" in reasons[1]
    assert "[^a] is defined twice" in reasons[2] and "[r] is defined twice" in reasons[3]
    assert "#same" in reasons[4] and "`[^b]` as text" in reasons[5]


def test_missing_images_are_findings_where_quarto_resolves_them(tmp_path):
    make_book(tmp_path, {"contents/img/a b.png": b"", "contents/img/ok.png": b"", "top.png": b""})
    text = ("# Images\n"
            "\n"
            "![ok](img/ok.png) ![spaced](img/a%20b.png) ![web](https://x.org/y.png)\n"   # 3
            "![root](/top.png){width=50%} ![](img/gone.png)\n"                          # 4
            "\n"
            "`![code](img/no.png)` and ![up](../top.png)\n"                              # 6
            "\n"
            "![ref][pic]\n"                                                              # 8
            "\n"
            "[pic]: /contents/missing.svg\n")                                            # 10
    got = found(tmp_path, "contents/ch.qmd", text)
    assert [(kind, line, col) for kind, line, col, _ in got] == [
        (Kind.MISSING_IMAGE, 4, 34), (Kind.MISSING_IMAGE, 10, 8)]
    assert "(contents/img/gone.png;" in got[0][3] and "fix the path or add the file" in got[0][3]


def test_a_cached_answer_runs_no_pandoc(tmp_path, monkeypatch):
    first = found(tmp_path, "ch.qmd", CHAPTER)

    def refuse(*args, **kwargs):
        raise AssertionError("pandoc ran again")
    monkeypatch.setattr(subprocess, "run", refuse)
    assert found(tmp_path, "ch.qmd", CHAPTER) == first


@pytest.mark.kernel
def test_the_check_reports_them_in_the_file_each_line_came_from(tmp_path):
    make_book(tmp_path, {
        "index.qmd": "# Book\n\nHello[^1].\n\n{{< include _part.qmd >}}\n",
        "_part.qmd": "Part.\n\n![](gone.png)\n",
    }, "book:\n  title: T\n  chapters:\n    - index.qmd\n")
    result = check_book(tmp_path)
    assert [(f.path, f.line, f.kind) for f in result.findings] == [
        ("index.qmd", 3, Kind.PANDOC_WARNING), ("_part.qmd", 3, Kind.MISSING_IMAGE)]


def test_a_yaml_block_pandoc_cannot_read_is_a_finding_the_front_matter_is_not(tmp_path):
    """pandoc (and Quarto 1.7.34) stop at a malformed YAML block in the body; the front
    matter's own problems are read/qmd.py's `front-matter` finding, not said twice."""
    body = 'Text\n\n---\nkey: "a\nb: [\n---\n\nMore[^n].\n'
    got = found(tmp_path, "ch.qmd", body)
    assert [(kind, line, col) for kind, line, col, _ in got] == [(Kind.PANDOC_WARNING, 3, 1)]
    assert got[0][3].startswith("pandoc cannot read this chapter, so Quarto cannot render it")
    front = '---\ntitle: "A\nbad: [\n---\n\nMore[^n].\n'
    assert [(kind, line) for kind, line, _, _ in found(tmp_path, "ch.qmd", front)] == [
        (Kind.PANDOC_WARNING, 6)]


def test_an_edited_chapter_is_read_again_and_keeps_one_entry(tmp_path):
    assert found(tmp_path, "ch.qmd", "Text[^a].\n") != []
    assert found(tmp_path, "ch.qmd", "Text.\n") == []
    assert len(list((store.build_dir(tmp_path) / "pandoc-lint").iterdir())) == 1
