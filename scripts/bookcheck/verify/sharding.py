"""Run one shard of a check, and merge the partial results into one verdict.

A shard reads the whole book (cheap), runs only its chapters (`run_some`, as
`check_book` does) and records them (shard.chapter_record). The merge applies
`check_book`'s own book-wide stage (`book_wide`: cross-references, citations,
numbers.lock) to the union of the partials, so both paths share every rule.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bookcheck.model import Finding, finding_from_dict
from bookcheck.read.book import read_book
from bookcheck.read.project import load_project
from bookcheck.verify import control, ledger
from bookcheck.verify import shard as sh
from bookcheck.verify.check import book_wide, run_some, text_checks
from bookcheck.verify.generated import with_generated
from bookcheck.verify.inline_math import inline_math
from bookcheck.verify.published import cut_outputs


def check_shard(root: Path, shard: sh.Shard, force: bool = False, jobs: int | None = None,
                timeout_s: float | None = None, out: Path | None = None,
                profile: str | None = None) -> sh.ShardOutcome:
    """Check the chapters of `shard` and write its partial result (default under _bookcheck/shards/)."""
    started = time.perf_counter()
    book = read_book(Path(root), profile)
    project = book.project
    root = project.root
    documents = project.documents
    sources = sh.source_digests(root, project.source_files())
    shards = sh.plan(documents, sh.chapter_costs(root, documents, sh.load_timings(root)),
                     shard.count)
    mine = shards[shard.index - 1]
    controls = control.snapshot(project, [book.parsed[rel] for rel in mine if rel in book.parsed])
    runs = run_some(project, [book.parsed[rel] for rel in mine if rel in book.parsed],
                    force, jobs, timeout_s, record_times=False)
    records: dict[str, dict] = {}
    for rel in mine:
        parsed = book.parsed.get(rel)
        if parsed is None:          # unreadable: its findings are among the book's
            records[rel] = sh.chapter_record(None, None, [f for f in book.findings
                                                          if f.path == rel], {})
            continue
        run = runs[rel]
        records[rel] = sh.chapter_record(with_generated(parsed, run), run, parsed.findings + [parsed.relocate(f) for f in run.findings + inline_math(parsed, run)] + cut_outputs(parsed, run),
                                         ledger.collect(parsed, run),
                                         [check(parsed) for check in text_checks(project)])
    changed = control.changed(project, controls)
    seconds = time.perf_counter() - started
    data = sh.partial(shard, shards, documents, records, seconds, sources)
    data["profiles"] = list(project.profiles)
    data["control"] = [asdict(f) for f in changed]
    path = sh.write_partial(out or sh.default_partial_path(root, shard), data)
    findings = [f for rel in mine for f in sh.record_findings(records[rel])] + changed
    return sh.ShardOutcome(path, shard, mine, findings, seconds)


@dataclass
class MergedResult:
    """The verdict of a merged sharded check (the same findings as one unsharded run)."""
    root: Path
    findings: list[Finding] = field(default_factory=list)
    ledger_compared: bool = False
    ledger_skipped: list[str] = field(default_factory=list)
    chapters: int = 0
    cells: int = 0
    inlines: int = 0
    invariants: int = 0
    cached_chapters: int = 0
    shards: int = 0
    seconds: float = 0.0        # the slowest shard
    set_aside: list[Path] = field(default_factory=list)   # stale partials not merged

    @property
    def ok(self) -> bool:
        return not self.findings


def merge(root: Path, paths: list[Path], profile: str | None = None) -> MergedResult:
    """Combine the partials at `paths` (ShardError when they are not one complete plan,
    or were checked under other Quarto profiles than the project is read with here)."""
    project = load_project(Path(root), profile)
    partials = sh.read_all(paths)
    sh.same_profiles(partials, project.profiles)
    merged, aside = sh.combine(partials,
                               sh.source_digests(project.root, project.source_files()))
    if merged.documents != project.documents:
        raise sh.ShardError(f"{paths[0]}: the partials list other chapters than "
                            f"{project.root}/_quarto.yml")
    result = MergedResult(root=project.root, shards=merged.shards, seconds=merged.seconds_slowest,
                          set_aside=aside)
    records = {rel: rec for rel, rec in merged.records.items() if rec["parsed"]}
    result.chapters = len(records)
    result.cells = sum(rec["cells"] for rec in records.values())
    result.inlines = sum(rec["inlines"] for rec in records.values())
    result.invariants = sum(rec["invariants"] for rec in records.values())
    result.cached_chapters = sum(1 for rec in records.values() if rec["cached"])
    result.findings = list(project.findings) + sh.chapter_findings(merged)
    result.findings += list(dict.fromkeys(finding_from_dict(f) for data in merged.partials
                                          for f in data.get("control", [])))
    published = {rel: rec["entries"] for rel, rec in records.items()}
    failed = [rel for rel, rec in records.items() if rec["run_failed"]]
    book_wide(project, merged.parsed_stubs(), published, failed, result)
    sh.save_timings(project.root, {rel: rec["seconds"] for rel, rec in records.items()
                                   if not rec["cached"]})
    return result
