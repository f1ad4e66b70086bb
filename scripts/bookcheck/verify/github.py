"""Findings where reviewers look: GitHub workflow commands and the job summary.

With `GITHUB_ACTIONS=true` a check also prints one workflow command per finding

    ::error file=contents/x.qmd,line=12,col=5,title=invariant::the claim ... failed

(and one for all the new published values, as the text report says them in one
line), which GitHub turns into an annotation on that line of the pull request's diff,
and appends to the file named by `$GITHUB_STEP_SUMMARY` a Markdown section: the
verdict, a table of the published numbers that moved (chapter, key, old → new)
and a table of the findings. Escaping follows GitHub's workflow-command rules
(`%`, CR and LF in messages; also `:` and `,` in properties).
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, TextIO

from bookcheck.model import Finding, Kind
from bookcheck.verify.ledger import LOCK_NAME, SEP
from bookcheck.verify.report import grouped, new_values_line, result_root, split_new_values

NEW, REMOVED = "(new)", "(removed)"
MAX_TABLE_ROWS = 200        # a summary is capped at 1 MiB by GitHub; keep it readable


@dataclass(frozen=True)
class Moved:
    """One published number that differs from numbers.lock."""
    chapter: str
    key: str                # the ledger key without its chapter part
    old: str                # NEW when the number is new
    new: str                # REMOVED when the number is gone


def enabled(env: Mapping[str, str] = os.environ) -> bool:
    return env.get("GITHUB_ACTIONS") == "true"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(finding: Finding) -> str:
    """`::error file=…,line=…,col=…,title=…::message` (line/col left out when unknown)."""
    props = [f"file={escape_property(finding.path)}"]
    if finding.line:
        props.append(f"line={finding.line}")
        if finding.col:
            props.append(f"col={finding.col}")
    title = finding.kind + (f" [{finding.label}]" if finding.label else "")
    props.append(f"title={escape_property(title)}")
    message = finding.reason + (f"\n{finding.detail.rstrip()}" if finding.detail else "")
    return f"::error {','.join(props)}::{escape_data(message)}"


def moved_numbers(findings: list[Finding]) -> list[Moved]:
    """The ledger findings that name a key (changed, new or removed numbers), in order."""
    moved = []
    for f in findings:
        if f.kind == Kind.LEDGER and f.key:
            chapter, _, rest = f.key.partition(SEP)
            moved.append(Moved(chapter, rest, NEW if f.old is None else f.old,
                               REMOVED if f.new is None else f.new))
    return moved


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    one = " ".join(str(text).split())
    return one.replace("\\", "\\\\").replace("|", "\\|") if one else "&nbsp;"


def _table(title: str, header: list[str], rows: list[list[str]]) -> list[str]:
    """A titled Markdown table of at most MAX_TABLE_ROWS rows (cells already escaped)."""
    lines = [f"### {title} ({len(rows)})", "", "| " + " | ".join(header) + " |",
             "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows[:MAX_TABLE_ROWS]]
    if len(rows) > MAX_TABLE_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_TABLE_ROWS} more (see the job log)")
    return lines + [""]


def step_summary(findings: list[Finding], moved: list[Moved], verdict: str) -> str:
    """The Markdown appended to $GITHUB_STEP_SUMMARY."""
    lines = ["## Book check", "", verdict, ""]
    if moved:
        lines += _table("Published numbers that moved", ["Chapter", "Key", "Old → new"],
                        [[_cell(m.chapter), _cell(m.key), f"{_cell(m.old)} → {_cell(m.new)}"]
                         for m in moved])
    others = [f for f in findings if not (f.kind == Kind.LEDGER and f.key)]
    if others:
        lines += _table("Findings", ["Where", "Kind", "Message"],
                        [[f"`{_cell(f.location())}`", _cell(f.kind), _cell(f.reason)]
                         for f in others])
    return "\n".join(lines) + "\n"


def report(result, verdict: str, env: Mapping[str, str] = os.environ,
           out: TextIO = sys.stdout) -> None:
    """On GitHub Actions: a workflow command per finding, and the step summary appended."""
    if not enabled(env):
        return
    findings = list(result.findings)
    real, new = split_new_values(findings)
    real = grouped(real, result_root(result))       # one annotation per grid table
    if new:
        real.append(Finding(LOCK_NAME, 0, Kind.LEDGER, new_values_line(len(new))))
    for finding in real:
        print(workflow_command(finding), file=out)
    target = env.get("GITHUB_STEP_SUMMARY")
    if target:
        try:
            with Path(target).open("a", encoding="utf-8") as handle:
                handle.write(step_summary(findings, moved_numbers(findings), verdict))
        except OSError as exc:
            print(f"warning: cannot append to GITHUB_STEP_SUMMARY ({target}): {exc}",
                  file=sys.stderr)
