"""The cache audit (`check --audit`, `make check AUDIT=1`): would the cache have lied?

Every chapter is executed afresh, and compared with what the cache would have
served for it (an entry with the chapter's key whose facts all still hold,
its findings moved to today's lines). Any difference in what the chapter
shows (cell outputs, inline values) or finds is a `stale-cache` finding naming
the chapter, what differs and the inputs the fresh run observed that the
cached entry did not record (or, when there are none, that the run depends on
something the observer cannot see: a C library reading a variable or a file
itself). The fresh runs replace the entries, so an audit also repairs the cache.

Stdlib only (the runs themselves go through `scripts.run.schedule`).
"""
from __future__ import annotations

from pathlib import Path

from scripts.model import ChapterRun, Finding, ParsedChapter
from scripts.run import cache, fingerprint

NOT_RESULTS = ("seconds", "cached", "cache_key", "deps", "anchors")


def served(root: Path, chapters: list[ParsedChapter], options: dict, timeout_s: float,
           reusable) -> dict[str, ChapterRun]:
    """path -> the run the cache would serve now (only chapters it would serve)."""
    from scripts.run.facts_side import Facts
    from scripts.run.forkserver import kernel_env
    options = {**options, "timeout": timeout_s}
    env = kernel_env(root)
    facts = Facts(str(Path(root).resolve()), env)
    mlsys = cache.mlsys_digest(root)
    found = {}
    for parsed in chapters:
        if not parsed.execute:
            continue
        run = cache.load(root, cache.chapter_key(root, parsed, options, mlsys=mlsys))
        if run is not None and reusable(root, parsed, run, env, facts):
            found[parsed.path] = fingerprint.remap_run(run, run.anchors, parsed)
    return found


def _results(run: ChapterRun) -> dict:
    data = run.to_dict()
    for name in NOT_RESULTS:
        data.pop(name, None)
    return data


def difference(parsed: ParsedChapter, old: ChapterRun, new: ChapterRun) -> str | None:
    """What a reader would see differ between the served and the fresh run; None if nothing."""
    if _results(old) == _results(new):
        return None
    shown_old = {i.index: i.text for i in old.inlines}
    for inline in new.inlines:
        if shown_old.get(inline.index) != inline.text:
            expr = next((e.expr for e in parsed.inlines if e.index == inline.index), "?")
            return f"`{{python}} {expr}` would show {shown_old.get(inline.index)!r}, runs to {inline.text!r}"
    for old_cell, new_cell in zip(old.cells, new.cells):
        if old_cell != new_cell:
            cell = parsed.cells[new_cell.index] if new_cell.index < len(parsed.cells) else None
            label = f" ({cell.label})" if cell is not None and cell.label else ""
            return f"the output of cell {new_cell.index + 1}{label} differs"
    return "its findings differ"


def missed_inputs(old: ChapterRun, new: ChapterRun) -> list[str]:
    """Facts the fresh run observed that the cached entry does not record."""
    recorded = set(((old.deps or {}).get("facts") or {}))
    return sorted(k for k in ((new.deps or {}).get("facts") or {}) if k not in recorded)


def findings(chapters: list[ParsedChapter], old: dict[str, ChapterRun],
             new: dict[str, ChapterRun]) -> list[Finding]:
    """A `stale-cache` finding per chapter whose served run differs from its fresh run."""
    out = []
    for parsed in chapters:
        if parsed.path not in old or parsed.path not in new:
            continue
        what = difference(parsed, old[parsed.path], new[parsed.path])
        if what is None:
            continue
        missed = missed_inputs(old[parsed.path], new[parsed.path])
        inputs = (f"inputs the entry did not record: {', '.join(missed[:5])}" if missed else
                  "every input the observer saw is unchanged: the chapter reads something it "
                  "cannot see (a C library reading a variable or file itself); declare it "
                  "under `cache-inputs:`")
        out.append(Finding(parsed.path, 0, "stale-cache",
                           f"the cache would have served a stale result: {what}; {inputs}"))
    return out
