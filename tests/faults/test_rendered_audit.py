"""Issue 22: every digit a reader sees is accounted for.

Each reproduction of the issue on a small book (one chapter, `verify: literal-numbers`
on): it fails `check` or the render with a finding at its path:line, and passes
again once fixed. The audit of the rendered output (bookcheck.verify.audit) is tested
by planting numbers nobody computed in the HTML and in the PDF. Checks run in this
process (check_book), renders with the built-in renderer (render_book).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.faults.faultkit import QUARTO_YML, copy_of, line_of, write_book

from bookcheck.model import Kind
from bookcheck.render import AuditError, render_book
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.slow

QUARTO = QUARTO_YML.format(chapters="    - contents/one.qmd") + """\
bibliography: refs.bib
verify:
  literal-numbers: true
"""
BIB = "@book{young1974, title = {A first order approximation}, author = {Young, J.}, year = {1974}}\n"

CHAPTER = """\
# One {#sec-one}

```{python}
nodes = 16
mtbf_hours = 1234.5
nodes_str = f"{nodes}"
mtbf_str = f"{mtbf_hours:,.1f}"
```

A cluster of `{python} nodes_str` nodes fails every `{python} mtbf_str` hours (@tbl-one).
EXTRA_PROSE

```{python}
#| label: tbl-one
#| tbl-cap: "MTBF by node count."
from mlsys import md_table
md_table([[n, f"{mtbf_hours / n:,.1f}"] for n in (1, 2, 4)], headers=["Nodes", "MTBF (h)"])
```
EXTRA_CELL
"""


def book(root: Path, prose: str = "", cell: str = "", caption: str | None = None) -> Path:
    text = CHAPTER.replace("EXTRA_PROSE", prose).replace("EXTRA_CELL", cell)
    if caption is not None:
        text = text.replace('#| tbl-cap: "MTBF by node count."', caption)
    return write_book(root, {"contents/one.qmd": text, "refs.bib": BIB}, quarto=QUARTO)


def check(root: Path, numbers: bool = True):
    return check_book(root, update_ledger=numbers)


def located(result) -> list[tuple[str, int, str]]:
    """The findings but the ledger's (a new cell publishes new numbers)."""
    return [(f.path, f.line, f.kind) for f in result.findings if f.kind != Kind.LEDGER]


