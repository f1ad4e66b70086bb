"""Book-level checks: isolation between chapters, cross-references, citations,
reading-level findings end to end, and the numbers ledger."""
from __future__ import annotations

import pytest

from bookcheck.model import Kind
from tests.bookkit import findings_of, line_of, write_book
from bookcheck.verify.check import check_book

# A module in the fixture project: chapter A mutates its constant.
CONSTS = "VALUE = 1\n"

ISO_A = '''
# A

```{python}
import fixconsts
import fixpkg.consts
leaked_variable = "from A"
fixconsts.VALUE = 99
fixpkg.consts.VALUE = 99
```
'''

ISO_B = '''
# B

```{python}
import fixconsts
import fixpkg.consts
%s
check("leaked_variable" not in globals(), "a variable leaked from chapter A")
check(fixconsts.VALUE == 1, "a mutated constant leaked from chapter A")
check(fixpkg.consts.VALUE == 1, "a mutated package constant leaked from chapter A")
```
'''


def write_constants(root):
    """A single-file module and a package (the fork server preloads packages)."""
    (root / "fixconsts.py").write_text(CONSTS)
    (root / "fixpkg").mkdir()
    (root / "fixpkg" / "__init__.py").write_text("")
    (root / "fixpkg" / "consts.py").write_text(CONSTS)


@pytest.mark.kernel
@pytest.mark.parametrize("jobs", [1, 2])
def test_chapters_are_isolated(tmp_path, jobs, no_leftover_kernels):
    from tests.bookkit import LOCAL_CHECK
    root = write_book(tmp_path, {"a.qmd": ISO_A, "b.qmd": ISO_B % LOCAL_CHECK})
    write_constants(root)
    result = check_book(root, force=True, jobs=jobs)
    assert result.findings == []
    assert result.runs["b.qmd"].invariants == 3


@pytest.mark.kernel
def test_isolation_test_can_fail(tmp_path):
    """The same check inside one chapter does see the leak (the test is not vacuous)."""
    from tests.bookkit import LOCAL_CHECK
    root = write_book(tmp_path, {"ab.qmd": ISO_A + ISO_B % LOCAL_CHECK})
    write_constants(root)
    (f,) = check_book(root, force=True, jobs=1).findings
    assert (f.kind, f.reason) == (Kind.INVARIANT, "a variable leaked from chapter A")
    assert f.line == line_of(root, "ab.qmd", 'check("leaked_variable"')


REFS_ONE = '''
---
title: One
---

# One {#sec-one}

See @sec-two, @tbl-nowhere and [@known2020; @unknown1999].

: caption {#tbl-dup}

```{python}
x = 1
```
'''

REFS_TWO = '''
# Two {#sec-two}

Back to @sec-one.

```{python}
#| label: tbl-dup
print(1)
```
'''

BAD_FRONT = '''
---
title: [broken
---

# Three
'''

UNCLOSED = '''
# Four

```{python}
x = 1
'''

GRID = '''
# Five

```{python}
v = 5
```

+------+------+
| a    | b    |
+======+======+
| 1    | `{python} v` |
+------+------+
'''


