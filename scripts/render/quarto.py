"""Render with real Quarto when it is installed (authors' machines).

`quarto render --to html|pdf --output-dir <staging>` builds into a staging
directory; the caller moves the result into `_book/` only on success.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .errors import RenderError


def quarto_path() -> str | None:
    """The quarto executable on PATH, or None."""
    return shutil.which("quarto")


def quarto_format(fmt: str, formats: list[str]) -> str:
    """The Quarto format to render for "html" or "pdf".

    A project whose `format:` defines `typst` but not `pdf` makes its PDF
    through Typst (no TeX needed), so "pdf" means `--to typst` there.
    """
    if fmt == "pdf" and "pdf" not in formats and "typst" in formats:
        return "typst"
    return fmt


def render(root: Path, fmt: str, dest: Path, formats: list[str] = ()) -> None:
    """Run `quarto render` for the whole project into `dest`."""
    exe = quarto_path()
    if exe is None:
        raise RenderError("quarto is not on PATH")
    to = quarto_format(fmt, list(formats))
    cmd = [exe, "render", "--to", to, "--output-dir", str(dest)]
    try:
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    except OSError as exc:
        raise RenderError(f"could not run quarto: {exc}") from exc
    if proc.returncode != 0:
        lines = [ln.strip() for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        errors = [ln for ln in lines if "ERROR" in ln or "Error" in ln]
        reason = (errors or lines or ["no message"])[-1]
        raise RenderError(f"quarto render --to {to} failed: {reason}")
