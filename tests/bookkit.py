"""Helpers for checker tests: write tiny fixture books, find kernels left behind."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

# A chapter-local invariant helper, so fixtures do not depend on mlsys.
LOCAL_CHECK = '''class InvariantError(ValueError):
    pass
def check(cond, msg):
    if not cond:
        raise InvariantError(msg)'''


def write_book(root: Path, chapters: dict[str, str], *, appendices: dict[str, str] | None = None,
               extra: str = "") -> Path:
    """Write `_quarto.yml` listing `chapters` (then `appendices`) and their texts."""
    root.mkdir(parents=True, exist_ok=True)
    lines = ["book:", "  title: Fixture", "  chapters:"]
    lines += [f"    - {rel}" for rel in chapters]
    if appendices:
        lines += ["  appendices:"] + [f"    - {rel}" for rel in appendices]
    (root / "_quarto.yml").write_text("\n".join(lines) + "\n" + textwrap.dedent(extra))
    for rel, text in {**chapters, **(appendices or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def line_of(root: Path, rel: str, needle: str) -> int:
    """1-based line of the first line of `rel` containing `needle`."""
    for number, line in enumerate((root / rel).read_text().split("\n"), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {rel}")


def col_of(root: Path, rel: str, needle: str) -> int:
    line = (root / rel).read_text().split("\n")[line_of(root, rel, needle) - 1]
    return line.index(needle) + 1


def findings_of(result, path: str, kind: str | None = None):
    return [f for f in result.findings if f.path == path and (kind is None or f.kind == kind)]


def child_pids() -> set[int]:
    """Live (non-zombie) processes whose parent is this test process."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        state, ppid = fields[0], int(fields[1])
        if ppid == me and state != "Z":
            found.add(int(entry))
    return found




def processes_with(marker: str) -> list[int]:
    """Pids of live processes whose environment contains `marker` (kernels inherit it)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if marker.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                stat = Path(f"/proc/{entry}/stat").read_text()
                if stat[stat.rindex(")") + 2:].split()[0] != "Z":
                    pids.append(int(entry))
        except OSError:
            pass
    return pids
