"""Read and validate `_quarto.yml` into a Project.

Chapters and appendices are returned as project-relative POSIX paths with
`part:` groups flattened; a `part: file.qmd` is a document of its own (listed
before its chapters and in `parts`), a `part: "Title"` only a label. Problems (malformed YAML, a missing or duplicated
chapter, a path escaping the project) become findings located in
`_quarto.yml`; a bad entry is dropped from the list, never read.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from scripts import store
from scripts.model import CodeCell, Finding, Kind, ParsedChapter
from scripts.read import CONFIG
from scripts.read.figures import document_figure_options, drawn_format, figure_options
from scripts.read.profiles import overlay
from scripts.read.yamlio import YAMLError, compose_yaml, yaml_problem

# Execute options that cascade to cells (project -> front matter -> cell).
CELL_DEFAULTS = ("eval", "echo", "output", "warning", "error", "include")
# Quarto's own defaults for the Jupyter engine (below everything else).
QUARTO_CELL_DEFAULTS = {"echo": True, "eval": True, "output": True, "include": True}
DEFAULT_TIMEOUT_S = 120.0
# Never part of the book's sources: tooling, outputs, caches, version control.
NOT_SOURCES = {".git", ".venv", "venv", store.BUILD, "_book", "__pycache__", "node_modules",
               ".quarto", ".pytest_cache", ".hypothesis", "scripts", "tests"}


@dataclass
class Project:
    """_quarto.yml with every option later stages need already resolved.

    No other module reads _quarto.yml: stages take these fields.
    """
    root: Path
    title: str = ""
    subtitle: str = ""
    chapters: list[str] = field(default_factory=list)
    appendices: list[str] = field(default_factory=list)
    bibliography: list[str] = field(default_factory=list)    # project-relative, in order
    csl: str | None = None
    lang: str = "en"
    authors: list[str] = field(default_factory=list)
    crossref: dict = field(default_factory=dict)             # `crossref:` options
    custom_callouts: dict = field(default_factory=dict)      # class -> {"title", "color"}: the
                                                             # custom-callout extension's types
    formats: list[str] = field(default_factory=list)         # `format:` names, in order
    figure: dict = field(default_factory=lambda: figure_options({}))  # Quarto's figure options for the
                                                             # kernels (read/figures.py)
    figure_format: str = "html"                              # the format they are drawn for
    output_dir: str = "_book"                                # `project: output-dir:`
    parts: list[str] = field(default_factory=list)           # `- part: file.qmd` pages (in chapters)
    execute_dir: str = "file"                                # `project: execute-dir:` file | project
    output_file: str = ""                                    # `book: output-file:`
    execute: dict = field(default_factory=dict)              # project `execute:` as written
    timeout_s: float = DEFAULT_TIMEOUT_S                     # `execute: timeout`, per cell
    literal_numbers: bool = False                            # `verify: literal-numbers:` (ours)
    fig_alt: bool = False                                    # `verify: fig-alt:` (ours)
    type: str = "book"                                       # `project: type:` book | website | default;
                                                             # single: .qmd files without _quarto.yml
    config_files: list[str] = field(default_factory=list)   # merged over _quarto.yml (read/profiles.py)
    jupyter: object = None                                   # `jupyter:` as written (kernel)
    jupyter_line: int = 0                                    # its line in _quarto.yml
    findings: list[Finding] = field(default_factory=list)

    @property
    def documents(self) -> list[str]:
        """Chapters then appendices, in book order."""
        return self.chapters + self.appendices

    @property
    def cell_defaults(self) -> dict:
        """The project's `execute:` options that cascade to cells."""
        return {k: v for k, v in self.execute.items() if k in CELL_DEFAULTS}

    def exec_dir(self, rel: str) -> str:
        """The folder a document runs in: its own (Quarto's default), or the root
        with `project: execute-dir: project`."""
        parent = PurePosixPath(rel).parent
        return "" if self.execute_dir == "project" or parent == PurePosixPath(".") else parent.as_posix()

    def execution_enabled(self, parsed: ParsedChapter) -> bool:
        """`execute: enabled:` of the front matter, else of _quarto.yml (default true)."""
        front = parsed.front_matter.get("execute")
        value = front.get("enabled") if isinstance(front, dict) and "enabled" in front \
            else self.execute.get("enabled", True)
        return not option_false(value)

    def apply_execute_options(self, parsed: ParsedChapter) -> None:
        """Quarto's cascade, in place: project `execute:`, then front matter, then the cell;
        and the document's figure options (the project's under its front matter's).

        Only options somebody set are written (Quarto's defaults stay implicit:
        see effective_options), so they are part of the chapter's cache key.
        """
        defaults = self.cell_defaults
        front = parsed.front_matter.get("execute")
        if isinstance(front, dict):
            defaults.update({k: v for k, v in front.items() if k in CELL_DEFAULTS})
        if defaults:
            for cell in parsed.cells:
                cell.options = {**defaults, **cell.options}
        parsed.exec_dir = self.exec_dir(parsed.path)
        parsed.execute = self.execution_enabled(parsed)
        parsed.figure = document_figure_options(self.figure, parsed.front_matter, self.figure_format)
        if not parsed.execute:          # no kernel: cells are shown, never run
            for cell in parsed.cells:
                cell.options = {**cell.options, "eval": False}

    def source_files(self) -> list[str]:
        """Every file that makes up the book (project-relative POSIX paths, sorted):
        _quarto.yml, documents, bibliography, numbers.lock, the chapters' packages,
        images... everything under the root except tooling, outputs and caches."""
        root = Path(self.root)
        skip = NOT_SOURCES | {PurePosixPath(self.output_dir).parts[0] if self.output_dir else "_book"}
        found: list[str] = []
        for folder, dirs, names in os.walk(root):
            rel_dir = Path(folder).relative_to(root)
            dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("."))
            found += [(rel_dir / n).as_posix() for n in names
                      if not n.endswith((".pyc", ".pyo")) and not n.startswith(".")]
        return sorted(found)

    def copy_to(self, dest: Path) -> Path:
        """Copy source_files() to `dest` (created); returns `dest`."""
        dest = Path(dest)
        for rel in self.source_files():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(self.root) / rel, target, follow_symlinks=True)
        return dest


