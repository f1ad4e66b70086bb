"""The allowlist of reviewed survivors, the mutation report, and the sample choice."""
from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from bookcheck import store
from booktools.mutation.harness import Outcome
from booktools.mutation.mutants import Mutant, is_sign_or_range

ALLOWLIST = Path(__file__).with_name("allowlist.toml")
REPORT = Path(store.BUILD) / "mutation-report.txt"


def load_allowlist(path: Path = ALLOWLIST, table: str = "mutant") -> dict[str, str]:
    """{mutant id: reason} of one table; every entry must give a non-empty reason.

    `[[mutant]]`: survivors (equivalent, or below the printed precision).
    `[[ledger_only]]`: sign or range mutants allowed to be noticed by the ledger only.
    """
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for entry in data.get(table, []):
        if not str(entry.get("reason", "")).strip():
            raise ValueError(f"allowlist entry {entry.get('id')} has no reason")
        out[entry["id"]] = entry["reason"]
    return out


CLAIMED = ("invariant", "error")


# ------------------------------------------------------------------ report

@dataclass
class Report:
    mutants: list[Mutant]
    outcomes: dict[str, Outcome]
    allowlist: dict[str, str]
    sample: dict[str, tuple[str, str]] = field(default_factory=dict)   # id -> (harness, checker)
    seed: int = 0
    ledger_only_allowed: dict[str, str] = field(default_factory=dict)  # [[ledger_only]] entries
    generated: list[Mutant] = field(default_factory=list)   # every mutant made (run: `mutants`)

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

    def considered(self) -> list[str]:
        return [i for i in self.verdicts() if i not in self.allowlist]

    def claim_rate(self) -> float:
        """Share of the non-allowlisted mutants killed by a claim (check()) or an error."""
        considered = self.considered()
        claimed = [i for i in considered if self.verdicts()[i] in CLAIMED]
        return len(claimed) / len(considered) if considered else 1.0

    def ledger_only(self) -> list[str]:
        """Mutants noticed only as a moved number in numbers.lock (`make numbers` would accept)."""
        return [i for i, v in self.verdicts().items() if v == "ledger"]

    def unclaimed(self) -> list[str]:
        """Sign and range mutants not stopped by a claim or an error, and not allowlisted."""
        verdicts = self.verdicts()
        return [m.id for m in self.mutants if is_sign_or_range(m)
                and verdicts[m.id] not in CLAIMED and m.id not in self.ledger_only_allowed]

    def stale_ledger_only(self) -> list[str]:
        """[[ledger_only]] entries whose mutant is now claimed (or gone): remove them."""
        verdicts = self.verdicts()
        return [i for i in self.ledger_only_allowed if verdicts.get(i, "gone") != "ledger"]

    def summary(self) -> dict:
        """The figures a test asserts on, as plain JSON data."""
        return {"verdicts": self.verdicts(), "unexplained": self.unexplained(),
                "stale": self.stale(), "disagreements": self.disagreements(),
                "sample": {i: list(v) for i, v in self.sample.items()}, "seed": self.seed,
                "kill_rate": self.kill_rate(), "claim_rate": self.claim_rate(),
                "ledger_only": self.ledger_only(), "unclaimed": self.unclaimed(),
                "stale_ledger_only": self.stale_ledger_only(),
                "sign_or_range": [m.id for m in self.mutants if is_sign_or_range(m)],
                "constants": sorted({m.target for m in self.mutants if m.kind == "constant"}),
                "formulas": sorted({m.target for m in self.mutants if m.kind == "formula"}),
                "generated": [m.id for m in self.generated or self.mutants]}

    def text(self) -> str:
        verdicts = self.verdicts()
        count = {k: sum(1 for v in verdicts.values() if v == k)
                 for k in ("invariant", "error", "ledger", "survived")}
        n = len(verdicts)
        considered = self.considered()
        claimed = [i for i in considered if verdicts[i] in CLAIMED]
        ledger_only = [i for i in considered if verdicts[i] == "ledger"]
        made = len(self.generated or self.mutants)
        lines = [
            f"mutation test: {n} mutants" + (f" (a subset of {made}, seed {self.seed}: "
                                              "`make mutate` runs all)" if made != n else "") + " "
            f"({sum(m.kind == 'constant' for m in self.mutants)} of constants, "
            f"{sum(m.kind == 'formula' for m in self.mutants)} of formulas)",
            f"  killed by an invariant (check()):        {count['invariant']}",
            f"  killed by an error (cell/inline/empty):  {count['error']}",
            f"  killed only by the ledger (numbers.lock): {count['ledger']}",
            f"  survived, allowlisted:                   {count['survived'] - len(self.unexplained())}",
            f"  survived, NOT allowlisted:               {len(self.unexplained())}",
            f"kill rate over non-allowlisted mutants: {100 * self.kill_rate():.1f}%",
            f"  killed by a claim or an error: {100 * self.claim_rate():.1f}% "
            f"({len(claimed)} of {len(considered)})",
            f"  noticed by the ledger only:    {100 * len(ledger_only) / max(1, len(considered)):.1f}% "
            f"({len(ledger_only)} of {len(considered)}; `make numbers` would accept them)",
            f"sign and range mutants: {sum(is_sign_or_range(m) for m in self.mutants)}, "
            f"{len(self.unclaimed())} not stopped by a claim or an error",
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
        for i in self.unclaimed():
            lines.append(f"UNCLAIMED sign/range mutant {i} ({verdicts[i]}): add a check() or an allowlist reason")
        for i in self.stale_ledger_only():
            lines.append(f"STALE ledger_only entry {i} ({verdicts.get(i, 'no such mutant')})")
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
    """A random sample covering every verdict that occurs (two of each from a
    size of 8 up, else one), then filled at random up to `size`."""
    by_verdict: dict[str, list[str]] = {}
    for i, v in sorted(verdicts.items()):
        by_verdict.setdefault(v, []).append(i)
    per_verdict = 2 if size >= 8 else 1
    chosen: list[str] = []
    for v in ("invariant", "error", "ledger", "survived"):
        ids = by_verdict.get(v, [])
        chosen += rng.sample(ids, min(per_verdict, len(ids)))
    rest = [i for i in sorted(verdicts) if i not in chosen]
    chosen += rng.sample(rest, max(0, min(len(rest), size - len(chosen))))
    return chosen


def choose_subset(mutants: list[Mutant], size: int, rng: random.Random,
                  reviewed: set[str]) -> list[Mutant]:
    """The targeted subset CI runs (`--subset N`; `make mutate` runs them all):
    every reviewed mutant (an allowlist entry must still hold), every sign or
    range mutant, one mutant of each formula, then others at random up to `size`;
    in the order of `mutants`."""
    keep = {m.id for m in mutants if m.id in reviewed or is_sign_or_range(m)}
    for target in sorted({m.target for m in mutants if m.kind == "formula"}):
        if not any(i.startswith(f"formula:{target}:") for i in keep):
            keep.add(rng.choice(sorted(m.id for m in mutants if m.target == target)))
    rest = sorted(m.id for m in mutants if m.id not in keep)
    keep.update(rng.sample(rest, max(0, min(len(rest), size - len(keep)))))
    return [m for m in mutants if m.id in keep]
