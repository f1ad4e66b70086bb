"""`make bench`: `make check` against the floor and nbconvert, for a temporary copy
of the real book and a synthetic one (`synth_book`, 60 chapters); medians of
`--runs` runs, as ratios to the floor:

    floor            every chapter's cells and inline expressions run in ONE plain
                     Python process, no kernel (a subprocess, timed from outside)
    cold check       `bookcheck check` with the cache directory removed
    nothing changed  the same again, everything cached
    one chapter      after appending a code cell to one chapter
    mlsys touched    after appending a comment to mlsys/__init__.py (the copy's)
    cold, Python hooks only  the cold check with CHECKER_INTERPOSE=0 (the observation of
                     before issue 34): the interposer's cost is the line beneath
    nbconvert        `jupyter nbconvert --to notebook --execute` of the same
                     chapters converted to notebooks: the peer reference
    html             `make html` cold / unchanged / prose edit, + Quarto's (bench_html.py)

plus edits, preview and shards (bench_loop.py), the checker's peak RSS and the
core count. It asserts nothing: a failing step prints why. The checker is driven
only through `bookcheck check`, this project on PYTHONPATH.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck.read.project import load_project
from bookcheck.read.qmd import parse_chapter
from bookcheck.run.cache import cache_dir
from booktools.bench_html import (PYTHON_HOOKS_STEP, explorer_cost_line, measure_html,
                                      observation_cost_line,
                                      per_chapter_overhead_line, quarto_speedup_line)
from booktools.floor import (_display_text, floor_main, run_floor,  # noqa: F401 (API)
                                 write_notebooks)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STEP_TIMEOUT_S = 1800

# Runs the checker as `bookcheck …` and, at exit, records in
# $BENCH_RSS_FILE the peak RSS (KiB) of this process alone, then that of its
# largest waited-for child (a kernel, a fork server), which is not counted.
CHECKER_WRAPPER = """
import atexit, os, resource, runpy, sys
def _record_peak_rss():
    with open(os.environ["BENCH_RSS_FILE"], "w") as out:
        out.write("%d %d" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                             resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
atexit.register(_record_peak_rss)
runpy.run_module("bookcheck", run_name="__main__", alter_sys=True)
"""

# --------------------------------------------------------------- measuring

@dataclass
class Step:
    """One measured figure: wall times of each run, plus what the runs reported."""
    name: str
    seconds: list[float] = field(default_factory=list)
    note: str = ""
    failed: str = ""

    @property
    def median_s(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


@dataclass
class BookBench:
    title: str
    root: Path
    chapters: int = 0
    steps: list[Step] = field(default_factory=list)
    peak_rss_kb: dict[str, int] = field(default_factory=dict)
    child_rss_kb: int = 0          # the largest kernel / helper process, for context
    edited_chapter: str = ""
    explorer_seconds: list[float] = field(default_factory=list)   # per floor run: grids computed


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env or _env(), capture_output=True, text=True,
                          timeout=STEP_TIMEOUT_S)
    return time.perf_counter() - start, done


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


class Checker:
    """Runs `bookcheck check` on one book and records time and peak RSS."""

    def __init__(self, root: Path, extra_env: dict | None = None):
        self.root = root
        self.extra_env = dict(extra_env or {})
        self.rss_file = Path(tempfile.mkstemp(prefix="bench-rss-")[1])
        self.root_flag = self._supports_root_flag()

    def _supports_root_flag(self) -> bool:
        try:
            _, done = _timed([sys.executable, "-m", "bookcheck", "check", "--help"], self.root)
        except (OSError, subprocess.SubprocessError):
            return False
        return "--root" in done.stdout

    def run(self, command: str = "check", *flags: str) -> tuple[float, subprocess.CompletedProcess,
                                                               tuple[int, int]]:
        """Run the checker; returns seconds, the process, (peak RSS, largest child's) in KiB."""
        cmd = [sys.executable, "-c", CHECKER_WRAPPER, command, *flags]
        if self.root_flag:
            cmd += ["--root", str(self.root)]
        env = {**_env(), **self.extra_env}
        env["BENCH_RSS_FILE"] = str(self.rss_file)
        self.rss_file.write_text("0 0")
        seconds, done = _timed(cmd, self.root, env)
        try:
            own_kb, child_kb = (int(v) for v in self.rss_file.read_text().split())
        except (OSError, ValueError):
            own_kb, child_kb = 0, 0
        return seconds, done, (own_kb, child_kb)

    def close(self) -> None:
        self.rss_file.unlink(missing_ok=True)


def run_word(run: int) -> str:     # no digits: a digit in prose is a literal-number finding
    return "".join(chr(ord("a") + int(d)) for d in str(run))


def _describe(done: subprocess.CompletedProcess) -> str:
    summary = _last_line(done.stdout) or _last_line(done.stderr)
    return f"exit {done.returncode}: {summary}"[:160]


def measure_floor(book: BookBench, runs: int) -> Step:
    step = Step("floor (one plain process)")
    cmd = [sys.executable, "-m", "booktools.bench", "--floor-of", str(book.root)]
    for _ in range(runs):
        try:
            seconds, done = _timed(cmd, book.root)
        except (OSError, subprocess.SubprocessError) as exc:
            step.failed = f"{type(exc).__name__}: {exc}"
            return step
        if done.returncode != 0:
            step.failed = _describe(done)
            return step
        step.seconds.append(seconds)
        counts = json.loads(_last_line(done.stdout))
        book.chapters = counts["chapters"]
        step.note = (f"{counts['chapters']} chapters, {counts['cells']} cells, "
                     f"{counts['inlines']} inline expressions, {counts['errors']} errors")
        book.explorer_seconds.append(counts.get("explorer_seconds", 0.0))
    return step


def measure_checks(book: BookBench, runs: int, chapter_to_edit: str) -> list[Step]:
    """Cold, nothing changed, one chapter edited, mlsys touched; and cold again with the
    observation of before issue 34 (Python-level hooks only, CHECKER_INTERPOSE=0)."""
    checker = Checker(book.root)
    python_hooks = Checker(book.root, {"CHECKER_INTERPOSE": "0"})

    def prepare_cold(_run: int) -> None:
        shutil.rmtree(cache_dir(book.root), ignore_errors=True)

    def prepare_edit(run: int) -> None:
        # a code edit (prose-only edits re-execute nothing: they are served from the cache)
        with open(book.root / chapter_to_edit, "a", encoding="utf-8") as handle:
            handle.write(f"\n```{{python}}\nbench_edit = {run + 1}\n```\n")

    def prepare_mlsys(run: int) -> None:
        with open(book.root / "mlsys" / "__init__.py", "a", encoding="utf-8") as handle:
            handle.write(f"# touched by the benchmark (run {run + 1})\n")

    plan = [("cold check", prepare_cold), ("nothing changed", None),
            ("one chapter edited", prepare_edit), ("mlsys touched", prepare_mlsys)]
    from booktools.bench_loop import check_step     # bench_loop imports this module
    try:
        steps = [check_step(name, checker, runs, prepare, book) for name, prepare in plan]
        return steps + [check_step(PYTHON_HOOKS_STEP, python_hooks, runs, prepare_cold, book)]
    finally:
        checker.close()
        python_hooks.close()


def accept_numbers(book: BookBench) -> str:
    """Write the synthetic book's numbers.lock (`bookcheck numbers`), untimed."""
    checker = Checker(book.root)
    try:
        _, done, _ = checker.run("numbers")
        return _describe(done)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        checker.close()


# ------------------------------------------------------------- nbconvert

def measure_nbconvert(book: BookBench, runs: int) -> Step:
    step = Step("nbconvert --execute (peer)")
    try:
        notebooks = write_notebooks(book.root)
    except Exception as exc:  # noqa: BLE001 - the benchmark reports and moves on
        step.failed = f"cannot write notebooks: {type(exc).__name__}: {exc}"
        return step
    jupyter = Path(sys.executable).with_name("jupyter")
    base = [str(jupyter)] if jupyter.exists() else [sys.executable, "-m", "jupyter"]
    with tempfile.TemporaryDirectory(prefix="bench-nb-") as out_dir:
        cmd = base + ["nbconvert", "--to", "notebook", "--execute", "--allow-errors",
                      "--ExecutePreprocessor.timeout=600", "--output-dir", out_dir,
                      *[str(p) for p in notebooks]]
        for _ in range(runs):
            try:
                seconds, done = _timed(cmd, book.root)
            except (OSError, subprocess.SubprocessError) as exc:
                step.failed = f"{type(exc).__name__}: {exc}"
                break
            if done.returncode != 0:
                step.failed = _describe(done)
                break
            step.seconds.append(seconds)
            step.note = f"{len(notebooks)} notebooks, one kernel each, one after another"
    for path in notebooks:
        path.unlink(missing_ok=True)
    return step


# ---------------------------------------------------------------- the books

def copy_project(dest: Path, book: Path | None = None) -> Path:
    """A copy of the real book (sources, mlsys, ledger), or of `book`, to benchmark on."""
    return load_project(book or PROJECT_ROOT).copy_to(dest)


def chapter_with_most_cells(root: Path) -> str:

    project = load_project(root)
    documents = project.chapters + project.appendices
    if not documents:
        raise ValueError("the book lists no chapters")
    return max(documents, key=lambda rel: len(
        parse_chapter(rel, (root / rel).read_text(encoding="utf-8")).cells))


def bench_book(book: BookBench, runs: int, reference_runs: int, accept: bool) -> BookBench:
    _progress(f"[{book.title}] floor")
    floor = measure_floor(book, runs)
    book.steps.append(floor)
    if accept:
        _progress(f"[{book.title}] writing numbers.lock (untimed)")
        note = accept_numbers(book)
        _progress(f"[{book.title}]   {note}")
    try:
        book.edited_chapter = chapter_with_most_cells(book.root)
    except Exception as exc:  # noqa: BLE001
        book.steps.append(Step("checks", failed=f"cannot pick a chapter: {exc}"))
        return book
    _progress(f"[{book.title}] checks (cold, nothing changed, one chapter, mlsys)")
    book.steps.extend(measure_checks(book, runs, book.edited_chapter))
    _progress(f"[{book.title}] make html (cold, nothing changed, prose edit)")
    book.steps.extend(measure_html(book, runs, Step, _timed))
    if reference_runs > 0:
        _progress(f"[{book.title}] nbconvert --execute")
        book.steps.append(measure_nbconvert(book, reference_runs))
    from booktools.bench_loop import loop_steps     # edits, preview, shards (issue 14)
    book.steps.extend(loop_steps(book, runs, synthetic=accept, progress=_progress))
    return book


# ----------------------------------------------------------------- printing

def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def format_book(book: BookBench) -> str:
    floor = book.steps[0].median_s if book.steps and book.steps[0].seconds else None
    lines = [f"{book.title}: {book.chapters} documents"
             + (f" (edited: {book.edited_chapter})" if book.edited_chapter else "")]
    lines.append(f"  {'figure':<28}{'median':>10}{'x floor':>9}   runs (s)")
    for step in book.steps:
        if step.failed:
            lines.append(f"  {step.name:<28}{'failed':>10}{'':>9}   {step.failed}")
            continue
        median = step.median_s
        ratio = f"{median / floor:.2f}" if floor and median is not None else "-"
        runs = " ".join(f"{s:.2f}" for s in step.seconds)
        lines.append(f"  {step.name:<28}{median:>9.2f}s{ratio:>9}   {runs}")
        if step.note:
            lines.append(f"  {'':<28}{'':>10}{'':>9}   {step.note}")
    lines += [x for x in [per_chapter_overhead_line(book.steps, book.chapters),
                          explorer_cost_line(book.steps, book.explorer_seconds),
                          observation_cost_line(book.steps), quarto_speedup_line(book.steps)] if x]
    if book.peak_rss_kb:
        rss = ", ".join(f"{name} {kb / 1024:.0f} MB" for name, kb in book.peak_rss_kb.items())
        lines.append(f"  peak RSS of the checker process: {rss}")
        lines.append(f"  (its largest child process, e.g. a kernel: {book.child_rss_kb / 1024:.0f} MB)")
    return "\n".join(lines)


def machine_line() -> str:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return (f"machine: {os.cpu_count()} cores ({usable} usable), Python {platform.python_version()}, "
            f"{platform.system()} {platform.machine()}")


def _to_json(books: list[BookBench]) -> dict:
    return {"machine": machine_line(), "books": [
        {"title": b.title, "chapters": b.chapters, "edited_chapter": b.edited_chapter,
         "peak_rss_kb": b.peak_rss_kb, "child_rss_kb": b.child_rss_kb,
         "steps": [{"name": s.name, "seconds": s.seconds, "median_s": s.median_s,
                    "note": s.note, "failed": s.failed} for s in b.steps]} for b in books]}


# --------------------------------------------------------------------- main

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bookcheck bench", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median is shown)")
    parser.add_argument("--reference-runs", type=int, default=1,
                        help="runs of the nbconvert reference (0 skips it)")
    parser.add_argument("--chapters", type=int, default=60, help="chapters of the synthetic book")
    parser.add_argument("--only", choices=("real", "synthetic"), help="benchmark one book only")
    parser.add_argument("--book", type=Path, help="benchmark a copy of this book as the real one")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary books")
    parser.add_argument("--floor-of", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(sys.argv[1:] if argv is None else argv)


def main(argv: list[str] | None = None) -> int:
    """Print the benchmark; returns 0 (it asserts nothing)."""
    args = parse_args(argv)
    if args.floor_of:
        return floor_main(args.floor_of)
    print(machine_line(), flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    books: list[BookBench] = []
    try:
        if args.only in (None, "real"):
            try:
                root = copy_project(workdir / "real", args.book)
                books.append(bench_book(BookBench(str(args.book or "real book"), root), args.runs,
                                        args.reference_runs, accept=False))
            except Exception as exc:  # noqa: BLE001
                books.append(BookBench("real book", workdir / "real",
                                       steps=[Step("setup", failed=f"{type(exc).__name__}: {exc}")]))
            print(format_book(books[-1]), flush=True)
        if args.only in (None, "synthetic"):
            title = f"synthetic book ({args.chapters} chapters)"
            try:
                from booktools.synth_book import write_book
                root = workdir / "synthetic"
                write_book(root, args.chapters)
                books.append(bench_book(BookBench(title, root), args.runs,
                                        args.reference_runs, accept=True))
            except Exception as exc:  # noqa: BLE001
                books.append(BookBench(title, workdir / "synthetic",
                                       steps=[Step("setup", failed=f"{type(exc).__name__}: {exc}")]))
            print(format_book(books[-1]), flush=True)
        if args.json:
            args.json.write_text(json.dumps(_to_json(books), indent=2, default=str) + "\n")
    finally:
        if args.keep:
            print(f"books kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
