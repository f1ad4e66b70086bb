"""The resource guard: a test that starts a Jupyter kernel, real Quarto or chromium
without its marker (`kernel`, `quarto`, `browser`) fails, naming what it started.

tests/conftest.py marks tests (mostly through the fixtures that start a resource) and,
for the length of each test, points the resources its markers leave out at refusals
that the test's subprocesses inherit through the environment:

* kernel: JUPYTER_PATH first names a folder whose `python3` kernelspec runs
  `python refuse.py kernel -m refused -f {connection_file}`. The checker launches
  kernels from that argv (bookcheck.run.kernelspec), and so does its fork server
  (the argv before `-m` is its interpreter, bookcheck.run.forkserver): both refuse.
* quarto: REAL_QUARTO names a refusing `quarto` (tests/skip_policy.real_quarto), and
  a refusing `quarto` goes first on PATH only when PATH has a real one (a test that
  sees no quarto on PATH still sees none);
* browser: a refusing `chromium` goes first on PATH only when PATH has a real one.

A refusal prints why on stderr, exits 1 and appends its line to a log in the
guard's folder; the conftest fails the test phase (setup, call, teardown) during
which the log grew, whatever the test made of the failed start.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

RESOURCES = ("kernel", "quarto", "browser")
WHAT = {"kernel": "a Jupyter kernel", "quarto": "real Quarto", "browser": "chromium"}

REFUSE = """\
import sys
marker = sys.argv[1] if len(sys.argv) > 1 else "?"
line = (f"{WHAT.get(marker, marker)} was started by a test not marked `{marker}` "
        f"(argv: {' '.join(sys.argv[2:])[:300]})").replace("\\n", " ")
print(line, file=sys.stderr)
with open(LOG, "a", encoding="utf-8") as log:
    log.write(line + "\\n")
sys.exit(1)
"""
SHIMS = {"quarto": "quarto", "browser": "chromium"}      # marker -> executable on PATH


class Guard:
    """One folder per test process (made on first use, removed at exit)."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="resource-guard-"))
        atexit.register(shutil.rmtree, self.folder, True)
        self.log = self.folder / "started.log"
        self.log.touch()
        self.refuse = self.folder / "refuse.py"
        self.refuse.write_text(f"LOG = {str(self.log)!r}\nWHAT = {WHAT!r}\n" + REFUSE,
                               encoding="utf-8")
        spec = self.folder / "jupyter" / "kernels" / "python3"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, str(self.refuse), "kernel",
                     "-m", "refused", "-f", "{connection_file}"],
            "display_name": "Python 3 (refused: the test is not marked `kernel`)",
            "language": "python"}), encoding="utf-8")
        self.shims = {}
        for marker, name in SHIMS.items():       # each in a folder of its own, for PATH
            shim = self.folder / f"{marker}-bin" / name
            shim.parent.mkdir()
            shim.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{self.refuse}' {marker} \"$@\"\n")
            shim.chmod(0o755)
            self.shims[marker] = shim

    def environment(self, allowed) -> dict[str, str]:
        """The variables that refuse every resource not in `allowed` (from os.environ now)."""
        env = {}
        if "kernel" not in allowed:
            env["JUPYTER_PATH"] = os.pathsep.join(
                p for p in (str(self.folder / "jupyter"), os.environ.get("JUPYTER_PATH")) if p)
        if "quarto" not in allowed:
            env["REAL_QUARTO"] = str(self.shims["quarto"])
        shadow = [str(self.shims[m].parent) for m, name in SHIMS.items()
                  if m not in allowed and shutil.which(name)]
        if shadow:
            env["PATH"] = os.pathsep.join(shadow + [os.environ.get("PATH", "")])
        return env

    def size(self) -> int:
        try:
            return self.log.stat().st_size
        except OSError:
            return 0

    def since(self, offset: int) -> list[str]:
        """The refusals logged after byte `offset`."""
        try:
            with open(self.log, encoding="utf-8", errors="replace") as log:
                log.seek(offset)
                return [line for line in log.read().splitlines() if line]
        except OSError:
            return []
