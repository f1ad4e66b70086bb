"""A chapter runs in one request (bookcheck.run.steps): outputs must still land in the
cell, and in the order, a Jupyter client (nbclient, Quarto) would record them, and a
death after several finished steps must be blamed on the step that was running."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bookcheck.model import Kind
from bookcheck.read.qmd import parse_chapter
from bookcheck.run import steps
from bookcheck.run.kernel import start_kernel
from tests.bookkit import findings_of, line_of, write_book
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.kernel     # every test runs chapters in kernels (checks, start_kernel)

OUTPUTS = '''
# Outputs

```{python}
import logging, sys, warnings
from IPython.display import Markdown, display
log = logging.getLogger("chapter")
log.addHandler(logging.StreamHandler(sys.stdout))   # keeps cell 1's sys.stdout
log.setLevel(logging.INFO)
print("cell one")
```

```{python}
log.info("logged in cell two")
```

```{python}
warnings.warn("a warning first")
print("printed second")
```

```{python}
print("before the display")
display(Markdown("**shown**"))
print("after the display")
```

```{python}
handle = display(Markdown("old text"), display_id=True)
handle.update(Markdown("new text"))
```

```{python}
from IPython.display import clear_output
print("cleared away")
clear_output(wait=True)
print("what stays")
```
'''

LATE_DEATH = '''
# Late death

```{python}
a = 1
```

Value `{python} a` and `{python} a + 1`.

```{python}
b = 2
```

```{python}
#| label: dies-here
import os
os._exit(4)
```

```{python}
c = 3
```
'''


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = write_book(tmp_path_factory.mktemp("steps"),
                      {"outputs.qmd": OUTPUTS, "late.qmd": LATE_DEATH})
    return root, check_book(root, force=True, jobs=2)


def _cells(result, rel):
    return [[(o.kind, o.name, o.data) for o in cell.outputs] for cell in result.runs[rel].cells]


def test_a_handler_kept_from_an_earlier_cell_writes_into_the_running_cell(result):
    _, res = result
    cells = _cells(res, "outputs.qmd")
    assert cells[0] == [("text", "stdout", "cell one\n")]
    assert cells[1] == [("text", "stdout", "logged in cell two\n")]


def test_stdout_is_flushed_before_stderr_at_the_end_of_a_quick_cell(result):
    _, res = result
    kinds = [(name, data.splitlines()[-1].strip()) for _, name, data in _cells(res, "outputs.qmd")[2]]
    assert kinds == [("stdout", "printed second"), ("stderr", 'warnings.warn("a warning first")')]


def test_a_display_flushes_the_text_printed_before_it(result):
    _, res = result
    assert _cells(res, "outputs.qmd")[3] == [("text", "stdout", "before the display\n"),
                                              ("markdown", "", "**shown**"),
                                              ("text", "stdout", "after the display\n")]


def test_a_display_update_replaces_the_output_in_place(result):
    _, res = result
    assert _cells(res, "outputs.qmd")[4] == [("markdown", "", "new text")]


def test_clear_output_wait_clears_at_the_next_output(result):
    _, res = result
    assert _cells(res, "outputs.qmd")[5] == [("text", "stdout", "what stays\n")]
    assert findings_of(res, "outputs.qmd") == []


def _recorded(outputs) -> list:
    """A cell's raw outputs as a Jupyter client records them: kind, stream, content (a
    warning's cell file name left out: ipykernel's temporary file under nbclient, which
    holds the kernel's pid, IPython's `<ipython-input-N-hash>` in ours, named the same
    on every run: run/kernel_side.stable_code_names)."""
    return [(o["output_type"], o.get("name"),
             re.sub(r"\S*ipykernel_\d+/\d+\.py|<ipython-input-\d+-[0-9a-f]+>", "<cell>", o["text"])
             if "text" in o else o.get("data"))
            for o in outputs]


async def _through_steps(root: Path, parsed) -> list:
    kernel = await start_kernel(root)
    try:
        got: list = []
        sent = await steps.send_steps(kernel, steps.plan(parsed), root, 30,
                                      lambda step, res: got.append(_recorded(res["outputs"])))
        assert sent.status == "ok"
        return got
    finally:
        await kernel.shutdown()


def test_the_one_request_records_what_nbclient_records_for_the_same_cells(tmp_path):
    """steps_side.py buffers streams and applies displays itself, as ipykernel and nbclient
    do (scripts/bookcheck/run/steps.py says why). The same cells through nbclient's public per-cell
    path must give the same outputs: an ipykernel or nbclient release that records them
    differently (what Quarto would show) fails here."""
    import asyncio
    import nbformat
    from nbclient import NotebookClient
    parsed = parse_chapter("outputs.qmd", OUTPUTS)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c.source)
                                               for c in parsed.cells])
    NotebookClient(notebook, kernel_name="python3", timeout=30,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    expected = [_recorded(cell.outputs) for cell in notebook.cells]
    assert asyncio.run(_through_steps(tmp_path, parsed)) == expected


def test_death_after_finished_steps_is_blamed_on_the_running_cell(result):
    root, res = result
    (died,) = findings_of(res, "late.qmd")
    fence = line_of(root, "late.qmd", "import os") - 2
    assert (died.kind, died.line, died.label) == (Kind.KERNEL_DIED, fence, "dies-here")
    run = res.runs["late.qmd"]
    assert [i.text for i in run.inlines] == ["1", "2"]      # the steps before it were kept


def test_a_book_whose_root_holds_the_checker_itself(tmp_path):
    """This project checks itself: the kernels' helper modules then live under the
    book's root, and the observer must not evict them as chapter imports (it did:
    every chapter died with KeyError: '_qmd_checker')."""
    repo = Path(__file__).resolve().parents[2]
    root = write_book(tmp_path / "project", {"one.qmd": "# One\n\n```{python}\nx = 6 * 7\n```\n\n"
                                                        "The answer is `{python} x`.\n"})
    shutil.copytree(repo / "scripts", root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(root / "scripts")}     # the copy under the root
    done = subprocess.run([sys.executable, "-m", "bookcheck", "numbers"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kernel-died" not in done.stdout
    assert "one.qmd · x\t42" in (root / "numbers.lock").read_text()
