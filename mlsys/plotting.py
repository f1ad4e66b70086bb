"""The book's one matplotlib style and a few figure helpers.

Display layer only: nothing here computes a number the book publishes. Chapters
compute their curves with `mlsys.formulas`, then hand plain arrays to these
helpers, which only decide how things look.

Design rules, so that every figure reads the same on screen and in print:

- the Okabe–Ito palette (distinguishable with the common colour-vision
  deficiencies), and a distinct line style per series, so a greyscale print
  still separates the curves;
- axis labels always carry their unit, e.g. ``"Checkpoint interval (minutes)"``;
- fonts large enough to survive a one-column PDF (10–11 pt at 6.4 in wide);
- no chart junk: light grid, no top/right spines.

Usage in a chapter cell::

    fig, ax = new_figure()
    ax.plot(x, y, **series_style(0), label="...")
    label_axes(ax, "GPUs in the cluster", "Cluster MTBF (hours)")
    show(fig)
"""
from __future__ import annotations

import matplotlib

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

FIGSIZE = (6.4, 3.8)        # inches; fits one text column of the PDF
FIGSIZE_WIDE = (7.2, 3.6)

STYLE = {
    "figure.figsize": FIGSIZE,
    "figure.dpi": 110,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 10.5,
    "axes.titlesize": 11,
    "axes.labelsize": 10.5,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9.5,
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


def apply_style() -> None:
    """Install the book style in matplotlib's rcParams (idempotent)."""
    matplotlib.rcParams.update(STYLE)


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
    """A new (fig, ax) in the book style."""
    apply_style()
    size = figsize or (FIGSIZE_WIDE if wide else FIGSIZE)
    fig, ax = plt.subplots(figsize=size)
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
                fontsize=9.5, color=color)


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
                    ha="left", va="center", fontsize=9.5, color=color)
    elif label == "below":
        ax.annotate(text, xy=((x0 + x1) / 2, y), xytext=(0, -4), textcoords="offset points",
                    ha="center", va="top", fontsize=9.5, color=color)
    else:
        raise ValueError(f"label must be 'below' or 'right', got {label!r}")


def mark_event(ax, x: float, text: str, color: str | None = None, y: float = 1.0) -> None:
    """A dashed vertical line at x with a short label at the top (y in axes fraction)."""
    color = color or PALETTE["grey"]
    ax.axvline(x, color=color, linestyle="--", linewidth=1.0)
    ax.annotate(text, xy=(x, y), xycoords=("data", "axes fraction"), xytext=(3, -2),
                textcoords="offset points", ha="left", va="top", fontsize=9, color=color)


def show(fig) -> None:
    """Emit the figure as the cell's image output and release it.

    In a Jupyter kernel (Quarto's engine and the book checker) `plt.show()`
    hands the figure to the inline backend, which displays it once; closing it
    afterwards keeps memory flat and prevents a second copy at the end of the
    cell. Outside a kernel (plain Python, the Agg backend) nothing is shown.
    """
    if "inline" in matplotlib.get_backend():
        plt.show()
    plt.close(fig)
