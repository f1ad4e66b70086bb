"""Explorers: a reader moves a setting and the page looks the results up.

An explorer is a grid of settings (each a short list of values a reader may pick, the
book's own value among them) and the outputs computed at every point of the grid, in
the chapter's kernel, by the same :mod:`mlsys` functions the tables call. The page
embeds the grid as data, every value already formatted by ``fmt``; its script
(``explorer.js``) only looks values up, so no formula is written a second time, and
every value a reader can reach is in the checked run.

    cascade = explorer(
        "cascade",
        [Setting("nodes", "Nodes", (512, 1024, 2048), default=1024, show=str)],
        compute=lambda nodes: {"Cluster MTBF": calc_mtbf_cluster(node_mtbf, nodes)},
        show={"Cluster MTBF": lambda m: fmt(m, hour, figures=2) + " h"})
    cascade.check_all(lambda s, out: out["Cluster MTBF"] < node_mtbf,
                      "a cluster fails more often than one of its nodes")
    cascade              # the cell's value: the default view and the explorer

Shown as a cell's value it is Markdown (:meth:`Explorer._repr_markdown_`): a fenced
div ``.bookcheck-explorer`` holding, as raw HTML, the grid (``<script type=
"application/json" class="bookcheck-explorer-data">``) and the page script; the default
view as a pipe table (Quantity | Value: the settings, then the outputs, at the
book's values), which the ledger records and the page audit reads like any table;
and, as raw typst, a line telling a PDF reader that the HTML has the explorer.

The two classes are the checker's protocol (bookcheck.verify.explorer_data: the grid
is recorded in numbers.lock and the page's copy audited); the page script's own
classes are ``mlsys-explorer-…``. The embedded data, read back by the checker::

    {"explorer": name, "outputs": [label, ...],
     "settings": [{"key": k, "label": l, "shown": [text, ...], "default": index}, ...],
     "grid": {"i,j,...": [output text, ...]},     # one entry per point, by setting index
     "curve": {frame, "paths": {"i,j,...": svg path}, "marks": {...}}}   # if any

Settings snap to their listed values: a grid has no in-between points to invent.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mlsys.explorer_curve import Curve, frame, mark_position, svg_path
from mlsys.formatting import InvariantError

__all__ = ["Setting", "Explorer", "Curve", "explorer", "MAX_DATA_BYTES"]

#: the most data one explorer may put on a page (its JSON, in UTF-8 bytes)
MAX_DATA_BYTES = 50_000
SCRIPT = Path(__file__).with_name("explorer.js")


@dataclass(frozen=True)
class Setting:
    """One control: ``key`` (the keyword ``compute`` receives), ``label`` (what the
    reader reads, without the unit), the ``values`` it steps through in order,
    ``default`` (the book's value, one of them) and ``show`` (a value -> its text,
    unit included: ``"50,000 h"``)."""
    key: str
    label: str
    values: tuple
    default: Any
    show: Callable[[Any], str] = str

    def __post_init__(self):
        object.__setattr__(self, "values", tuple(self.values))
        if len(self.values) < 2:
            raise ValueError(f"setting {self.key!r} needs at least two values to move between")
        if self.default_index is None:
            raise ValueError(f"setting {self.key!r}: its default {self.default!r} is not one of its "
                             f"values; list the book's value among them")

    @property
    def default_index(self) -> int | None:
        return next((i for i, v in enumerate(self.values) if v == self.default), None)


@dataclass(frozen=True)
class Explorer:
    """A computed grid (:func:`explorer` builds one). ``points`` maps each point's
    setting indices to its outputs as computed; ``shown`` to their texts."""
    name: str
    settings: tuple[Setting, ...]
    outputs: tuple[str, ...]
    points: dict[tuple[int, ...], dict[str, Any]]
    shown: dict[tuple[int, ...], tuple[str, ...]]
    curve: Curve | None = None
    lines: dict[tuple[int, ...], tuple[str, list | None]] | None = None   # (SVG path, mark) per point

    @property
    def default_point(self) -> tuple[int, ...]:
        return tuple(s.default_index for s in self.settings)

    @property
    def defaults(self) -> dict[str, Any]:
        """The outputs at the book's values, as computed (Quantities, floats)."""
        return self.points[self.default_point]

    def select(self, **fixed) -> list[dict[str, Any]]:
        """The outputs of every point whose settings have the values given by key
        (``select(n_gpus=10_000)``), in grid order."""
        unknown = set(fixed) - {s.key for s in self.settings}
        if unknown:
            raise KeyError(f"explorer {self.name!r} has no setting {', '.join(sorted(unknown))}")
        return [outputs for point, outputs in self.points.items()
                if all(s.values[i] == fixed[s.key] for s, i in zip(self.settings, point) if s.key in fixed)]

    def setting_text(self, point: tuple[int, ...]) -> str:
        """A point as the reader would set it: ``Nodes = 1,024; GPU MTTF = 50,000 h``."""
        return _setting_text(self.settings, point)

    def check_all(self, claim: Callable[[dict, dict], bool], message: str) -> None:
        """Raise :class:`InvariantError` unless ``claim(settings, outputs)`` holds at every
        point of the grid (settings by key, outputs by label, as computed); the message
        names how many points fail and the first of them, as a reader would set it."""
        failing = []
        for point, outputs in self.points.items():
            settings = {s.key: s.values[i] for s, i in zip(self.settings, point)}
            held = claim(settings, outputs)
            if not isinstance(held, bool) and getattr(held, "shape", None) != ():
                raise TypeError(f"check_all() needs a claim returning a bool, got {type(held).__name__}")
            if not held:
                failing.append(point)
        if failing:
            raise InvariantError(
                f"{message}: fails at {len(failing)} of {len(self.points)} settings of explorer "
                f"{self.name!r}, first at {self.setting_text(failing[0])}")

    def data(self) -> dict:
        """The grid as the page embeds it (the module docstring's format)."""
        return {
            "explorer": self.name,
            "outputs": list(self.outputs),
            "settings": [{"key": s.key, "label": s.label, "shown": [s.show(v) for v in s.values],
                          "default": s.default_index} for s in self.settings],
            "grid": {",".join(map(str, point)): list(texts) for point, texts in self.shown.items()},
            **({"curve": {**frame(self.curve),
                          "paths": {",".join(map(str, p)): path for p, (path, _) in self.lines.items()},
                          "marks": {",".join(map(str, p)): mark for p, (_, mark) in self.lines.items()}}}
               if self.curve else {}),
        }

    def default_rows(self) -> list[tuple[str, str]]:
        """The default view: (label, text) of each setting at its default, then each output."""
        point = self.default_point
        return ([(s.label, s.show(s.default)) for s in self.settings]
                + list(zip(self.outputs, self.shown[point])))

    def _repr_markdown_(self) -> str:
        data = json.dumps(self.data(), ensure_ascii=False, separators=(",", ":"))
        size = len(data.encode("utf-8"))
        if size > MAX_DATA_BYTES:
            raise ValueError(f"explorer {self.name!r} would put {size:,} bytes of data on its page, "
                             f"more than {MAX_DATA_BYTES:,}: list fewer values for its settings")
        rows = "".join(f"| {label} | {text.replace('|', chr(92) + '|')} |\n"
                       for label, text in self.default_rows())
        return (
            "::: {.bookcheck-explorer}\n\n"
            "```{=html}\n"
            f'<script type="application/json" class="bookcheck-explorer-data">{_in_script(data)}</script>\n'
            f"<script>{_in_script(SCRIPT.read_text(encoding='utf-8'))}</script>\n"
            "```\n\n"
            "| Quantity | Value |\n|:--|--:|\n" + rows + "\n"
            "```{=typst}\n"
            "#emph[The HTML edition of this page lets you change these settings.] // mlsys-explorer\n"
            "```\n\n"
            ":::\n")

    def __repr__(self) -> str:
        return f"<explorer {self.name!r}: {len(self.points)} settings, outputs {', '.join(self.outputs)}>"


