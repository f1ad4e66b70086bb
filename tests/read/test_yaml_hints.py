"""A YAML mistake is reported at its file:line:col with the fix in plain words
(issue 31): PyYAML's own message names a parser state, not the mistake."""
import pytest

from bookcheck.model import Kind
from bookcheck.read.profiles import overlay
from bookcheck.read.project import load_project
from bookcheck.read.qmd import parse_chapter
from tests.bookkit import make_book

HEAD = "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n"   # lines 1-5

# (what is wrong, the lines after HEAD, (line, col) of the finding, words of the hint)
CASES = [
    ("list item indented less", "   - a.qmd\n", (6, 4),
     "this line is indented differently from the lines above it; items of one list or "
     "mapping must start in the same column (the enclosing mapping starts at line 4, column 3)"),
    ("key indented less", " title: T\n", (6, 2), "this line is indented differently"),
    ("tab", "\t- a.qmd\n", (6, 1), "a tab: YAML indents with spaces only"),
    ("colon in a value", "title: Part 1: Basics\n", (6, 14), "quote a value holding a colon"),
    ("unclosed quote", 'title: "Reliability\nauthor: me\n', (8, 1),
     "the quote opened at line 6, column 8 is never closed"),
    ("unclosed bracket", "bibliography: [a.bib\nformat: html\n", (7, 7),
     "the `[` opened at line 6, column 15 is never closed"),
    ("key without colon", "title: T\nauthor\n", (8, 1), "the key at line 7, column 1 has no `:`"),
    ("repeated key", "title: A\nbook: again\n", (7, 1),
     "this mapping already sets that key at line 3, column 1; Quarto rejects a repeated key"),
]


@pytest.mark.parametrize("rest, where, hint", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_quarto_yml_mistake_has_its_location_and_fix(tmp_path, rest, where, hint):
    make_book(tmp_path, {"index.qmd": "# I\n"}, HEAD + rest)
    (finding,) = load_project(tmp_path).findings
    assert (finding.path, finding.kind, (finding.line, finding.col)) == ("_quarto.yml", Kind.YAML, where)
    assert finding.reason.startswith("malformed YAML: ") and hint in finding.reason, finding.reason


def test_the_words_of_pyyaml_stay_before_the_hint(tmp_path):
    (tmp_path / "_quarto.yml").write_text(HEAD + "   - a.qmd\n")
    (finding,) = load_project(tmp_path).findings
    assert finding.reason.startswith(
        "malformed YAML: expected <block end>, but found '<block sequence start>' — this line")


def test_front_matter_hint_counts_lines_of_the_qmd():
    parsed = parse_chapter("c.qmd", "---\ntitle: A\nauthor: B\ntitle: C\n---\n\n# H\n")
    (finding,) = parsed.findings
    assert (finding.kind, finding.line, finding.col) == (Kind.FRONT_MATTER, 4, 1)
    assert "already sets that key at line 2, column 1" in finding.reason


def test_cell_option_hint_gives_no_column_the_file_does_not_have():
    text = '# H\n\n```{python}\n#| label: a\n#| fig-cap: "open\nx = 1\n```\n'
    (finding,) = parse_chapter("c.qmd", text).findings
    assert (finding.kind, finding.col) == (Kind.YAML, None)
    assert "the quote opened at line 5 is never closed" in finding.reason


def test_metadata_file_mistake_is_located_with_its_fix(tmp_path):
    (tmp_path / "_metadata.yml").write_text("format:\n  html:\n    toc: true\n   echo: false\n")
    *_, problems = overlay(tmp_path, {"metadata-files": ["_metadata.yml"]})
    (finding,) = problems
    assert (finding.path, finding.line, finding.col) == ("_metadata.yml", 4, 4)
    assert "indented differently" in finding.reason


def test_distinct_keys_and_merge_keys_load():
    from bookcheck.read.yamlio import load_yaml
    assert load_yaml("a: &x {k: 1}\nb:\n  <<: *x\n  k: 2\n") == {"a": {"k": 1}, "b": {"k": 2}}