def effective_options(cell: CodeCell) -> dict:
    """A cell's options (cascade already applied) over Quarto's defaults."""
    return {**QUARTO_CELL_DEFAULTS, **cell.options}


def option_false(value) -> bool:
    """A cell option that says false (`false`, `False`, "false")."""
    return value is False or str(value).lower() == "false"


def option_true(value) -> bool:
    """A cell option that says true (`true`, `True`, "true")."""
    return value is True or str(value).lower() == "true"


def load_project(root: Path) -> Project:
    """Load `root/_quarto.yml`; never raises on bad content."""
    root = Path(root)
    project = Project(root=root)
    path = root / CONFIG
    try:
        raw = path.read_bytes()
    except OSError as exc:
        singles = sorted(p.name for p in root.glob("*.qmd") if not p.name.startswith(("_", ".")))
        if singles and not path.exists():   # `quarto render doc.qmd`: lone documents, no project
            project.type, project.chapters = "single", singles
            return project
        project.findings.append(Finding(CONFIG, 0, Kind.YAML, f"cannot read {CONFIG}: {exc.strerror}"))
        return project
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        project.findings.append(Finding(CONFIG, line, Kind.ENCODING, "not valid UTF-8"))
        return project
    try:
        node, config = compose_yaml(text)
    except YAMLError as exc:
        problem = yaml_problem(exc)
        project.findings.append(Finding(CONFIG, problem.line or 0, Kind.YAML,
                                        f"malformed YAML: {problem.reason}", col=problem.col))
        return project
    if not isinstance(config, dict):
        project.findings.append(Finding(CONFIG, 1, Kind.YAML, f"{CONFIG} is not a YAML mapping"))
        return project
    base_book = config.get("book")
    config, project.config_files, problems = overlay(root, config)   # metadata-files, profiles
    project.findings += problems
    _resolve(project, config)
    if _child(node, "jupyter") is not None:
        project.jupyter, project.jupyter_line = config.get("jupyter"), _child(node, "jupyter").start_mark.line + 1
    book_node = _child(node, "book")
    if config.get("book") != base_book:          # a profile or metadata file changed `book:`
        book_node = compose_yaml(yaml.safe_dump(config.get("book")))[0]
    seen: set[str] = set()
    if project.type != "book":                   # website, default: every input file
        project.chapters = [r for r in _input_files(project, config) if _validate(project, r, 0, seen)]
        return project
    project.chapters = _entries(project, _child(book_node, "chapters"), seen, "chapters")
    project.appendices = _entries(project, _child(book_node, "appendices"), seen, "appendices")
    if not project.chapters and not project.findings:
        project.findings.append(Finding(CONFIG, 1, Kind.YAML, "no `book: chapters:` list"))
    return project


