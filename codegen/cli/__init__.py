"""``mcp-codegen`` command line: every command's options and its exit code, in one place.

Runs in: parent. (The default for every module of this package.)
"""

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """``mcp-codegen``; ``run`` is dispatched before the other commands' imports (its stdio fast
    path answers within 1.5x of the interpreter's floor: docs/fastpath-run.md)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["run"]:
        from codegen.cli.run import main as run

        return run(args[1:])
    from codegen.generator.workers.prestart import start_early

    start_early(args)  # before the commands' imports, as ``python -m codegen`` does
    from codegen.cli.commands import main as commands

    return commands(args)
