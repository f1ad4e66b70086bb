"""Quarto 1.7.34's cross-reference kinds, the one table: a label's prefix (`fig` of
`#fig-x` and `@fig-x`) -> what Quarto does with it. Every other list of kinds is made
from it: the labels and references the checker reads (read/labels.py), the names the
renderer numbers with (render/numbering.py), the numbers the audit knows for the
renderer's (verify/audit_tokens.py), and the Lua filters' tables (theorems.lua,
callouts.lua, crossref.lua read `kinds` from the context render/book.py writes).

Quarto's categories (src/resources/filters/mainstateinit.lua: floats, callouts, proofs;
customnodes/theorem.lua: theorems; sections and equations in crossref/): each kind is
numbered per chapter ("Figure 1.1", "Solution 1.2"). `prf`, `rem` and `sol` are
Quarto's proof kinds: a `::: {#sol-x}` div is numbered, classed `proof solution` and
titled "*Solution 1.1*." (tests/render/test_crossref_kinds.py records Quarto's page).
Any other prefix is no kind: `::: {#alg-x}` is a plain div and `@alg-x` a citation.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

GROUPS = ("section", "float", "equation", "callout", "theorem", "proof")


@dataclass(frozen=True)
class CrossrefKind:
    name: str       # what a reference reads before the number: "Figure" of "Figure 1.1"
    group: str      # one of GROUPS: how a label of the kind is defined and shown
    env: str = ""   # a theorem's or proof's environment (its div's class), a callout's type


KINDS = {
    "sec": CrossrefKind("Section", "section"),
    "fig": CrossrefKind("Figure", "float"),
    "tbl": CrossrefKind("Table", "float"),
    "lst": CrossrefKind("Listing", "float"),
    "eq": CrossrefKind("Equation", "equation"),
    # callouts (`::: {#nte-x .callout-note}`): a label of these is defined only on a callout
    "nte": CrossrefKind("Note", "callout", "note"),
    "tip": CrossrefKind("Tip", "callout", "tip"),
    "wrn": CrossrefKind("Warning", "callout", "warning"),
    "imp": CrossrefKind("Important", "callout", "important"),
    "cau": CrossrefKind("Caution", "callout", "caution"),
    # theorem-like divs: "**Theorem 1.1 (Name)**"
    "thm": CrossrefKind("Theorem", "theorem", "theorem"),
    "lem": CrossrefKind("Lemma", "theorem", "lemma"),
    "cor": CrossrefKind("Corollary", "theorem", "corollary"),
    "prp": CrossrefKind("Proposition", "theorem", "proposition"),
    "cnj": CrossrefKind("Conjecture", "theorem", "conjecture"),
    "def": CrossrefKind("Definition", "theorem", "definition"),
    "exm": CrossrefKind("Example", "theorem", "example"),
    "exr": CrossrefKind("Exercise", "theorem", "exercise"),
    # proofs: "*Proof 1.1* (Name). "
    "prf": CrossrefKind("Proof", "proof", "proof"),
    "rem": CrossrefKind("Remark", "proof", "remark"),
    "sol": CrossrefKind("Solution", "proof", "solution"),
}

PREFIXES = tuple(KINDS)
NAMES = {prefix: kind.name for prefix, kind in KINDS.items()}


def prefixes(*groups: str) -> tuple[str, ...]:
    """The prefixes of the kinds in `groups`."""
    return tuple(p for p, kind in KINDS.items() if kind.group in groups)


def for_filters() -> dict:
    """The table as the Lua filters read it (the context's `kinds`)."""
    return {prefix: asdict(kind) for prefix, kind in KINDS.items()}
