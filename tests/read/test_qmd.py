"""The .qmd reader: Quarto's rules, read without executing anything."""
from bookcheck.model import Kind
from bookcheck.read.qmd import decode, parse_chapter
from bookcheck.run.inline_values import left_as_code


def kinds(parsed):
    return [(f.kind, f.line, f.col) for f in parsed.findings]


def test_cells_fences_and_option_block():
    text = (
        "---\ntitle: T\n---\n"          # 1-3 front matter
        "\n"                            # 4
        "```{python}\n"                 # 5
        "#| label: tbl-a\n"             # 6
        "#| echo: false\n"              # 7
        "x = 1\n"                       # 8
        "#| not an option any more\n"   # 9
        "```\n"                         # 10
        "  ````{python}\n"              # 11  indented, four backticks
        "  ```\n"                       # 12  not a closing fence (3 backticks)
        "  ````\n"                      # 13  closes
        "```{python echo=false}\n"      # 14  attributes after a space
        "y = 2\n"                       # 15
        "```   \n"                      # 16
        "```{pythonx}\n"                # 17  not a python cell
        "```\n"                         # 18
    )
    parsed = parse_chapter("c.qmd", text)
    assert parsed.front_matter == {"title": "T"}
    assert [(c.fence_line, c.first_code_line, c.end_line) for c in parsed.cells] == \
        [(5, 6, 10), (11, 12, 13), (14, 15, 16)]
    first = parsed.cells[0]
    assert first.options == {"label": "tbl-a", "echo": False}
    assert first.label == "tbl-a"
    assert first.source == "#| label: tbl-a\n#| echo: false\nx = 1\n#| not an option any more"
    assert parsed.cells[1].source == "  ```"
    assert parsed.findings == []


def test_front_matter_is_never_a_cell_and_bad_yaml_is_located():
    text = "---\ntitle: [unclosed\nother: 1\n---\n\n```{python}\nx = 1\n```\n"
    parsed = parse_chapter("c.qmd", text)
    assert len(parsed.cells) == 1
    (finding,) = parsed.findings
    assert finding.kind == Kind.FRONT_MATTER
    assert finding.line == 3      # `other: 1`, where YAML notices the unclosed flow sequence
    assert "malformed YAML front matter" in finding.reason


def test_unclosed_front_matter():
    parsed = parse_chapter("c.qmd", "---\ntitle: x\n\nbody\n")
    assert kinds(parsed) == [(Kind.FRONT_MATTER, 1, None)]


def test_bad_cell_option_yaml_is_located_at_its_line():
    text = "# H\n\n```{python}\n#| label: ok\n#| fig-cap: [oops\nx = 1\n```\n"
    parsed = parse_chapter("c.qmd", text)
    (finding,) = parsed.findings
    assert finding.kind == Kind.YAML
    assert finding.line == 5
    assert "bad cell option" in finding.reason


def test_unclosed_fence_is_reported_at_the_opening_line():
    text = "# H\n\n```{python}\nx = 1\n\nMore prose `{python} x`.\n"
    parsed = parse_chapter("c.qmd", text)
    assert kinds(parsed) == [(Kind.UNCLOSED_FENCE, 3, None)]
    assert parsed.cells == [] and parsed.inlines == []


def test_inline_expressions_follow_quarto_syntax():
    text = (
        "# H\n"                                             # 1
        "\n"
        "A `{python} a` and\t`{python}\tb + 1` here.\n"     # 3
        "Not: `{python}c` `{python}  ` ``{python} d`` `{r} e`.\n"   # 4
        "\n"
        "```{python}\n"                                     # 6
        "s = '`{python} inside_cell`'\n"
        "```\n"
        "```text\n"                                         # 9
        "`{python} inside_text_block`\n"
        "```\n"
        "Last `{python} f(1, 'x')`.\n"                      # 12
    )
    parsed = parse_chapter("c.qmd", text)
    got = [(e.expr, e.line, e.col, e.cells_before) for e in parsed.inlines]
    # Like Quarto (conformance case 03): inline code runs in non-python fenced blocks too.
    assert got == [("a", 3, 3, 0), ("b + 1", 3, 20, 0), ("inside_text_block", 10, 1, 1),
                   ("f(1, 'x')", 12, 6, 1)]
    span = parsed.inlines[0]
    assert text[span.start:span.end] == "`{python} a`"


