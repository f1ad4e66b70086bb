"""Where a figure's texts may sit: the geometry behind `mlsys.plotting.show`.

Display layer only (imports matplotlib and numpy, nothing of mlsys). Everything
is measured in display pixels from the figure's last draw:

- a *label* is a visible, non-empty text in an axes (`ax.texts`: annotations,
  `ax.text`), a *legend* is an axes' or the figure's legend box (handles and
  texts), an *arrow* is an annotation's arrow patch;
- *data* is what the axes plot as lines and markers (`ax.lines`: curves, guide
  lines such as `axvline`, point series); filled areas (`fill_between`) are
  background and not data;
- a label or a legend must keep LABEL_GAP_PX from every other label or legend,
  must not be crossed by an arrow (other than its own), by a line (its drawn
  width counted) or by a marker (a disc of the marker's size), within the axes
  where the line or marker is drawn;
- two markers of different series must not overlap (one would hide the other);
  markers of one series may touch, as dense data do.

`place_labels` moves each offset-point annotation that breaks a rule up or down
(nearest clear height first, staying inside its axes) until it is clear;
`layout_problems` lists what still breaks one, as readable sentences.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.transforms import Bbox

LABEL_GAP_PX = 3.0      # the least room between two texts (a label's white box)
MOVE_STEP_PT = 2.0      # one step of a label's vertical search, in points
MOVE_RANGE_PT = 120.0   # the farthest a label moves from where it was put
NO_MARKER = (None, "", " ", "None", "none")


@dataclass
class Mark:
    """One plotted series in display pixels: its line segments (k, 2, 2) with half
    their drawn width, its marker centres (m, 2) with their radius, and the axes
    box it is clipped to."""
    name: str
    series: object
    segments: np.ndarray
    half_width: float
    centres: np.ndarray
    radius: float
    clip: Bbox


def _name(line) -> str:
    """A series by its legend label, an unlabelled guide line by where it runs."""
    label = line.get_label()
    if label and not label.startswith("_"):
        return f"series {label!r}"
    x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    if len(x) == 2 and x[0] == x[1]:
        return f"vertical line at x = {x[0]:g}"
    if len(y) == 2 and y[0] == y[1]:
        return f"horizontal line at y = {y[0]:g}"
    if len(x) == 1:
        return f"point at ({x[0]:g}, {y[0]:g})"
    return "unlabelled line"


def data_marks(fig) -> list[Mark]:
    """Every visible line series of the figure's axes, in display pixels."""
    px = fig.dpi / 72.0
    marks = []
    for ax in fig.axes:
        clip = ax.get_window_extent()
        for line in ax.lines:
            if not line.get_visible():
                continue
            xy = line.get_transform().transform_path(line.get_path()).vertices
            xy = xy[np.isfinite(xy).all(axis=1)] if len(xy) else xy.reshape(0, 2)
            drawn = line.get_linestyle() not in NO_MARKER and line.get_linewidth() > 0
            segments = np.stack([xy[:-1], xy[1:]], axis=1) if drawn and len(xy) > 1 else np.empty((0, 2, 2))
            has_marker = line.get_marker() not in NO_MARKER
            centres = xy[[clip.contains(x, y) for x, y in xy]] if has_marker and len(xy) else np.empty((0, 2))
            radius = (line.get_markersize() / 2 + line.get_markeredgewidth() / 2) * px
            marks.append(Mark(_name(line), line, segments, line.get_linewidth() * px / 2,
                              centres, radius, clip))
    return marks


def _segments_cross(segments: np.ndarray, box: Bbox) -> bool:
    """Does any segment meet the box (Liang-Barsky clipping, vectorised)?"""
    if not len(segments):
        return False
    p0, d = segments[:, 0, :], segments[:, 1, :] - segments[:, 0, :]
    lo, hi = np.zeros(len(segments)), np.ones(len(segments))
    for axis, (low, high) in enumerate(((box.x0, box.x1), (box.y0, box.y1))):
        for p, q in ((-d[:, axis], p0[:, axis] - low), (d[:, axis], high - p0[:, axis])):
            parallel = p == 0
            lo = np.where(parallel & (q < 0), 2.0, lo)          # parallel and outside: no hit
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(parallel, 0.0, q / np.where(parallel, 1.0, p))
            lo = np.where(~parallel & (p < 0), np.maximum(lo, t), lo)
            hi = np.where(~parallel & (p > 0), np.minimum(hi, t), hi)
    return bool((lo <= hi).any())


def _discs_meet(centres: np.ndarray, radius: float, box: Bbox) -> bool:
    """Does a disc of `radius` around any centre meet the box?"""
    if not len(centres):
        return False
    nearest = np.clip(centres, [box.x0, box.y0], [box.x1, box.y1])
    return bool((np.hypot(*(centres - nearest).T) < radius).any())


def _inside(box: Bbox, clip: Bbox) -> Bbox | None:
    """The part of box within clip (None when they do not meet)."""
    x0, y0, x1, y1 = max(box.x0, clip.x0), max(box.y0, clip.y0), min(box.x1, clip.x1), min(box.y1, clip.y1)
    return Bbox([[x0, y0], [x1, y1]]) if x0 < x1 and y0 < y1 else None


