"""Diagnostics: every user-facing problem is ``path:line:col: message``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    STALE = 1  # check found stale/missing/orphaned files, diff found breaking changes, verify mismatched
    USAGE = 2  # bad command line, bad config, bad source: nothing was written


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem at a source position. ``line``/``column`` are 1-based; 0 means unknown."""

    path: str
    line: int
    column: int
    message: str
    #: "error", "warning", "note", or "info" (a note shown only by ``generate -v``)
    severity: str = "error"

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        prefix = f"{self.severity}: " if self.severity in ("warning", "note") else ""
        prefix = "note: " if self.severity == "info" else prefix
        return f"{where}: {prefix}{self.message}"


class CodegenError(Exception):
    """Raised at the CLI boundary only; stages return diagnostics in their results."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))
