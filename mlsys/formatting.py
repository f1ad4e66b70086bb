"""Display helpers: numbers to strings, Markdown objects, and the invariant guard.

Layer 3 of ``mlsys``. Nothing here computes science: these functions only convert
units for display, round, and lay out text. pandas, tabulate and IPython are
imported lazily, inside the functions that need them.

Every formatter refuses values that would mislead a reader: NaN or infinity, a
non-zero value that would print as zero at the requested precision, and a float
shown with more significant figures than it can carry.

The precision rule: a displayed number shows the figures its inputs support, not
the float's. ``fmt(x, figures=2)`` rounds to significant figures (161.64 → "160",
58.0 → "58", 2.0 → "2" at ``figures=1``), the form for a value computed from
inputs stated to one or two figures; ``precision=`` (decimals) remains for values
whose decimals are the point (a pinned "4.14"). Whatever is asked, a float never
shows more than :data:`MAX_FIGURES` significant figures, the most any of the book's
stated inputs carries (read from the declared constants by :func:`stated_figures`:
3, for 0.0101, 0.587 and 12.6), so no display claims more precision than its
inputs: no "161.64" hours, no "5,172" hours from 50,000-hour estimates, and no 300
float-artefact digits of ``fmt(1e300)``, which is an error pointing to ``sci``.
A percentage above 50 % counts the figures of its complement ("99.99%" is one
figure of unavailability). Integers are exact (counts) and exempt.
"""

from __future__ import annotations

import math
import numbers
import re
import sys

import pint

from mlsys.constants import ureg
from mlsys.precision import MAX_FIGURES, figures_shown as _figures_shown
from mlsys.precision import check_percent_figures as _check_percent_figures
from mlsys.units import DimensionalityError

__all__ = [
    "InvariantError", "check", "fmt", "fmt_percent", "fmt_duration", "sci",
    "md_math", "md_table", "MAX_FIGURES",
]


class InvariantError(ValueError):
    """A claim the text makes about a computed number does not hold."""


def check(condition, message: str) -> None:
    """Raise :class:`InvariantError` with ``message`` when ``condition`` is false.

    ``condition`` must be a bool (Python or NumPy); anything else is a TypeError,
    so that ``check(value, ...)`` cannot silently test a number's truthiness.
    """
    is_numpy_bool = getattr(condition, "dtype", None) is not None and condition.dtype.kind == "b"
    if not isinstance(condition, bool) and not (is_numpy_bool and condition.shape == ()):
        raise TypeError(f"check() needs a bool condition, got {type(condition).__name__}")
    if not condition:
        raise InvariantError(message + _explained(sys._getframe(1)))


def _explained(frame) -> str:
    """`` (`node_mtbf > 5000` was `4,286 hour > 5000`)``: the failing condition's
    names, attributes and arithmetic on them re-evaluated in the caller, as pytest
    shows an assert; "" when the source is not available or shows nothing more.
    Calls are never re-run (they may have side effects): they stay as written."""
    import ast
    import linecache
    try:
        tree = ast.parse("".join(linecache.getlines(frame.f_code.co_filename)))
        call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args
                    and getattr(n.func, "id", getattr(n.func, "attr", "")) == "check"
                    and n.lineno <= frame.f_lineno <= n.end_lineno)
    except (SyntaxError, ValueError, StopIteration, TypeError):
        return ""
    condition = call.args[0]

    def shown(node) -> str:
        if isinstance(node, ast.Compare):
            parts = [shown(node.left)]
            for op, right in zip(node.ops, node.comparators):
                parts += [ast.unparse(ast.Compare(ast.Constant(0), [op], [ast.Constant(0)]))[2:-2],
                          shown(right)]
            return " ".join(parts)
        if isinstance(node, ast.BoolOp):
            return f" {'and' if isinstance(node.op, ast.And) else 'or'} ".join(
                shown(v) for v in node.values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return f"not {shown(node.operand)}"
        kinds = {type(n) for n in ast.walk(node)}
        if ast.Name not in kinds or kinds & {ast.Call, ast.NamedExpr, ast.Lambda, ast.Await,
                                             ast.Yield, ast.ListComp, ast.GeneratorExp}:
            return ast.unparse(node)
        try:
            value = eval(compile(ast.Expression(node), "<check>", "eval"),
                         frame.f_globals, frame.f_locals)
        except Exception:
            return ast.unparse(node)
        return _value_text(value)

    written, values = ast.unparse(condition), shown(condition)
    return "" if values == written else f" (`{written}` was `{values}`)"


def _value_text(value) -> str:
    """A value as a failing check shows it: 4 significant digits, thousands separated."""
    if isinstance(value, pint.Quantity):
        return f"{_value_text(value.magnitude)} {value.units}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    return f"{float(value):,.4g}"


# ---------------------------------------------------------------------- numbers


def _finite_number(value, name: str = "value") -> float | int:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if isinstance(value, numbers.Integral):
        return int(value)
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"refusing to format {value}: {name} must be finite")
    return value


