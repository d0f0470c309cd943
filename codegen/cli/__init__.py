"""``mcp-codegen`` command line: every command's options and its exit code, in one place."""

from codegen.cli.commands import main

__all__ = ["main"]
