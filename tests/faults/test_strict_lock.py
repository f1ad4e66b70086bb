"""numbers.lock is read strictly: a damaged ledger fails the check at numbers.lock:LINE.

Merge-conflict markers, duplicate keys, lines that are not `key<TAB>value`:
each is a `ledger` finding at its line saying how to resolve it; nothing is
written; `make numbers` writes a clean file, after which the check passes.
"""
from __future__ import annotations

import pytest

from tests.faults.faultkit import assert_consistent_after_failure, disk_state

pytestmark = pytest.mark.slow


def entry_lines(text: str) -> list[int]:
    return [n for n, line in enumerate(text.split("\n"), start=1)
            if line and not line.startswith("#")]


def damage(text: str, how: str) -> tuple[str, int, str]:
    """(damaged text, the line to blame, a word the reason must contain)."""
    lines = text.split("\n")
    n = entry_lines(text)[0]                  # 1-based line of the first entry
    line = lines[n - 1]
    key, value = line.split("\t", 1)
    if how == "conflict":
        lines[n - 1:n] = ["<<<<<<< HEAD", line, "=======", f"{key}\t999", ">>>>>>> theirs"]
        return "\n".join(lines), n, "conflict"
    if how == "duplicate":
        lines.insert(n, f"{key}\t{value}0")
        return "\n".join(lines), n + 1, "twice"
    if how == "garbage":
        lines.insert(n, "this line is not an entry")
        return "\n".join(lines), n + 1, "key<TAB>value"
    if how == "no tab":
        lines[n - 1] = f"{key} {value}"
        return "\n".join(lines), n, "key<TAB>value"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["conflict", "duplicate", "garbage", "no tab"])
def test_a_damaged_ledger_is_a_finding_at_its_line(good_book, runner, how):
    lock = good_book / "numbers.lock"
    good = lock.read_text()
    damaged, line, word = damage(good, how)
    lock.write_text(damaged)
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    found = [f for f in result.findings if f.path == "numbers.lock"]
    assert found, result.output
    assert {f.kind for f in result.findings} == {"ledger"}, result.output
    first = found[0]
    assert (first.path, first.line, first.kind) == ("numbers.lock", line, "ledger"), result.output
    assert word in first.reason and "bookcheck numbers" in first.reason, first.reason
    assert_consistent_after_failure(runner, good_book, before, result)
    accepted = runner.cli(good_book, "numbers")
    assert accepted.code == 0, accepted.output
    assert lock.read_text() == good               # clean again, the same numbers
    assert runner.cli(good_book).code == 0
