"""No kernel process and no temp or connection file outlives a run, however it ends.

Each run gets a private TMPDIR and JUPYTER_RUNTIME_DIR and a marker variable in
its environment (inherited by everything it starts). While it runs, its
descendants are followed through /proc ppid chains (so the test knows kernels
really were started); afterwards no process carrying the marker may be alive
and both directories must be empty.
"""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from tests.faults.faultkit import (_stat, assert_no_leftovers, descendants, edit, interrupt,
                      leftover_processes, wait_until)

pytestmark = pytest.mark.slow

# the slow cell announces itself, so a test interrupts it while it runs
# (in contents/: a chapter runs in its own folder, as in Quarto)
SLOW = "import time\nopen('STARTED', 'w').close()\nfor _ in range(600):\n    time.sleep(0.1)\n"

SCENARIOS = {
    # name: (code appended to the setup cell, CLI extra args, expected exit status)
    "passed": ("", ("--force",), 0),
    "failed": ("raise RuntimeError('broken')\n", (), 1),
    "os-exit": ("import os\nos._exit(1)\n", (), 1),
    "timed-out": ("while True:\n    pass\n", ("--timeout", "3"), 1),
    "interrupted": (SLOW, (), 130),
    # a cell that leaves a child process of its own running
    "spawned": ("import subprocess\nsubprocess.Popen(['sleep', '300'])\n", ("--force",), 0),
    # … or one that moved to a session of its own (not in the kernel's process group)
    "detached": ("import subprocess\nsubprocess.Popen(['sleep', '417'], start_new_session=True)\n",
                 ("--force",), 0),
    "setsid": ("import subprocess\nsubprocess.Popen(['setsid', 'sleep', '418'])\n", ("--force",), 0),
    # … or one that also dropped its environment (no run marker to find it by)
    "emptied-env": ("import subprocess\nsubprocess.Popen(['sleep', '602'], start_new_session=True, "
                    "env={})\n", ("--force",), 0),
    "env-i": ("import subprocess\nsubprocess.run(['env', '-i', 'setsid', 'sh', '-c', 'sleep 603 &'])\n",
              ("--force",), 0),
}

# the sleepers above, found by their command line (an emptied environment carries
# no marker; the test kills them itself, so a missing fix never leaks them)
SLEEPERS = {"spawned": "sleep 300", "detached": "sleep 417", "setsid": "sleep 418",
            "emptied-env": "sleep 602", "env-i": "sleep 603"}


