"""The labels a chapter defines, the @references it makes and the citations it cites,
read from its prose (code already blanked) as Quarto and pandoc read them."""
from __future__ import annotations

import re

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read.crossref_kinds import PREFIXES as CROSSREF_PREFIXES, prefixes
from bookcheck.read.textpos import Lines

HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Quarto's callout cross-reference types (`::: {#nte-x .callout-note}`, `@nte-x`):
# a label of these kinds is defined only on a callout div.
CALLOUT_PREFIXES = prefixes("callout")
LABEL_CHARS = r"[A-Za-z0-9_][A-Za-z0-9_:.\-]*[A-Za-z0-9_]|[A-Za-z0-9_]"
# pandoc's attribute list `{#id .class key=value key="value" key='value'}` on one line:
# a quoted value may hold braces (`fig-cap="$F_{i,j}$"`), and a `#` in it is no label.
QUOTED = r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
ATTRIBUTES = re.compile(r"\{(?:[^{}\"'\n]|" + QUOTED + r")*\}")
ATTR_LABEL = re.compile(r"#((?:" + "|".join(CROSSREF_PREFIXES) + r")-(?:" + LABEL_CHARS + r"))")
DIV_OPEN = re.compile(r"^[ \t]*:{3,}[ \t]*\{")
# pandoc citation: @key where key starts with a letter, digit or _ ;
# not preceded by a word character (emails) or by another @.
AT_KEY = re.compile(r"(?<![\w@.`/])@(" + LABEL_CHARS + r")")


def labels_and_refs(chapter: ParsedChapter, prose: str) -> None:
    """Record labels defined, @references and citations (code already blanked)."""
    prose = HTML_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)
    where = Lines(prose)
    found = [(label, where.locate(offset)[0]) for label, offset, attributes in _attr_labels(prose)
             if _defines(label, attributes)]
    found += _cell_labels(chapter, found)
    found += chapter.labels         # a listing's label on its code block's fence (_fenced_blocks)
    found += [(str(c.options["lst-label"]).lstrip("#"), c.first_code_line) for c in chapter.cells
              if isinstance(c.options.get("lst-label"), str)]     # a cell's `lst-label: lst-x`
    chapter.labels = sorted(found, key=lambda item: item[1])
    for m in AT_KEY.finditer(prose):
        key = m.group(1)
        line, col = where.locate(m.start())
        if key.split("-", 1)[0] in CROSSREF_PREFIXES and "-" in key:
            chapter.references.append((key, line, col))
        else:
            chapter.citations.append((key, line, col))


def _attr_labels(prose: str):
    """(label, offset, attribute list) of each attribute list's `#label` (not in a quoted value)."""
    for block in ATTRIBUTES.finditer(prose):
        bare = re.sub(QUOTED, lambda q: " " * len(q.group(0)), block.group(0))
        m = ATTR_LABEL.search(bare)
        if m:
            yield m.group(1), block.start() + m.start(1), bare


def _cell_labels(chapter: ParsedChapter, found: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The cells' labels; a cell labelled as the figure div that wraps it is a finding
    (Quarto writes both elements with one id, silently), its label not counted twice."""
    lines = chapter.text.split("\n")
    divs = {label: line for label, line in found if DIV_OPEN.match(lines[line - 1])}
    labels = []
    for cell in chapter.cells:
        if not cell.label:
            continue
        div = divs.get(cell.label)
        if div is None or div > cell.fence_line:
            labels.append((cell.label, cell.first_code_line))
            continue
        line = cell.option_lines.get("label", cell.first_code_line)
        chapter.findings.append(Finding(
            chapter.path, line, Kind.DUPLICATE_LABEL,
            f"label {cell.label} is defined twice: by the div at line {div} and by this cell "
            f"inside it (Quarto writes both with one id, silently): remove `#| label:` (and "
            f"`fig-cap`) from the cell, the div defines it", label=cell.label,
            detail=lines[line - 1].strip()))
    return labels


def _defines(label: str, attributes: str) -> bool:
    """Whether `{... #label ...}` defines the label: a callout label only on a callout."""
    if label.split("-", 1)[0] not in CALLOUT_PREFIXES:
        return True
    return re.search(r"(?:^|[\s{])\.callout-[\w-]+", attributes) is not None
