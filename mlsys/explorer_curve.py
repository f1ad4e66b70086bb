"""An explorer's curve: a line redrawn for each setting, drawn from coordinates computed here.

A :class:`Curve` has a fixed frame (axis ranges, ticks, labels) and a function giving
the line's ``(x, y)`` points, in the axes' units, at one setting of the explorer. Each
point of the grid gets its line as an SVG path in the frame's pixel coordinates
(:func:`svg_path`), and the frame is laid out once (:func:`frame`): the page script
only places what it is given, so a curve is no second implementation of a formula and
every text it shows (the ticks, the labels) is part of the checked data.

The frame is :data:`WIDTH` × :data:`HEIGHT` units (an SVG ``viewBox``), the plot area
inside :data:`MARGINS`; a point outside the y range is left out and breaks the line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

__all__ = ["Curve"]

WIDTH, HEIGHT = 480, 250
MARGINS = {"left": 62, "right": 26, "top": 12, "bottom": 50}


@dataclass(frozen=True)
class Curve:
    """A line for each setting. ``points(**setting)`` gives ``[(x, y), …]`` as plain
    numbers in the axes' units (``x_unit``/``y_unit`` name them in the labels);
    ``mark(**setting)``, if given, one ``(x, y)`` to mark (an optimum). ``x_ticks`` and
    ``y_ticks`` are ``(value, text)`` pairs inside the ranges; ``log_x`` draws x on a
    log scale. ``description`` is the drawing's text alternative, ``off_scale`` what the
    drawing says where the whole line is outside it."""
    description: str
    x_label: str
    y_label: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_ticks: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, str], ...]
    points: Callable[..., list[tuple[float, float]]]
    mark: Callable[..., tuple[float, float]] | None = None
    log_x: bool = False
    off_scale: str = "off the scale"    # shown where no point of the line is inside the frame

    def __post_init__(self):
        for name, (low, high) in (("x_range", self.x_range), ("y_range", self.y_range)):
            if not low < high or (name == "x_range" and self.log_x and low <= 0):
                raise ValueError(f"curve {name} {low, high} is empty"
                                 + (" or not positive on a log axis" if self.log_x else ""))
        for name, ticks, (low, high) in (("x_ticks", self.x_ticks, self.x_range),
                                         ("y_ticks", self.y_ticks, self.y_range)):
            outside = [text for value, text in ticks if not low <= value <= high]
            if outside:
                raise ValueError(f"curve {name} outside the range: {', '.join(outside)}")


def _x(curve: Curve, x: float) -> float:
    low, high = curve.x_range
    share = ((math.log(x) - math.log(low)) / (math.log(high) - math.log(low)) if curve.log_x
             else (x - low) / (high - low))
    return MARGINS["left"] + share * (WIDTH - MARGINS["left"] - MARGINS["right"])


def _y(curve: Curve, y: float) -> float:
    low, high = curve.y_range
    return MARGINS["top"] + (1 - (y - low) / (high - low)) * (HEIGHT - MARGINS["top"] - MARGINS["bottom"])


def _inside(curve: Curve, x: float, y: float) -> bool:
    return (curve.x_range[0] <= x <= curve.x_range[1] and curve.y_range[0] <= y <= curve.y_range[1]
            and math.isfinite(x) and math.isfinite(y))


def svg_path(curve: Curve, points: list[tuple[float, float]]) -> str:
    """The SVG path data of a line (``M58.0,204.0L…``), to 0.1 unit; a point outside the
    frame is left out and the line starts again after it."""
    parts, drawing = [], False
    for x, y in points:
        if not _inside(curve, x, y):
            drawing = False
            continue
        parts.append(f"{'L' if drawing else 'M'}{_x(curve, x):.1f},{_y(curve, y):.1f}")
        drawing = True
    return "".join(parts)


def mark_position(curve: Curve, point: tuple[float, float]) -> list[float] | None:
    """A marked point in the frame's units, or None outside the frame."""
    x, y = point
    return [round(_x(curve, x), 1), round(_y(curve, y), 1)] if _inside(curve, x, y) else None


def frame(curve: Curve) -> dict:
    """The fixed part of the drawing, in the frame's units: size, plot box, ticks, labels."""
    return {"width": WIDTH, "height": HEIGHT, "description": curve.description,
            "box": [MARGINS["left"], MARGINS["top"], WIDTH - MARGINS["right"],
                    HEIGHT - MARGINS["bottom"]],
            "x_label": curve.x_label, "y_label": curve.y_label, "off_scale": curve.off_scale,
            "x_label_at": [(MARGINS["left"] + WIDTH - MARGINS["right"]) / 2, HEIGHT - 6],
            "y_label_at": [16, (MARGINS["top"] + HEIGHT - MARGINS["bottom"]) / 2],
            "x_ticks": [[round(_x(curve, v), 1), text] for v, text in curve.x_ticks],
            "y_ticks": [[round(_y(curve, v), 1), text] for v, text in curve.y_ticks]}
