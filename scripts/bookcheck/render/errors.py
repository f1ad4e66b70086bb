"""The one error type of the renderer."""


class RenderError(RuntimeError):
    """A render failed; str(error) is a one-line reason.

    The previous `_book/` is left untouched whenever this is raised.
    """


class AuditError(RenderError):
    """The audit of a render found numbers nobody accounts for (or leaks):
    `findings` (bookcheck.model.Finding); str(error) lists them, one per line."""

    def __init__(self, fmt: str, findings):
        self.findings = list(findings)
        lines = [f"the audit of the rendered {fmt} found {len(self.findings)} problem(s); "
                 "nothing was moved into place:"]
        lines += [f"  {f.location()}: {f.kind}: {f.reason}" for f in self.findings]
        super().__init__("\n".join(lines))
