"""Rules the book's sources must follow, as small pure functions over text.

Each function returns the list of problems it found (empty when the text
follows the rule), so the tests can apply it to the real book and to small
counter-examples that prove the rule can fail.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

from bookcheck.read.project import load_project
from bookcheck.read.qmd import parse_chapter

ROOT = Path(__file__).resolve().parents[2]

_PROJECT = load_project(ROOT)

#: The book in reading order, as _quarto.yml lists it (read by the pipeline's own reader).
CHAPTERS = list(_PROJECT.chapters)
APPENDICES = list(_PROJECT.appendices)
BOOK_FILES = CHAPTERS + APPENDICES

#: Citation keys book.md requires references.bib to hold (it may hold more).
SPEC_BIB_KEYS = {"young1974", "daly2006", "grattafiori2024", "wan2025", "ma2025", "tung2026",
                 "si2025", "douillard2026", "zhong2024", "qin2025", "erdil2025", "sinha2026",
                 "metr2026", "yao2025", "barroso2018"}

_TITLE_ID = re.compile(r"\{#sec-([\w-]+)")


def label_prefix(rel: str, root: Path = ROOT) -> str | None:
    """The prefix every label of `rel` carries: the id of its title (`# Title {#sec-X}` -> X).

    Labels are unique book-wide because each file owns one prefix; a file whose
    title has no `#sec-` id (the preface) may define no labels.
    """
    title = next((line for _, line in prose_lines(read(rel, root)) if line.startswith("# ")), "")
    match = _TITLE_ID.search(title)
    return match.group(1) if match else None


#: Modules a chapter may import from.
ALLOWED_IMPORTS = {"mlsys", "math"}

#: Inline expressions that may be shown although their name does not end in _str
#: (none today; document the reason next to any addition).
INLINE_EXCEPTIONS: set[str] = set()

CALLOUT_KINDS = {"note", "tip", "warning", "important", "caution"}

_FENCE = re.compile(r"^(\s*)(```+)")
_GRID_BORDER = re.compile(r"^\s*\+(?:[-=:]+\+)+\s*$")
_GRID_ROW = re.compile(r"^\s*\|.*\|\s*$")
_HAND_INDEXED = re.compile(r"\[\s*\d+\s*\]\s*\[\s*['\"]")
_CALLOUT = re.compile(r"^:::+\s*\{\.callout-(\w+)")
_BIB_ENTRY = re.compile(r"^@\w+\s*\{\s*([^,\s]+)\s*,", re.M)


def read(rel: str, root: Path = ROOT) -> str:
    return (root / rel).read_text(encoding="utf-8")


def parsed(rel: str, root: Path = ROOT):
    return parse_chapter(rel, read(rel, root))


def quarto_config(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_quarto.yml").read_text(encoding="utf-8"))


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the markdown outside code fences and front matter."""
    out, fence, in_front = [], None, False
    for number, line in enumerate(text.splitlines(), start=1):
        if number == 1 and line.strip() == "---":
            in_front = True
            continue
        if in_front:
            in_front = line.strip() != "---"
            continue
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(2)
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        out.append((number, line))
    return out


def grid_table_lines(text: str) -> list[int]:
    """Lines of grid tables (a +---+ border followed or preceded by a | row)."""
    lines = prose_lines(text)
    hits = []
    for i, (number, line) in enumerate(lines):
        if _GRID_BORDER.match(line):
            neighbours = [lines[j][1] for j in (i - 1, i + 1) if 0 <= j < len(lines)]
            if any(_GRID_ROW.match(n) or _GRID_BORDER.match(n) for n in neighbours):
                hits.append(number)
    return hits


def disallowed_imports(source: str) -> list[str]:
    """Modules imported by a cell other than mlsys (and its submodules) or math."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        else:
            continue
        bad += [n for n in names if n.split(".")[0] not in ALLOWED_IMPORTS]
    return bad


def only_imports(source: str) -> bool:
    """True when a cell's code is nothing but import statements."""
    body = ast.parse(source).body
    return bool(body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body)


