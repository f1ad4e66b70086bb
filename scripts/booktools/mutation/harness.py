"""The fast in-process checker copy: run the book (mutated) and say what caught it.

Chapters are read by the read stage (options cascaded) and executed by the run
stage's in-process executor (bookcheck.run.inprocess), in a forked child per
mutant (fresh state, like a fresh kernel); outputs are collected by
bookcheck.verify.ledger and compared with the copy's numbers.lock.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck.read.book import read_book
from bookcheck.run.inprocess import run_in_process
from booktools.mutation.mutants import Mutant, apply_in_process
from bookcheck.verify import ledger

MUTANT_TIMEOUT_S = 60.0


@dataclass
class Outcome:
    invariants: list[str] = field(default_factory=list)   # "path:line: message"
    errors: list[str] = field(default_factory=list)
    ledger: dict[str, str] = field(default_factory=dict)
    ledger_changes: list[str] = field(default_factory=list)

    def verdict(self) -> str:
        """invariant | error | ledger | survived"""
        if self.invariants:
            return "invariant"
        if self.errors:
            return "error"
        return "ledger" if self.ledger_changes else "survived"


class Harness:
    """Executes the book's chapters in this process, as the checker would in kernels."""

    def __init__(self, root: Path):
        self.root = Path(root)
        book = read_book(self.root)
        if book.findings:
            raise RuntimeError(f"the project has findings: {book.findings}")
        self.chapters = list(book.parsed.values())
        self.baseline: dict[str, str] = {}

    def preload(self) -> None:
        """Import what chapters import, once, in the parent (children inherit it)."""
        os.environ.setdefault("MPLBACKEND", "Agg")
        import matplotlib
        matplotlib.use("Agg")
        import IPython.display  # noqa: F401
        import mlsys  # noqa: F401
        import mlsys.plotting  # noqa: F401
        import pandas  # noqa: F401
        import tabulate  # noqa: F401

    def run_book(self) -> Outcome:
        outcome = Outcome()
        cwd = os.getcwd()
        os.chdir(self.root)
        try:
            for parsed in self.chapters:
                done = run_in_process(parsed)
                outcome.invariants += done.invariants
                outcome.errors += done.errors
                if outcome.invariants:
                    break           # the verdict is settled: killed by an invariant
                outcome.ledger.update(ledger.collect(parsed, done.run))
        finally:
            os.chdir(cwd)
        outcome.ledger_changes = [f.reason for f in ledger.diff(self.baseline, outcome.ledger)]
        return outcome


# ------------------------------------------------------ running many mutants

def run_forked(harness: Harness, mutants: list[Mutant], jobs: int,
               timeout_s: float = MUTANT_TIMEOUT_S) -> dict[str, Outcome]:
    """Each mutant in its own forked child of this (preloaded) process."""
    results: dict[str, Outcome] = {}
    pending = list(mutants)
    live: dict[int, tuple[Mutant, str, float]] = {}
    scratch = tempfile.mkdtemp(prefix="mutants-")
    started = 0
    try:
        while pending or live:
            while pending and len(live) < jobs:
                m = pending.pop(0)
                started += 1
                out = os.path.join(scratch, f"{started}.json")
                pid = os.fork()
                if pid == 0:            # the child: mutate, run, report, vanish
                    code = 0
                    try:
                        devnull = os.open(os.devnull, os.O_WRONLY)
                        os.dup2(devnull, 1)
                        os.dup2(devnull, 2)
                        apply_in_process(m)
                        o = harness.run_book()
                        o.ledger = {}
                        with open(out, "w") as handle:
                            json.dump(o.__dict__, handle)
                    except BaseException as exc:
                        code = 1
                        with open(out, "w") as handle:
                            json.dump({"errors": [f"the harness crashed: {exc!r}"]}, handle)
                    finally:
                        os._exit(code)
                live[pid] = (m, out, time.monotonic() + timeout_s)
            pid, _status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                for child, (m, out, deadline) in list(live.items()):
                    if time.monotonic() > deadline:
                        os.kill(child, signal.SIGKILL)
                time.sleep(0.005)
                continue
            if pid not in live:
                continue
            m, out, deadline = live.pop(pid)
            try:
                with open(out) as handle:
                    results[m.id] = Outcome(**json.load(handle))
                os.unlink(out)
            except (OSError, ValueError):
                late = time.monotonic() > deadline
                results[m.id] = Outcome(errors=["timeout" if late else "the harness crashed"])
    finally:
        for child in live:
            try:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
            except OSError:
                pass
        shutil.rmtree(scratch, ignore_errors=True)
    return results