def _by_cmdline(cmdline: str) -> list[int]:
    """Live processes of this user whose command line is exactly `cmdline`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                text = handle.read().rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
            uid = os.stat(f"/proc/{name}").st_uid
        except OSError:
            continue
        if text == cmdline and uid == os.getuid() and _alive(int(name)):
            found.append(int(name))
    return found


def _watch(proc, seen: dict[int, str], stop: threading.Event) -> None:
    """Record every descendant of the CLI (pid -> cmdline) while it runs."""
    while not stop.is_set() and proc.poll() is None:
        for pid in descendants(proc.pid):
            if pid not in seen:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as handle:
                        seen[pid] = handle.read().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    pass
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[1] != "Z"


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_nothing_outlives_a_run(good_book, runner, scenario):
    code, extra, expected = SCENARIOS[scenario]
    if code:
        edit(good_book / "contents" / "one.qmd", "cluster_str = fmt(", code + "cluster_str = fmt(")
    sleeper = SLEEPERS.get(scenario)
    already = set(_by_cmdline(sleeper)) if sleeper else set()
    proc, marker = runner.start(good_book, "check", *extra)
    seen: dict[int, str] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(proc, seen, stop), daemon=True)
    watcher.start()
    try:
        if scenario == "interrupted":
            assert wait_until((good_book / "contents" / "STARTED").exists, timeout=60), "the slow cell never ran"
            time.sleep(0.3)
            interrupt(proc)
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        stop.set()
        watcher.join()
        if proc.poll() is None:
            proc.kill()
        escaped = []
        if sleeper:
            wait_until(lambda: not set(_by_cmdline(sleeper)) - already, timeout=5)
            escaped = sorted(set(_by_cmdline(sleeper)) - already)
            for pid in escaped:                 # never leave them running, fix or no fix
                os.kill(pid, signal.SIGKILL)
    assert escaped == [], f"{sleeper!r} outlived the run"
    assert proc.returncode == expected, (stdout, stderr)
    assert seen, "the run started no process at all: nothing was tested"
    assert any("kernel" in c or "forkserver" in c for c in seen.values()), seen
    wait_until(lambda: not any(_alive(p) for p in seen), timeout=5)
    assert [f"{p} {seen[p]}" for p in seen if _alive(p)] == []
    assert_no_leftovers(runner, marker)


def test_sigterm_leaves_no_kernel_behind(good_book, runner):
    """CI cancelling a job sends SIGTERM to the checker alone: its kernels must still go."""
    edit(good_book / "contents" / "one.qmd", "cluster_str = fmt(", SLOW + "cluster_str = fmt(")
    proc, marker = runner.start(good_book, "check")
    assert wait_until((good_book / "contents" / "STARTED").exists, timeout=60), "the slow cell never ran"
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr          # 128 + SIGTERM
    assert "Traceback" not in stderr, stderr
    assert_no_leftovers(runner, marker)
    assert leftover_processes(marker) == []



def test_sigkill_leaves_no_kernel_running(good_book, runner):
    """A checker killed outright (OOM killer, CI hard timeout) cannot clean up after itself;
    its kernels must notice and exit on their own. (Their connection files in TMPDIR
    are the one thing a SIGKILLed run may leave behind.)"""
    edit(good_book / "contents" / "one.qmd", "cluster_str = fmt(", SLOW + "cluster_str = fmt(")
    proc, marker = runner.start(good_book, "check")
    assert wait_until((good_book / "contents" / "STARTED").exists, timeout=60), "the slow cell never ran"
    assert leftover_processes(marker), "no process of the run found: nothing was tested"
    proc.kill()
    proc.communicate(timeout=60)
    try:
        assert wait_until(lambda: not leftover_processes(marker), timeout=15), \
            f"processes outlived a SIGKILLed checker: {leftover_processes(marker)}"
    finally:
        for pid in leftover_processes(marker):      # ours (marker): never leave them running
            os.kill(pid, signal.SIGKILL)


# a daemon that keeps re-forking itself: each generation forks the next and exits, so
# the pid a sweep lists is gone before its SIGKILL lands (its process group stays)
REFORKER = ("import os, sys, time\nopen(sys.argv[1], 'w').write(str(os.getpgrp()))\n"
            "while True:\n    time.sleep(0.002)\n    if os.fork():\n        os._exit(0)\n")


def test_a_reforking_daemon_does_not_outlive_the_run(good_book, runner, tmp_path):
    """Killing pid by pid loses the race with a process that forks a new pid every few
    milliseconds: the sweep freezes the run's processes and their groups (SIGSTOP) first."""
    pgid_file = tmp_path / "reforker.pgid"
    cell = (f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {REFORKER!r}, "
            f"{str(pgid_file)!r}], start_new_session=True)\ntime.sleep(1)\n")
    edit(good_book / "contents" / "one.qmd", "cluster_str = fmt(", cell + "cluster_str = fmt(")
    pgid = None
    try:
        result = runner.cli(good_book, "check", "--force")
        assert pgid_file.is_file(), f"the daemon never started\n{result.output}"
        pgid = int(pgid_file.read_text())
        assert result.code == 0, result.output
        wait_until(lambda: not leftover_processes(result.marker), timeout=5)
        assert leftover_processes(result.marker) == [], "the re-forking daemon outlived the run"
        time.sleep(0.2)
        with pytest.raises(ProcessLookupError):
            os.killpg(pgid, 0)              # nothing left in its process group either
    finally:
        if pgid:
            try:
                os.killpg(pgid, signal.SIGKILL)   # never leave it running, fix or no fix
            except ProcessLookupError:
                pass