def inline_problems(chapter) -> list[str]:
    """Inline expressions that are not a plain name ending in _str."""
    bad = []
    for inline in chapter.inlines:
        expr = inline.expr.strip()
        if expr in INLINE_EXCEPTIONS:
            continue
        if not expr.isidentifier() or not expr.endswith("_str"):
            bad.append(f"{chapter.path}:{inline.line}: `{expr}`")
    return bad


def hand_indexed_rows(source: str) -> list[str]:
    """Places where a cell reads a row by position and a field by name (rows[0]["x"])."""
    return _HAND_INDEXED.findall(source)


def label_prefix_problems(chapter, prefix: str | None) -> list[str]:
    """Labels (sec-, tbl-, fig-, eq-) that do not carry the file's prefix."""
    bad = []
    for label, line in chapter.labels:
        kind, _, rest = label.partition("-")
        if kind not in {"sec", "tbl", "fig", "eq"}:
            continue                                   # plain cell labels
        if prefix is None or not (rest == prefix or rest.startswith(prefix + "-")):
            bad.append(f"{chapter.path}:{line}: {label}")
    return bad


def caption_problems(chapter) -> list[str]:
    """tbl- cells without tbl-cap; fig- cells without fig-cap or fig-alt; empty captions."""
    bad = []
    for cell in chapter.cells:
        label = cell.label or ""
        needed = ("tbl-cap",) if label.startswith("tbl-") else \
                 ("fig-cap", "fig-alt") if label.startswith("fig-") else ()
        for option in needed:
            if not str(cell.options.get(option) or "").strip():
                bad.append(f"{chapter.path}:{cell.fence_line}: {label} lacks {option}")
    return bad


def callout_problems(text: str) -> list[str]:
    return [f"line {n}: callout-{m.group(1)}" for n, line in prose_lines(text)
            if (m := _CALLOUT.match(line)) and m.group(1) not in CALLOUT_KINDS]


def bib_keys(text: str) -> list[str]:
    return _BIB_ENTRY.findall(text)


def labels_of(chapter, kind: str) -> list[str]:
    return [label for label, _ in chapter.labels if label.startswith(kind + "-")]


def cell_code(chapter) -> str:
    """All code of a chapter's cells, without the option lines."""
    return "\n".join(
        "\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith("#|"))
        for cell in chapter.cells)


def check_messages(chapter) -> list[str]:
    """The message strings of every check(condition, "message") call in the cells."""
    messages = []
    for node in ast.walk(ast.parse(cell_code(chapter))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "check" and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            messages.append(node.args[1].value)
    return messages


_STRIP_INLINE = [re.compile(p) for p in (r"`[^`]*`", r"\$\$.*?\$\$", r"\$[^$]*\$",
                                         r"\{#[^}]*\}", r"@[\w:-]+")]
_TYPED_QUANTITY = re.compile(r"(?<![\w.^])(\d[\d,]*(?:\.\d+)?\s?%|\d[\d,]*\.\d+)")

#: Typed numbers that are definitions, not derived values: (file, text) pairs.
TYPED_ALLOWED = {
    ("contents/appendix-foundations.qmd", "99%"),     # the definition of "two nines"
    ("contents/appendix-foundations.qmd", "99.9%"),   # the definition of "three nines"
}


def typed_quantities(rel: str, text: str) -> list[str]:
    """Decimals and percentages typed into prose (outside code, math and inline values)."""
    found = []
    for number, line in prose_lines(text):
        if line.lstrip().startswith(("$$", "\\")):
            continue
        stripped = line
        for pattern in _STRIP_INLINE:
            stripped = pattern.sub(" ", stripped)
        for match in _TYPED_QUANTITY.finditer(stripped):
            token = match.group(1).replace(" ", "")
            if (rel, token) not in TYPED_ALLOWED:
                found.append(f"{rel}:{number}: {token}")
    return found


def unused_imports(chapter) -> list[str]:
    """Names imported by a chapter's cells that no other code of the chapter uses."""
    imported, used = [], set()
    for cell in chapter.cells:
        tree = ast.parse(cell.source)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported += [(a.asname or a.name).split(".")[0] for a in node.names]
            elif isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                pass
    inline_names = {i.expr.strip() for i in chapter.inlines}
    return [name for name in imported if name not in used | inline_names]
