"""A chapter reading what a *later* chapter writes is a finding (issue 34, section 1).

The checker runs a reader again after its writers (scheduled by bookcheck.run.order),
so such a book passed its check; Quarto runs the chapters in book order, so on a
fresh clone the reader opens a file that does not exist yet. Now it is a
`read-before-written` finding at the reader's line, on a fresh check and on a
cached one; a writer listed first (the existing order test) is no finding.
"""
from __future__ import annotations

import pytest

from tests.faults.faultkit import add_chapter, edit, from_cache, line_of

pytestmark = pytest.mark.slow

READER = """\
# Two

```{python}
#| label: two-read
import json
with open("shared.json") as handle:
    nodes = json.load(handle)["nodes"]
```

The cluster has `{python} nodes` nodes.
"""

WRITER = """\
# Three

```{python}
#| label: three-write
import json
with open("shared.json", "w") as handle:
    json.dump({"nodes": 16}, handle)
```
"""

LISTER = """\
# Two

```{python}
#| label: two-list
import os
tables = len([n for n in os.listdir("tables") if n.endswith(".csv")])
```

The book has `{python} tables` tables.
"""

TABLE_WRITER = """\
# Three

```{python}
#| label: three-write
import os
os.makedirs("tables", exist_ok=True)
with open("tables/mtbf.csv", "w") as handle:
    handle.write("nodes,mtbf\\n")
```
"""


@pytest.mark.parametrize("reader, writer, needle, written", [
    (READER, WRITER, 'with open("shared.json") as handle', "contents/shared.json"),
    (LISTER, TABLE_WRITER, 'os.listdir("tables")', "contents/tables/mtbf.csv")],
    ids=["opens the file", "lists its folder"])
def test_a_chapter_reading_what_a_later_chapter_writes(good_book, runner, reader, writer,
                                                        needle, written):
    if writer is TABLE_WRITER:
        (good_book / "contents" / "tables").mkdir()
    two = add_chapter(good_book, reader)
    add_chapter(good_book, writer, "contents/three.qmd")
    edit(good_book / "_quarto.yml", "    - contents/three.qmd\n    - contents/two.qmd",
         "    - contents/two.qmd\n    - contents/three.qmd")          # book order: two, three
    for run in ("fresh", "cached"):
        result = runner.cli(good_book, "numbers")
        assert result.code == 1, result.output
        found = result.only("read-before-written")
        assert (found.path, found.line) == ("contents/two.qmd", line_of(two, needle)), result.output
        assert found.reason.startswith(f"reads {written}, which contents/three.qmd writes, "
                                       "later in the book"), found.reason
        assert result.kinds() == {"read-before-written"}, result.output
    assert from_cache(result) == 4, result.output

    # the writer first: Quarto's order works, no finding
    edit(good_book / "_quarto.yml", "    - contents/two.qmd\n    - contents/three.qmd",
         "    - contents/three.qmd\n    - contents/two.qmd")
    fixed = runner.cli(good_book, "numbers")
    assert (fixed.code, fixed.findings) == (0, []), fixed.output
