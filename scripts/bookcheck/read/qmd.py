"""Read one .qmd chapter into a ParsedChapter, following Quarto's rules.

What is recognised (and nothing is executed here):

* YAML front matter: a `---` block starting at line 1, closed by `---` or `...`;
* code cells: an opening line matching FENCE_PY, closed by a line with the
  same indent and the same number of backticks and nothing else;
* the cell's option block: the leading run of `#| key: value` lines (after any
  blank lines, as Quarto), as YAML; read/options.py validates it; a `#|` line
  after a blank line that ends the block is a finding (Quarto ignores it);
* inline expressions `{python} expr` in one-backtick code spans of the
  markdown text (not inside any fenced block, not inside longer code spans);
* cross-reference labels (`{#sec-x}`, `{#tbl-x}`, `{#fig-x}`, `{#eq-x}`, in a
  pandoc attribute list whose quoted values may hold braces; cell `label:`, a cell
  labelled as the div wrapping it being a finding; callouts `{#nte-x .callout-note}`), `@sec-x`-style
  references and `[@key]` citations (read/labels.py);
* grid tables that contain an inline expression (rejected).

Every problem found by reading alone becomes a Finding with a line number.
"""
from __future__ import annotations

import bisect
import re

import yaml

from bookcheck.read.cell_options import cell_options
from bookcheck.read.labels import ATTR_LABEL, HTML_COMMENT, labels_and_refs
from bookcheck.read.textpos import Lines
from bookcheck.read.yamlio import compose_yaml, key_lines, load_yaml, yaml_problem
from bookcheck.model import CodeCell, Finding, InlineExpr, Kind, ParsedChapter

FENCE_PY = re.compile(r"^(\s*)(```+)\s*\{python( *[ ,].*)?\}\s*$")
FENCE_ANY = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
OPTION_LINE = re.compile(r"^#\s*\| ?")       # Quarto's optionCommentPattern for `#`
OPTION_KEY = re.compile(r"^([^\s:#][^:]*?)\s*:")
# Quarto's inline code: `{python}` then whitespace, anywhere in the Markdown text
# (not in cells), within one paragraph. Evaluated whatever the whitespace; put in
# the page only with exactly one space or tab and no line break or trailing space.
INLINE = re.compile(r"(?<!`)`\{python\}([ \t\n](?:(?!\n[ \t]*\n)[^`])*)`(?!`)")
SUBSTITUTED = re.compile(r"[ \t][^\s](?:[^\n]*\S)?")
BACKTICKS = re.compile(r"`+")
BLANK_LINE = re.compile(r"\n[ \t]*\n")
GRID_BORDER = re.compile(r"^\s*\+(?:[-=:]+\+)+\s*$")



def parse_chapter(path_rel: str, text: str) -> ParsedChapter:
    """Parse the text of one chapter; `path_rel` is only used to locate findings."""
    chapter = ParsedChapter(path=path_rel, text=text)
    lines = text.split("\n")
    # `prose` keeps only the markdown text: front matter and fenced blocks are
    # blanked (newlines kept) so offsets in `prose` are offsets in `text`.
    prose = list(lines)
    body_start = _front_matter(chapter, lines, prose)
    markdown = list(prose)      # like prose, but only python cells blanked: inline code runs there
    cell_starts = _fenced_blocks(chapter, lines, prose, body_start, markdown)
    _inline_exprs(chapter, "\n".join(markdown), cell_starts)
    chapter.authored = _blank_spans("\n".join(markdown), [(e.start, e.end) for e in chapter.inlines])
    prose_text = _blank_code_spans("\n".join(prose))
    labels_and_refs(chapter, prose_text)
    _stray_inline(chapter, prose_text)
    _grid_tables(chapter, lines)
    return chapter


STRAY_INLINE = re.compile(r"\{python\}")


def _stray_inline(chapter: ParsedChapter, prose: str) -> None:
    """`{python}` left in the prose once code spans are blanked: an inline expression
    missing a backtick, which Quarto and pandoc show as text (with its code)."""
    prose = HTML_COMMENT.sub(lambda m: " " * len(m.group(0)), prose)
    where = Lines(chapter.text)
    for m in STRAY_INLINE.finditer(prose):
        line, col = where.locate(m.start())
        chapter.findings.append(Finding(
            chapter.path, line, Kind.STRAY_INLINE,
            "`{python}` outside a code span: a backtick is missing, so the page shows the "
            "code as text; write the expression as `` `{python} name` ``", col=col))


