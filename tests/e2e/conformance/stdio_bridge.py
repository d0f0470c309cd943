"""A Streamable-HTTP endpoint in front of a stdio MCP server, for the conformance suite (tests only).

``python -m tests.e2e.conformance.stdio_bridge --port N -- COMMAND...``: every HTTP session (its
first POST, an ``initialize``) spawns ``COMMAND`` and relays JSON-RPC both ways, a line per
message: what the client POSTs goes to the child's stdin; what the child writes goes back on the
SSE stream of the request it answers (the SDK's own ``StreamableHTTPServerTransport`` does the
HTTP side: session ids, SSE per request, the GET stream, DELETE). A message the child sends
while requests are in flight (a progress or log notification, an elicitation request) is
related to the request its ``progressToken`` names, else to the latest request in flight; with
none in flight it goes to the GET stream. DELETE or the session's end closes the child's stdin.

Why not an existing bridge: ``mcp-proxy`` (PyPI) answers the client with its own SDK server
(re-implementing initialize and re-serialising every result), so the suite would test the
proxy, not the server behind it; this bridge relays the child's messages unchanged (the SDK
transport re-serialises each message as a JSON value, keys and values as the child wrote them).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import uuid
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from anyio.abc import Process
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from starlette.types import Receive, Scope, Send

logger = logging.getLogger("stdio_bridge")


class Bridge:
    """The ASGI app: one child process and one SDK transport per HTTP session."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.sessions: dict[str, StreamableHTTPServerTransport] = {}
        self.group: anyio.abc.TaskGroup | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        transport = self.sessions.get(session_id or "")
        if transport is None and session_id is None and scope["method"] == "POST":
            transport = StreamableHTTPServerTransport(mcp_session_id=uuid.uuid4().hex)
            assert transport.mcp_session_id is not None and self.group is not None
            self.sessions[transport.mcp_session_id] = transport
            await self.group.start(self._relay, transport)
        if transport is None:
            body = (
                b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 404 if session_id else 400,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await transport.handle_request(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()
        async with anyio.create_task_group() as group:
            self.group = group
            await send({"type": "lifespan.startup.complete"})
            await receive()  # shutdown
            group.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})

    async def _relay(
        self,
        transport: StreamableHTTPServerTransport,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        in_flight: list[Any] = []  # client request ids not answered yet, oldest first
        tokens: dict[Any, Any] = {}  # progressToken -> request id
        async with transport.connect() as (read_stream, write_stream):
            process: Process = await anyio.open_process(self.command, stderr=sys.stderr)
            task_status.started()
            assert process.stdin is not None and process.stdout is not None
            try:
                async with anyio.create_task_group() as group:

                    async def to_child() -> None:
                        async for item in read_stream:
                            if isinstance(item, Exception):
                                continue
                            message = item.message
                            data = message.model_dump(by_alias=True, exclude_unset=True)
                            if "method" in data and "id" in data:
                                in_flight.append(data["id"])
                                token = ((data.get("params") or {}).get("_meta") or {}).get(
                                    "progressToken"
                                )
                                if token is not None:
                                    tokens[token] = data["id"]
                            line = message.model_dump_json(by_alias=True, exclude_unset=True)
                            await process.stdin.send(line.encode() + b"\n")
                        await process.stdin.aclose()

                    async def from_child() -> None:
                        buffer = b""
                        async for chunk in process.stdout:
                            buffer += chunk
                            while b"\n" in buffer:
                                raw, buffer = buffer.split(b"\n", 1)
                                if raw.strip():
                                    await write_stream.send(
                                        _session_message(raw, in_flight, tokens)
                                    )
                        group.cancel_scope.cancel()

                    group.start_soon(to_child)
                    group.start_soon(from_child)
            finally:
                with anyio.CancelScope(shield=True):
                    if process.returncode is None:
                        process.terminate()
                        with anyio.move_on_after(5):
                            await process.wait()
                    self.sessions.pop(transport.mcp_session_id or "", None)
                    await transport.terminate()


def _session_message(raw: bytes, in_flight: list[Any], tokens: dict[Any, Any]) -> SessionMessage:
    data = json.loads(raw)
    message = types.jsonrpc_message_adapter.validate_json(raw, by_name=False)
    if "method" not in data and "id" in data:  # an answer: its own request's stream
        if data["id"] in in_flight:
            in_flight.remove(data["id"])
        return SessionMessage(message)
    token = ((data.get("params") or {}).get("progressToken")) if "method" in data else None
    related = tokens.get(token) if token is not None else None
    if related is None and in_flight:
        related = in_flight[-1]
    if related is None:
        return SessionMessage(message)  # the GET stream
    return SessionMessage(message, metadata=ServerMessageMetadata(related_request_id=related))


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else argv
    split = arguments.index("--")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    options = parser.parse_args(arguments[:split])
    uvicorn.run(
        Bridge(arguments[split + 1 :]),
        host="127.0.0.1",
        port=options.port,
        log_level="warning",
        lifespan="on",
    )


if __name__ == "__main__":
    main()
