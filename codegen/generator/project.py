"""Where a project keeps its configuration and build cache, and how diagnostics name its files
(standard library only: ``codegen.generator.workers.prestart`` imports it before anything else).

Runs in: parent, worker.
"""

from pathlib import Path

CONFIG_NAME = "pyproject.toml"
CACHE_DIR = ".mcp-codegen-cache"


def nearest_config(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start``."""
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def project_root(path: str, relative_path: str) -> Path | None:
    """The directory that ``relative_path`` (how diagnostics name ``path``) is relative to."""
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
