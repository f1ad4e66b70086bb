"""Assemble one chapter's pandoc markdown from the checker's results.

Nothing is executed here: every value comes from the ChapterRun the checker
produced (or loaded from its cache).

- an inline `{python} expr` is replaced by what Quarto inserts
  (InlineRun.markdown: scripts.run.inline_values), or left as inline code
  (kind "code": an empty result, two spaces after `{python}`, …);
- a code cell is replaced by what Quarto would show: its source when
  `echo` is true, then its outputs (markdown raw; text as a code block unless
  `output: asis`; images saved as files; html raw), nothing when
  `include: false`;
- a cell labelled `tbl-x` with `tbl-cap` gets `: cap {#tbl-x}` under its
  Markdown table, or (a DataFrame's HTML, printed text) its outputs are put in
  Quarto's table float `::: {#tbl-x}` with the caption last; a cell labelled `fig-x` with `fig-cap` becomes
  `![cap](file){#fig-x fig-alt="..."}`.
"""
from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field

from scripts.model import ChapterRun, CodeCell, InlineExpr, ParsedChapter
from scripts.read.project import effective_options

from .errors import RenderError
from .figure_size import retina_size

TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", re.M)


@dataclass
class ChapterMarkdown:
    """The markdown of one chapter and the files it refers to."""
    text: str
    files: dict[str, bytes] = field(default_factory=dict)   # path relative to the page dir -> bytes


def fence(text: str, info: str) -> str:
    """A fenced code block longer than any backtick run inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def cell_source(cell: CodeCell) -> str:
    """The cell's code without its option block (read/qmd.py found it as Quarto does)."""
    return cell.code


def attr_value(text: str) -> str:
    """A value safe inside a pandoc attribute's double quotes."""
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def one_line(text) -> str:
    return " ".join(str(text).split())


_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def escape_pipes(value: str) -> str:
    """`|` -> `\\|`: inside a pipe-table row an inline value must stay one cell."""
    return _UNESCAPED_PIPE.sub(r"\\|", value)


def in_pipe_table(text: str, offset: int) -> bool:
    """True when `offset` lies on a row of a pipe table: its block (the lines between
    blank lines) has an alignment row and the offset's line contains a `|`."""
    start = text.rfind("\n\n", 0, offset)
    end = text.find("\n\n", offset)
    block = text[start + 1 if start >= 0 else 0:end if end >= 0 else len(text)]
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    return "|" in line and TABLE_RULE.search(block) is not None


def table_float(label: str, caption, outputs: list[str]) -> str:
    """Quarto's table float around outputs that are no Markdown table (a DataFrame's
    HTML, printed text): `::: {#tbl-x}` with the caption as its last paragraph;
    crossref.lua numbers it and reads an HTML table in it into a real table."""
    colons = ":" * max(3, max((len(m) for o in outputs for m in re.findall(r"^:{3,}", o, re.M)),
                              default=0) + 1)
    body = "\n\n".join(outputs)
    return f"{colons} {{#{label}}}\n{body}\n\n{one_line(caption)}\n{colons}"


