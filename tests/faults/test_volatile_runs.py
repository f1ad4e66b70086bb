"""A run whose result changes from run to run is never stored (issue 34 §1).

The chapter's own code reading the clock (`time.time()`, `datetime.now()`), an
unseeded generator (`random`, `numpy.random`), or the repository's `.git`: the
cache cannot know when that input changed, so the chapter is re-executed on every
check and a note says why, at the line of the call. A seeded generator, and the
clock read by a library, are not.
"""
from __future__ import annotations

import pytest

from tests.faults.faultkit import add_chapter, from_cache, line_of

pytestmark = pytest.mark.slow

CASES = {
    # id: (code, the call's text, the note's reason)
    "time.time()": ("import time\nstarted = time.time()\nnodes = 16", "time.time()",
                    "reads the clock (time.time())"),
    "datetime.now()": ("from datetime import datetime\nstarted = datetime.now()\nnodes = 16",
                       "datetime.now()", "reads the clock (datetime.now())"),
    "date.today()": ("import datetime\nstarted = datetime.date.today()\nnodes = 16", "date.today()",
                     "reads the clock (date.today())"),
    "unseeded random": ("import random\nnodes = 16 + 0 * random.random()", None, "uses random without a seed"),
    "unseeded numpy.random": ("import numpy as np\nnodes = 16 + 0 * float(np.random.rand())", None,
                              "uses numpy.random without a seed"),
    "numpy default_rng()": ("import numpy as np\nnodes = 16 + 0 * float(np.random.default_rng().random())",
                            "default_rng()", "uses an unseeded generator (numpy.random.default_rng())"),
    "a read of .git": ("import os\nhead = os.path.exists('../.git/HEAD')\nnodes = 16", None,
                       "reads the repository's .git"),
}

STABLE = {
    "seeded random": "import random\nrandom.seed(7)\nnodes = 16 + 0 * random.random()",
    "seeded numpy": "import numpy as np\nnp.random.seed(7)\nnodes = 16 + 0 * float(np.random.rand())",
    "seeded default_rng": "import numpy as np\nnodes = 16 + 0 * float(np.random.default_rng(7).random())",
    "a datetime made, not read": "import datetime\nwhen = datetime.datetime(2024, 1, 1)\nnodes = 16 + 0 * when.year",
}


def chapter(code: str) -> str:
    return f"# Two\n\n```{{python}}\n#| label: two-read\n{code}\n```\n\nThe cluster has `{{python}} nodes` nodes.\n"


@pytest.mark.parametrize("case", list(CASES))
def test_a_run_that_reads_what_changes_by_itself_is_rerun_and_said_so(good_book, runner, case):
    code, call, reason = CASES[case]
    (good_book / ".git").mkdir(exist_ok=True)
    (good_book / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    two = add_chapter(good_book, chapter(code))
    accepted = runner.cli(good_book, "numbers")
    assert accepted.code == 0, accepted.output
    again = runner.cli(good_book)
    assert (again.code, from_cache(again)) == (0, 2), again.output
    # at the call; a generator moved, or a file read, is known at the end: the cell's fence
    line = line_of(two, call) if call else line_of(two, "```{python}")
    notes = [n for n in again.report["notes"] if n.startswith("contents/two.qmd")]
    assert notes == [f"contents/two.qmd:{line}: re-run on every check: its result can change "
                     f"from run to run ({reason})"], again.report["notes"]


@pytest.mark.parametrize("case", list(STABLE))
def test_a_seeded_generator_is_cached(good_book, runner, case):
    add_chapter(good_book, chapter(STABLE[case]))
    assert runner.cli(good_book, "numbers").code == 0
    again = runner.cli(good_book)
    assert (again.code, from_cache(again), again.report["notes"]) == (0, 3, []), again.output
