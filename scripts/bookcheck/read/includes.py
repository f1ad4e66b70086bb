"""Expand `{{< include file >}}` as Quarto does: as text, before execution.

Paths resolve from the top-level chapter's folder, also for an include
written inside an included file (conformance case 09); a leading `/` means
the project root. A path may be quoted (`{{< include "a b.qmd" >}}`); a file
whose real path (symlinks resolved) lies outside the project is refused, as
chapters are. The expanded text runs in the chapter's kernel. `line_map`
gives, for each line of the expanded text, the (file, line) it came from, so
a finding inside an included file is reported at that file's own path:line.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck.model import Finding, Kind

INCLUDE = re.compile(r"""^\s*\{\{<\s*include\s+(?:"([^"]+)"|'([^']+)'|([^\s"']+?))\s*>\}\}\s*$""")
SHORTCODE = re.compile(r"^\s*\{\{<\s*include\b")
MAX_DEPTH = 10


@dataclass
class Expanded:
    text: str
    line_map: list[tuple[str, int]] = field(default_factory=list)   # expanded line i+1 -> (path, line)
    files: list[str] = field(default_factory=list)                  # included files, project-relative
    findings: list[Finding] = field(default_factory=list)


def expand(root: Path, rel: str, text: str) -> Expanded:
    """The chapter `rel` (project-relative) with every include replaced by its file's text."""
    out = Expanded(text="")
    lines: list[str] = []
    base = posixpath.dirname(rel)
    _expand(Path(root), base, rel, text, lines, out, [rel])
    out.text = "\n".join(lines)
    return out


def _expand(root: Path, base: str, rel: str, text: str, lines: list[str], out: Expanded,
            stack: list[str]) -> None:
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if fence is None and re.match(r"^(`{3,}|~{3,})", stripped):
            fence = re.match(r"^(`{3,}|~{3,})", stripped).group(1)
        elif fence is not None and stripped.startswith(fence) and not stripped[len(fence):].strip():
            fence = None
        m = INCLUDE.match(line) if fence is None else None
        if not m:
            if fence is None and SHORTCODE.match(line):
                out.findings.append(Finding(rel, number, Kind.INCLUDE, (
                    f"malformed include: {stripped} (write {{{{< include file.qmd >}}}}, "
                    f"quoting a path with spaces)"), col=line.index("{{") + 1))
            lines.append(line)
            out.line_map.append((rel, number))
            continue
        target = next(g for g in m.groups() if g is not None)
        path = posixpath.normpath(target.lstrip("/") if target.startswith("/")
                                  else posixpath.join(base, target))
        where = dict(path=rel, line=number, col=line.index("{{") + 1)
        if path.startswith("../") or path == ".." or not _inside(root, root / path):
            link = "" if path.startswith("..") else f" (a symlink to {_real(root / path)})"
            out.findings.append(Finding(**where, kind=Kind.INCLUDE,
                                        reason=f"include escapes the project: {target}{link}"))
            continue
        if path in stack or len(stack) > MAX_DEPTH:
            out.findings.append(Finding(**where, kind=Kind.INCLUDE,
                                        reason=f"include cycle: {' -> '.join(stack + [path])}"))
            continue
        try:
            data = (root / path).read_bytes().decode("utf-8").removeprefix("\ufeff")
        except (OSError, UnicodeDecodeError) as exc:
            reason = "not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else "file not found"
            out.findings.append(Finding(**where, kind=Kind.INCLUDE,
                                        reason=f"cannot include {target} ({path}): {reason}"))
            continue
        if path not in out.files:
            out.files.append(path)
        _expand(root, base, path, data.rstrip("\n"), lines, out, stack + [path])


def _real(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return "?"


def _inside(root: Path, path: Path) -> bool:
    """True when `path` (symlinks resolved) lies under `root`; a missing file counts
    as inside (it is reported as not found)."""
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False
    except (OSError, RuntimeError):
        return True
