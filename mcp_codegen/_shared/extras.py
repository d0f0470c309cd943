"""The message for a feature whose optional dependencies (an extra of the distribution) are not
installed: what is missing and the ``pip install`` line that adds it."""

from __future__ import annotations

#: The distribution that installs ``mcp-codegen`` (``mcp-codegen`` on PyPI is another project).
DISTRIBUTION = "mcp-schema-codegen"


def missing_extra(what: str, package: str, extra: str) -> str:
    """``"<what> needs <package>: pip install "mcp-schema-codegen[<extra>]""`` (double quotes:
    the line works in POSIX shells, PowerShell and cmd alike)."""
    return f'{what} needs {package}: pip install "{DISTRIBUTION}[{extra}]"'
