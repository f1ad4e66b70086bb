"""The cache audit (`check --audit`, `make check AUDIT=1`): would the cache have lied?

Every chapter is executed afresh and compared with what the cache would have
served for it (its findings moved to today's lines): a difference is a
`stale-cache` finding naming the inputs the entry missed; with none missed, a
second fresh run that differs too is an `unstable-output` finding
(docs/performance.md, "What the cache observes"). The fresh runs replace the
entries, so an audit also repairs the cache.

Stdlib only (the runs themselves go through `bookcheck.run.schedule`).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from bookcheck.model import ChapterRun, Finding, Kind, ParsedChapter
from bookcheck.run import cache, fingerprint

NOT_RESULTS = ("seconds", "cached", "cache_key", "deps", "anchors")


def served(root: Path, chapters: list[ParsedChapter], options: dict, timeout_s: float,
           reusable) -> dict[str, ChapterRun]:
    """path -> the run the cache would serve now (only chapters it would serve)."""
    from bookcheck.run.facts_side import Facts
    from bookcheck.run.forkserver import kernel_env
    options = {**options, "timeout": timeout_s}
    env = kernel_env(root)
    facts = Facts(str(Path(root).resolve()), env)
    packages = cache.packages_digest(root)
    found = {}
    for parsed in chapters:
        if not parsed.execute:
            continue
        run = cache.load(root, cache.chapter_key(root, parsed, options, packages=packages))
        if run is not None and reusable(root, parsed, run, env, facts):
            found[parsed.path] = fingerprint.remap_run(run, run.anchors, parsed)
    return found


def _results(run: ChapterRun) -> dict:
    data = run.to_dict()
    for name in NOT_RESULTS:
        data.pop(name, None)
    return data


@dataclass(frozen=True)
class Difference:
    """What a reader would see differ between two runs of one chapter."""
    what: str                 # e.g. "the output of cell 8 (fig-x), an image/svg+xml figure"
    line: int                 # where it is in the .qmd (0: the chapter as a whole)
    old: str = ""             # the differing text of each run, when there is one
    new: str = ""
    inline: bool = False      # an inline value (old and new are what readers see)


def difference(parsed: ParsedChapter, old: ChapterRun, new: ChapterRun) -> Difference | None:
    """The first thing a reader would see differ between two runs; None if nothing."""
    if _results(old) == _results(new):
        return None
    shown_old = {i.index: i.text for i in old.inlines}
    for inline in new.inlines:
        if shown_old.get(inline.index) != inline.text:
            expr = next((e for e in parsed.inlines if e.index == inline.index), None)
            return Difference(f"`{{python}} {expr.expr if expr else '?'}`",
                              expr.line if expr else 0,
                              str(shown_old.get(inline.index)), inline.text, inline=True)
    for old_cell, new_cell in zip(old.cells, new.cells):
        if old_cell == new_cell:
            continue
        cell = parsed.cells[new_cell.index] if new_cell.index < len(parsed.cells) else None
        label = f" ({cell.label})" if cell is not None and cell.label else ""
        line = cell.fence_line if cell is not None else 0
        for old_out, new_out in zip(old_cell.outputs, new_cell.outputs):
            if old_out != new_out:
                return Difference(f"the output of cell {new_cell.index + 1}{label}, "
                                  f"{_output_kind(new_out)}", line, old_out.data, new_out.data)
        return Difference(f"the outputs of cell {new_cell.index + 1}{label}", line)
    return Difference("its findings", 0)


def _output_kind(output) -> str:
    if output.kind.startswith("image/"):
        return f"an {output.kind} figure"
    return f"a {output.name or output.kind} output"


def changed_text(old: str, new: str, context: int = 24) -> tuple[str, str]:
    """The part around the first character where `old` and `new` differ, from each."""
    at = len(os.path.commonprefix([old, new]))
    start = max(0, at - context)
    def near(text):
        return text[start:at + context].replace("\n", "\\n")
    return near(old), near(new)


# What usually makes the same inputs give other output, by what the changed text looks like.
UNSTABLE_CAUSES = (
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?|\b\d\d:\d\d:\d\d\b"),
     "a timestamp (the time of the run written into the output)",
     "leave the clock out of what the chapter shows: e.g. matplotlib's savefig(..., "
     "metadata={'Date': None}); the kernels run with SOURCE_DATE_EPOCH set, which "
     "matplotlib and most writers honour"),
    (re.compile(r"0x[0-9a-fA-F]{6,}"),
     "a memory address (an object shown by its default repr)",
     "show a value, not the object (give its class a __repr__, or print the field)"),
)
UNSTABLE_DEFAULT = ("a value that changes from run to run",
                    "seed every random generator (numpy.random.default_rng(seed)), sort a set "
                    "or directory listing before showing it, keep clocks and process ids out "
                    "of outputs")


def unstable_cause(old: str, new: str) -> tuple[str, str, str, str]:
    """(cause, fix, evidence in old, evidence in new) of two runs' differing texts: the
    first kind of token (a time, an address) that one text holds and the other does
    not, else the text around the first difference."""
    for pattern, cause, fix in UNSTABLE_CAUSES:
        found_old, found_new = set(pattern.findall(old)), set(pattern.findall(new))
        if found_old != found_new:
            return (cause, fix, ", ".join(sorted(found_old - found_new)),
                    ", ".join(sorted(found_new - found_old)))
    return (*UNSTABLE_DEFAULT, *changed_text(old, new))


def missed_inputs(old: ChapterRun, new: ChapterRun) -> list[str]:
    """Facts the fresh run observed that the cached entry does not record."""
    recorded = set(((old.deps or {}).get("facts") or {}))
    return sorted(k for k in ((new.deps or {}).get("facts") or {}) if k not in recorded)


def unexplained(chapters: list[ParsedChapter], old: dict[str, ChapterRun],
                new: dict[str, ChapterRun]) -> list[ParsedChapter]:
    """Chapters served stale with no input to blame: run them once more (`findings`
    then tells a run that gives other output every time from an input nobody saw)."""
    return [p for p in chapters if p.path in old and p.path in new
            and difference(p, old[p.path], new[p.path]) is not None
            and not missed_inputs(old[p.path], new[p.path])]


def findings(chapters: list[ParsedChapter], old: dict[str, ChapterRun],
             new: dict[str, ChapterRun],
             again: dict[str, ChapterRun] | None = None) -> list[Finding]:
    """A finding per chapter whose served run differs from its fresh run: `unstable-output`
    when a second fresh run (`again`, of the `unexplained` chapters) differs too,
    else `stale-cache`."""
    out = []
    for parsed in chapters:
        if parsed.path not in old or parsed.path not in new:
            continue
        found = difference(parsed, old[parsed.path], new[parsed.path])
        if found is None:
            continue
        rerun = (again or {}).get(parsed.path)
        unstable = rerun is not None and difference(parsed, new[parsed.path], rerun)
        if unstable:
            out.append(_unstable(parsed.path, unstable))
            continue
        missed = missed_inputs(old[parsed.path], new[parsed.path])
        inputs = (f"inputs the entry did not record: {', '.join(missed[:5])}" if missed else
                  "every input the observer saw is unchanged, and a second run gives the "
                  "same result: since the entry was made, something changed that the chapter "
                  "reads where the observer cannot see it (a C library reading a variable "
                  "or a file itself, e.g. TZ); declare it under `cache-inputs:`")
        shown = f"would show {found.old!r}, runs to {found.new!r}" if found.inline else "differs"
        out.append(Finding(parsed.path, found.line, Kind.STALE_CACHE,
                           f"the cache would have served a stale result: {found.what} {shown}; "
                           f"{inputs}"))
    return out


def _unstable(path: str, found: Difference) -> Finding:
    cause, fix, seen_old, seen_new = unstable_cause(found.old, found.new)
    return Finding(path, found.line, Kind.UNSTABLE_OUTPUT,
                   f"{found.what} differs between two runs of the same inputs: "
                   f"{cause}; the cache can only keep a run that is the same every time: {fix}",
                   detail=f"one run:     …{seen_old}…\nanother run: …{seen_new}…")
