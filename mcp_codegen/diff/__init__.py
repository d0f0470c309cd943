"""``mcp-codegen diff``: classify schema changes between two revisions of the generated tree.

Attributes load on first use, so registering the ``diff`` command costs nothing until it runs.

Runs in: parent. (The default for every module of this package.)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Change": "mcp_codegen._diff.changes",
    "ChangeKind": "mcp_codegen._diff.changes",
    "Severity": "mcp_codegen._diff.changes",
    "compare_tools": "mcp_codegen._diff.classify",
    "diff_sides": "mcp_codegen._diff.classify",
    "Side": "mcp_codegen._diff.revisions",
    "ToolEntry": "mcp_codegen._diff.revisions",
    "read_directory": "mcp_codegen._diff.revisions",
    "read_revision": "mcp_codegen._diff.revisions",
    "DiffReport": "mcp_codegen._diff.report",
    "build_report": "mcp_codegen._diff.report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mcp_codegen.diff' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
