"""Display helpers: numbers, percentages, durations, Markdown, and check()."""

import math

import numpy as np
import pandas as pd
import pint
import pytest

from mlsys.constants import Q_
from mlsys.formatting import (
    MAX_FIGURES, InvariantError, check, fmt, fmt_duration, fmt_percent, md_math, md_table, sci,
)
from mlsys.precision import stated_figures

# ---------------------------------------------------------------------------- fmt


@pytest.mark.parametrize("value, kwargs, expected", [
    (50_000, {"precision": 0}, "50,000"),
    (5172.4138, {"figures": 3}, "5,170"),
    (517.24138, {"precision": 0}, "517"), (51.724138, {}, "51.7"),
    (4.137931, {"precision": 2}, "4.14"),
    (12345.67, {"figures": 3, "commas": False}, "12300"),
    (-2.25, {"precision": 1}, "-2.2"),  # round half to even, as Python does
    (0, {"precision": 2}, "0.00"),
    (0.0, {}, "0.0"),
    (np.float64(15.2225), {"precision": 1}, "15.2"),
    (np.int64(1250), {"precision": 0}, "1,250"),
    (0.04, {"precision": 1, "allow_zero": True}, "0.0"),
    (-0.04, {"precision": 1, "allow_zero": True}, "0.0"),
])
def test_fmt(value, kwargs, expected):
    assert fmt(value, **kwargs) == expected


# ------------------------------------------------------ the precision rule of fmt

@pytest.mark.parametrize("value, figures, expected", [
    (161.63793, 2, "160"), (161.63793, 3, "162"),       # a cluster MTBF from 1-2 figure inputs
    (58.0, 2, "58"), (0.1547, 2, "0.15"), (1.1878, 2, "1.2"),   # failures per day, not "58.00"
    (2.0000000000000004, 1, "2"), (6.0, 1, "6"),        # nines, not "2.0"
    (99.96, 3, "100"), (0.0009996, 3, "0.00100"),       # rounding up a decade keeps the figures
    (-4.749, 2, "-4.7"), (0.0, 2, "0"), (4.137931, 3, "4.14"),
    (1_234_567, 2, "1,200,000"), (175e9, 3, "175,000,000,000"),
])
def test_fmt_figures_rounds_to_significant_figures(value, figures, expected):
    assert fmt(value, figures=figures) == expected


def test_fmt_figures_converts_quantities_and_refuses_bad_requests():
    assert fmt(Q_(161.63793, "hour"), "hour", figures=3) == "162"
    assert fmt(Q_(161.63793, "hour"), "day", figures=2) == "6.7"
    with pytest.raises(ValueError, match="not both"):
        fmt(1.5, precision=1, figures=2)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="figures must be a positive integer"):
            fmt(1.5, figures=bad)


def test_a_float_never_shows_more_figures_than_it_carries():
    with pytest.raises(ValueError, match=r"4 significant figures, more than MAX_FIGURES = 3"):
        fmt(161.6379, precision=1)
    assert fmt(161.6379, precision=0) == "162"             # three figures: allowed
    with pytest.raises(ValueError, match=r"5,172, 4 significant figures.*figures=MAX_FIGURES"):
        fmt(5172.41, precision=0)                           # the node MTBF is not known to the hour
    with pytest.raises(ValueError, match=r"more than MAX_FIGURES .* use sci\(\)"):
        fmt(1e300)                                          # not 300 float-artefact digits
    assert fmt(175e9, precision=0) == "175,000,000,000"      # trailing zeros are not figures
    assert fmt(10**30, precision=0) == f"{10**30:,}"         # an int is exact: exempt
    assert fmt(5172, precision=0) == "5,172"                 # an exact count too


@pytest.mark.parametrize("value, figures", [
    (0.0101, 3), (0.587, 3), (12.6, 3), (0.009, 1), (0.1, 1), (175e9, 3), (405e9, 3),
    (1.75e20, 3), (50_000, 1), (150_000, 2), (466, 3), (16_384, 5), (0, 1), (0.0, 1),
])
def test_stated_figures_reads_the_declared_precision(value, figures):
    assert stated_figures(value) == figures


def test_max_figures_is_the_most_any_stated_input_carries(monkeypatch):
    """MAX_FIGURES is derived from the constants, not chosen: 3 today (0.0101, 0.587, 12.6);
    a constant stated to four figures would raise it."""
    from mlsys import constants, precision
    floats = [c.value for c in constants.list_constants() if isinstance(c.value, float)]
    assert MAX_FIGURES == max(map(stated_figures, floats)) == 3
    registry = constants.list_constants()
    extra = registry[0]._replace(name="FOUR_FIGURES", value=0.1234)
    monkeypatch.setattr(precision, "list_constants", lambda: [*registry, extra])
    assert precision.input_figures() == 4


