"""Reads seen at the operating-system boundary, whatever makes them (issue 34 §1).

The interposer (scripts/bookcheck/run/interpose.c) logs the libc file calls of the kernel
and of its children; nothing below names the APIs. Each case adds chapter two,
which decides a published number by one kind of read; the numbers are accepted,
a second check serves every chapter from the cache, then what was read changes
and the next check re-runs chapter two (only) and reports the moved number.
"""
from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.faults.faultkit import add_chapter, from_cache, ledger_lines

pytestmark = pytest.mark.slow


def _contents(book: Path) -> Path:
    return book / "contents"


def blob(size):
    return lambda book: (_contents(book) / "blob.bin").write_bytes(b"x" * size)


def state(text):
    return lambda book: (_contents(book) / "state.txt").write_text(text)


def racks(count):
    def make(book):
        folder = _contents(book) / "racks"
        folder.mkdir(exist_ok=True)
        for n in range(count):
            (folder / f"r{n}.csv").write_text("")
    return make


def sqlite_nodes(value):
    def make(book):
        with sqlite3.connect(_contents(book) / "fleet.db") as db:
            db.execute("create table if not exists fleet (nodes integer)")
            db.execute("delete from fleet")
            db.execute("insert into fleet values (?)", (value,))
        db.close()
    return make


def hdf5_nodes(value):
    def make(book):
        import h5py
        with h5py.File(_contents(book) / "fleet.h5", "w") as handle:
            handle["nodes"] = value
    return make


def stamp_time(seconds):
    def make(book):
        path = _contents(book) / "stamp"
        path.write_text("same bytes")
        os.utime(path, (seconds, seconds) if seconds else None)
    return make


def tool_mode(mode):
    def make(book):
        path = _contents(book) / "tool.sh"
        path.write_text("#!/bin/sh\n")
        path.chmod(mode)
    return make


CTYPES = """import ctypes
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.fgets.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
handle = libc.fopen(b"state.txt", b"r")
buffer = ctypes.create_string_buffer(16)
libc.fgets(buffer, 16, handle)
libc.fclose(handle)
nodes = int(buffer.value)"""

CASES = {
    # id: (code deciding `nodes`, setup, change)
    "os.DirEntry.stat()": ("import os\nnodes = [e.stat().st_size for e in os.scandir('.') if e.name == 'blob.bin'][0]",
                           blob(16), blob(32)),
    "posix.stat": ("import posix\nnodes = posix.stat('blob.bin').st_size", blob(16), blob(32)),
    "os.fwalk": ("import os\nnodes = 8 * sum(len(files) for _, _, files, _ in os.fwalk('racks'))",
                 racks(2), racks(4)),
    "dir_fd=": ("import os\nfolder = os.open('.', os.O_RDONLY)\nnodes = os.stat('blob.bin', dir_fd=folder).st_size",
                blob(16), blob(32)),
    "listdir(fd)": ("import os\nnodes = 8 * len(os.listdir(os.open('racks', os.O_RDONLY)))", racks(2), racks(4)),
    "/proc/self/root": ("import os\nnodes = int(open('/proc/self/root' + os.path.abspath('state.txt')).read())",
                        state("16"), state("32")),
    "ctypes through libc": (CTYPES, state("16"), state("32")),
    "numpy.fromfile": ("import numpy\nnodes = int(numpy.fromfile('blob.bin', dtype='u1').size)", blob(16), blob(32)),
    "sqlite": ("import sqlite3\nnodes = sqlite3.connect('fleet.db').execute('select nodes from fleet').fetchone()[0]",
               sqlite_nodes(16), sqlite_nodes(32)),
    "h5py": ("import h5py\nwith h5py.File('fleet.h5', 'r') as f:\n    nodes = int(f['nodes'][()])",
             hdf5_nodes(16), hdf5_nodes(32)),
    "a subprocess (cat)": ("import subprocess\nnodes = int(subprocess.run(['cat', 'state.txt'], "
                           "capture_output=True, text=True).stdout)", state("16"), state("32")),
    "a subprocess with an empty environment": (
        "import subprocess\nnodes = int(subprocess.run(['/bin/cat', 'state.txt'], env={}, "
        "capture_output=True, text=True).stdout)", state("16"), state("32")),
    "a shell's redirect": ("import os\nnodes = int(os.popen('read n < state.txt; echo $n').read())",
                           state("16"), state("32")),
    "an mtime (same bytes)": ("import os\nnodes = 16 if os.path.getmtime('stamp') < 1e6 else 32",
                              stamp_time(1000), stamp_time(None)),
    "a mode (same bytes)": ("import os\nnodes = 32 if os.access('tool.sh', os.X_OK) else 16",
                            tool_mode(0o644), tool_mode(0o755)),
    "st_mode (same bytes)": ("import os, stat\nnodes = 32 if os.stat('tool.sh').st_mode & stat.S_IXUSR else 16",
                             tool_mode(0o644), tool_mode(0o755)),
}


def chapter(code: str) -> str:
    return f"# Two\n\n```{{python}}\n#| label: two-read\n{code}\n```\n\nThe cluster has `{{python}} nodes` nodes.\n"


@pytest.mark.parametrize("case", list(CASES))
def test_a_read_below_python_moves_the_number(good_book, runner, case):
    if case == "h5py":
        pytest.importorskip("h5py")
    code, setup, change = CASES[case]
    setup(good_book)
    add_chapter(good_book, chapter(code))
    accepted = runner.cli(good_book, "numbers")
    assert accepted.code == 0, accepted.output
    again = runner.cli(good_book)
    assert (again.code, from_cache(again)) == (0, 3), again.output      # observed, so cached
    change(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    assert ledger_lines(result) == ["contents/two.qmd · nodes: 16 → 32"], result.output
    assert from_cache(result) == 2, result.output


def test_a_touch_reruns_only_the_runs_that_asked_for_the_time(good_book, runner):
    """Chapter two reads the file's bytes, chapter three its mtime: a `touch` (bytes
    unchanged) re-runs three only, and so does a chmod (the stat fact has the mode)."""
    path = _contents(good_book) / "state.txt"
    path.write_text("16")
    os.utime(path, (1000, 1000))
    add_chapter(good_book, chapter("nodes = int(open('state.txt').read())"))
    three = chapter("import os\nnodes = 16 if os.path.getmtime('state.txt') < 2000 else 32")
    add_chapter(good_book, three.replace("# Two", "# Three").replace("two-read", "three-read"),
                "contents/three.qmd")
    accepted = runner.cli(good_book, "numbers")
    assert accepted.code == 0, accepted.output
    assert from_cache(runner.cli(good_book)) == 4
    os.utime(path, None)
    touched = runner.cli(good_book)
    assert ledger_lines(touched) == ["contents/three.qmd · nodes: 16 → 32"], touched.output
    assert from_cache(touched) == 3, touched.output         # two, which read the bytes: cached
    path.chmod(0o600)
    moded = runner.cli(good_book)
    assert from_cache(moded) == 3, moded.output