@pytest.mark.kernel
def test_reading_findings_end_to_end(tmp_path, no_leftover_kernels):
    chapters = {"one.qmd": REFS_ONE, "two.qmd": REFS_TWO, "three.qmd": BAD_FRONT,
                "four.qmd": UNCLOSED, "five.qmd": GRID}
    root = write_book(tmp_path, chapters, extra="bibliography: refs.bib\n")
    (root / "refs.bib").write_text("@article{known2020,\n  title = {K},\n}\n")
    (root / "bad.qmd").write_bytes(b"# Bad\n\ncaf\xe9\n")
    config = (root / "_quarto.yml").read_text().replace("    - five.qmd\n",
                                                        "    - five.qmd\n    - bad.qmd\n    - gone.qmd\n")
    (root / "_quarto.yml").write_text(config)
    result = check_book(root, force=True)

    (ref,) = findings_of(result, "one.qmd", Kind.UNKNOWN_REF)
    assert (ref.line, ref.col) == (line_of(root, "one.qmd", "@tbl-nowhere"), 15)
    assert "@tbl-nowhere" in ref.reason
    (cite,) = findings_of(result, "one.qmd", Kind.UNKNOWN_CITATION)
    assert cite.line == line_of(root, "one.qmd", "@unknown1999") and "unknown1999" in cite.reason
    (dup,) = findings_of(result, "two.qmd", Kind.DUPLICATE_LABEL)
    assert dup.line == line_of(root, "two.qmd", "label: tbl-dup")
    assert f"one.qmd:{line_of(root, 'one.qmd', '{#tbl-dup}')}" in dup.reason
    (front,) = findings_of(result, "three.qmd")
    assert (front.kind, front.line) == (Kind.FRONT_MATTER, 2)     # `title: [broken`, where the block ends
    (fence,) = findings_of(result, "four.qmd")
    assert (fence.kind, fence.line) == (Kind.UNCLOSED_FENCE, 3)
    (grid,) = findings_of(result, "five.qmd")
    assert (grid.kind, grid.line, grid.col) == (Kind.GRID_TABLE_INLINE, 10, 10)
    (enc,) = findings_of(result, "bad.qmd")
    assert (enc.kind, enc.line, enc.col) == (Kind.ENCODING, 3, 4)
    (gone,) = findings_of(result, "_quarto.yml")
    assert (gone.kind, gone.line) == (Kind.MISSING_CHAPTER, line_of(root, "_quarto.yml", "gone.qmd"))
    assert len(result.findings) == 9


LEDGER_CHAPTER = '''
# Numbers

```{python}
import fixnums
```

Speed `{python} fixnums.SPEED`, size `{python} fixnums.SIZE`.

```{python}
#| label: tbl-nums
from IPython.display import Markdown
Markdown(f"| item | value |\\n|---|---:|\\n| speed | {fixnums.SPEED} |")
```
'''


@pytest.mark.kernel
@pytest.mark.slow
def test_ledger_detects_changed_new_and_removed_numbers(tmp_path):
    root = write_book(tmp_path, {"nums.qmd": LEDGER_CHAPTER})
    (root / "fixnums.py").write_text("SPEED = 10\nSIZE = 20\n")

    missing = check_book(root)
    assert [(f.path, f.kind) for f in missing.findings] == [("numbers.lock", Kind.LEDGER)]
    assert "bookcheck numbers" in missing.findings[0].reason

    accepted = check_book(root, update_ledger=True)
    assert accepted.findings == [] and (root / "numbers.lock").exists()
    assert check_book(root).findings == []

    (root / "fixnums.py").write_text("SPEED = 11\nSIZE = 20\n")
    text = (root / "nums.qmd").read_text()
    text = text.replace(", size `{python} fixnums.SIZE`", ", double `{python} 2 * fixnums.SIZE`")
    (root / "nums.qmd").write_text(text)
    reasons = sorted(f.reason for f in check_book(root, force=True).findings)
    assert any("fixnums.SPEED: 10 → 11" in r for r in reasons)
    assert any("2 * fixnums.SIZE: (new) → 40" in r for r in reasons)
    assert any("fixnums.SIZE: 20 → (removed)" in r for r in reasons)
    assert any("tbl-nums" in r and "10 → 11" in r for r in reasons)
    assert len(reasons) == 4

    check_book(root, update_ledger=True)
    assert check_book(root).findings == []


TWO = {"a.qmd": "# A\n\n```{python}\nx = 1\n```\n", "b.qmd": "# B\n\n```{python}\ny = 2\n```\n"}


