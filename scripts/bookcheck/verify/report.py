"""Print findings and the summary line of a BookResult."""
from __future__ import annotations

import json
import os
import shlex
import sys
from typing import TextIO

from bookcheck.model import Finding, Kind
from bookcheck.verify.baseline import FILE as BASELINE_FILE, deprecated_notes
from bookcheck.verify.ledger import SEP, is_new_value


# What a terminal that cannot encode the report's characters (PYTHONIOENCODING=ascii,
# LANG=C on an old runner) prints instead; anything else becomes a \u escape.
PLAIN = {"→": "->", "·": "|", "×": "x", "−": "-", "–": "-", "—": "--", "…": "...",
         "≤": "<=", "≥": ">=", "≈": "~", "±": "+/-", "µ": "u", "‘": "'", "’": "'",
         "“": '"', "”": '"', "\u00a0": " ", "\u2009": " ", "\u202f": " "}
ERRORS = "qmd-plain"


def _plain(exc: UnicodeError):
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    out = "".join(PLAIN.get(ch) or ch.encode("ascii", "backslashreplace").decode("ascii")
                  for ch in text)
    return out, exc.end


def use_terminal_encoding(*streams: TextIO) -> None:
    """Make `streams` (default stdout and stderr) print what their encoding can:
    the report's arrows and dots in ASCII, any other character as an escape."""
    import codecs
    try:
        codecs.lookup_error(ERRORS)
    except LookupError:
        codecs.register_error(ERRORS, _plain)
    for stream in streams or (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=ERRORS)
            except (ValueError, OSError):
                pass


def can_encode(out: TextIO, text: str = "→·") -> bool:
    try:
        text.encode(getattr(out, "encoding", None) or "utf-8")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


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
    status = "ok" if result.ok else "FAILED"
    return (f"{status}: {chapters} chapter{'s' * (chapters != 1)} checked "
            f"({cached} from cache), {cells} cells, {inlines} inline expressions, "
            f"{invariants} invariants, {count_findings(result.findings)}"
            f"{accepted(getattr(result, 'verdict', None))}, {result.seconds:.2f} s")


def accepted(verdict) -> str:
    """` (496 in the baseline, 3 suppressed)`: the findings not counted, or ''."""
    if verdict is None or not (verdict.baselined or verdict.suppressed):
        return ""
    return f" ({len(verdict.baselined)} in the baseline, {len(verdict.suppressed)} suppressed)"


def unused_lines(marks) -> list[str]:
    """The suppressions that matched no finding of the check nor of the audit."""
    if not marks:
        return []
    return [f"{len(marks)} suppression{'s' * (len(marks) != 1)} matched no finding (remove "
            f"{'them' if len(marks) != 1 else 'it'}):"] + [
        f"  {m.path}:{m.line} {', '.join(m.kinds)}: {m.reason}" for m in marks]


def verdict_lines(verdict, root=None, command: str = "check") -> list[str]:
    """What the baseline and the suppressions hold, for every report: how many known
    findings the baseline holds, each entry gone, each finding suppressed and why."""
    if verdict is None:
        return []
    lines = [verdict.wrote] if verdict.wrote else []
    if verdict.exists and (verdict.entries or verdict.gone):
        n, gone = len(verdict.baselined), verdict.gone
        head = (f"baseline {BASELINE_FILE}: {n} known finding{'s' * (n != 1)} not shown "
                f"({verdict.entries} entr{'ies' if verdict.entries != 1 else 'y'})")
        if gone:
            head += (f"; {len(gone)} entr{'ies' if len(gone) != 1 else 'y'} gone (fixed, or "
                     f"the line edited): `bookcheck {command} --prune-baseline"
                     f"{_root_option(root)}` drops {'them' if len(gone) != 1 else 'it'}:")
        lines.append(head)
        lines += [f"  {e['path']}:{e.get('line', 0)} {e['kind']}: {e.get('message', '')}"
                  for e in gone]
    if verdict.suppressed:
        lines.append(f"{len(verdict.suppressed)} suppressed in the source:")
        lines += [f"  {f.location()} {f.kind}: {f.reason} (suppressed at {m.path}:{m.line}: "
                  f"{m.reason})" for f, m in verdict.suppressed]
    return lines


