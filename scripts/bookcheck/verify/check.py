"""Check the whole book: read, run (cache or kernels), cross-refs, citations, ledger.

`check_book` never raises on bad content: every problem is a Finding. It only
asks for runs (bookcheck.run.schedule.run_chapters owns kernels and the fork
server); a fully cached check does not import Jupyter.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck.model import ChapterRun, Finding, Kind, ParsedChapter
from bookcheck.read.book import read_book
from bookcheck.read.cell_options import CAPTION_OPTIONS
from bookcheck.read.project import Project, unlisted_chapters, unlisted_note
from bookcheck.run.schedule import opaque_notes, run_chapters
from bookcheck.read import CONFIG
from bookcheck.verify import baseline, control, ledger
from bookcheck.verify.blame import kernel_refused, once_per_book
from bookcheck.verify.figalt import missing_fig_alt
from bookcheck.verify.generated import (ALT_ATTRIBUTE, caption_fix, option_at,
                                      caption_inlines, with_generated)
from bookcheck.verify.inline_math import inline_math
from bookcheck.verify.published import cut_outputs
from bookcheck.verify.pandoc_lint import pandoc_findings
from bookcheck.verify.prose_numbers import find_prose_numbers
from bookcheck.verify.refs import citations, cross_references
from bookcheck.verify.run_inputs import later_writers, mixed_inputs


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
    notes: list[str] = field(default_factory=list)    # said once, not failures (opaque runs)
    verdict: baseline.Verdict | None = None  # the baseline's and suppressions' share (findings:
                                             # the rest); baseline_mode: "write", "prune", None
    baseline_mode: str | None = None

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def cached_chapters(self) -> int:
        return sum(1 for run in self.runs.values() if run.cached)


def check_book(root: Path, force: bool = False, jobs: int | None = None,
               update_ledger: bool = False, timeout_s: float | None = None,
               audit: bool = False, profile: str | None = None,
               baseline_mode: str | None = None) -> BookResult:
    """Check every chapter and appendix of the book at `root`.

    force: ignore the cache; audit: execute every chapter and report each one the
    cache would have served differently (`stale-cache`, bookcheck.run.audit);
    jobs: chapters run at once (default: cores);
    update_ledger: rewrite numbers.lock (only when there is no other finding);
    timeout_s: per cell (default: _quarto.yml `execute: timeout`, else 120 s);
    profile: the Quarto profile(s) (read/project.py: load_project);
    baseline_mode: "write" records every finding as the baseline, "prune" drops its
    gone entries (verify/baseline.py); either way `findings` holds only the findings
    neither the baseline nor a suppression accepts, `verdict` the others.
    """
    started = time.perf_counter()
    book = read_book(Path(root), profile)
    project = book.project
    result = BookResult(project=project, parsed=book.parsed, findings=list(book.findings),
                        baseline_mode=baseline_mode)
    # prune the cache only after a complete run of a valid project (a YAML typo or a
    # missing chapter file must not throw away every entry)
    chapters = list(result.parsed.values())
    if audit:
        from bookcheck.run import audit as cache_audit
        from bookcheck.run.schedule import reusable
        served = cache_audit.served(project.root, chapters, run_options(project),
                                    timeout_s or project.timeout_s, reusable)
    controls = control.snapshot(project, chapters)
    result.runs = run_some(project, chapters, force or audit, jobs, timeout_s,
                           prune=not book.findings)
    changed_controls = control.changed(project, controls)
    if audit:
        suspects = cache_audit.unexplained(chapters, served, result.runs)
        again = (run_some(project, suspects, True, jobs, timeout_s, record_times=False)
                 if suspects else {})
        result.findings += cache_audit.findings(chapters, served, result.runs, again)
    result.notes = opaque_notes(chapters, result.runs, project.root) + unlisted_notes(project, chapters)
    for rel, parsed in result.parsed.items():
        result.findings += parsed.findings
        result.findings += [parsed.relocate(f) for f in result.runs[rel].findings]
        result.findings += [parsed.relocate(f) for f in inline_math(parsed, result.runs[rel])]
        result.findings += cut_outputs(parsed, result.runs[rel])
    result.findings = once_per_book(result.findings)
    for check in text_checks(project):
        result.findings += [f for parsed in result.parsed.values() for f in check(parsed)]
    result.findings += changed_controls
    result.findings += later_writers(project.root, result.parsed, result.runs)
    if update_ledger:           # numbers from two versions of an input are never accepted
        result.findings += mixed_inputs(result.parsed, result.runs)
    published = {rel: ledger.collect(parsed, result.runs[rel])
                 for rel, parsed in result.parsed.items()}
    failed = [rel for rel, run in result.runs.items() if run.findings]
    generated = {rel: with_generated(parsed, result.runs.get(rel))   # refs in cell outputs
                 for rel, parsed in result.parsed.items()}
    book_wide(project, generated, published, failed, result, update_ledger, baseline_mode)
    result.seconds = time.perf_counter() - started
    return result


def _relocated(parsed: dict[str, ParsedChapter], findings: list[Finding]) -> list[Finding]:
    """Findings moved from a chapter's expanded text (includes) to the file each line came from."""
    return [parsed[f.path].relocate(f) if f.path in parsed else f for f in findings]


