"""`{{< include >}}` expansion (scripts/includes.py): Quarto's path rules
(conformance cases 08, 09) and a line map back to each file."""
from __future__ import annotations

from bookcheck.model import Kind
from bookcheck.read.includes import expand
from tests.bookkit import make_book


def test_nested_include_resolves_from_the_chapter_and_slash_from_the_root(tmp_path):
    make_book(tmp_path, {
        "contents/ch.qmd": "# Ch\n\n{{< include ../shared/_part.qmd >}}\n\n{{< include /shared/_abs.qmd >}}\nend",
        "shared/_part.qmd": "part line 1\n{{< include _nested.qmd >}}\n",
        "shared/_nested.qmd": "WRONG: shared\n",
        "contents/_nested.qmd": "nested from contents\n",
        "shared/_abs.qmd": "absolute\n",
    })
    out = expand(tmp_path, "contents/ch.qmd", (tmp_path / "contents/ch.qmd").read_text())
    assert out.findings == []
    assert out.text.split("\n") == ["# Ch", "", "part line 1", "nested from contents", "", "absolute", "end"]
    assert out.line_map == [("contents/ch.qmd", 1), ("contents/ch.qmd", 2), ("shared/_part.qmd", 1),
                            ("contents/_nested.qmd", 1), ("contents/ch.qmd", 4), ("shared/_abs.qmd", 1),
                            ("contents/ch.qmd", 6)]
    assert out.files == ["shared/_part.qmd", "contents/_nested.qmd", "shared/_abs.qmd"]


def test_missing_and_cyclic_includes_are_findings_at_the_include_line(tmp_path):
    make_book(tmp_path, {"ch.qmd": "a\n{{< include nope.qmd >}}\n{{< include _loop.qmd >}}\n",
                     "_loop.qmd": "x\n{{< include _loop.qmd >}}\n"})
    out = expand(tmp_path, "ch.qmd", (tmp_path / "ch.qmd").read_text())
    where = [(f.path, f.line, f.kind) for f in out.findings]
    assert where == [("ch.qmd", 2, Kind.INCLUDE), ("_loop.qmd", 2, Kind.INCLUDE)]
    assert "nope.qmd" in out.findings[0].reason and "cycle" in out.findings[1].reason


def test_include_inside_a_code_block_is_left_alone(tmp_path):
    text = "```\n{{< include x.qmd >}}\n```\n"
    out = expand(tmp_path, "ch.qmd", text)
    assert out.text == text
    assert out.findings == []
