"""Planted bugs: small, realistic source mutations the test suite must catch.

Each `Plant` rewrites one place of the project (in a temporary copy, never in
the working tree) and names the tests that must then fail. The list starts
with the five bugs of issue 17 that the suite once let through, then adds
more of the same kind. `tests/meta/test_planted_bugs.py` runs them:

- `make test` runs the plants marked `ci=True` (a subset under about a minute);
- `make mutate-tests` runs every plant (`PLANTED_BUGS=all`).

A plant whose text no longer occurs in the source fails loudly ("does not
apply"), so the list cannot rot silently when the code moves: update it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Plant:
    id: str
    path: str                   # file to mutate, relative to the project root
    promise: str                # what the README or the code promises
    tests: tuple[str, ...]      # pytest node ids / files that must fail
    old: str = ""               # exact text to replace (exactly one occurrence) ...
    new: str = ""
    function: str = ""          # ... or the name of a top-level function to replace whole
    body: str = ""              # its new source (a complete `def`)
    ci: bool = False            # part of the subset `make test` runs

    def apply(self, root: Path) -> None:
        target = root / self.path
        text = target.read_text(encoding="utf-8")
        if self.function:
            text = replace_function(text, self.function, self.body, self.path)
        else:
            count = text.count(self.old)
            if count != 1:
                raise AssertionError(f"plant {self.id} does not apply: {self.old!r} occurs "
                                     f"{count} times in {self.path} (update tests/meta/planted_bugs.py)")
            text = text.replace(self.old, self.new)
        target.write_text(text, encoding="utf-8")


def replace_function(text: str, name: str, body: str, where: str) -> str:
    """`text` with the top-level function `name` replaced by `body` (decorators kept)."""
    tree = ast.parse(text)
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.name == name]
    if len(found) != 1:
        raise AssertionError(f"plant does not apply: no single function {name}() in {where} "
                             "(update tests/meta/planted_bugs.py)")
    node = found[0]
    lines = text.splitlines(keepends=True)
    start, end = node.lineno - 1, node.end_lineno
    return "".join(lines[:start]) + body.rstrip("\n") + "\n" + "".join(lines[end:])


PLAIN_LEDGER_WRITE = '''
def write(path, entries):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(format_lock(entries))
'''

DIRECT_CACHE_STORE = '''
def store(root, key, run):
    folder = cache_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    payload = run.to_dict()
    payload["cache_key"] = key
    payload["cached"] = False
    entry = {"format": FORMAT_VERSION, "key": key,
             "checksum": hashlib.sha256(_canonical(payload)).hexdigest(), "run": payload}
    with open(folder / f"{key}.json", "wb") as handle:
        handle.write(_canonical(entry))
'''

DALY = 'return Q_(math.sqrt(2.0 * delta * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta, "second")'
YOUNG = 'return Q_(math.sqrt(2.0 * delta * m), "second")'

PLAIN_ATOMIC_WRITE = '''
def atomic_write(path, data, mode=None):
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as handle:
        handle.write(data)
'''

PLANTS: list[Plant] = [
    # ---- the five bugs of issue 17
    Plant("ledger-plain-write", "scripts/verify/ledger.py", "numbers.lock is written atomically",
          ("tests/pipeline/test_atomic_writes.py",), function="write", body=PLAIN_LEDGER_WRITE,
          ci=True),
    Plant("cache-direct-write", "scripts/run/cache.py", "cache entries are written atomically",
          ("tests/pipeline/test_atomic_writes.py",), function="store", body=DIRECT_CACHE_STORE,
          ci=True),
    Plant("probability-one-rejected", "mlsys/formulas.py",
          "formulas accept probabilities in [0, 1], both ends included",
          ("tests/mlsys/test_formulas.py",),
          old="if not 0.0 <= m <= 1.0:", new="if not 0.0 <= m < 1.0:", ci=True),
    Plant("probability-one-rejected-property", "mlsys/formulas.py",
          "formulas accept probabilities in [0, 1], both ends included (property tests)",
          ("tests/mlsys/test_properties.py",),
          old="if not 0.0 <= m <= 1.0:", new="if not 0.0 <= m < 1.0:"),
    Plant("front-matter-line-plus-one", "scripts/read/qmd.py", "findings at the exact line",
          ("tests/checker/test_qmd.py",),
          old="_yaml_problem(exc, first_line=2)", new="_yaml_problem(exc, first_line=3)", ci=True),
    Plant("daly-is-young", "mlsys/formulas.py", "the Monte Carlo simulation verifies Daly's interval",
          ("tests/mlsys/test_monte_carlo.py",), old=DALY, new=YOUNG),
    Plant("daly-is-young-property", "mlsys/formulas.py", "Daly's interval lies below Young's",
          ("tests/mlsys/test_properties.py::test_daly_approaches_young_as_delta_over_m_vanishes",),
          old=DALY, new=YOUNG, ci=True),
    # ---- more of the same kind
    Plant("shared-atomic-write-is-plain", "scripts/files.py",
          "every stage writes its files atomically (one shared helper)",
          ("tests/pipeline/test_atomic_writes.py",), function="atomic_write",
          body=PLAIN_ATOMIC_WRITE, ci=True),
    Plant("ledger-diff-first-digit-only", "scripts/verify/ledger.py",
          "any change of a published number is reported",
          ("tests/pipeline/test_ledger.py",),
          old="if old[key] == new[key]:", new="if old[key][:1] == new[key][:1]:", ci=True),
    Plant("cache-key-ignores-python-sources", "scripts/run/cache.py",
          "editing any file of mlsys/ re-executes the chapters",
          ("tests/pipeline/test_cache.py",),
          old='if not n.endswith((".pyc", ".pyo"))', new='if not n.endswith((".pyc", ".pyo", ".py"))',
          ci=True),
    Plant("inline-column-plus-one", "scripts/read/qmd.py", "inline findings at the exact column",
          ("tests/checker/test_qmd.py",),
          old="return index + 1, offset - self.starts[index] + 1",
          new="return index + 1, offset - self.starts[index] + 2", ci=True),
    Plant("stacked-availability-extra-replica", "mlsys/formulas.py",
          "k replicas give 1 - (1 - A)^k",
          ("tests/mlsys/test_formulas.py",),
          old='return float(1.0 - (1.0 - a) ** _count(k, "k"))',
          new='return float(1.0 - (1.0 - a) ** (_count(k, "k") + 1))', ci=True),
    Plant("skip-policy-ignores-ci", "tests/skip_policy.py",
          "a missing tool or the missing seeds fail under CI",
          ("tests/meta/test_skip_policy.py",),
          old='return bool(os.environ.get("CI"))', new="return False", ci=True),
    Plant("sigterm-reported-as-ctrl-c", "scripts/cli.py", "SIGTERM exits with status 143",
          ("tests/checker/test_cli.py::test_interrupt_exits_and_leaves_no_kernel",),
          old="terminated = isinstance(exc, _Terminated)", new="terminated = False"),
    Plant("front-matter-line-plus-one-end-to-end", "scripts/read/qmd.py",
          "the checker reports a malformed front matter at its line",
          ("tests/faults/test_bad_project.py::test_malformed_front_matter",
           "tests/checker/test_book.py::test_reading_findings_end_to_end"),
          old="_yaml_problem(exc, first_line=2)", new="_yaml_problem(exc, first_line=3)"),
    # ---- issue 25: hostile input, round three
    Plant("shard-tree-ignored", "scripts/verify/shard.py",
          "partials of two source trees never merge",
          ("tests/pipeline/test_shard.py::test_partials_of_two_source_trees_never_merge",),
          old='key = (data["tree"], data["plan"]', new='key = (current, data["plan"]'),
    Plant("no-subreaper", "scripts/run/sweep.py",
          "an orphan with an emptied environment does not outlive the run",
          ("tests/faults/test_kernel_hygiene.py::test_nothing_outlives_a_run[env-i]",),
          old="became = not was_subreaper and _prctl(PR_SET_CHILD_SUBREAPER, 1)",
          new="became = False"),
    Plant("include-follows-symlinks-out", "scripts/read/includes.py",
          "an include of a symlink out of the project is refused",
          ("tests/faults/test_hostile.py::test_include_of_a_symlink_out_of_the_project_is_refused",),
          old='path == ".." or not _inside(root, root / path)', new='path == ".."'),
    Plant("bom-kept", "scripts/read/qmd.py", "a BOM before front matter is dropped",
          ("tests/faults/test_hostile.py::test_bom_before_front_matter_keeps_the_front_matter",),
          old='data = data[3:] if data.startswith(b"\\xef\\xbb\\xbf") else data', new=""),
    Plant("page-links-not-encoded", "scripts/render/html.py",
          "links to pages are percent-encoded",
          ("tests/faults/test_hostile.py::test_chapter_file_names_are_percent_encoded_in_html_links",),
          old='return quote(posixpath.relpath(to_path, posixpath.dirname(from_page) or "."))',
          new='return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")'),
    Plant("control-files-unwatched", "scripts/verify/check.py",
          "a run that changes a control file is a finding",
          ("tests/faults/test_hostile.py::test_a_cell_that_rewrites_a_control_file_is_a_finding",),
          old="    result.findings += changed_controls\n", new=""),
    Plant("kill-the-server-allowed", "scripts/run/kernel_side.py",
          "a chapter that kills the fork server is blamed at its line",
          ("tests/faults/test_hostile.py::test_a_chapter_killing_the_fork_server_is_blamed_not_its_neighbour",),
          old="    sys.addaudithook(hook)\n", new=""),
]
