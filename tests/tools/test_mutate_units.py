"""The mutation machinery itself: mutants are what they claim to be (fast, no kernels)."""
from __future__ import annotations

import ast

import pytest

from tests import REPO

from booktools.mutation import mutants as mutate
from booktools.mutation import report

pytestmark = pytest.mark.slow


def declared_value(source: str, name: str):
    """The literal value `_declare("name", value, ...)` has in `source`."""
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_declare"
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == name):
            return ast.literal_eval(node.args[1])
    raise AssertionError(f"{name} not declared")


def test_every_constant_mutant_rewrites_exactly_its_own_literal(tmp_path):
    (tmp_path / "mlsys").mkdir()
    original = (REPO / "mlsys" / "constants.py").read_text()
    mutants = mutate.constant_mutants()
    assert mutants
    for m in mutants:
        (tmp_path / "mlsys" / "constants.py").write_text(original)
        mutate.apply_to_source(tmp_path, m)
        text = (tmp_path / "mlsys" / "constants.py").read_text()
        assert declared_value(text, m.target) == m.value, m.id
        assert type(declared_value(text, m.target)) is type(m.value), m.id
        changed = [a for a, b in zip(original.splitlines(), text.splitlines()) if a != b]
        assert len(changed) == 1, (m.id, changed)


def test_constant_operations():
    by_id = {m.id: m for m in mutate.constant_mutants()}
    assert by_id["constant:GPU_MTTF_HOURS:x0.1"].value == 5_000
    assert by_id["constant:GPU_MTTF_HOURS:x10"].value == 500_000
    assert by_id["constant:GPU_MTTF_HOURS:neg"].value == -50_000
    assert by_id["constant:GPUS_PER_HOST:x0.1"].value == pytest.approx(0.8)
    assert by_id["constant:GPUS_PER_HOST:+1"].value == 9
    assert by_id["constant:GPUS_PER_HOST:-1"].value == 7
    assert "constant:GPU_MTTF_HOURS:+1" not in by_id          # not a count: has a unit
    assert "constant:REPLICA_AVAILABILITY:+1" not in by_id    # not an integer


def wrapped(fn, op):
    namespace = {"fn": fn}
    exec(mutate.FORMULA_WRAPPER + f"\nmutant = _mutation_wrap(fn, {op!r})\n", namespace)
    return namespace["mutant"]


def per_node(total, n_nodes, spare=0):
    return total / n_nodes + spare


@pytest.mark.parametrize("op, expected", [
    ("x0.1", 1.0), ("x10", 100.0), ("neg", -10.0),
    ("swap", 0.1), ("count+1:n_nodes", 100 / 11),
])
def test_formula_wrapper(op, expected):
    assert wrapped(per_node, op)(100, 10) == pytest.approx(expected)
    assert wrapped(per_node, op)(total=100, n_nodes=10) == pytest.approx(expected)


def test_formula_mutants_cover_the_formulas_the_book_uses():
    used = mutate.formulas_used(REPO)
    assert used
    mutants = mutate.formula_mutants(REPO)
    for name in used:
        ops = {m.op for m in mutants if m.target == name}
        assert {"x0.1", "x10", "neg"} <= ops, name
    assert "formula:calc_mtbf_cluster:swap" in {m.id for m in mutants}
    assert "formula:calc_mtbf_cluster:count+1:n_nodes" in {m.id for m in mutants}


def test_allowlist_entries_need_a_reason(tmp_path):
    path = tmp_path / "allow.toml"
    path.write_text('[[mutant]]\nid = "constant:X:neg"\nreason = "  "\n')
    with pytest.raises(ValueError, match="no reason"):
        report.load_allowlist(path)
    assert all(reason.strip() for reason in report.load_allowlist().values())


def test_the_ci_subset_keeps_what_a_sample_could_miss():
    """choose_subset: every reviewed mutant, every sign/range mutant, one of each
    formula, then random ones up to the size, in generation order, the same for a seed."""
    import random
    from booktools.mutation.mutants import Mutant, is_sign_or_range
    from booktools.mutation.report import choose_subset
    mutants = [Mutant("constant", f"C{i}", op) for i in range(30) for op in ("x0.1", "x10")]
    mutants += [Mutant("formula", "calc_mtbf_node", "neg"), Mutant("formula", "calc_mtbf_node", "swap"),
                Mutant("formula", "calc_overhead_ratio", "swap"),
                Mutant("formula", "calc_overhead_ratio", "x0.1")]
    reviewed = {"constant:C7:x10", "formula:calc_overhead_ratio:x0.1"}
    subset = choose_subset(mutants, 12, random.Random(17), reviewed)
    ids = [m.id for m in subset]
    assert len(ids) == 12 and len(set(ids)) == 12
    assert reviewed <= set(ids)
    assert {m.id for m in mutants if is_sign_or_range(m)} <= set(ids)
    assert {m.target for m in subset if m.kind == "formula"} == {"calc_mtbf_node", "calc_overhead_ratio"}
    assert ids == [m.id for m in mutants if m.id in set(ids)]          # generation order
    assert ids == [m.id for m in choose_subset(mutants, 12, random.Random(17), reviewed)]
    assert ids != [m.id for m in choose_subset(mutants, 12, random.Random(18), reviewed)]


def test_a_small_sample_still_covers_every_verdict():
    import random
    from booktools.mutation.report import choose_sample
    verdicts = {f"m{i}": v for i, v in enumerate(["invariant"] * 9 + ["error"] * 5 + ["ledger"] * 4
                                                  + ["survived"] * 2)}
    small = choose_sample(verdicts, 4, random.Random(17))
    assert sorted(verdicts[i] for i in small) == ["error", "invariant", "ledger", "survived"]
    large = choose_sample(verdicts, 10, random.Random(17))
    assert len(large) == 10 and all(sum(verdicts[i] == v for i in large) >= 2
                                    for v in ("invariant", "error", "ledger", "survived"))


def test_a_new_unit_interval_formula_is_covered_by_the_range_rule(monkeypatch):
    """A formula declared `-> UnitInterval` gets the range rule (its ×10 mutant must be
    stopped) with no list to edit; one returning a plain float does not."""
    from mlsys import formulas
    namespace: dict = {}
    exec("from __future__ import annotations\n"
         "def calc_new_share(x) -> UnitInterval:\n    return x\n"
         "def calc_new_ratio(x) -> float:\n    return x\n", namespace)
    monkeypatch.setattr(formulas, "calc_new_share", namespace["calc_new_share"], raising=False)
    monkeypatch.setattr(formulas, "calc_new_ratio", namespace["calc_new_ratio"], raising=False)
    assert mutate.is_sign_or_range(mutate.Mutant("formula", "calc_new_share", "x10"))
    assert not mutate.is_sign_or_range(mutate.Mutant("formula", "calc_new_ratio", "x10"))
    assert mutate.is_sign_or_range(mutate.Mutant("formula", "calc_failure_probability", "x10"))
