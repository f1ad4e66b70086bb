"""`{{< env NAME >}}` reads the environment the page is rendered in, not the kernels'.

Quarto 1.7.34 (a page whose cell printed os.environ and whose prose held env shortcodes,
rendered with MY_VAR=hello): the cell saw MY_VAR, MPLBACKEND, PYDEVD_DISABLE_FILE_VALIDATION
and QUARTO_FIG_WIDTH; the shortcodes found MY_VAR and none of the others. So
render/shortcodes.py reads os.environ and run/forkserver.py's `kernel_env` adds the
kernels' own variables to it: two environments, each written once."""
from __future__ import annotations

import os

from bookcheck.render import shortcodes


def test_env_shortcodes_see_the_renderers_environment_not_the_kernels(tmp_path, monkeypatch):
    from bookcheck.run import forkserver, interpose
    monkeypatch.setattr(interpose, "environment", lambda root: {})      # no interposer built
    for name in [*forkserver.REPRODUCIBLE_ENV, "MPLBACKEND", "PYDEVD_DISABLE_FILE_VALIDATION"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BOOK_EDITION", "2nd")
    kernels = forkserver.kernel_env(tmp_path)
    added = sorted(k for k, v in kernels.items() if os.environ.get(k) != v)
    assert {"MPLBACKEND", "SOURCE_DATE_EPOCH"} <= set(added)
    page = tmp_path / "a.md"
    page.write_text(" ".join(f"{{{{< env {name} >}}}}" for name in [*added, "BOOK_EDITION"]) + "\n")
    seen = shortcodes.context(page, {}, {})["environment"]
    assert seen == {name: os.environ[name] for name in [*added, "BOOK_EDITION"] if name in os.environ}
    assert seen["BOOK_EDITION"] == "2nd" and all(seen.get(k) != kernels[k] for k in added)
