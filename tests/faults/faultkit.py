"""Fixture-book builders and observers for the fault-injection suite (see conftest.py).

Every test here drives the real checker as a subprocess (`bookcheck
... --root BOOK`) on a small book built in `tmp_path`, then looks at what it
printed, what it left on disk and which processes it left behind.

* `write_book` writes a book; `CHAPTER_QMD` is a small passing chapter.
* `Runner` runs the CLI with a private JUPYTER_RUNTIME_DIR and TMPDIR and a
  marker in the environment, so leftover kernels and temp files of *that* run
  can be found afterwards (`leftover_processes`, `leftover_temp_files`).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests import REPO
from tests.bookkit import make_book

PYTHON = sys.executable
HANG_LIMIT_S = 240          # a checker run that takes longer than this is hung

QUARTO_YML = """\
project:
  type: book
book:
  title: "Fault fixture"
  chapters:
{chapters}
execute:
  echo: false
"""

INDEX_QMD = """\
# Preface {.unnumbered}

This fixture book has one real chapter, @sec-one.
"""

CHAPTER_QMD = """\
# One {#sec-one}

```{python}
#| label: one-setup
from mlsys import GPU_MTTF_HOURS, GPUS_PER_HOST, calc_mtbf_cluster, check, fmt, hour, md_table, node

node_mtbf = GPU_MTTF_HOURS / GPUS_PER_HOST * hour
cluster = calc_mtbf_cluster(node_mtbf, 16 * node)
check(cluster < node_mtbf, "a cluster fails more often than one node")
cluster_str = fmt(cluster, "hour", figures=3)
```

Sixteen nodes fail every `{python} cluster_str` hours (@tbl-one).

```{python}
#| label: tbl-one
#| tbl-cap: "MTBF by node count."
md_table([[n, fmt(calc_mtbf_cluster(node_mtbf, n * node), "hour", figures=3)] for n in (1, 2, 4)],
         headers=["Nodes", "MTBF (h)"])
```
"""

# ------------------------------------------------------------------ the books

def write_book(root: Path, chapters: dict[str, str | bytes], listed: list[str] | None = None,
               quarto: str | None = None, with_mlsys: bool = True) -> Path:
    """Write a book: `chapters` maps relative paths to text (or raw bytes)."""
    if quarto is None:
        entries = listed if listed is not None else list(chapters)
        quarto = QUARTO_YML.format(chapters="\n".join(f"    - {e}" for e in entries))
    make_book(root, chapters, quarto)
    if with_mlsys and not (root / "mlsys").exists():
        shutil.copytree(REPO / "mlsys", root / "mlsys",
                        ignore=shutil.ignore_patterns("__pycache__"))
    return root


def copy_of(book: Path, tmp_path: Path) -> Path:
    """A copy of a checked (and rendered) book under `tmp_path`, to change one thing in."""
    root = tmp_path / "book"
    shutil.copytree(book, root, symlinks=True)
    return root


def edit(path: Path, old: str, new: str) -> None:
    """Replace one occurrence of `old` in a text file (fails loudly when absent)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def add_chapter(book: Path, text: str | bytes, rel: str = "contents/two.qmd") -> Path:
    """Write a chapter (text, or bytes as they are) and list it after contents/one.qmd."""
    path = book / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    edit(book / "_quarto.yml", "    - contents/one.qmd", f"    - contents/one.qmd\n    - {rel}")
    return path


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


# --------------------------------------------------------------- running it

