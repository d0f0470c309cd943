"""``mcp-codegen diff``: classify schema changes between two revisions of the generated tree.

Attributes load on first use, so registering the ``diff`` command costs nothing until it runs.

Runs in: parent. (The default for every module of this package.)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Change": "codegen.diff.changes",
    "ChangeKind": "codegen.diff.changes",
    "Severity": "codegen.diff.changes",
    "compare_tools": "codegen.diff.classify",
    "diff_sides": "codegen.diff.classify",
    "Side": "codegen.diff.revisions",
    "ToolEntry": "codegen.diff.revisions",
    "read_directory": "codegen.diff.revisions",
    "read_revision": "codegen.diff.revisions",
    "DiffReport": "codegen.diff.report",
    "build_report": "codegen.diff.report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'codegen.diff' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
