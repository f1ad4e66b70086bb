"""One build of the preview: check (the cache re-runs only what changed), then render.

`Session.build()` never raises on bad content. Findings other than moved
published numbers block the render (the browser keeps the last good pages
and shows the findings in a banner); moved numbers alone do not, since
editing a value is what an author previewing does: the terminal lists them
and `make numbers` accepts them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bookcheck.model import Finding, Kind
from bookcheck.read.project import NOT_SOURCES

# Paths under the project root that never change the book.
IGNORED_DIRS = NOT_SOURCES | {"docs"}

# What a book is made of: chapters, configuration, bibliography, the science
# package, images and data the chapters read.
SOURCE_SUFFIXES = {".qmd", ".md", ".ipynb", ".yml", ".yaml", ".bib", ".csl", ".py", ".png",
                   ".jpg", ".jpeg", ".svg", ".gif", ".webp", ".css", ".json", ".csv", ".tsv",
                   ".txt", ".lua", ".toml"}


@dataclass
class Outcome:
    """What one build did."""
    ok: bool                                   # rendered (no blocking finding)
    findings: list[Finding] = field(default_factory=list)     # blocking ones
    moved: list[Finding] = field(default_factory=list)        # ledger differences
    pages: list[str] = field(default_factory=list)            # pages rewritten
    executed: int = 0                          # chapters run in a kernel (not cached)
    check_s: float = 0.0
    render_s: float = 0.0


def blocking(finding: Finding) -> bool:
    return finding.kind != Kind.LEDGER


def finding_json(f: Finding) -> dict:
    return {"location": f.location(), "path": f.path, "line": f.line, "col": f.col,
            "kind": f.kind, "message": f.reason}


def relevant(root: Path, changed_paths) -> list[str]:
    """The changed files (project-relative) that can change the book."""
    out = set()
    root = Path(root).resolve()
    for path in changed_paths:
        try:
            rel = PurePosixPath(Path(path).resolve().relative_to(root).as_posix())
        except ValueError:
            continue
        if rel.parts and (rel.parts[0] in IGNORED_DIRS or
                          any(p.startswith(".") or p == "__pycache__" for p in rel.parts)):
            continue
        if rel.suffix.lower() not in SOURCE_SUFFIXES:     # editors' and tools' temp files
            continue
        out.add(rel.as_posix())
    return sorted(out)


class Session:
    """Check and render the book at `root`, keeping the renderer warm between builds."""

    def __init__(self, root: Path, jobs: int | None = None):
        from bookcheck.tools.preview.pages import PageRenderer
        self.root = Path(root)
        self.jobs = jobs
        self.renderer = PageRenderer()

    def build(self) -> Outcome:
        from bookcheck.verify.check import check_book
        from bookcheck.render import RenderError
        started = time.perf_counter()
        result = check_book(self.root, jobs=self.jobs)
        checked = time.perf_counter()
        outcome = Outcome(ok=False, check_s=checked - started,
                          executed=sum(1 for r in result.runs.values() if not r.cached))
        outcome.findings = [f for f in result.findings if blocking(f)]
        outcome.moved = [f for f in result.findings if not blocking(f)]
        if outcome.findings:
            return outcome
        try:
            outcome.pages = self.renderer.render(result)
            outcome.ok = True
        except RenderError as exc:
            outcome.findings = [Finding("_quarto.yml", 0, Kind.RENDER, str(exc))]
        outcome.render_s = time.perf_counter() - checked
        return outcome

    @property
    def output(self) -> Path:
        from bookcheck.read.project import load_project
        from bookcheck.render import output_dir
        return output_dir(load_project(self.root))

    def close(self) -> None:
        self.renderer.close()
