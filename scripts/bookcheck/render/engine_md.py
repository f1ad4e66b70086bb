"""The Markdown Quarto 1.7's Jupyter engine writes for a chapter, from its checked run.

Quarto converts the `.qmd` to a notebook, executes it and turns the notebook
back into Markdown (quarto-cli 1.7.34 `src/core/jupyter/jupyter.ts`,
`mdFromCodeCell`); that Markdown is what a freeze entry stores and what
`keep-md` keeps as `*.html.md`. This module writes the same text from the
ChapterRun the checker produced: the one chapter Markdown, which Quarto renders
and the built-in renderer reads (docs/architecture.md, render/).

- the text between cells is the chapter's (includes expanded), inline values
  as Quarto inserts them (InlineRun.markdown) or left as code;
- a cell becomes `::: {#id .cell <forwarded options> execution_count=N}` with
  its code (`echo`; `lst-label` as the block's id, `lst-cap`, `code-fold`,
  `code-summary`, `code-line-numbers` on its block) and one `::: {.cell-output …}` div per output; a cell with neither
  code nor output, or `include: false`, disappears;
- `execution_count` is the cell's position among the chapter's code cells
  (Quarto renumbers them), on the cell and on an execute_result output;
- a figure is `![fig-cap](<stem>_files/figure-html/<name>-output-<k>.png){#fig-x
  width=W height=H fig-align='…' fig-alt='…'}`: the checker's kernel draws it as Quarto's
  does (bookcheck.read.figures); W×H, only for a `retina` PNG, is what Quarto
  takes (image_size); an option written as a list is output k's item k, the captions
  Quarto's (CellOptions.captions: a `fig-cap` list each figure its own, the cell's label
  on each; a `fig-cap` over `fig-subcap` after the figures, in the cell's div);
- a `tbl-x` cell with `tbl-cap` and no output, or a `fig-x` cell with `fig-cap`
  and no image, stops the render at its line; an inline value inside a
  pipe-table row has its `|` escaped (Quarto's row would split).

Not modelled (tracebacks of `error: true` cells, ANSI colours, LaTeX/JSON/JavaScript
outputs, layouts): docs/quarto-compat.md lists each. Options: `cell.resolved`.
"""
from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bookcheck.model import ChapterRun, CodeCell, Output, ParsedChapter
from bookcheck.read.figures import figure_options
from bookcheck.read.jupyter_title import title_edits
from bookcheck.verify.published import escape_pipes, in_pipe_table, shown_stderr

from .errors import RenderError
from .figure_size import image_size

# Cell options Quarto never forwards to the cell's div (kJupyterCellInternalOptionKeys
# + standard and third-party metadata keys).
NOT_FORWARDED = {
    "eval", "echo", "warning", "error", "output", "include", "label", "classes", "panel",
    "column", "fig-cap", "fig-subcap", "fig-scap", "fig-cap-location", "tbl-cap-location",
    "cap-location", "fig-column", "tbl-column", "fig-link", "fig-align", "fig-alt", "fig-env",
    "fig-pos", "lst-label", "lst-cap", "out-width", "out-height", "md-indent", "code-fold",
    "code-line-numbers", "code-summary", "code-overflow", "html-table-processing",
    "collapsed", "autoscroll", "deletable", "format", "name", "id", "colab", "colab_type",
    "outputid", "lines_to_next_cell", "language",
}
FIG_OPTIONS = ("fig-align", "fig-env", "fig-alt", "fig-pos", "fig-scap")
CODE_OPTIONS = ("code-fold", "code-summary", "code-line-numbers")   # on the code block
MATPLOTLIB_REPRS = ("[<matplotlib", "<matplotlib", "<seaborn.", "<ggplot:")
FIGURES_DIR = "figure-html"


@dataclass
class EngineMarkdown:
    """A chapter's engine Markdown and the figure files it points to."""
    markdown: str
    files: dict[str, bytes] = field(default_factory=dict)   # path relative to the chapter's folder


def files_dir(path: str) -> str:
    """`contents/ch.qmd` -> `ch_files` (Quarto's inputFilesDir, relative to the chapter)."""
    return PurePosixPath(path).stem + "_files"


def ticks_for(lines: list[str], least: int = 3) -> str:
    """Quarto's countTicks: one more backtick than the longest leading run."""
    longest = max((len(m.group(0).lstrip()) for m in
                   (re.match(r"^\s*`+", ln) for ln in lines) if m), default=0)
    return "`" * max(least, longest + 1)


def code_block(text: str, info: str = "") -> str:
    """mdCodeOutput: the text in a fence, with a final newline."""
    lines = text.splitlines(keepends=True)
    ticks = ticks_for(lines)
    return f"{ticks}{info}\n{text if text.endswith(chr(10)) else text + chr(10)}{ticks}\n"


