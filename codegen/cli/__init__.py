"""``mcp-codegen`` command line: every command's options and its exit code, in one place.

Runs in: parent. (The default for every module of this package.)
"""

from codegen.cli.commands import main

__all__ = ["main"]
