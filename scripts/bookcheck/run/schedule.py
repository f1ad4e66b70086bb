"""Run chapters: the run stage's entry point, owning every process it starts.

`run_chapters` loads each chapter's run from the cache or executes it; the
fork server and every kernel it starts are stopped before it returns or
raises (Ctrl-C, SIGTERM, a bug). Chapters run in parallel, each in its own
kernel, longest first, except that a chapter waits for the earlier chapters
(book order) that write what it reads (`bookcheck.run.order`); after each wave the
readers of what was written are validated again and, if their facts moved,
run once more. Only complete observations are stored (`storable`): an opaque
run (a subprocess, a socket …) is executed on every check unless the chapter
lists its inputs under `cache-inputs:`, and `opaque_notes` says so.
Jupyter is imported only when a chapter must run.
"""
from __future__ import annotations

import os
from pathlib import Path

from bookcheck.model import CellRun, ChapterRun, InlineRun, Kind, ParsedChapter
from bookcheck.read.options import DECLARED_INPUTS
from bookcheck.run import cache, deps, fingerprint, order, sweep
from bookcheck.run.facts_side import Facts
from bookcheck.run.forkserver import kernel_env

UNSTABLE_KINDS = {Kind.TIMEOUT, Kind.KERNEL_DIED}     # never cached: may be transient


def reusable(root: Path, parsed: ParsedChapter, run: ChapterRun | None, env: dict, facts) -> bool:
    """True when a cached run may be served: every fact it recorded still holds (only
    complete observations are stored: `storable`)."""
    if run is None or not run.deps or run.deps.get("unstable"):
        return False
    return deps.changed(root, run.deps, env, facts) is None


def storable(parsed: ParsedChapter, run: ChapterRun) -> bool:
    """Completely observed (or its inputs declared), stable while it ran, not cut short."""
    if run.deps is None or run.deps.get("unstable") or any(f.kind in UNSTABLE_KINDS for f in run.findings):
        return False
    if any(o.get("volatile") for o in run.deps.get("opaque") or []):
        return False        # the clock, an unseeded generator, .git: declaring inputs cannot help
    return not run.deps.get("opaque") or bool(parsed.cache_inputs)


def opaque_notes(chapters: list[ParsedChapter], runs: dict[str, ChapterRun],
                 root: Path | None = None) -> list[str]:
    """One line per chapter executed because it cannot be observed completely (a note);
    first, once per book, why files are observed without the interposer (`interpose.note`)."""
    notes = []
    if root is not None and any(r is not None and not r.cached for r in runs.values()):
        from bookcheck.run.interpose import note
        fallback = note(root)
        if fallback:
            notes.append(fallback)
    for parsed in chapters:
        run = runs.get(parsed.path)
        if run is None or run.cached or not run.deps:
            continue
        if run.deps.get("unstable"):
            notes.append(f"{parsed.path}: not cached: {run.deps['unstable']}")
        elif any(o.get("volatile") for o in run.deps.get("opaque") or []):
            volatile = [o for o in run.deps["opaque"] if o.get("volatile")]
            path, line = parsed.source_of(volatile[0]["line"]) if volatile[0].get("line") else (parsed.path, 0)
            notes.append(f"{path}:{line}: re-run on every check: its result can change from run "
                         f"to run ({'; '.join(o['reason'] for o in volatile)})")
        elif run.deps.get("opaque") and not parsed.cache_inputs:
            where = run.deps["opaque"][0]
            path, line = parsed.source_of(where["line"]) if where.get("line") else (parsed.path, 0)
            reasons = "; ".join(o["reason"] for o in run.deps["opaque"])
            notes.append(f"{path}:{line}: re-run on every check (opaque: {reasons}); "
                         f"list what it reads under `{DECLARED_INPUTS}:` to cache it")
    return notes


