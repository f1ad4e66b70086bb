"""The benchmark's floor and peer inputs: the chapters' code in one plain process,
and the chapters as notebooks for `jupyter nbconvert --execute`.

`python -m booktools.bench --floor-of ROOT` runs `floor_main` in a process
of its own and prints the counts as JSON.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bookcheck.read.book import read_book
from bookcheck.run.inprocess import display_value, run_in_process

# A matplotlib backend for the floor that, like the kernel's inline backend,
# rasterises every figure that is shown (its name contains "inline" so that
# display helpers which only show under an inline backend do show).
FLOOR_BACKEND = '''
import io
from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas  # noqa: F401


def show(*args, **kwargs):
    import matplotlib.pyplot as plt
    for number in plt.get_fignums():
        plt.figure(number).savefig(io.BytesIO(), format="png")
    plt.close("all")
'''
FLOOR_BACKEND_NAME = "bench_floor_inline"


# ------------------------------------------------------------------ the floor

def _display_text(value) -> str:
    """What a kernel would display for a value: its markdown, else its repr."""
    return display_value(value).data


def _flush_figures() -> None:
    """Rasterise and close figures left open by a cell, as the inline backend does."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None and pyplot.get_fignums():
        pyplot.show()


def run_floor(root: Path) -> dict:
    """Run every chapter of the book at `root` in this process; returns counts.

    The run stage's in-process executor (bookcheck.run.inprocess), each chapter
    in a fresh namespace, running on after errors; errors are counted, not raised.
    """
    book = read_book(Path(root).resolve())
    counts = {"chapters": 0, "cells": 0, "inlines": 0, "errors": 0, "explorer_seconds": 0.0}
    _time_explorer_grids(counts)
    for parsed in book.parsed.values():
        done = run_in_process(parsed, stop_at_error=False, plain=repr, after_cell=_flush_figures)
        counts["chapters"] += 1
        counts["cells"] += done.cells
        counts["inlines"] += done.inlines
        counts["errors"] += len(done.errors) + len(done.invariants)
        for problem in done.errors + done.invariants:
            print(f"floor: {problem}", file=sys.stderr)
    return counts


def _time_explorer_grids(counts: dict) -> None:
    """Add the time spent computing explorer grids (mlsys.explorer) to `counts`; a book
    whose mlsys has no explorers is left alone."""
    try:
        import mlsys
    except ImportError:
        return
    build = getattr(mlsys, "explorer", None)
    if build is None:
        return

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return build(*args, **kwargs)
        finally:
            counts["explorer_seconds"] += time.perf_counter() - start
    mlsys.explorer = timed


def floor_main(root: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as backend_dir:
        Path(backend_dir, FLOOR_BACKEND_NAME + ".py").write_text(FLOOR_BACKEND)
        sys.path.insert(0, str(Path(root).resolve()))
        sys.path.append(backend_dir)
        os.environ["MPLBACKEND"] = f"module://{FLOOR_BACKEND_NAME}"
        os.chdir(root)
        counts = run_floor(root)
    print(json.dumps(counts))
    return 0


def write_notebooks(root: Path) -> list[Path]:
    """Each chapter as a notebook beside the book root (so its kernel's cwd is the root).

    Cells run in document order with every inline expression as its own cell at
    its place, which is what Quarto's Jupyter engine executes.
    """
    import nbformat

    paths = []
    for rel, parsed in read_book(root).parsed.items():
        sources: list[str] = []
        pending = sorted(parsed.inlines, key=lambda e: (e.cells_before, e.index))
        for position in range(len(parsed.cells) + 1):
            while pending and pending[0].cells_before <= position:
                sources.append(pending.pop(0).expr)
            if position < len(parsed.cells) and parsed.cells[position].resolved.eval:
                sources.append(parsed.cells[position].source)
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                           "language": "python"}
        path = root / f"_bench_{Path(rel).stem}.ipynb"
        nbformat.write(notebook, path)
        paths.append(path)
    return paths
