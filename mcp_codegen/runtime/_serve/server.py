"""An MCP server, on the official SDK's low-level ``Server``, for generated tool schemas.

``tools/list`` serves the generated dicts as they are: nothing is inferred at runtime. The first
``tools/call`` imports the call machinery (jsonschema, pydantic converters) lazily.

Run it with ``python -m mcp_codegen.runtime --generated generated`` (stdio) or add
``--transport http --port 8000`` for streamable HTTP at ``http://127.0.0.1:8000/mcp``.

Both transports refuse a message larger than ``--max-message-bytes`` (default 4 MiB, the SDK's
HTTP limit) and answer malformed input with a JSON-RPC error; ``--call-timeout`` bounds a tool.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from mcp_codegen._shared.profile_names import (
    PROFILES,  # not mcp_codegen._profiles: see profile_names
)
from mcp_codegen._shared.protocols import missing_variant
from mcp_codegen.runtime._load.registry import GeneratedModuleError, ToolRegistry, load_tools

# Only os and sys at import time: the stdio fast path answers before anything else is needed
# (argparse, logging, typing and contextlib cost milliseconds there; see bench/startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from mcp import types
    from mcp.server import Server, ServerRequestContext

    from mcp_codegen.runtime._call.invoke import Dependencies, ToolCaller
    from mcp_codegen.runtime._stdio.fastpath import Handover

DEFAULT_NAME = "mcp-codegen"
#: The SDK's default limit on a streamable HTTP request body, used for stdio lines too.
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
EXIT_OK = 0
EXIT_USAGE = 2


def build_server(
    registry: ToolRegistry,
    *,
    name: str = DEFAULT_NAME,
    strict_output: bool = False,
    call_timeout: float | None = None,
    dependencies: Dependencies | None = None,
) -> Server[Any]:
    """A low-level SDK ``Server`` serving ``registry``'s tools.

    ``strict_output`` validates structured output against each tool's ``outputSchema``;
    ``call_timeout`` (seconds) turns a tool that runs longer into an ``isError`` result;
    ``dependencies`` maps a class to a factory for parameters that are not in the input schema.
    """
    import warnings  # the SDK door: after the fast path's answers (bench/startup.py)

    from mcp.server import Server
    from mcp.shared.exceptions import MCPDeprecationWarning

    handlers = _Handlers(registry, strict_output, call_timeout, dependencies)
    with warnings.catch_warnings():
        # SDK 2.x warns that 2026-07-28 drops logging/setLevel; handshake clients still send it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return Server(
            name,
            version=registry.schema_set_version,
            on_list_tools=handlers.list_tools,
            on_call_tool=handlers.call_tool,
            on_set_logging_level=handlers.set_logging_level,
            get_tool_input_schema=handlers.input_schema,
        )


class _Handlers:
    """What ``build_server``'s ``Server`` answers with, over one registry."""

    def __init__(
        self,
        registry: ToolRegistry,
        strict_output: bool,
        call_timeout: float | None,
        dependencies: Dependencies | None,
    ) -> None:
        self._registry = registry
        self._strict_output = strict_output
        self._call_timeout = call_timeout
        self._dependencies = dependencies
        self._caller: ToolCaller | None = None

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> dict[str, Any]:
        # A fresh copy per request: nothing downstream can alter the registry's data. The
        # 2026-07-28 cache fields are dropped by the SDK on older protocol versions; the output
        # schemas are those of the negotiated revision (natural from 2026-07-28, else boxed).
        _refuse_missing_variant(self._registry, _negotiated(ctx))
        return {
            "tools": self._registry.list_tools(_negotiated(ctx)),
            "ttlMs": 0,
            "cacheScope": "private",
            "resultType": "complete",
        }

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        from mcp import types  # the SDK door is imported by now: a dictionary look-up
        from mcp.shared.exceptions import MCPError

        registry = self._registry
        _refuse_missing_variant(registry, _negotiated(ctx))
        if params.name not in registry:
            unknown = _unknown_tool_text(registry.flavor, params.name)
            if unknown is not None:  # what the flavor's framework answers: a tool result
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=unknown)], is_error=True
                )
            # The spec reports an unknown tool as a protocol error, not as a tool result.
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        if self._caller is None:
            # jsonschema and pydantic's converters: at the first call, not at the start
            from mcp_codegen.runtime._call.invoke import ToolCaller

            self._caller = ToolCaller(
                registry,
                strict_output=self._strict_output,
                call_timeout=self._call_timeout,
                dependencies=self._dependencies,
            )
        return await self._caller.call(params.name, params.arguments, request=ctx, params=params)

    def input_schema(self, tool_name: str) -> Mapping[str, Any] | None:
        registry = self._registry
        return registry.get_tool(tool_name)["inputSchema"] if tool_name in registry else None

    async def set_logging_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        # Accepted, as MCP clients send it before calls (the conformance suite does); tools log
        # through their Context, which sends every level: the client filters what it shows.
        from mcp import types  # the SDK door is imported by now: a dictionary look-up

        return types.EmptyResult()