def unlisted_notes(project: Project, chapters: list[ParsedChapter]) -> list[str]:
    """A note (not a failure) per .qmd file the book leaves out silently."""
    included = {rel for parsed in chapters for rel in parsed.includes}
    return [unlisted_note(rel) for rel in unlisted_chapters(project, included)]


def text_checks(project: Project) -> list:
    """The per-chapter checks of the source text (those _quarto.yml asks for, and the
    caption check), in report order
    (each check's findings for every chapter, after every chapter's own findings)."""
    checks = []
    if project.literal_numbers:
        checks.append(lambda parsed: literal_numbers({parsed.path: parsed}))
    if project.fig_alt:
        checks.append(missing_fig_alt)
    checks.append(caption_inlines)      # always: a value in a caption is left as code
    checks.append(lambda parsed: pandoc_findings(project.root, parsed))   # always: pandoc's warnings
    return [lambda parsed, check=check: [parsed.relocate(f) for f in check(parsed)]
            for check in checks]


def run_some(project: Project, chapters: list[ParsedChapter], force: bool, jobs: int | None,
             timeout_s: float | None, record_times: bool = True,
             prune: bool = False) -> dict[str, ChapterRun]:
    """Runs of `chapters` (cache or kernels); records the executed ones' times for sharding
    (not a shard's: its siblings must plan from the same times; the merge records them)."""
    refused = {p.path: kernel_refused(p) for p in chapters}
    runs = run_chapters(project.root, [p for p in chapters if refused[p.path] is None],
                        options=run_options(project), timeout_s=timeout_s or project.timeout_s,
                        force=force, jobs=jobs, prune=prune)
    runs.update({rel: run for rel, run in refused.items() if run is not None})
    executed = {rel: r.seconds for rel, r in runs.items() if not r.cached}
    if record_times and executed:
        from bookcheck.verify.shard import save_timings     # (not imported by a cached check)
        save_timings(project.root, executed)
    return runs


def run_options(project: Project) -> dict:
    """Part of every cache key (with the timeout): every execute option, the figure
    format, the working directory."""
    return {"execute": project.execute,
            "figure": project.figure, "execute-dir": project.execute_dir}


def book_wide(project: Project, parsed: dict[str, ParsedChapter],
              published: dict[str, dict[str, str]], failed: list[str], result,
              update_ledger: bool = False, baseline_mode: str | None = None) -> None:
    """The checks that need every chapter, their findings added to result.findings:
    cross-references and citations; then the baseline and suppressions settle every
    finding so far (`settle`); then numbers.lock, compared or written unless a finding
    left blocks it.

    `parsed` needs only path, labels, references and citations; `published`
    holds each chapter's numbers (ledger.collect) and `failed` the chapters
    whose run did not reach its end. Sets result.ledger_compared/_skipped.
    """
    result.findings += _relocated(parsed, cross_references(parsed, project.type)
                                  + citations(project, parsed))
    settle(result, project.root, parsed, baseline_mode)
    result.findings += _ledger(project.root, published, failed, result, update_ledger,
                               bool(result.findings))