def _setting_text(settings, point: tuple[int, ...]) -> str:
    return "; ".join(f"{s.label} = {s.show(s.values[i])}" for s, i in zip(settings, point))


def _in_script(text: str) -> str:
    """Text safe inside a `<script>` element (no `</` to close it early)."""
    return text.replace("</", "<\\/")


def explorer(name: str, settings: list[Setting], compute: Callable[..., dict[str, Any]],
             show: dict[str, Callable[[Any], str]], curve: Curve | None = None) -> Explorer:
    """Compute ``compute(**point)`` at every point of the grid of ``settings`` (their
    values' Cartesian product) and format each output with ``show[label]``.

    ``compute`` returns ``{output label: value}`` with the same labels, in the same
    order, at every point; ``show`` has one formatter per label. An error at a point
    is raised with that point named, so a grid reaching outside a formula's domain
    says where. ``curve`` (:class:`mlsys.explorer_curve.Curve`) adds a line drawn at
    each point, from ``curve.points(**point)``."""
    if len({s.key for s in settings}) != len(settings):
        raise ValueError(f"explorer {name!r}: two settings share a key")
    settings = tuple(settings)
    points, shown, outputs, lines = {}, {}, None, {}
    for point in itertools.product(*(range(len(s.values)) for s in settings)):
        kwargs = {s.key: s.values[i] for s, i in zip(settings, point)}
        try:
            values = compute(**kwargs)
            labels = tuple(values)
            if outputs is None:
                outputs = labels
                missing = set(outputs) - set(show)
                if missing:
                    raise ValueError(f"no show= formatter for {', '.join(sorted(missing))}")
            elif labels != outputs:
                raise ValueError(f"compute returned {labels}, elsewhere {outputs}")
            texts = tuple(show[label](values[label]) for label in outputs)
            if curve is not None:
                lines[point] = (svg_path(curve, curve.points(**kwargs)),
                                mark_position(curve, curve.mark(**kwargs)) if curve.mark else None)
        except Exception as error:
            kind = InvariantError if isinstance(error, InvariantError) else ValueError
            raise kind(f"explorer {name!r} at {_setting_text(settings, point)}: {error}") from error
        points[point], shown[point] = values, texts
    return Explorer(name, settings, outputs, points, shown, curve, lines if curve else None)
