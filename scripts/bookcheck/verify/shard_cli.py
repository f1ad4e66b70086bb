"""The command-line side of sharding: `check --shard i/N` and `merge PARTIAL...`."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from bookcheck.verify import github
from bookcheck.verify.shard import Shard, ShardError


def run_shard(root: Path, spec: str, out: Path | None, force: bool, jobs: int | None,
              timeout_s: float | None, stream: TextIO = sys.stdout, profile: str | None = None) -> int:
    """Check one shard, write its partial result; 0 once written (the verdict is the merge's)."""
    from bookcheck.verify.report import format_finding
    from bookcheck.verify.sharding import check_shard
    try:
        shard = Shard.parse(spec)
    except ShardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    outcome = check_shard(root, shard, force=force, jobs=jobs, timeout_s=timeout_s, out=out,
                          profile=profile)
    for finding in outcome.findings:
        print(format_finding(finding), file=stream)
    n = len(outcome.findings)
    print(f"shard {shard}: {len(outcome.chapters)} chapter{'s' * (len(outcome.chapters) != 1)} "
          f"checked, {n} chapter finding{'s' * (n != 1)} (the verdict comes from "
          f"`bookcheck merge`), {outcome.seconds:.2f} s -> {outcome.path}", file=stream)
    return 0


def run_merge(root: Path, paths: list[Path], stream: TextIO = sys.stdout,
              profile: str | None = None) -> int:
    """Merge partial results; print the report (and GitHub annotations); 0 ok, 1 findings, 2 bad input."""
    from bookcheck.verify.report import print_findings, verdict_lines
    from bookcheck.verify.sharding import merge
    try:
        result = merge(root, paths, profile)
    except ShardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if result.set_aside:
        print(f"note: set aside {len(result.set_aside)} partial"
              f"{'s' * (len(result.set_aside) != 1)} of another plan or source tree "
              f"(stale; delete {'them' if len(result.set_aside) != 1 else 'it'}): "
              f"{', '.join(map(str, result.set_aside))}", file=sys.stderr)
    print_findings(result.findings, result.ledger_skipped, stream, root=result.root)
    for text in verdict_lines(result.verdict, result.root):
        print(text, file=stream)
    line = merged_summary(result)
    print(line, file=stream)
    github.report(result, line)
    return 0 if result.ok else 1


def merged_summary(result) -> str:
    from bookcheck.verify.report import accepted, count_findings
    status = "ok" if result.ok else "FAILED"
    return (f"{status}: {result.chapters} chapter{'s' * (result.chapters != 1)} checked in "
            f"{result.shards} shard{'s' * (result.shards != 1)} ({result.cached_chapters} from "
            f"cache), {result.cells} cells, {result.inlines} inline expressions, "
            f"{result.invariants} invariants, {count_findings(result.findings)}"
            f"{accepted(getattr(result, 'verdict', None))}, "
            f"slowest shard {result.seconds:.2f} s")
