"""`make bench`, rendering part: `make html` cold, with nothing changed and after a
prose edit, beside real Quarto's figures when `quarto` is on PATH (then `make
html` itself renders with Quarto from the handed-over runs, and the speed-up over
check + Quarto executing is printed); and the per-chapter overhead of a cold check.

    per-chapter overhead = (cold check - floor) / chapters

`bookcheck html` is run in the benchmark's copy of the book (never the
project itself); cold removes the output folder and `_bookcheck/` (so it includes the cold
check); the prose edit appends a sentence to the book's last document (the
appendix, when there is one). Each figure is followed by the audit's share of it
(`_bookcheck/audit/seconds-html.txt`, written by every audited render).
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from bookcheck import store

STEP_TIMEOUT_S = 1800


def per_chapter_overhead_line(steps, chapters: int) -> str:
    """"per-chapter overhead: 123 ms ((cold check - floor) / N chapters)", or ""."""
    by_name = {s.name: s for s in steps if s.seconds}
    floor = next((s for name, s in by_name.items() if name.startswith("floor")), None)
    cold = by_name.get("cold check")
    if floor is None or cold is None or chapters <= 0:
        return ""
    overhead_ms = 1000 * (cold.median_s - floor.median_s) / chapters
    return f"  per-chapter overhead: {overhead_ms:.0f} ms ((cold check - floor) / {chapters} chapters)"


HANDOFF = " (quarto handoff)"


QUARTO_TARGET = 1.5     # issue 33: cold `make html` with Quarto against plain `quarto render`


def quarto_speedup_line(steps) -> str:
    """`make html` with Quarto on PATH (check + Quarto rendering the handed-over runs
    + audit) against the author's plain `quarto render` executing every chapter (no
    freezer), both cold; "" without Quarto."""
    by_name = {s.name: s for s in steps if s.seconds}
    ours, quarto = (by_name.get(n) for n in ("html cold" + HANDOFF, "quarto html cold"))
    if not (ours and quarto):
        return ""
    return (f"  make html with Quarto: {ours.median_s:.1f} s (check + render of the handed-over "
            f"runs + audit) vs {quarto.median_s:.1f} s (plain `quarto render`, executing): "
            f"{quarto.median_s / ours.median_s:.2f}x faster (target >= {QUARTO_TARGET}x)")


def _last_document(root: Path) -> str:
    from bookcheck.read.project import load_project
    project = load_project(root)
    documents = project.chapters + project.appendices
    return documents[-1]


def _edit(root: Path, rel: str, run: int) -> None:
    with open(root / rel, "a", encoding="utf-8") as handle:
        handle.write("\nA sentence of prose the benchmark added" + " again" * run + ".\n")  # no digits


def _measure(step_cls, name: str, cmd: list[str], root: Path, runs: int, prepare, timed) -> object:
    step = step_cls(name)
    for run in range(runs):
        prepare(run)
        try:
            seconds, done = timed(cmd, root)
        except (OSError, subprocess.SubprocessError) as exc:
            step.failed = f"{type(exc).__name__}: {exc}"
            return step
        if done.returncode != 0:
            lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
            step.failed = f"exit {done.returncode}: {lines[-1] if lines else ''}"[:160]
            return step
        step.seconds.append(seconds)
    return step


def _audit_step(step_cls, record: Path, within: str):
    """The audit's seconds in the last run of `within` (render/__init__.py records them)."""
    step = step_cls(f"  audit within {within}")
    try:
        step.seconds.append(float(record.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        step.seconds.append(0.0)
        step.note = "no audit ran"
    return step


def measure_html(book, runs: int, step_cls, timed) -> list:
    """`bookcheck html`: cold, nothing changed, after a prose edit (+ Quarto's)."""
    root = book.root
    edited = _last_document(root)

    from bookcheck.read.project import load_project
    out = root / load_project(root).output_dir

    def cold(_run):
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(store.build_dir(root), ignore_errors=True)

    ours = [sys.executable, "-m", "bookcheck", "html"]
    plan = [("html cold", cold), ("html nothing changed", lambda _r: None),
            (f"html prose edit ({Path(edited).name})", lambda r: _edit(root, edited, r))]
    quarto = shutil.which("quarto")
    suffix = HANDOFF if quarto else ""       # with Quarto on PATH, `html` renders with it
    from bookcheck.verify.audit import seconds_record
    record = seconds_record(root, "html")
    steps = []
    for name, prep in plan:
        steps.append(_measure(step_cls, name + suffix, ours, root, runs,
                              lambda r, prep=prep: (record.unlink(missing_ok=True), prep(r)), timed))
        steps.append(_audit_step(step_cls, record, name))
    if quarto:
        def quarto_cold(_run):
            for path in (out, root / ".quarto", root / "_freeze"):
                shutil.rmtree(path, ignore_errors=True)
        cmd = [quarto, "render", "--to", "html"]
        qplan = [("quarto html cold", quarto_cold), ("quarto html nothing changed", lambda _r: None),
                 ("quarto html prose edit", lambda r: _edit(root, edited, r))]
        # Quarto as an author runs it: not with the PYTHONPATH the benchmark gives
        # `bookcheck`, which would put this checkout's `mlsys` before the book's
        # in Quarto's kernels
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        plain = lambda cmd, cwd: timed(cmd, cwd, env)      # noqa: E731
        steps += [_measure(step_cls, name, cmd, root, runs, prep, plain) for name, prep in qplan]
    else:
        steps[0].note = "quarto is not on PATH: no Quarto figures beside these"
    return steps


PYTHON_HOOKS_STEP = "cold, Python hooks only"


def observation_cost_line(steps: list[Step]) -> str | None:
    """The LD_PRELOAD interposer's cold check against the Python-hooks-only one."""
    by_name = {s.name: s for s in steps if s.seconds and not s.failed}
    if "cold check" not in by_name or PYTHON_HOOKS_STEP not in by_name:
        return None
    with_os, python_only = by_name["cold check"].median_s, by_name[PYTHON_HOOKS_STEP].median_s
    return (f"  observation at the OS boundary (interposer): cold check {with_os:.2f} s against "
            f"{python_only:.2f} s with Python hooks only ({(with_os / python_only - 1) * 100:+.0f} %)")


def explorer_cost_line(steps: list[Step], explorer_seconds: list[float]) -> str | None:
    """The explorers' grids (computed in the floor runs) against a cold check."""
    cold = next((s for s in steps if s.name == "cold check" and s.seconds and not s.failed), None)
    if not explorer_seconds or not any(explorer_seconds) or cold is None:
        return None
    grids = statistics.median(explorer_seconds)
    return (f"  explorer grids: {grids:.2f} s of computation, {grids / cold.median_s * 100:.0f} % "
            f"of a cold check ({cold.median_s:.2f} s; a cached check computes none)")
