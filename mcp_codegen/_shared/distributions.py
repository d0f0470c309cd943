"""Installed distributions' versions, read from their metadata directories' names.

The build cache keys its libraries by version (``mcp_codegen._generator.cache.keys``), and a
server's protocol types are those of the installed SDK's major release
(``mcp_codegen._registration.served``): both read the version here, without importing
``importlib.metadata`` (0.1-0.2 s).
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache


@cache
def _listing(directory: str) -> tuple[str, ...]:
    try:
        return tuple(os.listdir(directory))
    except OSError:
        return ()


@cache
def installed_version(distribution: str) -> str | None:
    """The installed version, read from the ``*.dist-info`` / ``*.egg-info`` directory name on
    ``sys.path`` as ``importlib.metadata`` finds it (the first one on the path)."""
    wanted = re.sub(r"[-_.]+", "_", distribution).lower() + "-"
    for directory in sys.path:
        for entry in _listing(directory or "."):
            for suffix in (".dist-info", ".egg-info"):
                if entry.endswith(suffix) and entry.lower().startswith(wanted):
                    return entry[len(wanted) : -len(suffix)].split("-py")[0]
    return None


def installed_sdk1() -> str | None:
    """The installed MCP SDK's version when it is a 1.x release, else None: a 1.x SDK has no
    ``mcp_types`` of its own (its types are ``mcp.types``) and no dual-era server loop, so it
    decides the protocol types and that no server's opening is recorded."""
    version = installed_version("mcp")
    return version if version is not None and version.startswith("1.") else None
