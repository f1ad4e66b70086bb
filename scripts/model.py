"""Plain data passed between the pipeline stages.

    qmd.parse_chapter  -> ParsedChapter   (what the source says)
    execute.run_chapter -> ChapterRun     (what the kernel produced)
    check / ledger / render read both.

Everything here is JSON-serialisable through `to_dict` / `from_dict` so the
cache can store a ChapterRun and the renderer can reuse it without
re-executing anything. This module imports nothing heavy.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace


@dataclass(frozen=True)
class Finding:
    """One problem, located in a source file.

    kind is a short slug: invariant, cell-error, inline-error, inline-empty,
    inline-mangled, inline-syntax, include,
    unknown-ref, unknown-citation, duplicate-label, grid-table-inline,
    missing-chapter, yaml, front-matter, unclosed-fence, kernel-died, timeout,
    encoding, ledger, render, caption-inline, stale-cache, unstable-output; the audit
    of a render (docs/audit.md):
    unaccounted-number, missing-value, leak.
    """
    path: str                 # relative to the project root, POSIX separators
    line: int                 # 1-based; 0 when the finding is about the whole file
    kind: str
    reason: str               # one line
    col: int | None = None    # 1-based
    label: str | None = None  # the cell label, when there is one
    detail: str = ""          # multi-line: traceback, expression, …
    old: str | None = None    # ledger findings: the value in numbers.lock (None: new key)
    new: str | None = None    # ledger findings: the published value (None: removed key)
    key: str | None = None    # ledger findings: `chapter · name`

    def location(self) -> str:
        loc = f"{self.path}:{self.line}"
        return f"{loc}:{self.col}" if self.col else loc


@dataclass
class CodeCell:
    """A ```{python} cell. Line numbers are 1-based lines of the .qmd file."""
    index: int                # order among the chapter's cells, from 0
    fence_line: int           # the opening ```{python} line
    first_code_line: int      # the line of the first line of `source`
    end_line: int             # the closing fence line
    source: str               # the cell body exactly as written, option lines included
    options: dict = field(default_factory=dict)   # the `#|` options, validated, cascade applied
                                                  # and frozen by read/options.py
    option_lines: dict = field(default_factory=dict)  # option -> the line it is written at
    code: str = ""            # the source without its option block (what a page shows)

    @property
    def label(self) -> str | None:
        value = self.options.get("label")
        return str(value) if value is not None else None


@dataclass
class InlineExpr:
    """An inline `{python} expr` in the markdown."""
    index: int                # order among the chapter's inline expressions, from 0
    line: int
    col: int                  # column of the opening backtick, 1-based
    expr: str
    start: int                # character offsets of the whole `...` span in the text
    end: int
    cells_before: int         # number of code cells that precede it in the document
    substitute: bool = True   # False: Quarto evaluates it but leaves the code (two spaces, line break…)


@dataclass
class ParsedChapter:
    path: str
    text: str
    front_matter: dict = field(default_factory=dict)    # read/ only: stages take the fields below
    front_lines: dict = field(default_factory=dict)     # read/ only: (key,) / (key, sub) -> line
    cells: list[CodeCell] = field(default_factory=list)
    inlines: list[InlineExpr] = field(default_factory=list)
    labels: list[tuple[str, int]] = field(default_factory=list)        # (label, line) defined here
    references: list[tuple[str, int, int]] = field(default_factory=list)  # (label, line, col) of @refs
    citations: list[tuple[str, int, int]] = field(default_factory=list)   # (key, line, col)
    findings: list[Finding] = field(default_factory=list)              # problems found by reading alone
    # {{< include >}} expansion: line i+1 of `text` came from line_map[i] = (file, line);
    # empty when nothing was included (then every line is the chapter's own).
    line_map: list[tuple[str, int]] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)                  # included files, in order
    exec_dir: str = ""        # folder the chapter runs in, project-relative ("" = the root)
    execute: bool = True      # False: `execute: enabled: false` (no kernel)
    part: bool = False        # a `- part: file.qmd` page (unnumbered)
    figure: dict | None = None  # Quarto's figure options for this document, front matter
                                # included (read/figures.py); None: not resolved yet
    # resolved by read/options.py (front matter over the project):
    freeze: object = False    # `execute: freeze:` false | true | "auto"
    search: bool = True       # False: `search: false` (left out of the search index)
    cache_inputs: list[str] = field(default_factory=list)  # `cache-inputs:` (ours) paths/globs
    kernel: tuple | None = None  # (`jupyter:` value, file, line) in force, or None

    def source_of(self, line: int) -> tuple[str, int]:
        """(file, line) a line of `text` was written at (includes resolved)."""
        if self.line_map and 0 < line <= len(self.line_map):
            return self.line_map[line - 1]
        return self.path, line

    def relocate(self, finding: "Finding") -> "Finding":
        """The finding moved to the file and line its text comes from."""
        if finding.path != self.path or not self.line_map or finding.line <= 0:
            return finding
        path, line = self.source_of(finding.line)
        return replace(finding, path=path, line=line)


@dataclass
class Output:
    """One output of a cell.

    kind: markdown (IPython Markdown / output: asis), text (plain repr or
    stream), html, image/png or image/svg+xml (data base64 for png), error.
    """
    kind: str
    data: str
    name: str = ""            # a stream's name (stdout, stderr), else ""
    result: bool = False      # Jupyter's execute_result (the cell's last value), not display_data
    scripted: bool = False    # a display that offered text/html or application/javascript
                              # (Quarto's engine then loads require.js and jQuery: freeze.py)


@dataclass
class CellRun:
    index: int
    outputs: list[Output] = field(default_factory=list)
    raised: bool = False      # the cell raised (allowed only with error: true)


@dataclass
class InlineRun:
    index: int
    kind: str                 # markdown | text | html | code (left as inline code)
    text: str                 # the value as readers see it (ledger)
    markdown: str = ""        # what Quarto puts in the page's Markdown (scripts.run.inline_values)


@dataclass
class ChapterRun:
    """The executed result of one chapter: enough to report, ledger and render."""
    path: str
    cache_key: str = ""
    cells: list[CellRun] = field(default_factory=list)
    inlines: list[InlineRun] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    invariants: int = 0       # check() calls executed
    seconds: float = 0.0
    cached: bool = False
    # What the run read besides its code (scripts.run.deps snapshot: files, dirs, env);
    # None when it could not be observed (such a run is never cached).
    deps: dict | None = None
    # Where the chapter's cells and inline expressions were when it ran
    # (scripts.run.fingerprint.anchors): cached findings move with them.
    anchors: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ChapterRun":
        return cls(
            path=data["path"],
            cache_key=data.get("cache_key", ""),
            cells=[CellRun(index=c["index"], raised=c.get("raised", False),
                           outputs=[Output(**o) for o in c.get("outputs", [])])
                   for c in data.get("cells", [])],
            inlines=[InlineRun(**i) for i in data.get("inlines", [])],
            findings=[Finding(**f) for f in data.get("findings", [])],
            invariants=data.get("invariants", 0),
            seconds=data.get("seconds", 0.0),
            cached=data.get("cached", False),
            deps=data.get("deps"),
            anchors=data.get("anchors") or {},
        )


def finding_from_dict(data: dict) -> Finding:
    names = {f.name for f in fields(Finding)}
    return Finding(**{k: v for k, v in data.items() if k in names})
