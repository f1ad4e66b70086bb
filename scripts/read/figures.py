"""The figure options Quarto 1.7's Jupyter setup gives a chapter's kernel.

Quarto starts every document's kernel with a setup cell (quarto-cli 1.7.34
`src/resources/jupyter/lang/python/setup.py`) that sets

    rcParams['figure.figsize'] = (fig-width, fig-height)      # inches
    rcParams['figure.dpi']     = fig-dpi
    rcParams['savefig.dpi']    = "figure"
    set_matplotlib_formats(fig-format)                         # retina | png | svg | …

from the document's format (`src/format/formats-shared.ts`: HTML 7 × 5 in,
`retina`; every format 96 dpi; `src/format/typst/format-typst.ts`: typst
5.5 × 3.5 in, `svg`), overridden by the same keys at the top of
`_quarto.yml` and under `format: <name>:`. The checker's kernels make the same
settings (scripts/run/kernel_side.py), for the format handed over to Quarto
(HTML): so a figure is drawn at the size, resolution and format Quarto's
own run would draw it, and the handed-over Markdown and figure files are
Quarto's. A chapter's own front-matter `fig-*` keys are not modelled.
"""
from __future__ import annotations

KEYS = ("fig-width", "fig-height", "fig-dpi", "fig-format")
DEFAULTS = {
    "html": {"fig-width": 7, "fig-height": 5, "fig-dpi": 96, "fig-format": "retina"},
    "typst": {"fig-width": 5.5, "fig-height": 3.5, "fig-dpi": 96, "fig-format": "svg"},
}


def figure_options(config: dict) -> dict:
    """{fig-width (in), fig-height (in), fig-dpi, fig-format} of the format whose
    figures the checker draws: `html` when listed (or when no format is: Quarto's
    default), else the first listed format (Quarto's HTML defaults for one
    without its own). Top-level keys override the defaults, `format: <name>:` keys
    override both."""
    formats = config.get("format")
    formats = {str(formats): {}} if isinstance(formats, str) else \
        formats if isinstance(formats, dict) else {}
    names = [str(n) for n in formats]
    name = "html" if "html" in names or not names else names[0]
    options = dict(DEFAULTS.get(name, DEFAULTS["html"]))
    for layer in (config, formats.get(name)):
        if isinstance(layer, dict):
            options.update({k: layer[k] for k in KEYS if layer.get(k) is not None})
    for key in ("fig-width", "fig-height", "fig-dpi"):
        try:
            options[key] = float(options[key]) if key != "fig-dpi" else int(options[key])
        except (TypeError, ValueError):
            options[key] = DEFAULTS["html"][key]
    options["fig-format"] = str(options["fig-format"])
    return options
