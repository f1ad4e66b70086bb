"""The one kernelspec lookup: which `python3` kernel the executor starts.

Searched in Jupyter's data path order (`JUPYTER_PATH`, the user's, then the
environment's and the system's share/jupyter/kernels), as jupyter_client does,
so the cache key names the same kernel the fork server and nbclient launch.
When none is installed the kernel is ipykernel's built-in one for this
interpreter. Imports jupyter_core only (no jupyter_client).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

KERNEL_MODULE = "ipykernel_launcher"
BUILTIN_ARGV = [sys.executable, "-m", KERNEL_MODULE, "-f", "{connection_file}"]


def kernel_spec(name: str = "python3") -> dict:
    """{"name", "argv", "source"}: the first readable kernel.json for `name`."""
    try:
        from jupyter_core.paths import jupyter_path
        folders = jupyter_path("kernels")
    except ImportError:          # jupyter_core missing: only the built-in kernel exists
        folders = []
    for folder in folders:
        spec_dir = Path(folder) / name
        try:
            argv = json.loads((spec_dir / "kernel.json").read_text(encoding="utf-8"))["argv"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        return {"name": name, "argv": list(argv), "source": str(spec_dir)}
    return {"name": name, "argv": list(BUILTIN_ARGV), "source": "builtin"}