@dataclass
class Finding:
    path: str
    line: int
    col: int | None
    label: str | None
    kind: str
    reason: str


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    marker: str
    findings: list[Finding] = field(default_factory=list)
    report: dict = field(default_factory=dict)

    @property
    def output(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"

    def kinds(self) -> set[str]:
        return {f.kind for f in self.findings}

    def only(self, kind: str) -> Finding:
        """The single finding of `kind` (asserts there is exactly one)."""
        found = [f for f in self.findings if f.kind == kind]
        assert len(found) == 1, f"expected one {kind} finding\n{self.output}"
        return found[0]

    @property
    def summary(self) -> dict:
        """The JSON report's summary (`bookcheck check --json`)."""
        return self.report["summary"]

    def finding_lines(self) -> list:
        """The report without timings, cache counts or whether the ledger was compared
        (`numbers` on a failing book does not compare it; `check` does)."""
        rest = {k: v for k, v in self.report["summary"].items() if k not in ("seconds", "cached", "ledger_compared")}
        return self.report["findings"] + [rest]


def parse_report(stdout: str) -> tuple[dict, list[Finding]]:
    """The checker's JSON report and its findings; an empty report when stdout is not JSON."""
    try:
        report = json.loads(stdout)
    except ValueError:
        return {"findings": [], "summary": {}}, []
    return report, [Finding(f["path"], f["line"], f["column"], f["label"], f["kind"], f["message"])
                    for f in report["findings"]]


class Runner:
    """Runs the CLI in a private runtime/temp directory, tagged with a marker."""

    def __init__(self, scratch: Path):
        self.runtime = scratch / "jupyter-runtime"
        self.tmp = scratch / "tmp"
        self.runtime.mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.markers: list[str] = []        # of every run, for `reap` after the test

    def env(self, marker: str, extra: dict | None = None) -> dict:
        """The run's environment; `extra` adds (or, with None, removes) variables."""
        self.markers.append(marker)
        env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(self.runtime), TMPDIR=str(self.tmp),
                   FAULTS_RUN_MARKER=marker, PYTHONDONTWRITEBYTECODE="1")
        env["PYTHONPATH"] = str(REPO / "scripts")      # this checkout's checker, nothing else
        for name, value in (extra or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return env

    def argv(self, root: Path, command: str, *extra: str) -> list[str]:
        return [PYTHON, "-m", "bookcheck", command, "--root", str(root), *extra]

    def cli(self, root: Path, command: str = "check", *extra: str,
            timeout: float = HANG_LIMIT_S, env: dict | None = None) -> Result:
        marker = uuid.uuid4().hex
        proc = subprocess.run(self.argv(root, command, "--json", *extra), cwd=REPO,
                              env=self.env(marker, env), capture_output=True, text=True,
                              timeout=timeout)
        report, findings = parse_report(proc.stdout)
        return Result(proc.returncode, proc.stdout, proc.stderr, marker, findings, report)

    def start(self, root: Path, command: str = "check", *extra: str,
              env: dict | None = None) -> tuple[subprocess.Popen, str]:
        """Start the CLI in its own session (so a test can Ctrl-C its process group)."""
        marker = uuid.uuid4().hex
        proc = subprocess.Popen(self.argv(root, command, *extra), cwd=REPO,
                                env=self.env(marker, env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        return proc, marker

    def reap(self) -> list[int]:
        """Kill whatever this runner's runs left alive (a failed test must not leak)."""
        killed = []
        for marker in self.markers:
            for pid in leftover_processes(marker):
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except OSError:
                    pass
        return killed

    def leftover_temp_files(self) -> list[str]:
        """Files or directories left in the run's TMPDIR and Jupyter runtime dir."""
        found = []
        for folder in (self.runtime, self.tmp):
            found += [str(p.relative_to(folder.parent)) for p in folder.rglob("*")]
        return sorted(found)


def from_cache(result: Result) -> int:
    """How many chapters the run took from the cache."""
    assert result.report.get("summary"), f"no JSON report\n{result.output}"
    return result.summary["cached"]


def ledger_lines(result: Result) -> list[str]:
    """The moved numbers (`key: old → new`), each checked to sit at numbers.lock:LINE
    (the old key's line; 0 for a new key)."""
    moved = []
    for f in result.report.get("findings", []):
        if f["kind"] == "ledger" and f["ledger"] and f["ledger"]["key"]:
            assert f["path"] == "numbers.lock", f
            assert (f["line"] > 0) == (f["ledger"]["old"] is not None), f
            moved.append(f["message"])
    return moved


def cache_entries(root: Path) -> list[Path]:
    folder = root / "_bookcheck" / "cache"
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []


# ------------------------------------------------------------- processes

def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _stat(pid: int) -> tuple[int, str] | None:
    """(ppid, state) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    rest = text[text.rfind(")") + 2:].split()
    return int(rest[1]), rest[0]


def all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def descendants(pid: int) -> list[int]:
    """Live descendants of `pid`, following ppid chains in /proc."""
    children: dict[int, list[int]] = {}
    for p in all_pids():
        stat = _stat(p)
        if stat:
            children.setdefault(stat[0], []).append(p)
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def leftover_processes(marker: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries the run's marker."""
    needle = f"FAULTS_RUN_MARKER={marker}".encode()
    found = []
    for pid in all_pids():
        if pid == os.getpid():
            continue
        stat = _stat(pid)
        if stat and stat[1] != "Z" and needle in _environ(pid).split(b"\0"):
            found.append(pid)
    return found


def wait_until(predicate, timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def assert_no_leftovers(runner: Runner, result_marker: str) -> None:
    """No process of the run and no temp/connection file outlives it."""
    # a kernel being killed may take a moment to disappear from /proc
    wait_until(lambda: not leftover_processes(result_marker), timeout=5)
    alive = leftover_processes(result_marker)
    assert alive == [], f"processes outlived the run: {alive}"
    files = runner.leftover_temp_files()
    assert files == [], f"temp or connection files outlived the run: {files}"


def interrupt(proc: subprocess.Popen) -> None:
    """Ctrl-C: SIGINT to the foreground process group (the CLI's own session)."""
    os.killpg(proc.pid, signal.SIGINT)


# ------------------------------------------------------------- disk state

def disk_state(root: Path) -> dict:
    """What a failed run must not touch, and what must never be left behind."""
    lock = root / "numbers.lock"
    book = root / "_book"
    strays = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                    if p.name.endswith(".tmp") or p.name.startswith(".numbers.lock."))
    return {
        "numbers.lock": lock.read_bytes() if lock.is_file() else None,
        "_book": (sorted((str(p.relative_to(book)), p.read_bytes() if p.is_file() else b"")
                         for p in book.rglob("*"))
                  if book.is_dir() else (book.read_bytes() if book.exists() else None)),
        "strays": strays,
    }


def cache_entries_intact(root: Path) -> list[str]:
    """Names of cache entries that fail validation (should be empty)."""
    from bookcheck.run import cache
    bad = []
    folder = cache.cache_dir(root)
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name.startswith("."):
                continue
            saved = entry.read_bytes()
            if cache.load(root, entry.name) is None:
                bad.append(entry.name)
                entry.write_bytes(saved)
    return bad


def assert_consistent_after_failure(runner: Runner, root: Path, before: dict, first: Result,
                                    rerun: bool = True, extra: tuple[str, ...] = ()) -> None:
    """Nothing written half-way; a second run reports exactly the same."""
    assert disk_state(root) == before, "a failing run changed numbers.lock/_book or left temp files"
    assert cache_entries_intact(root) == []
    assert_no_leftovers(runner, first.marker)
    if rerun:
        second = runner.cli(root, "check", *extra)
        assert second.code == first.code, second.output
        assert second.finding_lines() == first.finding_lines(), second.output
        assert disk_state(root) == before
