"""Render with real Quarto when it is installed (authors' machines).

`quarto render --to html|pdf --output-dir <staging>` builds into a staging
directory; the caller moves the result into `_book/` only on success.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

from . import quarto_leftovers
from .errors import RenderError


def quarto_path() -> str | None:
    """The quarto executable on PATH, or None."""
    return shutil.which("quarto")


# A whole book's `quarto render` (HTML through the freezer, or a PDF that executes every
# chapter under its own per-cell timeout) takes minutes; one that takes this long hangs.
RENDER_TIMEOUT_S = 1800.0

# Quarto renders `format: typst` for a book only from 1.9 on (1.7 does not).
TYPST_BOOK_MIN = (1, 9)


def quarto_version(exe: str | None = None) -> tuple[int, ...] | None:
    """`quarto --version` as a tuple (1, 7, 34); None when it cannot be read."""
    exe = exe or quarto_path()
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", proc.stdout or "")
    if proc.returncode != 0 or not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def too_old_for(fmt: str, formats: list[str], version: tuple[int, ...] | None) -> str | None:
    """Why this Quarto cannot render `fmt` for this book (one line), or None."""
    if fmt != "pdf":
        return None
    shown = ".".join(map(str, version)) if version else "of unknown version"
    need = ".".join(map(str, TYPST_BOOK_MIN))
    if version is None:
        return f"quarto {shown} (`quarto --version` unreadable): using the built-in PDF path"
    if version < TYPST_BOOK_MIN:
        return (f"quarto {shown} is older than {need}, which a book's PDF needs: "
                "using the built-in PDF path")
    return None


def quarto_format(fmt: str, formats: list[str]) -> str:
    """The Quarto format to render for "html" or "pdf".

    A project whose `format:` defines `typst` but not `pdf` makes its PDF
    through Typst (no TeX needed), so "pdf" means `--to typst` there.
    """
    if fmt == "pdf" and "pdf" not in formats and "typst" in formats:
        return "typst"
    return fmt


# What Quarto prints when it runs a document's code instead of a frozen result.
EXECUTING = re.compile(r"^(?:Executing '(?P<nb>[^']+)'|Starting \S+ kernel)", re.M)


def executed(log: str) -> list[str]:
    """The notebooks Quarto's log says it executed (`Executing 'ch.quarto_ipynb'`);
    ["a kernel"] when it only says it started one."""
    names = [m.group("nb") for m in EXECUTING.finditer(log) if m.group("nb")]
    return names or (["a kernel"] if EXECUTING.search(log) else [])


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def warnings(log: str) -> list[str]:
    """Quarto's WARN lines (colours stripped), in order."""
    return [ln.strip() for ln in ANSI.sub("", log).splitlines() if ln.strip().startswith("WARN")]


# Set for the `quarto render` this pipeline runs: a book whose `_quarto.yml` also runs the
# pipeline as its pre-render/post-render scripts (render/hooks.py) is not checked and
# audited twice.
BUILDING = "BOOKCHECK_BUILDING"


def render(root: Path, fmt: str, dest: Path, formats: list[str] = (),
           frozen: bool = False, profiles: list[str] = (), output_dir: str = "_book",
           metadata_file: Path | None = None) -> str:
    """Run `quarto render` for the whole project into `dest`; return Quarto's log.

    frozen: the checked runs were handed over (bookcheck.render.freeze): pass
    `--use-freezer`, and fail if Quarto executed anything all the same.
    profiles: the Quarto profiles the check read (QUARTO_PROFILE of this process only).
    output_dir: the project's output folder (what Quarto leaves outside it is removed
    afterwards: quarto_leftovers.py).
    metadata_file: passed as `--metadata-file` (merged over every document's metadata:
    the theme quarto_look.py adds), None for none.
    """
    exe = quarto_path()
    if exe is None:
        raise RenderError("quarto is not on PATH")
    to = quarto_format(fmt, list(formats))
    cmd = [exe, "render", "--to", to, "--output-dir", str(dest)]
    if frozen:
        cmd.append("--use-freezer")
    if metadata_file is not None:
        cmd += ["--metadata-file", str(metadata_file)]
    before = quarto_leftovers.snapshot(root, output_dir)
    try:
        env = {**os.environ, BUILDING: "1", **({"QUARTO_PROFILE": ",".join(profiles)} if profiles else {})}
        proc = _run(cmd, root, RENDER_TIMEOUT_S, env)
    except OSError as exc:
        raise RenderError(f"could not run quarto: {exc}") from exc
    except subprocess.TimeoutExpired:
        raise RenderError(f"quarto render --to {to} did not finish within {RENDER_TIMEOUT_S:g} s "
                          "(RENDER_TIMEOUT_S): stopped, the previous book left as it was") from None
    finally:                    # stopped or failed half-way, its pages lie beside the sources
        quarto_leftovers.clean(root, output_dir, before)
    if proc.returncode != 0:
        lines = [ln.strip() for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        errors = [ln for ln in lines if "ERROR" in ln or "Error" in ln]
        reason = (errors or lines or ["no message"])[-1]
        raise RenderError(f"quarto render --to {to} failed: {reason}")
    log = ANSI.sub("", (proc.stdout or "") + (proc.stderr or ""))
    ran = executed(log) if frozen else []
    if ran:
        raise RenderError(f"quarto executed {', '.join(ran)} instead of publishing the checked "
                          "run (its freeze entry was not used)")
    return log


def _run(cmd: list[str], root: Path, timeout_s: float, env=None) -> subprocess.CompletedProcess:
    """subprocess.run in a session of its own, so a timeout (or Ctrl-C) kills Quarto
    and everything it started (deno, pandoc, typst, a kernel), not the launcher alone."""
    with subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True, env=env) as proc:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
