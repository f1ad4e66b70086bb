"""`make numbers` refuses a run whose input changed while it ran (issue 34, section 1).

Cell one reads `value.txt`, the file is saved again while the chapter waits, cell
two reads it again: the run published `v = 1, w = 2`, numbers no single version
of the file gives. The snapshot already noticed (such a run is never cached); the
numbers were accepted all the same. Now nothing is recorded and the finding names
the line that opened the file.
"""
from __future__ import annotations

import time

import pytest

from tests.faults.faultkit import (HANG_LIMIT_S, add_chapter, assert_no_leftovers, disk_state,
                                   line_of, parse_report, wait_until)

pytestmark = pytest.mark.slow

TWO_READS = """\
# Two

```{python}
#| label: two-first
import os, time
v = int(open("value.txt").read())
open("started.flag", "w").close()
if os.path.exists("wait.flag"):        # the test saves value.txt meanwhile
    deadline = time.monotonic() + 60
    while open("value.txt").read().strip() == str(v) and time.monotonic() < deadline:
        time.sleep(0.05)
```

```{python}
#| label: two-second
w = int(open("value.txt").read())
```

The first read gave `{python} v`, the second `{python} w`.
"""


def test_numbers_refuses_a_run_whose_input_changed_while_it_ran(good_book, runner):
    folder = good_book / "contents"
    (folder / "value.txt").write_text("1")
    (folder / "wait.flag").write_text("")
    two = add_chapter(good_book, TWO_READS)
    before = disk_state(good_book)
    proc, marker = runner.start(good_book, "numbers", "--json")
    assert wait_until(lambda: (folder / "started.flag").exists(), timeout=HANG_LIMIT_S)
    time.sleep(0.2)
    (folder / "value.txt").write_text("2")
    stdout, stderr = proc.communicate(timeout=HANG_LIMIT_S)
    report, findings = parse_report(stdout)
    assert proc.returncode == 1, stdout + stderr
    assert [(f.path, f.line, f.kind) for f in findings] == \
        [("contents/two.qmd", line_of(two, 'v = int(open("value.txt")'), "input-changed")], stdout
    assert findings[0].reason.startswith("contents/value.txt changed while the chapter ran"), stdout
    assert disk_state(good_book) == before          # numbers.lock as it was: v=1, w=2 not recorded
    assert_no_leftovers(runner, marker)

    (folder / "wait.flag").unlink()                 # nothing writes it now: accepted
    accepted = runner.cli(good_book, "numbers")
    assert (accepted.code, accepted.findings) == (0, []), accepted.output
    lock = (good_book / "numbers.lock").read_text()
    assert "contents/two.qmd · v\t2\n" in lock and "contents/two.qmd · w\t2\n" in lock, lock
