"""Code that runs inside every chapter's kernel (never imported by the checker).

`scripts.run.kernel` sends this file's text to a fresh kernel, where it becomes the
module `_qmd_checker`, then calls `setup`. The checker talks to it through
silent requests whose `user_expressions` call `inline` or `last_error`; both
return a `Raw` JSON string so the reply carries exactly that text.
"""
import json
import math
import re
import sys
import traceback

from IPython import get_ipython

EMPTY_WORDS = re.compile(r"(?<![\w.])(?:nan|NaN|-?inf|-?Infinity|None)(?![\w])")


class Raw:
    """A value whose plain-text display is exactly its text (JSON to the client)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


class CappedStream:
    """Forward writes until `cap` characters per cell, then drop them with one note."""

    def __init__(self, stream, cap):
        self._stream, self.cap, self.count, self.noted = stream, cap, 0, False

    def write(self, s):
        n = len(s)
        if self.count + n <= self.cap:
            self.count += n
            return self._stream.write(s)
        if not self.noted:
            self.noted = True
            self._stream.write(s[:max(0, self.cap - self.count)]
                               + f"\n[output truncated after {self.cap} characters]\n")
        self.count += n
        return n

    def __getattr__(self, name):
        return getattr(self._stream, name)


def reset(*_):
    """Start a new cell's output budget."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, CappedStream):
            stream.count, stream.noted = 0, False


def setup(cap_chars, fig_format=""):
    """Cap the streams per cell; choose the inline figure format (svg, png, …)."""
    sys.stdout = CappedStream(sys.stdout, cap_chars)
    sys.stderr = CappedStream(sys.stderr, cap_chars)
    get_ipython().events.register("pre_run_cell", reset)
    if fig_format:      # read by the inline backend when it starts (first figure)
        get_ipython().config.InlineBackend.figure_formats = {fig_format}


def render(value):
    """(kind, text) as Quarto inserts an inline value."""
    if isinstance(value, str):
        return "markdown", value
    to_markdown = getattr(value, "_repr_markdown_", None)
    if callable(to_markdown):
        text = to_markdown()
        if isinstance(text, tuple):
            text = text[0]
        if text is not None:
            return "markdown", str(text)
    return "text", str(get_ipython().display_formatter.formatters["text/plain"](value))


def is_empty(value, text):
    """None, NaN, inf, or nothing printable."""
    if value is None or not text.strip() or EMPTY_WORDS.search(text):
        return True
    magnitude = getattr(value, "magnitude", value)
    try:
        return isinstance(magnitude, (int, float)) and not math.isfinite(float(magnitude))
    except Exception:
        return False


def inline(exprs):
    """Evaluate inline expressions in the user namespace, in order."""
    reset()
    namespace = get_ipython().user_ns
    out = []
    for expr in exprs:
        try:
            value = eval(compile(expr, "<inline>", "eval"), namespace)
            kind, text = render(value)
            out.append({"kind": kind, "text": text, "empty": bool(is_empty(value, text))})
        except Exception as exc:
            out.append({"error": type(exc).__name__, "message": str(exc),
                        "names": [c.__name__ for c in type(exc).__mro__]})
    return Raw(json.dumps(out))


def last_error():
    """The last cell error: type, class names, message, frames (file, line, cell number, name)."""
    value = getattr(sys, "last_value", None)
    cells = getattr(get_ipython().compile, "_filename_map", {})
    frames = [[f.filename, f.lineno, cells.get(f.filename), f.name]
              for f in traceback.extract_tb(getattr(sys, "last_traceback", None))]
    message = str(value)
    if isinstance(value, SyntaxError):
        message = value.msg or message
        if value.filename in cells:
            frames.append([value.filename, value.lineno, cells[value.filename], "<module>"])
    names = [c.__name__ for c in type(value).__mro__]
    return Raw(json.dumps({"type": type(value).__name__, "names": names,
                           "message": message, "frames": frames}))
