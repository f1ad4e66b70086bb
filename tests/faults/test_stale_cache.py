"""The cache never serves a result whose inputs changed; prose edits cost no execution.

A chapter's inputs are observed while it runs (files under the root it opens or
imports, environment variables it reads) and checked before its cached result
is reused: a change re-executes that chapter, and only that one, and the moved
number is reported. The timeout and execute options are part of the key;
unused entries are pruned; chapters that finished before a Ctrl-C are cached.
"""
from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.faults.faultkit import (add_chapter, PYTHON, REPO, assert_consistent_after_failure, assert_no_leftovers,
                      cache_entries, disk_state, edit, from_cache, interrupt, ledger_lines,
                      line_of, wait_until)

pytestmark = pytest.mark.slow



def accept(runner, book):
    """`make numbers`, then a check that passes wholly from the cache."""
    accepted = runner.cli(book, "numbers")
    assert accepted.code == 0, accepted.output
    again = runner.cli(book)
    assert again.code == 0, again.output
    assert from_cache(again) == 3, again.output


def assert_moved(runner, book, moved: list[str], rerun_extra=(), env=None):
    """The check re-executes chapter two only, reports exactly `moved`, writes nothing;
    `make numbers` accepts it and the next check passes."""
    before = disk_state(book)
    result = runner.cli(book, "check", *rerun_extra, env=env)
    assert result.code == 1, result.output
    assert ledger_lines(result) == moved, result.output
    assert {f.kind for f in result.findings} <= {"ledger"}, result.output
    assert from_cache(result) == 2, result.output        # index and chapter one
    assert_consistent_after_failure(runner, book, before, result, rerun=False)
    accepted = runner.cli(book, "numbers", *rerun_extra, env=env)
    assert accepted.code == 0, accepted.output
    again = runner.cli(book, "check", *rerun_extra, env=env)
    assert again.code == 0, again.output
    assert from_cache(again) == 3, again.output


DATA_CHAPTER = """\
# Two

```{python}
#| label: two-load
import json
with open("data.json") as handle:
    nodes = json.load(handle)["nodes"]
try:
    with open("override.json") as handle:
        nodes = json.load(handle)["nodes"]
except FileNotFoundError:
    pass
```

The cluster has `{python} nodes` nodes.
"""


@pytest.mark.parametrize("change", ["changed", "appeared"])
def test_a_data_file_the_chapter_reads(good_book, runner, change):
    (good_book / "contents" / "data.json").write_text('{"nodes": 16}')
    add_chapter(good_book, DATA_CHAPTER)
    accept(runner, good_book)
    target = "data.json" if change == "changed" else "override.json"
    (good_book / "contents" / target).write_text('{"nodes": 32}')
    assert_moved(runner, good_book, ["contents/two.qmd · nodes: 16 → 32"])


def test_a_removed_data_file_is_an_error_at_its_line(good_book, runner):
    (good_book / "contents" / "data.json").write_text('{"nodes": 16}')
    two = add_chapter(good_book, DATA_CHAPTER)
    accept(runner, good_book)
    (good_book / "contents" / "data.json").unlink()
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    f = result.only("cell-error")
    assert (f.path, f.line, f.label) == ("contents/two.qmd", line_of(two, 'open("data.json")'),
                                         "two-load")
    assert f.reason.startswith("FileNotFoundError"), f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_a_csv_read_through_pandas(good_book, runner):
    (good_book / "contents" / "gpus.csv").write_text("rack,gpus\na,8\nb,8\n")
    add_chapter(good_book, "# Two\n\n```{python}\nimport pandas as pd\n"
                           "gpus = int(pd.read_csv('gpus.csv')['gpus'].sum())\n```\n\n"
                           "There are `{python} gpus` GPUs.\n")
    accept(runner, good_book)
    (good_book / "contents" / "gpus.csv").write_text("rack,gpus\na,8\nb,16\n")
    assert_moved(runner, good_book, ["contents/two.qmd · gpus: 16 → 24"])


@pytest.mark.parametrize("where", ["root", "beside the chapter"])
def test_a_local_module_the_chapter_imports(good_book, runner, where):
    if where == "root":
        module, prelude = good_book / "helpers.py", ""
    else:
        module, prelude = good_book / "contents" / "helpers.py", "import sys\nsys.path.insert(0, 'contents')\n"
    module.write_text("FACTOR = 2\n")
    add_chapter(good_book, f"# Two\n\n```{{python}}\n{prelude}from helpers import FACTOR\n"
                           "scaled = 8 * FACTOR\n```\n\nScaled: `{python} scaled`.\n")
    accept(runner, good_book)
    module.write_text("FACTOR = 3\n")
    assert_moved(runner, good_book, ["contents/two.qmd · scaled: 16 → 24"])


