"""Chapters that write what others read: book order between them, and re-validation.

Quarto runs a book's chapters one after another in book order, so a chapter
may read a file that an earlier chapter writes; this checker runs them in
parallel (longest first), so it must know such pairs (docs/performance.md, "What
the cache observes"). Each run's facts say which files it wrote (`products`) and
which paths it read, stat-ed, listed or looked modules up in (`deps.paths`); the
last known of every chapter are a record of the chapter cache (`.chapter-io`):

- `predecessors`: a chapter waits for every earlier chapter (in book order)
  that writes a path it reads or writes itself;
- `readers_of`: the chapters whose recorded reads a set of freshly written
  paths touches; after a wave of runs they are validated again (and run again
  when their facts no longer hold), so a reader never keeps a result computed
  before its writer ran: on a fresh clone, where nothing is known yet, a reader
  that ran first (and failed with FileNotFoundError) runs again after it.

A reader listed *before* its writer still passes here but not under Quarto's book
order: that is a finding of the verify stage (`verify/run_inputs.py`).

Stdlib only.
"""
from __future__ import annotations

from pathlib import Path

from bookcheck.run import cache, deps

IO_FILE = ".chapter-io"         # a record of the chapter cache (cache.prune keeps it)


def reads_and_writes(run_deps: dict | None) -> dict:
    """{"reads": [...], "writes": [...]}: stored paths of a run's facts and products."""
    if not run_deps:
        return {"reads": [], "writes": []}
    writes = sorted({key.partition(" ")[2] for key in run_deps.get("products") or []})
    return {"reads": sorted(deps.paths(run_deps) - set(writes)), "writes": writes}


def touches(read: str, written: str) -> bool:
    """A read of `read` (a file, or a folder listed or searched) sees a write of `written`."""
    parent = written.rpartition("/")[0] or "."
    return written == read or parent == read


def _touched(reads, writes) -> bool:
    return any(touches(r, w) for r in reads for w in writes)


def predecessors(order: list[str], io: dict[str, dict]) -> dict[str, set[str]]:
    """path -> the earlier chapters (book order) it must wait for."""
    before: dict[str, set[str]] = {path: set() for path in order}
    for i, later in enumerate(order):
        mine = io.get(later) or {}
        for earlier in order[:i]:
            theirs = io.get(earlier) or {}
            if _touched(mine.get("reads", []) + mine.get("writes", []), theirs.get("writes", [])) \
                    or _touched(theirs.get("reads", []), mine.get("writes", [])):
                before[later].add(earlier)
    return before


def readers_of(written: dict[str, list[str]], io: dict[str, dict]) -> set[str]:
    """Chapters whose recorded reads touch what other chapters (`written`: path ->
    stored paths it wrote) just wrote."""
    found = set()
    for reader, known in io.items():
        for writer, paths in written.items():
            if writer != reader and _touched(known.get("reads", []), paths):
                found.add(reader)
    return found


def load(root: Path) -> dict[str, dict]:
    io = cache.entries(root).get_json(IO_FILE)
    return io if isinstance(io, dict) else {}


def save(root: Path, io: dict[str, dict]) -> None:
    cache.entries(root).put_json(IO_FILE, io)
