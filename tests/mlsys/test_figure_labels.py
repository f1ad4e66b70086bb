"""Figure labels placed from the data (mlsys.plotting.show): a label that
would sit on another is moved clear, texts that cannot move are refused,
and no figure text is set below TEXT_PT_MIN (readable on a phone)."""
from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

from mlsys import plotting  # noqa: E402


def timeline(restart_minutes: float):
    """Figure 2.1's crowded corner: a failure and a restart close together
    (their labels at the same height), under the RPO span's arrow."""
    fig, ax = plotting.new_figure(wide=True)
    ax.set_xlim(0, 300)
    ax.set_ylim(-0.5, 1.75)
    plotting.mark_event(ax, 100, "failure")
    plotting.mark_event(ax, restart_minutes, "restart")
    plotting.mark_span(ax, 20, 160, 1.45, "RPO bound: 14.6 minutes of work")
    return fig, ax


def test_crowded_labels_collide_before_placement():
    fig, _ = timeline(104)
    assert plotting.text_overlaps(fig) != []      # the bug of issue 27, as drawn before
    matplotlib.pyplot.close(fig)


def test_place_labels_clears_every_collision():
    fig, ax = timeline(104)
    before = {t.get_text(): t.xyann for t in ax.texts}
    plotting.place_labels(fig)
    assert plotting.text_overlaps(fig) == []
    after = {t.get_text(): t.xyann for t in ax.texts}
    assert after["failure"] == before["failure"]          # the first label keeps its place
    assert after["restart"][1] < before["restart"][1]     # the crowded one moved down
    matplotlib.pyplot.close(fig)


def test_a_label_with_room_stays_put():
    fig, ax = timeline(260)
    before = {t.get_text(): t.xyann for t in ax.texts}
    plotting.place_labels(fig)
    assert {t.get_text(): t.xyann for t in ax.texts} == before
    matplotlib.pyplot.close(fig)


def test_show_refuses_texts_that_cannot_move():
    fig, ax = plotting.new_figure()
    ax.text(0.5, 0.5, "first label", transform=ax.transAxes)
    ax.text(0.5, 0.5, "second label", transform=ax.transAxes)   # planted overlap
    with pytest.raises(ValueError, match="'first label' and 'second label'"):
        plotting.show(fig)


def test_show_refuses_text_too_small_for_a_phone():
    fig, ax = plotting.new_figure()
    ax.text(0.1, 0.1, "tiny", fontsize=plotting.TEXT_PT_MIN - 1, transform=ax.transAxes)
    with pytest.raises(ValueError, match=r"'tiny' at 9 pt"):
        plotting.show(fig)


def test_show_refuses_the_crowded_timeline_its_lines_strike():
    """Placed, the labels clear each other, but the restart's dashed line still
    strikes the failure's label and the failure's line the RPO label (issue 35)."""
    fig, _ = timeline(104)
    with pytest.raises(ValueError, match="'failure' on the vertical line at x = 104; "
                                         "'RPO bound: 14.6 minutes of work' on the vertical line at x = 100"):
        plotting.show(fig)


def test_show_accepts_the_timeline_drawn_as_figure_2_1_is():
    """The event lines above the zero line, the failure's label left of its line,
    the span below: nothing to move, nothing struck."""
    fig, ax = plotting.new_figure(wide=True)
    ax.set_xlim(0, 300)
    ax.set_ylim(-0.5, 1.75)
    band = 0.5 / 2.25
    plotting.mark_event(ax, 100, "failure", side="left", ymin=band)
    plotting.mark_event(ax, 104, "restart", ymin=band)
    plotting.mark_span(ax, 20, 160, -0.2, "RPO bound: 14.6 minutes of work")
    before = [t.xyann for t in ax.texts]
    plotting.show(fig)
    assert [t.xyann for t in ax.texts] == before


# Labels and the data (issue 35): a text or legend on a line or marker, and a
# marker hiding another series' marker, are moved when they can be, refused when not.

def u_curve():
    """Figure 1.2's minimum: a label put just above-right of a broad minimum sits
    on the curve's rising side."""
    fig, ax = plotting.new_figure()
    xs = [3 + i for i in range(78)]
    ax.plot(xs, [100 / x + x / 6 for x in xs], label="total")
    ax.set_ylim(0, 40)
    plotting.mark_point(ax, 24.5, 100 / 24.5 + 24.5 / 6, "optimum = 24.5 min")
    return fig, ax