class _Assembler:
    def __init__(self, parsed: ParsedChapter, run: ChapterRun | None,
                 files_dir: str, figure: dict | None):
        self.parsed = parsed
        self.figure = figure
        self.run = run
        self.files_dir = files_dir
        self.files: dict[str, bytes] = {}
        self.cell_runs = {c.index: c for c in (run.cells if run else [])}
        self.inline_runs = {i.index: i for i in (run.inlines if run else [])}

    def inline_text(self, expr: InlineExpr) -> str:
        """What Quarto leaves in the Markdown: the inserted text, or the code itself."""
        found = self.inline_runs.get(expr.index)
        if found is None:
            raise RenderError(f"{self.parsed.path}:{expr.line}: no checked value for inline "
                              f"`{{python}} {expr.expr}` (run `make check` first)")
        if found.kind == "code":
            return self.parsed.text[expr.start:expr.end]
        return found.markdown or found.text

    def cell_markdown(self, cell: CodeCell) -> str:
        opts = effective_options(cell)    # the read stage applied the cascade
        if opts.get("include") is False:
            return ""
        parts: list[str] = []
        if opts.get("echo") is True:
            parts.append(fence(cell_source(cell), " {.python .cell-code}"))
        if opts.get("output") is False or opts.get("eval") is False:
            return "\n\n".join(parts)
        run = self.cell_runs.get(cell.index)
        if run is None:
            raise RenderError(f"{self.parsed.path}:{cell.fence_line}: no checked output "
                              f"for cell {cell.label or cell.index} (run `make check` first)")
        asis = opts.get("output") == "asis"
        label = cell.label or ""
        images = 0
        table_part = None
        for output in run.outputs:
            kind = output.kind
            if kind == "markdown" or (kind == "text" and asis):
                parts.append(output.data.strip("\n"))
                if TABLE_RULE.search(output.data):
                    table_part = len(parts) - 1
            elif kind == "text":
                parts.append(fence(output.data, " {.cell-output}"))
            elif kind == "error":
                parts.append(fence(output.data, " {.cell-output .cell-output-error}"))
            elif kind == "html":
                parts.append(fence(output.data, "{=html}"))
            elif kind in ("image/png", "image/svg+xml"):
                parts.append(self.image(cell, opts, output.kind, output.data, images))
                images += 1
        if label.startswith("tbl-") and opts.get("tbl-cap"):
            if table_part is not None:
                caption = f": {one_line(opts['tbl-cap'])} {{#{label}}}"
                parts[table_part] = parts[table_part] + "\n\n" + caption
            else:
                outputs = [p for p in parts[1 if opts.get("echo") is True else 0:] if p]
                if not outputs:
                    raise RenderError(f"{self.parsed.path}:{cell.fence_line}: cell {label} has "
                                      f"tbl-cap but produced no output")
                code = parts[:1] if opts.get("echo") is True else []
                parts = code + [table_float(label, opts["tbl-cap"], outputs)]
        if label.startswith("fig-") and opts.get("fig-cap") and images == 0:
            raise RenderError(f"{self.parsed.path}:{cell.fence_line}: cell {label} has "
                              f"fig-cap but produced no image")
        return "\n\n".join(p for p in parts if p)

    def image(self, cell: CodeCell, opts: dict, kind: str, data: str, n: int) -> str:
        ext = "png" if kind == "image/png" else "svg"
        stem = cell.label or f"cell-{cell.index}"
        name = f"{stem}-{n + 1}.{ext}" if n else f"{stem}.{ext}"
        rel = f"{self.files_dir}/{name}"
        self.files[rel] = base64.b64decode(data) if ext == "png" else data.encode("utf-8")
        caption = one_line(opts.get("fig-cap", "")) if n == 0 else ""
        attrs = []
        if cell.label and cell.label.startswith("fig-") and n == 0 and caption:
            attrs.append(f"#{cell.label}")
        if opts.get("fig-alt"):
            attrs.append(f'fig-alt="{attr_value(opts["fig-alt"])}"')
        width, height = retina_size(self.files[rel], self.figure) if ext == "png" and self.figure \
            else (0, 0)
        attrs += [f"width={width}", f"height={height}"] if width and height else []
        suffix = "{" + " ".join(attrs) + "}" if attrs else ""
        return f"![{caption}]({rel}){suffix}"

    def build(self) -> ChapterMarkdown:
        text = self.parsed.text
        starts = [0]
        for m in re.finditer("\n", text):
            starts.append(m.end())

        def line_start(line: int) -> int:
            return starts[line - 1] if line - 1 < len(starts) else len(text)

        edits: list[tuple[int, int, str]] = []
        for cell in self.parsed.cells:
            start = line_start(cell.fence_line)
            end = line_start(cell.end_line + 1)
            indent = re.match(r"[ \t]*", text[start:]).group(0)
            body = self.cell_markdown(cell)
            if indent and body:
                body = "\n".join(indent + ln if ln else ln for ln in body.splitlines())
            edits.append((start, end, f"\n{body}\n\n" if body else "\n"))
        for expr in self.parsed.inlines:
            value = self.inline_text(expr)
            if in_pipe_table(text, expr.start):
                value = escape_pipes(value)       # one cell on the page, as in the ledger
            edits.append((expr.start, expr.end, value))
        edits.sort(key=lambda e: e[0])
        out, pos = [], 0
        for start, end, replacement in edits:
            if start < pos:
                raise RenderError(f"{self.parsed.path}: overlapping cell/inline spans at offset {start}")
            out.append(text[pos:start])
            out.append(replacement)
            pos = end
        out.append(text[pos:])
        return ChapterMarkdown(text="".join(out), files=self.files)


def chapter_markdown(parsed: ParsedChapter, run: ChapterRun | None,
                     files_dir: str = "figures", figure: dict | None = None) -> ChapterMarkdown:
    """Pandoc markdown for one chapter, with values and outputs in place.

    `files_dir` is where generated images go, relative to the chapter's page.
    `figure` (Project.figure: the options the kernels drew with) sizes a retina
    PNG as Quarto does (`width`/`height` in CSS pixels: half its pixels).
    Cell options must already carry the execute cascade (scripts.read.book).
    """
    return _Assembler(parsed, run, files_dir, figure).build()
