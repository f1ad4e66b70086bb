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

from bookcheck import store
from bookcheck.model import Finding, Kind
from bookcheck.read import CONFIG, shortcodes
from bookcheck.read.figures import drawn_format, figure_options
from bookcheck.read.options import check, number_sections
from bookcheck.read.output_dir import unsafe as _unsafe_output_dir
from bookcheck.read.page_options import as_list, as_mapping, custom_callouts, page_footer
from bookcheck.read.profiles import LOCAL_OVERRIDES, overlay, read_mapping
from bookcheck.read.root import absolute_root
from bookcheck.read.sidebar import page_order, sidebars
from bookcheck.read.yamlio import compose_yaml, key_lines

DEFAULT_TIMEOUT_S = 120.0
# Never part of a book's sources: the folders Quarto 1.7 skips (engineIgnoreDirs,
# src/execute/engine.ts; hidden folders are skipped too), this checker's caches, and
# (source_files) its output folder and the checker's own code when it lives inside.
NOT_SOURCES = {"node_modules", "venv", "env", "renv", "packrat", "rsconnect", store.BUILD,
               "__pycache__"}
CHECKER = Path(__file__).resolve().parents[1]      # scripts/: tooling, not the book


@dataclass
class Project:
    """_quarto.yml with every option later stages need already resolved.

    No other module reads _quarto.yml: stages take these fields.
    """
    root: Path
    title: str = ""                                          # `book:`/`website: title:`, else `title:`
    subtitle: str = ""
    date: str = ""                                           # `book:`/top-level `date:`, as written
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
    metadata: dict = field(default_factory=dict)             # the merged configuration: what
                                                             # `{{< meta key >}}` reads below the front matter
    variables: dict = field(default_factory=dict)            # `_variables.yml` ({{< var key >}})
    shortcodes: list[str] = field(default_factory=list)      # shortcode names the project's extensions add
    number_sections: bool = True                             # `number-sections` (options.number_sections)
    output_dir: str = "_book"                                # `project: output-dir:`
    parts: list[str] = field(default_factory=list)           # `- part: file.qmd` pages (in chapters)
    execute_dir: str = "file"                                # `project: execute-dir:` file | project
    output_file: str = ""                                    # `book: output-file:`
    execute: dict = field(default_factory=dict)              # project `execute:` as written
    timeout_s: float = DEFAULT_TIMEOUT_S                     # `execute: timeout`, per cell
    literal_numbers: bool = False                            # `verify: literal-numbers:` (ours)
    fig_alt: bool = False                                    # `verify: fig-alt:` (ours)
    quarto_look: bool = False                                # `verify: quarto-look:` (ours): Quarto's
                                                             # pages get the built-in look (quarto_look.py)
    type: str = "book"                                       # `project: type:` book | website | default;
                                                             # single: .qmd files without _quarto.yml
    config_files: list[str] = field(default_factory=list)   # merged over _quarto.yml (read/profiles.py)
    profiles: list[str] = field(default_factory=list)       # the active Quarto profiles
    html_math: str = ""                                      # `html-math-method:` (format html's, else
    html_math_url: str = ""                                  # the top level's; "" unset) and its `url:`
    sidebars: list = field(default_factory=list)            # a website's `sidebar:`s (read/sidebar.py)
    jupyter: object = None                                   # `jupyter:` as written (kernel)
    jupyter_line: int = 0                                    # its line in _quarto.yml
    page_footer: dict = field(default_factory=dict)          # `book:`/`website: page-footer:`:
                                                             # left/center/right -> Markdown or nav items
    findings: list[Finding] = field(default_factory=list)

    @property
    def documents(self) -> list[str]:
        """Chapters then appendices, in book order."""
        return self.chapters + self.appendices

    def settings_files(self) -> list[str]:
        """_quarto.yml and every file Quarto merges over it: those merged now (a profile's,
        `metadata-files:`) and the local overrides even when absent (one a cell creates
        changes the next render as much as an edit of _quarto.yml)."""
        return list(dict.fromkeys([CONFIG, *LOCAL_OVERRIDES, *self.config_files]))

    def exec_dir(self, rel: str) -> str:
        """The folder a document runs in: its own (Quarto's default), or the root
        with `project: execute-dir: project`."""
        parent = PurePosixPath(rel).parent
        return "" if self.execute_dir == "project" or parent == PurePosixPath(".") else parent.as_posix()

    def named_files(self) -> list[str]:
        """The files the configuration names, as written (relative to the root; they may
        lie outside it): those merged over _quarto.yml, the bibliography, the CSL."""
        return [*self.config_files, *self.bibliography, *([self.csl] if self.csl else [])]

    def source_files(self) -> list[str]:
        """Every file that makes up the book (project-relative POSIX paths, sorted):
        _quarto.yml, documents, bibliography, numbers.lock, the chapters' packages,
        images... everything under the root but what Quarto skips, outputs, caches and
        the checker's own code."""
        root = Path(self.root)
        skip = NOT_SOURCES | set(PurePosixPath(self.output_dir or "_book").parts[:1])
        found: list[str] = []
        for folder, dirs, names in os.walk(root):
            rel_dir = Path(folder).relative_to(root)
            dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith(".")
                             and (Path(folder) / d).resolve() != CHECKER)
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


