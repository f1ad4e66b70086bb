"""`make html` with nothing changed is recognised by its stamp (render/uptodate.py),
which must see every input the build had: also those outside the project (issue 34,
section 1). A chapter reading `../outside/nodes.json` and a `metadata-files:` entry
beside the book were not in the stamp: after an edit, `html` kept the old `_book/`
and exited 0.
"""
from __future__ import annotations

import subprocess

import pytest

from tests import REPO
from tests.faults.faultkit import HANG_LIMIT_S, add_chapter, edit

pytestmark = pytest.mark.slow

UNCHANGED = "nothing has changed since"

OUTSIDE_READ = """\
# Two

```{python}
#| label: two-load
import json
with open("../../outside/nodes.json") as handle:
    nodes = json.load(handle)["nodes"]
```

The cluster has `{python} nodes` nodes.
"""


def html(runner, book) -> subprocess.CompletedProcess:
    """`html` as `make html` runs it (text output: `--json` never uses the stamp)."""
    env = runner.env("html", {"GITHUB_ACTIONS": None})
    return subprocess.run(runner.argv(book, "html"), cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=HANG_LIMIT_S)


def built(runner, book) -> None:
    """numbers, then `html` twice: the second one served by the stamp."""
    assert runner.cli(book, "numbers").code == 0
    first = html(runner, book)
    assert first.returncode == 0 and UNCHANGED not in first.stdout, first.stdout + first.stderr
    second = html(runner, book)
    assert second.returncode == 0 and UNCHANGED in second.stdout, second.stdout + second.stderr


def test_a_file_read_outside_the_project(good_book, runner):
    outside = good_book.parent / "outside"
    outside.mkdir()
    (outside / "nodes.json").write_text('{"nodes": 16}')
    add_chapter(good_book, OUTSIDE_READ)
    built(runner, good_book)
    (outside / "nodes.json").write_text('{"nodes": 32}')
    after = html(runner, good_book)
    assert UNCHANGED not in after.stdout, after.stdout
    assert after.returncode == 1, after.stdout + after.stderr      # the check: 16 → 32
    assert "contents/two.qmd · nodes: 16 → 32" in after.stdout, after.stdout


def test_a_metadata_file_outside_the_project(good_book, runner):
    outside = good_book.parent / "outside"
    outside.mkdir()
    meta = outside / "meta.yml"
    meta.write_text('book:\n  subtitle: "First edition"\n')
    edit(good_book / "_quarto.yml", "execute:", "metadata-files:\n  - ../outside/meta.yml\nexecute:")
    # A configuration file outside the project changed within a second of the build
    # that first names it cannot be trusted at that build's start (its ctime is too
    # close), so that build's stamp may not hold; the next build records its value.
    assert runner.cli(good_book, "numbers").code == 0
    for _ in range(2):
        assert html(runner, good_book).returncode == 0
    third = html(runner, good_book)
    assert third.returncode == 0 and UNCHANGED in third.stdout, third.stdout + third.stderr
    page = good_book / "_book" / "index.html"
    assert "First edition" in page.read_text()
    meta.write_text('book:\n  subtitle: "Second edition"\n')
    after = html(runner, good_book)
    assert (after.returncode, UNCHANGED in after.stdout) == (0, False), after.stdout + after.stderr
    assert "Second edition" in page.read_text()
