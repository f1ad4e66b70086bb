"""Incremental rendering: reuse pandoc and typst outputs whose inputs did not change.

Every expensive step of the built-in render (a chapter's collect and apply passes,
the PDF's typst source, the PDF; docs/performance.md, item 4) is a pure function of
its inputs. Each output is an entry of the store's `render/<format>` cache, keyed on
those inputs, the pandoc and typst installed and the renderer's code
(`bookcheck.render` with its Lua filters, and what it imports); a later render with
the same inputs reads it instead of running pandoc or typst. The page template
(html.py) is cheap Python and always runs, so a template change shows at once.

The output directory is still built in a staging directory and swapped in
atomically (render/__init__.py); only the work is skipped. `RENDERED` counts
the pandoc/typst runs a render really made (`what` of each), so tests can
observe what was re-rendered without timing anything.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bookcheck import store
from bookcheck.binaries import package_dir  # noqa: F401 (search.py, uptodate.py)

RENDER = "render"               # the store folder of the renders: `render/<fmt>`, pdf_stamp's
FACTS = ".facts"                # the last render's collected facts (a record: prune keeps it)
RENDERED: list[str] = []        # `what` of every pandoc/typst run not served from the cache


def tools() -> tuple:
    """The pandoc binary (the pypandoc-binary package, or pandoc on PATH) and the
    typst package, by their files' sizes and mtimes."""
    return (store.stamp(package_dir("pypandoc")), store.stamp(shutil.which("pandoc")),
            store.stamp(package_dir("typst")))


class RenderCache(store.Store):
    """Content-addressed outputs of one format (the store's `render/<fmt>`)."""

    def __init__(self, root: Path, fmt: str):
        super().__init__(root, f"{RENDER}/{fmt}", ("bookcheck.render",), *tools())

    get_bytes = store.Store.get

    def get(self, key: str) -> str | None:
        data = self.get_bytes(key)
        return None if data is None else data.decode("utf-8")

    def copy_to(self, key: str, target: Path) -> bool:
        """Write a stored file output to `target`; False when absent."""
        data = self.get_bytes(key)
        if data is not None:
            Path(target).write_bytes(data)
        return data is not None

    def previous_facts(self) -> dict[str, dict]:
        """Each chapter's collected facts (headings, labels) as the last render found them."""
        facts = self.get_json(FACTS, {})
        return facts if isinstance(facts, dict) else {}

    def remember_facts(self, facts: dict[str, dict]) -> None:
        if facts != self.previous_facts():
            self.put_json(FACTS, facts)


@dataclass(frozen=True)
class Job:
    """One pandoc run: the inputs its output depends on, a name, and how to run it
    (`store`: False for a run that stores what it produced itself)."""
    key_parts: tuple
    what: str
    run: Callable[[], str]
    store: bool = True


def lookup(cache: "RenderCache | None", jobs: list[Job]) -> list[str | None]:
    """Each job's stored output, or None when it must run (always None without a cache)."""
    if cache is None:
        return [None] * len(jobs)
    return [cache.get(cache.key(*job.key_parts)) for job in jobs]


def run_missing(cache: "RenderCache | None", jobs: list[Job], outputs: list[str | None],
                alongside: list[Job] = ()) -> list[str]:
    """`outputs` with every None filled by running its job; the runs (and the
    `alongside` jobs, whose outputs are only stored) go at once, a thread each up
    to the core count, and are stored. No thread starts for fewer than two runs."""
    todo = [i for i, text in enumerate(outputs) if text is None]
    runs = [jobs[i] for i in todo] + list(alongside)
    if not runs:
        return list(outputs)
    if len(runs) == 1:              # (a prose edit) no thread, no pool to import (~10 ms)
        done = [_run_and_store(cache, runs[0])]
    else:
        from concurrent.futures import ThreadPoolExecutor
        workers = min(len(runs), max(2, os.cpu_count() or 2))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = list(pool.map(lambda job: _run_and_store(cache, job), runs))
    outputs = list(outputs)
    for i, text in zip(todo, done):
        outputs[i] = text
    return outputs


def _run_and_store(cache: "RenderCache | None", job: Job) -> str:
    RENDERED.append(job.what)
    text = job.run()
    if cache is not None and job.store:
        cache.put(cache.key(*job.key_parts), text)
    return text


def run_jobs(cache: "RenderCache | None", jobs: list[Job]) -> list[str]:
    """Each job's output: stored ones read in this thread, the others run and stored."""
    return run_missing(cache, jobs, lookup(cache, jobs))


def cached_run(cache: "RenderCache | None", key_parts: tuple, what: str, run) -> str:
    """`run()` (a pandoc call returning text), or its stored output for these inputs."""
    return run_jobs(cache, [Job(key_parts, what, run)])[0]


def context_for_key(context_file: Path, markdown: str, chapter_path: str) -> dict:
    """A chapter's apply context reduced to what can change its output: the refs it
    can mention (their id appears in its markdown, or they are its own labels)."""
    ctx = json.loads(Path(context_file).read_text(encoding="utf-8"))
    ctx.pop("out", None)
    refs = ctx.get("refs") or {}
    ctx["refs"] = {rid: ref for rid, ref in refs.items() if rid in markdown}
    ctx["path"] = chapter_path
    return ctx


def files_digest(paths) -> list[str]:
    """Digests of input files (bibliography, CSL) named on pandoc's command line."""
    return [f"{os.path.basename(str(p))}:{store.file_digest(p)}" for p in paths if p]
