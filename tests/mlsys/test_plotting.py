"""mlsys.plotting: one style, colour-blind-safe series, labelled axes, figures released."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from mlsys import plotting  # noqa: E402

OKABE_ITO = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000"}


def test_palette_is_okabe_ito_and_series_avoid_yellow():
    assert set(plotting.SERIES_COLORS) <= OKABE_ITO
    assert plotting.PALETTE["yellow"] not in plotting.SERIES_COLORS
    assert len(set(plotting.SERIES_COLORS)) == len(plotting.SERIES_COLORS)


def test_series_differ_in_colour_and_line_style_and_cycle():
    first = [plotting.series_style(i) for i in range(len(plotting.SERIES_COLORS))]
    assert len({s["color"] for s in first}) == len(first)
    assert len({str(s["linestyle"]) for s in first}) == len(first)   # greyscale-safe
    assert plotting.series_style(len(first)) == plotting.series_style(0)
    assert "marker" in plotting.series_style(2, marker=True)


def test_new_figure_applies_the_style():
    fig, ax = plotting.new_figure()
    try:
        assert tuple(fig.get_size_inches()) == pytest.approx(plotting.FIGSIZE)
        assert matplotlib.rcParams["axes.spines.top"] is False
        assert matplotlib.rcParams["font.size"] >= 10          # readable in print
    finally:
        plt.close(fig)
    wide, _ = plotting.new_figure(wide=True)
    assert tuple(wide.get_size_inches()) == pytest.approx(plotting.FIGSIZE_WIDE)
    plt.close(wide)


def test_axes_must_be_labelled():
    fig, ax = plotting.new_figure()
    try:
        with pytest.raises(ValueError):
            plotting.label_axes(ax, "", "MTBF (hours)")
        plotting.label_axes(ax, "GPUs", "MTBF (hours)", title="t")
        assert ax.get_xlabel() == "GPUs" and ax.get_ylabel() == "MTBF (hours)"
    finally:
        plt.close(fig)


def test_markers_draw_and_reject_bad_options():
    fig, ax = plotting.new_figure()
    try:
        ax.plot([0, 10], [0, 1])
        plotting.mark_point(ax, 5, 0.5, "optimum")
        plotting.mark_event(ax, 2, "failure")
        plotting.mark_span(ax, 2, 4, -0.1, "RTO")
        plotting.mark_span(ax, 2, 4, -0.2, "RPO", label="right")
        texts = {t.get_text() for t in ax.texts}
        assert {"optimum", "failure", "RTO", "RPO"} <= texts
        with pytest.raises(ValueError):
            plotting.mark_span(ax, 2, 4, -0.3, "x", label="above")
    finally:
        plt.close(fig)


def test_show_releases_the_figure():
    fig, _ = plotting.new_figure()
    assert plt.fignum_exists(fig.number)
    plotting.show(fig)
    assert not plt.fignum_exists(fig.number)


def test_plotting_is_display_only():
    """The style module computes nothing: it imports no science from mlsys."""
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(plotting))
    modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(m.startswith("mlsys") for m in modules), modules
    assert {m.split(".")[0] for m in modules} <= {"__future__", "matplotlib"}
