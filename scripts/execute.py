"""Run one ParsedChapter in its own Jupyter kernel (nbclient) -> ChapterRun.

Cells are sent verbatim (their `#|` option lines are comments to Python) so a
traceback line n of a cell is qmd line `first_code_line + n - 1` (leading
blank lines, which IPython drops, are stripped first and accounted for).
Inline expressions that sit between the same two cells are evaluated in one
kernel round trip. After the first failure (error, broken invariant, timeout,
dead kernel) the rest of the chapter is skipped. The kernel is always shut
down, whatever happens; a kernel handed in is consumed.

This module imports Jupyter: `check.py` imports it only when a chapter must run.
"""
from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import signal
import subprocess
import time
import uuid
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from jupyter_client.provisioning import LocalProvisioner
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from scripts.forkserver import ForeignProcess, kernel_env
from scripts.model import (CellRun, ChapterRun, CodeCell, Finding, InlineRun, Output,
                           ParsedChapter)

DEFAULT_TIMEOUT_S = 120.0
STARTUP_TIMEOUT_S = 60.0
OUTPUT_CAP_CHARS = 1_000_000          # per cell and stream, in the kernel
RICH_CAP_CHARS = 20_000_000           # per cell, all outputs, in this process
HELPER = "_qmd_checker"               # module installed in each kernel's sys.modules
LIVE_KERNEL_PIDS: set[int] = set()    # every kernel process we started and not yet reaped


# Runs once in every kernel: stream caps, inline evaluation, error introspection.
KERNEL_HELPER = r'''
import json, math, re, sys, traceback
from IPython import get_ipython

CAP = %(cap)d
EMPTY_WORDS = re.compile(r"(?<![\w.])(?:nan|NaN|-?inf|-?Infinity|None)(?![\w])")

class Raw:
    """A value whose plain-text display is exactly its text (JSON to the client)."""
    def __init__(self, text): self.text = text
    def __repr__(self): return self.text
    def _repr_pretty_(self, p, cycle): p.text(self.text)

class CappedStream:
    """Forward writes until CAP characters per cell, then drop them with one note."""
    def __init__(self, stream): self._stream, self.count, self.noted = stream, 0, False
    def write(self, s):
        n = len(s)
        if self.count + n <= CAP:
            self.count += n
            return self._stream.write(s)
        if not self.noted:
            self.noted = True
            self._stream.write(s[:max(0, CAP - self.count)]
                               + "\n[output truncated after %%d characters]\n" %% CAP)
        self.count += n
        return n
    def __getattr__(self, name): return getattr(self._stream, name)

def reset(*_):
    for s in (sys.stdout, sys.stderr):
        if isinstance(s, CappedStream):
            s.count, s.noted = 0, False

def render(value):
    """(kind, text) as Quarto inserts an inline value."""
    if isinstance(value, str):
        return "markdown", value
    md = getattr(value, "_repr_markdown_", None)
    if callable(md):
        text = md()
        if isinstance(text, tuple):
            text = text[0]
        if text is not None:
            return "markdown", str(text)
    data = get_ipython().display_formatter.formatters["text/plain"](value)
    return "text", str(data)

def is_empty(value, text):
    if value is None or not text.strip() or EMPTY_WORDS.search(text):
        return True
    magnitude = getattr(value, "magnitude", value)
    try:
        return isinstance(magnitude, (int, float)) and not math.isfinite(float(magnitude))
    except Exception:
        return False

def inline(exprs):
    reset()
    ns = get_ipython().user_ns
    out = []
    for expr in exprs:
        try:
            value = eval(compile(expr, "<inline>", "eval"), ns)
            kind, text = render(value)
            out.append({"kind": kind, "text": text, "empty": bool(is_empty(value, text))})
        except Exception as exc:
            out.append({"error": type(exc).__name__, "message": str(exc)})
    return Raw(json.dumps(out))

def last_error():
    value = getattr(sys, "last_value", None)
    cells = getattr(get_ipython().compile, "_filename_map", {})
    frames = [[f.filename, f.lineno, cells.get(f.filename), f.name]
              for f in traceback.extract_tb(getattr(sys, "last_traceback", None))]
    message = str(value)
    if isinstance(value, SyntaxError):
        message = value.msg or message
        if value.filename in cells:
            frames.append([value.filename, value.lineno, cells[value.filename], "<module>"])
    names = [c.__name__ for c in type(value).__mro__]
    return Raw(json.dumps({"type": type(value).__name__, "names": names,
                           "message": message, "frames": frames}))

sys.stdout, sys.stderr = CappedStream(sys.stdout), CappedStream(sys.stderr)
get_ipython().events.register("pre_run_cell", reset)
if %(fig_format)r:
    get_ipython().run_line_magic("config", "InlineBackend.figure_formats = {%(fig_format)r}")
'''


