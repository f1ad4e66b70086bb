"""Code that runs a whole chapter inside its kernel, in one request (never imported
by the checker).

`bookcheck.run.kernel` installs this file in every kernel as the module `_qmd_steps`
(after kernel_side.py, `_qmd_checker`, facts_side.py, `_qmd_facts`, and observe_side.py,
`_qmd_observer`, which it tells when each step starts and stops).
The checker then sends ONE silent request whose user expression calls
`run_steps(cwd, steps_json, caps_json, results_path)`. A step is a code cell
{"cell": index, "code": text, "error_ok": bool} or one inline expression
{"inline": text}. Steps run in document order, each cell through IPython's own
`run_cell` (same transforms, display hook, inline figures, execution counts and
cell file names as a request of its own), its outputs captured here in order.

After each step its result is appended to the results file as one line of
JSON, written straight to the file, which the checker follows (steps.py: why one
request, and how a step's timeout and blame follow the lines). The run stops
after a cell error unless that cell allows errors. The user expression's value is
Raw JSON: how many steps ran and what the chapter read (observe_side), for the cache.
"""
import base64
import json
import os
import sys
import time

from IPython import get_ipython
from IPython.core.displaypub import DisplayPublisher

class _Capture:
    """One cell's outputs, in the order a Jupyter client receives them.

    Like ipykernel's output streams, stdout and stderr text is buffered and
    becomes an output when flushed: before a display, a displayed result or an
    error, at the end of the cell (stdout first, then stderr), or once the
    oldest buffered write is FLUSH_INTERVAL_S old. So a warning printed before a
    `print` in a quick cell still shows after it, as in Quarto. Consecutive text
    of one stream is one output. Streams are capped per name, all outputs
    together per cell.
    """

    FLUSH_INTERVAL_S = 0.2          # ipykernel's OutStream.flush_interval

    def __init__(self, stream_cap, total_cap):
        self.stream_cap, self.total_cap = stream_cap, total_cap
        self.outputs, self.stream_chars, self.total_chars = [], {}, 0
        self.buffered = {}                      # name -> [text, time of the first write]
        self.clear_pending, self.truncated = False, False

    def _room(self, size):
        """True if `size` more characters fit this cell's total; else note the cut once."""
        if self.total_chars + size <= self.total_cap:
            self.total_chars += size
            return True
        if not self.truncated:
            self.truncated = True
            self.outputs.append({"output_type": "stream", "name": "truncated",
                                 "text": f"\n[output truncated after {self.total_cap} characters]\n"})
        return False

    def _add(self, output):
        if self.clear_pending:
            self.outputs, self.clear_pending = [], False
        last = self.outputs[-1] if self.outputs else None
        if (output["output_type"] == "stream" and last and last["output_type"] == "stream"
                and last["name"] == output["name"]):
            last["text"] += output["text"]
        else:
            self.outputs.append(output)

    def flush(self, names=("stdout", "stderr")):
        for name in names:
            text = self.buffered.pop(name, None)
            if text is not None:
                self._add({"output_type": "stream", "name": name, "text": text[0]})

    def _flush_old(self):
        now = time.monotonic()
        old = [n for n, (_, first) in self.buffered.items() if now - first >= self.FLUSH_INTERVAL_S]
        self.flush(sorted(old, key=lambda n: self.buffered[n][1]))

    def stream(self, name, text):
        used = self.stream_chars.get(name, 0)
        if used > self.stream_cap:
            return                                  # over this stream's cap: dropped
        if used + len(text) > self.stream_cap:
            text = (text[:max(0, self.stream_cap - used)]
                    + f"\n[output truncated after {self.stream_cap} characters]\n")
            used = self.stream_cap                  # the next write is dropped
        self.stream_chars[name] = used + len(text)
        if not text or not self._room(len(text)):
            return
        self._flush_old()
        if name in self.buffered:
            self.buffered[name][0] += text
        else:
            self.buffered[name] = [text, time.monotonic()]

    def display(self, kind, data, display_id=None, update=False):
        self.flush()
        data = _jsonable(data)
        if update:                                  # update_display_data: replace in place
            for output in self.outputs:
                if display_id is not None and output.get("display_id") == display_id:
                    output["data"] = data
            return
        if not self._room(sum(len(v) for v in data.values() if isinstance(v, str))):
            return
        output = {"output_type": kind, "data": data}
        if display_id is not None:
            output["display_id"] = display_id
        self._add(output)

    def clear(self, wait):
        self.flush()
        if wait:
            self.clear_pending = True
        else:
            self.outputs = []

    def finish(self, error=None):
        """The cell's outputs, streams flushed, its error (if any) last."""
        self.flush()
        if error is not None:
            self._add({"output_type": "error", "ename": type(error).__name__,
                       "evalue": str(error)})
        for output in self.outputs:
            output.pop("display_id", None)
        return self.outputs