def _negotiated(ctx: ServerRequestContext[Any] | None) -> str | None:
    """The protocol version the request's connection (or, from 2026-07-28, the request) uses;
    ``None`` when called without one (in-process), which means the newest revision."""
    return getattr(ctx, "protocol_version", None)


def _refuse_missing_variant(registry: ToolRegistry, protocol_version: str | None) -> None:
    """A JSON-RPC error when the schemas were generated without this revision's variant."""
    problem = missing_variant(registry.protocols, protocol_version)
    if problem is not None:
        # the SDK door is imported by now: a dictionary look-up
        from mcp import types
        from mcp.shared.exceptions import MCPError

        raise MCPError(code=types.INVALID_REQUEST, message=problem)


def _unknown_tool_text(flavor: str, name: str) -> str | None:
    """The ``isError`` text the flavor's framework sends for an unknown tool; ``None`` in flavor
    ``"clean"``, which answers with the JSON-RPC error the MCP specification describes."""
    if flavor == "mcp":
        return f"Unknown tool: {name}"  # MCPServer: ToolError(f"Unknown tool: {name}")
    if flavor == "fastmcp":
        return f"Unknown tool: {name!r}"
    return None


async def serve_stdio(
    server: Server[Any],
    *,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    handover: Handover | None = None,
) -> None:
    """Serve one client over this process's stdin/stdout until it closes stdin.

    ``handover``: the fast path's session, which this door continues (``_stdio.fastpath``).
    """
    # the SDK's stdio transport (~600 ms with the SDK): after the fast path's answers
    from mcp_codegen.runtime._stdio.transport import stdio_transport

    async with stdio_transport(
        max_message_bytes=max_message_bytes,
        claimed=None if handover is None else handover.claimed,
        answered=() if handover is None else handover.answered,
    ) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    server: Server[Any],
    *,
    host: str,
    port: int,
    path: str = "/mcp",
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> None:
    """Serve streamable HTTP at ``http://host:port/path`` until interrupted."""
    # uvicorn (~110 ms): HTTP only
    import uvicorn

    app = server.streamable_http_app(
        streamable_http_path=path, host=host, max_request_body_size=max_message_bytes
    )
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    print(f"serving MCP over streamable HTTP at http://{host}:{port}{path}", file=sys.stderr)
    await uvicorn.Server(config).serve()


#: The command line, as (flag, argparse keyword arguments): argparse builds the parser from it,
#: and ``_quick_options`` reads a plain command line with it, without importing argparse.
OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "--config",
        {
            "default": None,
            "metavar": "PATH",
            "help": "pyproject.toml or mcp-codegen.toml whose [tool.mcp-codegen] gives the "
            "defaults of --generated (output), --name (server_name) and --path (python_path and "
            "the sources' import roots); default: the nearest above the working directory that "
            "has the table, else the nearest above --generated",
        },
    ),
    (
        "--generated",
        {
            "default": None,
            "help": "generated output directory, or its importable package name "
            "(default: the configuration's output, else generated)",
        },
    ),
    (
        "--path",
        {
            "action": "append",
            "default": None,
            "metavar": "DIR",
            "help": "directory to put on sys.path so tool modules import "
            "(repeatable; default: the configuration's import roots and cwd)",
        },
    ),
    ("--transport", {"choices": ("stdio", "http"), "default": "stdio"}),
    ("--host", {"default": "127.0.0.1", "help": "HTTP host (default: 127.0.0.1)"}),
    ("--port", {"type": int, "default": 8000, "help": "HTTP port (default: 8000)"}),
    ("--http-path", {"default": "/mcp", "help": "HTTP endpoint path (default: /mcp)"}),
    (
        "--name",
        {
            "default": None,
            "help": "server name sent to clients (default: the configuration's server_name, "
            f"else {DEFAULT_NAME})",
        },
    ),
    (
        "--profile",
        {
            "choices": tuple(PROFILES),
            "default": None,
            "help": "serve tools/list through a client profile (arguments are still validated "
            "against the generated schemas; see `mcp-codegen lint`)",
        },
    ),
    (
        "--strict-output",
        {
            "action": "store_true",
            "help": "validate structured output against outputSchema; a mismatch is an "
            "isError result",
        },
    ),
    (
        "--call-timeout",
        {
            "type": float,
            "default": None,
            "metavar": "SECONDS",
            "help": "a tool call running longer gives an isError result (default: no limit)",
        },
    ),
    (
        "--max-message-bytes",
        {
            "type": int,
            "default": DEFAULT_MAX_MESSAGE_BYTES,
            "metavar": "BYTES",
            "help": "refuse larger requests, a stdio line or an HTTP body "
            f"(default: {DEFAULT_MAX_MESSAGE_BYTES} = 4 MiB)",
        },
    ),
    (
        "--no-fast-path",
        {
            "action": "store_true",
            "help": "stdio: let the SDK answer from the first message, as before the fast path "
            "(also MCP_CODEGEN_NO_FAST_PATH=1)",
        },
    ),
    (
        "--log-level",
        {
            "default": "WARNING",
            "choices": ("DEBUG", "INFO", "WARNING", "ERROR"),
            "help": "stderr log level (default: WARNING)",
        },
    ),
)


