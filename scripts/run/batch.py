"""Run one chapter in ONE execute request instead of one request per cell.

The per-cell protocol (execute.py's `_ChapterRunner`) pays a shell round trip,
nbclient's message handling and a status busy/idle pair for every code cell
and every inline batch. `BatchRunner` sends the chapter's steps (cells and
inline batches in document order) to `batch_side.run_steps` inside the kernel,
which runs each cell through IPython's own `run_cell` and streams back, on
iopub, a start marker and then the result of each step. The checker follows
those markers, so a cell still has its own timeout (counted from its start
marker; the kernel is then killed), a dead kernel is blamed on the step that
was running, and every step that finished is reported exactly as before
(same findings, same qmd line mapping: execution counts and cell file names
are IPython's). Isolation is unchanged: one fresh kernel per chapter.

CHECKER_BATCH=0 selects the per-cell protocol.
"""
from __future__ import annotations

import asyncio
import json
import os
import queue
import time
from pathlib import Path
from types import SimpleNamespace

from nbclient.exceptions import CellTimeoutError, DeadKernelError

from scripts.model import CellRun
from scripts.read.project import option_false, option_true
from scripts.run.execute import _ChapterRunner, _count_checks, _outputs, _user_expression
from scripts.run.kernel import OUTPUT_CAP_CHARS

SIDE = "_qmd_batch"
START, RESULT = "\x00qmd-start ", "\x00qmd-result "
IDLE_WAIT_S = 10.0          # after the reply: the rest of its iopub messages


def enabled() -> bool:
    return os.environ.get("CHECKER_BATCH", "1") != "0"


def _install_code() -> str:
    source = Path(__file__).with_name("batch_side.py").read_text(encoding="utf-8")
    return (f"import sys as _s, types as _t\n_m = _t.ModuleType({SIDE!r})\n"
            f"exec(compile({source!r}, {SIDE!r}, 'exec'), _m.__dict__)\n"
            f"_s.modules[{SIDE!r}] = _m\ndel _s, _t, _m\n")