def test_an_environment_variable_the_chapter_reads(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\nimport os\n"
                           "nodes = int(os.environ.get('BOOK_NODES', '16'))\n```\n\n"
                           "Nodes: `{python} nodes`.\n")
    accepted = runner.cli(good_book, "numbers", env={"BOOK_NODES": None})
    assert accepted.code == 0, accepted.output
    assert from_cache(runner.cli(good_book, env={"BOOK_NODES": None})) == 3
    assert_moved(runner, good_book, ["contents/two.qmd · nodes: 16 → 32"], env={"BOOK_NODES": "32"})


SLOW_CELL = "# Two\n\n```{python}\n#| label: two-slow\nimport time\ntime.sleep(4)\nwaited = 4\n```\n\nWaited `{python} waited` s.\n"


@pytest.mark.parametrize("how", ["--timeout", "execute: timeout"])
def test_a_shorter_timeout_is_not_served_from_the_cache(good_book, runner, how):
    add_chapter(good_book, SLOW_CELL)
    accept(runner, good_book)
    extra: tuple[str, ...] = ()
    if how == "--timeout":
        extra = ("--timeout", "1")
    else:
        edit(good_book / "_quarto.yml", "execute:\n", "execute:\n  timeout: 1\n")
    before = disk_state(good_book)
    result = runner.cli(good_book, "check", *extra)
    assert result.code == 1, result.output
    f = result.only("timeout")
    assert (f.path, f.line, f.label) == ("contents/two.qmd", 3, "two-slow")
    assert "timeout of 1 s" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result, extra=extra)


def test_an_execute_option_is_part_of_the_key(good_book, runner):
    """`error: true` in _quarto.yml turns a cell error into shown output: not a cached finding."""
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-raise\nanswer = 42\n"
                           "raise ValueError('shown, not fatal')\n```\n\nAnswer `{python} answer`.\n")
    first = runner.cli(good_book)
    assert first.code == 1 and first.only("cell-error").path == "contents/two.qmd", first.output
    edit(good_book / "_quarto.yml", "execute:\n", "execute:\n  error: true\n")
    result = runner.cli(good_book, "numbers")
    assert result.code == 0, result.output
    assert "contents/two.qmd · answer\t42" in (good_book / "numbers.lock").read_text()


def test_unused_entries_are_pruned(good_book, runner):
    add_chapter(good_book, "# Two\n\n```{python}\nvalue = 1\n```\n\nValue `{python} value`.\n")
    accept(runner, good_book)
    old = {p.name for p in cache_entries(good_book)}
    assert len(old) == 3
    edit(good_book / "contents" / "two.qmd", "value = 1", "value = 2")
    result = runner.cli(good_book, "numbers")
    assert result.code == 0, result.output
    now = {p.name for p in cache_entries(good_book)}
    assert len(now) == 3, now                  # one entry per chapter: the old one is gone
    assert len(now - old) == 1
    assert not list((good_book / "_bookcheck" / "cache").glob("*.tmp"))


def test_chapters_that_finished_before_ctrl_c_are_cached(good_book, runner):
    here = good_book / "contents"          # the chapter's working directory (Quarto's)
    (here / "SLOW").write_text("")
    add_chapter(good_book, "# Two\n\n```{python}\n#| label: two-slow\nimport os, time\n"
                           "if os.path.exists('SLOW'):\n    open('STARTED', 'w').close()\n"
                           "    time.sleep(120)\nanswer = 42\n```\n\nThe answer is `{python} answer`.\n")
    for entry in cache_entries(good_book):
        entry.unlink()
    before = disk_state(good_book)
    proc, marker = runner.start(good_book, "check", "--jobs", "2")
    assert wait_until((here / "STARTED").exists, timeout=60), "the slow cell never ran"
    # the other two chapters finish while chapter two sleeps: their entries appear
    assert wait_until(lambda: len(cache_entries(good_book)) >= 2, timeout=60), \
        "chapters that finished were not cached while the run went on"
    interrupt(proc)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert disk_state(good_book) == before
    assert_no_leftovers(runner, marker)
    assert len(cache_entries(good_book)) == 2
    (here / "SLOW").unlink()
    result = runner.cli(good_book)
    assert from_cache(result) == 2, result.output      # only chapter two runs again


