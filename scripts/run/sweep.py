"""No process started by a run outlives it, whatever session it moved to.

Killing a kernel's process group ends what the chapter started in that group,
but a cell can move a child to another group or session
(`subprocess.Popen(..., start_new_session=True)`, `setsid`, a daemon's double
fork). What such a child cannot drop is its environment: every run puts a
fresh marker in the environment of its fork server and kernels
(`RUN_MARKER_VAR=<uuid>`), which everything they start inherits, and at the
end of the run `kill_marked` ends every live process that carries it.

Linux: processes are found through /proc/<pid>/environ (where /proc is
missing the sweep finds nothing and process groups remain the only cleanup).
Stdlib only.
"""
from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager

RUN_MARKER_VAR = "QMD_CHECK_RUN"


def new_marker() -> str:
    return os.urandom(16).hex()       # 128 random bits, as uuid4 (whose import costs ~8 ms)


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    return text[text.rfind(b")") + 2:].split(b" ", 1)[0].decode()


def marked_processes(marker: str) -> list[int]:
    """Live (non-zombie) processes, other than this one, whose environment carries `marker`."""
    if not marker:
        return []
    needle = f"{RUN_MARKER_VAR}={marker}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    found = []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        if needle in _environ(pid).split(b"\0") and _state(pid) not in (None, "Z", "X"):
            found.append(pid)
    return sorted(found)


def kill_marked(marker: str, rounds: int = 3) -> list[int]:
    """SIGKILL every live process carrying `marker` (a few rounds: a dying parent may
    still fork); returns the pids signalled."""
    killed: list[int] = []
    for _ in range(rounds):
        pids = marked_processes(marker)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        time.sleep(0.01)
    return killed


@contextmanager
def marked_run():
    """Put a fresh marker into os.environ for the duration of a run (children inherit
    it), then kill whatever still carries it and restore the environment."""
    marker = new_marker()
    previous = os.environ.get(RUN_MARKER_VAR)
    os.environ[RUN_MARKER_VAR] = marker
    try:
        yield marker
    finally:
        if previous is None:
            os.environ.pop(RUN_MARKER_VAR, None)
        else:
            os.environ[RUN_MARKER_VAR] = previous
        kill_marked(marker)