def test_sci_shows_no_more_figures_than_the_inputs_support():
    assert sci(1.75e11, precision=2) == "1.75 × 10¹¹"
    with pytest.raises(ValueError, match=r"4 significant figures, more than MAX_FIGURES = 3"):
        sci(1.7512e11, precision=3)
    assert sci(17_512_000_000, precision=4) == "1.7512 × 10¹⁰"     # an int is exact: exempt


def test_fmt_percent_counts_the_figures_of_the_complement_above_half():
    assert fmt_percent(0.9999, precision=2) == "99.99%"      # 0.01 % unavailable: one figure
    assert fmt_percent(0.35322, precision=1) == "35.3%"
    with pytest.raises(ValueError, match=r"35.32%, 4 significant figures"):
        fmt_percent(0.35322, precision=2)
    with pytest.raises(ValueError, match=r"98.765%, 4 significant figures"):
        fmt_percent(0.98765, precision=3)                   # complement 1.235 %: four figures
    assert fmt_percent(1.0) == "100.0%"


def test_negative_zero_prints_as_zero():
    assert fmt(-0.0) == "0.0" and fmt(-0.0, precision=0) == "0"
    assert fmt(-0.0, figures=2) == "0"


def test_fmt_converts_quantities():
    assert fmt(Q_(2, "hour"), unit="minute", precision=0) == "120"
    assert fmt(Q_(2800e9, "byte"), unit="GB", precision=0) == "2,800"
    assert fmt(Q_(0.5, "dimensionless")) == "0.5"


@pytest.mark.parametrize("value", [0.04, 1e-9, -0.004])
def test_fmt_refuses_to_print_nonzero_as_zero(value):
    with pytest.raises(ValueError, match="would print as 0"):
        fmt(value, precision=1)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.nan])
def test_fmt_refuses_nan_and_inf(value):
    with pytest.raises(ValueError, match="finite"):
        fmt(value)


def test_fmt_rejects_ambiguous_input():
    with pytest.raises(ValueError, match="unit="):
        fmt(Q_(3, "hour"))
    with pytest.raises(ValueError, match="Quantities only"):
        fmt(3.0, unit="hour")
    with pytest.raises(ValueError, match="precision"):
        fmt(3.0, precision=-1)
    with pytest.raises(TypeError):
        fmt("3.0")
    with pytest.raises(TypeError):
        fmt(True)


# ------------------------------------------------------------------ fmt_percent


@pytest.mark.parametrize("ratio, kwargs, expected", [
    (0.587, {}, "58.7%"),
    (0.9999, {"precision": 2}, "99.99%"),
    (0.03, {"precision": 0}, "3%"),
    (1.0, {}, "100.0%"),
    (0.0, {}, "0.0%"),
    (7.4, {"precision": 0}, "740%"),
    (0.99999, {"bounded": True}, "> 99.9%"),
    (1e-5, {"bounded": True}, "< 0.1%"),
    (1.0, {"bounded": True}, "> 99.9%"),  # a probability saturated to 1 by floating point
    (0.5, {"bounded": True}, "50.0%"),
])
def test_fmt_percent(ratio, kwargs, expected):
    assert fmt_percent(ratio, **kwargs) == expected


def test_fmt_percent_guards():
    for outside in (1.2, -0.01, 1 + 1e-12):
        with pytest.raises(ValueError, match="declared bounded .* outside \\[0, 1\\]"):
            fmt_percent(outside, bounded=True)              # not "120.0%"
    assert fmt_percent(1.2, precision=0) == "120%"           # a ratio may exceed 1 when not bounded
    with pytest.raises(ValueError, match="0%"):
        fmt_percent(1e-5)
    with pytest.raises(ValueError, match="100%"):
        fmt_percent(0.99999)
    with pytest.raises(ValueError):
        fmt_percent(math.nan)


# ----------------------------------------------------------------- fmt_duration


@pytest.mark.parametrize("quantity, expected", [
    (Q_(1, "second"), "1 second"),
    (Q_(45, "second"), "45 seconds"),
    (Q_(28.04, "second"), "28 seconds"),
    (Q_(0, "second"), "0 seconds"),
    (Q_(60, "second"), "1 minute"),
    (Q_(59.97, "second"), "1 minute"),  # rounds up into the next unit
    (Q_(2, "minute"), "2 minutes"),
    (Q_(52.6, "minute"), "52.6 minutes"),
    (Q_(913.4, "second"), "15.2 minutes"),
    (Q_(1, "hour"), "1 hour"),
    (Q_(4.1379, "hour"), "4.1 hours"),
    (Q_(24, "hour"), "1 day"),
    (Q_(517.24, "hour"), "21.6 days"),
    (Q_(30, "day"), "30 days"),
    (Q_(1.04, "minute"), "1 minute"),
])
def test_fmt_duration_units_and_plurals(quantity, expected):
    assert fmt_duration(quantity) == expected