def cell_id(path: str, cell: CodeCell) -> str:
    """The cell div's id: `cell-<label>`, else 8 hex digits (Quarto's are random;
    these are stable so the same run gives the same entry)."""
    if cell.label:
        return f"cell-{cell.label}"
    return hashlib.md5(f"{path}:{cell.index}".encode()).hexdigest()[:8]


def is_display(output: Output) -> bool:
    """display_data or execute_result (streams carry a name, errors are errors)."""
    return not output.name and output.kind != "error"


def auto_identifier(text: str) -> str:
    """pandocAutoIdentifier(text, asciify=True), for the labels cells carry."""
    text = re.sub(r"[^\w\s.-]", "", text.lower(), flags=re.ASCII)
    text = re.sub(r"\s+", "-", text.strip())
    return text.lstrip("0123456789.-_") or "section"


def discardable(output: Output, have_image: bool) -> bool:
    """isDiscardableTextExecuteResult: matplotlib's `[<matplotlib.lines.Line2D …>]`."""
    if not (output.result and output.kind == "text"):
        return False
    lines = output.data.splitlines(keepends=True)
    if have_image and len(lines) == 1:
        return re.match(r"^([<(\[]).*?([>)\]])$", lines[0].strip()) is not None
    return output.data.startswith(MATPLOTLIB_REPRS)


