"""Run the pandoc binary shipped by pypandoc-binary.

We call the binary with subprocess (not pypandoc.convert_*) so that a
failure carries pandoc's own message, reduced to one line for RenderError.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

from .errors import RenderError
from .incremental import package_dir

FILTERS = Path(__file__).with_name("filters")


@functools.lru_cache(maxsize=None)
def pandoc_path() -> str:
    """Path of the pandoc executable: `PYPANDOC_PANDOC` when set (as for pypandoc),
    else the binary pypandoc-binary ships (the version requirements.lock pins),
    found without importing pypandoc (its import and its probing of every candidate
    with `pandoc --version` cost ~60 ms); else whatever pypandoc finds."""
    chosen = os.environ.get("PYPANDOC_PANDOC")
    if chosen:
        return os.path.expanduser(chosen)
    package = package_dir("pypandoc")
    bundled = package / "files" / "pandoc" if package else None
    if bundled and os.access(bundled, os.X_OK):
        return str(bundled)
    try:
        import pypandoc
        return pypandoc.get_pandoc_path()
    except (ImportError, OSError) as exc:
        raise RenderError(f"pandoc is not available: {exc}") from exc


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