@pytest.mark.kernel
def test_kernels_are_forked_from_the_warm_server(tmp_path, monkeypatch, no_leftover_kernels):
    from bookcheck.run import forkserver
    spawned = []
    real = forkserver.ForkServer.spawn

    async def counting(self, argv, cwd, env):
        pid = await real(self, argv, cwd, env)
        spawned.append(pid)
        return pid

    monkeypatch.setattr(forkserver.ForkServer, "spawn", counting)
    result = check_book(write_book(tmp_path, TWO), force=True, jobs=2)
    assert result.findings == []
    assert len(spawned) == 2


@pytest.mark.kernel
def test_fork_failure_falls_back_to_launched_kernels(tmp_path, monkeypatch, no_leftover_kernels):
    from bookcheck.run import forkserver

    async def broken(self, argv, cwd, env):
        raise RuntimeError("fork server unavailable")

    monkeypatch.setattr(forkserver.ForkServer, "spawn", broken)
    result = check_book(write_book(tmp_path, TWO), force=True, jobs=2)
    assert result.findings == []
    assert set(result.runs) == {"a.qmd", "b.qmd"}


def test_missing_kernelspec_is_a_finding_not_a_crash(tmp_path, monkeypatch, no_leftover_kernels):
    from bookcheck.run import execute
    monkeypatch.setenv("CHECKER_FORK", "0")
    original = execute.Kernel._new_client

    def bad_kernel(self, timeout_s):
        client = original(self, timeout_s)
        client.kernel_name = "no-such-kernel"
        return client

    monkeypatch.setattr(execute.Kernel, "_new_client", bad_kernel)
    result = check_book(write_book(tmp_path, TWO), force=True, jobs=2)
    assert sorted((f.path, f.kind) for f in result.findings) == [("a.qmd", Kind.KERNEL_DIED),
                                                                ("b.qmd", Kind.KERNEL_DIED)]
    assert "no-such-kernel" in result.findings[0].reason


OTHER = '''
# Other

```{python}
import fixnums
```

Other speed `{python} fixnums.SPEED * 2`.
'''


@pytest.mark.kernel
@pytest.mark.slow
def test_ledger_leaves_out_chapters_that_failed(tmp_path):
    root = write_book(tmp_path, {"nums.qmd": LEDGER_CHAPTER, "other.qmd": OTHER})
    (root / "fixnums.py").write_text("SPEED = 10\nSIZE = 20\n")
    assert check_book(root, update_ledger=True).findings == []

    (root / "fixnums.py").write_text("SPEED = 11\nSIZE = 20\n")
    (root / "other.qmd").write_text(OTHER + "\n```{python}\nraise RuntimeError('broken')\n```\n")
    result = check_book(root, force=True)
    got = sorted((f.path, f.kind) for f in result.findings)
    assert got == [("numbers.lock", Kind.LEDGER), ("numbers.lock", Kind.LEDGER),
                   ("other.qmd", Kind.CELL_ERROR)]
    assert all("other ·" not in f.reason for f in result.findings if f.kind == Kind.LEDGER)
    assert result.ledger_skipped == ["other.qmd"]
    assert not check_book(root, update_ledger=True).ok      # a failing book is never accepted


FIGURE = '''
# Figure

```{python}
#| label: fig-line
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.plot([1, 2, 3])
plt.show()
```
'''


@pytest.mark.kernel
def test_figures_are_captured_in_the_configured_format(tmp_path, no_leftover_kernels):
    root = write_book(tmp_path, {"fig.qmd": FIGURE},
                      extra="format:\n  html:\n    fig-format: svg\n")
    result = check_book(root, force=True)
    assert result.findings == []
    (output,) = result.runs["fig.qmd"].cells[0].outputs
    assert output.kind == "image/svg+xml" and "<svg" in output.data


QUARTO_FIGURE = '''
# Figure

```{python}
import matplotlib
print(matplotlib.rcParams["figure.figsize"], matplotlib.rcParams["figure.dpi"],
      matplotlib.rcParams["savefig.dpi"])
import matplotlib.pyplot as plt
plt.plot([1, 2, 3])
plt.show()
```
'''


