"""Mutation testing of the book's invariants: does the checker notice a wrong number?

`python -m scripts.mutate [--root DIR] [--jobs N] [--sample N] [--seed S]` copies
the project to a temporary directory, accepts its numbers there (`numbers`), then
perturbs one input at a time and asks whether the check would fail:

* every constant of `mlsys.constants.list_constants()`: ×0.1, ×10, sign flip,
  and ±1 on dimensionless integer counts;
* every `mlsys.formulas` function the chapters call: result ×0.1, ×10, negated,
  its first two arguments swapped (two or more parameters), and +1 on each
  integer-count argument.

A mutant is *killed* by an invariant (a `check()` fails), by an error (a cell or
inline expression raises, or publishes nothing printable) or by the ledger (a
published number differs from the copy's numbers.lock). Mutants that survive
must be listed, with a reason, in `tests/faults/mutation_allowlist.toml`.

Running the real checker for every mutant would take half an hour, so every
mutant runs through a fast in-process harness: each chapter's cells and inline
expressions as parsed by `scripts.qmd`, executed in document order with plain
`exec` in a forked child (fresh state per mutant, like a fresh kernel), outputs
turned into a `ChapterRun` and collected by `scripts.ledger`. The harness is
validated twice: its unmutated ledger must equal the numbers.lock the real
checker wrote, and a random sample of mutants is run through the real checker
(`python -m scripts check`), which must classify each one the same way.

Constants are mutated in process by rebinding the name in every `mlsys` module
(and its provenance row), for the real checker by rewriting the literal in
`mlsys/constants.py`; formulas in both cases by the same wrapper appended to
`mlsys/formulas.py` (see `FORMULA_WRAPPER`).
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import io
import inspect
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ALLOWLIST = REPO / "tests" / "faults" / "mutation_allowlist.toml"
REPORT = Path("_build") / "mutation-report.txt"
COPY_ITEMS = ("_quarto.yml", "index.qmd", "contents", "mlsys", "references.bib")
MUTANT_TIMEOUT_S = 60.0

# Parameters of mlsys.formulas that are integer counts (off-by-one mutations).
COUNT_PARAMS = {"n_gpus", "n_nics", "n_psus", "n_nodes", "k", "n", "trials", "successes",
                "n_params", "n_failures", "from_devices", "to_devices"}

# Appended to mlsys/formulas.py (real checker) or exec'd in it (harness): one source.
FORMULA_WRAPPER = '''
# ---- mutation testing (scripts.mutate): wrap one formula -------------------
def _mutation_wrap(fn, op):
    import functools as _ft
    import inspect as _insp
    sig = _insp.signature(fn)
    names = list(sig.parameters)

    @_ft.wraps(fn)
    def wrapper(*args, **kwargs):
        if op == "swap" or op.startswith("count+1:"):
            bound = sig.bind(*args, **kwargs)
            a = bound.arguments
            if op == "swap":
                first, second = names[0], names[1]
                if first in a and second in a:
                    a[first], a[second] = a[second], a[first]
            else:
                param = op.split(":", 1)[1]
                if param in a:
                    a[param] = a[param] + 1
            return fn(*bound.args, **bound.kwargs)
        result = fn(*args, **kwargs)
        if op == "x0.1":
            return result * 0.1
        if op == "x10":
            return result * 10
        if op == "neg":
            return -result
        raise ValueError("unknown mutation " + op)
    return wrapper
'''


# ------------------------------------------------------------------ mutants

@dataclass(frozen=True)
class Mutant:
    kind: str                   # "constant" | "formula"
    target: str                 # constant or function name
    op: str                     # x0.1, x10, neg, +1, -1, swap, count+1:<param>
    value: int | float | None = None    # the mutated constant

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.target}:{self.op}"


def _scaled(value, factor):
    out = value * factor
    if isinstance(value, int) and float(out).is_integer():
        return int(round(out))          # 50_000 × 0.1 stays an int literal
    return float(out)


def constant_mutants() -> list[Mutant]:
    from mlsys.constants import list_constants
    out = []
    for c in list_constants():
        out.append(Mutant("constant", c.name, "x0.1", _scaled(c.value, 0.1)))
        out.append(Mutant("constant", c.name, "x10", _scaled(c.value, 10)))
        out.append(Mutant("constant", c.name, "neg", -c.value))
        if isinstance(c.value, int) and not c.unit:
            out.append(Mutant("constant", c.name, "+1", c.value + 1))
            out.append(Mutant("constant", c.name, "-1", c.value - 1))
    return out


def formulas_used(root: Path) -> list[str]:
    """Functions of mlsys.formulas named in the book's chapters, in formulas' order."""
    from mlsys import formulas
    from scripts.project import load_project
    project = load_project(root)
    text = "\n".join((root / rel).read_text("utf-8", errors="replace")
                     for rel in project.documents)
    return [name for name in formulas.__all__
            if callable(getattr(formulas, name)) and not inspect.isclass(getattr(formulas, name))
            and re.search(rf"\b{name}\b", text)]


def formula_mutants(root: Path) -> list[Mutant]:
    from mlsys import formulas
    out = []
    for name in formulas_used(root):
        params = list(inspect.signature(getattr(formulas, name)).parameters)
        for op in ("x0.1", "x10", "neg"):
            out.append(Mutant("formula", name, op))
        if len(params) >= 2:
            out.append(Mutant("formula", name, "swap"))
        out += [Mutant("formula", name, f"count+1:{p}") for p in params if p in COUNT_PARAMS]
    return out


def all_mutants(root: Path) -> list[Mutant]:
    return constant_mutants() + formula_mutants(root)


# ----------------------------------------------------- applying a mutant

def apply_in_process(m: Mutant) -> None:
    """Mutate the already imported mlsys (call in a throwaway forked child only)."""
    import mlsys
    from mlsys import constants, formulas
    if m.kind == "constant":
        for name, module in list(sys.modules.items()):
            if (name == "mlsys" or name.startswith("mlsys.")) and hasattr(module, m.target):
                setattr(module, m.target, m.value)
        constants._REGISTRY[m.target] = constants._REGISTRY[m.target]._replace(value=m.value)
    else:
        exec(FORMULA_WRAPPER + f"\n{m.target} = _mutation_wrap({m.target}, {m.op!r})\n",
             formulas.__dict__)
        setattr(mlsys, m.target, getattr(formulas, m.target))


DECLARE = re.compile(r'(_declare\(\s*"(?P<name>\w+)",\s*)(?P<value>[^,]+?)(\s*,)')


def apply_to_source(root: Path, m: Mutant) -> dict[Path, bytes]:
    """Mutate the files of the copy at `root`; return their original bytes."""
    if m.kind == "constant":
        path = root / "mlsys" / "constants.py"
        original = path.read_bytes()
        text, n = DECLARE.subn(
            lambda g: g.group(1) + repr(m.value) + g.group(4) if g["name"] == m.target else g.group(0),
            original.decode("utf-8"))
        if text == original.decode("utf-8"):
            raise ValueError(f"cannot find the declaration of {m.target}")
    else:
        path = root / "mlsys" / "formulas.py"
        original = path.read_bytes()
        text = (original.decode("utf-8") + FORMULA_WRAPPER
                + f"\n{m.target} = _mutation_wrap({m.target}, {m.op!r})\n")
    path.write_text(text, encoding="utf-8")
    return {path: original}


def restore(saved: dict[Path, bytes]) -> None:
    for path, data in saved.items():
        path.write_bytes(data)


# ------------------------------------------------------------- the harness

EMPTY_WORDS = re.compile(r"(?<![\w.])(?:nan|NaN|-?inf|-?Infinity|None)(?![\w])")


@dataclass
class Outcome:
    invariants: list[str] = field(default_factory=list)   # "path:line: message"
    errors: list[str] = field(default_factory=list)
    ledger: dict[str, str] = field(default_factory=dict)
    ledger_changes: list[str] = field(default_factory=list)

    def verdict(self) -> str:
        """invariant | error | ledger | survived"""
        if self.invariants:
            return "invariant"
        if self.errors:
            return "error"
        return "ledger" if self.ledger_changes else "survived"


class Harness:
    """Executes the book's chapters in this process, as the checker would in kernels."""

    def __init__(self, root: Path):
        from scripts.check import CELL_DEFAULTS, apply_execute_defaults
        from scripts.project import load_project
        from scripts.qmd import decode, parse_chapter
        self.root = Path(root)
        project = load_project(self.root)
        if project.findings:
            raise RuntimeError(f"the project has findings: {project.findings}")
        defaults = {k: v for k, v in project.execute.items() if k in CELL_DEFAULTS}
        self.chapters = []
        for rel in project.documents:
            text, _problems = decode(rel, (self.root / rel).read_bytes())
            parsed = parse_chapter(rel, text)
            apply_execute_defaults(parsed, defaults)
            self.chapters.append(parsed)
        self.baseline: dict[str, str] = {}

    def preload(self) -> None:
        """Import what chapters import, once, in the parent (children inherit it)."""
        os.environ.setdefault("MPLBACKEND", "Agg")
        import matplotlib
        matplotlib.use("Agg")
        import IPython.display  # noqa: F401
        import mlsys  # noqa: F401
        import mlsys.plotting  # noqa: F401
        import pandas  # noqa: F401
        import tabulate  # noqa: F401

    def run_book(self) -> Outcome:
        from scripts import ledger
        outcome = Outcome()
        cwd = os.getcwd()
        os.chdir(self.root)
        try:
            for parsed in self.chapters:
                run = self._run_chapter(parsed, outcome)
                if outcome.invariants:
                    break           # the verdict is settled: killed by an invariant
                outcome.ledger.update(ledger.collect(parsed, run))
        finally:
            os.chdir(cwd)
        outcome.ledger_changes = [f.reason for f in ledger.diff(self.baseline, outcome.ledger)]
        return outcome

    def _run_chapter(self, parsed, outcome: Outcome):
        import IPython.display as ipd
        from IPython.core.formatters import PlainTextFormatter
        from mlsys.formatting import InvariantError
        from scripts.model import CellRun, ChapterRun, InlineRun, Output
        plain = PlainTextFormatter()
        run = ChapterRun(path=parsed.path)
        run.cells = [CellRun(index=c.index) for c in parsed.cells]
        run.inlines = []
        ns: dict = {"__name__": "__main__"}
        shown: list = []
        ipd.display = lambda *objs, **_: shown.extend(objs)

        def as_output(value):
            md = getattr(value, "_repr_markdown_", None)
            if callable(md) and md() is not None:
                text = md()
                return Output("markdown", str(text[0] if isinstance(text, tuple) else text))
            return Output("text", plain(value))

        def inline(expr) -> None:
            where = f"{parsed.path}:{expr.line}:{expr.col}"
            try:
                value = eval(compile(expr.expr, "<inline>", "eval"), ns)
            except Exception as exc:
                outcome.errors.append(f"{where}: {type(exc).__name__}: {exc}")
                return
            if isinstance(value, str):
                kind, text = "markdown", value
            else:
                out = as_output(value)
                kind, text = out.kind, out.data
            run.inlines.append(InlineRun(index=expr.index, kind=kind, text=text))
            magnitude = getattr(value, "magnitude", value)
            finite = not (isinstance(magnitude, (int, float)) and not math.isfinite(float(magnitude)))
            if value is None or not text.strip() or EMPTY_WORDS.search(text) or not finite:
                outcome.errors.append(f"{where}: inline expression yields {text!r}")

        for k in range(len(parsed.cells) + 1):
            for expr in parsed.inlines:
                if expr.cells_before == k:
                    inline(expr)
            if k == len(parsed.cells):
                break
            cell = parsed.cells[k]
            if _false(cell.options.get("eval", True)) or not cell.source.strip():
                continue
            shown.clear()
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    value = _exec_cell(cell.source, ns, f"{parsed.path}:{cell.first_code_line}")
            except InvariantError as exc:
                outcome.invariants.append(f"{parsed.path}:{_line(exc, cell)}: {exc}")
                return run
            except BaseException as exc:        # SystemExit too: the kernel would report it
                if _true(cell.options.get("error", False)):
                    continue
                outcome.errors.append(f"{parsed.path}:{_line(exc, cell)}: {type(exc).__name__}: {exc}")
                return run
            if value is not None:
                shown.append(value)
            visible = not (_false(cell.options.get("include", True))
                           or _false(cell.options.get("output", True)))
            if visible:
                asis = str(cell.options.get("output", "")).lower() == "asis"
                text = printed.getvalue()
                streams = [Output("markdown" if asis else "text", text)] if text else []
                run.cells[cell.index].outputs = streams + [as_output(v) for v in shown]
        return run