def load_project(root: Path, profile: str | None = None) -> Project:
    """Load `root/_quarto.yml` with Quarto `profile` (comma-separated names; None: the
    environment's QUARTO_PROFILE, else `profile: default:`); never raises on bad content.
    `project.root` is `root` made absolute (read/root.py)."""
    root = absolute_root(root)
    project = Project(root=root)
    singles = sorted(p.name for p in root.glob("*.qmd") if not p.name.startswith(("_", ".")))
    if singles and not (root / CONFIG).exists():   # `quarto render doc.qmd`: lone documents
        project.type, project.chapters = "single", singles
        return project
    node, config, problem = read_mapping(root, CONFIG)
    if problem:
        project.findings.append(problem)
        return project
    base_book = config.get("book")
    config, project.config_files, project.profiles, problems = overlay(root, config, profile)
    project.findings += problems
    _resolve(project, config)
    project.shortcodes = shortcodes.provided(root, config)
    project.variables, problems = shortcodes.variables(root)
    project.findings += problems
    lines = key_lines(node)
    project.execute, problems = check(project.execute, "execute",
                                      lambda name: (CONFIG, lines.get(("execute", name), 0)))
    project.findings += problems
    verify, problems = check(as_mapping(config.get("verify")), "verify",
                             lambda name: (CONFIG, lines.get(("verify", name), 0)))
    project.findings += problems
    project.literal_numbers, project.fig_alt, project.quarto_look = (
        verify.get(name) is True for name in ("literal-numbers", "fig-alt", "quarto-look"))
    project.findings += _math_method(project, node)
    if _child(node, "jupyter") is not None:
        project.jupyter, project.jupyter_line = config.get("jupyter"), _child(node, "jupyter").start_mark.line + 1
    book_node = _child(node, "book")
    if config.get("book") != base_book:          # a profile or metadata file changed `book:`
        book_node = compose_yaml(yaml.safe_dump(config.get("book")))[0]
    seen: set[str] = set()
    if project.type != "book":                   # website, default: every input file
        inputs = [r for r in _input_files(project, config) if _validate(project, r, 0, seen)]
        if project.type == "website":            # its pages in sidebar order (read/sidebar.py)
            project.sidebars = sidebars(root, as_mapping(config.get("website")), inputs)
        project.chapters = page_order(project.sidebars, inputs)
        project.findings += _unsafe_output_dir(project, lines.get(("project", "output-dir"), 0),
                                              default_output_dir(project.type))
        return project
    project.chapters = _entries(project, _child(book_node, "chapters"), seen, "chapters")
    project.appendices = _entries(project, _child(book_node, "appendices"), seen, "appendices")
    project.findings += _unsafe_output_dir(project, lines.get(("project", "output-dir"), 0),
                                              default_output_dir(project.type))
    if not project.chapters and not project.findings:
        project.findings.append(Finding(CONFIG, 1, Kind.YAML, "no `book: chapters:` list"))
    return project


def _input_files(project: Project, config: dict) -> list[str]:
    """A non-book project's documents as Quarto finds them: `project: render:` if
    given, else every .qmd/.md below the root but `_*`, `.*`, README and outputs."""
    listed = as_list(as_mapping(config.get("project")).get("render"))
    if listed:
        return [PurePosixPath(str(p)).as_posix() for p in listed if not any(c in str(p) for c in "*?[")]
    return _candidate_inputs(project)


def _candidate_inputs(project: Project) -> list[str]:
    """Every .qmd/.md/.ipynb of source_files() Quarto would take for a document: not `_*` or
    `.*` (files or folders), not README; index.qmd first."""
    found = [rel for rel in project.source_files() if rel.endswith((".qmd", ".md", ".ipynb"))
             and not any(part.startswith(("_", ".")) for part in rel.split("/"))
             and rel.rsplit("/", 1)[-1].lower() not in ("readme.md", "readme.qmd")]
    return sorted(found, key=lambda r: (r.count("/"), r != "index.qmd", r))


def unlisted_chapters(project: Project, included: set[str]) -> list[str]:
    """The .qmd files of a book that Quarto leaves out because `book:` lists them
    nowhere (chapters, appendices, part pages) and no chapter includes them."""
    if project.type != "book":
        return []                   # website, default: every input file renders
    known = set(project.documents) | set(project.parts) | included
    return [rel for rel in _candidate_inputs(project) if rel.endswith(".qmd") and rel not in known
            and not _nested_project(project.root, rel)]