def test_labels_references_and_citations():
    text = (
        "# Intro {#sec-intro}\n"                                # 1
        "\n"
        "See @sec-intro, @tbl-data and [@smith2020; @lee-2021, p. 3].\n"   # 3
        "Mail me at ops@sec-team.com; code `@fig-not` is code.\n"          # 4
        "\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
        "\n"
        ": Data {#tbl-data}\n"                                  # 10
        "\n"
        "$$ E = mc^2 $$ {#eq-energy}\n"                         # 12
        "\n"
        "```{python}\n"                                         # 14
        "#| label: fig-plot\n"                                  # 15
        "x = '@sec-inside-code'\n"
        "```\n"
    )
    parsed = parse_chapter("c.qmd", text)
    assert parsed.labels == [("sec-intro", 1), ("tbl-data", 10), ("eq-energy", 12),
                             ("fig-plot", 15)]
    assert parsed.references == [("sec-intro", 3, 5), ("tbl-data", 3, 17)]
    assert [(k, line) for k, line, _ in parsed.citations] == [("smith2020", 3), ("lee-2021", 3)]


def test_callout_labels_and_references():
    text = (
        '::: {#nte-a .callout-note title="A"}\n'              # 1
        "Body.\n:::\n\n"
        "::: {.callout-tip #tip-b}\nTip.\n:::\n\n"             # 5
        "::: {#wrn-plain}\nnot a callout\n:::\n\n"            # 9
        "## Heading {#cau-head}\n\n"                          # 13
        "See @nte-a, @tip-b, @wrn-plain and @imp-none.\n"     # 15
    )
    parsed = parse_chapter("c.qmd", text)
    assert parsed.labels == [("nte-a", 1), ("tip-b", 5)]
    assert [(k, line) for k, line, _ in parsed.references] == [
        ("nte-a", 15), ("tip-b", 15), ("wrn-plain", 15), ("imp-none", 15)]
    assert parsed.citations == []


def test_grid_table_with_inline_expression_is_rejected():
    text = (
        "# H\n\n"
        "+-----+-----+\n"                 # 3
        "| a   | b   |\n"
        "+=====+=====+\n"
        "| 1   | `{python} x` |\n"        # 6
        "+-----+-----+\n"
        "\n"
        "| a | `{python} y` |\n|---|---|\n"   # pipe table: fine
    )
    parsed = parse_chapter("c.qmd", text)
    assert [(f.kind, f.line, f.col) for f in parsed.findings] == [(Kind.GRID_TABLE_INLINE, 6, 9)]
    assert len(parsed.inlines) == 2


def test_non_utf8_bytes_are_a_located_finding():
    data = "# H\n\nfine line\n".encode() + b"bad \xff byte\n"
    text, findings = decode("c.qmd", data)
    (finding,) = findings
    assert (finding.kind, finding.line, finding.col) == (Kind.ENCODING, 4, 5)
    assert "\ufffd" in text


def test_crlf_tilde_fences_and_comments():
    text = (
        "# H {#sec-h}\r\n"
        "\r\n"
        "```{python}\r\n"
        "#| label: fig-a\r\n"
        "x = 1\r\n"
        "```\r\n"
        "~~~\r\n"
        "`{python} not_code` @sec-in-tilde\r\n"
        "~~~\r\n"
        "<!-- @sec-commented -->\r\n"
        "Value `{python} x` and @sec-h.\r\n"
    )
    parsed = parse_chapter("c.qmd", text)
    assert parsed.findings == []
    assert [(c.fence_line, c.options) for c in parsed.cells] == [(3, {"label": "fig-a"})]
    # Inline code runs in any non-python fenced block, as in Quarto (conformance case 03).
    assert [(e.expr, e.line) for e in parsed.inlines] == [("not_code", 8), ("x", 11)]
    assert [r[0] for r in parsed.references] == ["sec-h"]
    assert parsed.labels == [("sec-h", 1), ("fig-a", 4)]


def test_inline_syntax_edges_are_evaluated_but_left_as_code():
    """Conformance case 02: two spaces, a trailing space or a line break after
    `{python}`: Quarto evaluates the expression but leaves the code in the page (the
    run stage reports it once evaluated, tests/faults/test_bad_inline.py)."""
    text = ("A `{python}  two` B `{python} trail ` C `{python} f(1,\n2)` D `{python} ok`.\n"
            "E `` `{python} inner` `` <!-- `{python} comment` -->\n")
    parsed = parse_chapter("c.qmd", text)
    got = [(e.expr, e.substitute) for e in parsed.inlines]
    assert got == [("two", False), ("trail", False), ("f(1,\n2)", False), ("ok", True),
                   ("inner", True), ("comment", True)]
    assert parsed.findings == []
    why = [left_as_code(text[e.start:e.end]) for e in parsed.inlines[:3]]
    assert ["more than one space" in why[0], "a space before the closing" in why[1],
            "spans lines" in why[2]] == [True] * 3
    assert all("exactly one space" in w for w in why)


