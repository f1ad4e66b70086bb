"""The numbers of a rendered page and the values the ledger records for it.

Shared by the HTML and PDF audits (bookcheck.verify.audit). Pure, stdlib only.

- `number_tokens(text)`: every number a reader sees in `text` as (number, start,
  end), as docs/audit.md defines a number (``4x`` is ``4``; ``H100`` is a name);
  signs are not part of the number.
- `page_values(parsed, run)`: the chapter's published values in page order
  (inline values and shown cell outputs, by their position in the source; footnotes
  at the end), each as a `Value` with the tokens of its text and its source line.
- `in_order(page, expected)`: the page's numbers aligned with the values' (a longest
  common subsequence).
- `source_index(parsed)` / `source_line(index, number, after)`: where the source
  writes a number (indexed once per page).
- `leaks(text)`: text that must never reach a reader (`LEAKS`; docs/audit.md), as
  (what, matched text, offset, pattern); `written_at` the source line of one.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from bookcheck.read.crossref_kinds import NAMES
from bookcheck.read.labels import CROSSREF_PREFIXES
from bookcheck.verify.published import SEP, cell_entries, one_line, split_pipe_tables
from bookcheck.verify.prose_numbers import ALLOWLIST
from bookcheck.verify.years import allowed_span

NUMBER = re.compile(r"(?<![\w.,\d])\d+(?:,\d{3})*(?:\.\d+)?(?![\d])")
ALLOWED = [re.compile(p) for p, _ in ALLOWLIST]

#: Numbers the renderer makes, recognised in running text: "Chapter 1", "Appendix B",
#: "Eq. 1.2", and every cross-reference kind's name and number (read/crossref_kinds.py:
#: "Table 1.2", "Figure A.1", "Section 2.3", "Equation (1.2)", "Note 1.1", "Theorem 1.1",
#: "Solution 1.1", …), and an equation number "(A.3)" (the number must contain a dot, so
#: "(3)" in prose is not taken for one).
LABEL = re.compile(r"\b(?:" + "|".join(["Chapter", "Appendix", r"Eq\.", *NAMES.values()]) + r")"
                   r"[\s\u00a0]+\(?(?:[A-Z]|\d+)(?:\.\d+)*\)?")
EQ_NUMBER = re.compile(r"\((?:[A-Z]|\d+)\.\d+\)")

LEAKS = (
    (re.compile(r"\?@[\w:-]+"), "an unresolved cross-reference"),
    # Quarto's book writes an unknown label as <span class="quarto-unresolved-ref">?sec-x</span>
    (re.compile(r"(?<![\w@?])\?(?:" + "|".join(CROSSREF_PREFIXES) + r")-[\w:-]*\w"),
     "an unresolved cross-reference"),
    (re.compile(r"\{python\}"), "an inline expression left as code (Quarto runs only "
     "`` `{python} expr` `` between its own backticks: one missing or doubled?)"),
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


def in_order(page: list[str], expected: list[str]) -> list[tuple[int, int]]:
    """(page index, expected index) pairs of a longest common subsequence of the two
    (Hunt-Szymanski: cost grows with the pairs of equal numbers, not the product of
    the lengths). A value's number is matched to a page number in order, however many
    typed numbers the page shows between values."""
    where: dict[str, list[int]] = {}
    for j, n in enumerate(expected):
        where.setdefault(n, []).append(j)
    ends: list[int] = []            # ends[k]: the least expected index ending a match of k+1
    links: list[tuple] = []         # links[k]: (page index, expected index, previous link)
    for i, n in enumerate(page):
        for j in reversed(where.get(n, ())):
            k = bisect.bisect_left(ends, j)
            link = (i, j, links[k - 1] if k else None)
            if k == len(ends):
                ends.append(j)
                links.append(link)
            else:
                ends[k], links[k] = j, link
    pairs, link = [], links[-1] if links else None
    while link is not None:
        pairs.append(link[:2])
        link = link[2]
    return pairs[::-1]


def glued_tokens(text: str) -> list[tuple[str, int, int]]:
    """(number, start, end) of every digit run glued to a word before it."""
    return [(m.group(0), m.start(), m.end()) for m in GLUED.finditer(text)]


def spans(patterns, text: str) -> list[tuple[int, int]]:
    """The (start, end) of every match of `patterns` in `text` (of an allowlist pattern's
    group `n…` when it has one: the year, not the cue word before it, years.py)."""
    return [allowed_span(m) for p in patterns for m in p.finditer(text)]


def inside(pos: int, ranges) -> bool:
    """Whether `pos` is in one of the (start, end) `ranges` (a `Ranges` answers by bisection)."""
    if isinstance(ranges, Ranges):
        return ranges.holds(pos)
    return any(a <= pos < b for a, b in ranges)


class Ranges:
    """(start, end) spans merged and sorted once, for many `inside` questions."""

    def __init__(self, ranges):
        merged: list[list[int]] = []
        for a, b in sorted(r for r in ranges if r[0] < r[1]):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self.starts = [a for a, _ in merged]
        self.ends = [b for _, b in merged]

    def holds(self, pos: int) -> bool:
        k = bisect.bisect_right(self.starts, pos) - 1
        return k >= 0 and pos < self.ends[k]


def leaks(text: str) -> list[tuple[str, str, int, re.Pattern]]:
    """(what, matched text, its offset, the pattern) of each leak in the reader's text."""
    return [(what, m.group(0), m.start(), pattern)
            for pattern, what in LEAKS for m in pattern.finditer(text)]