def split_new_values(findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(the real findings, the new published values) of `findings`, each in order."""
    return ([f for f in findings if not is_new_value(f)],
            [f for f in findings if is_new_value(f)])


def count_findings(findings: list[Finding]) -> str:
    """`3 findings`, or `0 findings, 36 new published values`: new values are not
    counted as findings (they still fail the check)."""
    real, new = split_new_values(findings)
    counted = f"{len(real)} finding{'s' * (len(real) != 1)}"
    return f"{counted}, {len(new)} new published value{'s' * (len(new) != 1)}" if new else counted


def new_values_line(n: int) -> str:
    """The one line that stands for `n` new published values, with its fix."""
    return (f"{n} new published value{'s' * (n != 1)}: `bookcheck numbers` records "
            f"{'it' if n == 1 else 'them'}")


def _lines(numbers: list[int]) -> str:
    return f"line{'s' * (len(numbers) != 1)} {', '.join(map(str, numbers))}"


def _root_option(root) -> str:
    """`--root R` as the reader types it from here ('.' for the current folder)."""
    if root is None:
        return ""
    shown = os.path.relpath(root) if not os.path.relpath(root).startswith("..") else str(root)
    return f" --root {shlex.quote(shown)}"


# How the text report says a construct's findings in one line (Finding.within), by kind.
GROUPED = {
    Kind.GRID_TABLE_INLINE: lambda n, lines, path, root: (
        f"this grid table holds {n} inline value{'s' * (n != 1)} ({lines}); Quarto inserts "
        "each value's text without re-aligning the borders and garbles the table; convert it "
        f"with: bookcheck pipe-tables{_root_option(root)} {shlex.quote(path)}"),
}


def grouped(findings: list[Finding], root=None) -> list[Finding]:
    """`findings` with those of one construct (same path, kind and `within`) as one
    finding at the construct's first line, in the place of its first (the JSON report
    keeps every finding)."""
    members: dict[tuple, list[Finding]] = {}
    for f in findings:
        if f.within and f.kind in GROUPED:
            members.setdefault((f.path, f.kind, f.within), []).append(f)
    out, done = [], set()
    for f in findings:
        key = (f.path, f.kind, f.within)
        if key not in members:
            out.append(f)
        elif key not in done:
            done.add(key)
            group = members[key]
            reason = GROUPED[f.kind](len(group), _lines(sorted({g.line for g in group})), f.path, root)
            out.append(Finding(f.path, f.within, f.kind, reason, within=f.within))
    return out


def notes(result) -> list[str]:
    """What the report says once without failing: the run's notes (chapters not cached,
    files left out) and each suppression in the deprecated spelling."""
    verdict = getattr(result, "verdict", None)
    return list(getattr(result, "notes", [])) + (deprecated_notes(verdict) if verdict else [])


def result_root(result):
    """The project root of a BookResult or a merged shard result (None if neither)."""
    project = getattr(result, "project", None)
    return getattr(project, "root", None) or getattr(result, "root", None)


def print_report(result, out: TextIO = sys.stdout) -> None:
    """Findings first (ledger differences grouped last), then the summary."""
    print_findings(result.findings, getattr(result, "ledger_skipped", []), out,
                   root=result_root(result))
    for note in notes(result):
        print(f"note: {note}", file=out)
    for line in verdict_lines(getattr(result, "verdict", None), result_root(result)):
        print(line, file=out)
    print(summary(result), file=out)


def print_findings(findings: list[Finding], skipped: list[str], out: TextIO = sys.stdout,
                   root=None) -> None:
    """Each finding (a construct's as one: `grouped`), ledger differences grouped last,
    new published values as one line; then the chapters left out of numbers.lock."""
    findings, new = split_new_values(findings)
    findings = grouped(findings, root)
    findings = sorted(findings, key=lambda f: f.kind == Kind.LEDGER)
    moved = sum(1 for f in findings if f.kind == Kind.LEDGER and "→" in f.reason)
    ledger_header = False
    for f in findings:
        if f.kind == Kind.LEDGER and "→" in f.reason:
            if not ledger_header:
                print(f"{moved_numbers(moved)} (`bookcheck numbers` accepts "
                      f"{'it' if moved == 1 else 'them'}):", file=out)
                ledger_header = True
            print(f"  {f.reason}", file=out)
        else:
            print(format_finding(f), file=out)
    if new:
        print(new_values_line(len(new)), file=out)
    if skipped:
        print(f"numbers of {', '.join(skipped)} not compared with numbers.lock "
              "(did not run to the end)", file=out)


def moved_numbers(n: int) -> str:
    """`1 published number differs from numbers.lock`, `3 published numbers differ …`."""
    return (f"{n} published number{'s' * (n != 1)} "
            f"{'differs' if n == 1 else 'differ'} from numbers.lock")


def finding_record(f: Finding, documents: list[str]) -> dict:
    """One finding as plain JSON data; `chapter` is the document it belongs to."""
    if f.kind == Kind.LEDGER and f.key:
        chapter = f.key.split(SEP, 1)[0]
    else:
        chapter = f.path if f.path in documents else None
    return {"path": f.path, "line": f.line, "column": f.col, "kind": f.kind,
            "label": f.label, "message": f.reason, "detail": f.detail, "chapter": chapter,
            "ledger": {"key": f.key, "old": f.old, "new": f.new} if f.kind == Kind.LEDGER else None}


def json_report(result) -> dict:
    """Findings and summary as plain data (`bookcheck check --json`)."""
    runs = result.runs.values()
    documents = result.project.documents
    findings, new = split_new_values(result.findings)
    return {
        "ok": result.ok,
        "findings": [finding_record(f, documents) for f in findings],
        "new_values": [{"key": f.key, "chapter": f.key.split(SEP, 1)[0], "value": f.new}
                       for f in new],
        "summary": {
            "chapters": len(result.parsed),
            "cached": result.cached_chapters,
            "cells": sum(len(p.cells) for p in result.parsed.values()),
            "inline_expressions": sum(len(p.inlines) for p in result.parsed.values()),
            "invariants": sum(r.invariants for r in runs),
            "findings": len(findings),
            "new_values": len(new),
            "seconds": round(result.seconds, 3),
            "ledger_compared": result.ledger_compared,
            "ledger_skipped": list(result.ledger_skipped),
        },
        "notes": notes(result),
        **accepted_records(getattr(result, "verdict", None), documents),
    }


def accepted_records(verdict, documents: list[str]) -> dict:
    """The findings the baseline and the suppressions accept, and the gone entries."""
    if verdict is None:
        return {}
    return {
        "suppressed": [{**finding_record(f, documents),
                        "suppression": {"path": m.path, "line": m.line, "reason": m.reason}}
                       for f, m in verdict.suppressed],
        "baselined": [finding_record(f, documents) for f in verdict.baselined],
        "baseline": {"file": BASELINE_FILE if verdict.exists else None,
                     "entries": verdict.entries, "gone": list(verdict.gone),
                     "written": verdict.wrote or None},
    }


def print_json(result, out: TextIO = sys.stdout) -> None:
    json.dump(json_report(result), out, ensure_ascii=not can_encode(out), indent=1)
    out.write("\n")