def data_under(box: Bbox, marks: list[Mark]) -> str | None:
    """The first series whose line or markers meet the box, by name."""
    for mark in marks:
        part = _inside(box, mark.clip)
        if part is None:
            continue
        wide = part.padded(mark.half_width)
        if _segments_cross(mark.segments, wide) or _discs_meet(mark.centres, mark.radius, part):
            return mark.name
    return None


def hidden_markers(marks: list[Mark]) -> list[tuple[str, str]]:
    """Pairs of series (by name) with a marker of one overlapping one of the other."""
    pairs = []
    for i, a in enumerate(marks):
        for b in marks[i + 1:]:
            if len(a.centres) and len(b.centres):
                gaps = np.hypot(*(a.centres[:, None, :] - b.centres[None, :, :]).transpose(2, 0, 1))
                if (gaps < a.radius + b.radius).any():
                    pairs.append((a.name, b.name))
    return pairs


def _overlap(a, b, gap: float = LABEL_GAP_PX) -> bool:
    """Two display boxes come closer than `gap` pixels both ways (a text and
    an arrow: gap -0.5, they must actually cross)."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > -gap
            and min(a.y1, b.y1) - max(a.y0, b.y0) > -gap)


def text_boxes(fig):
    """(artist, display box) of every label in the figure's axes (in drawing order)
    and of every legend, and (None, box) of each annotation's arrow right after
    its annotation: an obstacle another label must not sit on."""
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        for text in ax.texts:
            if text.get_visible() and text.get_text().strip():
                found.append((text, text.get_window_extent(renderer)))
            arrow = getattr(text, "arrow_patch", None)
            if text.get_visible() and arrow is not None:
                found.append((None, arrow.get_window_extent(renderer)))
    legends = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    found += [(legend, legend.get_window_extent(renderer)) for legend in legends
              if legend is not None and legend.get_visible()]
    return found


def _describe(artist) -> str:
    if artist is None:
        return "arrow"
    if hasattr(artist, "get_texts"):
        return "legend"
    return artist.get_text()


def text_clashes(boxes) -> list[tuple[str, str]]:
    """Pairs of texts (or a text and an arrow) too close, in drawing order."""
    pairs = []
    for i, (a, box_a) in enumerate(boxes):
        for j, (b, box_b) in enumerate(boxes[i + 1:], start=i + 1):
            own_arrow = b is None and j == i + 1 and a is not None
            gap = LABEL_GAP_PX if a is not None and b is not None else -0.5
            if (a is not None or b is not None) and not own_arrow and _overlap(box_a, box_b, gap):
                pairs.append((_describe(a), _describe(b)))
    return pairs


def layout_problems(fig) -> list[str]:
    """Every broken rule of the module docstring, from the figure's last draw."""
    boxes, marks = text_boxes(fig), data_marks(fig)
    problems = [f"{a!r} and {b!r}" for a, b in text_clashes(boxes)]
    for artist, box in boxes:
        hit = data_under(box, marks) if artist is not None else None
        if hit is not None:
            problems.append(f"{_describe(artist)!r} on the {hit}")
    problems += [f"markers of the {a} and the {b} overlap (one hides the other)"
                 for a, b in hidden_markers(marks)]
    return problems


def _blocked(i: int, boxes, marks) -> bool:
    """Is the i-th box (a movable label) too close to an earlier text, any arrow
    other than its own, any legend, or any data?"""
    text, box = boxes[i]
    for j, (other, other_box) in enumerate(boxes):
        if j == i or (other is None and j == i + 1):
            continue
        earlier_text = other is not None and j < i
        legend = hasattr(other, "get_texts")
        if (earlier_text or legend) and _overlap(box, other_box):
            return True
        if other is None and _overlap(box, other_box, -0.5):
            return True
    return data_under(box, marks) is not None


def _movable(artist) -> bool:
    return artist is not None and getattr(artist, "get_anncoords", lambda: None)() == "offset points"


def place_labels(fig) -> bool:
    """Move each offset-point annotation that is blocked (too close to an earlier
    text, on an arrow, a legend, a line or a marker) to the nearest clear height,
    trying MOVE_STEP_PT steps down, then up, alternately, up to MOVE_RANGE_PT,
    within its axes. Positions come from the drawn extents, so a label follows
    the data. True when every label is clear: the figure's last draw is then its
    current state."""
    fig.canvas.draw()
    marks = data_marks(fig)
    settled = True
    for i in range(len(text_boxes(fig))):
        boxes = text_boxes(fig)
        text, box = boxes[i]
        if not _movable(text) or not _blocked(i, boxes, marks):
            continue
        x, y = text.xyann
        area = text.axes.get_window_extent()
        steps = int(MOVE_RANGE_PT / MOVE_STEP_PT)
        for k in (s * sign for s in range(1, steps + 1) for sign in (-1, 1)):
            shift = k * MOVE_STEP_PT * fig.dpi / 72
            moved = box.translated(0, shift)
            if moved.y0 < area.y0 or moved.y1 > area.y1:
                continue
            trial = boxes[:i] + [(text, moved)] + boxes[i + 1:]
            if not _blocked(i, trial, marks):
                text.xyann = (x, y + k * MOVE_STEP_PT)
                fig.canvas.draw()
                marks = data_marks(fig)      # (a layout engine may move the axes on a draw)
                break
        else:
            settled = False
    return settled
