"""Source checks for the Markdown the chapter's code generates, and for caption options.

`with_generated(parsed, run)`: the chapter with the cross-references and citations of
its generated Markdown added to those of its prose, so the book-wide checks
(bookcheck.verify.refs) see them: a cell's Markdown output (an `md_table`, a constant's
`source`, `output: asis` text), located at the cell's fence line, and an inline value
shown as Markdown (`Markdown(...)`, `md_math(...)`), at the inline expression's
line and column. Pandoc resolves these exactly as it resolves prose, so a bad key
fails here, at a line, instead of inside pandoc or typst later.

`caption_inlines(parsed)`: an inline `{python}` expression inside a caption option
(read/cell_options.py's CAPTION_OPTIONS: `fig-cap`, `tbl-cap`, …): Quarto leaves it as code
in the caption; a finding at the option's line naming the fix (`caption_fix`, also
the advice of a number typed into such an option).
"""
from __future__ import annotations

import re
from dataclasses import replace

from bookcheck.model import Finding, Kind
from bookcheck.read.cell_options import CAPTION_OPTIONS
from bookcheck.read.labels import AT_KEY, CROSSREF_PREFIXES, HTML_COMMENT

CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?\1")


def _keys(markdown: str) -> list[str]:
    """The @keys of a Markdown text (not inside code spans or comments)."""
    text = CODE_SPAN.sub(" ", HTML_COMMENT.sub(" ", markdown))
    return [m.group(1) for m in AT_KEY.finditer(text)]


def _is_ref(key: str) -> bool:
    return "-" in key and key.split("-", 1)[0] in CROSSREF_PREFIXES


def generated_keys(parsed, run) -> list[tuple[str, int, int]]:
    """(key, line, col) of every @key in the chapter's generated Markdown."""
    if run is None:
        return []
    found = []
    cell_runs = {r.index: r for r in run.cells}
    for cell in parsed.cells:
        result = cell_runs.get(cell.index)
        if result is None or not cell.resolved.shows_outputs:
            continue
        asis = cell.resolved.asis
        for output in result.outputs:
            if output.kind == "markdown" or (output.kind == "text" and asis):
                found += [(key, cell.fence_line, 1) for key in _keys(output.data)]
    by_index = {e.index: e for e in parsed.inlines}
    for inline in run.inlines:
        expr = by_index.get(inline.index)
        if expr is not None and inline.kind == "markdown" and expr.substitute:
            found += [(key, expr.line, expr.col) for key in _keys(inline.markdown or inline.text)]
    return found


def with_generated(parsed, run):
    """`parsed` with its generated Markdown's references and citations added."""
    found = generated_keys(parsed, run)
    if not found:
        return parsed
    refs = [k for k in found if _is_ref(k[0])]
    cites = [k for k in found if not _is_ref(k[0])]
    return replace(parsed, references=parsed.references + refs,
                   citations=parsed.citations + cites)


#: How to get a computed value into what a caption option shows, by option. The
#: figure div was rendered by both built-in renderers (tests/faults/test_rendered_audit.py)
#: and is Quarto's: a div's last paragraph is Markdown, where inline values work
#: (quarto-conformance 03-inline-placement). Alt text is not published in a PDF and
#: the audit reads no attributes, so a value there would be shown nowhere it is checked.
FIG_CAP_FIX = ("put the cell (without `label` and `fig-cap`) in a figure div and write the "
               "caption as the div's last paragraph, where inline values work: `::: {#fig-x}`, "
               "the cell, the caption line, `:::`")
CAPTION_FIXES = {
    "tbl-cap": "let the cell print the table with its caption as Markdown (`: caption {#tbl-x}` "
               "after `md_table(...)`, the caption computed in the cell)",
    "fig-cap": FIG_CAP_FIX,
    "fig-alt": "alt text cannot carry a computed value (a PDF has none, and the audit of the "
               "rendered pages reads none): describe the figure in words and give the value in "
               "its caption; to compute the caption, " + FIG_CAP_FIX,
}
#: an image's alt text (`{fig-alt="…"}`, `alt="…"`), which takes the advice of `fig-alt`
ALT_ATTRIBUTE = re.compile(r"\b(?:fig-alt|alt)=\"[^\"]*\"")


def caption_fix(option: str) -> str:
    """How to put a computed value into what caption option `option` shows."""
    return CAPTION_FIXES.get(option, "keep the caption free of values")


def option_spans(parsed, cell) -> dict[str, range]:
    """Each option of `cell` -> the lines it is written on: its key's line and the `#|`
    lines after it up to the next key (a YAML block scalar or a list over several lines)."""
    lines = parsed.text.split("\n")
    last = cell.fence_line
    while last < len(lines) and lines[last].lstrip().startswith("#|"):
        last += 1                                   # `last`: the block's last line (1-based)
    starts = sorted(cell.option_lines.items(), key=lambda item: item[1])
    ends = [at for _, at in starts[1:]] + [last + 1]
    return {option: range(at, end) for (option, at), end in zip(starts, ends)}


def option_at(parsed, line: int) -> str | None:
    """The cell option written on `line` (also on a continuation line), else None."""
    for cell in parsed.cells:
        if cell.fence_line < line <= cell.end_line:
            return next((option for option, span in option_spans(parsed, cell).items()
                         if line in span), None)
    return None


def caption_inlines(parsed) -> list[Finding]:
    """An inline `{python}` value inside a caption option (on any of its lines) is a
    finding at its line."""
    findings = []
    lines = parsed.text.split("\n")
    for cell in parsed.cells:
        for option, span in option_spans(parsed, cell).items():
            number = next((n for n in span if "{python}" in lines[n - 1]), None)
            if option in CAPTION_OPTIONS and number is not None:
                line = lines[number - 1]
                findings.append(Finding(
                    parsed.path, number, Kind.CAPTION_INLINE,
                    f"an inline value inside `{option}` is left as code in the caption "
                    f"(as Quarto does): {caption_fix(option)}",
                    col=line.index("{python}") + 1, label=cell.label))
    return findings
