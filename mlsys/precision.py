"""The precision rule: how many significant figures a displayed number may show.

Layer 3 of ``mlsys``, beside ``formatting`` (which applies it). A number computed from
the book's inputs is known to no more figures than its most precise input, so a float
is never displayed with more than :data:`MAX_FIGURES` significant figures, derived
here from how the constants are declared in :mod:`mlsys.constants`
(:func:`stated_figures`: 0.0101, 0.587 and 12.6 are stated to 3 figures, 50_000 to 1).
Integers are counts, exact, and exempt. A percentage above 50 % counts the figures of
its complement ("99.99%" states an unavailability of 0.01 %, one figure).
"""

from __future__ import annotations

import math
import numbers

from mlsys.constants import list_constants

__all__ = ["MAX_FIGURES", "stated_figures", "input_figures", "figures_shown",
           "check_percent_figures"]


def stated_figures(value) -> int:
    """Significant figures a constant is stated to, read from its declared value:
    0.0101 -> 3, 0.587 -> 3, 12.6 -> 3, 175e9 -> 3, 50_000 -> 1 (an integer's trailing
    zeros are not figures: "50,000 hours" is a round estimate, not a count to the hour)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"stated_figures needs a finite number, got {value!r}")
    number = int(value) if isinstance(value, numbers.Integral) else float(value)
    if number == 0:
        return 1
    if isinstance(number, int):
        return len(str(abs(number)).strip("0"))
    digits = repr(abs(number))
    if "e" in digits:                                   # 1.75e+20: the mantissa's figures
        digits = digits.split("e")[0]
    if digits.endswith(".0"):
        digits = digits[:-2].rstrip("0") or "0"
    return len(digits.replace(".", "").lstrip("0"))


def input_figures() -> int:
    """The most significant figures any measured or assumed input of the book carries:
    the maximum of :func:`stated_figures` over the constants stated as floats (the
    integers are counts, exact, or round estimates with fewer figures). No result
    computed from these inputs is known to more figures than its most precise input."""
    return max(stated_figures(c.value) for c in list_constants() if isinstance(c.value, float))


#: Most significant figures a float is ever displayed with (fmt, fmt_percent, md_table):
#: the most any stated input carries (:func:`input_figures`, 3 for 0.0101, 0.587, 12.6),
#: so no display shows more figures than the book's inputs support. Integers are exact
#: and exempt; a percentage near 100 % counts the figures of its complement (99.99 % is
#: an unavailability of 0.01 %, one figure).
MAX_FIGURES = input_figures()


def figures_shown(text: str) -> int:
    """Significant figures in a fixed-point text: its digits after any leading zeros,
    less an integer's trailing zeros ("14,000" has 2, "100.0" has 4, "161.64" 5)."""
    digits = text.replace(",", "").replace("-", "")
    if "." in digits:
        return len(digits.replace(".", "").lstrip("0"))
    return len(digits.strip("0"))


def check_percent_figures(ratio: float, text: str) -> None:
    """Refuse a percentage with more than MAX_FIGURES significant figures. Above 50 %
    the figures counted are those of the complement (100 - shown): "99.99%" states an
    unavailability of 0.01 %, one figure; "35.32%" has four and is refused."""
    shown = float(text.replace(",", ""))
    counted = text
    if 50 < shown <= 100:
        decimals = len(text.split(".")[1]) if "." in text else 0
        counted = f"{100 - shown:.{decimals}f}"
    if figures_shown(counted) > MAX_FIGURES:
        raise ValueError(
            f"ratio {ratio!r} would print as {text}%, {figures_shown(counted)} significant figures, "
            f"more than MAX_FIGURES = {MAX_FIGURES} the book's inputs support; lower the precision")
