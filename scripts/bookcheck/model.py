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
from enum import Enum

from bookcheck.read.cell_options import CellOptions, cell_options


class Kind(str, Enum):
    """What a Finding is about, spelled as the reports show it; each member's second
    value is its meaning (docs/findings.md: `python -m booktools.kinds`)."""
    def __new__(cls, value: str, meaning: str) -> "Kind":
        member = str.__new__(cls, value)
        member._value_, member.meaning = value, meaning
        return member

    __str__, __format__ = str.__str__, str.__format__      # "yaml", not "Kind.YAML"
    # reading the sources (read/)
    YAML = "yaml", "malformed YAML, or an entry of the wrong shape, in `_quarto.yml`, a profile or metadata file, or a cell's option lines"
    ENCODING = "encoding", "a source file that is not valid UTF-8"
    FRONT_MATTER = "front-matter", "a chapter's front matter is never closed, malformed, or not a mapping"
    UNCLOSED_FENCE = "unclosed-fence", "a code block or div opened and never closed (it swallows the rest of the file)"
    INCLUDE = "include", "an `{{< include >}}` that is malformed, escapes the project, forms a cycle or cannot be read"
    IGNORED_OPTION = "ignored-option", "a `#|` cell option Quarto ignores: it follows a blank line"
    GRID_TABLE_INLINE = "grid-table-inline", "an inline expression inside a grid table (Quarto garbles it: `bookcheck pipe-tables` converts it to a pipe table)"
    MISSING_CHAPTER = "missing-chapter", "a chapter `_quarto.yml` lists that does not exist or cannot be read"
    CHAPTER_PATH = "chapter-path", "a chapter path that escapes the project"
    DUPLICATE_CHAPTER = "duplicate-chapter", "a chapter listed twice in `_quarto.yml`"
    NOTEBOOK = "notebook", "a `.ipynb` chapter Quarto cannot read (not nbformat JSON with a `cells` list)"
    NOTEBOOK_OUTPUTS = "notebook-outputs", "a `.ipynb` chapter Quarto does not run: it publishes the outputs stored in the file, unchecked"
    OUTPUT_DIR = "output-dir", "`project: output-dir:` is the project folder or holds it, is outside the project, holds or lies inside its sources or the checker's caches, or holds files no render wrote (a render replaces its output folder whole)"
    MATH_METHOD = "math-method", "an `html-math-method` the renderers cannot honour (unknown, or gladtex: readers would see raw TeX)"
    # running the chapters (run/)
    INVARIANT = "invariant", "a `check()` failed, at the line that called it"
    CELL_ERROR = "cell-error", "a cell raised (without `error: true`)"
    INLINE_ERROR = "inline-error", "an inline expression raised (Quarto aborts the whole render there)"
    STRAY_INLINE = "stray-inline", "`{python}` in the prose outside a code span (a backtick missing): the page shows the code as text"
    INLINE_SYNTAX = "inline-syntax", "an inline expression Quarto evaluates without error but leaves as code (spacing, a line break)"
    INLINE_EMPTY = "inline-empty", "an inline expression yields nothing printable (None, NaN, an empty string)"
    INLINE_MANGLED = "inline-mangled", "an inline value Quarto would not show as meant (LaTeX, markup, HTML, a line break)"
    KERNEL = "kernel", "the `jupyter:` kernel a chapter names is not installed or not Python, or the checker's setup fails in it"
    KERNEL_DIED = "kernel-died", "the kernel died while running the chapter"
    TIMEOUT = "timeout", "a cell or inline expression ran longer than the timeout"
    STALE_CACHE = "stale-cache", "`check --audit`: the cache would have served a result a fresh run does not give"
    UNSTABLE_OUTPUT = "unstable-output", "`check --audit`: an output differs between two runs of the same inputs"
    # checking the results (verify/)
    UNKNOWN_REF = "unknown-ref", "an `@label` no chapter defines"
    DUPLICATE_LABEL = "duplicate-label", "a label defined twice in the book (in a website: on one page)"
    WEBSITE_REF = "website-ref", ("an `@label` of another page in a website (or a project not a "
                                  "book): Quarto leaves it unresolved, `?@label`")
    UNKNOWN_CITATION = "unknown-citation", "an `@key` the bibliography does not have"
    BIBLIOGRAPHY = "bibliography", "a bibliography file `_quarto.yml` names that does not exist"
    LEDGER = "ledger", "a published value new, changed or gone against `numbers.lock`, or a `numbers.lock` that cannot be read"
    LITERAL_NUMBER = "literal-number", "a number typed in prose (`verify: literal-numbers`)"
    FIG_ALT = "fig-alt", "a figure without alt text (`verify: fig-alt`)"
    SHORTCODE = "shortcode", "a `{{< shortcode >}}` Quarto cannot resolve (an unknown name, a `var` key `_variables.yml` lacks)"
    INLINE_MATH = "inline-math", "an inline value inside `$…$`/`$$…$$` that Quarto inserts escaped as Markdown (`11\\,025`): the formula breaks"
    CAPTION_INLINE = "caption-inline", "an inline value inside a caption option, which Quarto leaves as code"
    OUTPUT_CUT = "output-cut", "a cell's output or an inline value longer than the checker's cap (1,000,000 characters): the page shows it cut, the ledger records it cut"
    SUPPRESSION = "suppression", "a `bookcheck: ignore` comment without a reason or naming no finding kind (it suppresses nothing; docs/adopting.md)"
    BASELINE = "baseline", "`findings-baseline.json` cannot be read or written (docs/adopting.md)"
    PANDOC_WARNING = "pandoc-warning", "pandoc's reader warns (a footnote defined twice or never referenced, an id or link defined twice, a div never closed): the page loses text silently"
    MISSING_IMAGE = "missing-image", "an image whose file does not exist (relative to the chapter, `/…` to the project)"
    INPUT_CHANGED = "input-changed", "`make numbers`: an input of a chapter changed while it ran, so its numbers mix two versions of it (nothing recorded)"
    READ_BEFORE_WRITTEN = "read-before-written", "a chapter reads a file a later chapter writes: Quarto runs them in book order, so on a fresh clone it is missing (or stale)"
    CONTROL = "control", "a control file (`_quarto.yml`, `numbers.lock`, a bibliography, a source) changed while the chapters ran"
    # the audit of a render (docs/audit.md)
    UNACCOUNTED_NUMBER = "unaccounted-number", "a rendered page shows a number no value, renderer or allowlist accounts for"
    MISSING_VALUE = "missing-value", "a rendered page does not show a number the ledger records for it"
    LEAK = "leak", "a rendered page shows text no reader should see (`?@label`, `{python}`, raw TeX, a repr, `nan`)"
    MISSING_PAGE = "missing-page", "the render wrote no page for a chapter"
    EXPLORER_DATA = "explorer-data", "a page's explorer data is not the grid the check computed (missing, moved, or shown by no cell)"
    MISSING_PDF = "missing-pdf", "the render wrote no PDF"
    PDF_BOOKMARKS = "pdf-bookmarks", "the PDF has fewer top-level bookmarks than documents: its pages cannot be mapped to chapters"
    # rendering (render/, preview)
    FREEZE = "freeze", "a document that cannot be handed to Quarto's freezer (so Quarto would execute it)"
    RENDER = "render", "`make preview`: the render failed"