class _Cell:
    """One code cell as mdFromCodeCell writes it."""

    def __init__(self, parsed: ParsedChapter, cell: CodeCell, outputs: list[Output],
                 notebook_index: int, figure: dict):
        self.parsed, self.cell, self.notebook_index = parsed, cell, notebook_index
        self.figure = figure
        self.opts = cell.resolved
        have_image = any(o.kind.startswith("image/") for o in outputs)
        self.outputs = [o for o in outputs if not discardable(o, have_image)]
        self.files: dict[str, bytes] = {}
        self.label = f"#{cell.label}" if cell.label else ""
        self.cell_caption, each = self.opts.captions(any(is_display(o) for o in self.outputs))
        self.captions = [" ".join(c.split()) for c in each]
        self.asis = self.opts.asis
        fence = parsed.text.split("\n")[cell.fence_line - 1] if cell.fence_line else ""
        self.indent = re.match(r"[ \t]*", fence).group(0)

    def label_container(self) -> bool:
        """shouldLabelCellContainer (several displays under a `fig-cap` list: each its own)."""
        if self.opts.output is False:
            return True
        shown = [o for o in self.outputs if is_display(o)]
        return (not shown or (len(shown) > 1 and not isinstance(self.opts.fig_cap, tuple))
                or (self.cell.label or "").startswith("tbl-"))

    def forwarded(self) -> list[str]:
        attrs = []
        for key, value in self.cell.options.items():
            if key.lower() in NOT_FORWARDED or value is None:
                continue
            text = value if isinstance(value, str) else _json(value)
            attrs.append(f"{key}='{text.replace(chr(39), chr(92) + chr(39))}'")
        return attrs

    def code(self) -> str:
        echo = self.opts.echo
        if echo is False:
            return ""
        fenced = echo == "fenced"
        label = self.opts.lst_label                 # a listing: `#lst-x`, then its caption
        head = ("#" + label.lstrip("#") + " ") if label is not None else ""
        cap = self.opts.lst_cap
        listing = f' lst-cap="{cap}"' if cap is not None else ""
        source = self.cell.code
        if self.indent:
            source = "\n".join(ln[len(self.indent):] if ln.startswith(self.indent) else ln
                               for ln in source.split("\n"))
        lines = source.split("\n") if source else []
        if fenced:
            options = [ln for ln in self.cell.source.splitlines()
                       if re.match(r"^\s*#\|", ln) and not re.search(r"\|\s+echo:\s+fenced\s*$", ln)]
            body = "\n".join(["```{{python}}", *options, source.strip("\n"), "```", ""])
            ticks = ticks_for(lines, 4)
            return f"{ticks} {{{head} .cell-code{listing}}}\n{body}\n{ticks}\n"
        ticks = ticks_for(lines)
        attrs = "".join(f' {key}="{value if isinstance(value, str) else _json(value)}"'
                        for key in CODE_OPTIONS
                        if (value := getattr(self.opts, key.replace("-", "_"))) is not None)
        return f"{ticks} {{{head}.python .cell-code{listing}{attrs}}}\n{source}\n{ticks}\n"

    def output_md(self, output: Output, position: int, out_label: str) -> str:
        if output.name:                                    # a stream
            text = output.data
            if self.asis and output.name == "stdout":
                return text
            if output.name == "stderr":
                text = shown_stderr(text)       # what the ledger records of it too
            return code_block(text)
        if output.kind == "error":
            return code_block(output.data)
        if output.kind.startswith("image/"):
            return self.image(output, position, out_label)
        if output.kind == "markdown":
            return output.data + "\n"
        if output.kind == "html":
            return "```{=html}\n" + output.data + ("" if output.data.endswith("\n") else "\n") + "```\n"
        return code_block(output.data)

    def image(self, output: Output, position: int, out_label: str) -> str:
        name_label = self.cell.label or f"cell-{self.notebook_index + 1}"
        ext = "png" if output.kind == "image/png" else "svg"
        name = f"{auto_identifier(name_label.replace(':', '-'))}-output-{position + 1}.{ext}"
        rel = f"{files_dir(self.parsed.path)}/{FIGURES_DIR}/{name}"
        data = base64.b64decode(output.data) if ext == "png" else output.data.encode("utf-8")
        self.files[rel] = data
        caption = self.captions.pop(0) if self.captions else ""
        attrs = [out_label] if out_label else []
        width, height = image_size(data, self.figure) if ext == "png" else (0, 0)
        attrs += [f"width={width}"] if width else []
        attrs += [f"height={height}"] if height else []
        for key in FIG_OPTIONS:
            value = self.opts.per_output(key.replace("-", "_"), position)
            if value:
                attrs.append(f"{key}='{str(value).replace(chr(39), chr(92) + chr(39))}'")
        suffix = "{" + " ".join(attrs) + "}" if attrs else ""
        return f"![{caption}]({rel}){suffix}\n"

    def write(self, execution_count: int | None) -> str:
        if not self.opts.include:
            return ""
        source = self.cell.code
        if not source and not self.outputs:
            return ""
        label_container = self.label_container()
        head = [self.label if self.label and label_container
                else f"#{cell_id(self.parsed.path, self.cell)}", ".cell"]
        head += self.classes()
        forwarded = self.forwarded()
        head += forwarded + ([f"execution_count={execution_count}"] if execution_count else [])
        need_cell = (bool(self.label and label_container) or bool(forwarded) or bool(self.captions)
                     or self.cell_caption is not None or len(head) > 2)
        parts = [self.code()]
        if self.opts.output is not False:
            self.refuse_an_empty_float()
            parts += self.outputs_md(label_container, execution_count)
        body = "".join(parts)
        if body and (need_cell or not self.asis):
            caption = f"\n{self.cell_caption}\n" if self.cell_caption else ""
            body = "::: {" + " ".join(head) + "}\n" + body + caption + ":::\n"
        return body + "\n"

    def classes(self) -> list[str]:
        """The cell's `classes` option on its div (`.x`), as Quarto writes it."""
        return [c if c.startswith(".") else f".{c}" for c in self.opts.classes]

    def refuse_an_empty_float(self) -> None:
        """A `tbl-x` cell with `tbl-cap` and no output, or a `fig-x` cell with `fig-cap`
        and no image, would leave its cross-references dangling: stop at its line."""
        label = (self.cell.label or "") if self.opts.eval else ""
        for prefix, wanted, cap in (("tbl", "output", self.opts.tbl_cap),
                                    ("fig", "image", self.opts.fig_cap)):
            if label.startswith(prefix + "-") and cap and not any(
                    wanted == "output" or o.kind.startswith("image/") for o in self.outputs):
                raise RenderError(f"{self.parsed.path}:{self.cell.fence_line}: cell {label} has "
                                  f"{prefix}-cap but produced no {wanted}")

    def outputs_md(self, label_container: bool, execution_count: int) -> list[str]:
        parts, suffix = [], 1
        table = (self.cell.label or "").startswith("tbl-")
        for position, output in enumerate(self.outputs):
            out_label = self.label
            if self.label and label_container and is_display(output):
                out_label, suffix = f"{self.label}-{suffix}", suffix + 1
            caption_first = self.captions[0] if self.captions and is_display(output) else None
            content = self.output_md(output, position, out_label)
            if caption_first and not output.kind.startswith("image/"):
                self.captions.pop(0)
                content += f"\n{caption_first}\n"
            if self.asis:
                parts.append(content)
                continue
            classes = []
            if (out_label and is_display(output) and not table
                    and not output.kind.startswith("image/")):
                classes.append(out_label)
            classes.append(".cell-output")
            classes.append(f".cell-output-{output.name}" if output.name
                           else ".cell-output-error" if output.kind == "error"
                           else ".cell-output-display")
            if is_display(output) and output.kind == "markdown":
                classes.append(".cell-output-markdown")
            if output.result and execution_count:
                classes.append(f"execution_count={execution_count}")
            parts.append("\n::: {" + " ".join(classes) + "}\n" + content + ":::\n")
        return parts


def _json(value) -> str:
    import json
    return json.dumps(value, separators=(",", ":"))


