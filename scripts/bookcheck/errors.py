"""The pipeline's own failures (its machinery, not the book's code), each with the one
finding Kind it is reported as: where an exception becomes a finding (run/execute.py),
a BookcheckError says what it is instead of `kernel-died`."""
from __future__ import annotations

from bookcheck.model import Kind


class BookcheckError(Exception):
    """A failure of the pipeline itself; `kind`: the finding it becomes."""
    kind: Kind


class KernelSetupError(BookcheckError):
    """The kernel started but the checker's setup code failed in it."""
    kind = Kind.KERNEL


class ForkServerError(BookcheckError):
    """The warm fork server cannot give a kernel (it exited, or the kernelspec does not
    run ipykernel): the kernel is launched normally instead."""
    kind = Kind.KERNEL_DIED


class ChapterDirError(BookcheckError):
    """The folder a chapter runs in is missing or cannot be entered."""
    kind = Kind.MISSING_CHAPTER


class StepsError(BookcheckError):
    """The kernel did not run the chapter's steps (a failure outside every cell)."""
    kind = Kind.KERNEL_DIED
