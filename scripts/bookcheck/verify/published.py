"""What a reader sees of one cell's outputs, as ledger entries.

`cell_entries(base, outputs)` turns the shown outputs of one cell into
``{key: text}`` where every key starts with `base` (``chapter · cell``):

- every table: a pipe table in Markdown or text output, an HTML table (a
  pandas DataFrame's display) -> one entry per body cell,
  ``base · row · column`` (row = first-column text, else ``row N``; column =
  header text, else ``col N``); the cell's second table is ``base #2 · …``;
- every other non-blank line of Markdown, text and printed (stdout) output,
  and of the text of an HTML output outside its tables (`display(HTML(...))`),
  in order -> ``base · line N``. A Series or a DataFrame shown as text is
  recorded line by line;
- an explorer's grid (a `DATA_CLASS` script in a Markdown output, the protocol of
  bookcheck.verify.explorer_data): its default view is a table like any other; its
  grid is its digest and one entry per point;
- what the page shows of a warning or other stderr text (`shown_stderr`: Quarto's
  Jupyter engine drops the first `<ipython-input-…>:N:` prefix, and the kernel names
  cells so, not by ipykernel's temporary file, run/kernel_side.stable_code_names) ->
  ``base · stderr · line N``, and of an error an `error: true` cell shows (its
  ``Type: message`` line) -> ``base · error · line N``: apart from the text lines, so a
  new warning does not renumber them.

Not recorded: images and the checker's own truncation notes: an output cut at the
cap is an `output-cut` finding at its cell's fence (an inline value at its line),
`cut_outputs`. Stdlib only.
"""
from __future__ import annotations

import re

from bookcheck.model import Finding, Kind
from bookcheck.verify.explorer_data import DATA_CLASS, grid_entries, split


SEP = " · "
#: the prefix Quarto's Jupyter engine removes from a stream's stderr text (once)
IPYTHON_INPUT = re.compile(r"<ipython-input.*?>:\d+:\s+")


def shown_stderr(text: str) -> str:
    """What a page shows of a cell's stderr text (as Quarto 1.7's engine writes it)."""
    return IPYTHON_INPUT.sub("", text, count=1)
_ALIGN_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_LINE_BREAK = re.compile(r"\s*[\r\n]+\s*")


def one_line(text: str) -> str:
    """A value as one trimmed line: line breaks (and the blanks around them) -> one space."""
    text = str(text)
    if "\n" not in text and "\r" not in text:
        return text.strip()
    return _LINE_BREAK.sub(" ", text).strip()


def table_entries(table_key: str, header: list[str], rows: list[list[str]]) -> dict[str, str]:
    """Key each body cell by row (first-column text, else `row N`) and column (header, else `col N`)."""
    first_column = [one_line(row[0]) if row else "" for row in rows]
    rows_named = all(first_column) and len(set(first_column)) == len(first_column)
    headers = [one_line(h) for h in header]
    entries: dict[str, str] = {}
    for row_number, row in enumerate(rows, start=1):
        row_key = first_column[row_number - 1] if rows_named else f"row {row_number}"
        for col_number, value in enumerate(row, start=1):
            name = headers[col_number - 1] if col_number <= len(headers) else ""
            unique = name and headers.count(name) == 1
            col_key = name if unique else f"col {col_number}"
            entries[table_key + SEP + row_key + SEP + col_key] = one_line(value)
    return entries


def _split_row(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _UNESCAPED_PIPE.split(body)]


def escape_pipes(value: str) -> str:
    """`|` -> `\\|` (what _split_row reads back): an inline value placed in a pipe-table
    row stays one cell (Quarto 1.7 inserts it as is and the row splits)."""
    return _UNESCAPED_PIPE.sub(r"\\|", value)


def in_pipe_table(text: str, offset: int) -> bool:
    """True when `offset` lies on a row of a pipe table: its block (the lines between
    blank lines) has an alignment row and the offset's line contains a `|`."""
    start, end = text.rfind("\n\n", 0, offset) + 1, text.find("\n\n", offset)
    line = text[text.rfind("\n", 0, offset) + 1:].split("\n", 1)[0]
    block = text[start:end if end >= 0 else len(text)].splitlines()
    return "|" in line and any(_ALIGN_ROW.match(ln) for ln in block)