def notebook_indices(parsed: ParsedChapter) -> list[int]:
    """Each code cell's index among the notebook's cells (a non-blank stretch of
    Markdown before it is one Markdown cell)."""
    lines = parsed.text.split("\n")
    indices, count, prev_end = [], 0, 0
    for cell in parsed.cells:
        between = "\n".join(lines[prev_end:cell.fence_line - 1])
        if between.strip():
            count += 1
        indices.append(count)
        count += 1
        prev_end = cell.end_line
    return indices


def include_ends(parsed: ParsedChapter) -> list[tuple[int, str, bool]]:
    """Where each included file's expanded text ends: (the 1-based line of `text`
    after it, the file, whether it was included by an included file)."""
    ends, stack, last = [], [parsed.path], {}
    for number, (path, line) in enumerate(parsed.line_map, start=1):
        restart = path == stack[-1] and path != parsed.path and line != last.get(path, 0) + 1
        if restart or path in stack[:-1]:
            while stack[-1] != path or restart:
                ends.append((number, stack.pop(), len(stack) > 1))
                restart = False
        if path != stack[-1]:
            stack.append(path)
        last[path] = line
    while len(stack) > 1:
        ends.append((len(parsed.line_map) + 1, stack.pop(), len(stack) > 1))
    return ends


def include_newlines(raw: str, nested: bool) -> str:
    """The newlines Quarto's include adds after a file's text beyond this project's
    expansion (which drops the file's trailing newlines): Quarto keeps them and adds
    one, or two after a file without a final newline; an include written inside an
    included file also keeps its own line's newline."""
    trailing = len(raw) - len(raw.rstrip("\n"))
    return "\n" * (max(trailing, 1) + (1 if nested else 0))


def engine_markdown(parsed: ParsedChapter, run: ChapterRun | None, root=None,
                    figure: dict | None = None) -> EngineMarkdown:
    """The Jupyter engine's Markdown for a checked chapter (nothing is executed).

    `root`: the project folder, to read included files' trailing newlines
    (without it each is taken to end with one newline); `figure`: the figure
    options the run was drawn with (Project.figure; default Quarto's HTML ones)."""
    figure = figure or figure_options({})
    text = parsed.text
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_start(line: int) -> int:
        return starts[line - 1] if line - 1 < len(starts) else len(text)

    runs = {c.index: c for c in run.cells} if run else {}
    inline_runs = {i.index: i for i in run.inlines} if run else {}
    edits: list[tuple[int, int, str]] = []
    files: dict[str, bytes] = {}
    for cell, nb_index in zip(parsed.cells, notebook_indices(parsed)):
        cell_run = runs.get(cell.index)
        if cell_run is None:
            raise RenderError(f"{parsed.path}:{cell.fence_line}: no checked output for cell "
                              f"{cell.label or cell.index} (run `make check` first)")
        writer = _Cell(parsed, cell, cell_run.outputs, nb_index, figure)
        start = line_start(cell.fence_line)
        body = writer.write(cell.index + 1 if parsed.execute else None)
        indent = re.match(r"[ \t]*", text[start:]).group(0)
        if indent and body:          # md-indent: every line, the last (empty) one too,
            body = "\n" + "\n".join(indent + ln for ln in body.split("\n"))  # after a newline
        edits.append((start, line_start(cell.end_line + 1), body))
        files.update(writer.files)
    for expr in parsed.inlines:
        found = inline_runs.get(expr.index)
        if found is None:
            raise RenderError(f"{parsed.path}:{expr.line}: no checked value for inline "
                              f"`{{python}} {expr.expr}` (run `make check` first)")
        value = text[expr.start:expr.end] if found.kind == "code" else (found.markdown or found.text)
        if in_pipe_table(text, expr.start):
            value = escape_pipes(value)     # one cell on the page, as in the ledger
        edits.append((expr.start, expr.end, value))
    for line, path, nested in include_ends(parsed):
        raw = "\n"
        if root is not None:
            try:
                raw = (Path(root) / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                pass
        at = line_start(line) if line <= len(parsed.line_map) else len(text)
        edits.append((at, at, include_newlines(raw, nested)))
    if parsed.title_heading:        # Quarto's Jupyter engine makes it the title (read/jupyter_title.py)
        edits += title_edits(text, parsed.title_heading, line_start)
    # an include on the chapter's last line takes the place of the final newline
    ends_in_include = any(line >= len(parsed.line_map) for line, _, nested in
                          include_ends(parsed) if not nested)
    edits.sort(key=lambda e: (e[0], e[1]))
    out, pos = [], 0
    for start, end, replacement in edits:
        if start < pos:
            raise RenderError(f"{parsed.path}: overlapping cell/inline spans at offset {start}")
        out += [text[pos:start], replacement]
        pos = end
    out.append(text[pos:])
    final = "" if ends_in_include else "\n"        # the last Markdown cell's newline
    return EngineMarkdown("".join(out) + final, files)

