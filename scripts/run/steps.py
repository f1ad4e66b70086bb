"""The checker's side of running a chapter in one request (the kernel's side is
steps_side.py).

`plan` turns a parsed chapter into steps in document order: each inline
expression and each code cell that runs. `send_steps` sends them all in one
silent execute request and follows the kernel's iopub stream, handing each
step's result to a callback as soon as it arrives. Every step has its own
timeout, counted from the end of the step before it; when it passes, or the
kernel dies, the step after the last result is the one to blame.

One request per chapter instead of one per cell and per inline expression:
nbclient's per-cell protocol costs a shell round trip, a busy/idle pair and
several messages per cell, which was most of a small chapter's time
(docs/performance.md).
"""
from __future__ import annotations

import asyncio
import json
import queue
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from nbclient.exceptions import CellTimeoutError, DeadKernelError

from scripts.model import CodeCell, InlineExpr, ParsedChapter
from scripts.read.project import option_false, option_true
from scripts.run.kernel import OUTPUT_CAP_CHARS, RICH_CAP_CHARS, STEPS, Kernel

RESULT = "\x00qmd-result "
IDLE_WAIT_S = 10.0          # after the reply: time for its last iopub messages


@dataclass
class Step:
    """One thing the kernel runs: a code cell (its code without leading blank
    lines, `skipped` of them) or one inline expression."""
    cell: CodeCell | None = None
    code: str = ""
    skipped: int = 0
    expr: InlineExpr | None = None

    def wire(self) -> dict:
        if self.expr is not None:
            return {"inline": self.expr.expr}
        return {"cell": self.cell.index, "code": self.code,
                "error_ok": option_true(self.cell.options.get("error", False))}


@dataclass
class Sent:
    """How the request ended: "ok", "timeout" or "kernel-died"; `blamed` is the step
    that was running when it did not end well; `final` the reply's value."""
    status: str
    blamed: Step | None = None
    final: dict | None = None


def plan(parsed: ParsedChapter) -> list[Step]:
    """Inline expressions and code cells in document order; `eval: false` and empty cells
    are left out (IPython drops leading blank lines: they are counted in `skipped`)."""
    before: dict[int, list[InlineExpr]] = {}
    for expr in parsed.inlines:
        before.setdefault(expr.cells_before, []).append(expr)
    steps: list[Step] = []
    for k in range(len(parsed.cells) + 1):
        steps += [Step(expr=expr) for expr in before.get(k, [])]
        if k == len(parsed.cells):
            break
        cell = parsed.cells[k]
        if option_false(cell.options.get("eval", True)):
            continue
        lines = cell.source.split("\n")
        skipped = 0
        while skipped < len(lines) and not lines[skipped].strip():
            skipped += 1
        code = "\n".join(lines[skipped:])
        if code.strip():
            steps.append(Step(cell=cell, code=code, skipped=skipped))
    return steps


async def send_steps(kernel: Kernel, steps: list[Step], cwd: Path, timeout_s: float,
                     on_result: Callable[[Step, dict], None]) -> Sent:
    """Run `steps` in `cwd` in one request; `on_result(step, result)` for each finished step."""
    caps = {"stream": OUTPUT_CAP_CHARS, "total": RICH_CAP_CHARS}
    call = (f"__import__({STEPS!r}).run_steps({str(cwd)!r}, "
            f"{json.dumps([s.wire() for s in steps])!r}, {json.dumps(caps)!r})")
    kc = kernel.client.kc
    msg_id = kc.execute("", silent=True, store_history=False, user_expressions={"r": call},
                        stop_on_error=False)
    follower = _Follower(steps, on_result, timeout_s)
    reply_task = asyncio.ensure_future(kernel.shell_reply(msg_id, time.monotonic() + 10 ** 9))
    try:
        while not reply_task.done():
            if time.monotonic() > follower.deadline:
                return Sent("timeout", follower.running())
            await follower.read(kc, msg_id, min(0.5, max(0.01, follower.deadline - time.monotonic())))
        try:
            reply = reply_task.result()["content"]
        except DeadKernelError:
            return Sent("kernel-died", follower.running())
        except CellTimeoutError:
            return Sent("timeout", follower.running())
        idle_by = time.monotonic() + IDLE_WAIT_S
        while not follower.idle and time.monotonic() < idle_by:
            await follower.read(kc, msg_id, 0.5)
    finally:
        if not reply_task.done():
            reply_task.cancel()
            try:
                await reply_task
            except BaseException:
                pass
    return Sent("ok", follower.running(), _final(reply))


def _final(reply: dict) -> dict:
    """The user expression's JSON, or {"error": reason} when it did not run."""
    value = (reply.get("user_expressions") or {}).get("r") or {}
    if value.get("status") == "ok":
        try:
            return json.loads(value["data"]["text/plain"])
        except (KeyError, ValueError):
            pass
    ename = value.get("ename") or reply.get("ename") or "no result"
    evalue = value.get("evalue") or reply.get("evalue") or ""
    return {"error": f"{ename}: {evalue}" if evalue else ename}


class _Follower:
    """Reads our request's iopub messages: result lines, the idle status."""

    def __init__(self, steps: list[Step], on_result, timeout_s: float):
        self.steps, self.on_result, self.timeout_s = steps, on_result, timeout_s
        self.done, self.idle, self.pending = 0, False, ""
        self.deadline = time.monotonic() + timeout_s

    def running(self) -> Step | None:
        return self.steps[self.done] if self.done < len(self.steps) else None

    async def read(self, kc, msg_id: str, wait_s: float) -> None:
        try:
            msg = await kc.get_iopub_msg(timeout=wait_s)
        except (queue.Empty, asyncio.TimeoutError):
            return
        if msg["parent_header"].get("msg_id") != msg_id:
            return
        kind = msg["msg_type"]
        if kind == "status" and msg["content"].get("execution_state") == "idle":
            self.idle = True
        elif kind == "stream" and msg["content"].get("name") == "stdout":
            self._text(msg["content"].get("text", ""))

    def _text(self, text: str) -> None:
        """Whole lines only: a long result may arrive in several stream messages."""
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            at = line.find(RESULT)
            if at < 0 or self.done >= len(self.steps):
                continue
            step = self.steps[self.done]
            self.done += 1
            self.deadline = time.monotonic() + self.timeout_s
            self.on_result(step, json.loads(line[at + len(RESULT):]))
