"""``mcp-codegen`` command line: every command's options and its exit code, in one place.

Runs in: parent. (The default for every module of this package.)
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mcp_codegen._generator.compiled_methods import Table
    from mcp_codegen._generator.workers.prestart import WarmWorkers

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """``mcp-codegen``'s start-up, the one sequence of the console script, ``python -m
    mcp_codegen`` and ``python -m mcp_codegen._cli``: ``run`` is dispatched before the other
    commands' imports (its stdio fast path answers within 1.5x of the interpreter's floor:
    docs/fastpath-run.md), then the project's build daemon may build instead, then the build's
    workers start (``prestart.start_early``) before the commands' imports, which they overlap.
    ``argv`` omitted: the process's own command line, and the process is the command's
    (``after_warm_up``'s ``own_process``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["run"]:
        # Imported here: the stdio fast path loads none of the other commands' modules.
        from mcp_codegen._cli.run import main as run

        return run(args[1:])
    # Imported here, after ``run``'s dispatch: the fast path must not pay for the socket client.
    from mcp_codegen._cli.daemon.client import delegate

    delegated = delegate(args)  # the project's build daemon, when one runs, builds instead
    if delegated is not None:
        return delegated
    # Imported here, as late as this: ``run`` above must not pay for it.
    from mcp_codegen._generator.workers.prestart import start_early

    # Before the commands' imports: their start-up overlaps them.
    return after_warm_up(args, start_early(args), own_process=argv is None)


def after_warm_up(args: list[str], warm: "WarmWorkers | None", *, own_process: bool) -> int:
    """The command line ``args`` once the build's warm-up (``prestart.start_early``) has
    started ``warm``: the build session adopts its workers, and those it did not take are
    stopped here. ``own_process``: the process is the command's, ended by ``_leave``."""
    # Imported here: ``python -m mcp_codegen`` started the workers before importing these.
    from mcp_codegen._generator.workers.prestart import BUILD_COMMANDS, command_index

    index = command_index(args)
    build = own_process and index is not None and args[index] in BUILD_COMMANDS
    methods = None
    if build:  # this process is the build's: its heap lives until ``_leave``
        # Imported here: only a build's process never collects.
        from mcp_codegen._generator.collector import collect_never

        collect_never()
        methods = _compiled_methods(args, warm)
    # Imported after the warm-up: the workers' start-up overlaps the commands' imports.
    from mcp_codegen._cli.commands import main as commands

    try:
        code = commands(args, warm=warm)
    finally:
        if warm is not None:
            warm.stop()  # workers that no build took (a cache hit, an error)
    if build:
        if methods is not None:
            methods.save()
        _leave(code)
    return code


def _compiled_methods(args: list[str], warm: "WarmWorkers | None") -> "Table | None":
    """The user's compiled dataclass methods, installed before the commands' imports make
    their classes (``mcp_codegen._generator.compiled_methods``; a build's process only, in a
    project: the table is the process's). The project's root is the warm-up's, found once."""
    # Imported here: ``run`` and the commands that do not build never load them.
    from mcp_codegen._generator.compiled_methods import install
    from mcp_codegen._generator.project import NO_CACHE
    from mcp_codegen._generator.workers.prestart import project_root

    root = warm.root if warm is not None else project_root(args)
    if root is None or NO_CACHE in args:
        return None
    return install()


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
