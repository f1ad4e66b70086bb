"""The book's one matplotlib style and a few figure helpers.

Display layer only: nothing here computes a number the book publishes. Chapters
compute their curves with `mlsys.formulas`, then hand plain arrays to these
helpers, which only decide how things look.

Design rules, so that every figure reads the same on screen and in print:

- the Okabe–Ito palette (distinguishable with the common colour-vision
  deficiencies), and a distinct line style per series, so a greyscale print
  still separates the curves;
- axis labels always carry their unit, e.g. ``"Checkpoint interval (minutes)"``;
- fonts large enough to survive a one-column PDF and a phone: figures are at
  most 6 in wide and no text is smaller than ``TEXT_PT_MIN`` (10 pt), so a
  figure shrunk to a 358 px phone column still shows text of 8 px or more;
- labels never collide, with each other or with the data: ``show`` moves a
  helper's label that overlaps another text, a legend, a line or a marker up
  or down until it is clear (``place_labels``) and refuses a figure whose
  texts still overlap each other or the plotted lines and markers, or whose
  markers hide one another (``mlsys.figure_layout``), so ``make check`` fails on it;
- no chart junk: light grid, no top/right spines.

Usage in a chapter cell::

    fig, ax = new_figure()
    ax.plot(x, y, **series_style(0), label="...")
    label_axes(ax, "GPUs in the cluster", "Cluster MTBF (hours)")
    show(fig)
"""
from __future__ import annotations

import matplotlib
import matplotlib.text

import matplotlib.pyplot as plt

from .figure_layout import LABEL_GAP_PX, layout_problems, place_labels, text_boxes, text_clashes

__all__ = ["PALETTE", "SERIES_COLORS", "FIGSIZE", "FIGSIZE_WIDE", "TEXT_PT_MIN", "LABEL_BOX", "LABEL_GAP_PX",
           "STYLE", "series_style", "new_figure", "label_axes", "mark_point", "mark_span", "mark_event",
           "text_overlaps", "small_texts", "place_labels", "show"]

# Okabe & Ito (2008), "Color Universal Design": safe for deuteranopia,
# protanopia and tritanopia. Black is kept for reference lines.
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
    "grey": "#7F7F7F",
}

# Series order: high-contrast colours first; yellow is left out (poor on white).
SERIES_COLORS = [PALETTE[k] for k in ("blue", "vermillion", "green", "orange", "purple", "sky")]
SERIES_LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1, 1, 1, 1, 1))]
SERIES_MARKERS = ["o", "s", "^", "D", "v", "P"]

FIGSIZE = (5.6, 3.5)        # inches; fits one text column of the PDF
FIGSIZE_WIDE = (6.0, 3.6)
TEXT_PT_MIN = 10            # the smallest text of any figure, in points
LABEL_BOX = {"boxstyle": "square,pad=0.15", "facecolor": "white", "edgecolor": "none",
             "alpha": 0.9}  # behind a label: guide lines do not cross its text

STYLE = {
    "figure.figsize": FIGSIZE,
    "figure.dpi": 110,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "svg.hashsalt": "mlsys-plotting",     # stable ids in SVG output
    "font.size": 11,
    "axes.titlesize": 11.5,
    "axes.labelsize": 11,
    "xtick.labelsize": TEXT_PT_MIN,
    "ytick.labelsize": TEXT_PT_MIN,
    "legend.fontsize": TEXT_PT_MIN,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#d9d9d9",
    "grid.linewidth": 0.6,
    "grid.linestyle": "-",
    "axes.axisbelow": True,
    "lines.linewidth": 2.0,
    "lines.markersize": 5,
    "axes.prop_cycle": matplotlib.cycler(color=SERIES_COLORS),
    "figure.constrained_layout.use": True,
}


_OPEN: set = set()    # the book figures made and not yet shown
_HELD: list = []      # the rc_context holding STYLE while one is open


def _hold() -> None:
    """The book style holds from new_figure until show: the lines, legends and texts a
    chapter adds in between, and the ticks made at the draw, get it. It is entered in
    a matplotlib.rc_context, so showing the last open figure restores rcParams (and
    making the next figure does, once every open one was closed without `show`)."""
    _OPEN.difference_update([f for f in _OPEN if not plt.fignum_exists(f.number)])
    _release(None)
    if not _HELD:
        _HELD.append(matplotlib.rc_context(STYLE))
        _HELD[0].__enter__()


def _release(fig) -> None:
    _OPEN.discard(fig)
    if _HELD and not _OPEN:
        _HELD.pop().__exit__(None, None, None)


def series_style(i: int, marker: bool = False) -> dict:
    """Colour and line style of the i-th series (cycles past the end)."""
    style = {
        "color": SERIES_COLORS[i % len(SERIES_COLORS)],
        "linestyle": SERIES_LINESTYLES[i % len(SERIES_LINESTYLES)],
    }
    if marker:
        style["marker"] = SERIES_MARKERS[i % len(SERIES_MARKERS)]
    return style


def new_figure(wide: bool = False, figsize: tuple[float, float] | None = None):
    """A new (fig, ax) in the book style, which holds until `show(fig)` (matplotlib's
    rcParams are then restored: nothing else is styled)."""
    _hold()
    fig, ax = plt.subplots(figsize=figsize or (FIGSIZE_WIDE if wide else FIGSIZE))
    _OPEN.add(fig)
    return fig, ax


