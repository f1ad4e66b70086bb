"""Run chapters: the run stage's entry point, owning every process it starts.

`run_chapters` loads each chapter's run from the cache or executes it; the
fork server and every kernel it starts are stopped before it returns or
raises (Ctrl-C, SIGTERM, a bug). Chapters run in parallel, each in its own
kernel, longest first. Jupyter is imported only when a chapter must run.
"""
from __future__ import annotations

import os
from pathlib import Path

from scripts.model import CellRun, ChapterRun, InlineRun, ParsedChapter
from scripts.run import cache, deps, fingerprint, sweep
from scripts.run.forkserver import kernel_env

UNSTABLE_KINDS = {"timeout", "kernel-died"}     # never cached: may be transient


def run_chapters(root: Path, chapters: list[ParsedChapter], *, options: dict,
                 timeout_s: float, force: bool = False,
                 jobs: int | None = None) -> dict[str, ChapterRun]:
    """path -> ChapterRun for every chapter, in the given order.

    options: everything besides the chapter's code that changes its outputs
    (execute options, "fig-format"); part of each cache key, with the timeout.
    A cached run is reused only while every input it read is unchanged; its
    findings are moved to the chapter's current line numbers. Each executed
    run is cached as soon as it finishes (a Ctrl-C keeps the finished ones);
    after a complete run, entries no chapter used are pruned.
    force: ignore the cache; jobs: chapters at once (default: cores).
    """
    options = {**options, "timeout": timeout_s}
    keys: dict[str, str] = {}
    runs: dict[str, ChapterRun] = {}
    todo: list[ParsedChapter] = []
    mlsys = cache.mlsys_digest(root)
    env = None
    for parsed in chapters:
        if not parsed.execute:
            runs[parsed.path] = not_executed(parsed)
            continue
        key = cache.chapter_key(root, parsed, options, mlsys=mlsys)
        keys[parsed.path] = key
        run = None if force else cache.load(root, key)
        if run is not None:
            env = env if env is not None else kernel_env(root)
            if run.deps is None or deps.changed(root, run.deps, env) is not None:
                run = None
        if run is not None:
            runs[parsed.path] = fingerprint.remap_run(run, run.anchors, parsed)
        else:
            todo.append(parsed)
    by_path = {p.path: p for p in todo}

    def finished(run: ChapterRun) -> None:
        run.cache_key = keys[run.path]
        run.anchors = fingerprint.anchors(by_path[run.path])
        runs[run.path] = run
        if run.deps is not None and not any(f.kind in UNSTABLE_KINDS for f in run.findings):
            try:
                cache.store(root, run.cache_key, run)
            except OSError:
                pass        # an unwritable _build/ costs speed, not correctness

    if todo:
        execute_chapters(root, todo, jobs, timeout_s, options.get("fig-format", ""), finished)
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
                     timeout_s: float, fig_format: str = "", finished=None) -> list[ChapterRun]:
    """Run chapters concurrently, each in its own kernel; kernels start ahead of need.
    `finished(run)` is called as each chapter ends. The fork server, all kernels and
    every process they started (found by the run's marker) are gone when this
    returns or raises."""
    from scripts.run import forkserver
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chapters)))
    with sweep.marked_run():
        server = forkserver.start(root, chapters)     # warms up while we import Jupyter
        kernel = None
        try:
            import asyncio
            from scripts.run import execute, kernel     # lazy: imports Jupyter
            return asyncio.run(_run_all(execute, root, chapters, jobs, timeout_s, fig_format,
                                        server, finished))
        finally:
            if kernel is not None:          # Ctrl-C or a bug: no kernel may survive
                kernel.kill_all_kernels()
            if server is not None:
                server.close()


async def _run_all(execute, root: Path, chapters: list[ParsedChapter], jobs: int,
                   timeout_s: float, fig_format: str, server, finished=None) -> list[ChapterRun]:
    import asyncio
    alive = asyncio.Semaphore(jobs + 1)     # kernels starting, waiting or running
    running = asyncio.Semaphore(jobs)       # chapters executing

    async def one(parsed: ParsedChapter) -> ChapterRun:
        async with alive:
            starting = asyncio.ensure_future(execute.start_kernel(root, timeout_s, fig_format, server))
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