def split_pipe_tables(text: str) -> tuple[list[tuple[list[str], list[list[str]]]], list[str]]:
    """(the pipe tables in a Markdown string as (header, rows), the lines outside them)."""
    lines = text.splitlines()
    tables, rest = [], []
    i = 0
    while i < len(lines):
        head = lines[i]
        align = lines[i + 1] if i + 1 < len(lines) else ""
        if "|" in head and "|" in align and _ALIGN_ROW.match(align):
            header = _split_row(head)
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                rows.append(_split_row(lines[i]))
                i += 1
            tables.append((header, rows))
        else:
            rest.append(head)
            i += 1
    return tables, rest


def cell_entries(base: str, outputs, grids: bool = True) -> dict[str, str]:
    """Ledger entries for the shown outputs of one cell (see the module docstring);
    an explorer's grid (explorer_data.py) as its digest and points unless `grids` is
    False (what the page shows as text: the default table only)."""
    entries: dict[str, str] = {}
    tables: list[tuple[list[str], list[list[str]]]] = []
    text = ""           # the cell's text, in order; consecutive stream chunks join as printed
    previous_stream = False
    for output in outputs:
        kind, name = output.kind, getattr(output, "name", "") or ""
        if kind == "html":
            from bookcheck.verify.html_tables import html_tables, html_text   # only when needed
            tables += html_tables(output.data)
            rest_text = html_text(output.data)
            if rest_text:
                if text and not text.endswith("\n"):
                    text += "\n"
                text += rest_text
            previous_stream = False
            continue
        if kind not in ("markdown", "text") or name in ("stderr", "truncated"):
            previous_stream = False
            continue
        data = output.data
        if kind == "markdown" and DATA_CLASS in data:
            explorer_grids, data = split(data)
            for grid in explorer_grids if grids else ():
                entries.update(grid_entries(base, grid))
        found, rest = split_pipe_tables(data)
        tables += found
        chunk = "\n".join(rest) if found else data
        stream = name == "stdout"
        if text and not (stream and previous_stream) and not text.endswith("\n"):
            text += "\n"
        text += chunk
        previous_stream = stream
    for n, (header, rows) in enumerate(tables, start=1):
        entries.update(table_entries(base if n == 1 else f"{base} #{n}", header, rows))
    for prefix, shown in (("", text), (f"stderr{SEP}", _shown_of(outputs, "stderr")),
                          (f"error{SEP}", _shown_of(outputs, "error"))):
        numbered = [one_line(line) for line in shown.splitlines() if line.strip()]
        for n, line in enumerate(numbered, start=1):
            entries[f"{base}{SEP}{prefix}line {n}"] = line
    return entries


def _shown_of(outputs, which: str) -> str:
    """The text the page shows of a cell's stderr outputs (`which` "stderr") or of its
    errors ("error"), one output after another."""
    if which == "stderr":
        texts = [shown_stderr(o.data) for o in outputs
                 if o.kind in ("markdown", "text") and getattr(o, "name", "") == "stderr"]
    else:
        texts = [o.data for o in outputs if o.kind == "error"]
    return "\n".join(texts)


#: the marks the run stage leaves where it cut a text at its cap (run/execute.py,
#: run/steps_side.py, run/kernel_side.py)
CUT = re.compile(r"\n\[truncated\]\Z|\[output truncated after \d+ characters\]")


def cut_outputs(parsed, run) -> list[Finding]:
    """An `output-cut` finding for each cell whose shown output, and each inline value
    whose text, the run cut at its cap: the page would show it cut with no word."""
    if run is None:
        return []
    findings = []
    results = {r.index: r for r in run.cells}
    for cell in parsed.cells:
        result = results.get(cell.index)
        if result and any(o.name == "truncated" or CUT.search(o.data or "") for o in result.outputs
                          if not o.kind.startswith("image/")):
            findings.append(parsed.relocate(Finding(
                parsed.path, cell.fence_line, Kind.OUTPUT_CUT,
                "this cell's output is longer than the checker's cap of 1,000,000 characters "
                "and was cut: print less (a summary, a table of the rows that matter), or "
                "write it to a file", label=cell.label)))
    texts = {r.index: r.text for r in run.inlines}
    for expr in parsed.inlines:
        if CUT.search(texts.get(expr.index) or ""):
            findings.append(parsed.relocate(Finding(
                parsed.path, expr.line, Kind.OUTPUT_CUT,
                "this inline value is longer than the checker's cap of 1,000,000 characters "
                "and was cut: show a shorter value", col=expr.col)))
    return findings
