"""Which bytecode of the previous generated tree the next tree keeps.

The runtime loads a generated module with ``SourceFileLoader`` (``mcp_codegen._shared.reader``), which
uses ``__pycache__/<name>.<tag>.pyc`` when it records the source's mtime and size (or hash) and
compiles the source, and writes the ``.pyc``, when it does not. A file the next tree carries over
unchanged is a hard link (or ``shutil.copy2``) of the old one: same mtime, same size, so its
``.pyc`` is still valid, and keeping it spares the server's next start from compiling it again
(``bench/first_load.py``). Everything else in ``__pycache__`` is dropped:

- the bytecode of a changed or removed module: a file rewritten within the same second at the
  same size would pass the mtime check while holding other code;
- anything that is not a ``.pyc`` of a carried-over module (``mcp-codegen run``'s listing
  entries are keyed on the previous tree's bytes, so they are never read again).

Runs in: parent.
"""

from __future__ import annotations

import os
from pathlib import Path

BYTECODE_DIR = "__pycache__"


def kept_bytecode(cache: Path, root: Path, skip: set[str]) -> list[str]:
    """Names of the ``.pyc`` files in ``cache`` (a ``__pycache__`` directory under ``root``) that
    belong to a module carried over: its ``<name>.py`` beside ``cache`` is a regular file (not a
    link) whose path relative to ``root`` is not in ``skip`` (the changed and removed files)."""
    try:
        entries = sorted(os.scandir(cache), key=lambda entry: entry.name)
    except OSError:
        return []
    kept = []
    for entry in entries:
        stem, dot, _ = entry.name.partition(".")
        if not dot or not entry.name.endswith(".pyc") or not entry.is_file(follow_symlinks=False):
            continue
        source = cache.parent / f"{stem}.py"
        if source.relative_to(root).as_posix() in skip:
            continue
        if source.is_symlink() or not source.is_file():
            continue
        kept.append(entry.name)
    return kept
