"""``mcp-codegen diff``: classify schema changes between two revisions of the generated tree."""

from codegen.diff.classify import compare_tools, diff_sides
from codegen.diff.model import Change, ChangeKind, Severity
from codegen.diff.reader import Side, ToolEntry, read_directory, read_revision
from codegen.diff.report import DiffReport, build_report

__all__ = [
    "Change",
    "ChangeKind",
    "DiffReport",
    "Severity",
    "Side",
    "ToolEntry",
    "build_report",
    "compare_tools",
    "diff_sides",
    "read_directory",
    "read_revision",
]