def _exec_cell(source: str, ns: dict, filename: str):
    """exec a cell; return the value of a final expression statement (IPython's display)."""
    tree = ast.parse(source, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), ns)
    if last is not None:
        return eval(compile(last, filename, "eval"), ns)
    return None


def _line(exc: BaseException, cell) -> int:
    """The .qmd line of the innermost frame in the cell (or the cell's first line)."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(f":{cell.first_code_line}"):
            line = tb.tb_lineno
        tb = tb.tb_next
    return cell.first_code_line + (line or 1) - 1


def _false(value) -> bool:
    return value is False or str(value).lower() == "false"


def _true(value) -> bool:
    return value is True or str(value).lower() == "true"


# ------------------------------------------------------ running many mutants

def run_forked(harness: Harness, mutants: list[Mutant], jobs: int,
               timeout_s: float = MUTANT_TIMEOUT_S) -> dict[str, Outcome]:
    """Each mutant in its own forked child of this (preloaded) process."""
    results: dict[str, Outcome] = {}
    pending = list(mutants)
    live: dict[int, tuple[Mutant, str, float]] = {}
    scratch = tempfile.mkdtemp(prefix="mutants-")
    started = 0
    try:
        while pending or live:
            while pending and len(live) < jobs:
                m = pending.pop(0)
                started += 1
                out = os.path.join(scratch, f"{started}.json")
                pid = os.fork()
                if pid == 0:            # the child: mutate, run, report, vanish
                    code = 0
                    try:
                        devnull = os.open(os.devnull, os.O_WRONLY)
                        os.dup2(devnull, 1)
                        os.dup2(devnull, 2)
                        apply_in_process(m)
                        o = harness.run_book()
                        o.ledger = {}
                        with open(out, "w") as handle:
                            json.dump(o.__dict__, handle)
                    except BaseException as exc:
                        code = 1
                        with open(out, "w") as handle:
                            json.dump({"errors": [f"the harness crashed: {exc!r}"]}, handle)
                    finally:
                        os._exit(code)
                live[pid] = (m, out, time.monotonic() + timeout_s)
            pid, _status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                for child, (m, out, deadline) in list(live.items()):
                    if time.monotonic() > deadline:
                        os.kill(child, signal.SIGKILL)
                time.sleep(0.005)
                continue
            if pid not in live:
                continue
            m, out, deadline = live.pop(pid)
            try:
                with open(out) as handle:
                    results[m.id] = Outcome(**json.load(handle))
                os.unlink(out)
            except (OSError, ValueError):
                late = time.monotonic() > deadline
                results[m.id] = Outcome(errors=["timeout" if late else "the harness crashed"])
    finally:
        for child in live:
            try:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
            except OSError:
                pass
        shutil.rmtree(scratch, ignore_errors=True)
    return results


# ----------------------------------------------------------- the real checker

def copy_project(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for item in COPY_ITEMS:
        path = src / item
        if path.is_dir():
            shutil.copytree(path, dst / item, ignore=shutil.ignore_patterns("__pycache__"))
        elif path.exists():
            shutil.copy2(path, dst / item)
    return dst


def checker(root: Path, command: str = "check", jobs: int = 2) -> tuple[int, str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-m", "scripts", command, "--root", str(root),
                           "--jobs", str(jobs)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


FINDING_KIND = re.compile(r"^\S+:\d+(?::\d+)? (?:\[[^\]]+\] )?([a-z][a-z-]*): ", re.MULTILINE)


def checker_verdict(code: int, output: str) -> str:
    kinds = set(FINDING_KIND.findall(output))
    if code == 0:
        return "survived"
    if "invariant" in kinds:
        return "invariant"
    if kinds - {"ledger"}:
        return "error"
    if "published numbers differ" in output or "ledger" in kinds:
        return "ledger"
    return "error"


def run_real(root: Path, m: Mutant, jobs: int) -> tuple[str, str]:
    saved = apply_to_source(root, m)
    try:
        code, output = checker(root, "check", jobs)
    finally:
        restore(saved)
    return checker_verdict(code, output), output


# --------------------------------------------------------------- allowlist

def load_allowlist(path: Path = ALLOWLIST) -> dict[str, str]:
    """{mutant id: reason}; every entry must give a non-empty reason."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for entry in data.get("mutant", []):
        if not str(entry.get("reason", "")).strip():
            raise ValueError(f"allowlist entry {entry.get('id')} has no reason")
        out[entry["id"]] = entry["reason"]
    return out


