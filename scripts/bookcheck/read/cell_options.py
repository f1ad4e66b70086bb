"""A code cell's options as every later stage reads them: one frozen CellOptions per
cell, typed, Quarto 1.7.34's defaults applied, resolved once here.

read/options.py validates the `#|` lines against Quarto's schema and applies the
cascade (project -> `_metadata.yml` -> front matter -> cell); `cell.options` keeps what
somebody set (it keys the chapter's cache). `cell_options` turns that into the
CellOptions on `cell.resolved`: an option nobody set has Quarto's default (the execute
defaults of every format, src/format/formats-shared.ts: echo, eval, output, include and
warning true, error false), so no stage keeps a default of its own.

A figure option Quarto's Jupyter engine broadcasts over a cell's outputs (`fig-cap`,
`fig-alt`, `fig-align`, `fig-env`, `fig-pos`, `fig-scap`: src/core/jupyter/jupyter.ts)
keeps how it was written, as Quarto tells them apart: a string is every output's, a list
(a tuple here) one value per output, in order (`per_output`); a `fig-cap` list is one
caption per figure and no caption of the cell. `fig-subcap` is the list of sub-captions
Quarto makes of it (`true`: one empty caption; a string: one).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Union

#: a broadcast option: None (unset), a string (every output's) or a tuple (output k's is item k)
PerOutput = Union[str, tuple, None]

#: the options a reader sees as text, a caption or an alt text (verify/generated.py: an
#: inline value in one is left as code; verify/prose_numbers.py: a number typed into one)
CAPTION_OPTIONS = ("tbl-cap", "fig-cap", "fig-alt", "lst-cap", "fig-subcap", "tbl-subcap")


@dataclass(frozen=True)
class CellOptions:
    """A cell's resolved options (field `x_y` is option `x-y`)."""
    echo: bool | str = True          # True, False or "fenced"
    eval: bool = True
    output: object = True            # True, False or "asis"
    include: bool = True
    warning: bool = True
    error: bool = False
    label: str | None = None
    classes: tuple = ()
    fig_cap: PerOutput = None
    fig_subcap: tuple | None = None  # None: unset
    fig_alt: PerOutput = None
    fig_align: PerOutput = None
    fig_env: PerOutput = None
    fig_pos: PerOutput = None
    fig_scap: PerOutput = None
    tbl_cap: PerOutput = None
    lst_label: str | None = None
    lst_cap: str | None = None
    code_fold: bool | str | None = None
    code_summary: str | None = None
    code_line_numbers: bool | str | None = None

    @property
    def shows_code(self) -> bool:
        """Whether the page shows the cell's code (`echo` true or fenced, `include` true)."""
        return self.include and self.echo is not False

    @property
    def shows_outputs(self) -> bool:
        """Whether the cell's outputs reach the page (neither `include` nor `output` false)."""
        return self.include and self.output is not False

    @property
    def asis(self) -> bool:
        """`output: asis`: the cell's printed text is Markdown of the page."""
        return self.output == "asis"

    def captions(self, displays: bool) -> tuple[str | None, tuple]:
        """(the cell's caption, its display outputs' captions in turn; `displays`: it has
        one), as Quarto's resolveCaptions: a `fig-cap` list is one per output, a string over
        `fig-subcap` the cell's caption over the sub-captions, else the first output's."""
        cap = self.fig_cap
        if isinstance(cap, tuple):
            return None, cap if displays else ()
        if cap and self.fig_subcap is not None:
            return cap, self.fig_subcap
        return None, (cap,) if cap else ()

    def per_output(self, name: str, index: int) -> str | None:
        """Broadcast option `name` ("fig_align") of the cell's output `index` (0-based, among
        its outputs), as Quarto's broadcastFigureOption: a string is every output's, a list
        gives item `index` (none past its end)."""
        value = getattr(self, name)
        if isinstance(value, tuple):
            return value[index] if index < len(value) else None
        return value


def _text(value) -> str | None:
    return None if value is None else str(value)


def _flag(value, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def _per_output(value) -> PerOutput:
    """A list -> a tuple of strings; a non-empty scalar -> its string; else None (Quarto
    tests the value: "" and `false` set nothing)."""
    if isinstance(value, (list, tuple)):
        return tuple("" if v is None else str(v) for v in value)
    return str(value) if value not in (None, "", False) else None


def _subcaps(value) -> tuple | None:
    """Quarto's resolveCaptions: `true` is one empty sub-caption, a string one."""
    if value is None:
        return None
    if value is True:
        return ("",)
    return tuple(str(v) for v in value) if isinstance(value, list) else (str(value),)


def cell_options(options: Mapping) -> CellOptions:
    """The CellOptions of a cell's validated, cascaded `options` (read/options.py)."""
    get = options.get
    classes = get("classes") or []
    echo = get("echo")
    return CellOptions(
        echo=echo if isinstance(echo, bool) or echo == "fenced" else True,
        eval=_flag(get("eval"), True), output=get("output", True),
        include=_flag(get("include"), True), warning=_flag(get("warning"), True),
        error=_flag(get("error"), False), label=_text(get("label")),
        classes=tuple(map(str, classes)) if isinstance(classes, list) else tuple(str(classes).split()),
        fig_cap=_per_output(get("fig-cap")), fig_subcap=_subcaps(get("fig-subcap")),
        fig_alt=_per_output(get("fig-alt")), fig_align=_per_output(get("fig-align")),
        fig_env=_per_output(get("fig-env")), fig_pos=_per_output(get("fig-pos")),
        fig_scap=_per_output(get("fig-scap")), tbl_cap=_per_output(get("tbl-cap")),
        lst_label=_text(get("lst-label")), lst_cap=_text(get("lst-cap")),
        code_fold=get("code-fold"), code_summary=_text(get("code-summary")),
        code_line_numbers=get("code-line-numbers"))
