"""The user's cache directory: what depends on the installed Python and mcp-codegen only, not
on a project, kept once for every project's builds and servers (standard library only)."""

from __future__ import annotations

import os

#: The directory's name under ``$XDG_CACHE_HOME`` (or ``~/.cache``).
NAME = "mcp-codegen"


def user_cache_directory() -> str | None:
    """``$XDG_CACHE_HOME/mcp-codegen``, else ``~/.cache/mcp-codegen``; ``None`` when that is not
    an absolute path (no home directory): then nothing is kept there."""
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(user, NAME) if os.path.isabs(user) else None
