"""Kernels that die, hang or flood; a corrupted cache; an unwritable output; Ctrl-C."""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time

import pytest

from bookcheck import store

from tests.faults.faultkit import (add_chapter, assert_consistent_after_failure, assert_no_leftovers, cache_entries,
                      descendants, disk_state, edit, interrupt, wait_until)
from bookcheck.model import Kind

pytestmark = pytest.mark.slow


def chapter(book):
    return book / "contents" / "one.qmd"



def test_cell_calling_os_exit_is_reported_and_the_others_still_checked(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-exit\nimport os\nos._exit(3)\n```\n")
    edit(chapter(good_book), "check(cluster < node_mtbf,", "check(cluster > node_mtbf,")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    died = result.only("kernel-died")
    assert (died.path, died.line, died.label) == ("contents/two.qmd", 3, "two-exit")
    assert "died" in died.reason
    assert result.only("invariant").path == "contents/one.qmd"     # the other chapter ran
    assert_consistent_after_failure(runner, good_book, before, result)


def test_cell_that_never_ends_times_out(good_book, runner):
    add_chapter(good_book, "# Two\n\nBefore.\n\n```{python}\n#| label: two-hang\nwhile True:\n    pass\n```\n")
    before = disk_state(good_book)
    result = runner.cli(good_book, "check", "--timeout", "3", timeout=120)
    assert result.code == 1, result.output
    f = result.only("timeout")
    assert (f.path, f.line, f.label) == ("contents/two.qmd", 5, "two-hang")
    assert "timeout of 3 s" in f.reason
    assert result.kinds() == {"timeout"}       # chapter one checked, no other finding
    # a timeout is never cached: the rerun executes the chapter again and agrees
    assert_consistent_after_failure(runner, good_book, before, result, extra=("--timeout", "3"))


def test_inline_expression_that_never_ends_times_out(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\nimport time\n```\n\nIt is `{python} time.sleep(60)`.\n")
    result = runner.cli(good_book, "check", "--timeout", "3", timeout=120)
    f = result.only("timeout")
    assert (f.path, f.line, f.col) == ("contents/two.qmd", 7, 7)
    assert_no_leftovers(runner, result.marker)


def _peak_rss_mb(proc: subprocess.Popen) -> float:
    """Poll VmHWM (peak RSS) of the process until it exits."""
    peak = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.05)
    return peak / 1024


def _check_measuring_peak(runner, book):
    """Run `check` on `book`, draining its output while polling its peak RSS;
    returns (process, run marker, {"stdout", "stderr"}, peak MB)."""
    proc, marker = runner.start(book, "check")
    out: dict = {}
    reader = threading.Thread(target=lambda: out.update(stdout=proc.stdout.read(),
                                                        stderr=proc.stderr.read()))
    reader.start()
    peak_mb = _peak_rss_mb(proc)
    proc.wait(timeout=240)
    reader.join()
    return proc, marker, out, peak_mb


def test_cell_printing_100_mb_is_truncated_in_bounded_memory(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-flood\nchunk = 'x' * 99_999\n"
                           "for _ in range(1_000):\n    print(chunk)\n```\n\nDone: `{python} len(chunk)`.\n")
    proc, marker, out, peak_mb = _check_measuring_peak(runner, good_book)
    # the flood is output, not an error: its one finding says the page would show it cut
    assert proc.returncode == 1, out
    lines = out["stdout"].splitlines()
    assert ", 1 finding, " in lines[-1], out["stdout"][-2000:]
    assert "contents/two.qmd:3 [two-flood] output-cut:" in out["stdout"], out["stdout"][-2000:]
    print(f"checker peak RSS with a 100 MB cell output: {peak_mb:.0f} MB")
    assert peak_mb < 150, f"the checker peaked at {peak_mb:.0f} MB for a 100 MB output"
    cached = cache_entries(good_book)
    assert max(p.stat().st_size for p in cached) < 5_000_000      # truncated, not stored whole
    assert_no_leftovers(runner, marker)


def test_100_mb_inline_value_is_capped_in_the_kernel(good_book, runner):
    """The value is capped inside the kernel: the checker never holds 100 MB, and no
    report line is longer than a few hundred characters."""
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-big\nbig = '7' * 100_000_000\n```\n\n"
                           "Big: `{python} big`.\n")
    before = disk_state(good_book)
    proc, marker, out, peak_mb = _check_measuring_peak(runner, good_book)
    print(f"checker peak RSS with a 100 MB inline value: {peak_mb:.0f} MB")
    assert proc.returncode == 1, out            # the value was cut: its one finding
    lines = out["stdout"].splitlines()
    assert ", 1 finding, " in lines[-1], out["stdout"][-2000:]
    assert "contents/two.qmd:8:6 output-cut:" in out["stdout"], out["stdout"][-2000:]
    assert max(len(line) for line in lines) <= 400, max(len(line) for line in lines)
    assert peak_mb <= 200, f"the checker peaked at {peak_mb:.0f} MB for a 100 MB inline value"
    cached = cache_entries(good_book)
    assert max(p.stat().st_size for p in cached) < 5_000_000
    assert disk_state(good_book) == before
    assert_no_leftovers(runner, marker)


def test_corrupted_cache_entry_is_recomputed(good_book, runner):
    first = runner.cli(good_book)
    assert first.code == 0, first.output
    entries = cache_entries(good_book)
    assert entries
    # Every entry is damaged in a way that must be detected, whatever the order of
    # the file names: the first in name order (whichever chapter that is) gets a
    # changed payload under a stale checksum, every other one a torn write. The
    # payload change always alters the run (its invariant count and every inline
    # value), so it cannot be a no-op for a chapter without inline expressions.
    for n, entry in enumerate(entries):
        header, _, payload = entry.read_bytes().partition(b"\n")
        if n == 0:              # a changed run with a stale checksum
            run = json.loads(payload)
            run["invariants"] = run.get("invariants", 0) + 666
            run["inlines"] = [dict(i, text="666") for i in run["inlines"]]
            assert run != json.loads(payload)
            entry.write_bytes(header + b"\n" + json.dumps(run).encode())
        else:                   # a torn write
            entry.write_bytes(entry.read_bytes()[:50])
    before = disk_state(good_book)
    second = runner.cli(good_book)
    assert second.code == 0, second.output
    assert "666" not in second.stdout
    assert second.summary["cached"] == 0
    assert second.finding_lines() == first.finding_lines()
    assert disk_state(good_book) == before
    third = runner.cli(good_book)            # and the recomputed entries are good again
    assert third.summary["cached"] == len(entries), third.output


def test_unwritable_book_output_directory(good_book, runner):
    """`output-dir` under a regular file: the render fails cleanly, nothing half-written."""
    edit(good_book / "_quarto.yml", "  type: book", "  type: book\n  output-dir: out/_book")
    (good_book / "out").write_text("a file, not a directory\n")
    before = disk_state(good_book)
    listing = sorted(p.name for p in good_book.iterdir())
    result = runner.cli(good_book, "html")
    assert result.code == 1, result.output
    message = result.stdout + result.stderr
    assert "render failed" in message and "out" in message, result.output
    assert "Traceback" not in message, result.output
    assert disk_state(good_book) == before
    assert (good_book / "out").read_text() == "a file, not a directory\n"
    assert sorted(p.name for p in good_book.iterdir()) == listing
    assert_no_leftovers(runner, result.marker)


def test_book_output_path_that_is_a_file_is_replaced_whole_or_not_at_all(good_book, runner):
    shutil.rmtree(good_book / "_book")
    (good_book / "_book").write_text("not a directory\n")
    result = runner.cli(good_book, "html")
    # The stale file stands where the output directory goes: the render replaces it whole.
    assert result.code == 0, result.output
    assert "Traceback" not in result.stdout + result.stderr, result.output
    assert (good_book / "_book").is_dir()
    pages = sorted(p.relative_to(good_book / "_book").as_posix()
                   for p in (good_book / "_book").rglob("*.html"))
    assert "index.html" in pages and any(p.endswith("one.html") for p in pages), pages
    assert "Fault fixture" in (good_book / "_book" / "index.html").read_text(encoding="utf-8")
    assert [p.name for p in good_book.iterdir()
            if p.name.startswith("_book") and p.name != store.BUILD] == ["_book"]
    assert disk_state(good_book)["strays"] == []
    assert_no_leftovers(runner, result.marker)


def test_ledger_that_cannot_be_written(good_book, runner):
    (good_book / "numbers.lock").unlink()
    (good_book / "numbers.lock").mkdir()
    result = runner.cli(good_book, "numbers")
    assert result.code != 0, result.output
    message = result.stdout + result.stderr
    assert "numbers.lock" in message, result.output
    assert "Traceback" not in message, result.output
    assert list((good_book / "numbers.lock").iterdir()) == []
    assert not [p for p in good_book.iterdir() if p.name.startswith(".numbers.lock.")]
    assert_no_leftovers(runner, result.marker)


@pytest.mark.parametrize("damage", ["a directory", "not UTF-8"])
def test_ledger_that_cannot_be_read(good_book, runner, damage):
    lock = good_book / "numbers.lock"
    if damage == "a directory":
        lock.unlink()
        lock.mkdir()
    else:
        lock.write_bytes(lock.read_bytes() + b"one \xb7 x\t\xff\xfe\n")
    result = runner.cli(good_book, "check")
    assert result.code == 1, result.output
    f = result.only("ledger")
    assert (f.path, f.line) == ("numbers.lock", 0)
    assert "Traceback" not in result.stdout + result.stderr, result.output
    assert_no_leftovers(runner, result.marker)


def test_ctrl_c_during_a_build_exits_130_and_the_next_build_is_clean(good_book, runner):
    # The chapter runs in its own folder, contents/ (Quarto's default working directory).
    (good_book / "contents" / "SLOW").write_text("")
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-slow\nimport os, time\n"
                           "if os.path.exists('SLOW'):\n    open('STARTED', 'w').close()\n"
                           "    time.sleep(120)\nanswer = 42\n```\n\n"
                           "The answer is `{python} answer`.\n")
    before = disk_state(good_book)
    proc, marker = runner.start(good_book, "numbers")

    assert wait_until((good_book / "contents" / "STARTED").exists, timeout=60), "the slow cell never ran"
    assert descendants(proc.pid), "the checker has no child processes: where is the kernel?"
    time.sleep(0.3)
    interrupt(proc)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr, stderr
    assert disk_state(good_book) == before       # numbers.lock not rewritten, no temp files
    assert_no_leftovers(runner, marker)
    (good_book / "contents" / "SLOW").unlink()
    result = runner.cli(good_book, "numbers")
    assert result.code == 0, result.output
    assert "contents/two.qmd · answer\t42" in (good_book / "numbers.lock").read_text()
    assert runner.cli(good_book).code == 0



@pytest.mark.kernel
def test_a_fmt_helper_given_the_wrong_unit_names_itself_at_the_chapter_line(tmp_path):
    """Issue 31: `fmt_duration(24 * GB)` is mlsys's clear unit error at the chapter's
    line (as the formulas' are), not pint's conversion error from inside pint."""
    from tests.faults.faultkit import QUARTO_YML, line_of, write_book

    from bookcheck.verify.check import check_book
    text = ("# One {#sec-one}\n\n```{python}\nfrom mlsys import GB, fmt_duration\n"
            "size = 24 * GB\nshown = fmt_duration(size)\n```\n")
    root = write_book(tmp_path / "book", {"contents/one.qmd": text},
                      quarto=QUARTO_YML.format(chapters="    - contents/one.qmd"))
    result = check_book(root)
    line = line_of(root / "contents/one.qmd", "shown = fmt_duration")
    assert [(f.path, f.line, f.kind, f.reason) for f in result.findings] == [
        ("contents/one.qmd", line, Kind.CELL_ERROR,
         "DimensionalityError: fmt_duration expects a time, got 24 gigabyte ([information])")]
