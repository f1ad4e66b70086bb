"""Print findings and the summary line of a BookResult."""
from __future__ import annotations

import sys
from typing import TextIO

from scripts.model import Finding


def format_finding(f: Finding) -> str:
    """`path:line[:col] [label] kind: reason`, then the detail indented."""
    label = f" [{f.label}]" if f.label else ""
    head = f"{f.location()}{label} {f.kind}: {f.reason}"
    if not f.detail:
        return head
    body = "\n".join("    " + line for line in f.detail.rstrip("\n").split("\n"))
    return f"{head}\n{body}"


def summary(result) -> str:
    """One line: chapters, cells, inline expressions, invariants, findings, time."""
    runs = result.runs.values()
    chapters = len(result.parsed)
    cells = sum(len(p.cells) for p in result.parsed.values())
    inlines = sum(len(p.inlines) for p in result.parsed.values())
    invariants = sum(r.invariants for r in runs)
    cached = result.cached_chapters
    n = len(result.findings)
    status = "ok" if result.ok else "FAILED"
    return (f"{status}: {chapters} chapter{'s' * (chapters != 1)} checked "
            f"({cached} from cache), {cells} cells, {inlines} inline expressions, "
            f"{invariants} invariants, {n} finding{'s' * (n != 1)}, {result.seconds:.2f} s")


def print_report(result, out: TextIO = sys.stdout) -> None:
    """Findings first (ledger differences grouped last), then the summary."""
    findings = sorted(result.findings, key=lambda f: f.kind == "ledger")
    ledger_header = False
    for f in findings:
        if f.kind == "ledger" and "→" in f.reason:
            if not ledger_header:
                print("published numbers differ from numbers.lock (`make numbers` accepts them):",
                      file=out)
                ledger_header = True
            print(f"  {f.reason}", file=out)
        else:
            print(format_finding(f), file=out)
    skipped = getattr(result, "ledger_skipped", [])
    if skipped:
        print(f"numbers of {', '.join(skipped)} not compared with numbers.lock "
              "(did not run to the end)", file=out)
    print(summary(result), file=out)
