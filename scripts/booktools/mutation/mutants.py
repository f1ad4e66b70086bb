"""Mutants: which perturbations of mlsys exist, and how to apply one.

Constants (mlsys.constants.list_constants): x0.1, x10, sign flip, and +-1 on
dimensionless integer counts. Formulas of mlsys.formulas the chapters call:
result x0.1, x10, negated, first two arguments swapped, +1 on each count
argument (the count arguments of a formula: those whose value in its
mlsys.examples.EXAMPLES call is an int, or a count of GPUs or nodes). Applied in process (rebinding names in the imported, forked copy) or
to the sources of a project copy (for the real checker); formulas both ways
through the same FORMULA_WRAPPER.
"""
from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# Appended to mlsys/formulas.py (real checker) or exec'd in it (harness): one source.
FORMULA_WRAPPER = '''
# ---- mutation testing (booktools.mutation): wrap one formula -------------------
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
                if param in a:   # a count of GPUs or nodes is a Quantity: +1 of its unit
                    a[param] = a[param] + (1 * a[param].units if hasattr(a[param], "units") else 1)
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
    from bookcheck.read.project import load_project
    project = load_project(root)
    text = "\n".join((root / rel).read_text("utf-8", errors="replace")
                     for rel in project.documents)
    return [name for name in formulas.__all__
            if callable(getattr(formulas, name)) and not inspect.isclass(getattr(formulas, name))
            and re.search(rf"\b{name}\b", text)]


def count_params(name: str, examples: dict | None = None) -> list[str]:
    """The count parameters of formula `name`: an int in its example call (mlsys.examples),
    or a count of GPUs or nodes (a Quantity of dimension [gpu] or [node])."""
    if examples is None:
        from mlsys.examples import EXAMPLES as examples
    return [param for param, value in examples.get(name, {}).items()
            if (isinstance(value, int) and not isinstance(value, bool))
            or str(getattr(value, "dimensionality", "")) in ("[gpu]", "[node]")]


def formula_ops(params: list[str], counts: list[str]) -> list[str]:
    """The mutations of a formula taking `params`, of which `counts` are counts."""
    ops = ["x0.1", "x10", "neg"] + (["swap"] if len(params) >= 2 else [])
    return ops + [f"count+1:{p}" for p in params if p in counts]


def formula_mutants(root: Path) -> list[Mutant]:
    from mlsys import formulas
    out = []
    for name in formulas_used(root):
        params = list(inspect.signature(getattr(formulas, name)).parameters)
        out += [Mutant("formula", name, op) for op in formula_ops(params, count_params(name))]
    return out


def all_mutants(root: Path) -> list[Mutant]:
    return constant_mutants() + formula_mutants(root)


def unit_interval(name: str, module=None) -> bool:
    """Formula `name` returns a result in [0, 1]: it is annotated `-> UnitInterval`."""
    if module is None:
        from mlsys import formulas as module
    return getattr(getattr(module, name, None), "__annotations__", {}).get("return") == "UnitInterval"


def is_sign_or_range(m: Mutant) -> bool:
    """A mutant that makes a formula's result impossible, not merely different: sign
    (a result negated: no quantity of the book is negative) or range (×10 on a result
    in [0, 1]); a claim or an error must stop it (docs/testing.md says why)."""
    return m.kind == "formula" and (
        m.op == "neg" or (m.op == "x10" and unit_interval(m.target)))


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
