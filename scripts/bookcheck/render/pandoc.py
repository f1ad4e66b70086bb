"""Run the pandoc binary shipped by pypandoc-binary.

We call the binary with subprocess (not pypandoc.convert_*) so that a
failure carries pandoc's own message, reduced to one line for RenderError.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from .errors import RenderError
from bookcheck.binaries import pandoc_binary

FILTERS = Path(__file__).with_name("filters")


def pandoc_path() -> str:
    """Path of the pandoc executable (bookcheck.binaries.pandoc_binary), or RenderError."""
    found = pandoc_binary()
    if found is None:
        raise RenderError("pandoc is not available: install pypandoc-binary (make venv)")
    return found


def filter_args(*names: str) -> list[str]:
    """--lua-filter arguments for our filters, in the given order."""
    return [f"--lua-filter={FILTERS / (name + '.lua')}" for name in names]


def run(args: list[str], *, stdin: str | None = None, cwd: Path | None = None,
        what: str = "pandoc") -> str:
    """Run pandoc with `args`; return stdout or raise RenderError."""
    cmd = [pandoc_path(), *args]
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                              cwd=cwd, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RenderError(f"{what}: could not run pandoc: {exc}") from exc
    if proc.returncode != 0:
        raise RenderError(f"{what}: pandoc failed: {first_error_line(proc.stderr)}")
    return proc.stdout


def first_error_line(stderr: str) -> str:
    """The most telling line of pandoc's stderr: a Lua filter's own message
    when a filter raised, else the first line that mentions an error."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if line.startswith("Error running filter") and i + 1 < len(lines):
            message = re.sub(r"^\S+\.lua:\d+:\s*", "", lines[i + 1])
            return f"{message} (in filter {Path(line.split()[-1].rstrip(':')).name})"
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else "exit status non-zero, no message"
