"""Read the whole book: _quarto.yml and every listed document, options resolved.

The read stage's entry point: `read_book(root, profile)` -> ReadBook. Each parsed
chapter's options are resolved and validated (read/options.py: project -> profile
-> `_metadata.yml` -> front matter -> cell). Bad content never raises: it becomes
findings.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read.includes import expand
from bookcheck.read import shortcodes
from bookcheck.read.jupyter_title import applies, title_heading
from bookcheck.read.options import resolve
from bookcheck.read.profiles import directory_metadata
from bookcheck.read.project import Project, load_project
from bookcheck.read.qmd import decode, parse_chapter
from bookcheck.read.includes import Expanded
from bookcheck.read.ipynb import Notebook, read_notebook


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
        expanded, notebook = source_text(project.root, rel, data)
        parsed = parse_chapter(rel, expanded.text)
        if expanded.files or notebook:
            parsed.line_map, parsed.includes = expanded.line_map, expanded.files
        parsed.findings = expanded.findings + [parsed.relocate(f) for f in parsed.findings]
        if notebook and notebook.kernel and "jupyter" not in parsed.front_matter:
            parsed.front_matter["jupyter"] = notebook.kernel    # its kernelspec, as Quarto's
            parsed.front_lines[("jupyter",)] = notebook.kernel_line
        *folder, problems = directory_metadata(project.root, rel)
        book.findings += [p for p in problems if p not in book.findings]     # once per file
        resolve(project, parsed, folder)
        parsed.findings += shortcodes.check(project, parsed)
        if applies(project):
            parsed.title_heading = title_heading(parsed)
        book.parsed[rel] = parsed
        if notebook and notebook.stored_outputs and not parsed.execute:
            parsed.findings.append(_unchecked(rel, notebook.stored_outputs))
    return book


def _unchecked(rel: str, cells: int) -> Finding:
    """A notebook Quarto does not run, whose stored outputs it publishes."""
    return Finding(rel, 1, Kind.NOTEBOOK_OUTPUTS, (
        f"Quarto does not run a notebook unless told to: it publishes the outputs stored "
        f"in {rel} (of {cells} code cell{'s' if cells != 1 else ''}), which nothing checks. "
        f"Set `execute: enabled: true` in its front matter (a raw cell `---` at the top) "
        f"or in _quarto.yml, so that it runs like a .qmd chapter, or make it one: "
        f"`quarto convert {rel}`"))


def source_text(root: Path, rel: str, data: bytes) -> tuple[Expanded, Notebook | None]:
    """The text a chapter is parsed from (a notebook as Quarto's Markdown of it:
    read/ipynb.py; includes expanded), its line map back to the files, and the
    notebook read (None for a .qmd/.md)."""
    if rel.endswith(".ipynb"):
        notebook = read_notebook(rel, data)
        text, problems = notebook.text, notebook.findings
    else:
        notebook, (text, problems) = None, decode(rel, data)
    expanded = expand(root, rel, text)
    expanded.findings[:0] = problems
    if notebook:   # the notebook's own lines: to their JSON lines
        def json_line(f: str, n: int) -> tuple[str, int]:
            return notebook.line_map[n - 1] if f == rel and 0 < n <= len(notebook.line_map) else (f, n)
        expanded.line_map = [json_line(f, n) for f, n in expanded.line_map]
        expanded.findings = [replace(f, line=json_line(f.path, f.line)[1]) for f in expanded.findings]
    return expanded, notebook
