"""Code that runs inside every chapter's kernel (never imported by the checker).

`bookcheck.run.kernel` sends this file's text to a fresh kernel, where it becomes the
module `_qmd_checker`, then calls `setup`. steps_side.py calls `inline` and
`last_error` for each step; both return a `Raw` JSON string, as does the reply's
user expression (steps_side.run_steps), so the checker reads exactly that text.
Output streams are captured and capped per cell by steps_side.py.
"""
import json
import math
import sys
import traceback

from IPython import get_ipython

CAP = {"chars": 1_000_000}       # inline values are cut here, like cell output (setup)


class Raw:
    """A value whose plain-text display is exactly its text (JSON to the client)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


def _parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
        return int(text[text.rfind(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def protect_checker():
    """A cell may not signal the processes that run it: os.kill / os.killpg aimed at
    this kernel's parent (the fork server, or the checker) or its parent (the
    checker), or at pid -1 (every process of the user), raises PermissionError
    at the cell's line, so the chapter that tried is the one reported."""
    import os
    parent = os.getppid()
    protected = {p for p in (parent, _parent_of(parent)) if p > 1}

    def hook(event, args):
        if event in ("os.kill", "os.killpg") and args:
            target = args[0]
            if target == -1 or abs(target) in protected:
                what = "every process of this user" if target == -1 else \
                    f"process {abs(target)}, which runs this chapter (the checker or its fork server)"
                raise PermissionError(f"a chapter may not signal {what}")
    sys.addaudithook(hook)


def setup(cap_chars, figure=None):
    """Cap inline values; set figures up as Quarto does (`figure`:
    bookcheck.read.figures); protect the checker's processes from the chapter's signals."""
    protect_checker()
    stable_code_names()
    CAP["chars"] = cap_chars
    if figure:
        FIGURE.update(figure)
        quarto_figures(figure)


def stable_code_names():
    """Compile each cell under IPython's own name, `<ipython-input-N-hash>` (its execution
    count and code), not ipykernel's temporary file `/tmp/ipykernel_<pid>/<hash>.py`: a
    warning then names its cell alike on every run, and Quarto's engine drops that prefix
    from the page (verify/published.shown_stderr), so the ledger records what readers see."""
    import types
    from IPython.core.compilerop import CachingCompiler
    compiler = get_ipython().compile
    compiler.get_code_name = types.MethodType(CachingCompiler.get_code_name, compiler)


FIGURE = {}         # Quarto's figure options of this kernel (setup)


def matplotlibrc_of_folder():
    """Quarto's kernel starts in the chapter's folder, so matplotlib, imported there,
    reads a `matplotlibrc` beside the chapter. Ours may have imported matplotlib
    elsewhere (the fork server preloads it in the project root): in the chapter's
    folder (steps_side, observed: the file is one of the run's inputs), look the
    file up as matplotlib does and, if it is this folder's, apply it, then Quarto's
    figure options over it, in the order Quarto's kernel gets them."""
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None:
        return          # imported later, by a cell, here: matplotlib reads it itself
    import os
    found = matplotlib.matplotlib_fname()
    if os.path.dirname(os.path.abspath(found)) != os.getcwd():
        return
    settings = matplotlib.rc_params_from_file(found, use_default_template=False)
    settings.pop("backend", None)       # MPLBACKEND decides it, as at import
    matplotlib.rcParams.update(settings)
    if FIGURE:
        quarto_figures(FIGURE)


def quarto_figures(figure):
    """What Quarto 1.7's setup cell does for figures (quarto-cli 1.7.34
    src/resources/jupyter/lang/python/setup.py): figure.figsize = (fig-width,
    fig-height) inches, figure.dpi = fig-dpi, savefig.dpi = "figure", and
    set_matplotlib_formats(fig-format) (`retina`: PNGs at twice the dpi, sized
    in metadata at half). The format is read by the inline backend when it starts
    (the first figure); the rcParams are set as soon as matplotlib is imported
    (at once if the fork server preloaded it), before any cell can use it."""
    get_ipython().config.InlineBackend.figure_formats = {figure["fig-format"]}

    def apply(matplotlib):
        try:                    # as Quarto's setup: a matplotlib that refuses is left alone
            matplotlib.rcParams["figure.figsize"] = (figure["fig-width"], figure["fig-height"])
            matplotlib.rcParams["figure.dpi"] = figure["fig-dpi"]
            matplotlib.rcParams["savefig.dpi"] = "figure"
        except Exception:
            pass

    if "matplotlib" in sys.modules:
        apply(sys.modules["matplotlib"])
    else:
        sys.meta_path.insert(0, AfterImport("matplotlib", apply))


