"""What can change a chapter's results, apart from its prose; and line remapping.

A chapter's execution depends on its code cells (source with option lines,
the options after the execute cascade), its inline expressions and where they
sit between the cells, its document options (read/options.py) and its path (findings and ledger keys
name it). It does not depend on the prose around them: a typo fixed in a
paragraph must not re-execute the chapter.

`execution_digest(parsed)` hashes exactly those things. A cached run is then
reused after a prose-only edit with its line numbers moved: `anchors(parsed)`
records where each cell and inline expression was when the run was made, and
`remap_run(run, old_anchors, parsed)` moves every finding (and every
`path:line` in its detail) from the old positions to the new ones.

Stdlib only.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace

from bookcheck.model import ChapterRun, Finding, ParsedChapter


def execution_parts(parsed: ParsedChapter) -> dict:
    """Everything of a chapter that its execution can depend on (JSON-able)."""
    return {
        "path": parsed.path,
        "document": [parsed.execute, parsed.exec_dir, parsed.figure, parsed.kernel,
                     parsed.cache_inputs],
        "cells": [{"source": c.source, "options": dict(c.options),
                   "code_offset": c.first_code_line - c.fence_line} for c in parsed.cells],
        "inlines": [{"expr": e.expr, "cells_before": e.cells_before,      # left as code: why
                     "as_code": None if e.substitute else parsed.text[e.start:e.end]}
                    for e in parsed.inlines],
    }


def execution_digest(parsed: ParsedChapter) -> str:
    data = json.dumps(execution_parts(parsed), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=str)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def anchors(parsed: ParsedChapter) -> dict:
    """Where the chapter's cells ([fence, end] lines) and inline expressions (line, col) are."""
    return {"cells": [[c.fence_line, c.end_line] for c in parsed.cells],
            "inlines": [[e.line, e.col] for e in parsed.inlines]}


class _Mover:
    def __init__(self, old: dict, parsed: ParsedChapter):
        self.old_cells = [tuple(x) for x in old.get("cells", [])]
        self.new_cells = [(c.fence_line, c.end_line) for c in parsed.cells]
        self.old_inlines = [tuple(x) for x in old.get("inlines", [])]
        self.new_inlines = [(e.line, e.col) for e in parsed.inlines]

    def line(self, line: int) -> int:
        """A line inside a cell moves with it; any other line stays (it named no code)."""
        for (start, end), (new_start, _new_end) in zip(self.old_cells, self.new_cells):
            if start <= line <= end:
                return line - start + new_start
        for (old_line, _), (new_line, _col) in zip(self.old_inlines, self.new_inlines):
            if old_line == line:
                return new_line
        return line

    def position(self, line: int, col: int | None) -> tuple[int, int | None]:
        if col is not None:
            for old, new in zip(self.old_inlines, self.new_inlines):
                if old == (line, col):
                    return new
        return self.line(line), col


def remap_run(run: ChapterRun, old: dict | None, parsed: ParsedChapter) -> ChapterRun:
    """`run` with its findings moved from positions `old` to those of `parsed` (in place)."""
    if not old or old == anchors(parsed):
        return run
    mover = _Mover(old, parsed)
    here = re.compile(re.escape(parsed.path) + r":(\d+)")
    moved: list[Finding] = []
    for f in run.findings:
        if f.path != parsed.path or not f.line:
            moved.append(f)
            continue
        line, col = mover.position(f.line, f.col)
        detail = here.sub(lambda m: f"{parsed.path}:{mover.line(int(m.group(1)))}", f.detail)
        moved.append(replace(f, line=line, col=col, detail=detail))
    run.findings = moved
    return run
