"""Run chapters: the run stage's entry point, owning every process it starts.

`run_chapters` loads each chapter's run from the cache or executes it; the
fork server and every kernel it starts are stopped before it returns or
raises (Ctrl-C, SIGTERM, a bug). Chapters run in parallel, each in its own
kernel, longest first. Jupyter is imported only when a chapter must run.
"""
from __future__ import annotations

import os
from pathlib import Path

from scripts.model import ChapterRun, ParsedChapter
from scripts.run import cache

UNSTABLE_KINDS = {"timeout", "kernel-died"}     # never cached: may be transient


def run_chapters(root: Path, chapters: list[ParsedChapter], *, options: dict,
                 timeout_s: float, force: bool = False,
                 jobs: int | None = None) -> dict[str, ChapterRun]:
    """path -> ChapterRun for every chapter, in the given order.

    options: everything besides the chapter text that changes its outputs
    (cascaded execute options, "fig-format"); part of each cache key.
    force: ignore the cache; jobs: chapters at once (default: cores).
    """
    keys: dict[str, str] = {}
    runs: dict[str, ChapterRun] = {}
    todo: list[ParsedChapter] = []
    mlsys = cache.mlsys_digest(root)
    for parsed in chapters:
        key = cache.chapter_key(root, parsed, options, mlsys=mlsys)
        keys[parsed.path] = key
        run = None if force else cache.load(root, key)
        if run is not None:
            run.cached = True
            runs[parsed.path] = run
        else:
            todo.append(parsed)
    if todo:
        for run in execute_chapters(root, todo, jobs, timeout_s, options.get("fig-format", "")):
            run.cache_key = keys[run.path]
            runs[run.path] = run
            if not any(f.kind in UNSTABLE_KINDS for f in run.findings):
                try:
                    cache.store(root, run.cache_key, run)
                except OSError:
                    pass        # an unwritable _build/ costs speed, not correctness
    return {p.path: runs[p.path] for p in chapters}


def execute_chapters(root: Path, chapters: list[ParsedChapter], jobs: int | None,
                     timeout_s: float, fig_format: str = "") -> list[ChapterRun]:
    """Run chapters concurrently, each in its own kernel; kernels start ahead of need.
    The fork server and all kernels are gone when this returns or raises."""
    from scripts.run import forkserver
    server = forkserver.start(root, chapters)     # warms up while we import Jupyter
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chapters)))
    kernel = None
    try:
        import asyncio
        from scripts.run import execute, kernel     # lazy: imports Jupyter
        return asyncio.run(_run_all(execute, root, chapters, jobs, timeout_s, fig_format, server))
    finally:
        if kernel is not None:          # Ctrl-C or a bug: no kernel may survive
            kernel.kill_all_kernels()
        if server is not None:
            server.close()


async def _run_all(execute, root: Path, chapters: list[ParsedChapter], jobs: int,
                   timeout_s: float, fig_format: str, server) -> list[ChapterRun]:
    import asyncio
    alive = asyncio.Semaphore(jobs + 1)     # kernels starting, waiting or running
    running = asyncio.Semaphore(jobs)       # chapters executing

    async def one(parsed: ParsedChapter) -> ChapterRun:
        async with alive:
            starting = asyncio.ensure_future(execute.start_kernel(root, timeout_s, fig_format, server))
            try:
                async with running:
                    return await execute.run_chapter_async(root, parsed, timeout_s, starting)
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
