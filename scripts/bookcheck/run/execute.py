"""Run one ParsedChapter in its own Jupyter kernel -> ChapterRun.

The chapter's cells and inline expressions go to the kernel in one request
(bookcheck.run.steps); this module turns each step's result into outputs and
findings. Cells are sent verbatim (their `#|` option lines are comments to
Python) so a traceback line n of a cell is qmd line `first_code_line + n - 1`
(leading blank lines, which IPython drops, are stripped first and accounted
for). Each inline expression is its own step, so an error, a timeout or a dead
kernel is blamed on exactly that expression. After the first failure (error,
broken invariant, timeout, dead kernel) the rest of the chapter is skipped.
The kernel (bookcheck.run.kernel) is always shut down, whatever happens; a kernel
handed in is consumed.

This module imports Jupyter: `schedule.py` imports it only when a chapter must run.
"""
from __future__ import annotations

import ast
import asyncio
import re
import time
from pathlib import Path

from bookcheck.errors import BookcheckError, ChapterDirError, StepsError
from bookcheck.read.root import folder_problem
from bookcheck.run import deps, steps
from bookcheck.run.inline_values import QUARTO_ABORTS, Inserted, inserted, left_as_code, mangled
from bookcheck.run.kernel import (DEFAULT_TIMEOUT_S, LIVE_KERNEL_PIDS, OUTPUT_CAP_CHARS,  # noqa: F401 (API)
                                Kernel, start_kernel)
from bookcheck.model import (CellRun, ChapterRun, CodeCell, Finding, InlineRun, Kind, Output,
                           ParsedChapter)


def run_chapter(root: Path, parsed: ParsedChapter, timeout_s: float = DEFAULT_TIMEOUT_S,
                kernel: Kernel | None = None) -> ChapterRun:
    """Synchronous wrapper around run_chapter_async (own event loop)."""
    return asyncio.run(run_chapter_async(root, parsed, timeout_s, kernel))


async def run_chapter_async(root: Path, parsed: ParsedChapter,
                            timeout_s: float = DEFAULT_TIMEOUT_S,
                            kernel: "Kernel | asyncio.Future | None" = None) -> ChapterRun:
    """Execute the chapter in `kernel` (a Kernel, an awaitable of one, or None: start one)."""
    started = time.perf_counter()
    run = ChapterRun(path=parsed.path)
    live: Kernel | None = None
    try:
        if kernel is None:
            live = Kernel(root, timeout_s)
            await live.start()
        elif isinstance(kernel, Kernel):
            live = kernel
        else:
            live = await kernel
        live.client.timeout = timeout_s
        runner = _ChapterRunner(live, parsed, run, timeout_s)
        seen = await runner.run(Path(root) / parsed.exec_dir)
        run.deps = deps.snapshot(root, seen) if isinstance(seen, dict) else None
        if run.deps is not None:
            run.deps["opaque"] = [runner.located(o) for o in run.deps["opaque"]]
    except Exception as exc:        # no kernel, or it broke outside any cell: say so, go on
        if not run.findings:
            run.findings.append(_outside_cells(parsed.path, exc))
    finally:
        if live is not None:
            await live.shutdown()
    run.seconds = time.perf_counter() - started
    return run


