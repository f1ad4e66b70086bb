"""Stand-ins for the renderer tests: a fake `quarto` executable.

The fixture book (fixtures/minibook/) and its checked result are fixtures of
tests/conftest.py (minibook, fresh_minibook); tests/bookkit.py copies and checks it.
"""
from __future__ import annotations

import os
from pathlib import Path


def quarto_stub(bindir: Path, script: str = "#!/bin/sh\necho 1.7.34\n") -> Path:
    """A stand-in `quarto` (the shell `script`) written into `bindir`."""
    bindir.mkdir(parents=True, exist_ok=True)
    exe = bindir / "quarto"
    exe.write_text(script)
    exe.chmod(0o755)
    return exe


def quarto_stub_on_path(folder: Path, script: str, monkeypatch) -> Path:
    """quarto_stub in `folder`/bin, first on PATH."""
    exe = quarto_stub(folder / "bin", script)
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    return exe