def test_a_label_on_a_curve_is_found_then_moved_off_it():
    from mlsys import figure_layout
    fig, ax = u_curve()
    fig.canvas.draw()
    assert "'optimum = 24.5 min' on the series 'total'" in figure_layout.layout_problems(fig)
    before = ax.texts[0].xyann
    assert plotting.place_labels(fig)
    assert figure_layout.layout_problems(fig) == []
    assert ax.texts[0].xyann[0] == before[0] and ax.texts[0].xyann[1] != before[1]   # moved up or down only
    plotting.show(fig)


def test_show_refuses_a_fixed_text_on_a_line():
    fig, ax = plotting.new_figure()
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.text(0.5, 0.5, "on the line", ha="center", va="center")
    with pytest.raises(ValueError, match="'on the line' on the series 'diagonal'"):
        plotting.show(fig)


def test_show_refuses_a_guide_line_striking_a_label():
    """Figure 2.1's bug: a dashed event line through another label."""
    fig, ax = plotting.new_figure()
    ax.set_xlim(0, 10)
    ax.axvline(5, linestyle="--")
    ax.text(4, 0.5, "a label wider than the gap", transform=ax.get_xaxis_transform())
    with pytest.raises(ValueError, match="on the vertical line at x = 5"):
        plotting.show(fig)


def test_show_refuses_a_legend_on_the_data():
    fig, ax = plotting.new_figure()
    ax.plot([0, 1], [0, 1], label="rising")
    ax.plot([0, 1], [1, 0], label="falling")
    ax.legend(loc="center")              # where the lines cross
    with pytest.raises(ValueError, match="'legend' on the series"):
        plotting.show(fig)


def test_a_legend_clear_of_the_data_passes():
    fig, ax = plotting.new_figure()
    ax.plot([0, 1], [0, 0.3], label="low")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    plotting.show(fig)


def test_show_refuses_a_marker_hiding_another_series():
    """Figure 1.1's bug: two nearly equal values at the same size, one marker over the other."""
    fig, ax = plotting.new_figure()
    ax.loglog([100, 1e5], [1000, 1], label="model")
    ax.loglog([16384], [4.6], marker="o", linestyle="none", label="node causes")
    ax.loglog([16384], [4.9], marker="s", linestyle="none", label="GPU causes")
    with pytest.raises(ValueError, match="markers of the series 'node causes' and the series 'GPU causes' overlap"):
        plotting.show(fig)


def test_markers_side_by_side_and_one_series_dense_markers_pass():
    fig, ax = plotting.new_figure()
    ax.loglog([100, 1e5], [1000, 1], label="model")
    ax.loglog([16384 / 1.1], [4.6], marker="o", linestyle="none", label="node causes")
    ax.loglog([16384 * 1.1], [4.9], marker="s", linestyle="none", label="GPU causes")
    ax.loglog([8192, 10000], [5.0, 4.1], marker="o", linestyle="none", label="tabulated")   # touching, one series
    ax.set_xlim(50, 2e5)
    plotting.show(fig)


def test_a_mark_point_without_its_dot_leaves_a_data_marker_visible():
    """Figure A.3's bug: the peak's dot over a simulated point; dot=False marks it by line and label."""
    for dot, refused in ((True, True), (False, False)):
        fig, ax = plotting.new_figure()
        ax.plot([1, 2, 3], [1, 2, 1], marker="o", linestyle="none", label="simulation")
        plotting.mark_point(ax, 2, 2, "peak", dot=dot)
        ax.set_xlim(0, 4)
        ax.set_ylim(0, 3)
        if refused:
            with pytest.raises(ValueError, match=r"markers of the series 'simulation' and the point at \(2, 2\) overlap"):
                plotting.show(fig)
        else:
            plotting.show(fig)


def test_event_labels_on_the_left_and_lines_above_a_band():
    fig, ax = plotting.new_figure(wide=True)
    ax.set_xlim(0, 30)
    ax.set_ylim(-1, 1)
    plotting.mark_event(ax, 10, "failure", side="left", ymin=0.5)
    plotting.mark_event(ax, 11, "restart", ymin=0.5)
    ax.text(10.5, -0.5, "below the lines", ha="center")
    fig.canvas.draw()
    failure, restart = ax.texts[:2]
    assert failure.get_window_extent().x1 < restart.get_window_extent().x0
    plotting.show(fig)              # the text under both lines is not struck
    with pytest.raises(ValueError):
        plotting.mark_event(ax, 1, "x", side="above")