# ------------------------------------------------------------------ report

@dataclass
class Report:
    mutants: list[Mutant]
    outcomes: dict[str, Outcome]
    allowlist: dict[str, str]
    sample: dict[str, tuple[str, str]] = field(default_factory=dict)   # id -> (harness, checker)
    seed: int = 0

    def verdicts(self) -> dict[str, str]:
        return {m.id: self.outcomes[m.id].verdict() for m in self.mutants}

    def survivors(self) -> list[str]:
        return [i for i, v in self.verdicts().items() if v == "survived"]

    def unexplained(self) -> list[str]:
        return [i for i in self.survivors() if i not in self.allowlist]

    def stale(self) -> list[str]:
        """Allowlisted ids that are killed (or no longer exist): remove them."""
        verdicts = self.verdicts()
        return [i for i in self.allowlist if verdicts.get(i, "gone") != "survived"]

    def disagreements(self) -> list[str]:
        return [f"{i}: harness {h}, checker {c}" for i, (h, c) in self.sample.items() if h != c]

    def kill_rate(self) -> float:
        considered = [i for i in self.verdicts() if i not in self.allowlist]
        killed = [i for i in considered if self.verdicts()[i] != "survived"]
        return len(killed) / len(considered) if considered else 1.0

    def summary(self) -> dict:
        """The figures a test asserts on, as plain JSON data."""
        return {"verdicts": self.verdicts(), "unexplained": self.unexplained(),
                "stale": self.stale(), "disagreements": self.disagreements(),
                "sample": {i: list(v) for i, v in self.sample.items()}, "seed": self.seed,
                "kill_rate": self.kill_rate(),
                "constants": sorted({m.target for m in self.mutants if m.kind == "constant"}),
                "formulas": sorted({m.target for m in self.mutants if m.kind == "formula"})}

    def text(self) -> str:
        verdicts = self.verdicts()
        count = {k: sum(1 for v in verdicts.values() if v == k)
                 for k in ("invariant", "error", "ledger", "survived")}
        n = len(verdicts)
        lines = [
            f"mutation test: {n} mutants "
            f"({sum(m.kind == 'constant' for m in self.mutants)} of constants, "
            f"{sum(m.kind == 'formula' for m in self.mutants)} of formulas)",
            f"  killed by an invariant (check()):        {count['invariant']}",
            f"  killed by an error (cell/inline/empty):  {count['error']}",
            f"  killed only by the ledger (numbers.lock): {count['ledger']}",
            f"  survived, allowlisted:                   {count['survived'] - len(self.unexplained())}",
            f"  survived, NOT allowlisted:               {len(self.unexplained())}",
            f"kill rate over non-allowlisted mutants: {100 * self.kill_rate():.1f}%",
            f"real-checker cross-validation: {len(self.sample)} mutants (seed {self.seed}), "
            f"{len(self.disagreements())} disagreements",
        ]
        for kind in ("constant", "formula"):
            sub = [m for m in self.mutants if m.kind == kind]
            by_inv = sum(verdicts[m.id] == "invariant" for m in sub)
            lines.append(f"  {kind}s: {len(sub)} mutants, {by_inv} killed by an invariant")
        for i in self.unexplained():
            lines.append(f"SURVIVOR {i}")
        for i in self.stale():
            lines.append(f"STALE allowlist entry {i} ({verdicts.get(i, 'no such mutant')})")
        for d in self.disagreements():
            lines.append(f"DISAGREEMENT {d}")
        lines.append("")
        lines.append("per mutant:")
        for m in self.mutants:
            o = self.outcomes[m.id]
            why = (o.invariants or o.errors or o.ledger_changes or [self.allowlist.get(m.id, "")])[0]
            lines.append(f"  {m.id:60s} {verdicts[m.id]:9s} {why[:150]}")
        return "\n".join(lines) + "\n"