def _check_precision(precision) -> int:
    if isinstance(precision, bool) or not isinstance(precision, numbers.Integral) or precision < 0:
        raise ValueError(f"precision must be a non-negative integer, got {precision!r}")
    return int(precision)


def _fixed(value, precision: int, commas: bool, allow_zero: bool) -> str:
    """Fixed-point text of ``value``; refuses a non-zero value that rounds to zero and
    a float shown with more than MAX_FIGURES significant figures; never prints "-0"."""
    if isinstance(value, int):   # exact: never through a float (f"{10**30:.0f}" has artefacts)
        text = f"{value:{',' if commas else ''}}" + ("." + "0" * precision if precision else "")
    else:
        text = f"{value:{',' if commas else ''}.{precision}f}"
    if isinstance(value, float) and _figures_shown(text) > MAX_FIGURES:
        hint = ("use sci() for a number this large" if abs(value) >= 1e6
                else "lower the precision or pass figures=MAX_FIGURES")
        raise ValueError(
            f"{value!r} would print as {text[:40]}{'…' if len(text) > 40 else ''}, "
            f"{_figures_shown(text)} significant figures, more than MAX_FIGURES = {MAX_FIGURES} "
            f"the book's inputs support; {hint}")
    if float(text.replace(",", "")) == 0:
        if value != 0 and not allow_zero:
            raise ValueError(
                f"{value!r} would print as {text.lstrip('-')} at precision {precision}; "
                "raise the precision or pass allow_zero=True"
            )
        text = text.lstrip("-")  # never print "-0.0", also for fmt(-0.0)
    return text


def _decimals_for(value: float, figures) -> int:
    """Decimals that show ``value`` to ``figures`` significant figures (negative: round
    to tens, hundreds …); 0 for zero."""
    if isinstance(figures, bool) or not isinstance(figures, numbers.Integral) or figures < 1:
        raise ValueError(f"figures must be a positive integer, got {figures!r}")
    if value == 0:
        return 0
    decimals = int(figures) - 1 - math.floor(math.log10(abs(value)))
    if round(abs(value), decimals) >= 10.0 ** (figures - decimals):   # 99.96 -> 100.0
        decimals -= 1
    return decimals


def _significant(value, figures, commas: bool) -> str:
    """``value`` to ``figures`` significant figures: 161.64 -> "160", 0.1547 -> "0.15"."""
    decimals = _decimals_for(float(value), figures)
    if decimals >= 0:
        return _fixed(float(round(value, decimals)), decimals, commas, allow_zero=False)
    rounded = int(round(value, decimals))
    return f"{rounded:,}" if commas else str(rounded)


def fmt(value, unit=None, precision: int | None = None, commas: bool = True,
        allow_zero: bool = False, figures: int | None = None) -> str:
    """The number alone as text: ``fmt(5172.41, precision=0)`` gives ``"5,172"``.

    ``precision`` is the number of decimals (default 1); ``figures`` instead the
    number of significant figures (``fmt(161.64, figures=2)`` gives ``"160"``),
    the precision rule of this module; give one or neither. A Quantity is
    converted to ``unit`` first (``unit`` is required for a dimensioned Quantity,
    since the text carries no unit). Raises ``ValueError`` for NaN or infinity,
    when a non-zero value would print as 0 (unless ``allow_zero``), and when a
    float would show more than :data:`MAX_FIGURES` significant figures.
    """
    if figures is not None and precision is not None:
        raise ValueError("give precision= (decimals) or figures= (significant figures), not both")
    p = _check_precision(1 if precision is None else precision)
    if isinstance(value, pint.Quantity):
        if unit is None and not value.dimensionless:
            raise ValueError(
                f"value is a Quantity in {value.units}; pass unit= to choose the unit to print"
            )
        value = _in(value, unit or "dimensionless", "fmt", f"a Quantity in {unit or 'dimensionless'}")
    elif unit is not None:
        raise ValueError(
            f"unit= applies to Quantities only; this value is a plain number ({value!r}): "
            f"drop unit= to print it as it is, or attach its unit first, e.g. "
            f"fmt(x * ureg({str(unit)!r}), {str(unit)!r})"
        )
    number = _finite_number(value)
    if figures is not None:
        return _significant(number, figures, commas)
    return _fixed(number, p, commas, allow_zero)


