"""Mutation testing of the book's invariants: does the checker notice a wrong number?

`python -m booktools.mutation [--root DIR] [--jobs N] [--sample N] [--seed S]` copies
the project to a temporary directory, accepts its numbers there (`numbers`), then
perturbs one input at a time and asks whether the check would fail. What is
perturbed, what kills a mutant, the allowlist (`allowlist.toml`) and how the fast
in-process harness is validated against the real checker: docs/testing.md ("A
wrong number cannot be published unnoticed"); how a mutant is applied, in
process or to a copy's sources: mutants.py.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
import os
from pathlib import Path

from booktools.mutation.harness import Harness, run_forked
from booktools.mutation.mutants import all_mutants
from booktools.mutation.real import checker, copy_project, run_real
from booktools.mutation.report import (ALLOWLIST, REPORT, Report, choose_sample, choose_subset,
                                           load_allowlist)
from bookcheck.verify import ledger

# The real-checker sample is drawn with this seed unless --seed or MUTATION_SEED says otherwise,
# so two runs cross-check the same mutants.
DEFAULT_SEED = 17


def default_seed() -> int:
    text = os.environ.get("MUTATION_SEED", "").strip()
    return int(text) if text else DEFAULT_SEED


def mutation_test(src: Path, work: Path, jobs: int = 2, sample: int = 8,
                  seed: int | None = None, log=print, allowlist: dict[str, str] | None = None,
                  keep=None, ledger_only: dict[str, str] | None = None,
                  subset: int | None = None) -> Report:
    """The whole procedure on a copy of the project at `src`, inside `work`;
    `subset`: run only choose_subset's targeted subset of that many mutants.

    Imports the copy's `mlsys` into this process and changes IPython's
    `display`: run it in a process of its own (`python -m booktools.mutation`).
    """
    root = copy_project(src, work / "book")
    code, _report, output = checker(root, "numbers", jobs)
    if code != 0:
        raise RuntimeError(f"the unmutated book does not pass `numbers`:\n{output}")
    sys.path.insert(0, str(root))       # the copy's mlsys, imported once here
    try:
        for name in [n for n in sys.modules if n == "mlsys" or n.startswith("mlsys.")]:
            del sys.modules[name]
        harness = Harness(root)
        harness.preload()
        harness.baseline = dict(ledger.read(root / "numbers.lock"))
        generated = [m for m in all_mutants(root) if keep is None or keep(m)]
        allowlist = load_allowlist() if allowlist is None else allowlist
        ledger_only = load_allowlist(table="ledger_only") if ledger_only is None else ledger_only
        seed = seed if seed is not None else default_seed()
        mutants = generated if subset is None else choose_subset(
            generated, subset, random.Random(seed), set(allowlist) | set(ledger_only))
        base = harness.run_book()       # also warms caches (pint, matplotlib) for the children
        if base.verdict() != "survived":
            raise RuntimeError("the harness disagrees with the checker on the unmutated book: "
                               + "; ".join((base.invariants + base.errors + base.ledger_changes)[:5]))
        t0 = time.monotonic()
        log(f"harness reproduces numbers.lock ({len(harness.baseline)} numbers); "
            f"running {len(mutants)} mutants on {jobs} cores")
        outcomes = run_forked(harness, mutants, jobs)
        log(f"harness: {len(mutants)} mutants in {time.monotonic() - t0:.0f} s")
    finally:
        sys.path.remove(str(root))
    report = Report(mutants, outcomes, allowlist, ledger_only_allowed=ledger_only, seed=seed,
                    generated=generated)
    log(f"real-checker sample: seed {report.seed} (override with --seed N or MUTATION_SEED)")
    rng = random.Random(report.seed)
    for i in choose_sample(report.verdicts(), sample, rng):
        m = next(x for x in mutants if x.id == i)
        verdict, _output = run_real(root, m, jobs)
        report.sample[i] = (report.verdicts()[i], verdict)
        log(f"  real checker: {i}: {verdict} (harness: {report.verdicts()[i]})")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m booktools.mutation",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project to mutate (copied)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run in parallel")
    parser.add_argument("--sample", type=int, default=8,
                        help="mutants cross-validated with the real checker")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"seed of that sample (default: $MUTATION_SEED, else {DEFAULT_SEED})")
    parser.add_argument("--allowlist", type=Path, default=ALLOWLIST)
    parser.add_argument("--only", default=None, help="regex: keep mutants whose id matches")
    parser.add_argument("--subset", type=int, default=None,
                        help="run a targeted subset of N mutants (reviewed, sign/range, one per "
                             "formula, then at random with the seed); default: all")
    parser.add_argument("--report", type=Path, default=None,
                        help="full report (default: ROOT/_bookcheck/mutation-report.txt)")
    parser.add_argument("--json", type=Path, default=None, help="write a summary as JSON")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    only = re.compile(args.only) if args.only else None
    seed = args.seed if args.seed is not None else default_seed()

    def kept(table: str) -> dict[str, str]:
        return {i: r for i, r in load_allowlist(args.allowlist, table).items()
                if only is None or only.search(i)}

    with tempfile.TemporaryDirectory(prefix="mutation-") as work:
        report = mutation_test(root, Path(work), args.jobs, args.sample, seed,
                               allowlist=kept("mutant"), ledger_only=kept("ledger_only"),
                               keep=(lambda m: bool(only.search(m.id))) if only else None,
                               subset=args.subset)
    text = report.text()
    out = args.report or root / REPORT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text.split("\nper mutant:")[0])
    print(f"(full report: {out})")
    if args.json:
        args.json.write_text(json.dumps(report.summary(), indent=1), encoding="utf-8")
    bad = (report.unexplained() or report.stale() or report.disagreements()
           or report.unclaimed() or report.stale_ledger_only())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
