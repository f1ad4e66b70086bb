"""The figure options Quarto 1.7's Jupyter setup gives a chapter's kernel.

Quarto starts every document's kernel with a setup cell (quarto-cli 1.7.34
`src/resources/jupyter/lang/python/setup.py`) that sets

    rcParams['figure.figsize'] = (fig-width, fig-height)      # inches
    rcParams['figure.dpi']     = fig-dpi
    rcParams['savefig.dpi']    = "figure"
    set_matplotlib_formats(fig-format)                         # retina | png | svg | …

from the document's format (`src/format/formats-shared.ts`: HTML 7 × 5 in,
`retina`; every format 96 dpi; `src/format/typst/format-typst.ts`: typst
5.5 × 3.5 in, `svg`), overridden layer by layer as docs/quarto-compat.md's
figure row says. The checker's kernels make the same settings
(scripts/bookcheck/run/kernel_side.py) for the HTML format handed over to Quarto, so the
handed-over Markdown and figure files are Quarto's.
"""
from __future__ import annotations

KEYS = ("fig-width", "fig-height", "fig-dpi", "fig-format")
DEFAULTS = {
    "html": {"fig-width": 7, "fig-height": 5, "fig-dpi": 96, "fig-format": "retina"},
    "typst": {"fig-width": 5.5, "fig-height": 3.5, "fig-dpi": 96, "fig-format": "svg"},
}


def drawn_format(formats) -> str:
    """The format whose figures the checker draws, from `format:` as written: `html`
    when listed (or when none is: Quarto's default), else the first listed."""
    names = [str(formats)] if isinstance(formats, str) else \
        [str(n) for n in formats] if isinstance(formats, dict) else []
    return "html" if "html" in names or not names else names[0]


def figure_options(config: dict) -> dict:
    """{fig-width (in), fig-height (in), fig-dpi, fig-format} for a project: Quarto's
    defaults for drawn_format, under `config`'s top-level keys, under its
    `format: <name>:` keys."""
    name = drawn_format(config.get("format"))
    return _layered(dict(DEFAULTS.get(name, DEFAULTS["html"])), config, name)


def document_figure_options(project_options: dict, front_matter: dict, name: str) -> dict:
    """A document's figure options: the project's (figure_options), under its front
    matter's top-level keys, under the front matter's `format: <name>:` keys."""
    return _layered(dict(project_options), front_matter, name)


def _layered(options: dict, config: dict, name: str) -> dict:
    formats = config.get("format")
    for layer in (config, formats.get(name) if isinstance(formats, dict) else None):
        if isinstance(layer, dict):
            options.update({k: layer[k] for k in KEYS if layer.get(k) is not None})
    for key in ("fig-width", "fig-height", "fig-dpi"):
        try:
            options[key] = float(options[key]) if key != "fig-dpi" else int(options[key])
        except (TypeError, ValueError):
            options[key] = DEFAULTS["html"][key]
    options["fig-format"] = str(options["fig-format"])
    return options