def _parser(prog: str) -> argparse.ArgumentParser:
    # argparse (~8 ms, with re): only when _quick_options cannot read the line
    import argparse

    class HelpFormatter(argparse.HelpFormatter):
        """argparse's formatter without a terminal query: add_argument builds a formatter each
        time, and the default one imports shutil to ask for the width (milliseconds)."""

        def __init__(self, prog: str) -> None:
            try:
                width = int(os.environ.get("COLUMNS", "")) - 2
            except ValueError:
                width = 78
            super().__init__(prog, width=max(width, 40))

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve generated MCP tool schemas with the official MCP SDK.",
        formatter_class=HelpFormatter,
    )
    for flag, keywords in OPTIONS:
        parser.add_argument(flag, **keywords)
    return parser


def _quick_options(argv: Sequence[str]) -> Any:
    """The options of a plain command line (only ``--flag value`` / ``--flag=value`` of known
    flags, values that need no guessing) without importing argparse, which costs milliseconds
    before the fast path's first answer; ``None`` for anything else (argparse then decides)."""
    values: dict[str, Any] = {}
    specs: dict[str, dict[str, Any]] = {}
    for flag, keywords in OPTIONS:
        dest = flag[2:].replace("-", "_")
        values[dest] = False if keywords.get("action") == "store_true" else keywords["default"]
        specs[flag] = {**keywords, "dest": dest}
    index = 0
    while index < len(argv):
        name, equals, inline = argv[index].partition("=")
        spec = specs.get(name)
        if spec is None:
            return None  # -h, abbreviations, unknown flags, positionals: argparse's to judge
        if spec.get("action") == "store_true":
            if equals:
                return None
            values[spec["dest"]] = True
            index += 1
            continue
        if equals:
            value, index = inline, index + 1
        elif index + 1 < len(argv) and not argv[index + 1].startswith("-"):
            value, index = argv[index + 1], index + 2
        else:
            return None
        if "type" in spec:
            try:
                value = spec["type"](value)
            except ValueError:
                return None
        if "choices" in spec and value not in spec["choices"]:
            return None
        if spec.get("action") == "append":
            values[spec["dest"]] = [*(values[spec["dest"]] or []), value]
        else:
            values[spec["dest"]] = value
    return SimpleNamespace(**values)


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m mcp_codegen.runtime") -> int:
    """Command-line entry point; returns the process exit code (2: no usable generated output)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    options = _quick_options(arguments) or _parser(prog).parse_args(arguments)
    if options.call_timeout is not None and not 0 < options.call_timeout < float("inf"):
        print("error: --call-timeout must be a positive number of seconds", file=sys.stderr)
        return EXIT_USAGE
    if options.max_message_bytes <= 0:
        print("error: --max-message-bytes must be a positive number of bytes", file=sys.stderr)
        return EXIT_USAGE
    try:
        _configured(options)
    except ValueError as exc:  # mcp_codegen._shared.project_config.ConfigError
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for directory in reversed(options.path or [os.curdir]):
        sys.path.insert(0, os.path.abspath(directory))
    if not _sdk_installed():
        return _sdk_missing(prog)
    try:
        registry = load_tools(options.generated, profile=options.profile)
    except GeneratedModuleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not options.name:  # the name the tree was generated with (``_configured``)
        options.name = registry.server_name or DEFAULT_NAME
    try:
        return _serve(options, registry)
    except ModuleNotFoundError as exc:  # found on sys.path but not importable (an import hook)
        if exc.name is None or exc.name.partition(".")[0] not in _SDK_PACKAGES:
            raise
        return _sdk_missing(prog)


#: The top-level packages of the official SDK (2.x ships its types as ``mcp_types``).
_SDK_PACKAGES = ("mcp", "mcp_types")


def _sdk_installed() -> bool:
    """Whether ``import mcp`` can work: a package directory on ``sys.path`` (two ``stat`` calls
    per entry, nothing imported: the fast path's first answer waits on this), else what
    ``importlib`` finds (zips, import hooks; only when the quick look found nothing)."""
    for entry in sys.path:
        if isinstance(entry, str) and os.path.isfile(
            os.path.join(entry or os.curdir, "mcp", "__init__.py")
        ):
            return True
    # importlib.util (~4 ms): only when no package directory has it
    import importlib.util

    try:
        return importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):
        return False


def _sdk_missing(prog: str) -> int:
    # only to report the missing SDK
    from mcp_codegen._shared.extras import missing_extra

    print(missing_extra(prog, "the official MCP SDK (mcp)", "server"), file=sys.stderr)
    return EXIT_USAGE


def _serve(options: Any, registry: ToolRegistry) -> int:
    """Serve ``registry`` as ``options`` say until the client leaves; the exit code."""

    def prepare() -> Callable[[Handover | None], int]:
        """Import and build the SDK door; the returned function serves with it."""
        # the SDK door (~600 ms): on the preloading thread, after the first answers
        import contextlib
        import logging

        import anyio

        logging.basicConfig(
            level=options.log_level, stream=sys.stderr, format="%(name)s: %(message)s"
        )

        server = build_server(
            registry,
            name=options.name,
            strict_output=options.strict_output,
            call_timeout=options.call_timeout,
        )

        async def serve(handover: Handover | None) -> None:
            if options.transport == "stdio":
                await serve_stdio(
                    server, max_message_bytes=options.max_message_bytes, handover=handover
                )
            else:
                await serve_http(
                    server,
                    host=options.host,
                    port=options.port,
                    path=options.http_path,
                    max_message_bytes=options.max_message_bytes,
                )
            _exit_now_if_tools_still_run()

        def run(handover: Handover | None) -> int:
            with contextlib.suppress(KeyboardInterrupt):
                anyio.run(serve, handover)
            _exit_now_if_tools_still_run()  # after an interrupt too: shutdown would wait on them
            return EXIT_OK

        return run

    if options.transport != "stdio":
        return prepare()(None)
    # the serving start-up and the fast path (stdlib only, ~2.5 ms): serving stdio only
    from mcp_codegen.runtime._serve import startup
    from mcp_codegen.runtime._stdio import fastpath

    def opening() -> fastpath.Opening | None:
        return fastpath.sdk_opening(
            registry,
            name=options.name,
            max_message_bytes=options.max_message_bytes,
            prepare=prepare,
        )

    try:
        return startup.serve_stdio(
            no_fast_path=options.no_fast_path, opening=opening, plain=lambda: prepare()(None)
        )
    except KeyboardInterrupt:
        return EXIT_OK


def _configured(options: Any) -> None:
    """Fill ``--generated``, ``--name`` and ``--path`` left unset from the project's
    configuration (``--config``, else the nearest above the working directory with the table,
    else the nearest above the ``--generated`` directory); explicit options win."""
    # The name the tree was generated with: its manifest is read once, by ``load_tools``.
    named_by_tree = options.config is None and bool(options.generated) and not options.name
    if options.config is None and options.generated and options.path:
        return  # nothing left to fill: no file is read (tomllib's import costs more than the
        # fast path's whole answer: re, typing and datetime)
    # only when an option is left to the configuration (~1 ms, tomllib later)
    from mcp_codegen._shared import project_config as project
    from mcp_codegen.runtime._serve.startup import serving_settings

    def beside_the_tree() -> str | None:
        generated = options.generated
        if generated is None or not os.path.isdir(generated):
            return None
        return project.nearest_config_file(os.path.realpath(generated), require_table=True)

    settings = serving_settings(options.config, beside_the_tree)
    options.generated = options.generated or (
        settings.output if settings else project.DEFAULT_OUTPUT
    )
    if not named_by_tree:
        options.name = options.name or (settings and settings.server_name) or DEFAULT_NAME
    options.path = options.path or [*(settings.import_paths if settings else ()), os.curdir]


def _exit_now_if_tools_still_run() -> None:
    """Exit at once when timed-out tool calls still run: waiting for them could take forever.

    A thread cannot be stopped and a task may ignore cancellation; interpreter shutdown would
    wait for both. Serving is over and every answer has been written, so nothing is lost.
    """
    calls = sys.modules.get("mcp_codegen.runtime._call.runs")  # never imported: no tool was called
    if calls is None:
        return
    running = calls.abandoned_calls()
    if running:
        # logging (~12 ms): only when timed-out calls still run
        import logging

        logging.getLogger("mcp_codegen.runtime").warning(
            "exiting with %d timed-out tool call(s) still running", running
        )
        logging.shutdown()
        sys.stderr.flush()
        os._exit(EXIT_OK)
