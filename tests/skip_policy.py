"""One rule for tests that cannot run here: skip locally, fail under CI.

A skip can hide a whole area (no browser test without chromium, no PDF test
without pdftotext, no compatibility test without the reference texts). On a
developer machine that is a convenience; on CI it would turn a missing tool
into a green build. So when the environment variable `CI` is set (GitHub
Actions sets it; `.ci/run` sets it), a missing requirement is a test error
whose message names what is missing and how to get it.

The one exception is explicit: tests marked local-only (they need files that
live outside this repository, in `../shared/`) are skipped when
`SKIP_LOCAL_ONLY` is set, which only the GitHub workflow does; docs/testing.md
lists them.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SEEDS = Path(os.environ.get("MLSYS_SEEDS_DIR", SHARED / "seeds"))
SEED_OVERLAP_TOOL = Path(os.environ.get("SEED_OVERLAP_TOOL", SHARED / "tools" / "seed-overlap"))
CONFORMANCE = Path(os.environ.get("QUARTO_CONFORMANCE_DIR", SHARED / "quarto-conformance"))

# How to install each tool the suite drives (never downloaded by the tests).
INSTALL = {
    "chromium": "apt-get install -y chromium (Debian); playwright never downloads a browser",
    "pdftotext": "apt-get install -y poppler-utils",
    "pdfinfo": "apt-get install -y poppler-utils",
}


def on_ci() -> bool:
    return bool(os.environ.get("CI"))


def missing(what: str) -> None:
    """Skip the current test because `what` is missing; under CI fail instead."""
    if on_ci():
        pytest.fail(f"{what} (CI is set: a missing requirement is an error, not a skip)",
                    pytrace=False)
    pytest.skip(what)


def require_tool(name: str) -> str:
    """The path of executable `name` on PATH; skip (locally) or fail (CI) when it is absent."""
    path = shutil.which(name)
    if path is None:
        missing(f"{name} is not on PATH; install it with: {INSTALL.get(name, name)}")
    return path


def require_path(path: Path, what: str, *, local_only: bool = False) -> Path:
    """`path` must exist. Local-only requirements may be skipped on purpose (SKIP_LOCAL_ONLY)."""
    path = Path(path)
    if not path.exists():
        message = f"{what} not found at {path}"
        if local_only and os.environ.get("SKIP_LOCAL_ONLY"):
            pytest.skip(f"local-only test: {message} (SKIP_LOCAL_ONLY is set)")
        missing(message)
    return path


# Real Quarto (local-only): REAL_QUARTO names an executable; else the one
# ../shared/tools/real-quarto/build makes (once per machine, about a minute).
REAL_QUARTO_VERSION = "1.7.34"
REAL_QUARTO_BUILD = SHARED / "tools" / "real-quarto" / "build"


def _built_quarto() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / f"real-quarto-{REAL_QUARTO_VERSION}" / "bin" / "quarto"


def _quarto_works(exe: Path) -> bool:
    import subprocess
    try:
        done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == REAL_QUARTO_VERSION


def real_quarto() -> Path:
    """Quarto 1.7.34: $REAL_QUARTO, else the build script's output (built here once
    when missing). Absent: skipped when SKIP_LOCAL_ONLY is set, else skipped locally
    and an error under CI (skip_policy.missing)."""
    import subprocess
    named = os.environ.get("REAL_QUARTO")
    if named:
        if not _quarto_works(Path(named)):
            missing(f"REAL_QUARTO={named} does not print {REAL_QUARTO_VERSION} for --version")
        return Path(named)
    exe = _built_quarto()
    if _quarto_works(exe):
        return exe
    if not REAL_QUARTO_BUILD.is_file():
        if os.environ.get("SKIP_LOCAL_ONLY"):
            pytest.skip("local-only test: real Quarto needs ../shared/tools/real-quarto "
                        "(SKIP_LOCAL_ONLY is set)")
        missing(f"real Quarto: set REAL_QUARTO, or provide {REAL_QUARTO_BUILD}")
    done = subprocess.run([str(REAL_QUARTO_BUILD)], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0 or not _quarto_works(exe):
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        missing(f"building real Quarto with {REAL_QUARTO_BUILD} failed: {' | '.join(tail)}")
    return exe