@pytest.mark.kernel
@pytest.mark.parametrize("fork", ["1", "0"])
def test_figures_are_drawn_as_quartos_setup_draws_them(tmp_path, monkeypatch, fork,
                                                        no_leftover_kernels):
    """Quarto's setup cell for HTML: 7 x 5 in, 96 dpi, savefig.dpi "figure", retina
    PNGs (twice the dpi); the same whether matplotlib was preloaded by the fork
    server (fork=1) or is first imported by the cell (fork=0: a fresh kernel)."""
    import base64
    from bookcheck.render.figure_size import png_dpi
    monkeypatch.setenv("CHECKER_FORK", fork)
    root = write_book(tmp_path, {"fig.qmd": QUARTO_FIGURE}, extra="fig-height: 4\n")
    result = check_book(root, force=True, update_ledger=True)
    assert result.findings == []
    printed, image = result.runs["fig.qmd"].cells[0].outputs
    assert printed.data == "[7.0, 4.0] 96.0 figure\n"
    assert image.kind == "image/png" and png_dpi(base64.b64decode(image.data)) == (192, 192)


# Layers as Quarto 1.7.34 applies them (tried): _quarto.yml's top level, its
# `format: html:`, the chapter's front matter, the front matter's `format: html:`.
FRONT_MATTER_FIGURES = {
    "top.qmd": "---\nfig-width: 4\n---\n\n# Top\n" + QUARTO_FIGURE.split("# Figure\n", 1)[1],
    "html.qmd": ("---\nfig-dpi: 50\nfig-width: 5\nformat:\n  html:\n    fig-width: 3\n"
                 "    fig-format: png\n---\n\n# Html\n" + QUARTO_FIGURE.split("# Figure\n", 1)[1]),
    "pdf.qmd": "---\nformat:\n  pdf:\n    fig-width: 1\n---\n\n# Pdf\n" + QUARTO_FIGURE.split("# Figure\n", 1)[1],
    "plain.qmd": QUARTO_FIGURE,
}


@pytest.mark.kernel
def test_a_chapters_front_matter_sets_its_own_figures_as_in_quarto(tmp_path, no_leftover_kernels):
    import base64
    from bookcheck.render.figure_size import png_dpi
    root = write_book(tmp_path, FRONT_MATTER_FIGURES,
                      extra="fig-height: 2\nformat:\n  html:\n    fig-width: 6\n    fig-dpi: 80\n")
    result = check_book(root, force=True, update_ledger=True)
    assert result.findings == []
    expected = {"top.qmd": ("[4.0, 2.0] 80.0 figure\n", 160), "html.qmd": ("[3.0, 2.0] 50.0 figure\n", 50),
                "pdf.qmd": ("[6.0, 2.0] 80.0 figure\n", 160), "plain.qmd": ("[6.0, 2.0] 80.0 figure\n", 160)}
    for path, (sizes, dpi) in expected.items():
        printed, image = result.runs[path].cells[0].outputs
        assert (path, printed.data) == (path, sizes)
        assert (path, png_dpi(base64.b64decode(image.data))) == (path, (dpi, dpi))


@pytest.mark.kernel
@pytest.mark.slow
def test_a_preload_that_hangs_falls_back_to_launched_kernels(tmp_path, monkeypatch,
                                                             no_leftover_kernels):
    from bookcheck.run import forkserver
    monkeypatch.setattr(forkserver, "READY_TIMEOUT_S", 1.0)
    chapter = "# Hang\n\n```{python}\n#| label: hang\nimport hangpkg\n```\n"
    root = write_book(tmp_path, {"hang.qmd": chapter}, extra="execute:\n  timeout: 2\n")
    (root / "hangpkg").mkdir()
    (root / "hangpkg" / "__init__.py").write_text("import time\ntime.sleep(600)\n")
    (f,) = check_book(root, force=True).findings
    assert (f.path, f.kind, f.line, f.label) == ("hang.qmd", Kind.TIMEOUT, 3, "hang")
