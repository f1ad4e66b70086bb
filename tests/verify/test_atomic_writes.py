"""numbers.lock and cache entries are written atomically: a write that fails partway
leaves the previous file byte-identical and no temporary file behind.

Two independent ways to fail partway, so the tests do not depend on how the
atomic write is built (a temp file + os.replace, a helper, Path.replace):

- the final move fails (`os.replace` raises): a plain `open(path, "w")` write
  never calls it, so it raises nothing and the test sees the new bytes;
- the disk fills up in the middle of the write (every file opened in the
  target folder writes half its data, then raises ENOSPC): a plain
  `open(path, "w")` write has already truncated the old file.

Planted check (issue 17): replacing `ledger.write` or the store's write by a plain
`open(path, "w")` write makes these tests fail.
"""
from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path

import pytest

from bookcheck.run import cache
from bookcheck.verify import ledger
from bookcheck.model import ChapterRun, InlineRun

KEY = "ab" * 32


class _HalfWriter:
    """A file object that writes the first half of its first write, then fails (disk full)."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, data):
        self._handle.write(data[: len(data) // 2])
        self._handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device (planted by the test)")

    def writelines(self, lines):
        self.write("".join(lines) if lines and isinstance(lines[0], str) else b"".join(lines))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()
        return False

    def __getattr__(self, name):
        return getattr(self._handle, name)


def _disk_fills_up_in(folder: Path, monkeypatch) -> None:
    """Every file opened for writing inside `folder` fails halfway through its first write."""
    real_open = io.open
    folder = folder.resolve()

    def opener(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if any(flag in mode for flag in "wax+"):
            if isinstance(file, int):                    # os.fdopen(mkstemp fd): inside folder?
                target = Path(os.readlink(f"/proc/self/fd/{file}")).resolve()
            else:
                target = Path(file).resolve()
            if folder == target.parent or folder in target.parents:
                return _HalfWriter(handle)
        return handle

    monkeypatch.setattr(io, "open", opener)
    monkeypatch.setattr(builtins, "open", opener)


def _move_fails(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise OSError(errno.EIO, "rename failed (planted by the test)")
    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr(os, "rename", refuse)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _run(value: str) -> ChapterRun:
    return ChapterRun(path="contents/a.qmd", inlines=[InlineRun(index=0, kind="text", text=value)],
                      invariants=1, seconds=0.5)


# ----------------------------------------------------------------- numbers.lock

@pytest.fixture
def lock(tmp_path) -> Path:
    folder = tmp_path / "book"
    folder.mkdir()
    path = folder / "numbers.lock"
    ledger.write(path, {f"ch · value_{n}": str(n * 1.5) for n in range(200)})
    return path


@pytest.mark.parametrize("failure", ["move", "disk-full"])
def test_failed_ledger_write_leaves_the_old_lock_byte_identical(lock, monkeypatch, failure):
    before = _snapshot(lock.parent)
    assert set(before) == {"numbers.lock"} and len(before["numbers.lock"]) > 1000
    (_move_fails if failure == "move" else lambda m: _disk_fills_up_in(lock.parent, m))(monkeypatch)
    with pytest.raises(OSError):
        ledger.write(lock, {f"ch · value_{n}": "changed" for n in range(300)})
    monkeypatch.undo()
    assert _snapshot(lock.parent) == before           # same bytes, no temp file left
    assert ledger.read(lock)["ch · value_3"] == "4.5"


# ----------------------------------------------------------------- cache entries

@pytest.fixture
def cached(tmp_path) -> Path:
    cache.store(tmp_path, KEY, _run("old value " * 50))
    return tmp_path


@pytest.mark.parametrize("failure", ["move", "disk-full"])
def test_failed_cache_store_leaves_the_old_entry_byte_identical(cached, monkeypatch, failure):
    folder = cache.cache_dir(cached)
    before = _snapshot(folder)
    assert len(before) == 1
    (_move_fails if failure == "move" else lambda m: _disk_fills_up_in(folder, m))(monkeypatch)
    cache.store(cached, KEY, _run("new value " * 80))       # costs time, never an error
    monkeypatch.undo()
    assert _snapshot(folder) == before
    assert cache.load(cached, KEY).inlines[0].text == "old value " * 50


@pytest.mark.parametrize("failure", ["move", "disk-full"])
def test_failed_first_cache_store_leaves_no_entry(tmp_path, monkeypatch, failure):
    folder = cache.cache_dir(tmp_path)
    folder.mkdir(parents=True)
    (_move_fails if failure == "move" else lambda m: _disk_fills_up_in(folder, m))(monkeypatch)
    cache.store(tmp_path, KEY, _run("value"))
    monkeypatch.undo()
    assert _snapshot(folder) == {}                    # no half entry, no temp file
    assert cache.load(tmp_path, KEY) is None
