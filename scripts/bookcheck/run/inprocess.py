"""The one in-process executor: run a chapter's code in this Python process.

Used where a kernel per chapter costs too much: the mutation harness (hundreds
of mutated books) and the benchmark's floor (the cost of the code alone). It
follows the kernel path's rules: cells and inline expressions in document
order, `eval: false` skipped, `error: true` tolerated, a final expression
displayed, inline values shown as Quarto inserts them and checked with the
same empty-value rule (bookcheck.run.kernel_side.is_empty). It is not isolated:
each chapter gets a fresh namespace, but imports are shared with the caller.
"""
from __future__ import annotations

import ast
import contextlib
import io
from dataclasses import dataclass, field
from typing import Callable

from bookcheck.model import CellRun, ChapterRun, InlineRun, Output, ParsedChapter


@dataclass
class InProcessRun:
    run: ChapterRun
    invariants: list[str] = field(default_factory=list)   # "path:line: message"
    errors: list[str] = field(default_factory=list)       # "path:line[:col]: problem"
    cells: int = 0            # cells executed
    inlines: int = 0          # inline expressions evaluated


def display_value(value, plain: Callable[[object], str] = repr) -> Output:
    """What a kernel displays for a value: its markdown, else its plain text."""
    from bookcheck.run.kernel_side import markdown_of     # (kernel_side imports IPython)
    text = markdown_of(value)
    if text is not None:
        return Output("markdown", text)
    return Output("text", value if isinstance(value, str) else plain(value))


def exec_cell(source: str, ns: dict, filename: str):
    """exec a cell; return the value of a final expression statement (IPython's display)."""
    tree = ast.parse(source, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), ns)
    if last is not None:
        return eval(compile(last, filename, "eval"), ns)
    return None


def _line(exc: BaseException, cell) -> int:
    """The .qmd line of the innermost frame in the cell (or the cell's first line)."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(f":{cell.first_code_line}"):
            line = tb.tb_lineno
        tb = tb.tb_next
    return cell.first_code_line + (line or 1) - 1


def run_in_process(parsed: ParsedChapter, *, stop_at_error: bool = True,
                   plain: Callable[[object], str] | None = None,
                   after_cell: Callable[[], None] | None = None) -> InProcessRun:
    """Execute one parsed chapter in a fresh namespace of this process.

    stop_at_error: end the chapter at the first failing cell (as a kernel run
    does); False runs on (the floor counts every error). plain: the text/plain
    formatter (default: IPython's when importable, else repr). after_cell: called
    after each executed cell (the floor rasterises figures there). A failing
    `check()` (an exception named InvariantError) is an invariant, not an error.
    """
    from bookcheck.run.kernel_side import is_empty
    if plain is None:
        try:
            from IPython.core.formatters import PlainTextFormatter
            plain = PlainTextFormatter()
        except ImportError:
            plain = repr
    try:
        import IPython.display as ipd
    except ImportError:
        ipd = None
    result = InProcessRun(run=ChapterRun(path=parsed.path))
    run = result.run
    run.cells = [CellRun(index=c.index) for c in parsed.cells]
    ns: dict = {"__name__": "__main__"}
    shown: list = []
    if ipd is not None:
        ipd.display = lambda *objs, **_: shown.extend(objs)

    def inline(expr) -> None:
        where = f"{parsed.path}:{expr.line}:{expr.col}"
        result.inlines += 1
        try:
            value = eval(compile(expr.expr, "<inline>", "eval"), ns)
        except Exception as exc:
            result.errors.append(f"{where}: {type(exc).__name__}: {exc}")
            return
        out = Output("markdown", value) if isinstance(value, str) else display_value(value, plain)
        run.inlines.append(InlineRun(index=expr.index, kind=out.kind, text=out.data))
        if is_empty(value, out.data):
            result.errors.append(f"{where}: inline expression yields {out.data!r}")

    for k in range(len(parsed.cells) + 1):
        for expr in parsed.inlines:
            if expr.cells_before == k:
                inline(expr)
        if k == len(parsed.cells):
            break
        cell = parsed.cells[k]
        if not cell.resolved.eval or not cell.source.strip():
            continue
        shown.clear()
        printed = io.StringIO()
        result.cells += 1
        try:
            with contextlib.redirect_stdout(printed):
                value = exec_cell(cell.source, ns, f"{parsed.path}:{cell.first_code_line}")
        except BaseException as exc:        # SystemExit too: the kernel would report it
            if type(exc).__name__ == "InvariantError":
                result.invariants.append(f"{parsed.path}:{_line(exc, cell)}: {exc}")
                if stop_at_error:
                    return result
            elif not cell.resolved.error:
                result.errors.append(
                    f"{parsed.path}:{_line(exc, cell)}: {type(exc).__name__}: {exc}")
                if stop_at_error:
                    return result
            if after_cell:
                after_cell()
            continue
        if after_cell:
            after_cell()
        if value is not None:
            shown.append(value)
        if cell.resolved.shows_outputs:
            asis = cell.resolved.asis
            text = printed.getvalue()
            streams = [Output("markdown" if asis else "text", text)] if text else []
            run.cells[cell.index].outputs = streams + [display_value(v, plain) for v in shown]
    return result
