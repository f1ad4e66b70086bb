"""Mutation test: perturb every constant and every formula the book uses; the check must notice.

Runs `python -m booktools.mutation` (its own process: it imports a mutated copy's
`mlsys`). The kill rate is printed (`pytest -s`) and written to
_bookcheck/mutation-report.txt. See scripts/booktools/mutation/ for how mutants are made and
run, and scripts/booktools/mutation/allowlist.toml for the reviewed survivors.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.faults.faultkit import REPO, write_book

pytestmark = pytest.mark.slow


def mutate(root, tmp_path, *extra: str) -> tuple[int, str, dict]:
    summary = tmp_path / "summary.json"
    proc = subprocess.run([sys.executable, "-m", "booktools.mutation", "--root", str(root),
                           "--json", str(summary), *extra],
                          cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert summary.exists(), proc.stdout + proc.stderr
    return proc.returncode, proc.stdout, json.loads(summary.read_text())


def book_names(pattern: str) -> set[str]:
    """Names the real book's mlsys declares (constants) or exports (formulas)."""
    text = (REPO / "mlsys" / "constants.py").read_text()
    return set(re.findall(pattern, text))


# CI runs a targeted subset (every reviewed and sign/range mutant, one per formula,
# the rest drawn with the fixed seed); `make mutate` runs every mutant.
CI_SUBSET, CI_SAMPLE = 80, 4


@pytest.mark.kernel
def test_every_mutant_of_the_book_is_killed_or_allowlisted(tmp_path):
    code, stdout, summary = mutate(REPO, tmp_path, "--subset", str(CI_SUBSET),
                                   "--sample", str(CI_SAMPLE))
    print("\n" + stdout)
    verdicts = summary["verdicts"]
    generated = summary["generated"]
    assert {i.split(":")[1] for i in generated if i.startswith("constant:")} == \
        book_names(r'_declare\(\s*"(\w+)"')
    defined = set(re.findall(r"^def (calc_\w+)", (REPO / "mlsys" / "formulas.py").read_text(), re.M))
    used = defined & set(re.findall(r"\bcalc_\w+", "".join(
        p.read_text() for p in [REPO / "index.qmd", *(REPO / "contents").glob("*.qmd")])))
    assert used and set(summary["formulas"]) == used       # every formula in the subset too
    assert len(verdicts) == CI_SUBSET and set(verdicts) <= set(generated)
    assert set(summary["sign_or_range"]) <= set(verdicts)   # all of them, not a sample
    assert f"a subset of {len(generated)}, seed 17" in stdout
    assert summary["unexplained"] == [], "mutants survived: kill them with a check() or allowlist them"
    assert summary["stale"] == [], "allowlist entries whose mutant is killed or gone: remove them"
    assert len(summary["sample"]) == CI_SAMPLE
    assert summary["disagreements"] == [], "the fast harness and the real checker disagree"
    assert summary["kill_rate"] == 1.0
    # sign and range mutants die by a claim or an error, not only as a moved number
    assert summary["sign_or_range"], "no sign or range mutant generated"
    assert summary["unclaimed"] == [], "add a check() (or a [[ledger_only]] reason) for these"
    assert summary["stale_ledger_only"] == []
    assert summary["seed"] == 17                       # fixed by default: the same sample each run
    assert "seed 17" in stdout
    assert code == 0
    # the book's claims are guarded: many mutants die by a broken check(), not only the ledger
    assert sum(v == "invariant" for v in verdicts.values()) >= len(verdicts) // 4
    assert (REPO / "_bookcheck" / "mutation-report.txt").is_file()


CHAPTER = """\
# Only {#sec-only}

```{python}
from mlsys import GPU_MTTF_HOURS, HBM_MTTF_HOURS, check
check(GPU_MTTF_HOURS > 10_000, "a GPU should last more than 10,000 hours")
unused = HBM_MTTF_HOURS
shown = f"{GPU_MTTF_HOURS:,}"
```

A GPU lasts `{python} shown` hours.
"""


@pytest.mark.kernel
def test_the_mutation_test_can_fail(tmp_path):
    """An input no claim and no number depends on is reported as a survivor."""
    src = write_book(tmp_path / "src", {"index.qmd": CHAPTER})
    empty = tmp_path / "allow.toml"
    empty.write_text("")
    code, stdout, summary = mutate(
        src, tmp_path, "--allowlist", str(empty), "--sample", "4", "--seed", "7",
        "--only", r"^constant:(GPU|HBM)_MTTF_HOURS:(x0\.1|x10|neg)$",
        "--report", str(tmp_path / "report.txt"))
    verdicts = summary["verdicts"]
    assert verdicts == {
        "constant:GPU_MTTF_HOURS:x0.1": "invariant",     # 5,000 h < 10,000 h
        "constant:GPU_MTTF_HOURS:x10": "ledger",         # still true, but the printed number moved
        "constant:GPU_MTTF_HOURS:neg": "invariant",
        "constant:HBM_MTTF_HOURS:x0.1": "survived",      # nothing depends on it
        "constant:HBM_MTTF_HOURS:x10": "survived",
        "constant:HBM_MTTF_HOURS:neg": "survived",
    }
    assert sorted(summary["unexplained"]) == sorted(k for k, v in verdicts.items() if v == "survived")
    assert summary["kill_rate"] == pytest.approx(0.5)
    assert summary["disagreements"] == []
    assert len(summary["sample"]) >= 4          # every verdict that occurs is sampled
    assert code == 1
    assert "SURVIVOR constant:HBM_MTTF_HOURS:x10" in (tmp_path / "report.txt").read_text()