WORD = re.compile(r"[^\W\d_]{4,}")


def written_at(parsed, pattern: re.Pattern, text: str, at: int, places: dict | None = None) -> int:
    """The source line that wrote what the page shows at `at` matching `pattern` (a
    leak): of the places in the author's text (cells and inline values blanked; else in
    the whole source) that match it, the one whose surroundings share most words with
    the page's around `at` (then the first); 0 when none matches. `places`: a dict
    kept over one page's leaks (each pattern's places are read once)."""
    places = {} if places is None else places
    if pattern.pattern not in places:
        places[pattern.pattern] = _places(parsed, pattern)
    found = places[pattern.pattern]
    if not found:
        return 0
    shown = pattern.match(text, at)
    near = _words_near(text, at, shown.end() if shown else at)
    return max(found, key=lambda p: (len(near[0] & p[1]) + len(near[1] & p[2]), -p[0]))[0]


def _places(parsed, pattern: re.Pattern) -> list[tuple[int, set, set]]:
    """(line, words before, words after) of each match of `pattern` in the source."""
    for source in (parsed.authored, parsed.text):
        hits = [m.span() for m in pattern.finditer(source)]
        if hits:
            return [(source.count("\n", 0, a) + 1, *_words_near(source, a, b)) for a, b in hits]
    return []


