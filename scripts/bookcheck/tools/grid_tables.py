"""`bookcheck pipe-tables`: rewrite grid tables holding inline values as pipe tables.

Quarto inserts an inline value's text into a grid table without re-aligning
its borders, so pandoc garbles the table silently; `make check` reports each
such table (`grid-table-inline`). A pipe table has no borders to misalign.
This command rewrites a grid table that holds a `{python}` value as a pipe
table when it has a header row (`+===+` below it: a pipe table needs one) and
every row can be cut into the border's columns:

- a row line whose `|` stand where the border's `+` do is cut there;
- any other row line is cut at its unescaped `|` outside code spans and math, when
  there are as many as the border has `+` (the usual style when an inline
  expression is wider than its column); otherwise (a column or row span) the
  table is kept;
- a row of several lines (multi-line cells) becomes one line, each cell's lines
  joined with a space: such tables are listed for review (a list or a paragraph
  break inside a cell does not survive in a pipe table).

Alignment is kept (`:` in the header separator, or in the top border: `:---`,
`---:`, `:---:`), and so, nearly, are the relative column widths (an alignment
row's dashes span its column: the grid column's width, or its widest cell). A
caption line (`: caption {#tbl-x}`) stays as written. Any other grid table is
left untouched and listed with its reason: it stays a `make check` finding.
Tables inside fenced code blocks are never touched. A pure text
transformation: `rewrite(text)` is all the logic, `main` reads and writes files.

    bookcheck pipe-tables [--root R] [--check] [PATH ...]
    (PATH relative to the root, as the check names it; default: the book's documents)
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck.read import CONFIG

BORDER = re.compile(r"^(?P<indent>[ \t]*)\+(?:[-=:]+\+)+[ \t]*$")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
INLINE = re.compile(r"`\{python\}[ \t]")


@dataclass
class Rewrite:
    text: str
    rewritten: list[int] = field(default_factory=list)            # first line of each table, 1-based
    kept: list[tuple[int, str]] = field(default_factory=list)     # (line, why it stays a grid table)
    joined: list[tuple[int, list[int]]] = field(default_factory=list)   # (table line, lines of the
                                                                        # rows whose cells were joined)


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


def split_row(line: str) -> list[int]:
    """Columns of `line`'s unescaped `|` outside code spans and `$…$` math."""
    pipes, i = [], 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "`":
            run = len(line[i:]) - len(line[i:].lstrip("`"))
            close = line.find("`" * run, i + run)
            while close != -1 and line[close + run:close + run + 1] == "`":
                close = line.find("`" * run, close + run + 1)
            if close != -1:
                i = close + run
                continue
            i += run
            continue
        if ch == "$":
            close = _math_end(line, i)
            if close is not None:
                i = close + 1
                continue
        if ch == "|":
            pipes.append(i)
        i += 1
    return pipes


def _math_end(line: str, start: int) -> int | None:
    """Where the `$…$` (or `$$…$$`) opened at `start` closes, as pandoc reads it."""
    fence = "$$" if line.startswith("$$", start) else "$"
    body = start + len(fence)
    if fence == "$" and (body >= len(line) or line[body].isspace()):
        return None
    at = body
    while True:
        at = line.find(fence, at)
        if at == -1:
            return None
        if line[at - 1] != "\\" and (fence == "$$" or not line[at - 1].isspace()):
            return at + len(fence) - 1
        at += 1


def _escape(cell: str) -> str:
    """A cell's text `|` (outside code and math), which would cut a pipe table's row, escaped."""
    for at in reversed(split_row(cell)):
        cell = cell[:at] + "\\" + cell[at:]
    return cell


def _cells(line: str, cols: list[int]) -> list[str] | None:
    """The cells of one row line: cut at the border's columns when its `|` stand
    there, else at its structural `|` when they are as many; None when neither."""
    if len(line) > cols[-1] and all(line[p] == "|" for p in cols):
        cuts = cols
    else:
        cuts = split_row(line)
        if len(cuts) != len(cols) or line[:cuts[0]].strip() or line[cuts[-1] + 1:].strip():
            return None
    return [line[a + 1:b].strip() for a, b in zip(cuts, cuts[1:])]


