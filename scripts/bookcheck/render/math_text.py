"""A MathML formula as one line of plain text, for search excerpts (search.py).

The text of a `<math>` element's tokens run together loses its structure
("τopt=2δM" for τ_opt = √(2δM)) and, joined with spaces, its words
("M c l u s t e r"). `linear(tree)` writes the formula as a reader would
type it: tokens without gaps inside a name, spaces around relations and
binary operators, subscripts and superscripts as Unicode sub/superscripts
when every character has one (x², Mᵢ) and as `_x` / `^(x + 1)` otherwise,
`a/b` for a fraction, `√(x)` for a root. The TeX `<annotation>` is left out.

A tree is `(tag, [children])`, a child being a tree or a text string, as
search.py's parser builds it from pandoc's MathML.
"""
from __future__ import annotations

Tree = tuple  # (tag: str, children: list[Tree | str])

SPACED = set("=<>≤≥≈≠∼≃≡→←↔⇒+−-×·±∓∈∉⊂⊆∪∩∧∨") | {"∝"}
SUB = str.maketrans("0123456789+−-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
SUP = str.maketrans("0123456789+−-=()abcdefghijklmnoprstuvwxyz*′",
                    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ*′")
SUB_CHARS = set("0123456789+−-=()aehijklmnoprstuvx")
SUP_CHARS = set("0123456789+−-=()abcdefghijklmnoprstuvwxyz*′")
BIG = set("∑∏∫∮⋃⋂")                                # a big operator: a space after its limits
TOKENS = {"mi", "mn", "mtext", "ms"}
IGNORED = {"annotation", "annotation-xml"}


def _grouped(text: str, always: bool = False) -> str:
    """`text` in parentheses when it holds a space or an operator (or, with
    `always`, more than one symbol): `n/MTTF`, `(10⁹ h)/FIT`, `√(2δM)`."""
    if text.startswith("(") and text.endswith(")"):
        return text
    compound = any(ch.isspace() or ch in SPACED or ch == "/" for ch in text)
    return f"({text})" if compound or (always and len(text) > 1) else text


def _script(base: str, script: str, chars: set, table: dict, mark: str) -> str:
    if script and set(script) <= chars:
        return base + script.translate(table)
    return f"{base}{mark}{_grouped(script)}" if script else base


def linear(tree) -> str:
    """One line of text for a MathML (sub)tree."""
    if isinstance(tree, str):
        return tree.strip()
    tag, children = tree
    if tag in IGNORED:
        return ""
    parts = [linear(c) for c in children if not (isinstance(c, tuple) and c[0] in IGNORED)]
    if tag in TOKENS:
        return "".join(parts)
    if tag == "mo":
        op = "".join(parts)
        return f" {op} " if op in SPACED else op.replace("\u2061", "")   # function application
    if tag == "mspace":
        return " "
    elements = [p for c, p in zip([c for c in children if not (isinstance(c, tuple) and c[0] in IGNORED)], parts)
                if isinstance(c, tuple)]
    if tag in ("msub", "munder") and len(elements) == 2:
        low = _script(elements[0], elements[1].replace(" ", ""), SUB_CHARS, SUB, "_")
        return low + " " if elements[0].strip() in BIG else low
    if tag in ("msup", "mover") and len(elements) == 2:
        return _script(elements[0], elements[1].replace(" ", ""), SUP_CHARS, SUP, "^")
    if tag in ("msubsup", "munderover") and len(elements) == 3:
        low = _script(elements[0], elements[1].replace(" ", ""), SUB_CHARS, SUB, "_")
        both = _script(low, elements[2].replace(" ", ""), SUP_CHARS, SUP, "^")
        return both + " " if elements[0].strip() in BIG else both
    if tag == "mfrac" and len(elements) == 2:
        return f"{_grouped(elements[0].strip())}/{_grouped(elements[1].strip())}"
    if tag == "msqrt":
        return "√" + _grouped("".join(parts).strip(), always=True)
    if tag == "mroot" and len(elements) == 2:
        return elements[1].translate(SUP) + "√" + _grouped(elements[0].strip(), always=True)
    if tag in ("mtr", "mlabeledtr"):
        return " ".join(p for p in parts if p)
    if tag == "mtable":
        return "; ".join(p for p in parts if p)
    text = "".join(parts)
    return " ".join(text.split()) if tag == "math" else text