def _blank_spans(text: str, spans) -> str:
    """`text` with each (start, end) span blanked (offsets kept)."""
    out = list(text)
    for start, end in spans:
        out[start:end] = " " * (end - start)
    return "".join(out)


def _blank(line: str) -> str:
    return " " * len(line)


def _front_matter(chapter: ParsedChapter, lines: list[str], prose: list[str]) -> int:
    """Parse front matter at line 1; return the index of the first body line."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            block = "\n".join(lines[1:i])
            for j in range(0, i + 1):
                prose[j] = _blank(lines[j])
            try:
                node, data = compose_yaml(block) if block.strip() else (None, {})
            except yaml.YAMLError as exc:
                problem = yaml_problem(exc, first_line=2)
                line = min(problem.line or 2, i + 1)
                chapter.findings.append(Finding(chapter.path, line, Kind.FRONT_MATTER,
                                                f"malformed YAML front matter: {problem.reason}",
                                                col=problem.col if line == problem.line else None))
                return i + 1
            if data is None:
                data = {}
            if not isinstance(data, dict):
                chapter.findings.append(Finding(chapter.path, 1, Kind.FRONT_MATTER,
                                                "front matter is not a YAML mapping"))
            else:
                chapter.front_matter, chapter.front_lines = data, key_lines(node, first_line=2)
            return i + 1
    chapter.findings.append(Finding(chapter.path, 1, Kind.FRONT_MATTER,
                                    "front matter opened by `---` at line 1 is never closed"))
    return 0


def _fenced_blocks(chapter: ParsedChapter, lines: list[str], prose: list[str],
                   start: int, markdown: list[str]) -> list[int]:
    """Find python cells and other fenced blocks; blank them in `prose` (python
    cells only in `markdown`).

    Returns the character offset (in the text) of each cell's fence line,
    used to count the cells preceding an inline expression.
    """
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    cell_starts: list[int] = []
    i = start
    while i < len(lines):
        py = FENCE_PY.match(lines[i])
        other = None if py else FENCE_ANY.match(lines[i])
        if other and other.group(2)[0] == "`" and "`" in other.group(3):
            other = None    # not a fence: backticks in the info string
        if not py and not other:
            i += 1
            continue
        indent, fence = (py or other).group(1), (py or other).group(2)
        listing = None if py else ATTR_LABEL.search(lines[i])
        if listing and listing.group(1).startswith("lst-"):      # ```{#lst-x .python}
            chapter.labels.append((listing.group(1), i + 1))
        if py:
            closing = re.compile("^" + re.escape(indent) + re.escape(fence) + r"\s*$")
        else:
            closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        end = next((j for j in range(i + 1, len(lines)) if closing.match(lines[j])), None)
        if end is None:
            what = "python cell" if py else "code block"
            chapter.findings.append(Finding(
                chapter.path, i + 1, Kind.UNCLOSED_FENCE,
                f"{what} opened with {fence} at line {i + 1} is never closed",
                detail=lines[i].strip()))
            end = len(lines)        # like pandoc: the block swallows the rest
        for j in range(i, min(end + 1, len(lines))):
            prose[j] = _blank(lines[j])
            if py:
                markdown[j] = prose[j]
        if py and end < len(lines):
            cell_starts.append(offsets[i])
            chapter.cells.append(_make_cell(chapter, lines, i, end))
        i = end + 1
    return cell_starts


def option_block(body: list[str]) -> tuple[int, list[str]]:
    """(the index of its first line, the YAML lines) of a cell's option block, as Quarto
    1.7 finds it (src/core/jupyter/jupyter.ts, partition-cell-options.ts): blank lines
    before it are dropped, then the run of lines matching `#\\s*\\| ?` is the block."""
    start = next((i for i, line in enumerate(body) if line.strip()), len(body))
    texts = []
    for line in body[start:]:
        m = OPTION_LINE.match(line)
        if not m:
            break
        texts.append(line[m.end():])
    return start, texts


def _ignored_options(body: list[str], after: int) -> list[int]:
    """Indices of the `#|` lines that follow the option block across blank lines
    (Quarto reads them as code: comments)."""
    ignored = []
    for i in range(after, len(body)):
        if OPTION_LINE.match(body[i]):
            ignored.append(i)
        elif body[i].strip():
            break
    return ignored


def _make_cell(chapter: ParsedChapter, lines: list[str], fence: int, end: int) -> CodeCell:
    """Build the CodeCell for fence line index `fence` closed at index `end`."""
    body = lines[fence + 1:end]
    cell = CodeCell(index=len(chapter.cells), fence_line=fence + 1,
                    first_code_line=fence + 2, end_line=end + 1,
                    source="\n".join(body))
    indent = re.match(r"[ \t]*", lines[fence]).group(0)     # Quarto strips the fence's indent
    unindented = [ln[len(indent):] if ln.startswith(indent) else ln for ln in body]
    start, option_text = option_block(unindented)
    first = cell.first_code_line + start
    for i in _ignored_options(unindented, start + len(option_text)):
        chapter.findings.append(Finding(
            chapter.path, cell.first_code_line + i, Kind.IGNORED_OPTION,
            "Quarto ignores this option: it follows a blank line (only the `#|` lines before "
            "the first blank one are options); remove the blank line", label=cell.label,
            detail=body[i].strip()))
    cell.code = "\n".join(body[start + len(option_text):]).strip("\n")
    if option_text:
        try:
            options = load_yaml("\n".join(option_text))
        except yaml.YAMLError as exc:
            problem = yaml_problem(exc, first_line=first, columns=False)
            line = min(problem.line or first, first + len(option_text) - 1)
            chapter.findings.append(Finding(chapter.path, line, Kind.YAML,
                                            f"bad cell option: {problem.reason}",
                                            detail=lines[line - 1].strip()))
            options = {}
        if isinstance(options, dict):
            cell.options, cell.resolved = options, cell_options(options)
            keys = (OPTION_KEY.match(text) for text in option_text)
            cell.option_lines = {m.group(1): first + i for i, m in enumerate(keys) if m}
        elif options is not None:
            chapter.findings.append(Finding(chapter.path, first, Kind.YAML,
                                            "cell options are not `key: value` lines"))
    return cell


def _inline_exprs(chapter: ParsedChapter, markdown: str, cell_starts: list[int]) -> None:
    """Collect inline expressions as Quarto finds them: a plain scan of the Markdown
    text (HTML comments, indented and non-python fenced blocks, math, URLs included)."""
    where = Lines(chapter.text)
    for m in INLINE.finditer(markdown):
        body = m.group(1)
        if not body.strip():
            continue
        line, col = where.locate(m.start())
        substitute = bool(SUBSTITUTED.fullmatch(body))
        chapter.inlines.append(InlineExpr(
            index=len(chapter.inlines), line=line, col=col, expr=body.strip(),
            start=m.start(), end=m.end(), substitute=substitute,
            cells_before=bisect.bisect_left(cell_starts, m.start())))


def _blank_code_spans(prose: str) -> str:
    """`prose` with every code span blanked (labels and refs are not read there)."""
    out = list(prose)
    pos = 0
    while True:
        m = BACKTICKS.search(prose, pos)
        if not m:
            break
        ticks = m.group(0)
        close = _closing_run(prose, m.end(), len(ticks))
        if close is None:
            pos = m.end()
            continue
        span_end = close + len(ticks)
        for k in range(m.start(), span_end):
            if out[k] != "\n":
                out[k] = " "
        pos = span_end
    return "".join(out)


def _closing_run(prose: str, start: int, n: int) -> int | None:
    """Offset of the next run of exactly n backticks, within the same paragraph."""
    for m in BACKTICKS.finditer(prose, start):
        if BLANK_LINE.search(prose, start, m.start()):
            return None
        if len(m.group(0)) == n:
            return m.start()
    return None


def _grid_tables(chapter: ParsedChapter, lines: list[str]) -> None:
    """Reject inline expressions inside grid tables (pandoc garbles them)."""
    i = 0
    while i < len(lines):
        if not GRID_BORDER.match(lines[i]):
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and lines[j + 1].strip():
            j += 1
        first, last = i + 1, j + 1
        for expr in chapter.inlines:
            if first <= expr.line <= last:
                chapter.findings.append(Finding(
                    chapter.path, expr.line, Kind.GRID_TABLE_INLINE,
                    "inline expression inside a grid table (Quarto garbles the table): "
                    "convert it to a pipe table with `bookcheck pipe-tables`",
                    col=expr.col, detail=f"`{{python}} {expr.expr}`", within=first))
        i = j + 1


def decode(path_rel: str, data: bytes) -> tuple[str, list[Finding]]:
    """Decode chapter bytes as UTF-8; bad bytes become a finding, not a crash.
    A UTF-8 byte-order mark is dropped, as pandoc and Quarto drop it (else the
    `---` of front matter would not be at the start of line 1)."""
    data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        text = data.decode("utf-8", errors="replace")
        bad = data[exc.start:exc.end].hex(" ")
        return text, [Finding(path_rel, line, Kind.ENCODING,
                              f"not valid UTF-8 (byte {bad} at column {col})", col=col)]
