"""The numbers of a rendered page and the values the ledger records for it.

Shared by the HTML and PDF audits (scripts.verify.audit). Pure, stdlib only.

- `number_tokens(text)`: every number a reader sees in `text` as (number, start,
  end), as docs/audit.md defines a number (``4x`` is ``4``; ``H100`` is a name);
  signs are not part of the number.
- `page_values(parsed, run)`: the chapter's published values in page order
  (inline values and shown cell outputs, by their position in the source), each as
  a `Value` with the tokens of its text and its source line.
- `leaks(text)`: text that must never reach a reader (`LEAKS`; docs/audit.md), as
  (what, matched text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from scripts.read.options import outputs_shown
from scripts.verify.published import SEP, cell_entries, one_line, split_pipe_tables
from scripts.verify.prose_numbers import ALLOWLIST

NUMBER = re.compile(r"(?<![\w.,\d])\d+(?:,\d{3})*(?:\.\d+)?(?![\d])")
ALLOWED = [re.compile(p) for p, _ in ALLOWLIST]

#: Numbers the renderer makes, recognised in running text: "Table 1.2", "Figure A.1",
#: "Section 2.3", "Chapter 1", "Appendix B", "Equation (1.2)", a numbered callout's
#: "Note 1.1" (also Tip, Warning, Important, Caution), Quarto's "Listing 3.1", a theorem-like
#: div's "Theorem 1.1" (Lemma, Corollary, Proposition, Conjecture, Definition, Example, Exercise), and an equation number
#: "(A.3)" (the number must contain a dot, so "(3)" in prose is not taken for one).
LABEL = re.compile(r"\b(?:Table|Figure|Section|Chapter|Appendix|Equation|Eq\."
                   r"|Note|Tip|Warning|Important|Caution|Listing"
                   r"|Theorem|Lemma|Corollary|Proposition|Conjecture|Definition|Example|Exercise)"
                   r"[\s\u00a0]+\(?(?:[A-Z]|\d+)(?:\.\d+)*\)?")
EQ_NUMBER = re.compile(r"\((?:[A-Z]|\d+)\.\d+\)")

LEAKS = (
    (re.compile(r"\?@[\w:-]+"), "an unresolved cross-reference"),
    (re.compile(r"\{python\}"), "an inline expression left as code"),
    (re.compile(r"<Quantity\("), "a pint Quantity's repr"),
    (re.compile(r"<IPython\.core\.display[\w.]*"), "an IPython display object's repr"),
    (re.compile(r"<[\w.]+(?: object)? at 0x[0-9a-f]+>"), "a Python object's repr"),
    (re.compile(r"\\(?:frac|times|cdot|mathrm|text|sqrt|left|right|begin|end|approx|le|ge)"
                r"(?![A-Za-z])"), "raw TeX"),
    (re.compile(r"(?<![\w.])nan(?![\w(])"), "nan"),
    (re.compile(r"(?<![\w.])None(?![\w(]| of\b)"), "None"),
)
#: pandoc's mark of a citation key it could not find: the key in bold, then "?", inside
#: the citation's span (`data-cites="key"…<strong>key?</strong>`; not prose's **Why?**)
CITATION_MISS = re.compile(r'data-cites="[^"]*?\b([^"\s]+)\b[^"]*"[^>]*>[^<]*(?:<[^>]*>[^<]*)*?'
                           r'<strong>\1\?</strong>')


#: digits glued to a word before them: a name (H100) or, in a PDF's text layer, a
#: superscript or a table cell run into its neighbour (pass1, PARAMS175,000)
GLUED = re.compile(r"(?<=[A-Za-z_])\d+(?:,\d{3})*(?:\.\d+)?(?![\d])")


#: break opportunities a renderer inserts (identifiers wrap after `_`): invisible, so
#: `JOB_\u200b1_\u200bWEEK` reads as the name JOB_1_WEEK, not a number 1
INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))


def visible(text: str) -> str:
    """`text` without the invisible break characters a reader never sees."""
    return text.translate(INVISIBLE)


def number_tokens(text: str) -> list[tuple[str, int, int]]:
    """(number, start, end) of every number in `text`, in order."""
    return [(m.group(0), m.start(), m.end()) for m in NUMBER.finditer(text)]


def glued_tokens(text: str) -> list[tuple[str, int, int]]:
    """(number, start, end) of every digit run glued to a word before it."""
    return [(m.group(0), m.start(), m.end()) for m in GLUED.finditer(text)]


def spans(patterns, text: str) -> list[tuple[int, int]]:
    """The (start, end) of every match of `patterns` in `text`."""
    return [(m.start(), m.end()) for p in patterns for m in p.finditer(text)]


def inside(pos: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in ranges)


def leaks(text: str) -> list[tuple[str, str]]:
    """(what, matched text) of each leak in the reader's text."""
    return [(what, m.group(0)) for pattern, what in LEAKS for m in pattern.finditer(text)]


# ------------------------------------------------------------ the ledger's side

_CITE = re.compile(r"\[[^\]]*@[^\]]*\]|(?<![\w@])@[\w:-]+|\]\([^)]*\)|\{[#.][^}]*\}")


