"""The allowlist of reviewed survivors, the mutation report, and the sample choice."""
from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from scripts.tools.mutation.harness import Outcome
from scripts.tools.mutation.mutants import Mutant

ALLOWLIST = Path(__file__).with_name("allowlist.toml")
REPORT = Path("_build") / "mutation-report.txt"


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