class _ChapterRunner:
    """Document-order execution of one chapter in one live kernel, in one request
    (bookcheck.run.steps); turns each step's result into outputs and findings."""

    def __init__(self, kernel: Kernel, parsed: ParsedChapter, run: ChapterRun, timeout_s: float):
        self.kernel, self.parsed, self.run_, self.timeout_s = kernel, parsed, run, timeout_s
        self.by_count: dict[int, tuple[CodeCell, int]] = {}   # execution count -> (cell, skipped lines)
        self.failed = False

    async def run(self, cwd: Path) -> dict | None:
        """Every cell and inline expression in document order, in `cwd` (Quarto: the
        chapter's folder, or the root with `execute-dir: project`). Returns what the
        chapter read (observe_side), or None after a timeout or a dead kernel."""
        self.run_.cells = [CellRun(index=c.index) for c in self.parsed.cells]
        self.plan = steps.plan(self.parsed)
        problem = folder_problem(cwd)
        if problem:
            raise ChapterDirError(f"the folder this chapter runs in, {cwd}: {problem}")
        sent = await steps.send_steps(self.kernel, self.plan, cwd, self.timeout_s, self._result)
        if sent.status != "ok":
            self._blame(Kind(sent.status), sent.blamed)
            return None
        if "error" in sent.final:
            raise StepsError(f"the kernel could not run this chapter: its steps did not run "
                             f"in {cwd}: {sent.final['error']}")
        return sent.final.get("observed")

    def located(self, opaque: dict) -> dict:
        """An opaque reason with the .qmd line of the call (the step's own line when the
        call was made outside the chapter's code; 0 when it was the fork server's preload)."""
        index, line = opaque.get("step"), opaque.get("line")
        where = 0
        if isinstance(index, int) and 0 <= index < len(self.plan):
            step = self.plan[index]
            if step.expr is not None:
                where = step.expr.line
            elif line:
                where = step.cell.first_code_line + step.skipped + line - 1
            else:
                where = step.cell.fence_line
        located = {"reason": opaque.get("reason", ""), "line": where}
        if opaque.get("volatile"):
            located["volatile"] = True          # changes from run to run: never stored
        return located

    def _result(self, step: steps.Step, result: dict) -> None:
        if step.expr is not None:
            self._inline_result(step.expr, result)
        else:
            self._cell_result(step, result)

    # -- cells ---------------------------------------------------------------
    def _cell_result(self, step: steps.Step, result: dict) -> None:
        cell = step.cell
        if result.get("count"):
            self.by_count[result["count"]] = (cell, step.skipped)
        outputs = result.get("outputs", [])
        errored = bool(result.get("error"))
        if errored and not cell.resolved.error:
            self._report_error(cell, result.get("error_info"), outputs)
            return
        cell_run = self.run_.cells[cell.index]
        cell_run.raised = errored
        cell_run.outputs = _outputs(cell, outputs) if cell.resolved.shows_outputs else []
        self.run_.invariants += _count_checks(step.code)

    def _report_error(self, cell: CodeCell, info: dict | None, outputs: list[dict]) -> None:
        self.failed = True
        if not info:
            err = next((o for o in outputs if o.get("output_type") == "error"), {})
            ename = err.get("ename", "Error")
            info = {"type": ename, "names": [ename], "message": err.get("evalue", ""), "frames": []}
        invariant = "InvariantError" in info["names"]
        where_cell, line = cell, cell.fence_line
        for filename, lineno, count, name in reversed(info["frames"]):
            if invariant and name == "check":
                continue        # a chapter-local check(): report its caller
            if count in self.by_count and lineno:
                where_cell, skipped = self.by_count[count]
                line = where_cell.first_code_line + skipped + lineno - 1
                break
        message = _one_line(info["message"])
        if invariant:
            kind, reason = Kind.INVARIANT, message or "check() failed"
        else:
            kind, reason = Kind.CELL_ERROR, f"{info['type']}: {message}" if message else info["type"]
        detail = self._traceback(info)
        self.run_.findings.append(Finding(self.parsed.path, line, kind, reason,
                                          label=where_cell.label, detail=detail))

    def _traceback(self, info: dict) -> str:
        """A short traceback: the last frames, chapter frames as qmd lines."""
        text_lines = self.parsed.text.split("\n")
        rows = []
        frames = info["frames"]
        first = next((i for i, f in enumerate(frames) if f[2] in self.by_count), 0)
        for filename, lineno, count, name in frames[first:][-6:]:
            if count in self.by_count and lineno:
                cell, skipped = self.by_count[count]
                qline = cell.first_code_line + skipped + lineno - 1
                code = text_lines[qline - 1].strip() if 0 < qline <= len(text_lines) else ""
                where, line = self.parsed.source_of(qline)
                rows.append(f"{where}:{line} in {name}: {code}")
            else:
                rows.append(f"{traceback_path(filename, self.kernel.root)}:{lineno} in {name}")
        rows.append(f"{info['type']}: {_one_line(info['message'])}")
        return "\n".join(rows)

    # -- inline expressions --------------------------------------------------
    def _inline_result(self, expr, res: dict) -> None:
        path = self.parsed.path
        if "error" in res:
            if "InvariantError" in res.get("names", []):
                kind, reason = Kind.INVARIANT, _one_line(res["message"]) or "check() failed"
            else:
                kind, reason = Kind.INLINE_ERROR, (f"{res['error']}: {_one_line(res['message'])}"
                                                   f" ({QUARTO_ABORTS})")
            self.run_.findings.append(Finding(path, expr.line, kind, reason, col=expr.col,
                                              detail=f"`{{python}} {expr.expr}`"))
            return
        text = _capped(res["text"])
        bundle = {k: _capped(v) for k, v in (res.get("bundle") or {"text/plain": text}).items()}
        put = inserted(bundle) if expr.substitute else Inserted("code", "")
        self.run_.inlines.append(InlineRun(index=expr.index, kind=put.kind, text=text,
                                           markdown=put.markdown))
        if not expr.substitute:     # evaluated, left as code
            self.run_.findings.append(Finding(
                path, expr.line, Kind.INLINE_SYNTAX,
                left_as_code(self.parsed.text[expr.start:expr.end]),
                col=expr.col, detail=self.parsed.text[expr.start:expr.end]))
            return
        if res.get("empty"):
            shown = text if len(text) < 60 else text[:57] + "..."
            left = " (Quarto leaves it as inline code)" if put.kind == "code" else ""
            self.run_.findings.append(Finding(
                path, expr.line, Kind.INLINE_EMPTY,
                f"inline expression yields nothing printable: {shown!r}{left}",
                col=expr.col, detail=f"`{{python}} {expr.expr}`"))
            return
        problem = mangled(bundle)
        if problem:
            self.run_.findings.append(Finding(
                path, expr.line, Kind.INLINE_MANGLED,
                f"Quarto would not show this inline value as meant: {problem}",
                col=expr.col, detail=f"`{{python}} {expr.expr}`"))

    # -- failures ------------------------------------------------------------
    def _blame(self, kind: Kind, step: "steps.Step | None") -> None:
        """A timeout or a dead kernel, blamed on the step that was running."""
        timed_out = kind == Kind.TIMEOUT
        if step is None:        # after the last step (the kernel's own bookkeeping)
            self.failed = True
            where = "ran longer than the timeout" if timed_out else "died"
            self.run_.findings.append(Finding(self.parsed.path, 0, kind,
                                              f"the kernel {where} after the chapter's last step"))
        elif step.expr is not None:
            expr = step.expr
            reason = (f"inline expression ran longer than the timeout of {self.timeout_s:g} s; "
                      "kernel killed" if timed_out
                      else "the kernel died evaluating this inline expression")
            self._fail_at(expr.line, expr.col, kind, reason, f"`{{python}} {expr.expr}`")
        else:
            reason = (f"cell ran longer than the timeout of {self.timeout_s:g} s; kernel killed"
                      if timed_out else "the kernel died while running this cell")
            self._fail(step.cell, kind, reason)

    def _fail(self, cell: CodeCell, kind: Kind, reason: str) -> None:
        self.failed = True
        self.run_.findings.append(Finding(self.parsed.path, cell.fence_line, kind, reason,
                                          label=cell.label))

    def _fail_at(self, line: int, col: int, kind: Kind, reason: str, detail: str = "") -> None:
        self.failed = True
        self.run_.findings.append(Finding(self.parsed.path, line, kind, reason, col=col,
                                          detail=detail))


