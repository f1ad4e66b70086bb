"""The project's control files must come out of a run as they went in.

Control files: _quarto.yml and every file Quarto merges over it (a profile's,
`metadata-files:`, `_quarto.yml.local`, even one that does not exist yet),
numbers.lock, the bibliography, every chapter and every file it includes. A cell that writes one of them (rewrites the ledger it
is checked against, edits the book's configuration) would pass unnoticed and
leave `git diff` showing the change. `snapshot` takes their digests before the
chapters run, `changed` compares after: each file that differs is a `control`
finding at that file (line 0). Nothing is restored: the file may as well be an
edit the author saved during the check, and only the author can tell.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read.project import Project

LOCK_NAME = "numbers.lock"


def control_files(project: Project, parsed: list[ParsedChapter]) -> list[str]:
    """Project-relative control files, in a fixed order, each once."""
    names = [*project.settings_files(), LOCK_NAME, *project.bibliography]
    for chapter in parsed:
        names += [chapter.path, *chapter.includes]
    return list(dict.fromkeys(names))


def _digest(path: Path) -> str:
    try:
        if not path.is_file():
            return "missing" if not path.exists() else "not a file"
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def snapshot(project: Project, parsed: list[ParsedChapter]) -> dict[str, str]:
    return {rel: _digest(Path(project.root) / rel) for rel in control_files(project, parsed)}


def changed(project: Project, before: dict[str, str]) -> list[Finding]:
    """A `control` finding for each control file the run changed, created or removed."""
    findings = []
    for rel, digest in before.items():
        now = _digest(Path(project.root) / rel)
        if now != digest:
            what = ("removed" if now == "missing" else
                    "created" if digest == "missing" else "changed")
            findings.append(Finding(rel, 0, Kind.CONTROL, (
                f"{rel} was {what} while the chapters ran: a cell must not write the "
                f"project's control files (`git diff {rel}` shows it; if it was your own "
                f"edit, check again)")))
    return findings
