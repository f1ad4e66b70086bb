"""Where a chapter's time goes outside its own code: `python -m booktools.overhead ROOT`.

Runs every chapter of the book at ROOT through the run stage with its functions
wrapped by timers (docs/performance.md, "How to measure"), and prints the wall time
spent in each phase, summed over chapters and per chapter:

    start (all)     Kernel.start: the three below plus sending kernel_side.py (setup)
    fork + launch   ForkServer.spawn + jupyter_client's kernel manager start
    connect         channels + kernel_info round trip (nbclient's async_start_new_kernel_client)
    steps           the chapter's one request: every cell and inline expression
                    (incl. their own code) and the report of what it read
    shutdown        killing the kernel, removing its connection file
    cache store     writing each ChapterRun to _bookcheck/cache/

The chapters' own code time is the floor (`booktools.floor`, the same code
in one plain process); `steps - floor` is the messaging overhead.
The timers wrap functions by name: a phase that a version of the run stage
does not have simply reads 0.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

PHASES = {   # phase -> (module, attribute path)
    "start (all)": ("bookcheck.run.kernel", "Kernel.start"),
    "fork + launch": ("bookcheck.run.kernel", "NotebookClient.async_start_new_kernel"),
    "connect": ("bookcheck.run.kernel", "NotebookClient.async_start_new_kernel_client"),
    "steps": ("bookcheck.run.steps", "send_steps"),
    "shutdown": ("bookcheck.run.kernel", "Kernel.shutdown"),
    "cache store": ("bookcheck.run.cache", "store"),
}


def _wrap(totals: dict, counts: dict, phase: str, module: str, attr: str) -> None:
    import asyncio
    import importlib
    owner = importlib.import_module(module)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part, None)
        if owner is None:
            return
    func = getattr(owner, name, None)
    if func is None:
        return
    if asyncio.iscoroutinefunction(func):
        async def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return await func(*args, **kwargs)
            finally:
                totals[phase] += time.perf_counter() - start
                counts[phase] += 1
    else:
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                totals[phase] += time.perf_counter() - start
                counts[phase] += 1
    setattr(owner, name, timed)


def profile(root: Path, jobs: int = 1) -> dict:
    """Phase -> seconds (and call counts) for a forced run of the whole book."""
    from bookcheck.read.book import read_book
    from bookcheck.run import schedule
    book = read_book(root)
    project = book.project
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for phase, (module, attr) in PHASES.items():
        _wrap(totals, counts, phase, module, attr)
    chapters = list(book.parsed.values())
    start = time.perf_counter()
    runs = schedule.run_chapters(root, chapters, options={"figure": project.figure},
                                 timeout_s=project.timeout_s, force=True, jobs=jobs)
    wall = time.perf_counter() - start
    findings = sum(len(r.findings) for r in runs.values())
    return {"chapters": len(chapters), "wall_s": wall, "findings": findings,
            "phases": {p: round(totals[p], 4) for p in PHASES},
            "calls": {p: counts[p] for p in PHASES}}


def floor_seconds(root: Path) -> float:
    """Wall time of the floor (all chapters' code in one plain process)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "booktools.bench", "--floor-of", str(root)],
                   cwd=root, capture_output=True, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m booktools.overhead")
    parser.add_argument("root", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-floor", action="store_true")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    result = profile(root, args.jobs)
    if not args.no_floor:
        result["floor_s"] = round(floor_seconds(root), 3)
    n = max(1, result["chapters"])
    print(json.dumps(result, indent=1))
    print(f"{'phase':<14}{'total s':>9}{'per ch ms':>11}{'calls':>7}")
    for phase, seconds in result["phases"].items():
        print(f"{phase:<14}{seconds:>9.3f}{1000 * seconds / n:>11.1f}{result['calls'][phase]:>7}")
    print(f"{'wall':<14}{result['wall_s']:>9.3f}{1000 * result['wall_s'] / n:>11.1f}")
    if "floor_s" in result:
        print(f"{'floor':<14}{result['floor_s']:>9.3f}{1000 * result['floor_s'] / n:>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
