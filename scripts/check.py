"""Check the whole book: parse, cache or execute (in parallel), cross-refs, ledger.

`check_book` never raises on bad content: every problem is a Finding. A fully
cached check does not import Jupyter (execute.py is imported only when a
chapter must run).
"""
from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from scripts.model import ChapterRun, Finding, ParsedChapter
from scripts.project import CONFIG, Project, load_project
from scripts.qmd import decode, parse_chapter

LEDGER_FILE = "numbers.lock"
BIB_KEY = re.compile(r"^\s*@\w+\s*[{(]\s*([^,\s]+)\s*,", re.MULTILINE)
UNSTABLE_KINDS = {"timeout", "kernel-died"}     # never cached: may be transient
CELL_DEFAULTS = ("eval", "echo", "output", "warning", "error", "include")


@dataclass
class BookResult:
    """Everything a check found and produced; the renderer reuses parsed + runs.

    parsed[path].cells[i].options already include the execute-option cascade
    (_quarto.yml `execute:`, then front matter `execute:`, then the cell).
    """
    project: Project
    parsed: dict[str, ParsedChapter] = field(default_factory=dict)
    runs: dict[str, ChapterRun] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    ledger_compared: bool = False       # numbers.lock was compared (or written)
    ledger_skipped: list[str] = field(default_factory=list)   # chapters left out of it

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def cached_chapters(self) -> int:
        return sum(1 for run in self.runs.values() if run.cached)


def check_book(root: Path, force: bool = False, jobs: int | None = None,
               update_ledger: bool = False, timeout_s: float | None = None) -> BookResult:
    """Check every chapter and appendix of the book at `root`.

    force: ignore the cache; jobs: chapters run at once (default: cores);
    update_ledger: rewrite numbers.lock (only when there is no other finding);
    timeout_s: per cell (default: _quarto.yml `execute: timeout`, else 120 s).
    """
    started = time.perf_counter()
    root = Path(root)
    project = load_project(root)
    result = BookResult(project=project, findings=list(project.findings))
    for rel in project.documents:
        try:
            data = (root / rel).read_bytes()
        except OSError as exc:
            result.findings.append(Finding(rel, 0, "missing-chapter", f"cannot read: {exc.strerror}"))
            continue
        text, problems = decode(rel, data)
        parsed = parse_chapter(rel, text)
        parsed.findings[:0] = problems
        result.parsed[rel] = parsed
    timeout_s = timeout_s or _config_timeout(project)
    defaults = {k: v for k, v in project.execute.items() if k in CELL_DEFAULTS}
    for parsed in result.parsed.values():
        apply_execute_defaults(parsed, defaults)
    options = {**defaults, "fig-format": figure_format(project.config)}   # all part of cache keys
    result.runs = _runs(root, list(result.parsed.values()), force, jobs, timeout_s, options)
    for rel, parsed in result.parsed.items():
        result.findings += parsed.findings
        result.findings += result.runs[rel].findings
    result.findings += cross_references(result.parsed)
    result.findings += citations(project, result.parsed)
    result.findings += _ledger(root, result, update_ledger)
    result.seconds = time.perf_counter() - started
    return result


def apply_execute_defaults(parsed: ParsedChapter, project_defaults: dict) -> None:
    """Quarto's option cascade: _quarto.yml `execute:`, then front matter, then the cell."""
    front = parsed.front_matter.get("execute")
    defaults = dict(project_defaults)
    if isinstance(front, dict):
        defaults.update({k: v for k, v in front.items() if k in CELL_DEFAULTS})
    if defaults:
        for cell in parsed.cells:
            cell.options = {**defaults, **cell.options}


def _config_timeout(project: Project) -> float:
    value = project.execute.get("timeout")
    try:
        return float(value) if value and float(value) > 0 else 120.0
    except (TypeError, ValueError):
        return 120.0


def _cache_module():
    try:
        from scripts import cache
        return cache
    except ImportError:
        return None


def _runs(root: Path, chapters: list[ParsedChapter], force: bool, jobs: int | None,
          timeout_s: float, options: dict) -> dict[str, ChapterRun]:
    """Load each chapter's run from the cache, executing the ones that miss."""
    cache = _cache_module()
    keys: dict[str, str] = {}
    runs: dict[str, ChapterRun] = {}
    todo: list[ParsedChapter] = []
    mlsys = cache.mlsys_digest(root) if cache else None
    for parsed in chapters:
        key = cache.chapter_key(root, parsed, options, mlsys=mlsys) if cache else ""
        keys[parsed.path] = key
        run = None if (force or not cache) else cache.load(root, key)
        if run is not None:
            run.cached = True
            runs[parsed.path] = run
        else:
            todo.append(parsed)
    if todo:
        for run in execute_chapters(root, todo, jobs, timeout_s, options["fig-format"]):
            run.cache_key = keys[run.path]
            runs[run.path] = run
            if cache and not any(f.kind in UNSTABLE_KINDS for f in run.findings):
                try:
                    cache.store(root, run.cache_key, run)
                except OSError:
                    pass        # an unwritable _build/ costs speed, not correctness
    return {p.path: runs[p.path] for p in chapters}


