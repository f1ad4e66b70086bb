"""README's "Writing the book" recipe keeps the book's tests green (issue 31).

A copy of the repository (its git-tracked files) gets exactly what the recipe
says an author adds: a chapter listed in _quarto.yml, a constant with a cited
source, the citation in references.bib, a formula (with its example call in
mlsys/examples.py, the review gate the recipe names), a table and a figure built
in cells, inline values and check() guards. Then `bookcheck numbers`
accepts the numbers and `pytest tests/book tests/mlsys` must pass in the copy with
no other edit, and none of the edits touches a file under tests/.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.repo_copy import copy_repository, working_files

pytestmark = [pytest.mark.slow, pytest.mark.kernel]     # runs the book's tests and checks in subprocesses

ROOT = Path(__file__).resolve().parents[2]

BIB_ENTRY = """
@misc{spares2030,
  author = {Doe, Jane},
  title  = {Spare Pools for Large Clusters},
  year   = {2030},
  note   = {A made-up reference of the author-recipe test}
}
"""

CONSTANT = '''
SPARE_REPAIR_HOURS = _declare(
    "SPARE_REPAIR_HOURS", 48, "hour", "Time to repair one failed node and return it", "spares2030")
'''

FORMULA = '''

def calc_nodes_in_repair(node_mtbf, repair_time, n_nodes) -> float:
    """Expected number of nodes under repair at any moment (Little's law).

    Formula: n_nodes · repair_time / node_mtbf; both times Quantities, n_nodes a count.
    """
    n = count(n_nodes, "n_nodes", minimum=1)
    return n * non_negative(repair_time, "hour", "repair_time") / positive(
        node_mtbf, "hour", "node_mtbf")
'''

EXAMPLE = ('    "calc_nodes_in_repair": {"node_mtbf": 5172 * h, "repair_time": 48 * h, '
           '"n_nodes": 1250},\n')

CHAPTER = '''# Spare Capacity {#sec-spares}

A cluster that repairs its failed nodes needs spares while the repairs are under way [@spares2030].

```{python}
#| label: spares-setup
from mlsys import (
    CLUSTER_LARGE_GPUS, CLUSTER_MEDIUM_GPUS, CLUSTER_MEGA_GPUS, CLUSTER_SMALL_GPUS,
    GPU_MTTF_HOURS, GPUS_PER_HOST, NIC_MTTF_HOURS, NICS_PER_HOST, PSU_MTTF_HOURS,
    PSUS_PER_HOST, SPARE_REPAIR_HOURS, calc_mtbf_node, calc_nodes_in_repair, check, fmt,
    gpu, hour, md_table,
)
from mlsys.plotting import label_axes, new_figure, show
```

## Nodes in repair {#sec-spares-pool}

```{python}
#| label: spares-pool
# Inputs: the book's node model, the repair time, the cluster sizes.
node_mtbf = calc_mtbf_node(GPU_MTTF_HOURS * hour, GPUS_PER_HOST * gpu, NIC_MTTF_HOURS * hour,
                           NICS_PER_HOST, PSU_MTTF_HOURS * hour, PSUS_PER_HOST)
repair = SPARE_REPAIR_HOURS * hour
clusters = [CLUSTER_SMALL_GPUS, CLUSTER_MEDIUM_GPUS, CLUSTER_LARGE_GPUS, CLUSTER_MEGA_GPUS]

# Computation: nodes under repair at each size.
in_repair = [calc_nodes_in_repair(node_mtbf, repair, gpus // GPUS_PER_HOST) for gpus in clusters]
pool_rows = [{"GPUs": fmt(gpus, precision=0), "Nodes in repair": fmt(n, figures=3)}
             for gpus, n in zip(clusters, in_repair)]

# Checks: the claims of the prose.
check(all(a < b for a, b in zip(in_repair, in_repair[1:])),
      "a larger cluster should have more nodes in repair")
check(max(in_repair) < max(clusters) // GPUS_PER_HOST,
      "only a small share of the nodes should be in repair")

repair_str = fmt(repair, hour, precision=0)
largest_str = fmt(max(clusters), precision=0)
largest_in_repair_str = fmt(max(in_repair), figures=3)
```

With the node model of @sec-rf and `{python} repair_str` hours per repair, a cluster of `{python} largest_str` GPUs has `{python} largest_in_repair_str` nodes in repair on average (@tbl-spares-pool); the pool grows in step with the cluster (@fig-spares-growth).

```{python}
#| label: tbl-spares-pool
#| tbl-cap: "Nodes under repair on average, by cluster size."
md_table(pool_rows)
```

```{python}
#| label: fig-spares-growth
#| fig-cap: "Nodes under repair grow in proportion to the cluster."
#| fig-alt: "Line chart of the average number of nodes under repair against the GPUs in the cluster; the line rises in proportion to the cluster size."
fig, ax = new_figure()
ax.plot(clusters, in_repair, marker="o")
label_axes(ax, "GPUs in the cluster", "Nodes under repair")
show(fig)
```
'''


EDITED: list[Path] = []        # every file the recipe wrote, to prove no test among them


def edit(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of `old` in `path` by `new`."""
    EDITED.append(path)
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: expected one {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def follow_the_recipe(book: Path) -> None:
    """What README's "Writing the book" tells an author to add, but the formula's example."""
    # Add a chapter: the file, listed under book: chapters: in _quarto.yml.
    (book / "contents" / "spares.qmd").write_text(CHAPTER, encoding="utf-8")
    EDITED.append(book / "contents" / "spares.qmd")
    config = book / "_quarto.yml"
    last = re.findall(r"^    - (\S+)\n(?=  appendices:)", config.read_text(), re.M)[-1]
    edit(config, f"    - {last}\n", f"    - {last}\n    - contents/spares.qmd\n")
    # Add a constant: its source in references.bib and CITATION_KEYS, then _declare.
    with open(book / "references.bib", "a", encoding="utf-8") as bib:
        bib.write(BIB_ENTRY)
    EDITED.append(book / "references.bib")
    constants = book / "mlsys" / "constants.py"
    edit(constants, "CITATION_KEYS = frozenset({\n", 'CITATION_KEYS = frozenset({\n    "spares2030",\n')
    edit(constants, "\n\n__all__ = [", CONSTANT + "\n\n__all__ = [")
    # Add a formula: the function and its name in __all__ (its example: add_example).
    formulas = book / "mlsys" / "formulas.py"
    edit(formulas, "__all__ = [\n", '__all__ = [\n    "calc_nodes_in_repair",\n')
    with open(formulas, "a", encoding="utf-8") as out:
        out.write(FORMULA)
    EDITED.append(formulas)


def add_example(book: Path) -> None:
    """The formula's review gate: its example call in mlsys/examples.py, as recipe and gate say."""
    edit(book / "mlsys" / "examples.py", "EXAMPLES = {\n", "EXAMPLES = {\n" + EXAMPLE)


def changed_tests(book: Path) -> list[str]:
    """Files under tests/ of the copy that differ from (or are not in) the repository's."""
    tracked = set(working_files(ROOT, "tests"))
    present = {str(p.relative_to(book)) for p in (book / "tests").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    return sorted(rel for rel in tracked | present if rel not in tracked or rel not in present
                  or (book / rel).read_bytes() != (ROOT / rel).read_bytes())


def run(book: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`python args...` of the project's venv in the copy, importing the copy's packages.
    Without ../shared beside the copy its local-only tests are skipped there: this
    session's own local-only tests already report the missing texts (under CI, as errors)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(PYTHONPATH=os.pathsep.join([str(book), str(book / "scripts")]), PYTHONDONTWRITEBYTECODE="1")
    if not (book.parent / "shared").is_dir():
        env["SKIP_LOCAL_ONLY"] = "1"
    return subprocess.run([sys.executable, *args], cwd=book, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_readme_recipe_keeps_the_book_tests_green(tmp_path):
    book = copy_repository(tmp_path / "book")
    shared = ROOT.parent / "shared"              # the local-only tests' reference texts, if here
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared)
    EDITED.clear()
    follow_the_recipe(book)

    gate = run(book, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
               "tests/mlsys/test_units.py::test_the_examples_cover_every_formula_and_parameter")
    assert gate.returncode == 1, gate.stdout
    assert ("mlsys.formulas.calc_nodes_in_repair has no example in mlsys/examples.py::EXAMPLES; "
            "add 'calc_nodes_in_repair': {'node_mtbf': ..., 'repair_time': ..., 'n_nodes': ...}"
            ) in gate.stdout
    add_example(book)
    edited = sorted(str(path.relative_to(book)) for path in EDITED)
    assert edited and not [rel for rel in edited if rel.startswith("tests")], edited
    assert changed_tests(book) == [], "the recipe must not need a test edited"

    imported = run(book, "-c", "import mlsys; print(mlsys.SPARE_REPAIR_HOURS, mlsys.__file__)")
    assert imported.returncode == 0, imported.stderr
    value, where = imported.stdout.split()
    assert value == "48" and Path(where).is_relative_to(book), imported.stdout

    numbers = run(book, "-m", "bookcheck", "numbers")
    assert numbers.returncode == 0, numbers.stdout + numbers.stderr
    assert "contents/spares.qmd" in (book / "numbers.lock").read_text(encoding="utf-8")

    tests = run(book, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-x",
                "tests/book", "tests/mlsys", "--ignore",
                "tests/book/test_author_recipe.py", timeout=240)
    assert tests.returncode == 0, tests.stdout[-6000:] + tests.stderr[-2000:]