class BatchRunner(_ChapterRunner):
    """Document-order execution of one chapter in one request (see module docstring)."""

    def _plan(self) -> list[tuple]:
        """Steps in document order: ("inline", exprs) or ("cell", cell, skipped, code)."""
        groups: dict[int, list] = {}
        for expr in self.parsed.inlines:
            groups.setdefault(expr.cells_before, []).append(expr)
        cells = self.parsed.cells
        plan: list[tuple] = []
        for k in range(len(cells) + 1):
            if groups.get(k):
                plan.append(("inline", groups[k]))
            if k < len(cells) and not option_false(cells[k].options.get("eval", True)):
                lines = cells[k].source.split("\n")
                skipped = 0
                while skipped < len(lines) and not lines[skipped].strip():
                    skipped += 1
                code = "\n".join(lines[skipped:])
                if code.strip():
                    plan.append(("cell", cells[k], skipped, code))
        return plan

    async def run(self) -> None:
        self.run_.cells = [CellRun(index=c.index) for c in self.parsed.cells]
        self.plan = self._plan()
        if not self.plan:
            return
        steps = [{"inline": [e.expr for e in p[1]]} if p[0] == "inline" else
                 {"cell": p[1].index, "code": p[3],
                  "error_ok": option_true(p[1].options.get("error", False))} for p in self.plan]
        call = f"__import__({SIDE!r}).run_steps({json.dumps(json.dumps(steps))}, {OUTPUT_CAP_CHARS})"
        self.current, self.done, self.pending_error = 0, 0, None
        msg_id = self.kernel.client.kc.execute(_install_code(), silent=True, store_history=False,
                                               user_expressions={"r": call}, stop_on_error=False)
        try:
            reply = await self._follow(msg_id)
        except CellTimeoutError:
            return self._step_failed("timeout")
        except DeadKernelError:
            return self._step_failed("kernel-died")
        if self.pending_error is not None:
            cell, outputs = self.pending_error
            await self._report_error(cell, SimpleNamespace(outputs=outputs))
            return
        ran = _user_expression(reply, "r")
        if not isinstance(ran, int) or (ran < len(self.plan) and not self.failed):
            raise RuntimeError(f"the chapter's steps did not all run: "
                               f"{reply.get('ename', '')} {reply.get('evalue', '')}".strip())

    # -- following the request -------------------------------------------------
    async def _follow(self, msg_id: str) -> dict:
        kernel = self.kernel
        reply_task = asyncio.ensure_future(kernel._shell_reply(msg_id, time.monotonic() + 10 ** 9))
        self.deadline = time.monotonic() + self.timeout_s
        try:
            while not reply_task.done():
                if time.monotonic() > self.deadline:
                    raise CellTimeoutError("step timed out")
                await self._read_iopub(msg_id, min(0.5, max(0.01, self.deadline - time.monotonic())),
                                       reply_task)
            reply = reply_task.result()["content"]
            idle_by = time.monotonic() + IDLE_WAIT_S
            while not self.idle and time.monotonic() < idle_by:
                await self._read_iopub(msg_id, 0.5, None)
            return reply
        finally:
            if not reply_task.done():
                reply_task.cancel()
                try:
                    await reply_task
                except BaseException:
                    pass

    idle = False

    async def _read_iopub(self, msg_id: str, wait_s: float, reply_task) -> None:
        """Handle iopub messages of our request for up to wait_s (sooner once replied)."""
        kc = self.kernel.client.kc
        try:
            msg = await kc.get_iopub_msg(timeout=wait_s)
        except (queue.Empty, asyncio.TimeoutError):
            return
        if msg["parent_header"].get("msg_id") != msg_id:
            return
        kind = msg["msg_type"]
        if kind == "status" and msg["content"].get("execution_state") == "idle":
            self.idle = True
        elif kind == "stream":
            for line in msg["content"].get("text", "").split("\n"):
                self._line(line)

    def _line(self, line: str) -> None:
        at = line.find(START)
        if at >= 0:
            self.current = int(line[at + len(START):])
            self.deadline = time.monotonic() + self.timeout_s
            return
        at = line.find(RESULT)
        if at >= 0:
            self._result(self.plan[self.done], json.loads(line[at + len(RESULT):]))
            self.done += 1
            self.deadline = time.monotonic() + self.timeout_s   # the step's clock stops here

    # -- results ---------------------------------------------------------------
    def _result(self, step: tuple, res: dict) -> None:
        if step[0] == "inline":
            for expr, value in zip(step[1], res["inline"]):
                self._inline_result(expr, value)
            return
        _, cell, skipped, code = step
        if res.get("count"):
            self.by_count[res["count"]] = (cell, skipped)
        outputs = res.get("outputs", [])
        errored = res.get("error") or any(o.get("output_type") == "error" for o in outputs)
        if errored and not option_true(cell.options.get("error", False)):
            self.failed = True
            self.pending_error = (cell, outputs)
            return
        result = self.run_.cells[cell.index]
        result.raised = bool(errored)
        hidden = (option_false(cell.options.get("include", True))
                  or option_false(cell.options.get("output", True)))
        result.outputs = [] if hidden else _outputs(cell, SimpleNamespace(outputs=outputs))
        self.run_.invariants += _count_checks(code)

    def _step_failed(self, kind: str) -> None:
        step = self.plan[min(self.current, len(self.plan) - 1)]
        if step[0] == "inline":
            first = step[1][0]
            reason = (f"inline expressions ran longer than {self.timeout_s:g} s; kernel killed"
                      if kind == "timeout" else "the kernel died evaluating an inline expression")
            return self._fail_at(first.line, first.col, kind, reason)
        reason = (f"cell ran longer than the timeout of {self.timeout_s:g} s; kernel killed"
                  if kind == "timeout" else "the kernel died while running this cell")
        return self._fail(step[1], kind, reason)