def test_attribute_lists_with_braces_in_quoted_values_define_their_label():
    """pandoc's attribute list: a quoted value may hold braces (math in a caption), and a
    `#name` inside a quoted value is no label."""
    text = ('::: {#fig-a fig-cap="The $F_{i,j}$ grid, see #fig-no" fig-alt=\'{x}\'}\n'   # 1
            "![](a.png)\n"                                                          # 2
            ":::\n"                                                                 # 3
            "\n"                                                                    # 4
            '## Head {#sec-b key="}"}\n'                                            # 5
            "See @fig-a and @sec-b.\n")                                             # 6
    parsed = parse_chapter("c.qmd", text)
    assert parsed.labels == [("fig-a", 1), ("sec-b", 5)]
    assert parsed.findings == []


def test_a_figure_div_wrapping_a_cell_of_the_same_label_is_a_duplicate():
    """Quarto 1.7.34 writes the div and the cell with one id, silently."""
    text = ('::: {#fig-a fig-cap="A $x_{1}$ plot"}\n'     # 1
            "\n"                                          # 2
            "```{python}\n"                               # 3
            "#| echo: false\n"                            # 4
            "#| label: fig-a\n"                           # 5
            "print(1)\n"                                  # 6
            "```\n"                                       # 7
            "\n"                                          # 8
            ":::\n"                                       # 9
            "\n"
            "```{python}\n"                               # 11
            "#| label: fig-b\n"                           # 12
            "print(2)\n"
            "```\n")
    parsed = parse_chapter("c.qmd", text)
    assert kinds(parsed) == [(Kind.DUPLICATE_LABEL, 5, None)]
    reason = parsed.findings[0].reason
    assert "line 1" in reason and "remove `#| label:`" in reason
    assert parsed.labels == [("fig-a", 1), ("fig-b", 12)]


def test_cell_options_after_a_blank_line_are_reported_where_quarto_ignores_them():
    text = ("```{python}\n"             # 1
            "#| echo: false\n"          # 2
            "\n"                        # 3
            "#| label: fig-a\n"         # 4  ignored by Quarto
            "#| fig-cap: A\n"           # 5  ignored
            "\n"                        # 6
            "x = 1\n"                   # 7
            "#| later: code\n"          # 8  a comment after code: not an option block line
            "```\n"
            "```{python}\n"             # 10
            "\n"                        # 11 leading blank lines are dropped (as Quarto)
            "#| echo: false\n"          # 12
            "y = 2\n"
            "```\n")
    parsed = parse_chapter("c.qmd", text)
    assert kinds(parsed) == [(Kind.IGNORED_OPTION, 4, None), (Kind.IGNORED_OPTION, 5, None)]
    assert "remove the blank line" in parsed.findings[0].reason
    assert parsed.cells[0].options == {"echo": False}
    assert parsed.cells[1].options == {"echo": False}


def test_an_inline_expression_missing_its_backtick_is_located():
    text = ("# A\n\nThe cost is ${python} cost_str` per hour.\n\nAnd `{python} ok` is fine.\n\n"
            "Written as code: `` `{python} x` `` and in a block:\n\n```\n{python} y\n```\n"
            "<!-- a comment: {python} z -->\n")
    chapter = parse_chapter("c.qmd", text)
    strays = [(f.line, f.col) for f in chapter.findings if f.kind == Kind.STRAY_INLINE]
    assert strays == [(3, 14)]
    assert "ok" in [e.expr for e in chapter.inlines]



def test_a_listing_label_on_a_code_block_fence():
    """Quarto 1.7: ```` ```{#lst-x .python lst-cap="…"} ```` is listing lst-x; a code
    block's other ids define nothing."""
    text = ('```{#lst-a .python lst-cap="A"}\nprint(1)\n```\n\n'      # 1
            "```{#fig-no .python}\nx\n```\n\n"                        # 5
            "::: {#lst-b}\n```python\ny\n```\n:::\n\nSee @lst-a.\n")  # 9
    parsed = parse_chapter("c.qmd", text)
    assert parsed.labels == [("lst-a", 1), ("lst-b", 9)]