def value_numbers(text: str, allowed: bool = False) -> list[str]:
    """The numbers a reader sees of a published value's text: citations, cross-references,
    link targets and attributes are the renderer's (it shows their labels instead).
    `allowed`: only the numbers the allowlist covers ("Llama 3"), else all but those."""
    text = _CITE.sub(" ", text)
    ranges = spans(ALLOWED, text)
    return [n for n, s, _ in number_tokens(text) if inside(s, ranges) == allowed]


@dataclass
class Value:
    """One published value of a page: its numbers, where it comes from, and whether the
    page may show them out of source order (`movable`: a cell's output, whose caption
    sits above its table, a table before the text around it; an inline value in a table
    caption written below its table, which the page shows above it) or in place."""
    numbers: list[str]
    line: int
    where: str              # "inline `expr`" or "cell label"
    movable: bool
    optional: list[str] = field(default_factory=list)   # allowlisted: matched if shown


def cell_texts(outputs) -> list[str]:
    """What a reader sees of a cell's outputs as texts: every table's header and body
    cells (the ledger keys a table by its header and first column), then its lines."""
    texts = []
    for output in outputs:
        if output.kind in ("markdown", "text") and output.name not in ("stderr", "truncated"):
            for header, rows in split_pipe_tables(output.data)[0]:
                texts += header
    texts += list(cell_entries("x", outputs).values())
    for output in outputs:
        if output.kind == "html":
            from scripts.verify.html_tables import html_tables
            for header, _rows in html_tables(output.data):
                texts += header
    return texts


def page_values(parsed, run) -> list[Value]:
    """The chapter's published values in source order (inline values in place, a cell's
    outputs at its fence), as the ledger records them (ledger.collect)."""
    if run is None:
        return []
    items = []
    inline_runs = {r.index: r for r in run.inlines}
    for expr in parsed.inlines:
        result = inline_runs.get(expr.index)
        if result is not None and result.kind != "code" and expr.substitute:
            text = one_line(result.text)
            items.append((expr.start, Value(value_numbers(text), expr.line,
                                            f"inline `{{python}} {expr.expr}`",
                                            _moved_by_the_renderer(parsed.text, expr.start),
                                            value_numbers(text, allowed=True))))
    starts = [0] + [m.end() for m in re.finditer("\n", parsed.text)]
    cell_runs = {r.index: r for r in run.cells}
    for cell in parsed.cells:
        result = cell_runs.get(cell.index)
        if result is None or not result.outputs or not outputs_shown(cell) \
                or cell.options.get("eval") is False:
            continue
        texts = cell_texts(result.outputs)
        numbers = [n for text in texts for n in value_numbers(text)]
        optional = [n for text in texts for n in value_numbers(text, allowed=True)]
        offset = starts[min(cell.fence_line, len(starts)) - 1]
        items.append((offset, Value(numbers, cell.fence_line, f"cell {cell.label or cell.index + 1}",
                                    True, optional)))
    return [value for _, value in sorted(items, key=lambda item: item[0])]


TABLE_CAPTION = re.compile(r"[ \t]*(?:Table)?:[ \t]")
NOTE_DEFINITION = re.compile(r"\[\^[^\]\s]+\]:")


def _moved_by_the_renderer(text: str, offset: int) -> bool:
    """Whether pandoc shows the text at `offset` elsewhere than written: on a pipe table's
    caption line written under its table (`: Caption {#tbl-x}`: shown above it), or in
    a footnote (`[^n]: …` with its indented paragraphs, or `^[…]`: shown at the end)."""
    line_start = text.rfind("\n", 0, offset) + 1
    above = text[:line_start].split("\n")[:-1]
    rows = [ln for ln in above if ln.strip()]
    if TABLE_CAPTION.match(text, line_start) and rows and rows[-1].lstrip().startswith("|"):
        return True
    paragraph_start = text.rfind("\n\n", 0, offset) + 1
    paragraph = text[paragraph_start:offset].lstrip("\n")
    note = paragraph.rfind("^[")
    if note >= 0 and paragraph.count("[", note) > paragraph.count("]", note):
        return True
    if NOTE_DEFINITION.match(paragraph):
        return True
    if not paragraph.startswith(("    ", "\t")):
        return False
    for line in reversed(text[:paragraph_start].split("\n")):     # an indented paragraph
        if NOTE_DEFINITION.match(line):                            # of a footnote?
            return True
        if line.strip() and not line.startswith(("    ", "\t")):
            return False
    return False


def source_line(parsed, number: str, after: int) -> int:
    """The first source line at or after `after` (else anywhere) where `number` is
    written, skipping code cells but not their `#|` options (a caption); 0 when it is
    nowhere in the source."""
    lines = parsed.text.splitlines()
    pattern = re.compile(r"(?<![\w.,\d])" + re.escape(number) + r"(?![\d])")
    cells = [(c.fence_line, c.end_line) for c in parsed.cells]
    hits = [i for i, text in enumerate(lines, start=1)
            if pattern.search(text) and (text.lstrip().startswith("#|")
                                         or not any(a <= i <= b for a, b in cells))]
    later = [i for i in hits if i >= after]
    return (later or hits or [0])[0]


__all__ = ["SEP", "Value", "page_values", "number_tokens", "leaks", "value_numbers",
           "source_line", "ALLOWED", "LABEL", "EQ_NUMBER", "CITATION_MISS"]