def test_fmt_duration_precision_and_guards():
    assert fmt_duration(Q_(5.263, "minute"), precision=2) == "5.26 minutes"
    assert fmt_duration(Q_(3000, "day"), precision=0) == "3,000 days"
    with pytest.raises(TypeError):
        fmt_duration(90)
    with pytest.raises(ValueError):
        fmt_duration(Q_(-5, "second"))
    with pytest.raises(ValueError):
        fmt_duration(Q_(0.01, "second"))  # would print as 0
    with pytest.raises(pint.DimensionalityError):
        fmt_duration(Q_(5, "GB"))


# -------------------------------------------------------------------------- sci


@pytest.mark.parametrize("value, kwargs, expected", [
    (1.75e11, {}, "1.75 × 10¹¹"),
    (2.8e12, {"precision": 1}, "2.8 × 10¹²"),
    (-0.00123, {"precision": 1}, "-1.2 × 10⁻³"),
    (1e9, {}, "1.00 × 10⁹"),
    (0, {}, "0"),
])
def test_sci(value, kwargs, expected):
    assert sci(value, **kwargs) == expected


def test_sci_refuses_nan():
    with pytest.raises(ValueError):
        sci(math.inf)


# --------------------------------------------------------------------- Markdown


def test_md_math():
    out = md_math(r"\tau^* = \sqrt{2 \delta M}")
    assert type(out).__name__ == "Markdown"
    assert out.data == r"$\tau^* = \sqrt{2 \delta M}$"
    assert md_math("$x$").data == "$x$"
    with pytest.raises(ValueError):
        md_math("  ")


def test_md_table_from_dicts_aligns_numbers_right():
    rows = [{"GPUs": "256", "MTBF": "161.6 hours", "per day": "0.1"},
            {"GPUs": "100,000", "MTBF": "25 minutes", "per day": "58.0"}]
    out = md_table(rows)
    assert type(out).__name__ == "Markdown"
    lines = out.data.splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")] == ["GPUs", "MTBF", "per day"]
    separators = [c.strip() for c in lines[1].strip("|").split("|")]
    assert separators[0].endswith(":") and separators[2].endswith(":")
    assert separators[1].startswith(":") and not separators[1].endswith(":")
    assert "100,000" in lines[3] and len(lines) == 4


def test_md_table_from_dataframe_and_rows():
    frame = pd.DataFrame({"k": [1, 2, 3], "availability": ["99.00%", "99.99%", "99.9999%"]})
    text = md_table(frame).data
    assert "99.9999%" in text and len(text.splitlines()) == 5
    assert text.splitlines()[0].startswith("|")
    rows_text = md_table([["GPU", 20_000], ["NIC", 6_666]], headers=["part", "FIT"]).data
    assert "20,000" in rows_text
    indexed = md_table(frame.set_index("k"), index=True).data
    assert indexed.splitlines()[0].split("|")[1].strip() == "k"


def test_md_table_options_and_guards():
    text = md_table([["a|b", 2.5]], headers=["x", "y"], precision=2, align=["center", "left"]).data
    assert r"a\|b" in text and "2.50" in text
    assert text.splitlines()[1].replace("-", "").replace("|", "").strip() == ":::"
    with pytest.raises(ValueError, match="raw float"):
        md_table([["a", 2.5]], headers=["x", "y"])
    with pytest.raises(ValueError, match="headers"):
        md_table([["a", "b"]])
    with pytest.raises(ValueError, match="cells"):
        md_table([["a", "b"]], headers=["x"])
    with pytest.raises(ValueError, match="align"):
        md_table([["a", "b"]], headers=["x", "y"], align=["left"])


# ------------------------------------------------------------------------ check


def test_check_passes_and_raises_invariant_error():
    check(True, "fine")
    check(np.float64(1.0) < 2, "numpy bools are fine")
    with pytest.raises(InvariantError, match="MTBF should be < 5 hours"):
        check(4.2 > 5.0, "MTBF should be < 5 hours")
    assert issubclass(InvariantError, ValueError)


def test_check_refuses_non_bool_conditions():
    with pytest.raises(TypeError):
        check(0.5, "a number is not a condition")
    with pytest.raises(TypeError):
        check(np.array([True, False]), "an array is not a condition")


def test_fmt_takes_the_unit_as_a_pint_unit_or_as_text():
    """Chapters pass `hour` (a pint Unit) as often as "hour"; both convert alike."""
    from mlsys.constants import hour
    assert fmt(Q_(90, "minute"), hour) == fmt(Q_(90, "minute"), "hour") == "1.5"
