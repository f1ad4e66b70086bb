"""The checker's side of running a chapter in one request (the kernel's side is
steps_side.py).

`plan` turns a parsed chapter into steps in document order: each inline
expression and each code cell that runs. `send_steps` sends them all in one
silent execute request and follows the results file the kernel appends to
(one JSON line per finished step), handing each result to a callback as soon
as it appears. Every step has its own timeout, counted from the end of the
step before it; when it passes, or the kernel dies, the step after the last
result is the one to blame.

One request and one reply per chapter instead of a request per cell and per
inline expression: nbclient's per-cell messages were most of a small chapter's
time (docs/performance.md, "Where the time went").
The price is that steps_side.py records each cell's outputs itself, buffering
stream text as ipykernel's OutStream does, instead of letting nbclient's public
`async_execute_cell` collect ipykernel's messages. Measured again for issue 32
(cold `check --force`, 3 runs each, same results cell for cell): the public
per-cell path took 14.3-18.9 s wall and 11.8-12.4 s CPU on a 21-chapter synthetic
book against 11.0-11.9 s and 7.2-7.4 s here, and 6.3-6.6 s CPU against 5.4-5.5 s
on this book. So the buffering stays, and tests/run/test_steps_protocol.py
runs the same cells through nbclient's public path and fails when an ipykernel
or nbclient release records them differently.
"""
from __future__ import annotations

import asyncio
import json
import os
import queue
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bookcheck.model import CodeCell, InlineExpr, ParsedChapter
from bookcheck.run.kernel import OUTPUT_CAP_CHARS, RICH_CAP_CHARS, STEPS, Kernel

POLL_S = 0.05              # how often the results file and the kernel are looked at


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
                "error_ok": self.cell.resolved.error}


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
        if not cell.resolved.eval:
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
    """Run `steps` in `cwd` in one request; `on_result(step, result)` for each finished
    step, in order, as its line appears in the results file."""
    caps = {"stream": OUTPUT_CAP_CHARS, "total": RICH_CAP_CHARS}
    handle, path = tempfile.mkstemp(prefix="qmd-steps-", suffix=".jsonl")
    try:
        with os.fdopen(handle, "rb") as results:
            reader = _Reader(steps, results, on_result, timeout_s)
            call = (f"__import__({STEPS!r}).run_steps({str(cwd)!r}, "
                    f"{json.dumps([s.wire() for s in steps])!r}, {json.dumps(caps)!r}, {path!r})")
            kc = kernel.client.kc
            msg_id = kc.execute("", silent=True, store_history=False,
                                user_expressions={"r": call}, stop_on_error=False)
            while True:
                reader.read()
                if time.monotonic() > reader.deadline:
                    return Sent("timeout", reader.running())
                try:
                    msg = await kc.get_shell_msg(timeout=POLL_S)
                except (queue.Empty, asyncio.TimeoutError):
                    if not await kernel.client.km.is_alive():
                        reader.read()
                        return Sent("kernel-died", reader.running())
                    continue
                if msg["parent_header"].get("msg_id") == msg_id:
                    reader.read()
                    return Sent("ok", reader.running(), _final(msg["content"]))
    finally:
        os.unlink(path)


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


class _Reader:
    """Follows the results file: each complete line is the next step's result; a new
    line restarts the per-step deadline."""

    def __init__(self, steps: list[Step], results, on_result, timeout_s: float):
        self.steps, self.results, self.on_result, self.timeout_s = steps, results, on_result, timeout_s
        self.done, self.pending = 0, b""
        self.deadline = time.monotonic() + timeout_s

    def running(self) -> Step | None:
        return self.steps[self.done] if self.done < len(self.steps) else None

    def read(self) -> None:
        chunk = self.results.read()
        if not chunk:
            return
        lines = (self.pending + chunk).split(b"\n")
        self.pending = lines.pop()          # a line still being written
        for line in lines:
            if self.done >= len(self.steps):
                break
            step = self.steps[self.done]
            self.done += 1
            self.deadline = time.monotonic() + self.timeout_s
            self.on_result(step, json.loads(line))