CHAPTER_PATH = "contents/one.qmd"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The book checked (numbers.lock written) and rendered to HTML and PDF once."""
    root = book(tmp_path_factory.mktemp("clean") / "book")
    result = check(root)
    assert result.ok, located(result)
    render_book(result, "html", use_quarto=False)
    render_book(result, "pdf", use_quarto=False)
    return root, result



# ------------------------------------------------------------- the audit itself

def test_the_clean_book_renders_with_no_audit_finding(clean):
    root, _ = clean
    assert (root / "_book" / "contents" / "one.html").is_file()
    assert list((root / "_book").glob("*.pdf"))


def _plant_raw(root: Path, fmt: str) -> int:
    """A raw HTML/typst block typing a number (fenced: no prose check reads it)."""
    path = root / CHAPTER_PATH
    text = path.read_text(encoding="utf-8")
    block = ("```{=html}\n<p>Planted: 777 spare nodes.</p>\n```\n" if fmt == "html"
             else "```{=typst}\nPlanted: 777 spare nodes.\n```\n")
    path.write_text(text + "\n" + block, encoding="utf-8")
    return line_of(path, "Planted")


@pytest.mark.parametrize("fmt", ["html", "pdf"])
def test_a_number_planted_in_the_rendered_page_fails_the_render(clean, tmp_path, fmt):
    root = copy_of(clean[0], tmp_path)
    before = {p: p.read_bytes() for p in (root / "_book").rglob("*") if p.is_file()}
    planted = _plant_raw(root, fmt)
    result = check(root, numbers=False)
    assert result.ok, located(result)          # no source check sees a raw block's text
    with pytest.raises(AuditError) as caught:
        render_book(result, fmt, use_quarto=False)
    found = [(f.path, f.kind) for f in caught.value.findings]
    assert found == [(CHAPTER_PATH, Kind.UNACCOUNTED_NUMBER)]
    assert "'777'" in caught.value.findings[0].reason
    assert caught.value.findings[0].line == planted
    after = {p: p.read_bytes() for p in (root / "_book").rglob("*") if p.is_file()}
    assert after == before                      # nothing was swapped into _book/


@pytest.mark.parametrize("fmt", ["html", "pdf"])
def test_leaked_text_in_the_rendered_page_fails_the_render(clean, tmp_path, fmt):
    """Unevaluated inline code reaching the reader (here through a raw block) is a leak."""
    root = copy_of(clean[0], tmp_path)
    path = root / CHAPTER_PATH
    block = ("```{=html}\n<p>Leaked: <code>{python} nodes_str</code></p>\n```\n" if fmt == "html"
             else "```{=typst}\nLeaked: \\{python\\} nodes\\_str\n```\n")
    path.write_text(path.read_text(encoding="utf-8") + "\n" + block, encoding="utf-8")
    result = check(root, numbers=False)
    assert result.ok, located(result)
    with pytest.raises(AuditError) as caught:
        render_book(result, fmt, use_quarto=False)
    assert [(f.kind, "{python}" in f.reason) for f in caught.value.findings] == [(Kind.LEAK, True)]


def test_a_number_planted_through_the_page_template_fails_the_html_render(clean, tmp_path,
                                                                           monkeypatch):
    from bookcheck.render import html
    root = copy_of(clean[0], tmp_path)
    result = check(root, numbers=False)
    original = html.finish_body
    monkeypatch.setattr(html, "finish_body", lambda body: original(body) + "<p>Uptime 99.5%</p>")
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    assert [(f.kind, "'99.5'" in f.reason) for f in caught.value.findings] == \
        [(Kind.UNACCOUNTED_NUMBER, True)]


def test_a_ledger_value_missing_from_the_page_is_a_finding(clean, tmp_path, monkeypatch):
    from bookcheck.render import html
    root = copy_of(clean[0], tmp_path)
    result = check(root, numbers=False)
    original = html.finish_body
    monkeypatch.setattr(html, "finish_body",
                        lambda body: original(body).replace("1,234.5", "1,234.6", 1))
    with pytest.raises(AuditError) as caught:
        render_book(result, "html", use_quarto=False)
    kinds = sorted((f.kind, f.line) for f in caught.value.findings)
    line = line_of(root / CHAPTER_PATH, "fails every")
    assert (Kind.MISSING_VALUE, line) in kinds and (Kind.UNACCOUNTED_NUMBER, line) in kinds


# ------------------------------------------------------ the reproductions

def test_an_html_display_is_in_the_ledger_and_missing_from_the_pdf(clean, tmp_path):
    """`display(HTML("<b>42</b> nodes"))`: the ledger records "42 nodes" (a change
    fails `check`); the PDF cannot show HTML, so its audit names the value."""
    root = copy_of(clean[0], tmp_path)
    cell = '\n```{python}\nfrom IPython.display import HTML, display\ndisplay(HTML("<b>42</b> nodes"))\n```\n'
    book(root, cell=cell)
    result = check(root)
    assert result.ok, located(result)
    assert "42 nodes" in (root / "numbers.lock").read_text(encoding="utf-8")
    render_book(result, "html", use_quarto=False)           # the HTML shows it: accounted
    with pytest.raises(AuditError) as caught:
        render_book(result, "pdf", use_quarto=False)
    fence = line_of(root / CHAPTER_PATH, "from IPython.display import HTML") - 1
    assert [(f.path, f.line, f.kind) for f in caught.value.findings] == \
        [(CHAPTER_PATH, fence, Kind.MISSING_VALUE)]
    book(root, cell=cell.replace("42", "43"))
    changed = check(root, numbers=False)
    assert [f.kind for f in changed.findings] == [Kind.LEDGER]
    assert "42 nodes → 43 nodes" in changed.findings[0].reason


def test_a_bare_quantity_inline_value_is_a_finding_naming_fmt(clean, tmp_path):
    root = copy_of(clean[0], tmp_path)
    prose = "\n```{python}\nfrom mlsys import ureg\nnode_mtbf = 5172.413793103448 * ureg.hour\n```\n\nThe raw value is `{python} node_mtbf`.\n"
    book(root, prose=prose)
    result = check(root, numbers=False)
    line = line_of(root / CHAPTER_PATH, "The raw value")
    assert located(result) == [(CHAPTER_PATH, line, Kind.INLINE_MANGLED)]
    assert "fmt(...)" in result.findings[0].reason
    book(root, prose=prose.replace("`{python} node_mtbf`",
                                   '`{python} f"{node_mtbf.magnitude:,.0f}"` hours'))
    assert check(root).ok


@pytest.mark.parametrize("bad, fixed, kind", [
    ("[@nokey2021]", "[@young1974]", Kind.UNKNOWN_CITATION),
    ("@sec-nope", "@sec-one", Kind.UNKNOWN_REF),
])
def test_a_bad_key_in_a_cells_markdown_output_is_found_at_the_cell(clean, tmp_path, bad, fixed, kind):
    root = copy_of(clean[0], tmp_path)
    cell = ('\n```{python}\nfrom IPython.display import Markdown\n'
            f'Markdown("As shown in {bad}.")\n```\n')
    book(root, cell=cell)
    result = check(root, numbers=False)
    fence = line_of(root / CHAPTER_PATH, "from IPython.display import Markdown") - 1
    assert located(result) == [(CHAPTER_PATH, fence, kind)]
    book(root, cell=cell.replace(bad, fixed))
    assert check(root).ok


def test_a_bad_key_in_a_markdown_inline_value_is_found_at_its_line_and_column(clean, tmp_path):
    root = copy_of(clean[0], tmp_path)
    prose = ('\n```{python}\nfrom IPython.display import Markdown\nsee = Markdown("[@nokey2021]")\n```\n\n'
             'Background: `{python} see`.\n')
    book(root, prose=prose)
    result = check(root, numbers=False)
    line = line_of(root / CHAPTER_PATH, "Background:")
    assert [(f.line, f.col, f.kind) for f in result.findings if f.kind != Kind.LEDGER] == \
        [(line, 13, Kind.UNKNOWN_CITATION)]


def test_an_inline_value_in_a_caption_is_a_finding_at_its_line(clean, tmp_path):
    root = copy_of(clean[0], tmp_path)
    book(root, caption='#| tbl-cap: "MTBF for `{python} nodes_str` nodes."')
    result = check(root, numbers=False)
    line = line_of(root / CHAPTER_PATH, "#| tbl-cap")
    assert located(result) == [(CHAPTER_PATH, line, Kind.CAPTION_INLINE)]
    assert "Markdown" in result.findings[0].reason
    book(root)
    assert check(root).ok


FIGURE_CELL = """
```{python}
#| label: fig-nodes
#| fig-cap: "CAPTION"
#| fig-alt: "ALT"
import matplotlib.pyplot as plt
plt.figure(figsize=(2, 1.5))
plt.plot([1, 0])
plt.show()
```
"""

#: A figure whose caption holds a computed value, as the findings below advise.
FIGURE_DIV = """
::: {#fig-nodes}
```{python}
#| fig-alt: "A falling line."
import matplotlib.pyplot as plt
plt.figure(figsize=(2, 1.5))
plt.plot([1, 0])
plt.show()
```

A falling line for `{python} nodes_str` nodes.
:::
"""
@pytest.mark.parametrize("option, text, kind, advice", [
    ("fig-cap", "A falling line for 16 nodes.", Kind.LITERAL_NUMBER, "::: {#fig-x}"),
    ("fig-cap", "A falling line for `{python} nodes_str` nodes.", Kind.CAPTION_INLINE, "::: {#fig-x}"),
    ("fig-alt", "A falling line for 16 nodes.", Kind.LITERAL_NUMBER, "in words"),
    ("fig-alt", "A falling line for `{python} nodes_str` nodes.", Kind.CAPTION_INLINE, "in words"),
])
def test_a_value_in_a_figure_caption_option_is_told_the_figure_fix(clean, tmp_path, option, text,
                                                                   kind, advice):
    """Issue 31: a number in `fig-cap`/`fig-alt` is told how figures take a computed
    value (not the inline value the option cannot hold, not the table's `md_table`)."""
    root = copy_of(clean[0], tmp_path)
    options = {"fig-cap": "A falling line.", "fig-alt": "A falling line.", option: text}
    book(root, cell=FIGURE_CELL.replace("CAPTION", options["fig-cap"])
                               .replace("ALT", options["fig-alt"]))
    result = check(root, numbers=False)
    line = line_of(root / CHAPTER_PATH, f"#| {option}")
    assert located(result) == [(CHAPTER_PATH, line, kind)]
    reason = result.findings[0].reason
    assert advice in reason and "md_table" not in reason, reason


def test_the_figure_fix_shows_the_value_in_both_renderers(clean, tmp_path):
    """The advice of the test above, followed: the check passes, both renderers show
    the figure's computed caption (and their audits account for it)."""
    root = copy_of(clean[0], tmp_path)
    book(root, cell=FIGURE_DIV + "\nSee @fig-nodes.\n")
    result = check(root)
    assert result.ok, located(result)
    render_book(result, "html", use_quarto=False)
    page = (root / "_book" / "contents" / "one.html").read_text(encoding="utf-8")
    # the nobreak filter (issue 35) joins "16 nodes" with U+00A0 on purpose
    assert "A falling line for 16 nodes.</figcaption>" in page.replace("\u00a0", " ")
    render_book(result, "pdf", use_quarto=False)
    from pypdf import PdfReader
    pdf = next((root / "_book").glob("*.pdf"))
    text = " ".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Figure 1.1: A falling line for 16 nodes." in " ".join(text.split())


@pytest.mark.parametrize("where", ["caption", "alt", "heading", "callout", "suffix"])
def test_typed_numbers_where_readers_see_them_are_literal_numbers(clean, tmp_path, where):
    root = copy_of(clean[0], tmp_path)
    if where == "caption":
        book(root, caption='#| tbl-cap: "MTBF for 8 node counts."')
        needle = "#| tbl-cap"
    elif where == "alt":
        book(root, prose='\n![A box](box.svg){#fig-box fig-alt="A box drawn 3 times"}\n')
        (root / CHAPTER_PATH).with_name("box.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
        needle = "fig-alt"
    elif where == "heading":
        book(root, prose="\n## The 12 rules\n")
        needle = "## The 12 rules"
    elif where == "callout":
        book(root, prose='\n::: {.callout-note title="5 things"}\nText.\n:::\n')
        needle = "callout-note"
    else:
        book(root, prose="\nRecovery is 4x faster within 100ms on a 5GB shard of 10k GPUs.\n")
        needle = "Recovery is"
    result = check(root, numbers=False)
    line = line_of(root / CHAPTER_PATH, needle)
    kinds = set(located(result))
    assert kinds == {(CHAPTER_PATH, line, Kind.LITERAL_NUMBER)}
    if where == "alt":
        assert "in words" in result.findings[0].reason
    if where == "suffix":
        assert sorted(f.reason.split("'")[1] for f in result.findings
                      if f.kind == Kind.LITERAL_NUMBER) == ["100ms", "10k", "4x", "5GB"]


def test_an_unchanged_render_is_not_audited_again(clean, tmp_path):
    """Reuse by digest: a second render of the same pages audits nothing; an edited
    page is audited again (and only it)."""
    from bookcheck.verify import audit
    root = copy_of(clean[0], tmp_path)
    result = check(root, numbers=False)
    render_book(result, "html", use_quarto=False)      # now linking the fixture's PDF
    audit.AUDITED.clear()
    render_book(result, "html", use_quarto=False)
    render_book(result, "pdf", use_quarto=False)
    assert audit.AUDITED == []
    book(root, prose="\nOne more sentence.\n")
    edited = check(root, numbers=False)
    render_book(edited, "html", use_quarto=False)
    render_book(edited, "pdf", use_quarto=False)
    assert audit.AUDITED == ["contents/one.html", "Fault-fixture.pdf"]
