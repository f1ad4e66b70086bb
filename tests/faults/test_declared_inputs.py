"""`cache-inputs:` naming a folder covers everything under it (issue 34, section 1).

A chapter whose run cannot be observed (here: a subprocess reads the files) is
cached only when it declares its inputs. Declaring a folder (`cache-inputs: [data]`)
used to record the folder as "dir" and nothing else: a file edited or added
anywhere under it was served the old number from the cache.
"""
from __future__ import annotations

import pytest

from tests.faults.faultkit import add_chapter, from_cache, ledger_lines

pytestmark = pytest.mark.slow

# every line of every file under data/, counted by a process the kernel cannot observe
COUNTING = """\
---
cache-inputs: [data]
---

# Two

```{python}
#| label: two-count
import subprocess
out = subprocess.run("find data -type f | sort | xargs cat | wc -l", shell=True,
                     capture_output=True, text=True, check=True)
nodes = int(out.stdout.split()[0])
```

The cluster has `{python} nodes` nodes.
"""


def _write(book, rel: str, lines: int) -> None:
    path = book / "contents" / "data" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("host\n" * lines)


@pytest.mark.parametrize("change", ["a file edited deep inside", "a file added to a subfolder",
                                    "a file removed"])
def test_a_declared_folder_covers_the_files_under_it(good_book, runner, change):
    _write(good_book, "racks/a/hosts.txt", 8)
    _write(good_book, "racks/b/hosts.txt", 8)
    add_chapter(good_book, COUNTING)
    accepted = runner.cli(good_book, "numbers")
    assert accepted.code == 0, accepted.output
    again = runner.cli(good_book)
    assert (again.code, from_cache(again)) == (0, 3), again.output     # declared: cached
    if change == "a file edited deep inside":
        _write(good_book, "racks/a/hosts.txt", 24)
        moved = "16 → 32"
    elif change == "a file added to a subfolder":
        _write(good_book, "racks/c/more/hosts.txt", 16)
        moved = "16 → 32"
    else:
        (good_book / "contents" / "data" / "racks" / "b" / "hosts.txt").unlink()
        moved = "16 → 8"
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    assert ledger_lines(result) == [f"contents/two.qmd · nodes: {moved}"], result.output
    assert from_cache(result) == 2, result.output
