"""``mcp-codegen run``: start an unchanged MCPServer / FastMCP server with ``use_generated`` on.

``TARGET`` is ``module:function`` (called like a console-script entry point, with ``sys.argv``
set to the target followed by the arguments after ``--``), ``module:object`` (its ``.run()``
is called) or a factory call with literal arguments, optionally with a chain to the server,
``module:create_server('x')`` or ``module:CatalogServer('books').mcp`` (called as the config's
``factories`` are; the server it reaches is ``.run()``). The current directory is importable, as
with ``python -m``.

Runs in: server.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing, inspect, argparse (with re) and the diagnostics module cost
    import argparse  # milliseconds before the fast path's first answer (bench/run_fastpath.py)
    from typing import Any

_OK, _USAGE = 0, 2  # mcp_codegen._shared.diagnostics._OK / USAGE

PROG = "mcp-codegen run"


def build_parser() -> argparse.ArgumentParser:
    # argparse (~8 ms, with re): only when _quick_options cannot read the line
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} [--config PATH] [--generated DIR] [--strict] [--no-fast-path] "
        "[--no-gc-pause] TARGET [-- ARGS...]",
        description="Run your own MCP server with its tools registered from generated modules "
        "(no schema inference at start-up); everything else stays the framework's.",
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="PATH",
        help="pyproject.toml or mcp-codegen.toml to read [tool.mcp-codegen] from (default: the "
        "nearest above the working directory that has the table, else the nearest above "
        "TARGET's package)",
    )
    parser.add_argument(
        "--generated",
        default=None,
        metavar="DIR",
        help="generated output directory (default: the configuration's `output`, else generated)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse to start when a tool has no current generated entry (instead of one "
        "warning per tool and the framework's own inference); with the fast path, every "
        "generated module's source and every project module TARGET imports is checked "
        "before the first answer (without --strict a changed one turns the fast path off "
        "with one note)",
    )
    parser.add_argument(
        "--no-fast-path",
        action="store_true",
        help="over stdio, let the framework answer from the first message. By default, when "
        "the generated tree records TARGET's initialize answer (generate records the servers "
        "its tool modules bind, and `run_targets`), initialize, ping and tools/list are "
        "answered from those literals while the server imports in the background, and the "
        "session is handed to the framework for everything else. A server with tools kept "
        "with the framework (registered at run time) answers tools/list from the framework. "
        "HTTP is unchanged. See docs/fastpath-run.md",
    )
    parser.add_argument(
        "--no-gc-pause",
        action="store_true",
        help="keep Python's cyclic garbage collector running while the server starts. By "
        "default it is paused until TARGET is loaded (it would traverse the growing heap of "
        "modules and classes again and again), then one full collection frees the cycles the "
        "start-up left and it runs as usual. See docs/fastpath-run.md",
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="module:function (called like a console script), module:object (.run() is "
        "called), or \"module:factory('literal').attr\" (the server it reaches is .run())",
    )
    return parser


def main(argv: list[str]) -> int:
    """Parse ``argv`` (everything after ``run``), install the hook and start the target."""
    split = argv.index("--") if "--" in argv else len(argv)
    options = _quick_options(argv[:split]) or build_parser().parse_args(argv[:split])
    forwarded = argv[split + 1 :]
    module_name, colon, attribute = options.target.partition(":")
    if not colon or not module_name or not attribute:
        return _fail(
            "TARGET must be module:function or module:object (or module:factory(literal "
            f"arguments)), not {options.target!r}"
        )

    collector = PausedCollector(pause=not options.no_gc_pause)

    def load() -> Any:  # a factory call is parsed here: its parser imports ~30 ms
        return _resolve(module_name, attribute)  # (ast, inspect, typing) before any answer

    def resolve() -> Any:  # the last import before serving: the fast path's runs on its thread
        try:
            return load()
        finally:
            collector.resume()

    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        options.generated = _generated_directory(options.config, options.generated, module_name)
    except ValueError as exc:  # mcp_codegen._shared.project_config.ConfigError
        return _fail(str(exc))
    if not options.no_fast_path:  # MCP_CODEGEN_NO_FAST_PATH: ``serve_in_front`` returns None
        # Only the front's modules before its first answer: the hook's index and error classes
        # (``mcp_codegen.runtime._hook.entries``, ~3 ms) load with the server, or on a refusal.
        from mcp_codegen.runtime._hook.install import serve_in_front

        try:
            code = serve_in_front(
                options.generated,
                options.target,
                strict=options.strict,
                resolve=resolve,
                start=lambda target: _start(options.target, target, forwarded),
            )
        except Exception as exc:
            if (refused := _refused(options.target, exc)) is not None:
                return refused
            raise
        if code is not None:
            return code
    # the plain start: the hook's index and errors (~3 ms), once the fast path declined
    from mcp_codegen.runtime import GeneratedModuleError
    from mcp_codegen.runtime._hook.install import GeneratedSchemaError, use_generated

    if "(" in attribute:  # mcp_codegen._registration.factory_calls.is_factory_call
        # the parser (~22 ms: ast, inspect): only for a factory-call target
        from mcp_codegen._registration.factory_calls import FactoryCallError, parse_factory_call

        try:
            load = parse_factory_call(options.target).call
        except FactoryCallError as exc:
            return _fail(f"TARGET {exc}")
    try:
        use_generated(options.generated, strict=options.strict)
        target = resolve()
    except GeneratedSchemaError as exc:
        return _fail(str(exc))
    except GeneratedModuleError as exc:  # a deleted or corrupt generated file
        # only on a refusal
        from mcp_codegen._shared import project_config as project
        from mcp_codegen._shared.format import tree_regenerate_command

        if project.module_spec(module_name) is None:  # the real cause: the package is not found
            top = module_name.partition(".")[0]
            return _fail(f"cannot load {options.target}: No module named {top!r}")
        regenerate = tree_regenerate_command(options.generated)
        hint = "" if "run `" in str(exc) else f"; run `{regenerate}`"
        return _fail(f"refusing to start: {exc}{hint}")
    except (ImportError, AttributeError) as exc:
        return _fail(f"cannot load {options.target}: {exc}")
    return _start(options.target, target, forwarded)


class PausedCollector:
    """Python's cyclic garbage collector, off from ``run``'s start until the server is loaded.

    Starting a server builds modules, classes and functions that live as long as the process
    (the SDK's, the framework's, your server's); the generational collector, run every 700
    allocations, traverses them again and again as the heap grows: 118 M of the 3,419 M
    instructions to duckduckgo-mcp-server's first tools/call answer. ``resume`` runs one full
    collection instead, which frees the cycles the start-up left, as the collector would have,
    and moves the survivors to the oldest generation (docs/fastpath-run.md, "The start-up").
    """

    def __init__(self, *, pause: bool) -> None:
        self._paused = pause and gc.isenabled()
        if self._paused:
            gc.disable()

    def resume(self) -> None:
        """One full collection, and the collector on again: once, and only when this paused it
        and nothing turned it back on since."""
        if self._paused:
            self._paused = False
            if not gc.isenabled():
                gc.collect()
                gc.enable()


def _start(name: str, target: Any, forwarded: list[str]) -> int:
    # inspect (~15 ms): at the handover, not before the first answer
    import inspect

    sys.argv = [name, *forwarded]
    if inspect.isroutine(target) or (callable(target) and not hasattr(target, "run")):
        return _exit_code(target())
    if callable(getattr(target, "run", None)):
        return _exit_code(target.run())
    return _fail(f"{name} is neither callable nor has a .run() method")


def _generated_directory(config: str | None, generated: str | None, module: str) -> str:
    """The tree ``run`` serves: ``--generated``, else the configuration's ``output``. The
    configuration (``--config``, else the nearest above the working directory that has the
    table, else the nearest above ``module``'s package) also puts its import roots on
    ``sys.path``; with ``--generated`` and a ``module`` that is found, none is read."""
    # after the options parsed: not for `run --help` (~1 ms)
    from mcp_codegen._shared import project_config as project
    from mcp_codegen.runtime._serve.startup import serving_settings

    if config is None and generated is not None and project.module_spec(module) is not None:
        return os.path.abspath(generated)
    settings = serving_settings(config, lambda: project.module_config_file(module))
    if settings is None:
        return os.path.abspath(generated or project.DEFAULT_OUTPUT)
    sys.path[1:1] = [p for p in settings.import_paths if p not in sys.path]
    return os.path.abspath(generated or settings.output)


class _Options:
    def __init__(
        self,
        target: str,
        generated: str | None,
        strict: bool,
        no_fast_path: bool,
        no_gc_pause: bool,
        config: str | None = None,
    ) -> None:
        self.target, self.generated, self.config = target, generated, config
        self.strict, self.no_fast_path, self.no_gc_pause = strict, no_fast_path, no_gc_pause


def _quick_options(argv: list[str]) -> _Options | None:
    """The options of a plain command line without argparse (which costs ~10 ms with ``re``
    before the fast path's first answer); ``None``: let argparse parse it (help, errors)."""
    values: dict[str, str | None] = {"--generated": None, "--config": None}
    flags, targets = set(), []
    arguments = iter(argv)
    for argument in arguments:
        name, equals, inline = argument.partition("=")
        if argument in ("--strict", "--no-fast-path", "--no-gc-pause"):
            flags.add(argument)
        elif name in values:
            value = inline if equals else next(arguments, "")
            if not value or value.startswith("-"):
                return None
            values[name] = value
        elif argument.startswith("-"):
            return None
        else:
            targets.append(argument)
    if len(targets) != 1:
        return None
    return _Options(
        targets[0],
        values["--generated"],
        "--strict" in flags,
        "--no-fast-path" in flags,
        "--no-gc-pause" in flags,
        values["--config"],
    )


def _resolve(module_name: str, attribute: str) -> Any:
    # the target's import: on the import thread, after the opening
    import importlib

    if "(" in attribute:  # a factory call and its chain, literal arguments only
        # the parser (~22 ms: ast, inspect): only for a factory-call target
        from mcp_codegen._registration.factory_calls import parse_factory_call

        return parse_factory_call(f"{module_name}:{attribute}").call()
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


def _refused(target: str, exc: Exception) -> int | None:
    """The refusal for what the fast path's start raised (``None``: not a refusal, re-raise)."""
    # only on a refusal: the hook's errors (~3 ms) are not needed before the first answer
    from mcp_codegen.runtime import GeneratedModuleError
    from mcp_codegen.runtime._hook.install import GeneratedSchemaError

    if isinstance(exc, (GeneratedSchemaError, GeneratedModuleError)):
        return _fail(str(exc))  # the cause and its fix (a stale or unreadable generated tree)
    if isinstance(exc, (ImportError, AttributeError)):
        return _fail(f"cannot load {target}: {exc}")
    if isinstance(exc, ValueError):
        return _bad_factory_call(exc)
    return None


def _bad_factory_call(exc: ValueError) -> int | None:
    """The refusal for a factory call ``TARGET`` that does not parse (found when the fast path
    resolves it: a recorded spelling always parses); ``None`` for any other error."""
    # the parser (~22 ms: ast, inspect): only for a factory-call target
    from mcp_codegen._registration.factory_calls import FactoryCallError

    return _fail(f"TARGET {exc}") if isinstance(exc, FactoryCallError) else None


def _exit_code(value: Any) -> int:
    """What ``sys.exit(value)`` would exit with, as a console script's wrapper does."""
    if value is None:
        return _OK
    if isinstance(value, int):
        return value
    print(value, file=sys.stderr)
    return 1


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return _USAGE