class _CappedClient(NotebookClient):
    """nbclient client that keeps at most ~RICH_CAP_CHARS of output per cell
    (the kernel already caps its streams; this guards against huge displays)."""

    def output(self, outs, msg, display_id, cell_index):
        kept = sum(_size(o) for o in outs)
        if kept + _size(msg["content"]) > RICH_CAP_CHARS:
            if not any(o.get("name") == "truncated" for o in outs):
                outs.append(nbformat.v4.new_output(
                    "stream", name="truncated",
                    text=f"\n[output truncated after {RICH_CAP_CHARS} characters]\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)


def _size(output) -> int:
    """Characters of text and data carried by one output or message content."""
    data = output.get("data") or {}
    return len(output.get("text") or "") + sum(len(v) for v in data.values() if isinstance(v, str))


class Kernel:
    """One fresh kernel for one chapter (isolation: never reused)."""

    def __init__(self, root: Path, timeout_s: float = DEFAULT_TIMEOUT_S, fig_format: str = ""):
        self.root = Path(root)
        self.fig_format = fig_format        # "svg", "png", … or "" for the kernel default
        self.pid: int | None = None
        self.client = self._new_client(timeout_s)

    def _new_client(self, timeout_s: float) -> "_CappedClient":
        return _CappedClient(
            nbformat.v4.new_notebook(), kernel_name="python3", timeout=timeout_s,
            allow_errors=True, shell_timeout_interval=1, iopub_timeout=10,
            startup_timeout=STARTUP_TIMEOUT_S, record_timing=False, shutdown_kernel="immediate",
            resources={"metadata": {"path": str(self.root)}})

    async def start(self, server=None) -> "Kernel":
        """Start the kernel: forked from `server` (a warm ForkServer) when it can serve,
        else (or if forking fails) launched as a fresh process."""
        try:
            if server is not None and await server.ready():
                try:
                    await self._launch(server)
                    return self
                except Exception:
                    await self.shutdown()
                    self.client = self._new_client(self.client.timeout)
            await self._launch(None)
        except BaseException:
            await self.shutdown()
            raise
        return self

    async def _launch(self, server) -> None:
        client = self.client
        client.km = client.create_kernel_manager()
        if server is not None:
            client.km.kernel_id = str(uuid.uuid4())
            provisioner = ForkProvisioner(kernel_id=client.km.kernel_id,
                                          kernel_spec=client.km.kernel_spec, parent=client.km)
            provisioner.server = server
            client.km.provisioner = provisioner
        await client.async_start_new_kernel(cwd=str(self.root), env=kernel_env(self.root),
                                            stderr=subprocess.DEVNULL)
        process = getattr(client.km.provisioner, "process", None)
        self.pid = getattr(process, "pid", None)
        if self.pid:
            LIVE_KERNEL_PIDS.add(self.pid)
        await client.async_start_new_kernel_client()
        helper = KERNEL_HELPER % {"cap": OUTPUT_CAP_CHARS, "fig_format": self.fig_format}
        setup = (f"import sys, types\n_m = types.ModuleType({HELPER!r})\n"
                 f"exec({helper!r}, _m.__dict__)\nsys.modules[{HELPER!r}] = _m\ndel _m, sys, types\n")
        reply = await self.request(setup, {}, STARTUP_TIMEOUT_S)
        if reply["status"] != "ok":
            raise RuntimeError(f"kernel setup failed: {reply.get('ename')}: {reply.get('evalue')}")

    async def request(self, code: str, expressions: dict, timeout_s: float) -> dict:
        """Silent execute_request; returns the reply content. Raises on timeout/death."""
        kc = self.client.kc
        msg_id = kc.execute(code, silent=True, store_history=False,
                            user_expressions=expressions, stop_on_error=False)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                msg = await kc.get_shell_msg(timeout=min(1.0, max(0.01, deadline - time.monotonic())))
            except Exception:           # queue.Empty: check the kernel, then the clock
                if not await self.client.km.is_alive():
                    raise DeadKernelError("Kernel died")
                if time.monotonic() > deadline:
                    raise CellTimeoutError(f"no reply within {timeout_s:g} s")
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg["content"]

    async def shutdown(self) -> None:
        """Kill the kernel now and remove its connection file; idempotent."""
        client = self.client
        try:
            if client.km is not None:
                await client._async_cleanup_kernel()
        except Exception:
            pass
        finally:
            _reap(self.pid)
            self.pid = None


class ForkProvisioner(LocalProvisioner):
    """LocalProvisioner whose launch forks the warm server instead of exec'ing Python."""

    server = None                           # the scripts.forkserver.ForkServer to ask

    async def launch_kernel(self, cmd: list[str], **kwargs):
        pid = await self.server.spawn(list(cmd), str(kwargs.get("cwd") or os.getcwd()),
                                      dict(kwargs.get("env") or os.environ))
        self.process = ForeignProcess(pid)
        self.pid, self.pgid = pid, pid          # the child called setsid()
        self.cwd = kwargs.get("cwd")
        return self.connection_info


def _reap(pid: int | None) -> None:
    """Make sure the kernel's process group is gone."""
    if not pid:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    LIVE_KERNEL_PIDS.discard(pid)


def kill_all_kernels() -> None:
    """Last resort (Ctrl-C, interpreter exit): kill every kernel still recorded."""
    for pid in list(LIVE_KERNEL_PIDS):
        _reap(pid)


async def start_kernel(root: Path, timeout_s: float = DEFAULT_TIMEOUT_S,
                       fig_format: str = "", server=None) -> Kernel:
    return await Kernel(root, timeout_s, fig_format).start(server)


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
        await _ChapterRunner(live, parsed, run, timeout_s).run()
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


class _ChapterRunner:
    """Document-order execution of one chapter in one live kernel."""

    def __init__(self, kernel: Kernel, parsed: ParsedChapter, run: ChapterRun, timeout_s: float):
        self.kernel, self.parsed, self.run_, self.timeout_s = kernel, parsed, run, timeout_s
        self.by_count: dict[int, tuple[CodeCell, int]] = {}   # execution count -> (cell, skipped lines)
        self.failed = False

    async def run(self) -> None:
        cells = self.parsed.cells
        groups: dict[int, list] = {}
        for expr in self.parsed.inlines:
            groups.setdefault(expr.cells_before, []).append(expr)
        self.run_.cells = [CellRun(index=c.index) for c in cells]
        for k in range(len(cells) + 1):
            if self.failed:
                return
            if groups.get(k):
                await self._inline_batch(groups[k])
            if k < len(cells) and not self.failed:
                await self._cell(cells[k])

    # -- cells ---------------------------------------------------------------
    async def _cell(self, cell: CodeCell) -> None:
        if _false(cell.options.get("eval", True)):
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
        allowed = _true(cell.options.get("error", False))
        if errored and not allowed:
            await self._report_error(cell, node)
            return
        result = self.run_.cells[cell.index]
        result.raised = errored
        result.outputs = [] if _false(cell.options.get("include", True)) else _outputs(cell, node)
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
            info = {"type": err.get("ename", "Error"), "names": [], "message": err.get("evalue", ""),
                    "frames": []}
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
                rows.append(f"{self.parsed.path}:{qline} in {name}: {code}")
            else:
                rows.append(f"{_short_path(filename)}:{lineno} in {name}")
        rows.append(f"{info['type']}: {_one_line(info['message'])}")
        return "\n".join(rows)

    # -- inline expressions --------------------------------------------------
    async def _inline_batch(self, exprs: list) -> None:
        call = f"__import__({HELPER!r}).inline({json.dumps([e.expr for e in exprs])})"
        first = exprs[0]
        try:
            reply = await self.kernel.request("", {"r": call}, self.timeout_s)
        except CellTimeoutError:
            return self._fail_at(first.line, first.col, "timeout",
                                 f"inline expressions ran longer than {self.timeout_s:g} s; kernel killed")
        except DeadKernelError:
            return self._fail_at(first.line, first.col, "kernel-died",
                                 "the kernel died evaluating an inline expression")
        results = _user_expression(reply, "r")
        if not isinstance(results, list):
            return self._fail_at(first.line, first.col, "inline-error",
                                 "inline expressions could not be evaluated", detail=str(reply)[:500])
        for expr, res in zip(exprs, results):
            self._inline_result(expr, res)

    def _inline_result(self, expr, res: dict) -> None:
        path = self.parsed.path
        if "error" in res:
            self.run_.findings.append(Finding(
                path, expr.line, "inline-error", f"{res['error']}: {_one_line(res['message'])}",
                col=expr.col, detail=f"`{{python}} {expr.expr}`"))
            return
        text = res["text"]
        if len(text) > OUTPUT_CAP_CHARS:
            text = text[:OUTPUT_CAP_CHARS] + "\n[truncated]"
        self.run_.inlines.append(InlineRun(index=expr.index, kind=res["kind"], text=text))
        if res.get("empty"):
            shown = text if len(text) < 60 else text[:57] + "..."
            self.run_.findings.append(Finding(
                path, expr.line, "inline-empty",
                f"inline expression yields nothing printable: {shown!r}",
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
    show_warnings = not _false(cell.options.get("warning", True))
    outputs: list[Output] = []
    for out in node.outputs:
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stderr" and not show_warnings:
                continue
            text = out.get("text", "")
            outputs.append(Output("markdown" if asis and out.get("name") == "stdout" else "text", text))
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


def _false(value) -> bool:
    return value is False or str(value).lower() == "false"


def _true(value) -> bool:
    return value is True or str(value).lower() == "true"


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _short_path(filename: str) -> str:
    parts = re.split(r"[\\/]", filename)
    return "/".join(parts[-2:]) if len(parts) > 2 else filename
