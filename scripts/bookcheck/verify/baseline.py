"""The findings a book accepts for now, as linters do: a reviewed baseline file and
suppressions with a reason in the source. Nothing is accepted silently: every report
lists what these hold (verify/report.py), and only the other findings fail.

* The baseline, `findings-baseline.json` at the project root, written by
  `bookcheck check --write-baseline`: one entry per known finding, keyed on
  its path, its kind and a fingerprint of its source line and message (line numbers
  left out), so an edit elsewhere in the file leaves it valid. An entry no finding
  matches any more is *gone* (fixed, or its line edited): listed until
  `--prune-baseline` drops it. Entries carry the stage that found them (`check`, or
  the audit of `html`/`pdf`): each stage matches and rewrites only its own.
* A suppression: a comment `<!-- bookcheck: ignore KIND[, KIND] -- reason -->` (`#` in
  a cell or YAML: `# bookcheck: ignore KIND -- reason`) at the end of the finding's line, or
  alone on the line above it (above a grid table: every value in it). Without a reason, or naming no kind, it suppresses
  nothing and is a finding itself (`suppression`). The earlier spelling,
  `OLD_WORD: ignore`, still suppresses for one more release; the report notes each
  one (`deprecated_notes`).

numbers.lock differences are never accepted here: `make numbers` accepts them.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck.files import atomic_write
from bookcheck.model import Finding, Kind

FILE = "findings-baseline.json"
CHECK = "check"                 # the stage of the check's findings (the audit's: its format)
WORD, OLD_WORD = "bookcheck", "mlsys"     # `WORD: ignore`; OLD_WORD: deprecated
MARK = re.compile(rf"(?:<!--|#)\s*(?P<word>{WORD}|{OLD_WORD}):\s*ignore\b(?P<rest>.*?)\s*(?:-->\s*)?$")
LINE_REF = re.compile(r"(?<=:)\d+(?::\d+)?|(?<=\bline )\d+|(?<=\blines )\d+(?:(?:,| and) \d+)*")
KINDS = {str(kind) for kind in Kind}


@dataclass(frozen=True)
class Suppression:
    path: str
    line: int                   # where the comment is
    target: int                 # the line whose findings it suppresses
    kinds: tuple[str, ...]
    reason: str
    old: bool = False           # written `OLD_WORD: ignore` (deprecated)


@dataclass
class Verdict:
    """What the baseline and the suppressions make of a stage's findings."""
    active: list[Finding] = field(default_factory=list)        # these fail
    suppressed: list[tuple[Finding, Suppression]] = field(default_factory=list)
    baselined: list[Finding] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)             # entries nothing matched
    entries: int = 0            # the stage's entries in the baseline file
    exists: bool = False        # there is a baseline file
    wrote: str = ""             # what --write-baseline / --prune-baseline did
    marks: list[Suppression] = field(default_factory=list)     # every suppression read


class _Sources:
    """Lines of the project's files, each read once."""
    def __init__(self, root: Path):
        self.root, self.cache = Path(root), {}

    def lines(self, path: str) -> list[str]:
        if path not in self.cache:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self.cache[path] = text.split("\n")
        return self.cache[path]

    def line(self, path: str, number: int) -> str:
        lines = self.lines(path)
        return lines[number - 1] if 0 < number <= len(lines) else ""