def _words_near(text: str, start: int, end: int, count: int = 6,
                reach: int = 300) -> tuple[set, set]:
    """The `count` words nearest before `start` and after `end` (lower case)."""
    before = WORD.findall(text, max(0, start - reach), start)[-count:]
    after = WORD.findall(text, end, end + reach)[:count]
    return {w.lower() for w in before}, {w.lower() for w in after}


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
    caption written below its table, which the page shows above it) or in place;
    `ordered` False: not even near its place (a PDF's footnote, at the foot of some
    page), matched wherever the page shows it."""
    numbers: list[str]
    line: int
    where: str              # "inline `expr`" or "cell label"
    movable: bool
    optional: list[str] = field(default_factory=list)   # allowlisted: matched if shown
    ordered: bool = True


def cell_texts(outputs) -> list[str]:
    """What a reader sees of a cell's outputs as texts: every table's header and body
    cells (the ledger keys a table by its header and first column), then its lines."""
    texts = []
    for output in outputs:
        if output.kind in ("markdown", "text") and output.name not in ("stderr", "truncated"):
            for header, rows in split_pipe_tables(output.data)[0]:
                texts += header
    texts += list(cell_entries("x", outputs, grids=False).values())
    for output in outputs:
        if output.kind == "html":
            from bookcheck.verify.html_tables import html_tables
            for header, _rows in html_tables(output.data):
                texts += header
    return texts


LIST_MARKER = re.compile(r"^\s*(\d+)[.)](?=\s)")


def renumbered(texts: list[str]) -> list[str]:
    """`texts` (a cell's lines) with the list numbers the renderer makes blanked: 1, and
    each one more than a list number before it (as audit_pdf.list_numbers reads a page);
    a list's first number other than 1 is shown as written (HTML: `<ol start>`)."""
    seen, out = set(), []
    for text in texts:
        marker = LIST_MARKER.match(text)
        if marker:
            n = int(marker.group(1))
            if n == 1 or n - 1 in seen:
                text = text[:marker.start(1)] + " " * len(marker.group(1)) + text[marker.end(1):]
            seen.add(n)
        out.append(text)
    return out


def page_values(parsed, run, notes_at_end: bool = True) -> list[Value]:
    """The chapter's published values in page order (inline values in place, a cell's
    outputs at its fence, a footnote's values at the end of the page in the order of
    the notes' references; `notes_at_end` False, a PDF's: not ordered), as the ledger
    records them (ledger.collect)."""
    if run is None:
        return []
    items = []
    inline_runs = {r.index: r for r in run.inlines}
    for expr in parsed.inlines:
        result = inline_runs.get(expr.index)
        if result is not None and result.kind != "code" and expr.substitute:
            text = one_line(result.text)
            place, movable = _placement(parsed.text, expr.start)
            items.append((place, Value(value_numbers(text), expr.line,
                                       f"inline `{{python}} {expr.expr}`", movable,
                                       value_numbers(text, allowed=True),
                                       ordered=notes_at_end or place[0] == 0)))
    starts = [0] + [m.end() for m in re.finditer("\n", parsed.text)]
    cell_runs = {r.index: r for r in run.cells}
    for cell in parsed.cells:
        result = cell_runs.get(cell.index)
        if result is None or not result.outputs or not cell.resolved.shows_outputs \
                or not cell.resolved.eval:
            continue
        texts = renumbered(cell_texts(result.outputs))
        numbers = [n for text in texts for n in value_numbers(text)]
        optional = [n for text in texts for n in value_numbers(text, allowed=True)]
        offset = starts[min(cell.fence_line, len(starts)) - 1]
        items.append(((0, offset), Value(numbers, cell.fence_line,
                                         f"cell {cell.label or cell.index + 1}", True, optional)))
    return [value for _, value in sorted(items, key=lambda item: item[0])]


TABLE_CAPTION = re.compile(r"[ \t]*(?:Table)?:[ \t]")
NOTE_DEFINITION = re.compile(r"\[\^([^\]\s]+)\]:")


def _placement(text: str, offset: int) -> tuple[tuple, bool]:
    """Where the page shows the text at `offset` (a sort key) and whether it may show it
    out of that order. pandoc puts a pipe table's caption line written under its table
    (`: Caption {#tbl-x}`) above it (movable), and a footnote (`[^n]: …` with its
    indented paragraphs, or `^[…]`) at the end of the page, the notes in the order of
    their references (also movable: another `reference-location` shows them elsewhere)."""
    note = _note_reference(text, offset)
    if note is not None:
        return (1, note, offset), True
    line_start = text.rfind("\n", 0, offset) + 1
    rows = [ln for ln in text[:line_start].split("\n")[:-1] if ln.strip()]
    caption = bool(TABLE_CAPTION.match(text, line_start) and rows
                   and rows[-1].lstrip().startswith("|"))
    return (0, offset), caption


def _note_reference(text: str, offset: int) -> int | None:
    """The offset of the reference of the footnote whose text holds `offset` (None when
    it is in no footnote; len(text) for a note nothing references: pandoc drops it)."""
    paragraph_start = text.rfind("\n\n", 0, offset) + 1
    paragraph = text[paragraph_start:offset].lstrip("\n")
    inline = paragraph.rfind("^[")
    if inline >= 0 and paragraph.count("[", inline) > paragraph.count("]", inline):
        return text.rfind("^[", 0, offset)
    definition = NOTE_DEFINITION.match(paragraph)
    if definition is None and paragraph.startswith(("    ", "\t")):
        for line in reversed(text[:paragraph_start].split("\n")):     # an indented paragraph
            definition = NOTE_DEFINITION.match(line)                    # of a footnote?
            if definition or (line.strip() and not line.startswith(("    ", "\t"))):
                break
    if definition is None:
        return None
    reference = re.search(r"\[\^" + re.escape(definition.group(1)) + r"\](?!:)", text)
    return reference.start() if reference else len(text)


def source_index(parsed) -> dict[str, list[int]]:
    """Each number written in the chapter's source (read as the page's numbers are)
    -> the lines writing it, in order: prose, raw blocks and cell options such as a
    caption, not cell code. Built once per page (`source_line` looks numbers up)."""
    code = set()
    for cell in parsed.cells:
        code.update(range(cell.fence_line, cell.end_line + 1))
    index: dict[str, list[int]] = {}
    for i, text in enumerate(parsed.text.splitlines(), start=1):
        if i in code and not text.lstrip().startswith("#|"):
            continue
        for m in NUMBER.finditer(text):
            lines = index.setdefault(m.group(0), [])
            if not lines or lines[-1] != i:
                lines.append(i)
    return index


def source_line(index: dict[str, list[int]], number: str, after: int) -> int:
    """The first line of `index` (source_index) at or after `after` (else anywhere)
    where `number` is written; 0 when it is nowhere in the source."""
    lines = index.get(number, [])
    later = bisect.bisect_left(lines, after)
    return lines[later] if later < len(lines) else (lines[0] if lines else 0)


__all__ = ["SEP", "Value", "page_values", "number_tokens", "leaks", "value_numbers",
           "source_index", "source_line", "ALLOWED", "LABEL", "EQ_NUMBER", "CITATION_MISS"]
