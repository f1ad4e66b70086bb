"""The kernels are driven through nbclient's and jupyter_client's public API only
(scripts/bookcheck/run/kernel.py), so a release that requirements.txt allows cannot remove
what the run stage calls; what steps_side.py mirrors of ipykernel is checked against
ipykernel itself (here, and in test_steps_protocol.py against nbclient's records)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bookcheck.run

RUN = Path(bookcheck.run.__file__).parent
DOCUMENTED = {"_exit", "_getframe"}       # os._exit, sys._getframe: the stdlib documents them


@pytest.mark.parametrize("path", sorted(RUN.glob("*.py")), ids=lambda p: p.name)
def test_the_run_stage_uses_no_private_attribute_of_another_object(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = [f"{path.name}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and node.attr.startswith("_")
               and not node.attr.startswith("__") and node.attr not in DOCUMENTED
               and ast.unparse(node.value) not in ("self", "cls")]
    assert private == []


def test_the_flush_interval_steps_side_mirrors_is_ipykernels():
    from ipykernel.iostream import OutStream
    from bookcheck.run.steps_side import _Capture
    assert _Capture.FLUSH_INTERVAL_S == OutStream.flush_interval