def _capped(text: str) -> str:
    return text if len(text) <= OUTPUT_CAP_CHARS else text[:OUTPUT_CAP_CHARS] + "\n[truncated]"


def _outputs(cell: CodeCell, raw: list[dict]) -> list[Output]:
    """Convert a cell's raw outputs (nbformat-shaped dicts) to model Outputs,
    honouring the output/warning options."""
    asis, show_warnings = cell.resolved.asis, cell.resolved.warning
    outputs: list[Output] = []
    for out in raw:
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stderr" and not show_warnings:
                continue
            text = out.get("text", "")
            name = out.get("name", "")
            outputs.append(Output("markdown" if asis and name == "stdout" else "text", text, name))
        elif kind in ("execute_result", "display_data"):
            rich = _rich(out.get("data", {}))
            if rich is not None:     # the freeze handoff writes execute_result's execution_count
                rich.result = kind == "execute_result"
                rich.scripted = bool(SCRIPTED_MIMES & set(out.get("data", {})))
            outputs.append(rich)
        elif kind == "error":
            outputs.append(Output("error", f"{out.get('ename')}: {out.get('evalue')}"))
    return [o for o in outputs if o is not None]


SCRIPTED_MIMES = {"text/html", "application/javascript"}    # Quarto's "javascript widgets"


def _rich(data: dict) -> Output | None:
    """Pick the richest representation we can render."""
    for mime, kind in (("text/markdown", "markdown"), ("image/png", "image/png"),
                       ("image/svg+xml", "image/svg+xml"), ("text/html", "html"),
                       ("text/plain", "text")):
        if mime in data:
            value = data[mime]
            return Output(kind, "".join(value) if isinstance(value, list) else str(value))
    return None


def _count_checks(code: str) -> int:
    """Number of `check(...)` call sites in executed code."""
    if "check" not in code:
        return 0
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return 0
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            count += name in ("check", "check_all")
    return count


def _outside_cells(path: str, exc: Exception) -> Finding:
    """The finding for a failure outside every cell: a BookcheckError as its own kind,
    anything else as `kernel-died`."""
    if isinstance(exc, BookcheckError):
        return Finding(path, 0, exc.kind, _one_line(str(exc)))
    return Finding(path, 0, Kind.KERNEL_DIED, f"the kernel could not run this chapter: "
                                              f"{type(exc).__name__}: {_one_line(str(exc))}")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def traceback_path(filename: str, root: Path) -> str:
    """A traceback frame's file as an author reads it: a project file by its path from
    the root (`pkg/constants.py`), any other by its last two parts after `.../`
    (`.../pint/registry.py`), so the two are never confused (bookcheck.verify.blame)."""
    try:
        inside = Path(filename).resolve().relative_to(Path(root).resolve())
    except (ValueError, OSError):
        inside = None
    if inside is not None and not any(p.startswith(".") or p == "site-packages"
                                      for p in inside.parts):      # not a .venv in the root
        return inside.as_posix()
    parts = re.split(r"[\\/]", filename)
    return ".../" + "/".join(parts[-2:]) if len(parts) > 2 else filename