def _jsonable(data):
    """A MIME bundle as JSON-able text (bytes such as PNG as base64, like ipykernel)."""
    out = {}
    for mime, value in (data or {}).items():
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii")
        elif not isinstance(value, (str, dict, list)):
            value = str(value)
        out[mime] = value
    return out


class _Stream:
    """sys.stdout or sys.stderr while the steps run. One object for the whole run whose
    target capture moves from cell to cell, so a handler that kept a reference to it
    (logging, warnings) writes into the cell that is running, as in a kernel."""

    def __init__(self, name, real):
        self.name, self.real, self.capture = name, real, None

    def write(self, text):
        if self.capture is not None:
            self.capture.stream(self.name, str(text))
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def __getattr__(self, name):
        return getattr(self.real, name)


class _Publisher(DisplayPublisher):
    """shell.display_pub while the steps run (the shell's trait demands a DisplayPublisher)."""

    def __init__(self):
        super().__init__()
        self.capture = None

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **_):
        if self.capture is not None:
            display_id = (transient or {}).get("display_id")
            self.capture.display("display_data", data, display_id, update)

    def clear_output(self, wait=False):
        if self.capture is not None:
            self.capture.clear(wait)


class _Redirected:
    """Context: streams, display publisher and display hook feed one switchable capture."""

    def __init__(self, shell):
        self.shell = shell
        self.stdout = _Stream("stdout", sys.stdout)
        self.stderr = _Stream("stderr", sys.stderr)
        self.publisher = _Publisher()
        self.capture = None

    def use(self, capture):
        self.capture = self.stdout.capture = self.stderr.capture = capture
        self.publisher.capture = capture

    def _finish_displayhook(self):
        hook = self.shell.displayhook
        message = getattr(hook, "msg", None)
        data = message.get("content", {}).get("data") if isinstance(message, dict) else None
        if data and self.capture is not None:
            self.capture.display("execute_result", data)
        hook.msg = None

    def __enter__(self):
        hook = self.shell.displayhook
        self.saved = (sys.stdout, sys.stderr, self.shell.display_pub,
                      hook.__dict__.get("finish_displayhook"))
        sys.stdout, sys.stderr = self.stdout, self.stderr
        self.shell.display_pub = self.publisher
        hook.finish_displayhook = self._finish_displayhook
        return self

    def __exit__(self, *_):
        hook = self.shell.displayhook
        sys.stdout, sys.stderr, self.shell.display_pub, finish = self.saved
        if finish is None:
            hook.__dict__.pop("finish_displayhook", None)
        else:
            hook.finish_displayhook = finish


class _Results:
    """The results file: one JSON line per finished step, written straight to the file
    (no buffer in this process), so a line survives the kernel's death."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND)

    def send(self, result):
        data = (json.dumps(result) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]

    def close(self):
        os.close(self.fd)


def _run_cell(shell, redirected, step, caps, checker):
    capture = _Capture(caps["stream"], caps["total"])
    redirected.use(capture)
    count = shell.execution_count
    try:
        outcome = shell.run_cell(step["code"], store_history=True)
    finally:
        redirected.use(None)
    error = outcome.error_before_exec or outcome.error_in_exec
    result = {"cell": step["cell"], "count": count, "outputs": capture.finish(error),
              "error": error is not None}
    if error is not None:
        result["error_info"] = json.loads(checker.last_error().text)
    return result, error is not None and not step.get("error_ok")


def _inline(checker, expr):
    """kernel_side's result for one inline expression; SystemExit and KeyboardInterrupt
    (which it lets through) become that expression's error too."""
    try:
        return json.loads(checker.inline([expr]).text)[0]
    except BaseException as exc:
        return {"error": type(exc).__name__, "message": str(exc),
                "names": [c.__name__ for c in type(exc).__mro__]}


def run_steps(cwd, steps_json, caps_json, results_path):
    """Run a chapter's steps in `cwd` (see the module docstring)."""
    checker, observer = sys.modules["_qmd_checker"], sys.modules["_qmd_observer"]
    os.chdir(cwd)
    observer.start(0)
    try:
        checker.matplotlibrc_of_folder()
    finally:
        observer.stop()
    shell = get_ipython()
    caps = json.loads(caps_json)
    results = _Results(results_path)
    ran = 0
    try:
        with _Redirected(shell) as redirected:
            for step in json.loads(steps_json):
                observer.start(ran)
                ran += 1
                try:
                    if "inline" in step:
                        result, stop = _inline(checker, step["inline"]), False
                    else:
                        result, stop = _run_cell(shell, redirected, step, caps, checker)
                finally:
                    observer.stop()
                results.send(result)
                if stop:
                    break
    finally:
        results.close()
    return checker.Raw(json.dumps({"ran": ran, "observed": observer.observed()}))
