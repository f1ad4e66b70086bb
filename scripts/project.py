"""Read and validate `_quarto.yml` into a Project.

Chapters and appendices are returned as project-relative POSIX paths with
`part:` groups flattened. Problems (malformed YAML, a missing or duplicated
chapter, a path escaping the project) become findings located in
`_quarto.yml`; a bad entry is dropped from the list, never read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from scripts.model import Finding

CONFIG = "_quarto.yml"


@dataclass
class Project:
    root: Path
    title: str = ""
    chapters: list[str] = field(default_factory=list)
    appendices: list[str] = field(default_factory=list)
    bibliography: str | None = None
    config: dict = field(default_factory=dict)
    execute: dict = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def documents(self) -> list[str]:
        """Chapters then appendices, in book order."""
        return self.chapters + self.appendices


def load_project(root: Path) -> Project:
    """Load `root/_quarto.yml`; never raises on bad content."""
    root = Path(root)
    project = Project(root=root)
    path = root / CONFIG
    try:
        raw = path.read_bytes()
    except OSError as exc:
        project.findings.append(Finding(CONFIG, 0, "yaml", f"cannot read {CONFIG}: {exc.strerror}"))
        return project
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        project.findings.append(Finding(CONFIG, line, "encoding", "not valid UTF-8"))
        return project
    try:
        node, config = _parse(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        project.findings.append(Finding(
            CONFIG, mark.line + 1 if mark else 0, "yaml", f"malformed YAML: {problem}",
            col=mark.column + 1 if mark else None))
        return project
    if not isinstance(config, dict):
        project.findings.append(Finding(CONFIG, 1, "yaml", f"{CONFIG} is not a YAML mapping"))
        return project
    project.config = config
    book = config.get("book") if isinstance(config.get("book"), dict) else {}
    project.title = str(book.get("title") or config.get("title") or "")
    project.execute = config.get("execute") if isinstance(config.get("execute"), dict) else {}
    bib = config.get("bibliography", book.get("bibliography"))
    if isinstance(bib, list):
        bib = bib[0] if bib else None
    project.bibliography = str(bib) if bib else None
    book_node = _child(node, "book")
    seen: set[str] = set()
    project.chapters = _entries(project, _child(book_node, "chapters"), seen, "chapters")
    project.appendices = _entries(project, _child(book_node, "appendices"), seen, "appendices")
    if not project.chapters and not project.findings:
        project.findings.append(Finding(CONFIG, 1, "yaml", "no `book: chapters:` list"))
    return project


def _parse(text: str):
    """(node tree with line marks, plain data); libyaml when available, the pure-Python
    parser on errors (its marks are more precise)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
        return node, yaml.load(text, Loader=loader)
    except yaml.YAMLError:
        if loader is yaml.SafeLoader:
            raise
        return yaml.compose(text, Loader=yaml.SafeLoader), yaml.safe_load(text)


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
        project.findings.append(Finding(CONFIG, node.start_mark.line + 1, "yaml",
                                        f"`{what}` must be a list"))
        return []
    paths: list[str] = []
    for item in node.value:
        if isinstance(item, yaml.MappingNode):      # {part: ..., chapters: [...]}
            paths += _entries(project, _child(item, "chapters"), seen, what)
            continue
        if not isinstance(item, yaml.ScalarNode) or not item.value:
            project.findings.append(Finding(CONFIG, item.start_mark.line + 1, "yaml",
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
        project.findings.append(Finding(CONFIG, line, "chapter-path",
                                        f"chapter path escapes the project: {entry}"))
        return None
    rel = pure.as_posix()
    if rel in seen:
        project.findings.append(Finding(CONFIG, line, "duplicate-chapter",
                                        f"chapter listed twice: {rel}"))
        return None
    seen.add(rel)
    if not (root / pure).is_file():
        project.findings.append(Finding(CONFIG, line, "missing-chapter",
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
