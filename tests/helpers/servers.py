"""The environment of a server (or client) subprocess that a test starts."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers.project import REPO

#: What a child process needs from ours to run at all; everything else is left out, so a
#: developer's MCP_CODEGEN_* switches or PYTHONPATH cannot change what a test sees.
_KEPT = ("PATH", "HOME", "LANG", "SYSTEMROOT", "PYTHONDONTWRITEBYTECODE")

#: fastmcp's banner off: 3.x and later read FASTMCP_SHOW_SERVER_BANNER in ``run()``; 2.x reads
#: FASTMCP_SHOW_CLI_BANNER (its ``fastmcp run`` command only; ``run()`` shows it regardless).
QUIET_FASTMCP = {"FASTMCP_SHOW_SERVER_BANNER": "false", "FASTMCP_SHOW_CLI_BANNER": "false"}


def server_env(*importable: Path | str, **extra: str) -> dict[str, str]:
    """This checkout (then ``importable``) on ``PYTHONPATH``, unbuffered output, the few
    variables in ``_KEPT``, then ``extra`` (which may replace any of them)."""
    env = {key: os.environ[key] for key in _KEPT if key in os.environ}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *map(str, importable)])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env
