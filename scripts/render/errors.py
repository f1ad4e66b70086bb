"""The one error type of the renderer."""


class RenderError(RuntimeError):
    """A render failed; str(error) is a one-line reason.

    The previous `_book/` is left untouched whenever this is raised.
    """
