"""Which files are tool sources, and what they are called when imported (standard library only).

Kept apart from ``scan`` so that a build-cache hit never has to import libcst.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from codegen.config import Config
from codegen.errors import Diagnostic

_SKIPPED_DIRS = {"__pycache__", "node_modules", ".git", ".nox", ".venv", "venv", ".tox"}


def source_sha256(data: bytes) -> str:
    """Hash of the source with line endings normalised, so CRLF checkouts agree with LF ones."""
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


def discover_sources(config: Config) -> tuple[list[Path], list[Diagnostic]]:
    """Expand ``sources`` into a sorted list of ``.py`` files (the output directory is excluded)."""
    files: set[Path] = set()
    problems: list[Diagnostic] = []
    for source in config.sources:
        if source.is_file():
            if source.suffix == ".py":
                files.add(source)
            else:
                problems.append(
                    Diagnostic(
                        str(source), 0, 0, "source is not a .py file; list .py files or dirs"
                    )
                )
        elif source.is_dir():
            for path in source.rglob("*.py"):
                relative_parts = path.relative_to(source).parts[:-1]
                if any(p in _SKIPPED_DIRS or p.startswith(".") for p in relative_parts):
                    continue
                if config.output == path or config.output in path.parents:
                    continue
                files.add(path)
        else:
            problems.append(
                Diagnostic(
                    str(config.config_file),
                    0,
                    0,
                    f"source {config.relative(source)!r} does not exist; fix `sources` in "
                    "[tool.mcp-codegen]",
                )
            )
    return sorted(files, key=lambda p: config.relative(p)), problems


def module_name_for(path: Path) -> tuple[str, Path]:
    """Dotted import name of ``path`` and the directory that must be on ``sys.path``.

    Walks up while the parent directory is a package (has ``__init__.py``), as pytest's
    ``prepend`` import mode does; a ``src/`` layout therefore resolves to its packages.
    """
    parts = [] if path.name == "__init__.py" else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts), directory
