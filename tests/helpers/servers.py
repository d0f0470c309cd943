"""The environment of a server (or client) subprocess that a test starts."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers.project import REPO

#: What a child process needs from ours to run at all; everything else is left out, so a
#: developer's MCP_CODEGEN_* switches or PYTHONPATH cannot change what a test sees.
_KEPT = ("PATH", "HOME", "LANG", "SYSTEMROOT", "PYTHONDONTWRITEBYTECODE")


def server_env(*importable: Path | str, **extra: str) -> dict[str, str]:
    """This checkout (then ``importable``) on ``PYTHONPATH``, unbuffered output, the few
    variables in ``_KEPT``, then ``extra`` (which may replace any of them)."""
    env = {key: os.environ[key] for key in _KEPT if key in os.environ}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *map(str, importable)])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env
