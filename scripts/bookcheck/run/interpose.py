"""The interposer (interpose.c): built on first use, loaded into every kernel.

`library(root)` compiles interpose.c with the C compiler (``$CC``, else ``cc``)
into the store, ``_bookcheck/interpose/<digest of the source>.so``, once per
source version; `environment(root)` is what a kernel's environment needs to load
it (LD_PRELOAD, and oslog_side.LIB_ENV naming it). Where it cannot be built (no
compiler, not Linux) or is switched off (``CHECKER_INTERPOSE=0``), the kernels
fall back to observe_side's Python-level hooks, and the check says so once per
book (`note`): the reason is kept beside the library, and said again only when
it changes.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bookcheck import store
from bookcheck.run.oslog_side import ID_ENV, LIB_ENV

SOURCE = Path(__file__).with_name("interpose.c")
FOLDER = "interpose"
FLAGS = ("-shared", "-fPIC", "-O2", "-U_FORTIFY_SOURCE")

_built: dict[str, tuple[Path | None, str | None]] = {}     # per process: root -> (library, why not)


def _build(folder: Path, target: Path) -> str | None:
    """Compile SOURCE into `target` (atomically); the reason it failed, or None."""
    if not sys.platform.startswith("linux"):
        return f"it loads through LD_PRELOAD, which {sys.platform} does not have"
    compiler = os.environ.get("CC") or "cc"
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}) on PATH"
    folder.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=folder, suffix=".so.tmp")
    os.close(handle)
    try:
        proc = subprocess.run([compiler, *FLAGS, "-o", scratch, str(SOURCE), "-ldl"],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            return f"{compiler} failed: {lines[-1] if lines else proc.returncode}"
        os.chmod(scratch, 0o755)
        os.replace(scratch, target)
        return None
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{compiler} could not run: {exc}"
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


def library(root: Path) -> tuple[Path | None, str | None]:
    """(the built library, None) or (None, why the kernels observe through Python hooks)."""
    root = Path(root).resolve()
    key = str(root)
    if key not in _built:
        if os.environ.get("CHECKER_INTERPOSE", "1") == "0":
            _built[key] = (None, "CHECKER_INTERPOSE=0")
        else:
            folder = store.build_dir(root) / FOLDER
            target = folder / f"{store.file_digest(SOURCE)[:16]}.so"
            why = None if target.is_file() else _build(folder, target)
            _built[key] = (None, why) if why else (target, None)
    return _built[key]


def environment(root: Path) -> dict:
    """The variables that load the interposer into a kernel (empty when it is not built)."""
    lib, _ = library(root)
    if lib is None:
        return {}
    preload = " ".join(p for p in (str(lib), os.environ.get("LD_PRELOAD", "")) if p)
    return {"LD_PRELOAD": preload, LIB_ENV: str(lib), ID_ENV: lib.stem}


def note(root: Path) -> str | None:
    """Once per book and reason: why files are observed through Python hooks only."""
    _, why = library(root)
    if why is None or why == "CHECKER_INTERPOSE=0":
        return None
    marker = store.build_dir(root) / FOLDER / "unavailable"
    try:
        if marker.read_text(encoding="utf-8") == why:
            return None
    except OSError:
        pass
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(why, encoding="utf-8")
    except OSError:
        pass
    return (f"the file interposer could not be built ({why}): the cache observes only "
            "Python's own file calls; a C library's or a subprocess's reads are not seen")
