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

from checker_support import LOCAL_CHECK, processes_with, write_book
from scripts.model import Finding
from scripts.verify.report import format_finding

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

SLOW = '''
# Slow

```{python}
import time
time.sleep(600)
```
'''


def run_cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scripts", *args], cwd=PROJECT,
                          capture_output=True, text=True, env=env, timeout=120, **kw)


def test_exit_status_and_report_lines(tmp_path):
    good = write_book(tmp_path / "good", {"good.qmd": GOOD})
    done = run_cli("check", "--root", str(good))
    assert done.returncode == 1 and "make numbers" in done.stdout      # no ledger yet
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


def test_bench_receives_its_own_options():
    """`bench --only …` reaches the benchmark's parser: an invalid choice is its error."""
    done = run_cli("bench", "--only", "no-such-book")
    assert done.returncode == 2
    assert "--only" in done.stderr and "no-such-book" in done.stderr
    assert "unrecognized arguments" not in done.stderr


def test_format_finding():
    f = Finding("c.qmd", 12, "inline-error", "NameError: x", col=7, label="tbl-a",
                detail="`{python} x`\nsecond")
    assert format_finding(f) == ("c.qmd:12:7 [tbl-a] inline-error: NameError: x\n"
                                 "    `{python} x`\n    second")


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_exits_and_leaves_no_kernel(tmp_path, signum, status):
    root = write_book(tmp_path, {"slow.qmd": SLOW, "good.qmd": GOOD})
    marker = f"CHECKER_TEST_{uuid.uuid4().hex}"
    env = dict(os.environ, **{marker: "1"})
    proc = subprocess.Popen([sys.executable, "-m", "scripts", "check", "--root", str(root)],
                            cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while len(processes_with(marker)) < 2 and time.monotonic() < deadline:   # checker + a kernel
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert "Traceback" not in err
    time.sleep(0.5)
    assert processes_with(marker) == []
    assert not (root / "numbers.lock").exists()


def test_cached_check_imports_no_heavy_module(tmp_path):
    root = write_book(tmp_path, {"good.qmd": GOOD})
    assert run_cli("numbers", "--root", str(root)).returncode == 0
    probe = ("import sys; from pathlib import Path; from scripts.verify.check import check_book; "
             f"r = check_book(Path({str(root)!r})); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "{'pint', 'pandas', 'matplotlib', 'nbclient', 'jupyter_client', 'zmq', 'IPython', 'numpy'}); "
             "print(r.cached_chapters, len(r.findings), heavy)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "1 0 []", done.stderr


def test_sigkilled_checker_leaves_no_kernel_running(tmp_path):
    """Killed outright, the checker cannot clean up: its kernels must exit on their own."""
    root = write_book(tmp_path, {"slow.qmd": SLOW})
    marker = f"CHECKER_TEST_{uuid.uuid4().hex}"
    proc = subprocess.Popen([sys.executable, "-m", "scripts", "check", "--root", str(root)],
                            cwd=PROJECT, env=dict(os.environ, **{marker: "1"}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(processes_with(marker)) < 3 and time.monotonic() < deadline:   # checker, server, kernel
        time.sleep(0.2)
    assert len(processes_with(marker)) >= 3
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = processes_with(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
