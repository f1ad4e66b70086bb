"""Run one ParsedChapter in its own Jupyter kernel (nbclient) -> ChapterRun.

Cells are sent verbatim (their `#|` option lines are comments to Python) so a
traceback line n of a cell is qmd line `first_code_line + n - 1` (leading
blank lines, which IPython drops, are stripped first and accounted for).
Inline expressions that sit between the same two cells are evaluated in one
kernel round trip. After the first failure (error, broken invariant, timeout,
dead kernel) the rest of the chapter is skipped. The kernel (scripts.run.kernel)
is always shut down, whatever happens; a kernel handed in is consumed.

This module imports Jupyter: `check.py` imports it only when a chapter must run.
"""
from __future__ import annotations

import ast
import asyncio
import json
import re
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from scripts.run import deps
from scripts.run.inline_values import Inserted, inserted, mangled
from scripts.run.kernel import (DEFAULT_TIMEOUT_S, HELPER, LIVE_KERNEL_PIDS, OBSERVER,  # noqa: F401 (API)
                            OUTPUT_CAP_CHARS, Kernel, kill_all_kernels, start_kernel)
from scripts.read.project import option_false, option_true
from scripts.model import (CellRun, ChapterRun, CodeCell, Finding, InlineRun, Output,
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
        await _ChapterRunner(live, parsed, run, timeout_s).run(Path(root) / parsed.exec_dir)
        if not any(f.kind in ("timeout", "kernel-died") for f in run.findings):
            run.deps = await _observed(live, root)
    except Exception as exc:        # no kernel, or it broke outside any cell: say so, go on
        if not run.findings:
            run.findings.append(Finding(parsed.path, 0, "kernel-died",
                                        f"the kernel could not run this chapter: "
                                        f"{type(exc).__name__}: {_one_line(str(exc))}"))
    finally:
        if live is not None:
            await live.shutdown()
    run.seconds = time.perf_counter() - started
    return run


def _runner_class():
    """The whole chapter in one request (scripts.run.batch), unless CHECKER_BATCH=0."""
    from scripts.run import batch
    return batch.BatchRunner if batch.enabled() else _ChapterRunner


class _ChapterRunner:
    """Document-order execution of one chapter in one live kernel."""

    def __init__(self, kernel: Kernel, parsed: ParsedChapter, run: ChapterRun, timeout_s: float):
        self.kernel, self.parsed, self.run_, self.timeout_s = kernel, parsed, run, timeout_s
        self.by_count: dict[int, tuple[CodeCell, int]] = {}   # execution count -> (cell, skipped lines)
        self.failed = False

    async def run(self, cwd: Path) -> None:
        """Every cell and inline expression in document order, in `cwd` (Quarto:
        the chapter's folder, or the root with `execute-dir: project`)."""
        reply = await self.kernel.request(f"__import__('os').chdir({str(cwd)!r})", {}, self.timeout_s)
        if reply.get("status") != "ok":
            raise RuntimeError(f"cannot run in {cwd}: {reply.get('evalue')}")
        cells = self.parsed.cells
        groups: dict[int, list] = {}
        for expr in self.parsed.inlines:
            groups.setdefault(expr.cells_before, []).append(expr)
        self.run_.cells = [CellRun(index=c.index) for c in cells]
        for k in range(len(cells) + 1):
            if self.failed:
                return
            for expr in groups.get(k, []):
                if not self.failed:
                    await self._inline(expr)
            if k < len(cells) and not self.failed:
                await self._cell(cells[k])

    # -- cells ---------------------------------------------------------------
    async def _cell(self, cell: CodeCell) -> None:
        if option_false(cell.options.get("eval", True)):
            return
        lines = cell.source.split("\n")
        skipped = 0
        while skipped < len(lines) and not lines[skipped].strip():
            skipped += 1
        code = "\n".join(lines[skipped:])
        if not code.strip():
            return
        node = nbformat.v4.new_code_cell(code)
        client = self.kernel.client
        client.nb.cells.append(node)
        try:
            await client.async_execute_cell(node, len(client.nb.cells) - 1)
        except CellTimeoutError:
            return self._fail(cell, "timeout",
                              f"cell ran longer than the timeout of {self.timeout_s:g} s; kernel killed")
        except DeadKernelError:
            return self._fail(cell, "kernel-died", "the kernel died while running this cell")
        if node.get("execution_count"):
            self.by_count[node.execution_count] = (cell, skipped)
        errored = any(o.get("output_type") == "error" for o in node.outputs)
        allowed = option_true(cell.options.get("error", False))
        if errored and not allowed:
            await self._report_error(cell, node)
            return
        result = self.run_.cells[cell.index]
        result.raised = errored
        hidden = option_false(cell.options.get("include", True)) or option_false(cell.options.get("output", True))
        result.outputs = [] if hidden else _outputs(cell, node)
        self.run_.invariants += _count_checks(code)

    async def _report_error(self, cell: CodeCell, node) -> None:
        self.failed = True
        try:
            reply = await self.kernel.request("", {"e": f"__import__({HELPER!r}).last_error()"}, 30)
            info = _user_expression(reply, "e")
        except Exception:
            info = None
        if not info:
            err = next(o for o in node.outputs if o.get("output_type") == "error")
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
            kind, reason = "invariant", message or "check() failed"
        else:
            kind, reason = "cell-error", f"{info['type']}: {message}" if message else info["type"]
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
                rows.append(f"{_short_path(filename)}:{lineno} in {name}")
        rows.append(f"{info['type']}: {_one_line(info['message'])}")
        return "\n".join(rows)

    # -- inline expressions --------------------------------------------------
    async def _inline(self, expr) -> None:
        """Evaluate one inline expression in its own request, so a timeout or a dead
        kernel is blamed on the expression that caused it."""
        call = f"__import__({HELPER!r}).inline({json.dumps([expr.expr])})"
        detail = f"`{{python}} {expr.expr}`"
        try:
            reply = await self.kernel.request("", {"r": call}, self.timeout_s)
        except CellTimeoutError:
            return self._fail_at(expr.line, expr.col, "timeout",
                                 f"inline expression ran longer than the timeout of "
                                 f"{self.timeout_s:g} s; kernel killed", detail)
        except DeadKernelError:
            return self._fail_at(expr.line, expr.col, "kernel-died",
                                 "the kernel died evaluating this inline expression", detail)
        results = _user_expression(reply, "r")
        if not isinstance(results, list) or len(results) != 1:
            return self._fail_at(expr.line, expr.col, "inline-error",
                                 _reply_error(reply, "r"), detail)
        self._inline_result(expr, results[0])

    def _inline_result(self, expr, res: dict) -> None:
        path = self.parsed.path
        if "error" in res:
            if "InvariantError" in res.get("names", []):
                kind, reason = "invariant", _one_line(res["message"]) or "check() failed"
            else:
                kind, reason = "inline-error", f"{res['error']}: {_one_line(res['message'])}"
            self.run_.findings.append(Finding(path, expr.line, kind, reason, col=expr.col,
                                              detail=f"`{{python}} {expr.expr}`"))
            return
        text = _capped(res["text"])
        bundle = {k: _capped(v) for k, v in (res.get("bundle") or {"text/plain": text}).items()}
        put = inserted(bundle) if expr.substitute else Inserted("code", "")
        self.run_.inlines.append(InlineRun(index=expr.index, kind=put.kind, text=text,
                                           markdown=put.markdown))
        if not expr.substitute:
            return              # evaluated, left as code: reported when the chapter was read
        if res.get("empty"):
            shown = text if len(text) < 60 else text[:57] + "..."
            left = " (Quarto leaves it as inline code)" if put.kind == "code" else ""
            self.run_.findings.append(Finding(
                path, expr.line, "inline-empty",
                f"inline expression yields nothing printable: {shown!r}{left}",
                col=expr.col, detail=f"`{{python}} {expr.expr}`"))
            return
        problem = mangled(bundle)
        if problem:
            self.run_.findings.append(Finding(
                path, expr.line, "inline-mangled",
                f"Quarto would not show this inline value as meant: {problem}",
                col=expr.col, detail=f"`{{python}} {expr.expr}`"))

    # -- failures ------------------------------------------------------------
    def _fail(self, cell: CodeCell, kind: str, reason: str) -> None:
        self.failed = True
        self.run_.findings.append(Finding(self.parsed.path, cell.fence_line, kind, reason,
                                          label=cell.label))

    def _fail_at(self, line: int, col: int, kind: str, reason: str, detail: str = "") -> None:
        self.failed = True
        self.run_.findings.append(Finding(self.parsed.path, line, kind, reason, col=col,
                                          detail=detail))


def _reply_error(reply: dict, key: str) -> str:
    """A readable reason for a user expression that did not return our JSON
    (e.g. it raised SystemExit or KeyboardInterrupt, which the helper lets through)."""
    value = (reply.get("user_expressions") or {}).get(key) or {}
    ename = value.get("ename") or reply.get("ename")
    if ename:
        evalue = _one_line(value.get("evalue") or reply.get("evalue") or "")
        return f"{ename}: {evalue}" if evalue else ename
    return f"the kernel did not evaluate it (reply status: {reply.get('status', 'unknown')})"


async def _observed(kernel: Kernel, root: Path) -> dict | None:
    """Snapshot of what the chapter read (files, listings, variables); None when the
    kernel could not say (the run is then not cached)."""
    try:
        reply = await kernel.request("", {"o": f"__import__({OBSERVER!r}).observed_json()"}, 30)
    except Exception:
        return None
    seen = _user_expression(reply, "o")
    return deps.snapshot(root, seen) if isinstance(seen, dict) else None


def _capped(text: str) -> str:
    return text if len(text) <= OUTPUT_CAP_CHARS else text[:OUTPUT_CAP_CHARS] + "\n[truncated]"


def _user_expression(reply: dict, key: str):
    """Decode the JSON our helper returned through user_expressions."""
    value = (reply.get("user_expressions") or {}).get(key) or {}
    if value.get("status") != "ok":
        return None
    try:
        return json.loads(value["data"]["text/plain"])
    except (KeyError, ValueError):
        return None


def _outputs(cell: CodeCell, node) -> list[Output]:
    """Convert nbformat outputs to model Outputs, honouring output/warning options."""
    asis = str(cell.options.get("output", "")).lower() == "asis"
    show_warnings = not option_false(cell.options.get("warning", True))
    outputs: list[Output] = []
    for out in node.outputs:
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stderr" and not show_warnings:
                continue
            text = out.get("text", "")
            name = out.get("name", "")
            outputs.append(Output("markdown" if asis and name == "stdout" else "text", text, name))
        elif kind in ("execute_result", "display_data"):
            outputs.append(_rich(out.get("data", {})))
        elif kind == "error":
            outputs.append(Output("error", f"{out.get('ename')}: {out.get('evalue')}"))
    return [o for o in outputs if o is not None]


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
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return 0
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            count += name == "check"
    return count


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _short_path(filename: str) -> str:
    parts = re.split(r"[\\/]", filename)
    return "/".join(parts[-2:]) if len(parts) > 2 else filename
