"""Quarto's execution semantics the checker follows (issue 11; conformance
cases 01, 02, 06-10, 12): includes, parts, execution directory, disabled
execution and inline values Quarto would mangle, end to end through check_book."""
from __future__ import annotations

import textwrap

import pytest

from bookcheck.model import Kind
from tests.bookkit import LOCAL_CHECK, col_of, line_of, make_book, write_book
from bookcheck.verify.check import check_book


def located(result, kind=None):
    return [(f.path, f.line, f.kind) for f in result.findings
            if f.kind != Kind.LEDGER and (kind is None or f.kind == kind)]


@pytest.mark.kernel
def test_false_check_in_an_included_file_is_reported_at_that_file(tmp_path, no_leftover_kernels):
    root = write_book(tmp_path, {"contents/ch.qmd": f"""
        # Ch

        ```{{python}}
        {textwrap.indent(LOCAL_CHECK, "        ").strip()}
        a = 1
        ```

        {{{{< include ../shared/_part.qmd >}}}}

        After: `{{python}} str(b)`.
        """})
    (root / "shared").mkdir()
    (root / "shared" / "_part.qmd").write_text(
        "## Included\n\n```{python}\nb = a + 1\ncheck(b == 3, 'b should be 3')\n```\n")
    result = check_book(root, force=True)
    assert located(result) == [("shared/_part.qmd", 5, Kind.INVARIANT)]
    assert result.findings[0].reason == "b should be 3"


@pytest.mark.kernel
def test_include_runs_in_the_chapter_kernel_and_folder(tmp_path, no_leftover_kernels):
    root = write_book(tmp_path, {"contents/ch.qmd": """
        # Ch

        ```{python}
        a = 1
        ```

        {{< include _inc.qmd >}}

        Both: `{python} f"{a}+{b}={here}"`.
        """})
    (root / "contents" / "_inc.qmd").write_text(
        "```{python}\nimport os\nb = a + 1\nhere = os.path.basename(os.getcwd())\n```\n")
    result = check_book(root, force=True)
    assert located(result) == []
    assert [i.text for i in result.runs["contents/ch.qmd"].inlines] == ["1+2=contents"]


@pytest.mark.kernel
def test_a_missing_include_is_a_finding_at_its_line(tmp_path):
    root = write_book(tmp_path, {"ch.qmd": "# Ch\n\n{{< include nope.qmd >}}\n"})
    result = check_book(root, force=True)
    assert located(result) == [("ch.qmd", 3, Kind.INCLUDE)]


@pytest.mark.kernel
@pytest.mark.slow
def test_execute_dir_default_is_the_chapter_folder_and_project_the_root(tmp_path):
    chapter = {"contents/ch.qmd": "# Ch\n\nRead: `{python} open('data.txt').read().strip()`.\n"}
    for mode, expected in (("", "contents-data"), ("project:\n  execute-dir: project\n", "root-data")):
        root = write_book(tmp_path / (mode and "project" or "default"), chapter, extra=mode)
        (root / "data.txt").write_text("root-data\n")
        (root / "contents" / "data.txt").write_text("contents-data\n")
        result = check_book(root, force=True)
        assert located(result) == []
        assert [i.text for i in result.runs["contents/ch.qmd"].inlines] == [expected]


@pytest.mark.kernel
def test_a_raising_cell_in_a_part_file_is_reported(tmp_path, no_leftover_kernels):
    make_book(tmp_path, {
        "index.qmd": "# Preface {.unnumbered}\n", "ch.qmd": "# One\n", "ch2.qmd": "# Two\n",
        "contents/part.qmd": "# Part\n\n```{python}\nx = 1\n1 / 0\n```\n"}, textwrap.dedent("""
        book:
          title: Parts
          chapters:
            - index.qmd
            - part: "A label only"
              chapters:
                - ch.qmd
            - part: contents/part.qmd
              chapters:
                - ch2.qmd
        """))
    result = check_book(tmp_path, force=True)
    assert result.project.chapters == ["index.qmd", "ch.qmd", "contents/part.qmd", "ch2.qmd"]
    assert result.project.parts == ["contents/part.qmd"]
    assert located(result) == [("contents/part.qmd", 5, Kind.CELL_ERROR)]
    assert "ZeroDivisionError" in result.findings[0].reason


def test_execute_enabled_false_starts_no_kernel(tmp_path):
    root = write_book(tmp_path, {"ch.qmd": """
        ---
        execute:
          enabled: false
        ---

        # Off

        ```{python}
        x = 1
        raise RuntimeError("would fail")
        ```

        Inline: `{python} x`.
        """})
    result = check_book(root, force=True)
    assert located(result) == []
    run = result.runs["ch.qmd"]
    assert [(i.kind, i.text) for i in run.inlines] == [("code", "")]
    assert all(c.outputs == [] for c in run.cells) and run.invariants == 0


@pytest.mark.kernel
def test_inline_values_quarto_would_mangle_are_reported_with_the_fix(tmp_path):
    root = write_book(tmp_path, {"ch.qmd": r"""
        # Values

        ```{python}
        from IPython.display import Markdown
        latex = "$\\mathrm{pass}^{1}$ = 75%"
        plain = "1,234"
        empty = ""
        ```

        A `{python} latex`, B `{python} Markdown(latex)`, C `{python} plain`, D `{python} empty`,
        E `{python}  plain`.
        """})
    result = check_book(root, force=True)
    got = [(f.line, f.col, f.kind) for f in result.findings if f.kind != Kind.LEDGER]
    line = line_of(root, "ch.qmd", "A `{python}")
    assert got == [(line, col_of(root, "ch.qmd", "`{python} latex"), Kind.INLINE_MANGLED),
                   (line, col_of(root, "ch.qmd", "`{python} empty"), Kind.INLINE_EMPTY),
                   (line + 1, col_of(root, "ch.qmd", "`{python}  plain"), Kind.INLINE_SYNTAX)]
    mangled = next(f for f in result.findings if f.kind == Kind.INLINE_MANGLED)
    assert "Markdown(...)" in mangled.reason and "md_math" in mangled.reason
    inserted = [(i.kind, i.markdown) for i in result.runs["ch.qmd"].inlines]
    # Quarto 1.7.34 put 8 backslashes there (conformance case 01): broken math.
    assert inserted == [("text", "$" + "\\" * 8 + "mathrm\\{pass\\}^\\{1\\}$ = 75%"),
                        ("markdown", "$\\mathrm{pass}^{1}$ = 75%"),
                        ("text", "1\\,234"), ("code", ""), ("code", "")]
