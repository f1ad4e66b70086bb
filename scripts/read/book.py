"""Read the whole book: _quarto.yml and every listed document, options resolved.

The read stage's entry point: `read_book(root, profile)` -> ReadBook. Each parsed
chapter's options are resolved and validated (read/options.py: project -> profile
-> `_metadata.yml` -> front matter -> cell). Bad content never raises: it becomes
findings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scripts.model import Finding, Kind, ParsedChapter
from scripts.read.includes import expand
from scripts.read import shortcodes
from scripts.read.jupyter_title import applies, title_heading
from scripts.read.options import resolve
from scripts.read.profiles import directory_metadata
from scripts.read.project import Project, load_project
from scripts.read.qmd import decode, parse_chapter


@dataclass
class ReadBook:
    project: Project
    parsed: dict[str, ParsedChapter] = field(default_factory=dict)   # path -> chapter, book order
    findings: list[Finding] = field(default_factory=list)            # project + unreadable files


def read_book(root: Path, profile: str | None = None) -> ReadBook:
    """Load the project (with Quarto `profile`: read/project.py's load_project), then
    read, decode and parse every chapter and appendix."""
    project = load_project(Path(root), profile)
    book = ReadBook(project=project, findings=list(project.findings))
    for rel in project.documents:
        try:
            data = (project.root / rel).read_bytes()
        except OSError as exc:
            book.findings.append(Finding(rel, 0, Kind.MISSING_CHAPTER,
                                         f"cannot read: {exc.strerror}"))
            continue
        text, problems = decode(rel, data)
        expanded = expand(project.root, rel, text)
        parsed = parse_chapter(rel, expanded.text)
        if expanded.files:
            parsed.line_map, parsed.includes = expanded.line_map, expanded.files
        parsed.findings = problems + expanded.findings + [parsed.relocate(f) for f in parsed.findings]
        *folder, problems = directory_metadata(project.root, rel)
        book.findings += [p for p in problems if p not in book.findings]     # once per file
        resolve(project, parsed, folder)
        parsed.findings += shortcodes.check(project, parsed)
        if applies(project):
            parsed.title_heading = title_heading(parsed)
        book.parsed[rel] = parsed
    return book