class AfterImport:
    """A sys.meta_path finder that calls `then(module)` once, right after the module
    `name` is first imported (and then leaves sys.meta_path)."""

    def __init__(self, name, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(fullname)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run, then = loader.exec_module, self.then

        def exec_module(module):
            run(module)
            then(module)
        loader.exec_module = exec_module
        return spec


def markdown_of(value):
    """The value's Markdown representation (`_repr_markdown_`, data of a (data,
    metadata) pair), or None when it has none. Shared with the in-process executor."""
    to_markdown = getattr(value, "_repr_markdown_", None)
    if callable(to_markdown):
        text = to_markdown()
        if isinstance(text, tuple):
            text = text[0]
        if text is not None:
            return str(text)
    return None


def render(value):
    """(kind, text) as Quarto inserts an inline value."""
    if isinstance(value, str):
        return "markdown", value
    text = markdown_of(value)
    if text is not None:
        return "markdown", text
    return "text", str(get_ipython().display_formatter.formatters["text/plain"](value))


def bundle(value):
    """The value's text/html, text/markdown and text/plain, as IPython formats them."""
    data, _ = get_ipython().display_formatter.format(value)
    return {k: data[k] for k in ("text/html", "text/markdown", "text/plain")
            if isinstance(data.get(k), str)}


def is_empty(value, text):
    """Nothing to show: None, NaN, ±inf (also as a quantity's magnitude), or a string
    (or rendered text) that is empty or blank. Words in a text are never "empty"."""
    if value is None or not str(text).strip():
        return True
    if isinstance(value, str):
        return False
    magnitude = getattr(value, "magnitude", value)
    try:
        number = isinstance(magnitude, (int, float)) or _is_float_scalar(magnitude)
        return number and not math.isfinite(float(magnitude))
    except Exception:
        return False


def _is_float_scalar(value):
    """A numpy scalar (float64, int64, …) without importing numpy."""
    return type(value).__module__ == "numpy" and hasattr(value, "dtype") and value.shape == ()


def _capped(text):
    cap = CAP["chars"]
    return text if len(text) <= cap else text[:cap] + "\n[truncated]"


def inline(exprs):
    """Evaluate inline expressions in the user namespace, in order. Each value's text is
    capped here, in the kernel, so a huge value never crosses to the checker whole."""
    namespace = get_ipython().user_ns
    out = []
    for expr in exprs:
        try:
            value = eval(compile(expr, "<inline>", "eval"), namespace)
            kind, text = render(value)
            empty = bool(is_empty(value, text))
            shown = {mime: _capped(data) for mime, data in bundle(value).items()}
            value = None
            out.append({"kind": kind, "text": _capped(text), "empty": empty, "bundle": shown})
        except Exception as exc:
            out.append({"error": type(exc).__name__,
                        "message": _capped(str(exc) + did_you_mean(exc, namespace)),
                        "names": [c.__name__ for c in type(exc).__mro__]})
    return Raw(json.dumps(out))


def did_you_mean(exc, namespace):
    """`; did you mean `node_mtbf_str`?` for a NameError (or AttributeError) whose name
    is close to one that exists (difflib, as Python's own traceback suggestions)."""
    import builtins
    import difflib
    name = getattr(exc, "name", None)
    if isinstance(exc, NameError) and name:
        known = [k for k in namespace if not k.startswith("_")] + dir(builtins)
    elif isinstance(exc, AttributeError) and name and getattr(exc, "obj", None) is not None:
        known = [k for k in dir(exc.obj) if not k.startswith("_")]
    else:
        return ""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
    return f"; did you mean `{close[0]}`?" if close and close[0] != name else ""


def last_error():
    """The last cell error: type, class names, message, frames (file, line, cell number, name)."""
    value = getattr(sys, "last_value", None)
    cells = getattr(get_ipython().compile, "_filename_map", {})
    frames = [[f.filename, f.lineno, cells.get(f.filename), f.name]
              for f in traceback.extract_tb(getattr(sys, "last_traceback", None))]
    message = str(value) + did_you_mean(value, get_ipython().user_ns)
    if isinstance(value, SyntaxError):
        message = value.msg or message
        if value.filename in cells:
            frames.append([value.filename, value.lineno, cells[value.filename], "<module>"])
    names = [c.__name__ for c in type(value).__mro__]
    return Raw(json.dumps({"type": type(value).__name__, "names": names,
                           "message": message, "frames": frames}))