def choose_sample(verdicts: dict[str, str], size: int, rng: random.Random) -> list[str]:
    """A random sample covering every verdict that occurs, then filled at random."""
    by_verdict: dict[str, list[str]] = {}
    for i, v in sorted(verdicts.items()):
        by_verdict.setdefault(v, []).append(i)
    chosen: list[str] = []
    for v in ("invariant", "error", "ledger", "survived"):
        ids = by_verdict.get(v, [])
        chosen += rng.sample(ids, min(2, len(ids)))
    rest = [i for i in sorted(verdicts) if i not in chosen]
    chosen += rng.sample(rest, max(0, min(len(rest), size - len(chosen))))
    return chosen


def mutation_test(src: Path, work: Path, jobs: int = 2, sample: int = 8,
                  seed: int | None = None, log=print, allowlist: dict[str, str] | None = None,
                  keep=None) -> Report:
    """The whole procedure on a copy of the project at `src`, inside `work`.

    Imports the copy's `mlsys` into this process and changes IPython's
    `display`: run it in a process of its own (`python -m scripts.mutate`).
    """
    root = copy_project(src, work / "book")
    code, output = checker(root, "numbers", jobs)
    if code != 0:
        raise RuntimeError(f"the unmutated book does not pass `numbers`:\n{output}")
    sys.path.insert(0, str(root))       # the copy's mlsys, imported once here
    try:
        for name in [n for n in sys.modules if n == "mlsys" or n.startswith("mlsys.")]:
            del sys.modules[name]
        harness = Harness(root)
        harness.preload()
        from scripts import ledger
        harness.baseline = dict(ledger.read(root / "numbers.lock"))
        mutants = [m for m in all_mutants(root) if keep is None or keep(m)]
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
    report = Report(mutants, outcomes, load_allowlist() if allowlist is None else allowlist)
    report.seed = seed if seed is not None else int(time.time())
    rng = random.Random(report.seed)
    for i in choose_sample(report.verdicts(), sample, rng):
        m = next(x for x in mutants if x.id == i)
        verdict, _output = run_real(root, m, jobs)
        report.sample[i] = (report.verdicts()[i], verdict)
        log(f"  real checker: {i}: {verdict} (harness: {report.verdicts()[i]})")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.mutate",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project to mutate (copied)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run in parallel")
    parser.add_argument("--sample", type=int, default=8,
                        help="mutants cross-validated with the real checker")
    parser.add_argument("--seed", type=int, default=None, help="seed of that sample")
    parser.add_argument("--allowlist", type=Path, default=ALLOWLIST)
    parser.add_argument("--only", default=None, help="regex: keep mutants whose id matches")
    parser.add_argument("--report", type=Path, default=None,
                        help="full report (default: ROOT/_build/mutation-report.txt)")
    parser.add_argument("--json", type=Path, default=None, help="write a summary as JSON")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    only = re.compile(args.only) if args.only else None
    with tempfile.TemporaryDirectory(prefix="mutation-") as work:
        report = mutation_test(root, Path(work), args.jobs, args.sample, args.seed,
                               allowlist={i: r for i, r in load_allowlist(args.allowlist).items()
                                          if only is None or only.search(i)},
                               keep=(lambda m: bool(only.search(m.id))) if only else None)
    text = report.text()
    out = args.report or root / REPORT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text.split("\nper mutant:")[0])
    print(f"(full report: {out})")
    if args.json:
        args.json.write_text(json.dumps(report.summary(), indent=1), encoding="utf-8")
    bad = report.unexplained() or report.stale() or report.disagreements()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