def execute_chapters(root: Path, chapters: list[ParsedChapter], jobs: int | None,
                     timeout_s: float, fig_format: str = "") -> list[ChapterRun]:
    """Run chapters concurrently, each in its own kernel; kernels start ahead of need."""
    from scripts import forkserver
    server = forkserver.start(root, chapters)     # warms up while we import Jupyter
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chapters)))
    try:
        import asyncio
        from scripts import execute     # lazy: imports Jupyter
        return asyncio.run(_run_all(execute, root, chapters, jobs, timeout_s, fig_format, server))
    finally:
        if "scripts.kernel" in sys.modules:       # Ctrl-C or a bug: no kernel may survive
            sys.modules["scripts.kernel"].kill_all_kernels()
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


def figure_format(config: dict) -> str:
    """`fig-format` of the first output format that sets one (Quarto's default: png)."""
    formats = config.get("format")
    if isinstance(formats, dict):
        for options in formats.values():
            if isinstance(options, dict) and options.get("fig-format"):
                return str(options["fig-format"])
    return ""


def cross_references(parsed: dict[str, ParsedChapter]) -> list[Finding]:
    """Unknown @references and labels defined more than once (book-wide)."""
    findings: list[Finding] = []
    first: dict[str, tuple[str, int]] = {}
    for chapter in parsed.values():
        for label, line in chapter.labels:
            if label in first:
                path0, line0 = first[label]
                findings.append(Finding(chapter.path, line, "duplicate-label",
                                        f"label {label} is already defined at {path0}:{line0}",
                                        label=label))
            else:
                first[label] = (chapter.path, line)
    for chapter in parsed.values():
        for label, line, col in chapter.references:
            if label not in first:
                findings.append(Finding(chapter.path, line, "unknown-ref",
                                        f"@{label} refers to a label no chapter defines",
                                        col=col))
    return findings


def citations(project: Project, parsed: dict[str, ParsedChapter]) -> list[Finding]:
    """Citations whose key is not in the bibliography named by _quarto.yml."""
    cited = [(c, key, line, col) for c in parsed.values() for key, line, col in c.citations]
    if not cited:
        return []
    keys: set[str] = set()
    bib = project.bibliography
    if bib:
        try:
            keys = set(BIB_KEY.findall((project.root / bib).read_text("utf-8", errors="replace")))
        except OSError:
            return [Finding(CONFIG, 0, "bibliography", f"bibliography file not found: {bib}")]
    where = f"in {bib}" if bib else "(no bibliography in _quarto.yml)"
    return [Finding(c.path, line, "unknown-citation", f"@{key}: no such citation key {where}",
                    col=col)
            for c, key, line, col in cited if key not in keys]


def _ledger(root: Path, result: BookResult, update: bool) -> list[Finding]:
    """Compare the published numbers with numbers.lock (or rewrite it).

    A chapter that did not run to the end publishes partial numbers: its keys
    are left out of the comparison (its findings say what went wrong).
    """
    try:
        from scripts import ledger
    except ImportError:
        return []
    if not result.parsed:
        return []
    failed = {ledger.chapter_name(rel) for rel, run in result.runs.items() if run.findings}
    result.ledger_skipped = sorted(rel for rel in result.runs
                                   if ledger.chapter_name(rel) in failed)
    new: dict[str, str] = {}
    for rel, parsed in result.parsed.items():
        if ledger.chapter_name(rel) not in failed:
            new.update(ledger.collect(parsed, result.runs[rel]))
    path = root / LEDGER_FILE
    if update:
        if result.findings:
            return []           # never accept the numbers of a failing book
        try:
            ledger.write(path, new)
        except OSError as exc:
            return [Finding(LEDGER_FILE, 0, "ledger", f"cannot write {LEDGER_FILE}: {exc}")]
        result.ledger_compared = True
        return []
    result.ledger_compared = True
    if not path.exists():
        if not new:
            return []           # nothing published, nothing to record
        return [Finding(LEDGER_FILE, 0, "ledger",
                        f"{LEDGER_FILE} is missing ({len(new)} published numbers): run `make numbers`")]
    try:
        old = ledger.read(path)
    except (OSError, ValueError) as exc:        # a directory, bad bytes, bad lines
        return [Finding(LEDGER_FILE, 0, "ledger",
                        f"cannot read {LEDGER_FILE} ({type(exc).__name__}: {exc}); "
                        "fix it or run `make numbers`")]
    for key in [k for k in old if k.split(ledger.SEP, 1)[0] in failed]:
        del old[key]
    return list(ledger.diff(old, new))