def _input_files(project: Project, config: dict) -> list[str]:
    """A non-book project's documents as Quarto finds them: `project: render:` if
    given, else every .qmd/.md below the root but `_*`, `.*`, README and outputs."""
    listed = _as_list(_mapping(config.get("project")).get("render"))
    if listed:
        return [PurePosixPath(str(p)).as_posix() for p in listed if not any(c in str(p) for c in "*?[")]
    return _candidate_inputs(project)


def _candidate_inputs(project: Project) -> list[str]:
    """Every .qmd/.md below the root Quarto would take for a document: not `_*` or
    `.*` (files or folders), not README, not in outputs or tooling; index.qmd first."""
    skip = NOT_SOURCES | {PurePosixPath(project.output_dir or "_book").parts[0]}
    found = []
    for folder, dirs, names in os.walk(project.root):
        rel_dir = Path(folder).relative_to(project.root)
        dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith(("_", ".")))
        found += [(rel_dir / n).as_posix() for n in names if n.endswith((".qmd", ".md"))
                  and not n.startswith(("_", ".")) and n.lower() not in ("readme.md", "readme.qmd")]
    return sorted(found, key=lambda r: (r.count("/"), r != "index.qmd", r))


def unlisted_chapters(project: Project, included: set[str]) -> list[str]:
    """The .qmd files of a book that Quarto leaves out because `book:` lists them
    nowhere (chapters, appendices, part pages) and no chapter includes them."""
    if project.type != "book":
        return []                   # website, default: every input file renders
    known = set(project.documents) | set(project.parts) | included
    return [rel for rel in _candidate_inputs(project) if rel.endswith(".qmd") and rel not in known]


def unlisted_note(rel: str) -> str:
    """The note for a .qmd file `unlisted_chapters` found, with how to list it."""
    name = PurePosixPath(rel).name
    return (f"{rel} is not in {CONFIG}, so it is not part of the book: to make it a "
            f"chapter, add `- {rel}` under `chapters:` (or `appendices:`) of `book:` in "
            f"{CONFIG}; if it is not a chapter, name it `_{name}`")


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def _as_list(value) -> list:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list) else [value]


def _resolve(project: Project, config: dict) -> None:
    """Every option the later stages use, resolved from the raw mapping."""
    book = _mapping(config.get("book"))
    project.title = str(book.get("title") or config.get("title") or "")
    project.subtitle = str(book.get("subtitle") or config.get("subtitle") or "")
    project.execute = _mapping(config.get("execute"))
    project.timeout_s = _timeout(project.execute.get("timeout"))
    bib = config.get("bibliography", book.get("bibliography"))
    project.bibliography = [str(b) for b in _as_list(bib) if b]
    csl = config.get("csl")
    project.csl = str(csl) if csl else None
    project.lang = str(config.get("lang") or "en")
    authors = _as_list(book.get("author") or config.get("author"))
    project.authors = [str(a.get("name", "")) if isinstance(a, dict) else str(a)
                       for a in authors if a]
    project.crossref = _mapping(config.get("crossref"))
    project.custom_callouts = custom_callouts(config)
    formats = _mapping(config.get("format"))
    project.formats = [str(name) for name in formats]
    project.figure = figure_options(config)
    project.figure_format = drawn_format(config.get("format"))
    # Quarto's type is `default` unless set; a `book:` key alone still means a book here
    project.type = str(_mapping(config.get("project")).get("type")
                       or ("book" if "book" in config else "default"))
    default_out = "_book" if project.type == "book" else "_site" if project.type == "website" else ""
    project.output_dir = str(_mapping(config.get("project")).get("output-dir") or default_out or "_book")
    project.execute_dir = str(_mapping(config.get("project")).get("execute-dir") or "file")
    project.output_file = str(book.get("output-file") or "")
    # This pipeline's own checks live under `verify:` (Quarto ignores the key).
    verify = _mapping(config.get("verify"))
    project.literal_numbers = bool(verify.get("literal-numbers"))
    project.fig_alt = bool(verify.get("fig-alt"))


