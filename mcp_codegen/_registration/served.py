"""What a server object serves for ``tools/list``, read off its own JSON-RPC stream.

The server runs in-process on the official SDK's in-memory streams, exactly as the frameworks'
own test clients drive it; the request is sent and the response read as raw JSON-RPC, so the
dicts returned are the wire form, not a client model re-serialised. Works for the SDK 2.x
``MCPServer``, SDK 1.x ``FastMCP``, ``fastmcp.FastMCP`` and any low-level SDK ``Server`` (the
``mcp_codegen.runtime`` server included).

Runs in: worker.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import AsyncIterator
from typing import Any

from mcp_codegen._shared.distributions import installed_sdk1

#: The newest revision reachable through the ``initialize`` handshake in SDK 2.x; the 1.x SDK
#: answers with its own latest when it does not know this one.
HANDSHAKE_PROTOCOL_VERSION = "2025-11-25"


class UnsupportedServer(TypeError):
    """The object is not a server of a known framework."""


def framework_of(server: object) -> str:
    """``"mcp"`` (SDK 2.x MCPServer), ``"mcp1"`` (SDK 1.x FastMCP), ``"fastmcp"`` or ``"lowlevel"``."""
    for klass in type(server).__mro__:
        where = f"{klass.__module__}.{klass.__qualname__}"
        if where.startswith("mcp.server.mcpserver.") and klass.__name__ == "MCPServer":
            return "mcp"
        if where.startswith("mcp.server.fastmcp.") and klass.__name__ == "FastMCP":
            return "mcp1"
        if where.startswith("fastmcp.") and klass.__name__ == "FastMCP":
            return "fastmcp"
        if where.startswith("mcp.server.lowlevel.") and klass.__name__ == "Server":
            return "lowlevel"
    raise UnsupportedServer(
        f"{type(server).__module__}.{type(server).__qualname__} is not an MCP server object; "
        "pass an mcp MCPServer (SDK 2.x), an mcp FastMCP (SDK 1.x), a fastmcp.FastMCP or a "
        "low-level mcp.server.Server"
    )


def _lowlevel(server: Any, framework: str) -> Any:
    if framework == "mcp":
        return server._lowlevel_server
    if framework in ("mcp1", "fastmcp"):
        return server._mcp_server
    return server


@contextlib.asynccontextmanager
async def _lifespan(server: Any, framework: str) -> AsyncIterator[None]:
    # fastmcp's in-memory transport enters the server's lifespan around the low-level run;
    # the SDK's servers, and fastmcp before 2.10 (no ``_lifespan_manager``: its low-level
    # server holds the lifespan), enter theirs inside ``run``.
    if framework == "fastmcp" and hasattr(server, "_lifespan_manager"):
        async with server._lifespan_manager():
            yield
    else:
        yield


@contextlib.asynccontextmanager
async def _lifespan_skipped(lowlevel: Any) -> AsyncIterator[None]:
    """The low-level server runs without its lifespan (every SDK release enters
    ``lowlevel.lifespan`` in ``run``; fastmcp's wraps the user's in it)."""

    @contextlib.asynccontextmanager
    async def empty(_: Any) -> AsyncIterator[dict[str, Any]]:
        yield {}

    saved = lowlevel.__dict__.get("lifespan")
    lowlevel.lifespan = empty
    try:
        yield
    finally:
        if saved is None:
            del lowlevel.lifespan
        else:
            lowlevel.lifespan = saved


async def served_tools(server: Any, lifespan: bool = True) -> list[dict[str, Any]]:
    """The ``tools`` of every ``tools/list`` page the server sends, as raw JSON objects;
    without ``lifespan``, fastmcp's lifespan is not entered (as the SDK's is not)."""
    # the SDK: only where a server is listed (a worker, verify, export-servers)
    import anyio
    from mcp.shared.memory import create_client_server_memory_streams

    framework = framework_of(server)
    lowlevel = _lowlevel(server, framework)
    envelope = _Envelope()
    async with (
        _lifespan(server, framework) if lifespan else _lifespan_skipped(lowlevel),
        create_client_server_memory_streams() as (client, server_streams),
        anyio.create_task_group() as group,
    ):
        read, write = client

        async def run_server() -> None:
            await lowlevel.run(*server_streams, lowlevel.create_initialization_options())

        group.start_soon(run_server)

        async def request(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
            return await _exchange(read, write, envelope, number, method, params)

        await request(
            1,
            "initialize",
            {
                "protocolVersion": HANDSHAKE_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcp-codegen", "version": "0"},
            },
        )
        await write.send(envelope.notification("notifications/initialized"))
        tools: list[dict[str, Any]] = []
        cursor = None
        number = 2
        while True:
            page = await request(number, "tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            number += 1
            if not cursor:
                break
        group.cancel_scope.cancel()
    return tools


def stdio_initialization_options(lowlevel: Any, framework: str) -> Any:
    """The initialization options the framework's own stdio run passes, or ``RuntimeError``
    for a release whose stdio run was not read: its capabilities could differ from the ones
    recorded, so it gets no record (and no fast path) rather than a wrong initialize answer.

    Read in each release's ``fastmcp/server/mixins/transport.py``: 4.0.x passes
    ``NotificationOptions(tools_changed=True)`` (so resources/prompts ``listChanged`` are false),
    4.2.x passes the server's own defaults; 4.1.x ships its code in another distribution and
    was not read. The SDK's ``MCPServer`` passes its defaults.
    """
    if framework == "fastmcp":
        from importlib.metadata import version  # ~10 ms, only for fastmcp's release

        release = version("fastmcp")
        major_minor = tuple(int(part) for part in release.split(".")[:2] if part.isdigit())
        if major_minor == (4, 0):
            from mcp.server.lowlevel.server import NotificationOptions  # the SDK, as above

            return lowlevel.create_initialization_options(
                notification_options=NotificationOptions(tools_changed=True)
            )
        if major_minor != (4, 2):
            raise RuntimeError(
                f"the initialization options of fastmcp {release}'s stdio run are not known to "
                f"mcp-codegen (known: 4.0.x, 4.2.x)"
            )
    return lowlevel.create_initialization_options()


async def opening_answers(
    server: Any, revision: str, *, listing: bool, lifespan: bool = False
) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """The server's ``initialize`` result at ``revision`` and, with ``listing``, every
    ``tools/list`` page after it, as plain JSON in wire order, with its stdio run's own
    initialization options. The server's lifespan is entered only with ``lifespan``, as its
    stdio run enters it: neither answer needs it, except from a server whose listing reads the
    lifespan's state (keboola-mcp-server's middleware reads its ``ServerState``).
    """
    # the SDK: only where a server is listed (a worker, verify, export-servers)
    import anyio
    from mcp.server.runner import serve_dual_era_loop
    from mcp.shared.memory import create_client_server_memory_streams

    framework = framework_of(server)
    lowlevel = _lowlevel(server, framework)
    envelope = _Envelope()
    pages: list[dict[str, Any]] | None = None
    async with contextlib.AsyncExitStack() as stack:
        state = None
        if lifespan:
            await stack.enter_async_context(_lifespan(server, framework))
            state = await stack.enter_async_context(lowlevel.lifespan(lowlevel))
        async with (
            create_client_server_memory_streams() as (client, server_streams),
            anyio.create_task_group() as group,
        ):
            read, write = client

            async def run_server() -> None:
                # The stdio run's own options (what the framework's stdio run passes).
                await serve_dual_era_loop(
                    lowlevel,
                    *server_streams,
                    lifespan_state=state,
                    init_options=stdio_initialization_options(lowlevel, framework),
                )

            group.start_soon(run_server)

            async def request(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
                return _plain(await _exchange(read, write, envelope, number, method, params))

            result = await request(
                1,
                "initialize",
                {
                    "protocolVersion": revision,
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-codegen", "version": "0"},
                },
            )
            if listing:
                await write.send(envelope.notification("notifications/initialized"))
                pages = []
                cursor = None
                number = 2
                while True:
                    page = await request(number, "tools/list", {"cursor": cursor} if cursor else {})
                    pages.append(page)
                    cursor = page.get("nextCursor")
                    number += 1
                    if not cursor:
                        break
            group.cancel_scope.cancel()
    return result, pages


async def _exchange(
    read: Any, write: Any, envelope: Any, number: int, method: str, params: dict[str, Any]
) -> Any:
    """Send request ``number`` on an in-memory session and wait for its result (raw payload)."""
    await write.send(envelope.request(number, method, params))
    while True:
        message = await read.receive()
        if isinstance(message, Exception):
            raise message
        kind, identifier, payload = envelope.unpack(message)
        if kind == "response" and identifier == number:
            return payload
        if kind == "error" and identifier == number:
            raise RuntimeError(f"{method} failed: {payload}")


def _plain(payload: Any) -> Any:
    """A response's result as plain JSON data, in wire key order."""
    if hasattr(payload, "model_dump"):
        return payload.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return json.loads(json.dumps(payload))


