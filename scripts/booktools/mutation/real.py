"""The real checker on a project copy: `bookcheck check --json`, read as JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bookcheck.model import Kind
from bookcheck.read.project import load_project
from booktools.mutation.mutants import Mutant, apply_to_source, restore

REPO = Path(__file__).resolve().parents[3]


def copy_project(src: Path, dst: Path) -> Path:
    """The book's source files (Project.source_files) copied to `dst`."""
    return load_project(src).copy_to(dst)


def checker(root: Path, command: str = "check", jobs: int = 2) -> tuple[int, dict | None, str]:
    """(exit status, the JSON report or None, stderr) of the real checker."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-m", "bookcheck", command, "--root", str(root),
                           "--jobs", str(jobs), "--json"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = None
    return proc.returncode, report, proc.stdout + proc.stderr


def checker_verdict(code: int, report: dict | None) -> str:
    """invariant | error | ledger | survived, from the checker's exit status and JSON."""
    if code == 0:
        return "survived"
    if report is None:
        return "error"
    kinds = {f["kind"] for f in report["findings"]} | ({Kind.LEDGER} if report.get("new_values") else set())
    if Kind.INVARIANT in kinds:
        return "invariant"
    if kinds - {Kind.LEDGER}:
        return "error"
    return "ledger" if Kind.LEDGER in kinds else "error"


def run_real(root: Path, m: Mutant, jobs: int) -> tuple[str, str]:
    saved = apply_to_source(root, m)
    try:
        code, report, output = checker(root, "check", jobs)
    finally:
        restore(saved)
    return checker_verdict(code, report), output