@dataclass(frozen=True)
class Finding:
    """One problem, located in a source file; its kind is a Kind (a known slug given
    as a string becomes its member, an unknown one is a ValueError)."""
    path: str                 # relative to the project root, POSIX separators
    line: int                 # 1-based; 0 when the finding is about the whole file
    kind: Kind
    reason: str               # one line
    col: int | None = None    # 1-based
    label: str | None = None  # the cell label, when there is one
    detail: str = ""          # multi-line: traceback, expression, …
    old: str | None = None    # ledger findings: the value in numbers.lock (None: new key)
    new: str | None = None    # ledger findings: the published value (None: removed key)
    key: str | None = None    # ledger findings: `chapter · name`
    within: int = 0           # first line of the construct it is one of (a grid table's
                              # values): the text report shows the construct as one line

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))

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
    # what every stage reads: `options` typed, Quarto's defaults applied (read/cell_options.py)
    resolved: CellOptions | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.resolved is None:
            self.resolved = cell_options(self.options)

    @property
    def label(self) -> str | None:
        return self.resolved.label


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
    authored: str = ""        # `text` with python cells and inline expressions blanked
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
    number_sections: bool = True  # False: `number-sections: false` (its page numbers no heading)
    cache_inputs: list[str] = field(default_factory=list)  # `cache-inputs:` (ours) paths/globs
    kernel: tuple | None = None  # (`jupyter:` value, file, line) in force, or None
    title_heading: int = 0    # the heading Quarto's Jupyter engine makes the page's title
                              # outside a book (read/jupyter_title.py), its line; 0: none

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
        within = self.source_of(finding.within)[1] if finding.within > 0 else finding.within
        return replace(finding, path=path, line=line, within=within)


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
    markdown: str = ""        # what Quarto puts in the page's Markdown (bookcheck.run.inline_values)


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
    # What the run read besides its code (bookcheck.run.deps snapshot: files, dirs, env);
    # None when it could not be observed (such a run is never cached).
    deps: dict | None = None
    # Where the chapter's cells and inline expressions were when it ran
    # (bookcheck.run.fingerprint.anchors): cached findings move with them.
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
