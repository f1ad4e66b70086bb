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


def test_show_accepts_a_clean_figure():
    fig, ax = timeline(104)
    plotting.show(fig)              # places the labels, then finds nothing wrong
    assert ax.texts[1].get_text() == "restart" and ax.texts[1].xyann[1] < -2
