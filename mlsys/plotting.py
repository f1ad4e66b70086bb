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
- labels never collide: ``show`` moves a helper's label that overlaps another
  text down until it is clear (``place_labels``) and refuses a figure whose
  texts still overlap (``text_overlaps``), so ``make check`` fails on it;
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
               offset: tuple[float, float] = (8, 8)) -> None:
    """Mark one point (an optimum, a threshold) with a dot, a guide line and a label."""
    color = color or PALETTE["black"]
    ax.axvline(x, color=color, linestyle=":", linewidth=1.0)
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


def mark_event(ax, x: float, text: str, color: str | None = None, y: float = 1.0) -> None:
    """A dashed vertical line at x with a short label at the top (y in axes fraction)."""
    color = color or PALETTE["grey"]
    ax.axvline(x, color=color, linestyle="--", linewidth=1.0)
    ax.annotate(text, xy=(x, y), xycoords=("data", "axes fraction"), xytext=(3, -2),
                textcoords="offset points", ha="left", va="top", fontsize=TEXT_PT_MIN, color=color,
                bbox=LABEL_BOX, zorder=6)


def _boxes(fig):
    """(text artist, display-space bounding box) of every visible non-empty text
    drawn in the figure's axes (labels, annotations; legends and ticks
    excluded), and (None, box) of every annotation's arrow: an obstacle a
    label must not sit on."""
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        for text in ax.texts:
            if text.get_visible() and text.get_text().strip():
                found.append((text, text.get_window_extent(renderer)))
            arrow = getattr(text, "arrow_patch", None)
            if text.get_visible() and arrow is not None:
                found.append((None, arrow.get_window_extent(renderer)))
    return found


LABEL_GAP_PX = 3.0      # the least room between two texts (a label's white box)


def _overlap(a, b, gap: float = LABEL_GAP_PX) -> bool:
    """Two display boxes come closer than `gap` pixels both ways (a text and
    an arrow: gap -0.5, they must actually cross)."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > -gap
            and min(a.y1, b.y1) - max(a.y0, b.y0) > -gap)


def text_overlaps(fig, draw: bool = True) -> list[tuple[str, str]]:
    """Pairs of texts in the figure's axes whose bounding boxes overlap or
    touch (closer than LABEL_GAP_PX), or
    that sit on an annotation's arrow ("arrow"), as (text, text), in drawing order.
    `draw=False`: the figure's last draw is its current state (extents are reused)."""
    if draw:
        fig.canvas.draw()
    boxes = _boxes(fig)
    pairs = []
    for i, (a, box_a) in enumerate(boxes):
        for j, (b, box_b) in enumerate(boxes[i + 1:], start=i + 1):
            own_arrow = b is None and j == i + 1 and a is not None
            gap = LABEL_GAP_PX if a is not None and b is not None else -0.5
            if (a is not None or b is not None) and not own_arrow and _overlap(box_a, box_b, gap):
                pairs.append((a.get_text() if a else "arrow", b.get_text() if b else "arrow"))
    return pairs


def small_texts(fig, draw: bool = True) -> list[str]:
    """Texts of the figure (labels, ticks, legends, annotations) set smaller
    than TEXT_PT_MIN points: unreadable once the figure shrinks to a phone.
    A draw creates the tick labels; `draw=False` when the figure was just drawn."""
    if draw:
        fig.canvas.draw()
    return [f"{t.get_text()!r} at {t.get_fontsize():g} pt" for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < TEXT_PT_MIN]


def place_labels(fig, max_moves: int = 60) -> bool:
    """Move each offset-point annotation that overlaps an earlier text or any
    arrow down, just below it, until it is clear (at most `max_moves` steps).

    Positions come from the drawn extents of the texts, so a label follows
    the data: a restart close to a failure gets its label under the
    failure's, one far from it keeps its place. True when every label is
    clear: the figure's last draw is then its current state.
    """
    for _ in range(max_moves):
        fig.canvas.draw()
        boxes = _boxes(fig)
        clash = None
        for i, (text, box) in enumerate(boxes):
            if text is None or getattr(text, "get_anncoords", lambda: None)() != "offset points":
                continue
            others = [o for j, (t, o) in enumerate(boxes)
                      if (j < i and t is not None and _overlap(box, o))
                      or (t is None and j != i + 1 and _overlap(box, o, -0.5))]
            if others:
                clash = (text, box, others[0])
                break
        if clash is None:
            return True
        text, box, other = clash
        x, y = text.xyann
        text.xyann = (x, y - (box.y1 - other.y0 + LABEL_GAP_PX + 1) * 72 / fig.dpi)   # pixels -> points
    return False


def show(fig) -> None:
    """Place the labels, refuse overlapping texts, emit the figure and release it.

    In a Jupyter kernel (Quarto's engine and the book checker) `plt.show()`
    hands the figure to the inline backend, which displays it once; closing it
    afterwards keeps memory flat and prevents a second copy at the end of the
    cell. Outside a kernel (plain Python, the Agg backend) nothing is shown.
    Raises ValueError naming the texts when two still overlap or one is set
    below TEXT_PT_MIN.
    """
    try:
        settled = place_labels(fig)
        overlaps = text_overlaps(fig, draw=not settled)     # one draw when no label had to move
        small = small_texts(fig, draw=False)
        if overlaps or small:
            raise ValueError("figure texts overlap: " + "; ".join(f"{a!r} and {b!r}" for a, b in overlaps)
                             if overlaps else f"figure text below {TEXT_PT_MIN} pt: " + "; ".join(small))
        if "inline" in matplotlib.get_backend():
            plt.show()
    finally:
        plt.close(fig)
        _release(fig)
