"""Code inside each kernel that runs a whole chapter in one request (`run_steps`).

Installed next to kernel_side.py as the module `_qmd_batch` (scripts.run.kernel).
The checker sends one silent execute request whose user expression calls
`run_steps(steps_json)`; each step is a code cell {"cell": i, "code"} or a batch
of inline expressions {"inline": [expr, …]}. Each cell runs through IPython's
own `run_cell` (same transforms, display hook, figure flushing, execution
counts and cell file names as a request per cell), with its outputs captured
here, in order, per cell: streams (capped per cell like kernel_side's
CappedStream), displays, the displayed result, the error. Before each step a
progress marker is written to the real stdout and flushed, so the checker
sees on iopub which step runs (per-cell timeouts, dead kernels). The run stops
at the first cell error unless the step says `"error_ok": true`.
Returns Raw JSON: one result per step that ran, in order.
"""
import base64
import json
import sys

from IPython import get_ipython
from IPython.core.displaypub import DisplayPublisher

START = "\x00qmd-start "         # + step index: the step begins
RESULT = "\x00qmd-result "       # + JSON: the step's result


def _clean(data):
    """Display data as JSON-able text (PNG and other bytes as base64, like ipykernel)."""
    out = {}
    for mime, value in (data or {}).items():
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii")
        elif not isinstance(value, (str, dict, list)):
            value = str(value)
        out[mime] = value
    return out


class _Capture:
    """Per-cell ordered outputs: stream text (coalesced, capped) and displays."""

    def __init__(self, cap):
        self.cap, self.outputs, self.counts, self.noted, self.clear_pending = cap, [], {}, set(), False

    def _add(self, output):
        if self.clear_pending:
            self.outputs, self.clear_pending = [], False
        self.outputs.append(output)

    def stream(self, name, text):
        if name in self.noted:          # over the cap: dropped
            return
        count = self.counts.get(name, 0)
        if count + len(text) > self.cap:
            self.noted.add(name)
            text = (text[:max(0, self.cap - count)]
                    + f"\n[output truncated after {self.cap} characters]\n")
        self.counts[name] = count + len(text)
        last = self.outputs[-1] if self.outputs and not self.clear_pending else None
        if last and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self._add({"output_type": "stream", "name": name, "text": text})

    def display(self, kind, data):
        self._add({"output_type": kind, "data": _clean(data)})

    def clear(self, wait=False):
        if wait:
            self.clear_pending = True
        else:
            self.outputs = []


class _Stream:
    """sys.stdout / sys.stderr during a step: writes go to the capture."""

    def __init__(self, capture, name, real):
        self.capture, self.name, self.real = capture, name, real

    def write(self, text):
        if self.name not in self.capture.noted:     # else over the cap: dropped, cheaply
            self.capture.stream(self.name, str(text))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def __getattr__(self, name):
        return getattr(self.real, name)


class _Publisher(DisplayPublisher):
    """shell.display_pub during a step (a DisplayPublisher: the shell's trait demands one)."""

    def __init__(self, capture, real):
        super().__init__()
        self.capture, self.real = capture, real

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **_):
        self.capture.display("display_data", data)

    def clear_output(self, wait=False):
        self.capture.clear(wait)


def _run_cell(shell, code, cap):
    """Run one cell as a request of its own would; returns (outputs, count, error)."""
    capture = _Capture(cap)
    hook = shell.displayhook
    saved = (sys.stdout, sys.stderr, shell.display_pub, hook.__dict__.get("finish_displayhook"))

    def finish_displayhook():
        msg = getattr(hook, "msg", None)
        data = (msg or {}).get("content", {}).get("data") if isinstance(msg, dict) else None
        if data:
            capture.display("execute_result", data)
        hook.msg = None

    count = shell.execution_count
    sys.stdout = _Stream(capture, "stdout", saved[0])
    sys.stderr = _Stream(capture, "stderr", saved[1])
    shell.display_pub = _Publisher(capture, saved[2])
    hook.finish_displayhook = finish_displayhook
    try:
        result = shell.run_cell(code, store_history=True)
    finally:
        sys.stdout, sys.stderr, shell.display_pub = saved[0], saved[1], saved[2]
        if saved[3] is None:
            hook.__dict__.pop("finish_displayhook", None)
        else:
            hook.finish_displayhook = saved[3]
    error = result.error_before_exec or result.error_in_exec
    if error is not None:
        capture.outputs.append({"output_type": "error", "ename": type(error).__name__,
                                "evalue": str(error)})
    return capture.outputs, count, error


def _say(stream, line):
    stream.write(line + "\n")
    stream.flush()


def run_steps(steps_json, cap_chars):
    """Run a chapter's steps in order (see the module docstring). Each step's start
    and result go out at once on iopub (so a timeout or a dead kernel loses nothing
    that finished); returns Raw JSON: the number of steps run."""
    checker = sys.modules["_qmd_checker"]
    shell = get_ipython()
    out = getattr(sys.stdout, "_stream", sys.stdout)     # past kernel_side's cap
    ran = 0
    for index, step in enumerate(json.loads(steps_json)):
        _say(out, f"{START}{index}")
        ran += 1
        if "inline" in step:
            checker.reset()
            result = {"inline": json.loads(checker.inline(step["inline"]).text)}
            _say(out, RESULT + json.dumps(result))
            continue
        outputs, count, error = _run_cell(shell, step["code"], cap_chars)
        result = {"cell": step["cell"], "count": count, "outputs": outputs,
                  "error": error is not None}
        _say(out, RESULT + json.dumps(result))
        if error is not None and not step.get("error_ok"):
            break
    return checker.Raw(json.dumps(ran))
