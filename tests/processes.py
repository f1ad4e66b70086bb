"""Processes a test left behind: children of this test process, or carriers of a marker."""
from __future__ import annotations

import os
from pathlib import Path


def child_pids() -> set[int]:
    """Live (non-zombie) processes whose parent is this test process."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        state, ppid = fields[0], int(fields[1])
        if ppid == me and state != "Z":
            found.add(int(entry))
    return found


def processes_with(marker: str) -> list[int]:
    """Pids of live processes whose environment contains `marker` (kernels inherit it)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if marker.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                stat = Path(f"/proc/{entry}/stat").read_text()
                if stat[stat.rindex(")") + 2:].split()[0] != "Z":
                    pids.append(int(entry))
        except OSError:
            pass
    return pids