def fmt_percent(ratio, precision: int = 1, bounded: bool = False) -> str:
    """A ratio as a percentage: ``fmt_percent(0.587)`` gives ``"58.7%"``.

    Refuses NaN/infinity, a non-zero ratio that would print as 0%, and a ratio
    other than 1 that would print as 100%. ``bounded=True`` declares the ratio
    to lie strictly between 0 and 1 (a probability such as 1 - e^(-x), which
    floating point may saturate to exactly 0 or 1): values that would print as
    0% or 100% are shown as ``"< 0.1%"`` or ``"> 99.9%"`` (at precision 1).
    """
    p = _check_precision(precision)
    if isinstance(ratio, pint.Quantity):
        ratio = _in(ratio, "dimensionless", "fmt_percent", "a dimensionless ratio")
    r = _finite_number(ratio, "ratio")
    if bounded and not 0.0 <= r <= 1.0:
        raise ValueError(f"ratio {r!r} was declared bounded (a share between 0 and 1) but lies "
                         "outside [0, 1]; drop bounded=True if it may exceed 1")
    percent = r * 100
    text = f"{percent:,.{p}f}"
    step = 10.0 ** -p
    smallest, largest = f"{step:.{p}f}", f"{100 - step:.{p}f}"
    if r != 0 and float(text.replace(",", "")) == 0:
        if bounded:
            return f"< {smallest}%" if r > 0 else f"> -{smallest}%"
        raise ValueError(f"ratio {r!r} would print as 0%; raise the precision or pass bounded=True")
    if bounded and r == 1:
        return f"> {largest}%"
    _check_percent_figures(r, text)
    if r != 1 and text == f"{100:.{p}f}":
        if bounded:
            return f"> {largest}%" if r < 1 else f"< {100 + step:.{p}f}%"
        raise ValueError(
            f"ratio {r!r} would print as 100%; raise the precision or pass bounded=True"
        )
    return f"{text}%"


def _in(quantity: pint.Quantity, unit, function: str, what: str) -> float:
    """`quantity`'s magnitude in `unit`, or the mlsys DimensionalityError naming `function`
    and what it expects ("fmt_duration expects a time, got 24 gigabyte ([information])"),
    as mlsys.units does for the formulas, instead of pint's conversion error."""
    expected = unit if isinstance(unit, pint.Unit) else ureg.parse_units(unit)
    if quantity.dimensionality != expected.dimensionality:
        got = "dimensionless" if quantity.dimensionless else str(quantity.dimensionality)
        raise DimensionalityError(f"{function} expects {what}, got {quantity} ({got})",
                                  quantity.units, expected, got, str(expected.dimensionality))
    return quantity.m_as(unit)


_DURATION_STEPS = (("second", 60), ("minute", 60), ("hour", 24), ("day", math.inf))