def _nested_project(root: Path, rel: str) -> bool:
    """Whether `rel` lies in a folder with a _quarto.yml of its own (another book,
    such as a test fixture: not a forgotten chapter of this one)."""
    parents = PurePosixPath(rel).parents
    return any((Path(root) / p / CONFIG).is_file() for p in list(parents)[:-1])


def unlisted_note(rel: str) -> str:
    """The note for a .qmd file `unlisted_chapters` found, with how to list it."""
    name = PurePosixPath(rel).name
    return (f"{rel} is not in {CONFIG}, so it is not part of the book: to make it a "
            f"chapter, add `- {rel}` under `chapters:` (or `appendices:`) of `book:` in "
            f"{CONFIG}; if it is not a chapter, name it `_{name}`")


def _resolve(project: Project, config: dict) -> None:
    """Every option the later stages use, resolved from the raw mapping."""
    book = as_mapping(config.get("book"))
    site = as_mapping(config.get("website"))
    project.title = str(book.get("title") or site.get("title") or config.get("title") or "")
    project.page_footer = page_footer(book.get("page-footer", site.get("page-footer")))
    project.subtitle = str(book.get("subtitle") or config.get("subtitle") or "")
    project.date = str(book.get("date") or config.get("date") or "")
    project.execute = as_mapping(config.get("execute"))
    project.timeout_s = _timeout(project.execute.get("timeout"))
    bib = config.get("bibliography", book.get("bibliography"))
    project.bibliography = [str(b) for b in as_list(bib) if b]
    csl = config.get("csl")
    project.csl = str(csl) if csl else None
    project.lang = str(config.get("lang") or "en")
    authors = as_list(book.get("author") or config.get("author"))
    project.authors = [str(a.get("name", "")) if isinstance(a, dict) else str(a)
                       for a in authors if a]
    project.crossref = as_mapping(config.get("crossref"))
    project.custom_callouts = custom_callouts(config)
    formats = as_mapping(config.get("format"))
    project.formats = [str(name) for name in formats]
    project.figure = figure_options(config)
    math = as_mapping(formats.get("html")).get("html-math-method", config.get("html-math-method"))
    if isinstance(math, dict):                   # {method: katex, url: …}
        project.html_math_url, math = str(math.get("url") or ""), math.get("method")
    project.html_math = str(math or "")
    project.figure_format = drawn_format(config.get("format"))
    project.metadata = {k: v for k, v in config.items() if k != "project"}
    # Quarto's type is `default` unless set; a `book:` key alone still means a book here
    project.type = str(as_mapping(config.get("project")).get("type")
                       or ("book" if "book" in config else "default"))
    # Quarto numbers a book's sections unless told not to, a website's only when told to
    project.number_sections = number_sections(config, project.figure_format, project.type == "book")
    project.output_dir = str(as_mapping(config.get("project")).get("output-dir")
                             or default_output_dir(project.type))
    project.execute_dir = str(as_mapping(config.get("project")).get("execute-dir") or "file")
    project.output_file = str(book.get("output-file") or "")


def default_output_dir(project_type: str) -> str:
    """Quarto's output folder for a project type (a book's `_book`, a website's `_site`;
    a default project renders beside its sources, which a swap would delete: `_book`)."""
    return "_site" if project_type == "website" else "_book"


def _timeout(value) -> float:
    """`execute: timeout` in seconds; missing, zero, negative or not a number: 120 s."""
    try:
        return float(value) if value and float(value) > 0 else DEFAULT_TIMEOUT_S
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT_S


#: the `html-math-method`s the renderers honour (Quarto's schema also has gladtex: its `<eq>`
#: elements wait for the GladTeX program, which neither Quarto nor this renderer runs)
MATH_METHODS = ("mathml", "mathjax", "katex", "plain", "webtex")


def _math_method(project: Project, node) -> list[Finding]:
    """A finding for an `html-math-method` no renderer here honours, at its line."""
    if not project.html_math or project.html_math in MATH_METHODS:
        return []
    value = _child(_child(_child(node, "format"), "html"), "html-math-method") or \
        _child(node, "html-math-method")
    why = ("leaves each formula's TeX in an `<eq>` element for the GladTeX program, which "
           "neither Quarto nor this renderer runs: readers see raw TeX"
           if project.html_math == "gladtex" else "is not a method Quarto 1.7 knows")
    return [Finding(CONFIG, value.start_mark.line + 1 if value is not None else 0, Kind.MATH_METHOD,
                    f"`html-math-method: {project.html_math}` {why}; use one of "
                    f"{', '.join(MATH_METHODS)} (mathml: the built-in pages work offline)")]


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