def settle(result, root: Path, parsed: dict[str, ParsedChapter], mode: str | None) -> None:
    """result.findings judged by the baseline and the suppressions in the sources
    (verify/baseline.py): result.verdict, and the findings they leave."""
    paths = [CONFIG] + [rel for chapter in parsed.values()
                        for rel in [chapter.path, *chapter.includes]]
    result.verdict = baseline.judge(root, result.findings, baseline.CHECK, paths, mode)
    result.findings = list(result.verdict.active)


def literal_numbers(parsed: dict[str, ParsedChapter]) -> list[Finding]:
    """A number typed into prose (not computed, not in the ledger) is a finding."""
    return [Finding(rel, hit.line, Kind.LITERAL_NUMBER,
                    f"number typed in prose: {hit.text!r}; "
                    f"{_publish_advice(chapter, hit.line, hit.col)} "
                    "or allowlist it in scripts/bookcheck/verify/prose_numbers.py",
                    col=hit.col)
            for rel, chapter in parsed.items()
            for hit in find_prose_numbers(chapter.text, rel)]


def _publish_advice(parsed: ParsedChapter, line: int, col: int) -> str:
    """How to publish the number typed at `line`:`col` of the chapter as a computed
    value: an inline value, except in a cell's caption option, which cannot hold one,
    and in alt text, which cannot carry one (generated.caption_fix)."""
    source = parsed.text.splitlines()[line - 1]
    option = option_at(parsed, line)
    if source[:col - 1].endswith("`") and "{python}" in source[:col - 1]:
        return ("a unit or suffix glued to an inline value changes what the reader reads "
                "(the ledger records the value without it): put it in the value's text "
                "(`fmt(...)`, an f-string);")
    if source.lstrip()[:1].isdigit() and col == len(source) - len(source.lstrip()) + 1 \
            and option is None:
        return ("the first number of an ordered list is shown as typed: start the list "
                "at 1 (the renderer numbers it)")
    if option in CAPTION_OPTIONS:
        return f"a cell's `{option}` cannot hold an inline value: {caption_fix(option)};"
    if any(m.start() < col <= m.end() for m in ALT_ATTRIBUTE.finditer(source)):
        return f"{caption_fix('fig-alt')};"
    return "publish it from an inline value (`{python} name_str`)"


def _ledger(root: Path, published: dict[str, dict[str, str]], failed_paths: list[str], result,
            update: bool, blocked: bool) -> list[Finding]:
    """Compare the published numbers with numbers.lock (or rewrite it).

    A chapter that did not run to the end publishes partial numbers: its keys
    are left out of the comparison (its findings say what went wrong).
    """
    if not published:
        return []
    failed = {ledger.chapter_name(rel) for rel in failed_paths}
    result.ledger_skipped = sorted(rel for rel in published if ledger.chapter_name(rel) in failed)
    new: dict[str, str] = {}
    for rel, entries in published.items():
        if ledger.chapter_name(rel) not in failed:
            new.update(entries)
    path = root / ledger.LOCK_NAME
    if update:
        if blocked:
            return []           # never accept the numbers of a failing book
        try:
            ledger.write(path, new)
        except OSError as exc:
            return [Finding(ledger.LOCK_NAME, 0, Kind.LEDGER, f"cannot write {ledger.LOCK_NAME}: {exc}")]
        result.ledger_compared = True
        return []
    result.ledger_compared = True
    if not path.exists():
        if not new:
            return []           # nothing published, nothing to record
        return [Finding(ledger.LOCK_NAME, 0, Kind.LEDGER,
                        f"{ledger.LOCK_NAME} is missing ({len(new)} published numbers): run `bookcheck numbers`")]
    try:
        old = ledger.read(path)
    except (OSError, ValueError) as exc:        # a directory, bad bytes
        return [Finding(ledger.LOCK_NAME, 0, Kind.LEDGER,
                        f"cannot read {ledger.LOCK_NAME} ({type(exc).__name__}: {exc}); "
                        "fix it or run `bookcheck numbers`")]
    if old.problems:            # conflict markers, duplicates, garbage: compare nothing
        return [Finding(ledger.LOCK_NAME, line, Kind.LEDGER, reason)
                for line, reason in old.problems]
    for key in [k for k in old if k.split(ledger.SEP, 1)[0] in failed]:
        del old[key]
    return list(ledger.diff(old, new))
