"""One rule for tests that cannot run here: skip locally, fail under CI.

A skip can hide a whole area (no browser test without chromium, no PDF test
without pdftotext, no compatibility test without the reference texts). On a
developer machine that is a convenience; on CI it would turn a missing tool
into a green build. So when the environment variable `CI` is set (GitHub
Actions sets it; `.ci/run` sets it), a missing requirement is a test error
whose message names what is missing and how to get it.

The one exception is explicit: tests marked local-only (they need files that
live outside this repository, in `../shared/`) are skipped when
`SKIP_LOCAL_ONLY` is set, which only the GitHub workflow does; the README
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