# ------------------------------------------------------------ prose-only edits

SPY = r"""
import contextlib, io, json, os, subprocess, sys
started = []
_popen_init = subprocess.Popen.__init__
def _spy_popen(self, *args, **kwargs):
    started.append(repr(args[0] if args else kwargs.get("args")))
    return _popen_init(self, *args, **kwargs)
subprocess.Popen.__init__ = _spy_popen
_fork = os.fork
def _spy_fork():
    started.append("fork")
    return _fork()
os.fork = _spy_fork
from bookcheck.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["check", "--json", "--root", sys.argv[1]])
print(json.dumps({"code": code, "started": started, "stdout": out.getvalue(),
                  "jupyter": sorted(m for m in sys.modules
                                    if m.split(".")[0] in ("jupyter_client", "nbclient", "ipykernel"))}))
"""


def spied_check(runner, book) -> dict:
    """`check --json` in a process where starting any process (Popen, fork) is recorded;
    its JSON report is under "report"."""
    proc = subprocess.run([PYTHON, "-c", SPY, str(book)], cwd=REPO, env=runner.env("spy"),
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    spied = json.loads(proc.stdout.splitlines()[-1])
    spied["report"] = json.loads(spied["stdout"])
    return spied


def besides_the_lint(started: list[str]) -> list[str]:
    """The processes started other than pandoc's reader over the edited chapter's new
    text (verify/pandoc_lint.py, at most one run: one chapter changed)."""
    lint = [s for s in started if "pandoc" in s and "'-f', 'markdown'" in s]
    assert len(lint) <= 1, started
    return [s for s in started if s not in lint]


def located(report: dict) -> list[tuple]:
    return [(f["path"], f["line"], f["column"], f["kind"], f["label"], f["message"])
            for f in report["findings"]]


def test_a_prose_only_edit_starts_no_kernel_and_moves_the_findings(good_book, runner):
    one = good_book / "contents" / "one.qmd"
    edit(one, "check(cluster < node_mtbf,", "check(cluster > node_mtbf,")
    first = runner.cli(good_book)
    assert first.code == 1, first.output
    assert first.only("invariant").line == line_of(one, "check(cluster > node_mtbf,")
    # prose only: a new paragraph above every cell, a reworded sentence around an inline value
    edit(one, "# One {#sec-one}\n", "# One {#sec-one}\n\nA new paragraph,\nover two lines.\n")
    edit(one, "Sixteen nodes fail every", "Taken together, sixteen nodes fail every")
    spied = spied_check(runner, good_book)
    assert besides_the_lint(spied["started"]) == [], spied    # no kernel, no fork server
    assert spied["jupyter"] == [], spied
    assert spied["code"] == 1
    assert spied["report"]["summary"]["cached"] == 2
    line = line_of(one, "check(cluster > node_mtbf,")
    (invariant,) = [f for f in located(spied["report"]) if f[3] == "invariant"]
    assert invariant[:5] == ("contents/one.qmd", line, None, "invariant", "one-setup"), invariant
    # and a fresh run agrees, finding for finding (details too: tracebacks name the new lines)
    fresh = runner.cli(good_book, "check", "--force")
    assert fresh.report["findings"] == spied["report"]["findings"], (fresh.output, spied["stdout"])


def test_a_prose_only_edit_keeps_inline_findings_at_their_new_column(good_book, runner):
    one = good_book / "contents" / "one.qmd"
    edit(one, "`{python} cluster_str`", "`{python} cluster_str.no_such_attribute`")
    first = runner.cli(good_book)
    assert first.code == 1, first.output
    edit(one, "Sixteen nodes fail every", "\nIn a cluster of sixteen, nodes fail every")
    spied = spied_check(runner, good_book)
    assert besides_the_lint(spied["started"]) == [], spied
    found = [f[:3] for f in located(spied["report"]) if f[3] == "inline-error"]
    line = line_of(one, "`{python} cluster_str.no_such_attribute`")
    col = one.read_text().split("\n")[line - 1].index("`{python}") + 1
    assert found == [("contents/one.qmd", line, col)], spied["stdout"]


def test_a_code_edit_does_execute(good_book, runner):
    one = good_book / "contents" / "one.qmd"
    assert runner.cli(good_book).code == 0
    edit(one, "for n in (1, 2, 4)]", "for n in (1, 2, 8)]")
    spied = spied_check(runner, good_book)
    assert spied["started"], "a code edit must execute the chapter"
    assert spied["code"] == 1        # the table's third row moved
