"""Helpers for the tests that drive real Quarto 1.7.34 (local-only).

Quarto comes from tests/skip_policy.real_quarto (REAL_QUARTO, or built once per
machine by ../shared/tools/real-quarto/build); it runs with this Python as
QUARTO_PYTHON. Renders are slow (seconds each on two cores), so every render
happens once per module and the tests share it.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

RENDER_TIMEOUT_S = 900


def quarto_environ(exe: Path) -> dict[str, str]:
    """The environment Quarto runs in: it first on PATH, this Python's Jupyter."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(exe.parent), str(Path(sys.executable).parent),
                                   env.get("PATH", "")])
    env["QUARTO_PYTHON"] = sys.executable
    return env


@contextlib.contextmanager
def quarto_on_path(exe: Path):
    """os.environ with Quarto on PATH (the pipeline finds it with shutil.which)."""
    saved = dict(os.environ)
    os.environ.update(quarto_environ(exe))
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def quarto_render(exe: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
    """`quarto render --to html ARGS` in `root`: Quarto executing every document."""
    done = subprocess.run([str(exe), "render", "--to", "html", *args], cwd=root,
                          env=quarto_environ(exe), capture_output=True, text=True,
                          timeout=RENDER_TIMEOUT_S)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done