def custom_callouts(config: dict) -> dict:
    """Callout types an extension adds (coatless-quarto/custom-callout: `filters:` lists
    `custom-callout` and `custom-callout: {todo: {title: ..., color: ...}}` defines them).

    class -> {"title", "color"}: a div with that class is a callout; its default title is
    the type's `title`, else its name capitalised (the extension's rule). Without the
    filter listed Quarto ignores the key, and so does this.
    """
    filters = [str(f.get("path", "")) if isinstance(f, dict) else str(f)
               for f in _as_list(config.get("filters"))]
    if not any("custom-callout" in f for f in filters):
        return {}
    found = {}
    for name, spec in _mapping(config.get("custom-callout")).items():
        if isinstance(spec, dict):
            title = spec.get("title") or str(name)[:1].upper() + str(name)[1:]
            found[str(name)] = {"title": str(title), "color": str(spec.get("color") or "")}
    return found


def _timeout(value) -> float:
    """`execute: timeout` in seconds; missing, zero, negative or not a number: 120 s."""
    try:
        return float(value) if value and float(value) > 0 else DEFAULT_TIMEOUT_S
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT_S


def _child(node, key: str):
    """The value node under `key` of a mapping node, or None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _entries(project: Project, node, seen: set[str], what: str) -> list[str]:
    """Flatten a chapters/appendices sequence node into valid relative paths."""
    if node is None:
        return []
    if not isinstance(node, yaml.SequenceNode):
        project.findings.append(Finding(CONFIG, node.start_mark.line + 1, Kind.YAML,
                                        f"`{what}` must be a list"))
        return []
    paths: list[str] = []
    for item in node.value:
        if isinstance(item, yaml.MappingNode):      # {part: ..., chapters: [...]}
            part = _child(item, "part")
            if isinstance(part, yaml.ScalarNode) and part.value.endswith((".qmd", ".md")):
                # a part page: executed, checked and rendered, unnumbered (Quarto)
                rel = _validate(project, part.value, part.start_mark.line + 1, seen)
                if rel:
                    paths.append(rel)
                    project.parts.append(rel)
            paths += _entries(project, _child(item, "chapters"), seen, what)
            continue
        if not isinstance(item, yaml.ScalarNode) or not item.value:
            project.findings.append(Finding(CONFIG, item.start_mark.line + 1, Kind.YAML,
                                            f"unexpected entry in `{what}`"))
            continue
        rel = _validate(project, item.value, item.start_mark.line + 1, seen)
        if rel:
            paths.append(rel)
    return paths


def _validate(project: Project, entry: str, line: int, seen: set[str]) -> str | None:
    """Return the normalised path of a chapter entry, or None with a finding."""
    pure = PurePosixPath(entry)
    root = project.root.resolve()
    if pure.is_absolute() or ".." in pure.parts or not _inside(root, root / pure):
        project.findings.append(Finding(CONFIG, line, Kind.CHAPTER_PATH,
                                        f"chapter path escapes the project: {entry}"))
        return None
    rel = pure.as_posix()
    if rel in seen:
        project.findings.append(Finding(CONFIG, line, Kind.DUPLICATE_CHAPTER,
                                        f"chapter listed twice: {rel}"))
        return None
    seen.add(rel)
    if not (root / pure).is_file():
        project.findings.append(Finding(CONFIG, line, Kind.MISSING_CHAPTER,
                                        f"chapter file does not exist: {rel}"))
        return None
    return rel


def _inside(root: Path, path: Path) -> bool:
    """True when `path` (symlinks resolved) lies under `root`."""
    try:
        path.resolve().relative_to(root)
        return True
    except (ValueError, OSError):
        return False