def list_served_tools(server: Any, lifespan: bool = True) -> list[dict[str, Any]]:
    """``served_tools`` from synchronous code (starts and ends its own event loop)."""
    import anyio  # with the SDK, as above

    return anyio.run(served_tools, server, lifespan)


@functools.cache
def mcp_types() -> Any:
    """The module of MCP's protocol types: ``mcp_types`` (SDK 2.x, fastmcp 4.x) or ``mcp.types``
    (SDK 1.x). An installed SDK 1.x decides, even beside an ``mcp-types`` distribution: pip
    leaves that one installed when ``mcp`` is downgraded, and 2.x types make 1.x servers refuse
    every tool with annotations."""
    if installed_sdk1() is None:
        try:
            import mcp_types  # the SDK's types (2.x), only where a server is built

            return mcp_types
        except ImportError:
            pass
    import mcp.types  # SDK 1.x

    return mcp.types


class _Envelope:
    """JSON-RPC messages in the shape the installed SDK's streams carry (1.x or 2.x)."""

    def __init__(self) -> None:
        try:
            from mcp.shared.message import SessionMessage  # the SDK, as above
        except ImportError:  # SDK 1.x before 1.8 (chroma-mcp pins 1.6): bare JSONRPCMessages
            SessionMessage = None

        self.session_message = SessionMessage
        self.types = mcp_types()
        # SDK 2.x: the envelopes are plain models in mcp_types; SDK 1.x: a JSONRPCMessage root
        # model in mcp.types wraps them.
        self.root = self.types.__name__ != "mcp_types"

    def _wrap(self, message: Any) -> Any:
        if self.root:
            message = self.types.JSONRPCMessage(message)
        return message if self.session_message is None else self.session_message(message=message)

    def request(self, number: int, method: str, params: dict[str, Any]) -> Any:
        return self._wrap(
            self.types.JSONRPCRequest(jsonrpc="2.0", id=number, method=method, params=params)
        )

    def notification(self, method: str) -> Any:
        return self._wrap(self.types.JSONRPCNotification(jsonrpc="2.0", method=method))

    def unpack(self, message: Any) -> tuple[str, object, Any]:
        body = message.message if self.session_message is not None else message
        body = getattr(body, "root", body)
        if isinstance(body, self.types.JSONRPCResponse):
            return "response", body.id, body.result
        if isinstance(body, self.types.JSONRPCError):
            return "error", body.id, body.error
        return "other", None, None