@pytest.mark.kernel
def test_a_stale_allowlist_entry_fails(tmp_path):
    src = write_book(tmp_path / "src", {"index.qmd": CHAPTER})
    allow = tmp_path / "allow.toml"
    allow.write_text('[[mutant]]\nid = "constant:GPU_MTTF_HOURS:neg"\nreason = "wrongly thought harmless"\n')
    code, _stdout, summary = mutate(src, tmp_path, "--allowlist", str(allow), "--sample", "1",
                                    "--only", r"^constant:GPU_MTTF_HOURS:neg$",
                                    "--report", str(tmp_path / "report.txt"))
    assert summary["stale"] == ["constant:GPU_MTTF_HOURS:neg"]
    assert code == 1


GUARDLESS = """\
# Only {#sec-only}

```{python}
from mlsys import calc_availability_serial, calc_chain_success, check
p = calc_chain_success(0.9, 10)
check(p < 0.5, "ten 90 % steps should fail more often than not")
a = calc_availability_serial(0.999, 100)
check(0 <= a < 1, "an availability lies in [0, 1)")
shown = f"{p:.3f} and {a:.3f}"
```

Success: `{python} shown`.
"""


@pytest.mark.kernel
def test_a_sign_mutant_noticed_only_by_the_ledger_is_unclaimed(tmp_path):
    """A negated probability that no claim rejects moves a number, and that is not enough."""
    src = write_book(tmp_path / "src", {"index.qmd": GUARDLESS})
    allow = tmp_path / "allow.toml"
    allow.write_text('[[ledger_only]]\nid = "formula:calc_availability_serial:neg"\nreason = "r"\n')
    code, stdout, summary = mutate(
        src, tmp_path, "--allowlist", str(allow), "--sample", "1",
        "--only", r"^formula:calc_(chain_success|availability_serial):(neg|x10|x0\.1)$",
        "--report", str(tmp_path / "report.txt"))
    assert summary["verdicts"] == {
        "formula:calc_availability_serial:x0.1": "ledger",    # not a sign or range mutant
        "formula:calc_availability_serial:x10": "invariant",  # 9.05 >= 1
        "formula:calc_availability_serial:neg": "invariant",  # < 0
        "formula:calc_chain_success:x0.1": "ledger",
        "formula:calc_chain_success:x10": "invariant",        # 3.49 > 0.5
        "formula:calc_chain_success:neg": "ledger",           # -0.349 < 0.5: the claim still holds
    }
    assert sorted(summary["sign_or_range"]) == sorted(
        f"formula:calc_{f}:{op}" for f in ("chain_success", "availability_serial")
        for op in ("neg", "x10"))
    assert summary["unclaimed"] == ["formula:calc_chain_success:neg"]
    assert summary["stale_ledger_only"] == ["formula:calc_availability_serial:neg"]
    assert summary["kill_rate"] == 1.0 and summary["claim_rate"] == pytest.approx(3 / 6)
    assert code == 1
    report = (tmp_path / "report.txt").read_text()
    assert "UNCLAIMED sign/range mutant formula:calc_chain_success:neg" in report
    assert "STALE ledger_only entry formula:calc_availability_serial:neg" in report
    assert "killed by a claim or an error: 50.0% (3 of 6)" in report
    assert "noticed by the ledger only:    50.0% (3 of 6;" in report

    # a reviewed [[ledger_only]] reason accepts it
    allow.write_text('[[ledger_only]]\nid = "formula:calc_chain_success:neg"\nreason = "r"\n')
    code, _stdout, summary = mutate(src, tmp_path, "--allowlist", str(allow), "--sample", "1",
                                    "--only", r"^formula:calc_chain_success:neg$", "--seed", "3",
                                    "--report", str(tmp_path / "report.txt"))
    assert (summary["unclaimed"], summary["stale_ledger_only"], summary["seed"]) == ([], [], 3)
    assert code == 0


def test_the_sample_seed_is_fixed_unless_overridden(monkeypatch):
    from booktools.mutation.cli import DEFAULT_SEED, default_seed
    monkeypatch.delenv("MUTATION_SEED", raising=False)
    assert default_seed() == DEFAULT_SEED == 17
    monkeypatch.setenv("MUTATION_SEED", "99")
    assert default_seed() == 99