def label_axes(ax, xlabel: str, ylabel: str, title: str | None = None) -> None:
    """Set axis labels (which must name their unit) and an optional title."""
    if not xlabel or not ylabel:
        raise ValueError("every axis needs a label with its unit")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)


def mark_point(ax, x: float, y: float, text: str, color: str | None = None,
               offset: tuple[float, float] = (8, 8), dot: bool = True) -> None:
    """Mark one point (an optimum, a threshold) with a dot, a guide line and a label.
    `dot=False` leaves the dot out, where a data marker already sits at the point
    (show() refuses a marker that hides another)."""
    color = color or PALETTE["black"]
    ax.axvline(x, color=color, linestyle=":", linewidth=1.0)
    if dot:
        ax.plot([x], [y], marker="o", color=color, markersize=6, zorder=5, linestyle="none")
    ax.annotate(text, xy=(x, y), xytext=offset, textcoords="offset points",
                fontsize=TEXT_PT_MIN, color=color, bbox=LABEL_BOX, zorder=6)


def mark_span(ax, x0: float, x1: float, y: float, text: str,
              color: str | None = None, label: str = "below") -> None:
    """A double-headed arrow from x0 to x1 at height y with a label.

    ``label="below"`` centres the text under the arrow; ``label="right"`` puts it
    just after the arrow's end (for spans too short to hold their text).
    """
    color = color or PALETTE["black"]
    ax.annotate("", xy=(x0, y), xytext=(x1, y),
                arrowprops={"arrowstyle": "<->", "color": color, "linewidth": 1.3,
                            "shrinkA": 0, "shrinkB": 0})
    if label == "right":
        ax.annotate(text, xy=(x1, y), xytext=(6, 0), textcoords="offset points",
                    ha="left", va="center", fontsize=TEXT_PT_MIN, color=color, bbox=LABEL_BOX, zorder=6)
    elif label == "below":
        ax.annotate(text, xy=((x0 + x1) / 2, y), xytext=(0, -4), textcoords="offset points",
                    ha="center", va="top", fontsize=TEXT_PT_MIN, color=color, bbox=LABEL_BOX, zorder=6)
    else:
        raise ValueError(f"label must be 'below' or 'right', got {label!r}")


def mark_event(ax, x: float, text: str, color: str | None = None, y: float = 1.0,
               side: str = "right", ymin: float = 0.0) -> None:
    """A dashed vertical line at x with a short label at the top (y in axes fraction),
    on the line's right (`side="right"`) or left; the line runs from `ymin` (axes
    fraction) to the top, so labels below it are not struck through."""
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left', got {side!r}")
    color = color or PALETTE["grey"]
    ax.axvline(x, ymin=ymin, color=color, linestyle="--", linewidth=1.0)
    ax.annotate(text, xy=(x, y), xycoords=("data", "axes fraction"), xytext=(3 if side == "right" else -3, -2),
                textcoords="offset points", ha="left" if side == "right" else "right", va="top",
                fontsize=TEXT_PT_MIN, color=color, bbox=LABEL_BOX, zorder=6)


def text_overlaps(fig, draw: bool = True) -> list[tuple[str, str]]:
    """Pairs of texts in the figure's axes (and legends) whose bounding boxes overlap
    or touch (closer than LABEL_GAP_PX), or that sit on an annotation's arrow
    ("arrow"), as (text, text), in drawing order.
    `draw=False`: the figure's last draw is its current state (extents are reused)."""
    if draw:
        fig.canvas.draw()
    return text_clashes(text_boxes(fig))


def small_texts(fig, draw: bool = True) -> list[str]:
    """Texts of the figure (labels, ticks, legends, annotations) set smaller
    than TEXT_PT_MIN points: unreadable once the figure shrinks to a phone.
    A draw creates the tick labels; `draw=False` when the figure was just drawn."""
    if draw:
        fig.canvas.draw()
    return [f"{t.get_text()!r} at {t.get_fontsize():g} pt" for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < TEXT_PT_MIN]


def show(fig) -> None:
    """Place the labels, refuse overlapping texts, emit the figure and release it.

    In a Jupyter kernel (Quarto's engine and the book checker) `plt.show()`
    hands the figure to the inline backend, which displays it once; closing it
    afterwards keeps memory flat and prevents a second copy at the end of the
    cell. Outside a kernel (plain Python, the Agg backend) nothing is shown.
    Raises ValueError naming what is wrong when, once placed, two texts still
    overlap, a text or legend sits on a plotted line or marker, a marker hides
    another series' marker (mlsys.figure_layout), or a text is set below TEXT_PT_MIN.
    """
    try:
        place_labels(fig)                 # ends with a draw of the current state
        problems = layout_problems(fig)
        small = small_texts(fig, draw=False)
        if problems or small:
            raise ValueError("figure texts overlap: " + "; ".join(problems)
                             if problems else f"figure text below {TEXT_PT_MIN} pt: " + "; ".join(small))
        if "inline" in matplotlib.get_backend():
            plt.show()
    finally:
        plt.close(fig)
        _release(fig)
