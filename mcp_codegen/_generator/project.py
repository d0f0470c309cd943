"""Where a project keeps its configuration and build cache, and how diagnostics name its files
(standard library only: ``mcp_codegen._generator.workers.prestart`` imports it before anything else,
so ``pathlib`` is imported only by the functions that return paths).

Runs in: parent, worker.
"""

from __future__ import annotations

import os

from mcp_codegen._shared.project_config import nearest_config_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

CACHE_DIR = ".mcp-codegen-cache"
#: The option of a build that neither reads nor writes ``CACHE_DIR`` (its workers get it too).
NO_CACHE = "--no-cache"


def nearest_config(start: Path) -> Path | None:
    """The nearest configuration (``mcp-codegen.toml`` or ``pyproject.toml``) at or above
    ``start``."""
    # pathlib (~6 ms): workers/prestart.py reads the configuration through this module first
    from pathlib import Path

    found = nearest_config_file(str(start))
    return Path(found) if found is not None else None


def config_file(option: str | None) -> str | None:
    """The configuration a command reads: ``--config``'s value (``option``) as a real path, or
    the nearest configuration at or above the working directory."""
    if option is not None:
        return os.path.realpath(option)
    return nearest_config_file(os.path.realpath(os.getcwd()))


def project_root(path: str, relative_path: str) -> Path | None:
    """The directory that ``relative_path`` (how diagnostics name ``path``) is relative to."""
    # pathlib (~6 ms): workers/prestart.py reads the configuration through this module first
    from pathlib import Path

    relative = Path(relative_path)
    if relative.is_absolute():
        return None
    return Path(path).resolve().parents[len(relative.parts) - 1]


def relative_to_root(path: Path, root: Path | None) -> str:
    """``path`` as diagnostics name it: relative to the project root when below it."""
    try:
        return path.resolve().relative_to(root).as_posix() if root else str(path)
    except ValueError:
        return str(path)
