"""`make pipe-tables`: rewrite grid tables holding inline values as pipe tables.

Quarto inserts an inline value's text into a grid table without re-aligning
its borders, so pandoc garbles the table silently; `make check` reports each
such value (`grid-table-inline`). A pipe table has no borders to misalign.
This command rewrites a grid table that holds a `{python}` value as a pipe
table when the rewrite loses nothing:

- every row is one line, and every line's `|` stand where the border's `+` do
  (no multi-line cell, no column or row span);
- the table has a header row (`+===+` below it): a pipe table needs one;

Alignment is kept (`:` in the header separator, or in the top border: `:---`,
`---:`, `:---:`), and so, nearly, are the relative column widths (an alignment
row's dashes span its column: the grid column's width, or its widest cell). A
caption line (`: caption {#tbl-x}`) stays as written. Any other grid table is
left untouched and listed with its reason: it stays a `make check` finding.
Tables inside fenced code blocks are never touched. A pure text
transformation: `rewrite(text)` is all the logic, `main` reads and writes files.

    python -m scripts.tools.grid_tables [--check] [FILE ...]   (default: the book's documents)
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

BORDER = re.compile(r"^(?P<indent>[ \t]*)\+(?:[-=:]+\+)+[ \t]*$")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
INLINE = re.compile(r"`\{python\}[ \t]")
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@dataclass
class Rewrite:
    text: str
    rewritten: list[int] = field(default_factory=list)            # first line of each table, 1-based
    kept: list[tuple[int, str]] = field(default_factory=list)     # (line, why it stays a grid table)


def _plus_positions(border: str) -> list[int]:
    return [i for i, ch in enumerate(border) if ch == "+"]


def _alignment(segment: str) -> str:
    left, right = segment.startswith(":"), segment.endswith(":")
    return "center" if left and right else "left" if left else "right" if right else ""


def _rule(alignment: str, width: int) -> str:
    width = max(width, 3)
    if alignment == "center":
        return ":" + "-" * (width - 2) + ":"
    if alignment == "left":
        return ":" + "-" * (width - 1)
    if alignment == "right":
        return "-" * (width - 1) + ":"
    return "-" * width


def convert(lines: list[str]) -> tuple[list[str] | None, str]:
    """The pipe table for one grid table's lines, or (None, why not)."""
    indent = BORDER.match(lines[0]).group("indent")
    cols = _plus_positions(lines[0])
    header_at = None
    rows: list[list[str]] = []
    pending: list[str] | None = None
    for number, line in enumerate(lines[1:], start=1):
        if BORDER.match(line):
            if _plus_positions(line) != cols:
                return None, f"line {number + 1} of the table: a border that does not match the first"
            if pending is None:
                return None, "an empty row"
            rows.append(pending)
            pending = None
            if "=" in line:
                if header_at is not None:
                    return None, "two header separators"
                header_at = len(rows)
            continue
        if pending is not None:
            return None, "a cell spans several lines (a pipe table cell is one line)"
        if len(line) <= cols[-1] or any(line[p] != "|" for p in cols):
            return None, "a row whose `|` do not line up with the border (a span, or a misaligned row)"
        pending = [line[a + 1:b].strip() for a, b in zip(cols, cols[1:])]
    if pending is not None:
        return None, "no closing border"
    if header_at != 1:
        return None, "no single header row (a pipe table needs one)"
    separator = next(ln for ln in lines[1:] if BORDER.match(ln) and "=" in ln)
    segments = [separator[a + 1:b] for a, b in zip(cols, cols[1:])]
    if not any(":" in s for s in segments):
        segments = [lines[0][a + 1:b] for a, b in zip(cols, cols[1:])]
    aligns = [_alignment(s) for s in segments]
    widths = [b - a - 1 for a, b in zip(cols, cols[1:])]
    rows = [[UNESCAPED_PIPE.sub(r"\\|", cell) for cell in row] for row in rows]
    shown = [max(widths[i], *(len(r[i]) for r in rows)) for i in range(len(widths))]

    def row_line(cells: list[str]) -> str:
        return indent + "| " + " | ".join(c.ljust(shown[i]) for i, c in enumerate(cells)) + " |"

    rule = indent + "|" + "|".join(_rule(a, w + 2) for a, w in zip(aligns, shown)) + "|"
    return [row_line(rows[0]), rule] + [row_line(r) for r in rows[1:]], ""


def rewrite(text: str) -> Rewrite:
    """Every grid table of `text` that holds an inline value, as a pipe table where possible."""
    lines = text.split("\n")
    out: list[str] = []
    result = Rewrite(text="")
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = m.group(1) if fence is None else None
        if fence is not None or not BORDER.match(line):
            out.append(line)
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and lines[j + 1].strip():
            j += 1
        table = lines[i:j + 1]
        while table and not BORDER.match(table[-1]):     # a caption or text right below
            table.pop()
        if not any(INLINE.search(ln) for ln in table):
            out.extend(table)
        else:
            piped, why = convert(table)
            if piped is None:
                result.kept.append((i + 1, why))
                out.extend(table)
            else:
                result.rewritten.append(i + 1)
                out.extend(piped)
        i += len(table)
    result.text = "\n".join(out)
    return result


def _book_documents(root: Path) -> list[Path]:
    from scripts.read.project import load_project
    project = load_project(root)
    return [root / rel for rel in project.documents]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make pipe-tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="default: the book's documents")
    parser.add_argument("--check", action="store_true", help="report only; change no file")
    args = parser.parse_args(argv)
    from scripts.files import atomic_write
    root = Path.cwd()
    files = args.files or _book_documents(root)
    kept = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{path}: cannot read: {exc}", file=sys.stderr)
            kept += 1
            continue
        done = rewrite(text)
        shown = path.relative_to(root) if path.is_absolute() and path.is_relative_to(root) else path
        for line in done.rewritten:
            verb = "would rewrite" if args.check else "rewrote"
            print(f"{shown}:{line}: {verb} the grid table as a pipe table")
        for line, why in done.kept:
            print(f"{shown}:{line}: grid table kept ({why}): its inline values stay findings")
        kept += len(done.kept)
        if done.rewritten and not args.check:
            atomic_write(path, done.text)
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main())