def convert(lines: list[str]) -> tuple[list[str] | None, str, list[int]]:
    """(the pipe table for one grid table's lines, or None; why not; the table's lines,
    1-based, of the rows whose multi-line cells were joined)."""
    indent = BORDER.match(lines[0]).group("indent")
    cols = _plus_positions(lines[0])
    header_at = None
    rows: list[list[str]] = []
    joined: list[int] = []
    pending: list[list[str]] = []
    for number, line in enumerate(lines[1:], start=1):
        if BORDER.match(line):
            if _plus_positions(line) != cols:
                return None, f"line {number + 1} of the table: a border that does not match the first", []
            if not pending:
                return None, "an empty row", []
            if len(pending) > 1:
                joined.append(number + 1 - len(pending))
            rows.append([" ".join(part for part in parts if part) for parts in zip(*pending)])
            pending = []
            if "=" in line:
                if header_at is not None:
                    return None, "two header separators", []
                header_at = len(rows)
            continue
        cells = _cells(line, cols)
        if cells is None:
            return None, ("a row whose `|` neither line up with the border nor match its "
                          f"columns in number (line {number + 1} of the table: a span?)"), []
        pending.append(cells)
    if pending:
        return None, "no closing border", []
    if header_at != 1:
        return None, "no single header row (a pipe table needs one)", []
    separator = next(ln for ln in lines[1:] if BORDER.match(ln) and "=" in ln)
    segments = [separator[a + 1:b] for a, b in zip(cols, cols[1:])]
    if not any(":" in s for s in segments):
        segments = [lines[0][a + 1:b] for a, b in zip(cols, cols[1:])]
    aligns = [_alignment(s) for s in segments]
    widths = [b - a - 1 for a, b in zip(cols, cols[1:])]
    rows = [[_escape(cell) for cell in row] for row in rows]
    shown = [max(widths[i], *(len(r[i]) for r in rows)) for i in range(len(widths))]

    def row_line(cells: list[str]) -> str:
        return indent + "| " + " | ".join(c.ljust(shown[i]) for i, c in enumerate(cells)) + " |"

    rule = indent + "|" + "|".join(_rule(a, w + 2) for a, w in zip(aligns, shown)) + "|"
    return [row_line(rows[0]), rule] + [row_line(r) for r in rows[1:]], "", joined


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
            piped, why, joined = convert(table)
            if piped is None:
                result.kept.append((i + 1, why))
                out.extend(table)
            else:
                result.rewritten.append(i + 1)
                if joined:
                    result.joined.append((i + 1, [i + n for n in joined]))
                out.extend(piped)
        i += len(table)
    result.text = "\n".join(out)
    return result


def _targets(root: Path, paths: list[Path]) -> list[Path]:
    """`paths` as files (relative to the root, as the check names them, else to the
    current folder); no paths: the book's documents."""
    if not paths:
        from bookcheck.read.project import load_project
        return [root / rel for rel in load_project(root).documents]
    return [_file(root, p) for p in paths]


def _file(root: Path, path: Path) -> Path:
    if path.is_absolute() or (root / path).exists() or not path.exists():
        return root / path
    return path.resolve()


def main(argv: list[str] | None = None) -> int:
    """0 when every file was read (and written); 1 when one could not be (or, with
    --check, when a table would be rewritten); 2 on usage errors."""
    parser = argparse.ArgumentParser(prog="bookcheck pipe-tables",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="files relative to the root (default: the book's documents)")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project root")
    parser.add_argument("--check", action="store_true", help="report only; change no file")
    args = parser.parse_args(argv)
    from bookcheck.files import atomic_write
    root = args.root.resolve()
    if not args.paths and not (root / CONFIG).is_file() and not any(root.glob("*.qmd")):
        print(f"error: no {CONFIG} in {root} (name the files to rewrite)", file=sys.stderr)
        return 2
    failed = rewritten = review = kept = 0
    for path in _targets(root, args.paths):
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        try:
            done = rewrite(path.read_text(encoding="utf-8"))
            if done.rewritten and not args.check:
                atomic_write(path, done.text)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{shown}: cannot rewrite: {exc}", file=sys.stderr)
            failed += 1
            continue
        joined = dict(done.joined)
        verb = "would rewrite" if args.check else "rewrote"
        for line in done.rewritten:
            rows = joined.get(line)
            note = (f"; joined the multi-line cells of the row{'s' * (len(rows) != 1)} at "
                    f"line{'s' * (len(rows) != 1)} {', '.join(map(str, rows))}: review "
                    f"{'them' if len(rows) != 1 else 'it'}") if rows else ""
            print(f"{shown}:{line}: {verb} the grid table as a pipe table{note}")
        for line, why in done.kept:
            print(f"{shown}:{line}: grid table kept ({why}): its inline values stay findings")
        rewritten, review, kept = (rewritten + len(done.rewritten), review + len(joined),
                                   kept + len(done.kept))
    print(f"pipe-tables: {rewritten} grid table{'s' * (rewritten != 1)} with inline values "
          f"{'to rewrite' if args.check else 'rewritten'} ({review} with joined cells to review), "
          f"{kept} kept")
    return 1 if failed or (args.check and rewritten) else 0


if __name__ == "__main__":
    sys.exit(main())
