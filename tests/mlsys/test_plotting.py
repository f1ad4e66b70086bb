"""mlsys.plotting: one style, colour-blind-safe series, labelled axes, figures released."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_a_shown_figure_leaves_matplotlibs_rcparams_as_they_were():
    """The style holds from new_figure to show, in an rc_context: after show (or a
    refused figure) matplotlib draws other figures as it did before."""
    before = dict(matplotlib.rcParams)
    fig, ax = plotting.new_figure()
    ax.plot([0, 1], [0, 1], **plotting.series_style(0))
    assert ax.lines[0].get_linewidth() == plotting.STYLE["lines.linewidth"]
    plotting.show(fig)
    fig, ax = plotting.new_figure()
    ax.text(0.1, 0.1, "tiny", fontsize=plotting.TEXT_PT_MIN - 1)
    with pytest.raises(ValueError):
        plotting.show(fig)
    assert dict(matplotlib.rcParams) == before


TESTS = next(p for p in Path(__file__).resolve().parents if p.name == "tests")


def _pytest(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """pytest in one process of its own, in file order."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist",
                           "-p", "no:cacheprovider", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **env})


def test_the_figure_tests_and_the_unit_tests_in_one_process():
    """The order dependence of issue 32: figures made with mlsys.plotting, then a plain
    matplotlib figure, in one process (pytest-xdist's --dist loadfile did this)."""
    labels, units = (next(TESTS.rglob(name)) for name in ("test_figure_labels.py", "test_units.py"))
    done = _pytest(str(labels), f"{units}::test_a_retina_png_is_shown_at_half_its_pixels", cwd=TESTS.parent)
    assert done.returncode == 0, done.stdout[-2000:]


def test_the_suite_restores_rcparams_a_test_changed(tmp_path):
    """tests/conftest.py's autouse fixture: a test that restyles matplotlib (or leaves a
    book figure open) does not restyle the next test's figures."""
    (tmp_path / "test_pair.py").write_text(
        "import matplotlib\nfrom mlsys import plotting\n"
        "def test_a():\n    matplotlib.rcParams['savefig.bbox'] = 'tight'\n    plotting.new_figure()\n"
        "def test_b():\n    assert matplotlib.rcParams['savefig.bbox'] is None\n")
    done = _pytest("-p", "conftest", str(tmp_path / "test_pair.py"), cwd=tmp_path, MPLBACKEND="Agg",
                   PYTHONPATH=os.pathsep.join((str(TESTS), str(TESTS.parent))))
    assert done.returncode == 0, done.stdout[-2000:]


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
    assert {m.split(".")[0] for m in modules} <= {"__future__", "matplotlib", "figure_layout"}
    from mlsys import figure_layout      # its geometry: matplotlib and numpy only
    tree = ast.parse(inspect.getsource(figure_layout))
    modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    modules |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {m.split(".")[0] for m in modules} <= {"__future__", "matplotlib", "numpy", "dataclasses"}
