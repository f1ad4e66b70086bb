"""The command line: exit statuses, the report format, Ctrl-C, and cached runs
that never import Jupyter or the science stack."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.bookkit import LOCAL_CHECK, write_book
from tests.processes import processes_with
from bookcheck.model import Finding, Kind
from bookcheck.verify.report import format_finding

PROJECT = Path(__file__).resolve().parents[2]

GOOD = '''
# Good

```{python}
answer = 42
```

The answer is `{python} answer`.
'''

BAD = '''
# Bad

```{python}
#| label: claim
%s
check(2 + 2 == 5, "two and two make five")
```
''' % LOCAL_CHECK


def run_cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bookcheck", *args], cwd=PROJECT,
                          capture_output=True, text=True, env=env, timeout=120, **kw)


@pytest.mark.kernel
@pytest.mark.slow
def test_exit_status_and_report_lines(tmp_path):
    good = write_book(tmp_path / "good", {"good.qmd": GOOD})
    done = run_cli("check", "--root", str(good))
    assert done.returncode == 1 and "bookcheck numbers" in done.stdout      # no ledger yet
    done = run_cli("numbers", "--root", str(good))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (good / "numbers.lock").exists()
    done = run_cli("check", "--root", str(good))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 chapter checked" in done.stdout and "0 findings" in done.stdout

    bad = write_book(tmp_path / "bad", {"bad.qmd": BAD})
    done = run_cli("check", "--root", str(bad), "--jobs", "1")
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first == "bad.qmd:10 [claim] invariant: two and two make five"
    assert "1 finding" in done.stdout.splitlines()[-1]


def test_usage_errors_exit_2(tmp_path):
    assert run_cli("check", "--jobs", "0").returncode == 2
    assert run_cli("frobnicate").returncode == 2
    assert run_cli("check", "--root", str(tmp_path)).returncode == 2    # no _quarto.yml


def test_format_finding():
    f = Finding("c.qmd", 12, Kind.INLINE_ERROR, "NameError: x", col=7, label="tbl-a",
                detail="`{python} x`\nsecond")
    assert format_finding(f) == ("c.qmd:12:7 [tbl-a] inline-error: NameError: x\n"
                                 "    `{python} x`\n    second")


def slow_chapter_reporting_to(flag: Path) -> str:
    """A chapter whose cell writes its kernel's pid to `flag`, then sleeps for ten minutes."""
    return f'''
# Slow

```{{python}}
import os, time
with open({str(flag)!r} + ".tmp", "w") as handle:
    handle.write(str(os.getpid()))
os.replace({str(flag)!r} + ".tmp", {str(flag)!r})
time.sleep(600)
```
'''


def wait_for(condition, seconds: float, what: str):
    """Poll `condition` every 50 ms until it returns something truthy; fail naming `what`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2:].split()[0] != "Z"


@pytest.mark.kernel
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_exits_and_leaves_no_kernel(tmp_path, signum, status):
    flag = tmp_path / "kernel.pid"
    root = write_book(tmp_path / "book", {"slow.qmd": slow_chapter_reporting_to(flag),
                                          "good.qmd": GOOD})
    marker = f"CHECKER_TEST_{uuid.uuid4().hex}"
    env = dict(os.environ, **{marker: "1"})
    proc = subprocess.Popen([sys.executable, "-m", "bookcheck", "check", "--root", str(root)],
                            cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        # The signal must reach the checker while a kernel is running a cell: wait for
        # the cell to report its kernel's pid, and check that pid is a live process of this run.
        kernel_pid = int(wait_for(lambda: flag.exists() and flag.read_text(), 60,
                                  "the slow cell to start in a kernel"))
        assert kernel_pid != proc.pid and alive(kernel_pid)
        assert kernel_pid in processes_with(marker)
        assert proc.poll() is None                       # the checker is still waiting on it
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == status, err
    assert "Traceback" not in err
    wait_for(lambda: not alive(kernel_pid) and processes_with(marker) == [], 15,
             "the kernel and every process of the run to exit")
    assert not (root / "numbers.lock").exists()


@pytest.mark.kernel
def test_cached_check_imports_no_heavy_module(tmp_path):
    root = write_book(tmp_path, {"good.qmd": GOOD})
    assert run_cli("numbers", "--root", str(root)).returncode == 0
    probe = ("import sys; from pathlib import Path; from bookcheck.verify.check import check_book; "
             f"r = check_book(Path({str(root)!r})); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "{'pint', 'pandas', 'matplotlib', 'nbclient', 'jupyter_client', 'zmq', 'IPython', 'numpy'}); "
             "print(r.cached_chapters, len(r.findings), heavy)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "1 0 []", done.stderr


@pytest.mark.kernel
def test_sigkilled_checker_leaves_no_kernel_running(tmp_path):
    """Killed outright, the checker cannot clean up: its kernels must exit on their own."""
    flag = tmp_path / "kernel.pid"
    root = write_book(tmp_path / "book", {"slow.qmd": slow_chapter_reporting_to(flag)})
    marker = f"CHECKER_TEST_{uuid.uuid4().hex}"
    proc = subprocess.Popen([sys.executable, "-m", "bookcheck", "check", "--root", str(root)],
                            cwd=PROJECT, env=dict(os.environ, **{marker: "1"}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kernel_pid = int(wait_for(lambda: flag.exists() and flag.read_text(), 60,
                              "the slow cell to start in a kernel"))
    assert kernel_pid in processes_with(marker) and alive(kernel_pid)
    proc.kill()
    proc.wait()
    try:
        wait_for(lambda: not alive(kernel_pid) and processes_with(marker) == [], 15,
                 "the orphaned kernel to exit on its own")
    finally:
        for pid in processes_with(marker):
            os.kill(pid, signal.SIGKILL)


def test_pdf_adds_the_pdf_profile_after_the_active_ones(tmp_path, monkeypatch):
    """`pdf` reads _quarto-pdf.yml (the book's typst format) over the profiles already
    chosen: --profile, else QUARTO_PROFILE, else `profile: default:`; no file, no profile.
    The environment is left alone (only `quarto render`'s own gets the profiles)."""
    from bookcheck.cli import with_pdf_profile
    monkeypatch.delenv("QUARTO_PROFILE", raising=False)
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\n")
    assert with_pdf_profile(tmp_path, None) is None
    (tmp_path / "_quarto-pdf.yml").write_text("format:\n  typst: {}\n")
    assert with_pdf_profile(tmp_path, None) == "pdf"
    assert with_pdf_profile(tmp_path, "draft") == "draft,pdf"
    assert with_pdf_profile(tmp_path, "draft,pdf") == "draft,pdf"
    monkeypatch.setenv("QUARTO_PROFILE", "env")
    assert with_pdf_profile(tmp_path, None) == "env,pdf"
    assert with_pdf_profile(tmp_path, "draft") == "draft,pdf"
    monkeypatch.delenv("QUARTO_PROFILE")
    (tmp_path / "_quarto.yml").write_text("profile:\n  default: [wide]\n")
    assert with_pdf_profile(tmp_path, None) == "wide,pdf"
    assert "QUARTO_PROFILE" not in os.environ
