"""Options resolved and validated once (scripts/bookcheck/read/options.py), as Quarto 1.7.34 does:
its schema (a wrong type is a finding at its line), its `#|` parsing, its precedence
(project -> profile -> `_metadata.yml` -> front matter -> cell); every stage reads
the result. No kernel, no Quarto (but the local-only schema test)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bookcheck.model import CellRun, ChapterRun, Output
from bookcheck.read.book import read_book
from bookcheck.read.project import load_project
from bookcheck.render.engine_md import engine_markdown
from bookcheck.run.inprocess import run_in_process
from tests.skip_policy import REAL_QUARTO_VERSION, require_path

BOOK = "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def no_profile(monkeypatch):
    monkeypatch.delenv("QUARTO_PROFILE", raising=False)


def test_a_string_false_include_is_a_finding_at_its_line_and_every_stage_shows_the_cell(tmp_path):
    """Quarto refuses `include: "false"` (a string; include is a boolean): a finding at
    its line, and the value is dropped, so the run, the built-in page and the handoff
    all keep the cell (once the run dropped its outputs while the page showed its code
    and the handoff deleted it)."""
    write(tmp_path, {"_quarto.yml": BOOK, "index.qmd":
                     "# I\n\n```{python}\n#| echo: true\n#| include: \"false\"\nprint('shown')\n```\n"})
    parsed = read_book(tmp_path).parsed["index.qmd"]
    assert [(f.line, f.kind) for f in parsed.findings] == [(5, "yaml")]
    assert "`include`" in parsed.findings[0].reason and "`true` or `false`" in parsed.findings[0].reason
    cell = parsed.cells[0]
    assert "include" not in cell.options and cell.resolved.include is True
    run = run_in_process(parsed).run
    assert [o.data for o in run.cells[0].outputs] == ["shown\n"]                 # the run
    text = engine_markdown(parsed, run).markdown          # both renderers' Markdown
    assert "print('shown')" in text and "shown\n" in text.replace("print('shown')", "")


def test_a_wrong_type_in_the_front_matter_or_project_execute_is_a_finding_at_its_line(tmp_path):
    write(tmp_path, {"_quarto.yml": BOOK + "execute:\n  freeze: sometimes\n",
                     "index.qmd": "---\ntitle: I\nexecute:\n  echo: \"false\"\n---\n\n# I\n"})
    book = read_book(tmp_path)
    assert [(f.path, f.line) for f in book.findings] == [("_quarto.yml", 7)]
    assert "`true`, `false` or `auto`" in book.findings[0].reason
    parsed = book.parsed["index.qmd"]
    assert [(f.line, f.kind) for f in parsed.findings] == [(4, "yaml")]
    assert "write `echo: false`, without quotes" in parsed.findings[0].reason
    assert parsed.freeze is False and book.project.execute == {}


def test_yes_is_a_string_as_in_quartos_yaml_1_2(tmp_path):
    """Quarto reads YAML 1.2: `echo: yes` is the string "yes", which echo refuses
    (PyYAML's YAML 1.1 would make it true)."""
    write(tmp_path, {"_quarto.yml": BOOK, "index.qmd": "# I\n\n```{python}\n#| echo: yes\nx = 1\n```\n"})
    parsed = read_book(tmp_path).parsed["index.qmd"]
    assert [(f.line, f.kind) for f in parsed.findings] == [(4, "yaml")]
    assert '"yes"' in parsed.findings[0].reason and "echo" not in parsed.cells[0].options


def test_option_lines_are_found_as_quarto_finds_them(tmp_path):
    """Checked with Quarto 1.7.34 (`quarto render --to md`): blank lines before the
    option block are skipped, `# |` and `#|key` are option lines; the block ends at
    the first other line, a blank one too (a `#|` line after it: `ignored-option`)."""
    cells = ["\n#| echo: false\nprint('A')", "\n\n#| echo: false\nprint('B')",
             "# | echo: false\nprint('C')", "#|echo: false\nprint('D')",
             "#| echo: false\n\n#| eval: false\nprint('E')"]
    chapter = "# I\n\n" + "".join(f"```{{python}}\n{c}\n```\n\n" for c in cells)
    write(tmp_path, {"_quarto.yml": BOOK, "index.qmd": chapter})
    parsed = read_book(tmp_path).parsed["index.qmd"]
    assert [(f.line, f.kind) for f in parsed.findings] == [(29, "ignored-option")]
    assert [dict(c.options) for c in parsed.cells] == [{"echo": False}] * 5
    assert [c.code for c in parsed.cells[:4]] == [f"print('{x}')" for x in "ABCD"]
    assert parsed.cells[4].code == "#| eval: false\nprint('E')"
    assert [c.option_lines["echo"] for c in parsed.cells] == [5, 12, 17, 22, 27]
    run = ChapterRun(path="index.qmd", cells=[CellRun(i, [Output("text", "out\n")]) for i in range(5)])
    page = engine_markdown(parsed, run).markdown
    assert "echo: false" not in page and "print('A')" not in page


def test_the_cascade_is_project_profile_directory_metadata_front_matter_cell(tmp_path):
    """Each layer sets one key fewer than the one below it: every key shows who won."""
    write(tmp_path, {
        "_quarto.yml": "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n"
                       "    - contents/ch.qmd\nexecute:\n  output: asis\n  warning: false\n"
                       "  error: false\n  eval: false\n  echo: false\n",
        "_quarto-p.yml": "execute:\n  warning: true\n  error: true\n  eval: true\n  echo: true\n",
        "contents/_metadata.yml": "execute:\n  error: false\n  eval: false\n  echo: false\n",
        "contents/ch.qmd": "---\nexecute:\n  eval: true\n  echo: true\n---\n\n# C\n\n"
                           "```{python}\n#| echo: false\nx = 1\n```\n",
        "index.qmd": "# I\n\n```{python}\nx = 1\n```\n"})
    book = read_book(tmp_path, profile="p")
    assert dict(book.parsed["contents/ch.qmd"].cells[0].options) == {
        "output": "asis", "warning": True, "error": False, "eval": True, "echo": False}
    # contents/_metadata.yml is not index.qmd's; without the profile, the project alone
    assert dict(book.parsed["index.qmd"].cells[0].options) == {
        "output": "asis", "warning": True, "error": True, "eval": True, "echo": True}
    assert dict(read_book(tmp_path).parsed["index.qmd"].cells[0].options) == {
        "output": "asis", "warning": False, "error": False, "eval": False, "echo": False}


def test_the_profile_is_an_argument_before_the_environment(tmp_path, monkeypatch):
    write(tmp_path, {"_quarto.yml": BOOK.replace("book:\n", "book:\n  title: Base\n"),
                     "index.qmd": "# I\n", "_quarto-a.yml": "book:\n  title: A\n",
                     "_quarto-b.yml": "book:\n  title: B\n"})
    monkeypatch.setenv("QUARTO_PROFILE", "a")
    assert load_project(tmp_path).title == "A"                  # Quarto's own default
    project = load_project(tmp_path, profile="b")
    assert (project.title, project.profiles) == ("B", ["b"])


def test_a_books_own_scripts_and_tests_are_its_sources_but_not_the_checkers(tmp_path):
    """Quarto skips hidden folders and its engines' (venv, env, renv, node_modules...);
    a book's own scripts/ and tests/ are its files (they were left out by name)."""
    write(tmp_path, {"_quarto.yml": BOOK, "index.qmd": "# I\n", "scripts/helper.py": "x = 1\n",
                     "tests/test_x.py": "", "venv/lib.py": "", "node_modules/m.js": "",
                     ".git/HEAD": "", "_book/index.html": ""})
    assert load_project(tmp_path).source_files() == [
        "_quarto.yml", "index.qmd", "scripts/helper.py", "tests/test_x.py"]
    here = load_project(Path(__file__).resolve().parents[2]).source_files()
    assert not any(rel.startswith("scripts/bookcheck/") for rel in here)  # the checker is not the book
    assert "_quarto.yml" in here and "mlsys/__init__.py" in here


def test_the_committed_schema_is_what_the_generator_writes():
    """Local-only: quarto_schema.json is distilled from the real Quarto's sources."""
    from booktools.quarto_schema import DEFAULT_SRC, TARGET, render
    src = require_path(DEFAULT_SRC / "resources" / "schema",
                       f"the sources of real Quarto {REAL_QUARTO_VERSION}", local_only=True)
    assert TARGET.read_text(encoding="utf-8") == render(src.parents[1])
