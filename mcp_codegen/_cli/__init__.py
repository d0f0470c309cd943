"""``mcp-codegen`` command line: every command's options and its exit code, in one place.

Runs in: parent. (The default for every module of this package.)
"""

import os
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """``mcp-codegen``; ``run`` is dispatched before the other commands' imports (its stdio fast
    path answers within 1.5x of the interpreter's floor: docs/fastpath-run.md)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["run"]:
        from mcp_codegen._cli.run import main as run

        return run(args[1:])
    from mcp_codegen._cli.daemon.client import delegate

    delegated = delegate(args)  # the project's build daemon, when one runs, builds instead
    if delegated is not None:
        return delegated
    from mcp_codegen._generator.workers.prestart import BUILD_COMMANDS, command_index, start_early

    start_early(args)  # before the commands' imports, as ``python -m mcp_codegen`` does
    index = command_index(args)
    build = argv is None and index is not None and args[index] in BUILD_COMMANDS
    if build:  # this process is the build's: its heap lives until ``_leave``
        from mcp_codegen._generator.collector import collect_never

        collect_never()
    from mcp_codegen._cli.commands import main as commands

    code = commands(args)
    if build:
        _leave(code)
    return code


def _leave(code: int) -> None:
    """Flush stdout and stderr and end the process now, as mypy's ``hard_exit`` does.

    A build's files are written and closed, and its workers reaped, before the command returns;
    what is left is freeing every object and module, ~20-60 ms of an edit's build that nobody
    waits for (bench/edit_timeline.py, "end" to "exited"). The generator never imports user
    code, so no atexit hook of the user's is skipped."""
    import contextlib  # here: ``mcp-codegen`` imports this package before its workers start

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed, or its reader went away
            stream.flush()
    os._exit(code)
