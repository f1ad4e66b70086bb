"""Run one shard of a check, and merge the partial results into one verdict.

The per-chapter stage is the one `check_book` uses (parse, cache, execute);
the book-wide stage (cross-references, citations, numbers.lock) is the one
`check_book` runs, applied here to the union of the partials.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from scripts import ledger
from scripts.check import (CELL_DEFAULTS, _config_timeout, _runs, apply_execute_defaults,
                           citations, cross_references, figure_format)
from scripts.model import Finding, ParsedChapter
from scripts.project import load_project
from scripts.qmd import decode, parse_chapter
from scripts.verify import shard as sh


def check_shard(root: Path, shard: sh.Shard, force: bool = False, jobs: int | None = None,
                timeout_s: float | None = None, out: Path | None = None) -> sh.ShardOutcome:
    """Check the chapters of `shard` and write its partial result (default under _build/shards/)."""
    started = time.perf_counter()
    root = Path(root)
    project = load_project(root)
    documents = project.documents
    costs = sh.chapter_costs(root, documents, sh.load_timings(root))
    shards = sh.plan(documents, costs, shard.count)
    mine = shards[shard.index - 1]
    records: dict[str, dict] = {}
    parsed_all: dict[str, ParsedChapter] = {}
    for rel in mine:
        try:
            data = (root / rel).read_bytes()
        except OSError as exc:
            records[rel] = sh.chapter_record(None, None, [Finding(
                rel, 0, "missing-chapter", f"cannot read: {exc.strerror}")], {})
            continue
        text, problems = decode(rel, data)
        parsed = parse_chapter(rel, text)
        parsed.findings[:0] = problems
        parsed_all[rel] = parsed
    timeout_s = timeout_s or _config_timeout(project)
    defaults = {k: v for k, v in project.execute.items() if k in CELL_DEFAULTS}
    for parsed in parsed_all.values():
        apply_execute_defaults(parsed, defaults)
    options = {**defaults, "fig-format": figure_format(project.config)}
    runs = _runs(root, list(parsed_all.values()), force, jobs, timeout_s, options)
    findings: list[Finding] = []
    for rel, parsed in parsed_all.items():
        run = runs[rel]
        own = parsed.findings + run.findings
        records[rel] = sh.chapter_record(parsed, run, own, ledger.collect(parsed, run))
    for rel in mine:
        findings += [Finding(**f) for f in records[rel]["findings"]]
    sh.save_timings(root, {rel: run.seconds for rel, run in runs.items() if not run.cached})
    seconds = time.perf_counter() - started
    data = sh.partial(shard, shards, documents, {rel: records[rel] for rel in mine}, seconds)
    path = sh.write_partial(out or sh.default_partial_path(root, shard), data)
    return sh.ShardOutcome(path, shard, mine, findings, seconds)


@dataclass
class MergedResult:
    """The verdict of a merged sharded check (the same findings as one unsharded run)."""
    root: Path
    findings: list[Finding] = field(default_factory=list)
    ledger_compared: bool = False
    ledger_skipped: list[str] = field(default_factory=list)
    ledger_old: dict[str, str] | None = None    # numbers.lock as compared (None: not read)
    ledger_new: dict[str, str] | None = None    # the published numbers compared with it
    chapters: int = 0
    cells: int = 0
    inlines: int = 0
    invariants: int = 0
    cached_chapters: int = 0
    shards: int = 0
    seconds: float = 0.0        # the slowest shard

    @property
    def ok(self) -> bool:
        return not self.findings


def merge(root: Path, paths: list[Path]) -> MergedResult:
    """Combine the partials at `paths` (ShardError when they are not one complete plan)."""
    root = Path(root)
    project = load_project(root)
    merged = sh.combine(sh.read_all(paths))
    if merged.documents != project.documents:
        raise sh.ShardError(f"{paths[0]}: the partials list other chapters than {root}/_quarto.yml")
    result = MergedResult(root=root, shards=merged.shards, seconds=merged.seconds_slowest)
    records = [rec for rec in merged.records.values() if rec["parsed"]]
    result.chapters = len(records)
    result.cells = sum(rec["cells"] for rec in records)
    result.inlines = sum(rec["inlines"] for rec in records)
    result.invariants = sum(rec["invariants"] for rec in records)
    result.cached_chapters = sum(1 for rec in records if rec["cached"])
    parsed = merged.parsed_stubs()
    result.findings = list(project.findings) + sh.chapter_findings(merged)
    result.findings += cross_references(parsed)
    result.findings += citations(project, parsed)
    result.findings += compare_ledger(root, merged, result)
    sh.save_timings(root, {rel: rec["seconds"] for rel, rec in merged.records.items()
                           if rec["parsed"] and not rec["cached"]})
    return result


def compare_ledger(root: Path, merged: sh.MergedChapters, result: MergedResult) -> list[Finding]:
    """numbers.lock against the union's published numbers, as an unsharded check compares them."""
    recs = {rel: rec for rel, rec in merged.records.items() if rec["parsed"]}
    if not recs:
        return []
    failed = {ledger.chapter_name(rel) for rel, rec in recs.items() if rec["run_failed"]}
    result.ledger_skipped = sorted(rel for rel in recs if ledger.chapter_name(rel) in failed)
    new: dict[str, str] = {}
    for rel, rec in recs.items():
        if ledger.chapter_name(rel) not in failed:
            new.update(rec["entries"])
    result.ledger_new = new
    result.ledger_compared = True
    path = root / ledger.LOCK_NAME
    name = ledger.LOCK_NAME
    if not path.exists():
        if not new:
            return []
        return [Finding(name, 0, "ledger",
                        f"{name} is missing ({len(new)} published numbers): run `make numbers`")]
    try:
        old = ledger.read(path)
    except (OSError, ValueError) as exc:
        return [Finding(name, 0, "ledger", f"cannot read {name} ({type(exc).__name__}: {exc}); "
                        "fix it or run `make numbers`")]
    for key in [k for k in old if k.split(ledger.SEP, 1)[0] in failed]:
        del old[key]
    result.ledger_old = dict(old)
    return list(ledger.diff(old, new))