def fingerprint(finding: Finding, source_line: str) -> str:
    """The finding's identity without its line number: kind, source line, message."""
    text = "\0".join([str(finding.kind), " ".join(source_line.split()),
                      LINE_REF.sub("#", finding.reason)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def parse_mark(path: str, number: int, line: str) -> Suppression | Finding | None:
    """The suppression written on `line` (number `number`), a finding when it is
    malformed, or None when there is none."""
    m = MARK.search(line)
    if not m:
        return None
    named, _, reason = m.group("rest").partition("--")
    kinds = tuple(k for k in re.split(r"[\s,]+", named.strip()) if k)
    unknown = [k for k in kinds if k not in KINDS]
    col = m.start() + 1
    if not kinds or unknown:
        return Finding(path, number, Kind.SUPPRESSION,
                       f"`{m.group('word')}: ignore` names {'no finding kind' if not kinds else 'no kind ' + ', '.join(unknown)}"
                       " (docs/findings.md lists them): it suppresses nothing", col=col)
    if not reason.strip():
        return Finding(path, number, Kind.SUPPRESSION,
                       f"suppression of {', '.join(kinds)} without a reason: write why after "
                       "` -- ` (it suppresses nothing until then)", col=col)
    target = number + 1 if not line[:m.start()].strip() else number    # alone: the next line
    return Suppression(path, number, target, kinds, reason.strip(), m.group("word") == OLD_WORD)


def suppressions(sources: _Sources, paths: list[str]) -> tuple[dict, list[Finding]]:
    """{(path, target line): [Suppression]} and the malformed ones, of the files `paths`."""
    found: dict[tuple[str, int], list[Suppression]] = {}
    problems: list[Finding] = []
    for path in dict.fromkeys(paths):
        for number, line in enumerate(sources.lines(path), start=1):
            if "ignore" not in line:
                continue
            mark = parse_mark(path, number, line)
            if isinstance(mark, Finding):
                problems.append(mark)
            elif mark is not None:
                found.setdefault((path, mark.target), []).append(mark)
    return found, problems


def _read(root: Path) -> tuple[list[dict] | None, Finding | None]:
    """The baseline's entries (None: no file), or a finding saying why it cannot be read."""
    path = Path(root) / FILE
    if not path.exists():
        return None, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["findings"]
        if not all(isinstance(e, dict) and {"path", "kind", "fingerprint"} <= e.keys()
                   for e in entries):
            raise ValueError("an entry without path, kind or fingerprint")
        return entries, None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [], Finding(FILE, 0, Kind.BASELINE,
                           f"cannot read {FILE} ({type(exc).__name__}: {exc}): fix it, or "
                           "write it again with `bookcheck check --write-baseline`")


def _key(entry: dict) -> tuple[str, str, str]:
    return entry["path"], entry["kind"], entry["fingerprint"]


def acceptable(finding: Finding) -> bool:
    """numbers.lock differences are accepted by `make numbers`, never here; nor is a
    suppression without a reason or an unreadable baseline."""
    return finding.kind not in (Kind.LEDGER, Kind.SUPPRESSION, Kind.BASELINE)


def judge(root: Path, findings: list[Finding], stage: str = CHECK, paths: list[str] = (),
          mode: str | None = None) -> Verdict:
    """Sort `findings` (of `stage`) into active, suppressed and baselined; suppressions
    are read from `paths` and from every file a finding names. `mode` "write" first
    records every finding not suppressed as the stage's baseline, "prune" drops the
    stage's gone entries afterwards."""
    sources = _Sources(root)
    marks, problems = suppressions(sources, list(paths) + [f.path for f in findings])
    entries, unreadable = _read(root)
    verdict = Verdict(exists=entries is not None,
                      marks=[m for found in marks.values() for m in found])
    findings = list(findings) + problems + ([unreadable] if unreadable else [])
    kept = [e for e in entries or [] if e.get("stage", CHECK) != stage]
    if mode == "write" and not unreadable:
        mine = [_entry(f, sources, stage) for f in findings if acceptable(f)
                and _suppression(f, marks) is None]
        failed = _write(root, kept + mine)
        if failed:
            findings.append(failed)
        else:
            verdict.wrote = f"wrote {FILE}: {len(mine)} known finding{'s' * (len(mine) != 1)} ({stage})"
            entries, verdict.exists = kept + mine, True
    own = [e for e in entries or [] if e.get("stage", CHECK) == stage]
    verdict.entries = len(own)
    pool = Counter(_key(e) for e in own)
    for f in findings:
        mark = _suppression(f, marks)
        if mark is not None:
            verdict.suppressed.append((f, mark))
            continue
        key = (f.path, str(f.kind), fingerprint(f, sources.line(f.path, f.line)))
        if acceptable(f) and pool[key] > 0:
            pool[key] -= 1
            verdict.baselined.append(f)
        else:
            verdict.active.append(f)
    for e in own:
        if pool[_key(e)] > 0:
            pool[_key(e)] -= 1
            verdict.gone.append(e)
    if mode == "prune" and verdict.gone and not unreadable:
        gone = {id(e) for e in verdict.gone}
        failed = _write(root, kept + [e for e in own if id(e) not in gone])
        if failed:
            verdict.active.append(failed)
        else:
            verdict.wrote = (f"pruned {FILE}: dropped {len(verdict.gone)} gone "
                             f"entr{'ies' if len(verdict.gone) != 1 else 'y'} ({stage})")
            verdict.entries -= len(verdict.gone)
            verdict.gone = []
    return verdict


def deprecated_notes(verdict: Verdict) -> list[str]:
    """A note (not a finding) per suppression the verdict read in the old spelling."""
    return [f"{m.path}:{m.line}: `{OLD_WORD}: ignore` is deprecated: write `{WORD}: ignore`"
            for m in verdict.marks if m.old]


def unused(*verdicts: Verdict) -> list[Suppression]:
    """The suppressions the verdicts read that none of them used (the check's and the
    audit's together: a suppression may be for either)."""
    used = {m for v in verdicts for _, m in v.suppressed}
    return [m for m in dict.fromkeys(m for v in verdicts for m in v.marks) if m not in used]


def _suppression(finding: Finding, marks: dict) -> Suppression | None:
    """The suppression of the finding's line, or of the first line of the construct it
    is one of (a comment above a grid table covers its values)."""
    here = marks.get((finding.path, finding.line), [])
    above = marks.get((finding.path, finding.within), []) if finding.within else []
    return next((m for m in here + above if str(finding.kind) in m.kinds), None)


def _entry(finding: Finding, sources: _Sources, stage: str) -> dict:
    return {"path": finding.path, "kind": str(finding.kind),
            "fingerprint": fingerprint(finding, sources.line(finding.path, finding.line)),
            "stage": stage, "line": finding.line, "message": finding.reason}


def _write(root: Path, entries: list[dict]) -> Finding | None:
    """Write the baseline file (a reviewed project file, as numbers.lock is: not a
    cache); a finding when it cannot be written."""
    try:
        atomic_write(Path(root) / FILE, baseline_text(entries))
    except OSError as exc:
        return Finding(FILE, 0, Kind.BASELINE, f"cannot write {FILE}: {exc}")
    return None


def baseline_text(entries: list[dict]) -> str:
    """The baseline's JSON: one entry a line (a reviewable diff), in file order."""
    entries = sorted(entries, key=lambda e: (e.get("stage", CHECK) != CHECK, e["path"],
                                             e.get("line", 0), e["kind"], e["fingerprint"]))
    rows = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in entries)
    about = ('{"about": "known findings accepted for now (docs/adopting.md); written by '
             'bookcheck check --write-baseline: review its diff",\n')
    return about + (f' "findings": [\n{rows}\n ]}}\n' if rows else ' "findings": []}\n')
