"""Who a finding belongs to: a chapter whose `jupyter:` kernel cannot run is refused
before it starts, and an error every chapter shares is reported once.

(Used by check.py and by the merge of sharded checks, shard.py.)
"""
from __future__ import annotations

import re
from dataclasses import replace

from bookcheck.model import CellRun, ChapterRun, Finding, InlineRun, Kind, ParsedChapter
from bookcheck.run.kernelspec import kernel_problem


def kernel_refused(parsed: ParsedChapter) -> ChapterRun | None:
    """A run that never started, when the chapter's `jupyter:` (front matter, else
    _quarto.yml) names a kernel that is not installed or not Python; else None."""
    if parsed.kernel is None:
        return None
    value, *where = parsed.kernel
    if not parsed.execute:
        return None                 # nothing runs, so no kernel is needed
    problem = kernel_problem(value)
    if problem is None:
        return None
    return ChapterRun(path=parsed.path, cells=[CellRun(index=c.index) for c in parsed.cells],
                      inlines=[InlineRun(index=e.index, kind="code", text="")
                               for e in parsed.inlines],
                      findings=[Finding(*where, Kind.KERNEL, problem)])


def once_per_book(findings: list[Finding]) -> list[Finding]:
    """The findings with a repeated one reported once, where it first occurs: a `kernel`
    finding (the project's `jupyter:`, carried by every chapter it stopped) and a
    cell error raised outside the chapters (the same error, at the same line of a
    module of the book's package such as pkg/constants.py, in every chapter that imports it), which
    then names the other chapters it stopped."""
    seen: set[Finding] = set()
    first: dict[tuple, int] = {}            # origin of a shared cell error -> its index
    also: dict[tuple, list[str]] = {}       # origin -> the other chapters it stopped
    out: list[Finding] = []
    for f in findings:
        if f.kind == Kind.KERNEL:
            if f in seen:
                continue
            seen.add(f)
        origin = _outside_origin(f)
        if origin is not None and origin in first:
            also[origin].append(f.path)
            continue
        if origin is not None:
            first[origin], also[origin] = len(out), []
        out.append(f)
    for origin, paths in also.items():
        if paths:
            f = out[first[origin]]
            out[first[origin]] = replace(f, reason=(
                f"{f.reason} (the same error stopped {len(paths)} more chapter"
                f"{'s' * (len(paths) != 1)}: {', '.join(paths)})"))
    return [at_import(f) for f in out]


IMPORT_ROW = re.compile(r"(?P<path>[^\s:]+\.py):(?P<line>\d+) in <module>")


def at_import(f: Finding) -> Finding:
    """A cell error raised while a project module ran its top level (its traceback
    passes through `pkg/constants.py:129 in <module>`: a constant declared with an
    unknown source, say) is that module's error: reported at that line, naming the
    chapter whose import ran it. Errors raised inside functions a chapter called stay
    at the chapter's line (the call is what to fix)."""
    if f.kind != Kind.CELL_ERROR or not f.detail:
        return f
    for row in reversed(f.detail.split("\n")[:-1]):
        found = IMPORT_ROW.match(row)
        if found and not found["path"].startswith((".../", "/")):
            return replace(f, path=found["path"], line=int(found["line"]), col=None, label=None,
                           reason=f"{f.reason} (raised when {f.path}:{f.line} imported it)")
    return f


def _outside_origin(f: Finding) -> tuple | None:
    """(reason, innermost frame) of a cell error whose innermost frame is a project
    module rather than the chapter (a traceback row `pkg/x.py:74 in _declare`)."""
    if f.kind != Kind.CELL_ERROR or not f.detail:
        return None
    rows = f.detail.split("\n")
    if len(rows) < 2 or rows[-2].startswith(f.path + ":") or ".qmd:" in rows[-2]:
        return None
    return f.reason, rows[-2]