def fmt_duration(quantity, precision: int = 1) -> str:
    """A time Quantity in the largest fitting unit: ``"45 seconds"``, ``"1 minute"``,
    ``"52.6 minutes"``, ``"4.1 hours"``, ``"215.5 days"``.

    Seconds below one minute, minutes below one hour, hours below one day, days
    beyond. Rounds to ``precision`` decimals and drops a trailing ``.0``; the unit
    is singular exactly when the number prints as 1. Plain numbers are refused
    (their unit would be a guess); negative durations, NaN and infinity too.
    """
    p = _check_precision(precision)
    if not isinstance(quantity, pint.Quantity):
        raise TypeError("fmt_duration needs a time Quantity, e.g. 90 * ureg.second")
    seconds = _finite_number(_in(quantity, "second", "fmt_duration", "a time"), "duration")
    if seconds < 0:
        raise ValueError(f"duration must not be negative, got {quantity}")
    for unit, limit in _DURATION_STEPS:
        value = quantity.m_as(unit)
        if round(value, p) < limit:
            break
    text = _fixed(value, p, commas=True, allow_zero=False)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {unit if text == '1' else unit + 's'}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def sci(value, precision: int = 2) -> str:
    """Scientific notation with Unicode exponent: ``sci(1.75e11)`` gives ``"1.75 × 10¹¹"``.

    Zero prints as ``"0"``; NaN and infinity are refused, and a float's mantissa with
    more than :data:`MAX_FIGURES` significant figures (integers are exact and exempt).
    """
    p = _check_precision(precision)
    v = _finite_number(value)
    if v == 0:
        return "0"
    if isinstance(v, float) and p + 1 > MAX_FIGURES:
        raise ValueError(f"sci({v!r}, precision={p}) would show {p + 1} significant figures, "
                         f"more than MAX_FIGURES = {MAX_FIGURES} the book's inputs support")
    mantissa, exponent = f"{v:.{p}e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


# --------------------------------------------------------------------- Markdown


def md_math(latex: str):
    """An IPython ``Markdown`` object holding inline math: ``$latex$``."""
    from IPython.display import Markdown

    if not isinstance(latex, str) or not latex.strip():
        raise ValueError("latex must be a non-empty string")
    body = latex.strip()
    if body.startswith("$") and body.endswith("$"):
        body = body.strip("$").strip()
    return Markdown(f"${body}$")


_NUMERIC_TEXT = re.compile(r"^[<>~≈]?\s*[-+]?[\d,]*\.?\d+(\s*(%|×|x|[eE][-+]?\d+))?$")


def _cell_text(value, precision: int | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = str(value)
    elif isinstance(value, numbers.Integral):
        text = f"{int(value):,}"
    elif isinstance(value, numbers.Real):
        if precision is None:
            raise ValueError(
                f"md_table got the raw float {value!r}; format it with fmt() or pass precision="
            )
        text = fmt(value, precision=precision)
    else:
        text = str(value)
    return text.replace("|", r"\|").replace("\n", " ")


def md_table(data, headers=None, align=None, precision: int | None = None, index: bool = False):
    """An IPython ``Markdown`` pipe table from a DataFrame, a list of dicts or a list of rows.

    ``headers`` names the columns (required for plain rows; taken from the
    DataFrame columns or the dict keys otherwise). ``align`` is one of "left",
    "right", "center" per column; by default a column whose cells all look
    numeric ("5,172", "99.99%", "7.4×") is right-aligned, any other left-aligned.
    Strings are kept as given; ints get thousands separators; a raw float needs
    ``precision`` (it is then printed with :func:`fmt`), so no number reaches the
    page unrounded by accident. ``index=True`` keeps a DataFrame's index.
    """
    from IPython.display import Markdown
    from tabulate import tabulate

    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        frame = data.reset_index() if index else data
        columns = [str(c) for c in frame.columns] if headers is None else list(headers)
        rows = frame.itertuples(index=False, name=None)
    else:
        items = list(data)
        if items and all(isinstance(item, dict) for item in items):
            keys = list(items[0])
            columns = keys if headers is None else list(headers)
            rows = [[item.get(k) for k in keys] for item in items]
        else:
            if headers is None:
                raise ValueError("headers are required when rows are plain sequences")
            columns, rows = list(headers), items
    cells = [[_cell_text(v, precision) for v in row] for row in rows]
    if any(len(row) != len(columns) for row in cells):
        raise ValueError(f"every row must have {len(columns)} cells, one per header")
    if align is None:
        align = [
            "right" if column and all(_NUMERIC_TEXT.match(c) for c in column if c) else "left"
            for column in (list(col) for col in zip(*cells))
        ] or ["left"] * len(columns)
    elif len(align) != len(columns):
        raise ValueError(f"align must give one of left/right/center for each of {len(columns)} columns")
    table = tabulate(
        cells, headers=[str(h) for h in columns], tablefmt="pipe",
        colalign=list(align), disable_numparse=True,
    )
    return Markdown(table)