def run_chapters(root: Path, chapters: list[ParsedChapter], *, options: dict,
                 timeout_s: float, force: bool = False,
                 jobs: int | None = None, prune: bool = True) -> dict[str, ChapterRun]:
    """path -> ChapterRun for every chapter, in the given order (cache: bookcheck.run.cache).

    options: everything besides the chapter's code that changes its outputs
    (execute options, "figure": Quarto's figure options); part of each cache key, with the timeout.
    Each executed run is cached as soon as it finishes (a Ctrl-C keeps the finished
    ones); after a complete run of a valid project (`prune`), entries no chapter used
    are pruned. force: ignore the cache; jobs: chapters at once (default: cores).
    """
    options = {**options, "timeout": timeout_s}
    keys: dict[str, str] = {}
    runs: dict[str, ChapterRun] = {}
    todo: list[ParsedChapter] = []
    packages = cache.packages_digest(root)
    env = kernel_env(root)
    facts = Facts(str(Path(root).resolve()), env)
    for parsed in chapters:
        if not parsed.execute:
            runs[parsed.path] = not_executed(parsed)
            continue
        key = cache.chapter_key(root, parsed, options, packages=packages)
        keys[parsed.path] = key
        run = None if force else cache.load(root, key)
        if run is not None and not reusable(root, parsed, run, env, facts):
            run = None
        if run is not None:
            runs[parsed.path] = fingerprint.remap_run(run, run.anchors, parsed)
        else:
            todo.append(parsed)
    by_path = {p.path: p for p in chapters}
    io = order.load(root)
    known = dict(io)
    # a cached chapter that reads what a chapter about to run writes runs after it
    for reader in sorted(order.readers_of({p.path: io.get(p.path, {}).get("writes", [])
                                           for p in todo}, io)):
        if reader in keys and reader in runs:
            del runs[reader]
            todo.append(by_path[reader])

    def finished(run: ChapterRun) -> None:
        run.cache_key = keys[run.path]
        parsed = by_path[run.path]
        run.anchors = fingerprint.anchors(parsed)
        runs[run.path] = run
        if run.deps is not None and parsed.cache_inputs:
            run.deps["facts"].update(deps.declared(root, parsed.exec_dir, parsed.cache_inputs))
        if run.deps is not None:
            io[run.path] = order.reads_and_writes(run.deps)
        if storable(parsed, run):
            try:
                cache.store(root, run.cache_key, run)
            except OSError:
                pass        # an unwritable _bookcheck/ costs speed, not correctness

    again: set[str] = set()
    wave = todo
    while wave:
        names = {p.path for p in wave}
        before = order.predecessors([p.path for p in chapters if p.path in names], io)
        execute_chapters(root, sorted(wave, key=lambda p: p.path), jobs, timeout_s,
                         options.get("figure"), finished, before)
        written = {p.path: io[p.path]["writes"] for p in wave if io.get(p.path, {}).get("writes")}
        facts = Facts(str(Path(root).resolve()), env)       # the world after this wave
        wave = []
        for reader in sorted(order.readers_of(written, io) - again):
            run = runs.get(reader)
            # a reader that failed or saw no complete world (it may have run beside
            # its writer) runs again too
            if reader in keys and run is not None and (
                    run.deps is None or run.findings or run.deps.get("unstable")
                    or deps.changed(root, run.deps, env, facts) is not None):
                again.add(reader)           # validated again after its writers: once per check
                wave.append(by_path[reader])
    if io != known:
        order.save(root, {p: v for p, v in io.items() if p in keys})
    if prune:
        try:
            cache.prune(root, set(keys.values()))
        except OSError:
            pass
    return {p.path: runs[p.path] for p in chapters}


def not_executed(parsed: ParsedChapter) -> ChapterRun:
    """The run of a chapter with `execute: enabled: false`: no kernel, no output,
    every inline expression left as code (as Quarto does)."""
    return ChapterRun(path=parsed.path, cells=[CellRun(index=c.index) for c in parsed.cells],
                      inlines=[InlineRun(index=e.index, kind="code", text="") for e in parsed.inlines])


def execute_chapters(root: Path, chapters: list[ParsedChapter], jobs: int | None,
                     timeout_s: float, figure: dict | None = None, finished=None,
                     before: dict[str, set[str]] | None = None) -> list[ChapterRun]:
    """Run chapters concurrently, each in its own kernel; kernels start ahead of need.
    `finished(run)` is called as each chapter ends; a chapter starts only after the
    chapters `before[its path]` (those among `chapters`) have finished. The fork server, all kernels and
    every process they started (found by the run's marker) are gone when this
    returns or raises."""
    from bookcheck.run import forkserver
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chapters)))
    with sweep.marked_run():
        server = forkserver.start(root, chapters)     # warms up while we import Jupyter
        kernel = None
        try:
            import asyncio
            from bookcheck.run import execute, kernel     # lazy: imports Jupyter
            return asyncio.run(_run_all(execute, root, chapters, jobs, timeout_s, figure,
                                        server, finished, before or {}))
        finally:
            if kernel is not None:          # Ctrl-C or a bug: no kernel may survive
                kernel.kill_all_kernels()
            if server is not None:
                server.close()


async def _run_all(execute, root: Path, chapters: list[ParsedChapter], jobs: int,
                   timeout_s: float, figure: dict | None, server, finished=None,
                   before: dict | None = None) -> list[ChapterRun]:
    import asyncio
    alive = asyncio.Semaphore(jobs + 1)     # kernels starting, waiting or running
    running = asyncio.Semaphore(jobs)       # chapters executing
    done = {p.path: asyncio.Event() for p in chapters}

    async def one(parsed: ParsedChapter) -> ChapterRun:
        try:
            return await _one(parsed)
        finally:
            done[parsed.path].set()

    async def _one(parsed: ParsedChapter) -> ChapterRun:
        for earlier in sorted((before or {}).get(parsed.path, ())):
            if earlier in done:             # its writer first (book order), holding no slot
                await done[earlier].wait()
        async with alive:
            drawn = parsed.figure if parsed.figure is not None else figure   # its front matter's
            starting = asyncio.ensure_future(execute.start_kernel(root, timeout_s, drawn, server))
            try:
                async with running:
                    run = await execute.run_chapter_async(root, parsed, timeout_s, starting)
                if finished is not None:
                    finished(run)
                return run
            finally:
                await _discard(starting)

    # Longest first (by amount of code): the biggest chapter must not start last.
    ordered = sorted(chapters, key=_expected_cost, reverse=True)
    return list(await asyncio.gather(*(one(p) for p in ordered)))


def _expected_cost(parsed: ParsedChapter) -> int:
    """A rough proxy for a chapter's run time: characters of code it executes."""
    return sum(len(c.source) for c in parsed.cells) + 40 * len(parsed.inlines)


async def _discard(starting) -> None:
    """Shut down a kernel whose start task was never consumed (idempotent)."""
    if not starting.done():
        starting.cancel()
        try:
            await starting
        except BaseException:
            return
    if not starting.cancelled() and starting.exception() is None:
        await starting.result().shutdown()
